"""The current site (apps.tenants.current): the site of the connection's schema, one
failure outside every site's schema."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tenants.utils import schema_context

from apps.tenants.current import NoSiteError, current_site
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db


def test_current_site_is_the_site_whose_schema_is_set_without_a_query(site, gay_site, django_assert_num_queries):
    with on_site(gay_site), django_assert_num_queries(0):
        assert current_site() == gay_site
    with on_site(site), django_assert_num_queries(0):
        assert current_site() == site


def test_current_site_under_schema_context_is_read_by_the_schemas_name(site):
    with schema_context(site.schema_name), CaptureQueriesContext(connection) as queries:
        found = current_site()
    assert found.pk == site.pk
    selects = [query["sql"] for query in queries.captured_queries if query["sql"].startswith("SELECT")]
    assert len(selects) == 1 and Site._meta.db_table in selects[0]


def test_current_site_in_the_public_schema_raises(site):
    connection.set_schema_to_public()
    with pytest.raises(NoSiteError):
        current_site()
    # Also when the public schema's tenant object is a Site (the operators' host).
    connection.set_tenant(site)
    connection.set_schema_to_public()
    with pytest.raises(NoSiteError):
        current_site()


def test_current_site_of_a_schema_no_site_has_raises(db):
    with schema_context("no_such_site"), pytest.raises(NoSiteError):
        current_site()


def test_a_site_task_outside_every_site_fails_loudly_instead_of_writing(site):
    """The signup bonus used to grant nothing, quietly, where no site was set."""
    from apps.credits.bonus import signup_bonus_grant
    from apps.profiles.tests.helpers_view import member

    user = member(site, "Anna").user
    connection.set_schema_to_public()
    with pytest.raises(NoSiteError):
        signup_bonus_grant(user=user)


def test_common_reaches_the_same_site_lookup_through_its_hook(site, gay_site):
    """apps.common.sites, filled by TenantsConfig.ready, answers with the lookup of this
    app: the current site and its one failure, the site of a host."""
    from apps.common import sites
    from apps.tenants.middleware import site_for_host

    with on_site(gay_site):
        assert sites.current_site() == gay_site
    with schema_context("public"), pytest.raises(NoSiteError):
        sites.current_site()
    assert sites.site_for_host("localhost") == site_for_host("localhost") == site
    assert sites.site_cached("localhost")[0] == site
