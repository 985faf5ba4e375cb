"""The sites' provider keys (Mollie API key, push private key) encrypted at rest
(apps.common.encryption). The columns become text (a token is longer than its key) and
every stored value is encrypted with the first of SECRETS_KEYS; going back decrypts
them. The rows are read and written as they are stored (stored_values), not through
the field, which would take a value in clear for a token. Site rows live in the public
schema only: on the sites' schemas and the template the router skips this app's
operations, so a site cloned from the template has nothing to convert."""

from django.db import migrations

import apps.common.encryption
import apps.tenants.validators
from apps.common.encryption import secret_decrypt, secret_rotate, stored_values, stored_values_write


def _rewrite(registry, convert) -> None:
    Site = registry.get_model("tenants", "Site")
    for pk, values in stored_values(Site.objects.select_for_update()):
        converted = {name: convert(value) for name, value in values.items()}
        if converted != values:
            stored_values_write(Site, pk, converted)


def encrypt(registry, schema_editor) -> None:
    # A value in clear is encrypted; one encrypted already (a rerun) gets the first key.
    _rewrite(registry, secret_rotate)


def decrypt(registry, schema_editor) -> None:
    _rewrite(registry, secret_decrypt)


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0008_site_settings_validated"),
    ]

    operations = [
        migrations.AlterField(
            model_name="site",
            name="mollie_api_key",
            field=apps.common.encryption.EncryptedCharField(
                blank=True,
                help_text="The site's own key (live_… or test_…); required when the gateway is Mollie.",
                max_length=100,
                verbose_name="Mollie API key",
            ),
        ),
        migrations.AlterField(
            model_name="site",
            name="push_private_key",
            field=apps.common.encryption.EncryptedCharField(
                blank=True,
                max_length=200,
                validators=[apps.tenants.validators.vapid_private_key],
                verbose_name="push private key (VAPID)",
            ),
        ),
        migrations.RunPython(encrypt, decrypt),
    ]
