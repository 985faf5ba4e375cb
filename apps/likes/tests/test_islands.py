"""The default layout carries the match modal and the like modal for members only
(spec §2 layouts, §6 "like modal ... for logged-in users")."""

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
    response = client.get("/members")
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


def test_visitors_get_neither_island(site, client_for):
    body = client_for(site).get("/pages/terms").content.decode()
    assert "<main" in body and 'data-island="MatchModal"' not in body and 'data-island="LikeModal"' not in body
    body = client_for(site).get("/login").content.decode()
    assert 'data-island="MatchModal"' not in body and 'data-island="LikeModal"' not in body
