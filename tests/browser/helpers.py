"""Helpers the browser tests share: members are made through the site's own signup API
(logged in in that browser) or, committed, with the ORM in a thread of their own; either
way they are deleted after the test (tests/browser/conftest.py)."""

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import date

from allauth.account.models import EmailAddress
from django.db import connection
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.profiles.models import Profile, ProfileStatus
from conftest import on_site

PASSWORD = "a-Long-passphrase-42"


def enter(page, url: str) -> None:
    page.goto(url)
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")


def sign_up(page, server) -> tuple[str, str]:
    """A new member, logged in in this browser (not confirmed yet)."""
    tag = uuid.uuid4().hex[:12]
    email, name = f"b{tag}@example.com", f"B{tag}"
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    response = page.request.post(
        server.url("localhost", "/api/signup.php"),
        data={"email": email, "name": name, "date_of_birth": "1990-04-05", "password": PASSWORD},
        headers={"X-CSRFToken": token},
    )
    assert response.status == 201, response.text()
    return email, name


def member(site, prefix: str) -> tuple[str, Profile]:
    tag = uuid.uuid4().hex[:10]
    name, email = f"{prefix}{tag}", f"{prefix.lower()}-{tag}@example.com"

    def create() -> Profile:
        try:
            with on_site(site):
                user = User.objects.create_user(username=name, email=email, password=PASSWORD)
                EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
                return Profile.objects.create(
                    user=user,
                    name=name,
                    status=ProfileStatus.ACTIVE,
                    gender="female",
                    country="GB",
                    city="Leeds",
                    date_of_birth=date(1991, 2, 3),
                    about_me="Hi <b>there</b>\nsecond line",
                )
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return email, pool.submit(create).result()


def log_in(page, server, email: str) -> None:
    page.goto(server.url("localhost", "/login"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    page.locator("#login-email").fill(email)
    page.locator("#login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("topbar-name")).to_have_count(1)


def goto_past_the_match_modal(page, url: str) -> None:
    """Open `url` and wait for the page's one auto-like answer (GET /api/auto-like.php);
    when it shows the match modal for a new like, close it (a click anywhere does). Which
    page load gets to show a new like depends on timing (the one after the login, or
    this one), so tests that do not look at the modal go past it this way."""

    def this_pages(response) -> bool:  # not a late answer to the page before (same-origin Referer)
        return "/api/auto-like.php" in response.url and response.request.headers.get("referer") == url

    with page.expect_response(this_pages) as answer:
        page.goto(url)
    if answer.value.json().get("profile"):
        modal = page.get_by_test_id("match-modal")
        modal.click(position={"x": 5, "y": 5})
        expect(modal).to_have_count(0)
