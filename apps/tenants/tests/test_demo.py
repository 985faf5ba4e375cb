"""The demo sites a command works on (apps.tenants.demo.demo_sites_named)."""

import pytest
from django.core.management.base import CommandError

from apps.tenants.demo import DEMO_SITES, demo_sites_named

pytestmark = pytest.mark.django_db


def test_a_command_works_on_every_demo_site_or_the_one_named(site, gay_site):
    assert demo_sites_named(None) == [("localhost", site), ("gay.localhost", gay_site)]
    assert [spec["domain"] for spec in DEMO_SITES] == ["localhost", "gay.localhost"]
    assert demo_sites_named("gay.localhost") == [("gay.localhost", gay_site)]


def test_a_domain_no_site_has_is_the_commands_error(site):
    with pytest.raises(CommandError, match=r"nowhere\.example"):
        demo_sites_named("nowhere.example")
