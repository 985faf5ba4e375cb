"""Resetting a forgotten password (spec §5, §8): the request, the daily limit, the e-mail
and the link, which works once, on its own site, before it expires."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail

from apps.accounts.models import User
from apps.accounts.services.password_reset import SitePasswordResetTokenGenerator
from apps.accounts.tests.helpers_login import PASSWORD, login, member_create
from conftest import on_site

pytestmark = pytest.mark.django_db

NOT_FOUND = "E-mail address not found"
TOO_MANY = "Too many password reset emails sent, please try again tomorrow."
LINK_INVALID = "Link expired or invalid, request a new email"
NOT_THE_SAME = "The entered passwords are not the same."
NEW_PASSWORD = "another-Long-phrase-77"


def reset_path(message) -> str:
    url = re.search(r"https?://\S+/reset-password/do\?key=\S+", message.body).group(0)
    return url[url.index("/reset-password/do") :]


def key_of(path: str) -> str:
    return path.split("key=", 1)[1]


def request_reset(client, email="anna@example.com"):
    return client.post("/reset-password", {"email": email})


def choose(client, path, password1=NEW_PASSWORD, password2=NEW_PASSWORD):
    return client.post("/reset-password/do", {"key": key_of(path), "password1": password1, "password2": password2})


@pytest.fixture
def member(site):
    return member_create(site)


class TestRequest:
    def test_the_form(self, site, client_for):
        response = client_for(site).get("/reset-password")
        body = response.content.decode()
        assert response.status_code == 200
        assert 'action="/reset-password"' in body and 'name="email"' in body and "csrfmiddlewaretoken" in body

    def test_an_unknown_address(self, site, client_for, member):
        response = request_reset(client_for(site), "nobody@example.com")
        body = response.content.decode()
        assert response.status_code == 400
        assert NOT_FOUND in body and 'value="nobody@example.com"' in body
        assert mail.outbox == []

    def test_an_address_of_another_site_is_unknown_here(self, two_sites, client_for):
        first, second = two_sites
        member_create(first)
        assert NOT_FOUND in request_reset(client_for(second)).content.decode()
        assert mail.outbox == []

    def test_sends_the_link_and_confirms(self, site, client_for, member):
        client = client_for(site)
        response = request_reset(client, "Anna@Example.com ")
        assert response.status_code == 302 and response.headers["Location"] == "/reset-password?sent=1"
        confirmation = client.get(response.headers["Location"]).content.decode()
        assert 'data-testid="reset-password-sent"' in confirmation
        assert "anna@example.com" not in confirmation.lower()
        assert len(mail.outbox) == 1
        message = mail.outbox[0]
        assert message.to == ["anna@example.com"]
        assert "Heartline" in message.subject and "Heartline" in message.from_email
        assert "Hello Anna" in message.body and "Demo Dating B.V." in message.body
        assert reset_path(message).startswith("/reset-password/do?key=")
        assert "&amp;" not in message.body  # plain text, not HTML-escaped

    def test_the_mail_is_in_the_members_language(self, site, client_for):
        member_create(site, language="fr")
        request_reset(client_for(site))
        # The footer's text is translated in the French catalogue.
        assert "Registre du commerce" in mail.outbox[0].body

    def test_the_daily_limit(self, site, client_for, member):
        client = client_for(site)
        for _number in range(settings.PASSWORD_RESET_DAILY_LIMIT):
            assert request_reset(client).status_code == 302
        assert len(mail.outbox) == settings.PASSWORD_RESET_DAILY_LIMIT
        response = request_reset(client_for(site))  # another browser, same address
        assert response.status_code == 429 and TOO_MANY in response.content.decode()
        assert len(mail.outbox) == settings.PASSWORD_RESET_DAILY_LIMIT

    def test_the_limit_is_per_address(self, site, client_for, member):
        member_create(site, email="bob@example.com", name="Bob")
        client = client_for(site)
        for _number in range(settings.PASSWORD_RESET_DAILY_LIMIT):
            request_reset(client)
        assert request_reset(client, "bob@example.com").status_code == 302

    def test_the_entry_warning_is_not_shown(self, site, client_for):
        assert 'data-island="EntryWarning"' in client_for(site).get("/login").content.decode()
        assert 'data-island="EntryWarning"' not in client_for(site).get("/reset-password").content.decode()
        assert 'data-island="EntryWarning"' not in client_for(site).get("/reset-password/do?key=x").content.decode()


class TestNewPassword:
    @pytest.fixture
    def link(self, site, client_for, member) -> str:
        request_reset(client_for(site))
        return reset_path(mail.outbox[0])

    def test_the_link_shows_the_form(self, site, client_for, link):
        body = client_for(site).get(link).content.decode()
        assert 'name="password1"' in body and 'name="password2"' in body
        assert f'name="key" value="{key_of(link)}"' in body

    def test_show_password_toggle_on_both_fields(self, site, client_for, link):
        body = client_for(site).get(link).content.decode()
        for field in ("reset-password1", "reset-password2"):
            assert f'data-password-toggle aria-controls="{field}" aria-pressed="false"' in body

    def test_sets_the_password_logs_in_and_goes_home_with_a_message(self, site, client_for, link):
        client = client_for(site)
        response = choose(client, link)
        assert response.status_code == 302 and response.headers["Location"] == "/"
        assert client.get("/api/user.php").json()["user"]["email"] == "anna@example.com"
        assert 'data-testid="flash-message"' in client.get("/").content.decode()
        assert login(client_for(site), password=NEW_PASSWORD).status_code == 302
        assert login(client_for(site), password=PASSWORD).status_code == 400

    def test_the_passwords_must_be_the_same(self, site, client_for, link):
        client = client_for(site)
        response = choose(client, link, password2=NEW_PASSWORD + "x")
        assert response.status_code == 400 and NOT_THE_SAME in response.content.decode()
        # The link still works after a mistake.
        assert choose(client, link).status_code == 302

    @pytest.mark.parametrize(
        ("password", "message"),
        [
            ("short", "This password is too short. It must contain at least 8 characters."),
            ("password123", "This password is too common."),
            ("4815162342", "This password is entirely numeric."),
        ],
    )
    def test_djangos_password_rules(self, site, client_for, link, password, message):
        response = choose(client_for(site), link, password, password)
        assert response.status_code == 400 and message in response.content.decode()
        with on_site(site):
            assert User.objects.get(email="anna@example.com").check_password(PASSWORD)

    def test_the_link_works_once(self, site, client_for, link):
        assert choose(client_for(site), link).status_code == 302
        again = client_for(site)
        for response in (again.get(link), choose(again, link, "third-Long-phrase-99", "third-Long-phrase-99")):
            body = response.content.decode()
            assert response.status_code == 400
            assert LINK_INVALID in body and 'href="/reset-password"' in body
        with on_site(site):
            assert User.objects.get(email="anna@example.com").check_password(NEW_PASSWORD)

    @pytest.mark.parametrize("key", ["", "x", "1-abc", "zzzzzzzzzzzzzzzzzz-abc", "1-" + "a" * 60, "-", "1"])
    def test_a_forged_key_fails(self, site, client_for, member, key):
        response = client_for(site).get("/reset-password/do", {"key": key})
        assert response.status_code == 400 and LINK_INVALID in response.content.decode()

    def test_an_expired_key_fails(self, site, client_for, link, monkeypatch):
        later = SitePasswordResetTokenGenerator()._now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 60)
        monkeypatch.setattr(SitePasswordResetTokenGenerator, "_now", lambda self: later)
        assert LINK_INVALID in client_for(site).get(link).content.decode()
        assert LINK_INVALID in choose(client_for(site), link).content.decode()

    def test_a_key_of_one_site_fails_on_another(self, two_sites, client_for):
        first, second = two_sites
        anna = member_create(first)
        request_reset(client_for(first))
        link = reset_path(mail.outbox[0])
        # The same id, password hash, e-mail and last login on the other site: only the
        # site differs.
        twin = member_create(second, pk=anna.pk)
        with on_site(second):
            User.objects.filter(pk=twin.pk).update(password=anna.password, last_login=anna.last_login)
        response = client_for(second).get(link)
        assert response.status_code == 400 and LINK_INVALID in response.content.decode()
        assert LINK_INVALID in choose(client_for(second), link).content.decode()
        assert choose(client_for(first), link).status_code == 302

    def test_a_reset_lifts_the_login_lockout(self, site, client_for, link):
        client = client_for(site)
        for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
            login(client, password="wrong")
        assert login(client, password=PASSWORD).status_code == 429
        choose(client_for(site), link)
        assert login(client_for(site), password=NEW_PASSWORD).status_code == 302

    def test_a_request_with_the_token_of_the_form_only(self, site, client_for, link):
        client = client_for(site, enforce_csrf_checks=True)
        assert choose(client, link).status_code == 403
        with on_site(site):
            assert User.objects.get(email="anna@example.com").check_password(PASSWORD)
