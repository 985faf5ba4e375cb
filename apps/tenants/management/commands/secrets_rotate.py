"""`manage.py secrets_rotate`: re-encrypts every stored provider key (every
EncryptedCharField of every model, apps.common.encryption) with the first of
SECRETS_KEYS, and encrypts any value still in clear.

Rotating the keys: put the new key first in SECRETS_KEYS in every process, run this
command, then drop the old key. Shared models are visited in the public schema, a site's
models in every site's schema. All or nothing: a value no key opens stops the run before
anything is written, and says which row it is."""

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_tenants.utils import get_public_schema_name, get_tenant_model, schema_context

from apps.common.encryption import SecretUnreadable, encrypted_fields, secret_rotate, stored_values, stored_values_write


def _schemas_of(model) -> list[str]:
    if model._meta.app_config.name in settings.SHARED_APPS:
        return [get_public_schema_name()]
    sites = get_tenant_model().objects.exclude(schema_name=get_public_schema_name())
    return list(sites.order_by("schema_name").values_list("schema_name", flat=True))


class Command(BaseCommand):
    help = "Re-encrypt every stored provider key with the first of SECRETS_KEYS (after adding a new key)."

    def handle(self, *args, **options) -> None:
        models = [model for model in apps.get_models() if encrypted_fields(model)]
        rows = values = 0
        with transaction.atomic():
            for model in models:
                for schema in _schemas_of(model):
                    with schema_context(schema):
                        for pk, stored in stored_values(model._base_manager.select_for_update()):
                            try:
                                rotated = {name: secret_rotate(value) for name, value in stored.items()}
                            except SecretUnreadable as error:
                                raise CommandError(
                                    f"{model._meta.label} {pk} ({schema}): {error} Nothing was changed."
                                ) from error
                            stored_values_write(model, pk, rotated)
                            rows += 1
                            values += sum(1 for value in rotated.values() if value)
        self.stdout.write(f"{values} stored keys in {rows} rows re-encrypted with the first of SECRETS_KEYS.")
