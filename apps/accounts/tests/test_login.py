"""The login page, logout and their CSRF protection (spec §4 Login, §8 messages)."""

import re

import pytest
from django.conf import settings

from apps.accounts.models import UserStatus
from apps.accounts.tests.helpers_login import PASSWORD, login, member_create

pytestmark = pytest.mark.django_db

LOGIN_FAILED = "Login failed, please try again"


def lockout_message() -> str:
    return f"Too many incorrect attempts, account blocked for {settings.LOGIN_LOCKOUT_MINUTES} min."


def csrf_token_of(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def is_logged_in(client) -> bool:
    return client.get("/api/user.php").status_code == 200


@pytest.fixture
def member(site):
    return member_create(site)


class TestLoginPage:
    def test_shows_the_form_with_links_to_reset_and_signup(self, site, client_for):
        response = client_for(site).get("/login")
        body = response.content.decode()
        assert response.status_code == 200
        assert 'action="/login"' in body and 'name="email"' in body and 'name="password"' in body
        assert 'href="/reset-password"' in body
        assert 'data-testid="login-signup-link"' in body and 'href="/signup"' in body

    def test_logs_in_and_goes_home(self, site, client_for, member):
        client = client_for(site)
        response = login(client, email="ANNA@example.com")
        assert response.status_code == 302 and response.headers["Location"] == "/"
        assert is_logged_in(client)

    def test_a_wrong_password_shows_the_message_above_the_form_and_keeps_the_email(self, site, client_for, member):
        client = client_for(site)
        response = login(client, password="wrong")
        body = response.content.decode()
        assert response.status_code == 400
        assert LOGIN_FAILED in body
        assert body.index(LOGIN_FAILED) < body.index('data-testid="login-form"')
        assert 'value="anna@example.com"' in body
        assert not is_logged_in(client)

    @pytest.mark.parametrize("email", ["", "nobody@example.com", "not an address"])
    def test_unknown_or_empty_addresses_fail_the_same_way(self, site, client_for, member, email):
        response = login(client_for(site), email=email)
        assert response.status_code == 400 and LOGIN_FAILED in response.content.decode()

    def test_lockout_after_too_many_attempts(self, site, client_for, member):
        client = client_for(site)
        for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
            assert LOGIN_FAILED in login(client, password="wrong").content.decode()
        response = login(client)  # even the right password
        assert response.status_code == 429
        assert lockout_message() in response.content.decode()
        assert not is_logged_in(client)

    def test_an_account_pending_deletion_cannot_log_in(self, site, client_for):
        member_create(site, status=UserStatus.DELETED)
        response = login(client_for(site))
        assert response.status_code == 403 and "Reactivate" in response.content.decode()

    def test_a_member_of_another_site_is_unknown_here(self, two_sites, client_for):
        first, second = two_sites
        member_create(first)
        assert LOGIN_FAILED in login(client_for(second)).content.decode()

    @pytest.mark.parametrize(
        ("next_url", "expected"),
        [
            ("/pages/faq", "/pages/faq"),
            ("/members?page=2", "/members?page=2"),
            ("https://evil.example/", "/"),
            ("//evil.example/", "/"),
            ("http://gay.localhost/", "/"),
            ("javascript:alert(1)", "/"),
        ],
    )
    def test_next_is_followed_only_on_this_host(self, site, client_for, member, next_url, expected):
        client = client_for(site)
        page = client.get("/login", {"next": next_url}).content.decode()
        if expected != "/":
            assert f'name="next" value="{expected}"' in page
        response = client.post("/login", {"email": "anna@example.com", "password": PASSWORD, "next": next_url})
        assert response.status_code == 302 and response.headers["Location"] == expected

    def test_a_logged_in_member_is_sent_home(self, site, client_for, member):
        client = client_for(site)
        login(client)
        response = client.get("/login")
        assert response.status_code == 302 and response.headers["Location"] == "/"


class TestCsrf:
    def test_login_without_the_token_is_refused(self, site, client_for, member):
        client = client_for(site, enforce_csrf_checks=True)
        response = client.post("/login", {"email": "anna@example.com", "password": PASSWORD})
        assert response.status_code == 403
        assert not is_logged_in(client)

    def test_login_with_the_token_of_the_form_works(self, site, client_for, member):
        client = client_for(site, enforce_csrf_checks=True)
        token = csrf_token_of(client.get("/login").content.decode())
        response = client.post(
            "/login", {"email": "anna@example.com", "password": PASSWORD, "csrfmiddlewaretoken": token}
        )
        assert response.status_code == 302 and is_logged_in(client)

    def test_logout_needs_post_and_the_token(self, site, client_for, member):
        client = client_for(site, enforce_csrf_checks=True)
        token = csrf_token_of(client.get("/login").content.decode())
        client.post("/login", {"email": "anna@example.com", "password": PASSWORD, "csrfmiddlewaretoken": token})
        assert client.get("/logout").status_code == 405
        assert client.post("/logout").status_code == 403
        assert is_logged_in(client)
        # The top bar's logout form carries the (rotated) token.
        home = client.get("/").content.decode()
        form = re.search(r'<form method="post" action="/logout">.*?</form>', home, re.S).group(0)
        response = client.post("/logout", {"csrfmiddlewaretoken": csrf_token_of(form)})
        assert response.status_code == 302 and response.headers["Location"] == "/"
        assert not is_logged_in(client)
