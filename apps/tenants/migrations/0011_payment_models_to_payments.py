"""The credit packages, their prices and the discount codes now belong to the payments
app (payments 0002, apps.payments.models). Only Django's state changes: the tables keep
their names and rows, and payments' models name them (Meta.db_table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0010_domain_https_state"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="CreditPackagePrice"),
                migrations.DeleteModel(name="CreditPackage"),
                migrations.DeleteModel(name="DiscountCode"),
            ],
            database_operations=[],
        ),
    ]
