"""A member's whole account life in a real browser, at phone and desktop widths:
signup -> the confirmation link from the sent mail -> login -> settings -> delete ->
reactivate (issue 3 quality)."""

import re
import uuid

import pytest
from django.core import mail
from playwright.sync_api import expect

from apps.accounts.models import User, UserStatus
from conftest import on_site
from tests.browser.helpers import enter

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

PASSWORD = "a-Long-passphrase-42"


def link_in_mail(email: str, pattern: str) -> str:
    for message in reversed(mail.outbox):
        if email in message.to:
            found = re.search(pattern, message.body)
            if found:
                return found.group(0)
    raise AssertionError(f"no mail to {email} with a link like {pattern}")


def path_of(url: str) -> str:
    return url[url.index("/", len("http://")) :]


def test_signup_confirm_login_settings_delete_reactivate(site_server, page, site):
    token = uuid.uuid4().hex[:10]
    email = f"walk-{token}@example.com"
    name = f"Walk{token[:8]}"

    # Sign up on the /signup page (the modal is covered by test_signup.py).
    enter(page, site_server.url("localhost", "/signup"))  # the entry warning gone before typing
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Name").fill(name)
    page.get_by_test_id("signup-dob-day").select_option("12")
    page.get_by_test_id("signup-dob-month").select_option("8")
    page.get_by_test_id("signup-dob-year").select_option("1988")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    # Photo, location, personal info, about me, and push (the deployment's VAPID key).
    for _step in range(5):
        expect(page.get_by_test_id("signup-skip")).to_be_visible()
        page.get_by_test_id("signup-skip").click()
    expect(page.get_by_test_id("signup-step-title")).to_have_text("Confirm your e-mail address")

    # The confirmation link from the mail.
    activate = link_in_mail(email, r"https?://\S+/activate\?key=\S+")
    page.goto(site_server.url("localhost", path_of(activate)))
    expect(page.get_by_test_id("activate-done")).to_be_visible()
    with on_site(site):
        assert User.objects.get(email=email).status == UserStatus.ACTIVE

    # Log out, then in again through /login (a wrong password first).
    page.get_by_test_id("topbar-account").get_by_role("button").first.click()
    page.get_by_test_id("topbar-logout").click()
    expect(page.get_by_test_id("login-button")).to_be_visible()
    page.goto(site_server.url("localhost", "/login"))
    page.locator("#login-email").fill(email)
    page.locator("#login-password").fill("wrong-password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_have_text("Login failed, please try again")
    expect(page.locator("#login-email")).to_have_value(email)
    page.locator("#login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("topbar-name")).to_have_count(1)

    # Settings: invisible mode.
    page.goto(site_server.url("localhost", "/notifications"))
    page.locator("#invisible").get_by_label("Invisible mode").check()
    page.locator("#invisible").get_by_role("button").click()
    expect(page.locator("#invisible").get_by_label("Invisible mode")).to_be_checked()
    with on_site(site):
        assert User.objects.get(email=email).invisible is True

    # Notification preferences: after saving, the "saved" message is inside the section,
    # focused and on screen, and the section's heading is not under the sticky top bar.
    preferences = page.locator("#notification-preferences")
    preferences.get_by_label("E-mail: News").uncheck()
    preferences.get_by_role("button", name="Save").click()
    saved = preferences.get_by_role("status")
    expect(saved).to_have_text("Your notification settings have been saved.")
    expect(preferences.get_by_test_id("section-messages")).to_be_focused()
    expect(saved).to_be_in_viewport()
    page.wait_for_function(
        """() => document.querySelector("#preferences-title").getBoundingClientRect().top
            >= document.querySelector("[data-testid=topbar]").getBoundingClientRect().bottom"""
    )

    # Delete: reason, save-offers, confirm with the password.
    page.goto(site_server.url("localhost", "/notifications/delete"))
    page.get_by_label("I found someone").check()
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_test_id("delete-offers")).to_be_visible()
    page.get_by_role("link", name="No thanks, delete my account").click()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Delete my account").click()
    expect(page.get_by_test_id("account-deleted")).to_be_visible()
    with on_site(site):
        assert User.objects.get(email=email).status == UserStatus.DELETED

    # Reactivate through the e-mailed link.
    reactivate = link_in_mail(email, r"https?://\S+/reactivate\?token=\S+")
    page.goto(site_server.url("localhost", path_of(reactivate)))
    page.get_by_role("button", name="Reactivate my account").click()
    expect(page.get_by_test_id("welcome-back")).to_be_visible()
    with on_site(site):
        assert User.objects.get(email=email).status == UserStatus.ACTIVE
