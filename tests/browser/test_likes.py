"""Likes in a real browser, at phone and desktop widths: member A likes B on B's profile
page, B sees the new like, likes A back, and both find each other under /likes/matches.
Members are made in a thread of their own (see test_block.py: committed, unique names)."""

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import goto_past_the_match_modal, log_in, member

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
