"""Blocking and complaints in a real browser, at phone and desktop widths: a member views
another's profile and blocks them; the blocked member (a second browser) gets the
"You're blocked by ..." page; then the blocker reports the profile. Members are made with
the ORM in a thread of their own (its connection is outside the test's transaction, so
the live server sees them; committed data outlives the test, so names are unique)."""

import pytest
from playwright.sync_api import expect

from apps.profiles.models import Complaint
from conftest import on_site
from tests.browser.helpers import log_in, member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_block_then_report(new_context, site_server, page, chromium, viewport, site):
    blocker_email, blocker = member(site, "Blocker")
    blocked_email, blocked = member(site, "Blocked")

    # The blocker views the other's profile: header, about-me as text, the actions.
    log_in(page, site_server, blocker_email)
    page.goto(site_server.url("localhost", f"/members/{blocked.pk}"))
    expect(page.get_by_test_id("profile-name")).to_contain_text(blocked.name)
    about = page.get_by_test_id("profile-about")
    assert about.inner_text() == "Hi <b>there</b>\nsecond line"  # text, line break kept
    assert about.locator("b").count() == 0
    expect(page.get_by_test_id("profile-message")).to_be_visible()

    def found_in_search() -> bool:
        answer = page.request.get(site_server.url("localhost", "/api/search.php?gender=female&country=GB"))
        assert answer.ok, answer.text()
        return blocked.pk in [card["id"] for card in answer.json()["results"]]

    assert found_in_search()

    # Block: the page says so and offers to unblock.
    page.get_by_test_id("profile-block").click()
    expect(page.get_by_test_id("profile-blocked")).to_contain_text(f"You have blocked {blocked.name}.")
    expect(page.get_by_test_id("profile-unblock")).to_be_visible()
    expect(page.get_by_test_id("profile-actions")).to_have_count(0)
    # ... and the profile vanishes from search.
    assert not found_in_search()

    # The blocked member, in a browser of their own, cannot open the blocker's profile.
    other_context = new_context()
    try:
        other = other_context.new_page()
        log_in(other, site_server, blocked_email)
        response = other.goto(site_server.url("localhost", f"/members/{blocker.pk}"))
        assert response.status == 403
        expect(other.get_by_test_id("error-page")).to_contain_text(
            f"You're blocked by {blocker.name}. You do not have access to this page."
        )
    finally:
        other_context.close()

    # The blocker reports the profile: an error first, nothing typed is lost.
    page.get_by_test_id("profile-report").click()
    expect(page.get_by_test_id("complaint-about")).to_have_text(f"About: {blocked.name}")
    expect(page.get_by_label("E-mail address for our answer")).to_have_value(blocker_email)
    page.get_by_label("Your complaint").fill("Sends me insults.")
    page.get_by_test_id("complaint-submit").click()
    expect(page.get_by_test_id("error-id_reason")).to_have_text("Choose a reason.")
    expect(page.get_by_label("Your complaint")).to_have_value("Sends me insults.")
    page.get_by_label("Reason").select_option("harassment")
    page.get_by_test_id("complaint-submit").click()
    expect(page.get_by_test_id("complaint-done")).to_contain_text(
        "Thank you. We have received your complaint and will look into it."
    )
    with on_site(site):
        complaint = Complaint.objects.get(profile=blocked)
        assert (complaint.reason, complaint.text, complaint.reporter_id) == (
            "harassment",
            "Sends me insults.",
            blocker.user_id,
        )

    # Unblock again from the profile.
    page.goto(site_server.url("localhost", f"/members/{blocked.pk}"))
    page.get_by_test_id("profile-unblock").click()
    expect(page.get_by_test_id("profile-block")).to_be_visible()
    expect(page.get_by_test_id("profile-blocked")).to_have_count(0)


def test_visitor_gets_a_login_message_per_action(site_server, page, site):
    _email, profile = member(site, "Shown")
    page.goto(site_server.url("localhost", f"/members/{profile.pk}"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    for key, text in (
        ("message", "Log in or sign up to send a message."),
        ("like", "Log in or sign up to like this profile."),
        ("gift", "Log in or sign up to send a gift."),
    ):
        page.get_by_test_id(f"profile-{key}").click()
        dialog = page.get_by_test_id(f"login-needed-{key}")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text(text)
        expect(dialog.get_by_role("link", name="Login")).to_have_attribute(
            "href", f"/login?next=%2Fmembers%2F{profile.pk}"
        )
        dialog.get_by_role("button", name="Close").click()
        expect(dialog).to_be_hidden()
