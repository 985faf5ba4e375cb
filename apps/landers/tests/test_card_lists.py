"""The card lists of landers and the home page (apps.landers.selectors): each site gets
its own profiles of its niche, newest first or recently active first, from statements
compiled once per process (a site's first list costs no ORM compile)."""

from unittest import mock

import pytest
from django.db.models.sql.compiler import SQLCompiler

from apps.common.cache import volatile_delete_many
from apps.landers import selectors
from apps.landers.tests.helpers import lander_profiles
from conftest import on_site

pytestmark = pytest.mark.django_db


def _forget(*sites) -> None:
    volatile_delete_many([selectors._list_key(name, site.pk) for site in sites for name in ("cards", "online")])


def test_each_site_lists_its_own_niche_newest_first(site, gay_site):
    women = lander_profiles(site, 3, gender="female", prefix="Her")
    lander_profiles(site, 2, gender="male", prefix="Him")
    men = lander_profiles(gay_site, 2, gender="male", prefix="Gay")
    lander_profiles(gay_site, 1, gender="female", prefix="NotShown")
    _forget(site, gay_site)
    with on_site(gay_site):
        gay = [card["name"] for card in selectors.lander_cards(gay_site)]
    assert gay == [profile.name for profile in reversed(men)]
    with on_site(site):
        names = [card["name"] for card in selectors.lander_cards(site)]
    # The general niche's visitors see every gender; the other site's profiles never.
    assert names[:5] == ["Him1", "Him0", "Her2", "Her1", "Her0"]
    assert not any(name.startswith(("Gay", "NotShown")) for name in names)
    assert {profile.name for profile in women} <= set(names)


def test_a_sites_first_list_compiles_no_statement(site):
    lander_profiles(site, 2, prefix="Kept")
    _forget(site)
    with on_site(site):
        selectors.lander_cards(site)  # compiled here at the latest
        _forget(site)
        with mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql) as as_sql:
            cards = selectors.lander_cards(site)
    assert [card["name"] for card in cards[:2]] == ["Kept1", "Kept0"]
    assert as_sql.call_count == 0
