from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.common.database_roles import owner_connection
from apps.tenants.services import template_schema_migrate


class Command(BaseCommand):
    help = (
        "Migrate the public schema, then the template schema new sites are cloned from, then every site, "
        "as the owner role (DATABASE_OWNER_URL)."
    )

    def handle(self, *args, **options) -> None:
        verbosity = options["verbosity"]
        # The serving role may not create or alter the tables (apps.common.database_roles).
        with owner_connection():
            call_command("migrate_schemas", shared=True, interactive=False, verbosity=verbosity)
            template_schema_migrate(verbosity=verbosity)
            call_command("migrate_schemas", tenant=True, interactive=False, verbosity=verbosity)
