"""The site of a host (apps.tenants.middleware.site_for_host): its domain, site, company
and minimum message costs in one statement, compiled once per process; unknown hosts are
never kept."""

import time
from unittest import mock

import pytest
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext

from apps.tenants import middleware
from apps.tenants.middleware import site_cache_clear, site_cached, site_for_host

pytestmark = pytest.mark.django_db


def _host(site) -> str:
    return site.domains.order_by("pk").first().domain


def test_a_host_is_read_with_its_site_company_and_message_costs_in_one_statement(site):
    host = _host(site)
    site.minimum_message_costs.create(country="FR", costs=3, currency="EUR")
    site.minimum_message_costs.create(country="GB", costs=12, currency="GBP")
    site_cache_clear()
    connection.set_schema_to_public()
    with CaptureQueriesContext(connection) as captured:
        found = site_for_host(host)
        # Read without another query: the company and the prefetched costs.
        assert found.company_id is None or found.company is not None
        costs = list(found.minimum_message_costs.all())
    assert found.pk == site.pk and found.schema_name == site.schema_name
    assert costs == list(site.minimum_message_costs.order_by("pk"))
    assert [(cost.country.code, cost.costs, cost.currency, cost.site_id) for cost in costs] == [
        ("FR", 3, "EUR", site.pk),
        ("GB", 12, "GBP", site.pk),
    ]
    assert costs[0].site is found and not costs[0]._state.adding
    statements = [query["sql"] for query in captured if "search_path" not in query["sql"]]
    assert len(statements) == 1, statements
    assert '"tenants_domain"' in statements[0] and '"tenants_site"' in statements[0]
    assert '"tenants_minimummessagecost"' in statements[0]
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
    # The statement is the kept one.
    assert as_sql.call_count == 0


def test_an_unknown_host_is_none_and_not_kept(site):
    site_cache_clear()
    connection.set_schema_to_public()
    assert site_for_host("nobody.example") is None
    assert site_cached("nobody.example") is None


# --- how long a site is kept: the sites' generation --------------------------------------


def _kept(site) -> str:
    """The site's host, its site kept after a fresh reading of the generation."""
    host = _host(site)
    site_cache_clear()
    connection.set_schema_to_public()
    assert middleware.sites_check()
    site_for_host(host)
    return host


def _read_twice(host: str) -> int:
    """Statements of a second lookup of `host` right after a first."""
    site_for_host(host)
    with CaptureQueriesContext(connection) as captured:
        site_for_host(host)
    return len([query for query in captured if "search_path" not in query["sql"]])


def test_a_site_is_kept_past_the_short_time_while_the_generation_answers(site):
    host = _kept(site)
    expires, kept = middleware._site_cache[host]
    assert expires - time.monotonic() > middleware.SITE_UNCHECKED_SECONDS  # kept longer than before
    with CaptureQueriesContext(connection) as captured:
        assert site_for_host(host) is kept
    assert len(captured) == 0


def test_a_change_another_process_committed_drops_the_kept_sites_at_the_next_check(site):
    host = _kept(site)
    assert site_cached(host) is not None
    middleware._redis_client().set(middleware._generation_key(), b"another")  # another process's change
    assert middleware.sites_check()
    assert site_cached(host) is None
    assert _read_twice(host) == 0  # kept again, and the next check keeps it
    assert middleware.sites_check()
    assert site_cached(host) is not None


def test_this_process_s_own_change_is_not_dropped_twice(site):
    host = _host(site)
    connection.set_schema_to_public()
    assert middleware.sites_check()
    site_for_host(host)
    middleware.sites_changed()
    assert site_cached(host) is None  # at once in this process
    site_for_host(host)
    assert middleware.sites_check()
    assert site_cached(host) is not None


def test_without_an_answer_a_kept_site_ages_out_as_before(site):
    host = _kept(site)
    failing = mock.patch.object(middleware, "_redis_client", side_effect=ConnectionError("refused"))
    with failing:
        assert not middleware.sites_check()
        middleware._generation.checked = time.monotonic() - middleware.SITE_UNCHECKED_SECONDS - 1
        assert site_cached(host)[1] > 0  # past its time
        with CaptureQueriesContext(connection) as captured:
            site_for_host(host)
    # Read again: the domain with its site, company and costs.
    assert len([query for query in captured if "search_path" not in query["sql"]]) == 1


def test_a_lookup_that_read_before_a_clear_does_not_keep_what_it_read(site):
    host = _host(site)
    site_cache_clear()
    connection.set_schema_to_public()
    read = middleware._DOMAIN.objects

    def read_then_cleared(**kwargs):
        rows = read(**kwargs)
        site_cache_clear()  # a change committed meanwhile
        return rows

    with mock.patch.object(middleware._DOMAIN, "objects", side_effect=read_then_cleared):
        assert site_for_host(host).pk == site.pk
    assert site_cached(host) is None


def test_a_committed_change_to_a_site_gives_the_generation_a_new_value(site, django_capture_on_commit_callbacks):
    client = middleware._redis_client()
    before = client.get(middleware._generation_key())
    with django_capture_on_commit_callbacks(execute=False) as committed:
        site.save(update_fields=["name"])  # as the admin's save
    assert client.get(middleware._generation_key()) == before  # not before the commit
    for callback in committed:
        callback()
    assert client.get(middleware._generation_key()) not in (before, None)


def test_a_change_redis_did_not_take_is_announced_by_the_next_check(site):
    client = middleware._redis_client()
    assert middleware.sites_check()
    before = client.get(middleware._generation_key())
    with mock.patch.object(middleware, "_redis_client", side_effect=ConnectionError("refused")):
        middleware.sites_changed()
    assert middleware._generation.unannounced
    assert client.get(middleware._generation_key()) == before
    assert middleware.sites_check()
    assert not middleware._generation.unannounced
    assert client.get(middleware._generation_key()) not in (before, None)


def test_the_kept_costs_read_as_the_orm_s_prefetch(site):
    from apps.tenants.models import MinimumMessageCost

    MinimumMessageCost.objects.create(site=site, country="DE", costs=7, currency="EUR")
    MinimumMessageCost.objects.create(site=site, country="FR", costs=9, currency="EUR")
    host = _host(site)
    site_cache_clear()
    connection.set_schema_to_public()
    found = site_for_host(host)
    with CaptureQueriesContext(connection) as captured:
        costs = list(found.minimum_message_costs.all())
        assert all(cost.site is found for cost in costs)
        assert sorted((str(cost.country), cost.costs) for cost in costs) == [("DE", 7), ("FR", 9)]
    assert len(captured) == 0
    assert [cost.pk for cost in costs] == list(
        MinimumMessageCost.objects.filter(site=site).order_by("pk").values_list("pk", flat=True)
    )
