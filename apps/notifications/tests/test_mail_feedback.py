"""One-click unsubscribe per type (RFC 8058), the mail provider's bounce and complaint
webhook, and the "disabled notifications" alert with its remedy (spec §4)."""

from __future__ import annotations

import json
import time
from urllib.parse import unquote

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from apps.accounts.models import EmailDisabledReason, User
from apps.chat.tests.helpers import credits_give, send
from apps.notifications import sending
from apps.notifications.models import Channel, Notice, NoticeState
from apps.notifications.webhooks import signature_make
from apps.profiles.services.alerts import alert_dismiss
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db

SECRET = "test-webhook-secret"


def mailed_notice(site, anna, ben) -> tuple[Notice, object]:
    """Anna writes to Ben; Ben's e-mail notice is sent. Returns the notice and the mail."""
    credits_give(site, anna.user, 10)
    send(site, anna, ben)
    with on_site(site):
        notice = Notice.objects.get(user=ben.user, channel=Channel.EMAIL)
        Notice.objects.filter(pk=notice.pk).update(due_at=timezone.now())
        mail.outbox.clear()
        sending.notice_send(notice.pk)
    (message,) = mail.outbox
    return notice, message


def reload(site, user) -> User:
    with on_site(site):
        return User.objects.get(pk=user.pk)


class TestUnsubscribe:
    def test_the_headers_one_click_post_stops_that_type_only(self, site, client_for, anna_ben):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        url = message.extra_headers["List-Unsubscribe"].strip("<>")
        path = url.removeprefix("http://localhost")
        # What a mail client sends (RFC 8058): a POST without cookies or CSRF token.
        response = client_for(site, enforce_csrf_checks=True).post(
            path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code == 200
        assert "You unsubscribed from e-mails about: New conversations." in response.content.decode()
        ben_now = reload(site, ben.user)
        assert "new_conversations" not in ben_now.email_notifications
        assert "new_messages" in ben_now.email_notifications
        assert ben_now.email_disabled_reason == EmailDisabledReason.UNSUBSCRIBE
        assert ben_now.email_disabled_at is not None

    def test_the_footer_link_asks_first_and_a_get_changes_nothing(self, site, client_for, anna_ben):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        link = next(word for word in message.body.split() if "/unsubscribe?token=" in word)
        path = link.removeprefix("http://localhost")
        page = client_for(site).get(path)
        assert page.status_code == 200
        assert "Do you no longer want to receive e-mails about: New conversations?" in page.content.decode()
        assert "new_conversations" in reload(site, ben.user).email_notifications
        token = unquote(path.split("token=", 1)[1])
        client_for(site).post("/unsubscribe", {"token": token})
        assert "new_conversations" not in reload(site, ben.user).email_notifications

    def test_pending_mails_of_that_type_are_dropped(self, site, client_for, anna_ben, settings):
        settings.NOTICE_DELAY_EMAIL = 60
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        send(site, anna, ben, "again")  # a pending new_messages mail... of another type
        url = message.extra_headers["List-Unsubscribe"].strip("<>").removeprefix("http://localhost")
        client_for(site).post(url)
        with on_site(site):
            pending = Notice.objects.get(user=ben.user, kind="new_messages", channel=Channel.EMAIL)
        assert pending.state == NoticeState.PENDING  # other types go on

    def test_a_token_of_another_site_or_a_forged_one_fails(self, two_sites, client_for, anna_ben):
        first, second = two_sites
        anna, ben = anna_ben
        _notice, message = mailed_notice(first, anna, ben)
        url = message.extra_headers["List-Unsubscribe"].strip("<>").removeprefix("http://localhost")
        assert client_for(second).post(url).status_code == 400
        assert client_for(first).post("/unsubscribe?token=forged").status_code == 400

    def test_choosing_again_on_the_settings_page_ends_the_unsubscribe(self, site, client_for, anna_ben):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        client_for(site).post(message.extra_headers["List-Unsubscribe"].strip("<>").removeprefix("http://localhost"))
        client = logged_in(site, client_for, ben)
        client.post("/notifications", {"action": "preferences", "email": ["new_conversations", "like"]})
        ben_now = reload(site, ben.user)
        assert ben_now.email_disabled_reason == "" and ben_now.email_notifications == ["new_conversations", "like"]


def webhook(events, *, secret: str = SECRET, timestamp: int | None = None, signature: str | None = None):
    body = json.dumps({"events": events}).encode()
    header = signature or signature_make(body, secret=secret, timestamp=timestamp)
    client = Client(HTTP_HOST="admin.localhost")
    return client.post("/hooks/mail", body, content_type="application/json", HTTP_X_MAIL_SIGNATURE=header)


@pytest.fixture
def secret(settings):
    settings.MAIL_WEBHOOK_SECRET = SECRET


class TestWebhook:
    def test_a_hard_bounce_stops_the_members_mail_on_the_right_site(self, two_sites, anna_ben, secret):
        first, second = two_sites
        anna, ben = anna_ben
        twin = member(second, "Ben", gender="male")  # another member, perhaps with the same id
        notice, message = mailed_notice(first, anna, ben)
        response = webhook(
            [{"type": "bounce", "email": ben.user.email, "message_id": message.extra_headers["Message-ID"]}]
        )
        assert response.status_code == 200 and response.json() == {"received": 1, "recorded": 1}
        assert reload(first, ben.user).email_disabled_reason == EmailDisabledReason.BOUNCE
        assert reload(second, twin.user).email_disabled_reason == ""
        with on_site(first):
            assert Notice.objects.get(pk=notice.pk).delivery == "bounce"
        # No further notification mail to that address.
        send(first, anna, ben, "still there?")
        with on_site(first):
            assert not Notice.objects.filter(user=ben.user, channel=Channel.EMAIL, state="pending").exists()

    def test_a_complaint_outranks_a_bounce_and_a_soft_bounce_only_marks_the_notice(self, site, anna_ben, secret):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        message_id = message.extra_headers["Message-ID"]
        webhook([{"type": "bounce", "bounce_type": "soft", "message_id": message_id}])
        assert reload(site, ben.user).email_disabled_reason == ""
        webhook([{"type": "spam_complaint", "message_id": message_id}])
        webhook([{"type": "bounce", "message_id": message_id}])
        assert reload(site, ben.user).email_disabled_reason == EmailDisabledReason.SPAM_COMPLAINT

    def test_signatures(self, site, anna_ben, secret):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        events = [{"type": "bounce", "message_id": message.extra_headers["Message-ID"]}]
        assert webhook(events, secret="wrong").status_code == 403
        assert webhook(events, timestamp=int(time.time()) - 600).status_code == 403
        assert webhook(events, signature="garbage").status_code == 403
        assert reload(site, ben.user).email_disabled_reason == ""
        body = json.dumps({"events": events}).encode()
        header = signature_make(body, secret=SECRET)
        client = Client(HTTP_HOST="admin.localhost")
        first = client.post("/hooks/mail", body, content_type="application/json", HTTP_X_MAIL_SIGNATURE=header)
        replay = client.post("/hooks/mail", body, content_type="application/json", HTTP_X_MAIL_SIGNATURE=header)
        assert first.status_code == 200
        assert replay.status_code == 409 and replay.json()["error"]["code"] == "replayed"

    def test_mail_webhook_500_a_non_ascii_signature_is_a_403(self, site, anna_ben, secret):
        anna, ben = anna_ben
        _notice, message = mailed_notice(site, anna, ben)
        events = [{"type": "bounce", "message_id": message.extra_headers["Message-ID"]}]
        for given in ("\u00e9", "\u00e9" * 64, "\U0001f600", "a\udcff"):
            response = webhook(events, signature=f"t={int(time.time())},v1={given}")
            assert response.status_code == 403, given
            assert response.json()["error"]["code"]
        assert reload(site, ben.user).email_disabled_reason == ""

    def test_bad_bodies_get_a_4xx_in_the_json_error_shape(self, secret):
        client = Client(HTTP_HOST="admin.localhost")
        for body in (b"not json", b'{"events": "x"}', b"\x00", json.dumps({"events": [1]}).encode()):
            response = client.post(
                "/hooks/mail",
                body,
                content_type="application/json",
                HTTP_X_MAIL_SIGNATURE=signature_make(body, secret=SECRET),
            )
            assert 400 <= response.status_code < 500 and "error" in response.json()
        # Unknown or foreign message ids are received and ignored.
        response = webhook([{"type": "bounce", "message_id": "<notice.nosuchschema.1@x>"}, {"type": "x"}])
        assert response.json() == {"received": 2, "recorded": 0}

    def test_a_lying_content_type_a_nul_byte_and_other_methods_get_a_4xx(self, secret):
        client = Client(HTTP_HOST="admin.localhost")
        body = b'{"events": []}'
        signature = signature_make(body, secret=SECRET)
        lying = client.post(
            "/hooks/mail", body, content_type="multipart/form-data", HTTP_X_MAIL_SIGNATURE=signature
        )  # no boundary: the body is read as it is, and it is JSON
        assert lying.status_code == 200 and lying.json() == {"received": 0, "recorded": 0}
        nul = client.post("/hooks/mail?x=%00", body, content_type="application/json", HTTP_X_MAIL_SIGNATURE=signature)
        assert nul.status_code == 400
        assert client.get("/hooks/mail").status_code == 405

    def test_off_without_a_secret(self, settings):
        settings.MAIL_WEBHOOK_SECRET = ""
        assert webhook([], secret="").status_code == 404

    def test_not_on_a_sites_host(self, client_for, site, secret):
        body = b'{"events": []}'
        response = client_for(site).post(
            "/hooks/mail",
            body,
            content_type="application/json",
            HTTP_X_MAIL_SIGNATURE=signature_make(body, secret=SECRET),
        )
        assert response.status_code == 404


class TestDisabledAlert:
    def page(self, site, client_for, profile) -> str:
        return logged_in(site, client_for, profile).get("/members").content.decode()

    @pytest.mark.parametrize(
        ("reason", "remedy"),
        [
            ("bounce", "Check your e-mail address"),
            ("spam_complaint", "Send me e-mails again"),
            ("unsubscribe", "Choose your e-mails"),
        ],
    )
    def test_each_reason_has_its_remedy(self, site, client_for, reason, remedy):
        ben = member(site, "Ben", gender="male")
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(email_disabled_reason=reason, email_disabled_at=timezone.now())
        html = self.page(site, client_for, ben)
        assert 'data-testid="notifications-disabled-alert"' in html and remedy in html
        assert 'data-dismiss-alert="disabled_notifications"' in html

    def test_dismissed_it_stays_away_until_the_next_stop(self, site, client_for):
        from datetime import timedelta

        ben = member(site, "Ben", gender="male")
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(
                email_disabled_reason="bounce", email_disabled_at=timezone.now() - timedelta(days=1)
            )
            alert_dismiss(user=User.objects.get(pk=ben.user_id), alert="disabled_notifications")
        assert "notifications-disabled-alert" not in self.page(site, client_for, ben)
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(
                email_disabled_reason="spam_complaint", email_disabled_at=timezone.now() + timedelta(seconds=1)
            )
        assert "notifications-disabled-alert" in self.page(site, client_for, ben)

    def test_the_enable_push_alert_waits_for_a_page_without_it(self, site, client_for):
        from apps.profiles.tests.helpers_view import photos_add

        ben = member(site, "Ben", gender="male")
        photos_add(site, ben, 1)  # no photo alert
        assert 'data-testid="enable-push-alert"' in self.page(site, client_for, ben)
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(email_disabled_reason="bounce", email_disabled_at=timezone.now())
        html = self.page(site, client_for, ben)
        assert "notifications-disabled-alert" in html and 'data-testid="enable-push-alert"' not in html

    def test_not_without_a_reason(self, site, client_for):
        ben = member(site, "Ben", gender="male")
        assert "notifications-disabled-alert" not in self.page(site, client_for, ben)
