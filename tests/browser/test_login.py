"""Logging in and out, the logged-in top bar and the activation reminder in a real browser,
at phone and desktop widths. Members are made through the site's own signup API (the live
server commits them), with unique addresses because committed data outlives the test."""

import re
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PASSWORD, enter, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def is_phone(page) -> bool:
    return page.viewport_size["width"] < 576


def open_account_menu(page) -> None:
    page.get_by_test_id("topbar-account").get_by_role("button").click()


def test_log_out_and_in_again_through_the_login_page(site_server, page):
    enter(page, site_server.url("localhost", "/login"))
    email, name = sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/"))

    # Logged in: the account menu, no login button; the menu collapses on phones.
    assert page.get_by_test_id("login-button").count() == 0
    members = page.get_by_test_id("topbar-members")
    if is_phone(page):  # the main navigation is the bottom bar
        assert not members.is_visible()
        members = page.get_by_test_id("bottom-nav-search")
    members.wait_for(state="visible")
    assert page.get_by_test_id("topbar-credits").inner_text().startswith("Get Premium")
    assert page.get_by_test_id("badge-credits").inner_text() == "0"
    assert not page.get_by_test_id("badge-messages").is_visible()

    open_account_menu(page)
    page.get_by_test_id("topbar-settings").wait_for(state="visible")
    if not is_phone(page):
        assert page.get_by_test_id("topbar-name").inner_text() == name
    page.get_by_test_id("topbar-logout").click()
    page.get_by_test_id("login-button").wait_for(state="visible")
    assert page.get_by_test_id("topbar-account").count() == 0

    page.get_by_test_id("login-button").click()
    page.wait_for_url("**/login")
    page.locator("#login-email").fill(email)
    page.locator("#login-password").fill("not-the-password")
    page.get_by_test_id("login-submit").click()
    assert page.get_by_test_id("login-error").inner_text() == "Login failed, please try again"
    assert page.locator("#login-email").input_value() == email

    page.locator("#login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.get_by_test_id("topbar-account").wait_for(state="visible")
    assert page.url == site_server.url("localhost", "/")
    # Not confirmed yet: the reminder as an alert, with the member's own address.
    alert = page.get_by_test_id("activation-alert")
    assert alert.is_visible() and email in alert.inner_text()


def test_the_reminder_after_signing_up_is_a_dialog_except_on_phones(site_server, page):
    """The one Dialog (islands/ActivationReminder): shown on load with the focus inside, Tab
    stays inside, Escape closes it; the resend button works; OK and the close button close
    it too. Never on phones."""
    enter(page, site_server.url("localhost", "/login"))
    email, _name = sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/?api_signup_complete=1"))
    page.get_by_test_id("topbar-account").wait_for()
    assert page.get_by_test_id("activation-alert").count() == 0
    modal = page.get_by_test_id("activation-modal")
    if is_phone(page):
        # The island renders nothing there: wait for it to have mounted, then look.
        expect(page.locator('[data-island="ActivationReminder"][data-island-mounted]')).to_have_count(1)
        expect(modal).to_have_count(0)
        return
    expect(modal).to_be_visible()
    expect(modal).to_have_js_property("open", True)
    expect(modal).to_have_accessible_name("Please confirm your e-mail address")
    assert page.locator(".modal").count() == 0  # no Bootstrap modal
    assert email in modal.inner_text()
    expect(page.get_by_test_id("activation-modal-close")).to_be_focused()
    for _ in range(4):  # close, resend, OK and round again
        page.keyboard.press("Tab")
        assert modal.evaluate("(el) => el.contains(document.activeElement)")

    # Resend by keyboard: the status says so, the focus stays on the button.
    resend = modal.get_by_test_id("activation-resend")
    resend.focus()
    page.keyboard.press("Enter")
    status = modal.get_by_test_id("activation-resend-status")
    expect(status).to_have_text(
        re.compile(
            "We have sent the e-mail again. Check your inbox and your spam folder."
            "|We have just sent you an e-mail. Please wait a few minutes."
        )
    )
    expect(resend).to_be_focused()

    page.keyboard.press("Escape")
    expect(modal).to_have_count(0)

    # By click: OK closes it; the close button too.
    for close in ("activation-modal-ok", "activation-modal-close"):
        page.reload()
        expect(modal).to_be_visible()
        page.get_by_test_id(close).click()
        expect(modal).to_have_count(0)


def test_the_reset_password_page_is_reachable_from_the_login_page(site_server, page):
    enter(page, site_server.url("localhost", "/login"))
    page.get_by_test_id("login-reset-link").click()
    page.wait_for_url("**/reset-password")
    assert page.get_by_test_id("entry-warning").count() == 0
    page.locator("#reset-email").fill(f"nobody-{uuid.uuid4().hex[:8]}@example.com")
    page.get_by_test_id("reset-password-submit").click()
    assert page.get_by_test_id("reset-password-error").inner_text() == "E-mail address not found"
