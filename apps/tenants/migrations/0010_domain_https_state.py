"""A domain's HTTPS state: when the proxy last asked for its certificate, and when a
request last came in over HTTPS (apps.tenants.tls). Public schema only."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0009_stored_keys_encrypted"),
    ]

    operations = [
        migrations.AddField(
            model_name="domain",
            name="certificate_requested",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="certificate requested"),
        ),
        migrations.AddField(
            model_name="domain",
            name="last_seen_https",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="last seen over HTTPS"),
        ),
    ]
