"""The activate-done page (spec §2: get premium, search members, sign-up profile, overview
of members): the overview is a grid of a few of the site's members, each card with photo,
name and age linking to the profile, and an empty state without any."""

import re

import pytest
from django.core.cache import cache

from apps.landers.tests.helpers import lander_profiles, thumb_of
from apps.profiles.tests.helpers_view import logged_in, member, photos_add

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_lists():
    cache.clear()  # the member lists are cached briefly across requests
    yield
    cache.clear()


def overview(html: str) -> str:
    start = html.index('data-testid="members-overview"')
    return html[start : html.index("</section>", start)]


def test_a_grid_of_members_linking_to_their_profiles(site, client_for):
    me = member(site, "Newcomer")
    photos_add(site, me, 1)
    others = lander_profiles(site, 10)
    html = logged_in(site, client_for, me).get("/activate/done").content.decode()
    grid = overview(html)
    cards = re.findall(r'<article class="lander-card".*?</article>', grid, re.S)
    assert len(cards) == 8
    newest = others[-1]
    assert f'href="/members/{newest.pk}"' in cards[0]
    assert thumb_of(site, newest) in cards[0] and f'alt="{newest.name}"' in cards[0]
    assert re.search(rf"{newest.name}, \d\d", cards[0])
    assert "Newcomer" not in grid  # not the member's own profile
    assert 'data-testid="members-overview-empty"' not in grid
    assert 'href="/members" data-testid="members-overview-all"' in grid


def test_an_empty_state_without_members(site, client_for):
    me = member(site, "Newcomer")
    html = logged_in(site, client_for, me).get("/activate/done").content.decode()
    grid = overview(html)
    assert 'data-testid="members-overview-empty"' in grid
    assert "<article" not in grid
    assert 'href="/members"' in grid
