"""The default layout carries the match modal and the like modal for members only
(spec §2 layouts, §6 "like modal ... for logged-in users"); the like modal only on a page
opened with ?t=<seconds>, the only case in which it opens (spec §4)."""

import json
import re

import pytest

from apps.profiles.tests.helpers_view import logged_in, member

pytestmark = pytest.mark.django_db


def island_props(body: str, name: str) -> dict | None:
    found = re.search(rf'<div data-island="{name}" id="(island-{name}-\d+)"></div>', body)
    if not found:
        return None
    script = re.search(rf'<script id="{found.group(1)}-props" type="application/json">(.*?)</script>', body, re.S)
    assert script, f"no props script for {name}"
    return json.loads(script.group(1))


def test_members_get_both_islands_with_urls_and_strings(site, client_for):
    client = logged_in(site, client_for, member(site, "Viewer"))
    response = client.get("/members?t=5")
    assert response.status_code == 200
    body = response.content.decode()

    match = island_props(body, "MatchModal")
    assert match is not None
    assert match["autoLikeUrl"] == "/api/auto-like.php"
    assert match["likesUrl"] == "/api/likes.php"
    assert match["profileUrl"] == "/members/{id}"
    assert match["strings"]["title"] == "New like!"
    assert match["strings"]["viewProfile"] == "View profile"

    like = island_props(body, "LikeModal")
    assert like is not None
    assert like["swipeUrl"] == "/swipe-game"
    assert like["membersUrl"] == "/members"
    assert {"title", "body", "swipe", "members", "close"} <= set(like["strings"])
    assert body.count('data-island="MatchModal"') == 1 and body.count('data-island="LikeModal"') == 1


def test_the_like_modal_only_with_t(site, client_for):
    """Without t the like modal never opens: the page does not carry its island (nor its
    script); an invalid t still gets it, and the island removes t from the address."""
    client = logged_in(site, client_for, member(site, "Viewer"))
    body = client.get("/members").content.decode()
    assert 'data-island="MatchModal"' in body and 'data-island="LikeModal"' not in body
    assert "islands/LikeModal/" not in body
    body = client.get("/members?page=2&t=abc").content.decode()
    assert island_props(body, "LikeModal") is not None and "islands/LikeModal/" in body


def test_visitors_get_neither_island(site, client_for):
    body = client_for(site).get("/pages/terms").content.decode()
    assert "<main" in body and 'data-island="MatchModal"' not in body and 'data-island="LikeModal"' not in body
    body = client_for(site).get("/login").content.decode()
    assert 'data-island="MatchModal"' not in body and 'data-island="LikeModal"' not in body
