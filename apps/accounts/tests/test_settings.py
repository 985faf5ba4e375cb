"""The settings page (route "notifications"): e-mail and password change, invisible mode,
notification preferences, switched-off e-mail and its remedies, unsubscribe links."""

import re
import time
from datetime import timedelta
from urllib.parse import unquote

import pytest
from allauth.account.models import EmailAddress
from django.core import mail, signing
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import NOTIFICATION_TYPE_NAMES, EmailDisabledReason, User, UserStatus
from apps.accounts.services.settings import MAIL_CHANGE, unsubscribe_url
from apps.accounts.services.tokens import member_token_make
from apps.accounts.tests.helpers_settings import (
    PASSWORD,
    link_in,
    logged_in,
    member_create,
    photo_add,
    push_add,
)
from apps.profiles.models import Profile, ProfileStatus
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site

pytestmark = pytest.mark.django_db

LINK_INVALID = "Link expired or invalid, request a new email"


def field_error(body: str, field_id: str) -> str:
    """The messages shown under one field."""
    match = re.search(rf'data-testid="error-{field_id}">(.*?)</div></div>', body, re.S)
    assert match, f"no error under {field_id}"
    return match.group(1)


def input_tag(body: str, field_id: str) -> str:
    return re.search(rf'<input[^>]*id="{field_id}"[^>]*>', body).group(0)


def reload(site, user) -> User:
    with on_site(site):
        return User.objects.get(pk=user.pk)


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def anna(site):
    return member_create(site)


@pytest.fixture
def client(site, client_for, anna):
    return logged_in(site, client_for, anna)


class TestPage:
    def test_visitors_are_sent_to_the_login(self, site, client_for):
        response = client_for(site).get("/notifications")
        assert response.status_code == 302
        assert response.headers["Location"] == "/login?next=/notifications"

    def test_shows_every_section(self, client):
        response = client.get("/notifications")
        body = response.content.decode()
        assert response.status_code == 200
        for text in (
            "Change e-mail address",
            "Change password",
            "Invisible members do not appear in search.",
            "Download my data",
            'href="/notifications/delete"',
            'action="/notifications/export"',
        ):
            assert text in body
        for name in NOTIFICATION_TYPE_NAMES:
            assert f'name="email" value="{name}"' in body and f'name="push" value="{name}"' in body

    def test_the_number_of_queries_does_not_grow_with_photos_and_push_subscriptions(self, site, client, anna):
        main = photo_add(site, anna, name="main")
        with on_site(site):
            Profile.objects.filter(user=anna).update(main_photo=main)
        push_add(site, anna, n=1)
        client.get("/notifications")  # the site lookup is cached from here on
        with CaptureQueriesContext(connection) as few:
            assert client.get("/notifications").status_code == 200
        for index in range(4):
            photo_add(site, anna, name=f"p{index}")
        push_add(site, anna, n=6)  # 7 in all
        with CaptureQueriesContext(connection) as many:
            body = client.get("/notifications").content.decode()
        assert "7 devices" in body
        assert len(many) == len(few), [query["sql"][:150] for query in many.captured_queries]


class TestEmailChange:
    def post(self, client, **data):
        return client.post("/notifications", {"action": "email", "password": PASSWORD, **data})

    def test_an_invalid_address_is_shown_next_to_the_field_and_kept(self, client):
        response = self.post(client, new_email="anna@@example")
        body = response.content.decode()
        assert response.status_code == 400
        assert "New email adress is invalid." in field_error(body, "email-new_email")
        assert 'value="anna@@example"' in input_tag(body, "email-new_email")
        assert not mail.outbox

    def test_an_address_of_another_member_is_refused(self, site, client):
        member_create(site, email="bob@example.com", name="Bob")
        response = self.post(client, new_email="BOB@example.com")
        body = response.content.decode()
        assert response.status_code == 400
        assert "This email address already owns an account on this website." in field_error(body, "email-new_email")
        assert 'value="BOB@example.com"' in input_tag(body, "email-new_email")

    def test_a_wrong_password_is_refused_and_the_address_kept(self, client):
        response = self.post(client, new_email="new@example.com", password="wrong")
        body = response.content.decode()
        assert response.status_code == 400
        assert "Please check your password." in field_error(body, "email-password")
        assert 'value="new@example.com"' in input_tag(body, "email-new_email")
        assert 'value="wrong"' not in body  # passwords are never written back into the page

    def test_the_link_goes_to_the_new_address_and_changes_it_once(self, site, client, anna):
        response = self.post(client, new_email="anna.new@example.com")
        assert response.status_code == 302 and response.headers["Location"] == "/notifications#email-message"
        assert "We sent a link to anna.new@example.com" in client.get("/notifications").content.decode()
        assert reload(site, anna).email == "anna@example.com"  # nothing changes before the link
        (message,) = mail.outbox
        assert message.to == ["anna.new@example.com"]
        link = link_in(message, "mail-change/do")

        opened = client.get(link)
        assert opened.status_code == 200
        assert "Your e-mail address is now anna.new@example.com." in opened.content.decode()
        assert reload(site, anna).email == "anna.new@example.com"
        with on_site(site):
            addresses = list(EmailAddress.objects.filter(user=anna).values_list("email", "primary", "verified"))
        assert addresses == [("anna.new@example.com", True, True)]
        assert MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk).email == "anna.new@example.com"

        again = client.get(link)
        assert again.status_code == 400 and LINK_INVALID in again.content.decode()

    def test_the_link_works_without_being_logged_in(self, site, client_for, client, anna):
        self.post(client, new_email="anna.new@example.com")
        response = client_for(site).get(link_in(mail.outbox[0], "mail-change/do"))
        assert response.status_code == 200
        assert reload(site, anna).email == "anna.new@example.com"

    def test_a_newer_request_makes_the_older_link_useless(self, site, client, anna):
        self.post(client, new_email="first@example.com")
        self.post(client, new_email="second@example.com")
        first, second = (link_in(message, "mail-change/do") for message in mail.outbox)
        assert client.get(first).status_code == 400
        assert client.get(second).status_code == 200
        assert reload(site, anna).email == "second@example.com"

    def test_the_address_taken_meanwhile_is_refused(self, site, client, anna):
        self.post(client, new_email="taken@example.com")
        member_create(site, email="taken@example.com", name="Bob")
        response = client.get(link_in(mail.outbox[0], "mail-change/do"))
        assert response.status_code == 400
        assert "This email address already owns an account on this website." in response.content.decode()
        assert reload(site, anna).email == "anna@example.com"

    def test_a_key_made_for_another_member_fails(self, site, client, anna):
        bob = member_create(site, email="bob@example.com", name="Bob")
        self.post(client, new_email="anna.new@example.com")
        with on_site(site):
            pending = EmailAddress.objects.get(user=anna, verified=False)
            forged = member_token_make(purpose=MAIL_CHANGE, member_id=bob.pk, a=pending.pk, e=pending.email)
        assert client.get(f"/mail-change/do?key={forged}").status_code == 400
        assert reload(site, bob).email == "bob@example.com"
        assert reload(site, anna).email == "anna@example.com"

    def test_a_key_from_another_site_fails_even_for_the_same_ids(self, two_sites, client_for):
        first, second = two_sites
        anna = member_create(first)
        logged_in(first, client_for, anna).post(
            "/notifications", {"action": "email", "password": PASSWORD, "new_email": "anna.new@example.com"}
        )
        with on_site(first):
            pending = EmailAddress.objects.get(user=anna, verified=False)
        twin = member_create(second, pk=anna.pk)
        with on_site(second):
            EmailAddress.objects.create(pk=pending.pk, user=twin, email="anna.new@example.com")
        response = client_for(second).get(link_in(mail.outbox[0], "mail-change/do"))
        assert response.status_code == 400 and LINK_INVALID in response.content.decode()
        assert reload(second, twin).email == "anna@example.com"

    def test_an_expired_link_fails(self, site, client, anna, monkeypatch):
        self.post(client, new_email="anna.new@example.com")
        later = time.time() + timedelta(days=8).total_seconds()
        monkeypatch.setattr(signing, "time", type("Clock", (), {"time": staticmethod(lambda: later)}))
        assert client.get(link_in(mail.outbox[0], "mail-change/do")).status_code == 400
        assert reload(site, anna).email == "anna@example.com"

    def test_confirming_a_new_address_activates_an_unconfirmed_member(self, site, client_for):
        bea = member_create(site, email="typo@exmaple.com", name="Bea", confirmed=False)
        client = logged_in(site, client_for, bea)
        client.post("/notifications", {"action": "email", "password": PASSWORD, "new_email": "bea@example.com"})
        client.get(link_in(mail.outbox[0], "mail-change/do"))
        bea = reload(site, bea)
        assert (bea.email, bea.status) == ("bea@example.com", UserStatus.ACTIVE)
        with on_site(site):
            assert bea.profile.status == ProfileStatus.ACTIVE


class TestPasswordChange:
    def post(self, client, **data):
        values = {
            "old_password": PASSWORD,
            "new_password1": "another-Long-one-77",
            "new_password2": "another-Long-one-77",
        }
        return client.post("/notifications", {"action": "password", **values, **data})

    def test_a_wrong_old_password(self, client):
        response = self.post(client, old_password="wrong")
        assert response.status_code == 400
        assert "Please check your old password." in field_error(response.content.decode(), "password-old_password")

    def test_different_new_passwords(self, client):
        response = self.post(client, new_password2="another-Long-one-78")
        assert response.status_code == 400
        body = response.content.decode()
        assert "The entered passwords are not the same." in field_error(body, "password-new_password2")

    @pytest.mark.parametrize(
        "weak",
        [
            ("short1!", "This password is too short. It must contain at least 8 characters."),
            ("password123", "This password is too common."),
            ("1234567890123", "This password is entirely numeric."),
        ],
    )
    def test_weak_passwords_get_djangos_messages(self, client, weak):
        password, message = weak
        response = self.post(client, new_password1=password, new_password2=password)
        assert message in field_error(response.content.decode(), "password-new_password1")

    def test_the_member_stays_logged_in_and_other_sessions_end(self, site, client_for, client, anna):
        other = logged_in(site, client_for, anna)
        response = self.post(client)
        assert response.status_code == 302 and response.headers["Location"] == "/notifications#password-message"
        assert "Your password has been changed." in client.get("/notifications").content.decode()
        assert reload(site, anna).check_password("another-Long-one-77")
        assert other.get("/notifications").status_code == 302

    def test_attempts_are_rate_limited(self, client):
        for _attempt in range(5):
            assert self.post(client, old_password="wrong").status_code == 400
        response = self.post(client)
        assert response.status_code == 429
        assert "Too many attempts to change your password." in response.content.decode()


class TestInvisibleAndPreferences:
    def test_invisible_mode_on_and_off(self, site, client, anna):
        response = client.post("/notifications", {"action": "invisible", "invisible": "on"})
        assert response.headers["Location"] == "/notifications#invisible-message"
        assert reload(site, anna).invisible
        assert "you do not appear in search" in client.get("/notifications").content.decode()
        client.post("/notifications", {"action": "invisible"})
        assert not reload(site, anna).invisible

    def test_preferences_per_type_and_channel(self, site, client, anna):
        response = client.post(
            "/notifications",
            {"action": "preferences", "email": ["news", "like", "bogus"], "push": ["new_messages"]},
        )
        assert response.status_code == 302
        anna = reload(site, anna)
        assert anna.email_notifications == ["like", "news"]
        assert anna.push_notifications == ["new_messages"]
        body = client.get("/notifications").content.decode()
        assert 'name="email" value="like" id="email-like" aria-label="E-mail: Likes" checked' in body
        assert 'name="email" value="new_messages" id="email-new_messages" aria-label="E-mail: New messages">' in body


def section_html(body: str, section: str) -> str:
    return re.search(rf'<section [^>]*id="{section}".*?</section>', body, re.S).group(0)


class TestSavedMessages:
    """After saving, the page lands on the message inside the section of the form (the
    fragment names it; being focusable, the browser focuses it), not on a message at the
    top of the page, off screen."""

    @pytest.mark.parametrize(
        ("data", "section", "text"),
        [
            (
                {"action": "preferences", "email": ["news"]},
                "notification-preferences",
                "notification settings have been saved",
            ),
            ({"action": "invisible", "invisible": "on"}, "invisible", "Invisible mode is on"),
            (
                {
                    "action": "password",
                    "old_password": PASSWORD,
                    "new_password1": "Another-pass-99x",
                    "new_password2": "Another-pass-99x",
                },
                "password",
                "Your password has been changed.",
            ),
        ],
    )
    def test_the_message_is_inside_the_saved_section(self, client, data, section, text):
        response = client.post("/notifications", data)
        assert response.headers["Location"] == f"/notifications#{section}-message"
        body = client.get("/notifications").content.decode()
        inside = section_html(body, section)
        assert text in inside
        assert re.search(rf'<div class="settings-messages" id="{section}-message" tabindex="-1"', inside)
        warnings = re.search(r'<div id="warnings".*?</div>', body, re.S).group(0)
        assert text not in warnings
        assert body.count(text) == 1

    def test_messages_of_no_section_stay_at_the_top(self, client):
        client.post("/notifications", {"action": "bogus"})
        body = client.get("/notifications").content.decode()
        assert 'data-testid="flash-message"' in body
        assert 'class="settings-messages"' not in body


class TestEmailDisabled:
    def disable(self, site, user, reason):
        with on_site(site):
            User.objects.filter(pk=user.pk).update(email_disabled_reason=reason)

    def test_spam_complaint_and_its_remedy(self, site, client, anna):
        self.disable(site, anna, EmailDisabledReason.SPAM_COMPLAINT)
        body = client.get("/notifications").content.decode()
        assert "You marked one of our e-mails as spam, so we stopped sending e-mails." in body
        client.post("/notifications", {"action": "email_resume"})
        assert reload(site, anna).email_disabled_reason == ""
        assert "We will send you e-mails again." in client.get("/notifications").content.decode()

    def test_unsubscribe_and_its_remedy(self, site, client, anna):
        self.disable(site, anna, EmailDisabledReason.UNSUBSCRIBE)
        body = client.get("/notifications").content.decode()
        assert "You unsubscribed from our e-mails." in body and "Subscribe again" in body
        client.post("/notifications", {"action": "email_resume"})
        assert reload(site, anna).email_disabled_reason == ""

    def test_bounce_offers_changing_or_checking_the_address(self, site, client, anna):
        self.disable(site, anna, EmailDisabledReason.BOUNCE)
        body = client.get("/notifications").content.decode()
        assert "E-mails to anna@example.com could not be delivered." in body
        assert 'href="#email"' in body and 'value="email_check"' in body
        client.post("/notifications", {"action": "email_resume"})  # not the remedy for a bounce
        assert reload(site, anna).email_disabled_reason == EmailDisabledReason.BOUNCE

        client.post("/notifications", {"action": "email_check"})
        (message,) = mail.outbox
        assert message.to == ["anna@example.com"]
        response = client.get(link_in(message, "mail-check/do"))
        assert response.status_code == 200 and "your e-mail address works" in response.content.decode()
        assert reload(site, anna).email_disabled_reason == ""

    def test_a_new_address_ends_a_bounce(self, site, client, anna):
        self.disable(site, anna, EmailDisabledReason.BOUNCE)
        client.post("/notifications", {"action": "email", "password": PASSWORD, "new_email": "new@example.com"})
        client.get(link_in(mail.outbox[0], "mail-change/do"))
        assert reload(site, anna).email_disabled_reason == ""


class TestUnsubscribeLink:
    @pytest.fixture
    def link(self, site, anna, rf):
        request = rf.get("/", HTTP_HOST="localhost")
        with on_site(site):
            url = unsubscribe_url(request=request, user=anna)
        return url[url.index("/unsubscribe") :]

    def test_one_click_without_logging_in(self, site, client_for, anna, link):
        client = client_for(site, enforce_csrf_checks=True)
        page = client.get(link)
        assert page.status_code == 200 and "Do you no longer want to receive our e-mails?" in page.content.decode()
        assert reload(site, anna).email_disabled_reason == ""  # a link scanner's GET changes nothing
        token = unquote(link.split("token=", 1)[1])
        response = client.post("/unsubscribe", {"token": token})
        assert response.status_code == 200 and "You unsubscribed from our e-mails." in response.content.decode()
        assert reload(site, anna).email_disabled_reason == EmailDisabledReason.UNSUBSCRIBE

    def test_the_mail_clients_one_click_post_uses_the_link_itself(self, site, client_for, anna, link):
        assert client_for(site).post(link).status_code == 200
        assert reload(site, anna).email_disabled_reason == EmailDisabledReason.UNSUBSCRIBE

    def test_another_reason_is_kept(self, site, client_for, anna, link):
        with on_site(site):
            User.objects.filter(pk=anna.pk).update(email_disabled_reason=EmailDisabledReason.SPAM_COMPLAINT)
        client_for(site).post(link)
        assert reload(site, anna).email_disabled_reason == EmailDisabledReason.SPAM_COMPLAINT

    def test_a_forged_or_foreign_token_fails(self, two_sites, client_for, anna, link):
        first, second = two_sites
        assert LINK_INVALID in client_for(first).get("/unsubscribe?token=forged").content.decode()
        twin = member_create(second, pk=anna.pk)
        response = client_for(second).post(link)
        assert response.status_code == 400 and LINK_INVALID in response.content.decode()
        assert reload(second, twin).email_disabled_reason == ""
