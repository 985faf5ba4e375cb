"""A site app's public models (apps.payments: credit packages, their prices, discount
codes) have a table in the public schema only; the app's other models in the sites'
schemas only. An empty copy in a site's schema would come first on the search path and
hide the site's packages."""

import pytest
from django.conf import settings
from django.db import connection
from django_tenants.utils import schema_context

from apps.payments.models import CreditPackage, DiscountCode
from apps.tenants.routers import PublicModelsRouter, public_models
from conftest import on_site

pytestmark = pytest.mark.django_db

PUBLIC_TABLES = {"tenants_creditpackage", "tenants_creditpackageprice", "tenants_discountcode"}


def _tables(schema: str, names: set[str]) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s AND table_name = ANY(%s)",
            [schema, list(names)],
        )
        return {row[0] for row in cursor.fetchall()}


def test_public_models_have_tables_in_the_public_schema_only(site):
    assert public_models("payments") == {"creditpackage", "creditpackageprice", "discountcode"}
    assert _tables("public", PUBLIC_TABLES | {"payments_payment"}) == PUBLIC_TABLES
    for schema in (site.schema_name, settings.TENANT_BASE_SCHEMA):
        assert _tables(schema, PUBLIC_TABLES | {"payments_payment"}) == {"payments_payment"}, schema


def test_a_site_reads_its_packages_from_the_public_schema(site):
    DiscountCode.objects.create(site=site, code="PUBLIC10", value_percentage=10)
    packages = set(CreditPackage.objects.filter(site=site).values_list("pk", flat=True))
    assert packages
    with on_site(site):
        assert set(CreditPackage.objects.filter(site=site).values_list("pk", flat=True)) == packages
        assert DiscountCode.objects.filter(site=site, code="PUBLIC10").exists()


def test_the_router_places_public_models_and_leaves_the_rest_to_django_tenants(site):
    router = PublicModelsRouter()
    with schema_context("public"):
        assert router.allow_migrate("default", "payments", model_name="creditpackage") is True
        assert router.allow_migrate("default", "payments", model_name="payment") is None
    with schema_context(site.schema_name):
        assert router.allow_migrate("default", "payments", model_name="discountcode") is False
        assert router.allow_migrate("default", "payments") is None
        assert router.allow_migrate("default", "tenants", model_name="site") is None
