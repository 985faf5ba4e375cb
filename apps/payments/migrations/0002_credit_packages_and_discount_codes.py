"""The credit packages, their prices and the discount codes move here from the tenants
app (tenants 0011): Django's state only, on the tables they had, which stay in the public
schema with their rows (PaymentsConfig.public_models, apps.tenants.routers). Their
content types follow them, so the staff roles' permissions and the admin's log keep
pointing at them."""

import django.contrib.postgres.fields
import django.core.validators
import django.db.models.deletion
import django_countries.fields
from django.db import migrations, models

MOVED = ("creditpackage", "creditpackageprice", "discountcode")


def _content_types_relabel(apps, schema_editor, source: str, target: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    content_types = ContentType.objects.using(schema_editor.connection.alias)
    for model in MOVED:
        # A schema migrated once before without this step already has the new ones.
        if not content_types.filter(app_label=target, model=model).exists():
            content_types.filter(app_label=source, model=model).update(app_label=target)
    ContentType.objects.clear_cache()


def content_types_forwards(apps, schema_editor) -> None:
    _content_types_relabel(apps, schema_editor, "tenants", "payments")


def content_types_backwards(apps, schema_editor) -> None:
    _content_types_relabel(apps, schema_editor, "payments", "tenants")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("payments", "0001_initial"),
        ("tenants", "0011_payment_models_to_payments"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="CreditPackage",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "credits",
                            models.PositiveIntegerField(
                                validators=[django.core.validators.MinValueValidator(1)], verbose_name="credits"
                            ),
                        ),
                        ("highlighted", models.BooleanField(default=False, verbose_name="highlighted")),
                        ("is_active", models.BooleanField(default=True, verbose_name="on sale")),
                        ("position", models.PositiveSmallIntegerField(default=0, verbose_name="position")),
                        (
                            "site",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="credit_packages",
                                to="tenants.site",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tenants_creditpackage",
                        "verbose_name": "credit package",
                        "verbose_name_plural": "credit packages",
                        "ordering": ["position", "credits"],
                    },
                ),
                migrations.CreateModel(
                    name="CreditPackagePrice",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "currency",
                            models.CharField(
                                default="EUR",
                                max_length=3,
                                validators=[
                                    django.core.validators.RegexValidator(
                                        "^[A-Z]{3}$", "Use a three-letter ISO currency code."
                                    )
                                ],
                                verbose_name="currency",
                            ),
                        ),
                        (
                            "amount",
                            models.PositiveIntegerField(
                                help_text="In cents: 1995 is 19.95.",
                                validators=[django.core.validators.MinValueValidator(100)],
                                verbose_name="price (minor units)",
                            ),
                        ),
                        (
                            "package",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="prices",
                                to="payments.creditpackage",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tenants_creditpackageprice",
                        "verbose_name": "price",
                        "verbose_name_plural": "prices",
                        "constraints": [
                            models.UniqueConstraint(fields=("package", "currency"), name="unique_package_currency")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="DiscountCode",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "code",
                            models.CharField(
                                max_length=40,
                                validators=[
                                    django.core.validators.RegexValidator(
                                        "^[A-Z0-9_-]{3,40}$", "Use 3 to 40 capital letters, digits, - or _."
                                    )
                                ],
                                verbose_name="code",
                            ),
                        ),
                        (
                            "value_percentage",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(90),
                                ],
                                verbose_name="percentage",
                            ),
                        ),
                        (
                            "country",
                            django_countries.fields.CountryField(blank=True, max_length=2, verbose_name="country"),
                        ),
                        ("member_id", models.BigIntegerField(blank=True, null=True, verbose_name="member id")),
                        ("expires", models.DateTimeField(blank=True, null=True, verbose_name="expires")),
                        (
                            "currency",
                            models.CharField(
                                blank=True,
                                max_length=3,
                                validators=[
                                    django.core.validators.RegexValidator(
                                        "^[A-Z]{3}$", "Use a three-letter ISO currency code."
                                    )
                                ],
                                verbose_name="currency",
                            ),
                        ),
                        (
                            "minimum_order_value",
                            models.PositiveIntegerField(
                                default=0,
                                help_text="In cents, before the discount.",
                                verbose_name="minimum order value (minor units)",
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[("active", "Active"), ("inactive", "Inactive")],
                                default="active",
                                max_length=10,
                                verbose_name="status",
                            ),
                        ),
                        (
                            "paymentmethods",
                            django.contrib.postgres.fields.ArrayField(
                                base_field=models.CharField(max_length=30),
                                blank=True,
                                default=list,
                                size=None,
                                verbose_name="payment methods",
                            ),
                        ),
                        ("created", models.DateTimeField(auto_now_add=True, verbose_name="created")),
                        (
                            "site",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="discount_codes",
                                to="tenants.site",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tenants_discountcode",
                        "verbose_name": "discount code",
                        "verbose_name_plural": "discount codes",
                        "constraints": [
                            models.UniqueConstraint(fields=("site", "code"), name="unique_site_discount_code")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        # Every schema has content types. The router runs an operation of the payments
        # app that names a public model in the public schema only, and one that names no
        # model in the sites' schemas only: together, once in each schema.
        migrations.RunPython(content_types_forwards, content_types_backwards, hints={"model_name": "creditpackage"}),
        migrations.RunPython(content_types_forwards, content_types_backwards),
    ]
