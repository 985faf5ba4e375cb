"""The site of a host (apps.tenants.middleware.site_for_host): its domain, site and
company in one statement compiled once per process, its minimum message costs in a
second; unknown hosts are never kept."""

from unittest import mock

import pytest
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext

from apps.tenants.middleware import site_cache_clear, site_cached, site_for_host

pytestmark = pytest.mark.django_db


def _host(site) -> str:
    return site.domains.order_by("pk").first().domain


def test_a_host_is_read_with_its_site_company_and_message_costs_in_two_statements(site):
    host = _host(site)
    site_cache_clear()
    connection.set_schema_to_public()
    with CaptureQueriesContext(connection) as captured:
        found = site_for_host(host)
        # Read without another query: the company and the prefetched costs.
        assert found.company_id is None or found.company is not None
        costs = list(found.minimum_message_costs.all())
    assert found.pk == site.pk and found.schema_name == site.schema_name
    assert costs == list(site.minimum_message_costs.all())
    statements = [query["sql"] for query in captured if "search_path" not in query["sql"]]
    assert len(statements) == 2, statements
    assert '"tenants_domain"' in statements[0] and '"tenants_site"' in statements[0]
    assert site_cached(host)[0].pk == site.pk


def test_the_lookup_is_compiled_once_and_each_host_gets_its_own_site(site, gay_site):
    site_cache_clear()
    connection.set_schema_to_public()
    assert site_for_host(_host(site)).pk == site.pk  # compiled here at the latest
    other = _host(gay_site)
    compiles = mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql)
    with compiles as as_sql:
        found = site_for_host(other)
    assert found.pk == gay_site.pk
    # Only the costs' prefetch is compiled: the domain's statement is the kept one.
    assert as_sql.call_count == 1


def test_an_unknown_host_is_none_and_not_kept(site):
    site_cache_clear()
    connection.set_schema_to_public()
    assert site_for_host("nobody.example") is None
    assert site_cached("nobody.example") is None
