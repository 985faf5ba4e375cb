"""Likes in a real browser, at phone and desktop widths: member A likes B on B's profile
page, B sees the new like, likes A back, and both find each other under /likes/matches.
Members are made in a thread of their own (see test_block.py: committed, unique names)."""

import re

import pytest
from playwright.sync_api import expect

from apps.likes.services import like_create
from conftest import on_site
from tests.browser.helpers import goto_past_the_match_modal, log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_like_back_makes_a_match(new_context, site_server, page, chromium, viewport, site):
    a_email, a = member(site, "Liker")
    b_email, b = member(site, "Liked")

    log_in(page, site_server, a_email)
    page.goto(site_server.url("localhost", f"/members/{b.pk}"))
    page.get_by_test_id("profile-like").click()
    expect(page.get_by_test_id("profile-like-state")).to_have_text("Liked")
    expect(page.get_by_test_id("profile-unlike")).to_be_visible()

    other_context = new_context()
    try:
        other = other_context.new_page()
        log_in(other, site_server, b_email)
        goto_past_the_match_modal(other, site_server.url("localhost", "/likes/received"))
        card = other.get_by_test_id("like-card").filter(has_text=a.name)
        expect(card.get_by_test_id("like-new")).to_be_visible()
        card.click()
        expect(other.get_by_test_id("profile-name")).to_contain_text(a.name)
        other.get_by_test_id("profile-like").click()
        expect(other.get_by_test_id("profile-like-state")).to_have_text("It's a match!")
        other.goto(site_server.url("localhost", "/likes/matches"))
        expect(other.get_by_test_id("like-card").filter(has_text=a.name)).to_be_visible()
    finally:
        other_context.close()

    page.goto(site_server.url("localhost", "/likes/matches"))
    expect(page.get_by_test_id("like-card").filter(has_text=b.name)).to_be_visible()


def test_like_from_search_and_see_the_match_in_both_tabs(new_context, site_server, page, chromium, viewport, site):
    a_email, a = member(site, "Searcher")
    b_email, b = member(site, "Found")

    # A finds B in the search results and likes B from the card.
    log_in(page, site_server, a_email)
    page.goto(site_server.url("localhost", "/members?gender=female&country=GB"))
    result = page.locator("li").filter(has=page.get_by_test_id("search-card-name").filter(has_text=b.name))
    result.get_by_test_id("search-card-like").click()
    expect(result.get_by_test_id("search-card-liked")).to_have_text("Liked")
    expect(result.get_by_test_id("search-card-like")).to_have_text("Unlike")

    # B likes A back from A's profile: a match, in both members' match tabs.
    other_context = new_context()
    try:
        other = other_context.new_page()
        log_in(other, site_server, b_email)
        goto_past_the_match_modal(other, site_server.url("localhost", f"/members/{a.pk}"))
        other.get_by_test_id("profile-like").click()
        expect(other.get_by_test_id("profile-like-state")).to_have_text("It's a match!")
        other.goto(site_server.url("localhost", "/likes/matches"))
        expect(other.get_by_test_id("like-card").filter(has_text=a.name)).to_be_visible()
    finally:
        other_context.close()
    page.goto(site_server.url("localhost", "/likes/matches"))
    expect(page.get_by_test_id("like-card").filter(has_text=b.name)).to_be_visible()


def test_likes_tabs_are_one_row_and_names_keep_their_age(site_server, page, site, viewport):
    """At 390 px (and 1280) the likes tabs with their counts stay one row, also with longer
    (German) words, and no second row repeats them; a long name on a card is cut while the
    age stays visible."""
    me_email, me = member(site, "Tabs")
    _fan_email, fan = member(site, "Averyveryverylongmembername")
    in_thread(lambda: _like(site, fan, me))

    log_in(page, site_server, me_email)
    for path in ("/likes", "/likes/received"):
        goto_past_the_match_modal(page, site_server.url("localhost", path))
        tabs = page.get_by_test_id("likes-tabs")
        expect(tabs.locator(".nav-link")).to_have_count(4)
        expect(page.get_by_test_id("likes-count-received")).to_have_text("1")
        expect(page.get_by_test_id("likes-overview-counts")).to_have_count(0)
        assert _rows(tabs) == 1
        assert tabs.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # the English words fit
        # German words: still one row (a row too long scrolls sideways, it never wraps).
        tabs.evaluate(
            """el => {
                const words = ["Übersicht", "Erhaltene Likes", "Gesendete Likes", "Gegenseitige Matches"];
                const links = el.querySelectorAll(".nav-link");
                links.forEach((link, i) => { link.firstChild.textContent = words[i] + " "; });
            }"""
        )
        assert _rows(tabs) == 1

        card = page.get_by_test_id("like-card").filter(has_text=fan.name[:10]).first
        name, age = card.get_by_test_id("like-card-name"), card.get_by_test_id("like-card-age")
        expect(age).to_have_text(re.compile(r"^, \d+$"))
        expect(age).to_be_visible()
        box, card_box = age.bounding_box(), card.bounding_box()
        assert box["x"] + box["width"] <= card_box["x"] + card_box["width"] + 0.5  # the age is inside the card
        if viewport["width"] < 576:
            assert name.evaluate("el => el.scrollWidth > el.clientWidth")  # the name is cut


def _rows(tabs) -> int:
    """How many rows the tabs take: the distinct tops of their items."""
    return tabs.evaluate("el => new Set([...el.querySelectorAll('.nav-item')].map(i => i.offsetTop)).size")


def _like(site, liker, profile) -> None:
    with on_site(site):
        like_create(liker=liker.user, profile_id=profile.pk)
