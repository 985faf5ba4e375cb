"""Which schema a model's table lives in.

django-tenants places whole apps (TenantSyncRouter): an app of SHARED_APPS gets its
tables in the public schema, one of TENANT_APPS in every site's schema, one in both
lists in both. A site app may also own models that belong beside the sites in the public
schema (what a site sells, apps.payments): it names them in `public_models` on its
AppConfig, and PublicModelsRouter, ahead of django-tenants' in DATABASE_ROUTERS, gives
them a table in the public schema only. Listing the app in SHARED_APPS as well would not
do: every model of the app would get a table in both, and a site's empty copy, first on
the search path, would hide the public rows. Apps that are public as a whole (landers,
support) need none of this."""

from django.apps import apps
from django.db import connections
from django_tenants.utils import get_public_schema_name, get_tenant_database_alias


def public_models(app_label: str) -> frozenset[str]:
    """The models (lowercase names) of an app that live in the public schema only."""
    return frozenset(getattr(apps.get_app_config(app_label), "public_models", ()))


class PublicModelsRouter:
    """Each app's public_models in the public schema only; every other model is left to
    django-tenants' router (None: no opinion)."""

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        if model_name is None or model_name not in public_models(app_label):
            return None
        return db == get_tenant_database_alias() and connections[db].schema_name == get_public_schema_name()
