"""A lander of a site whose members have no approved photos yet shows its empty state:
the message spans the grid's whole row at phone and desktop widths (it sat in one photo's
column, a narrow strip of words at 390 px)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from apps.profiles.models import Profile
from apps.tenants.models import Site
from conftest import on_site
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

DOMAIN = "gay.localhost"
EMPTY = "New members join every day. Be one of the first."


def photos_shown(site: Site) -> int:
    with on_site(site):
        return Profile.objects.filter(main_photo__isnull=False).count()


@pytest.mark.parametrize("path", ["/landers/gallery", "/landers/alonetonight"])
def test_the_empty_state_spans_the_row(site_server, page, viewport, path):
    site = Site.objects.get(domains__domain=DOMAIN)
    assert in_thread(photos_shown, site) == 0  # the state this test is about
    page.goto(site_server.url(DOMAIN, path))
    message = page.locator(".lander-grid > p")
    expect(message).to_have_text(EMPTY)
    grid = page.locator(".lander-grid").bounding_box()
    box = message.bounding_box()
    assert grid and box
    assert box["width"] >= grid["width"] - 1, (box, grid)
    assert box["height"] < 100, box  # a line or two, not a column of single words
