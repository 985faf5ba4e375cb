"""The outbox (issue 14 "Never too many, never lost"): an event becomes a pending
notice in its transaction, merges with what follows before it is due, is sent once when
still unseen, and is skipped for members who saw it, opted out or cannot get it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone, translation

from apps.accounts.models import PushSubscription, User, UserStatus
from apps.chat.services import conversation_read
from apps.chat.tests.helpers import credits_give, send
from apps.common.i18n import INTERFACE_LANGUAGES
from apps.likes.services import like_create
from apps.notifications import sending
from apps.notifications.models import Channel, Notice, NoticeState
from apps.notifications.tasks import notices_sweep
from apps.notifications.tests.conftest import device
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db


def notices(site, user, **filters) -> list[Notice]:
    with on_site(site):
        return list(Notice.objects.filter(user=user, **filters).order_by("pk"))


def due_now(site, *notices_) -> None:
    with on_site(site):
        Notice.objects.filter(pk__in=[n.pk for n in notices_]).update(due_at=timezone.now() - timedelta(seconds=1))


def send_now(site, notice: Notice) -> str | None:
    with on_site(site):
        return sending.notice_send(notice.pk)


@pytest.fixture
def later(settings):
    """Notices wait a minute, as in production (tests send at once otherwise)."""
    settings.NOTICE_DELAY_PUSH = 60
    settings.NOTICE_DELAY_EMAIL = 60


class TestEvents:
    def test_a_message_is_a_pending_notice_per_channel_the_member_wants(self, site, anna_ben, local_push, later):
        anna, ben = anna_ben
        device(site, ben.user, local_push)
        credits_give(site, anna.user, 10)
        conversation, message = send(site, anna, ben, "Hi Ben")
        rows = notices(site, ben.user)
        assert sorted(row.channel for row in rows) == [Channel.EMAIL, Channel.PUSH]
        assert all(row.kind == "new_conversations" and row.state == NoticeState.PENDING for row in rows)
        assert rows[0].items == [
            {"m": message.pk, "c": conversation.pk, "p": anna.pk, "n": "Anna", "k": "text", "t": "Hi Ben"}
        ]
        assert all(row.due_at > timezone.now() + timedelta(seconds=50) for row in rows)
        assert notices(site, anna.user) == []  # the sender hears nothing

    def test_no_push_row_without_a_device_and_none_for_a_type_switched_off(self, site, anna_ben, later):
        anna, ben = anna_ben
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(email_notifications=["like"])
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        assert notices(site, ben.user) == []

    def test_what_arrives_before_the_notice_is_due_merges_into_it(self, site, anna_ben, later):
        anna, ben = anna_ben
        carl = member(site, "Carl", gender="male")
        credits_give(site, anna.user, 10)
        credits_give(site, carl.user, 10)
        send(site, anna, ben, "one")
        for text in ("two", "three"):
            send(site, anna, ben, text)
        send(site, carl, ben, "from carl")
        rows = notices(site, ben.user, channel=Channel.EMAIL)
        kinds = {row.kind: row for row in rows}
        assert set(kinds) == {"new_conversations", "new_messages"}
        assert kinds["new_messages"].count == 2
        assert kinds["new_conversations"].count == 2  # Anna's first and Carl's first
        assert [item["t"] for item in kinds["new_messages"].items] == ["two", "three"]

    def test_merged_items_keep_the_newest_five_and_count_all(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 20)
        send(site, anna, ben, "first")
        for i in range(8):
            send(site, anna, ben, f"m{i}")
        (row,) = notices(site, ben.user, kind="new_messages")
        assert row.count == 8
        assert [item["t"] for item in row.items] == ["m3", "m4", "m5", "m6", "m7"]

    def test_a_like_and_a_match(self, site, anna_ben, later):
        anna, ben = anna_ben
        with on_site(site):
            like_create(liker=anna.user, profile_id=ben.pk)
            like_create(liker=ben.user, profile_id=anna.pk)
        (to_ben,) = notices(site, ben.user)
        (to_anna,) = notices(site, anna.user)
        assert to_ben.kind == to_anna.kind == "like"
        assert to_ben.items[0]["match"] is False and to_anna.items[0]["match"] is True

    def test_the_send_task_is_queued_after_the_answer_where_the_view_collects(
        self, site, anna_ben, monkeypatch, django_capture_on_commit_callbacks
    ):
        """A chat message's answer does not wait for the broker: the committed notice's
        task is queued once the answer is sent (apps.common.realtime.after_response)."""
        from apps.common.realtime import after_response, run_after_sent
        from apps.notifications import outbox

        queued = []
        monkeypatch.setattr(outbox, "task_queue", lambda name, *args, **kwargs: queued.append((name, args)))
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        credits_give(site, ben.user, 10)

        class Answer:
            def __init__(self) -> None:
                self._resource_closers = []

        with after_response() as jobs:
            with django_capture_on_commit_callbacks(execute=True):
                send(site, anna, ben, "Hi Ben")
            assert queued == []  # committed, but the answer is not out yet
        (row,) = notices(site, ben.user)
        answer = Answer()
        run_after_sent(answer, jobs)
        assert queued == []
        for close in answer._resource_closers:
            close()
        assert queued == [(outbox.NOTICE_SEND_TASK, (row.pk,))]
        # Outside a view that collects, it is queued at commit, as before.
        with django_capture_on_commit_callbacks(execute=True):
            send(site, ben, anna, "Hi Anna")
        to_anna = notices(site, anna.user)
        assert to_anna and queued[1:] == [(outbox.NOTICE_SEND_TASK, (row.pk,)) for row in to_anna]


class TestSending:
    def test_an_unread_message_becomes_an_email_with_a_deep_link_and_one_click_unsubscribe(self, site, anna_ben):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        mail.outbox.clear()
        with on_site(site):
            pass
        conversation, _message = send(site, anna, ben, "Hi Ben")
        (row,) = notices(site, ben.user)
        assert send_now(site, row) == NoticeState.SENT
        (message,) = mail.outbox
        assert message.to == [ben.user.email]
        assert message.subject == f"{site.name}: Anna started a conversation with you"
        assert f"http://localhost/chats/{conversation.pk}" in message.body
        html, mime = message.alternatives[0]
        assert mime == "text/html" and f"http://localhost/chats/{conversation.pk}" in html
        assert site.theme_primary in html and site.name in html
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert message.extra_headers["List-Unsubscribe"].startswith("<http://localhost/unsubscribe?token=")
        assert message.extra_headers["Message-ID"] == f"<notice.{site.schema_name}.{row.pk}@localhost>"
        assert "Hi Ben" not in message.body and "Hi Ben" not in html  # no message text in mails
        assert notices(site, ben.user)[0].email == ben.user.email

    def test_sent_once_however_often_the_task_runs(self, site, anna_ben):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user)
        mail.outbox.clear()
        assert send_now(site, row) == NoticeState.SENT
        assert send_now(site, row) is None
        assert len(mail.outbox) == 1

    def test_read_before_it_is_due_it_is_not_sent(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        conversation, _message = send(site, anna, ben)
        (row,) = notices(site, ben.user)
        assert send_now(site, row) is None  # not due yet
        with on_site(site):
            conversation_read(user=ben.user, conversation_id=conversation.pk)
        due_now(site, row)
        mail.outbox.clear()
        assert send_now(site, row) == NoticeState.SKIPPED
        assert notices(site, ben.user)[0].result == "seen" and mail.outbox == []

    def test_messages_read_meanwhile_drop_out_of_the_count(self, site, anna_ben, later):
        anna, ben = anna_ben
        carl = member(site, "Carl", gender="male")
        credits_give(site, anna.user, 10)
        credits_give(site, carl.user, 10)
        send(site, anna, ben, "first")
        anna_chat, _m = send(site, anna, ben, "second")
        send(site, anna, ben, "third")
        send(site, carl, ben, "first from carl")
        send(site, carl, ben, "second from carl")
        with on_site(site):
            conversation_read(user=ben.user, conversation_id=anna_chat.pk)
        (row,) = notices(site, ben.user, kind="new_messages")
        due_now(site, row)
        mail.outbox.clear()
        send_now(site, row)
        (message,) = mail.outbox
        assert message.subject == f"{site.name}: Carl sent you a message"

    def test_the_mail_is_in_the_members_language(self, site, anna_ben):
        anna, ben = anna_ben
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(language="fr")
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        mail.outbox.clear()
        send_now(site, notices(site, ben.user)[0])
        with translation.override("fr"):
            from django.utils.translation import gettext

            expected = gettext("%(name)s started a conversation with you") % {"name": "Anna"}
            footer = gettext("Unsubscribe from these e-mails")
        (message,) = mail.outbox
        assert expected != "Anna started a conversation with you"
        assert message.subject.endswith(expected) and footer in message.body

    def test_a_member_who_picks_a_language_in_the_menu_gets_mail_and_push_in_it(
        self, site, anna_ben, client_for, local_push
    ):
        """Spec §7 "PUT /api/user.php {language} on language change when logged in": the
        language menu (/lang-config) keeps the choice on the member too, not only in the
        cookie, so what is sent later while they are away is in it."""
        anna, ben = anna_ben
        device(site, ben.user, local_push, "ben-phone")
        site.languages = ["en", "fr"]
        site.save()
        response = logged_in(site, client_for, ben).post("/lang-config", {"language": "fr", "next": "/chats"})
        assert response.status_code == 302
        with on_site(site):
            assert User.objects.get(pk=ben.user_id).language == "fr"
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        mail.outbox.clear()
        for row in notices(site, ben.user):
            send_now(site, row)
        with translation.override("fr"):
            from django.utils.translation import gettext

            expected = gettext("%(name)s started a conversation with you") % {"name": "Anna"}
        assert expected != "Anna started a conversation with you"
        (message,) = mail.outbox
        assert message.subject.endswith(expected)
        (push,) = local_push.wait_for(1)
        assert push.json["title"] == expected

    @pytest.mark.parametrize(
        "change",
        [
            {"status": UserStatus.DELETED},
            {"is_active": False},
            {"status": UserStatus.NOT_CONFIRMED},
            {"email_notifications": []},
            {"email_disabled_reason": "bounce"},
            {"email_disabled_reason": "spam_complaint"},
        ],
    )
    def test_nothing_to_a_member_who_cannot_or_will_not_get_it(self, site, anna_ben, change, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user)
        with on_site(site):
            User.objects.filter(pk=ben.user_id).update(**change)
        due_now(site, row)
        mail.outbox.clear()
        assert send_now(site, row) == NoticeState.SKIPPED
        assert mail.outbox == []

    def test_a_new_event_after_the_claim_starts_a_new_notice(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben, "one")
        (row,) = notices(site, ben.user)
        due_now(site, row)
        with on_site(site):
            claimed = sending.notice_claim(row.pk)
        assert claimed.state == NoticeState.SENDING
        send(site, anna, ben, "two")
        rows = notices(site, ben.user)
        assert len(rows) == 2 and rows[1].state == NoticeState.PENDING and rows[1].items[0]["t"] == "two"


class TestSweep:
    def test_a_notice_whose_task_was_lost_is_sent_by_the_sweep(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user)
        with on_site(site):
            Notice.objects.filter(pk=row.pk).update(due_at=timezone.now() - timedelta(minutes=5))
        mail.outbox.clear()
        assert notices_sweep() >= 1
        assert notices(site, ben.user)[0].state == NoticeState.SENT and len(mail.outbox) == 1
        assert notices_sweep() == 0 and len(mail.outbox) == 1

    def test_a_notice_left_sending_by_a_dead_worker_is_sent_again(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user)
        stale = timezone.now() - timedelta(seconds=sending.SENDING_STALE_SECONDS + 60)
        with on_site(site):
            Notice.objects.filter(pk=row.pk).update(state=NoticeState.SENDING, claimed_at=stale, due_at=stale)
        mail.outbox.clear()
        notices_sweep()
        assert notices(site, ben.user)[0].state == NoticeState.SENT and len(mail.outbox) == 1

    def test_a_fresh_sending_notice_is_left_alone(self, site, anna_ben, later):
        anna, ben = anna_ben
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user)
        with on_site(site):
            Notice.objects.filter(pk=row.pk).update(
                state=NoticeState.SENDING, claimed_at=timezone.now(), due_at=timezone.now() - timedelta(minutes=5)
            )
        mail.outbox.clear()
        notices_sweep()
        assert notices(site, ben.user)[0].state == NoticeState.SENDING and mail.outbox == []


class TestPush:
    def test_a_push_is_encrypted_for_the_device_with_ttl_urgency_and_topic(self, site, anna_ben, local_push, settings):
        anna, ben = anna_ben
        device(site, ben.user, local_push, "ben-phone")
        device(site, ben.user, local_push, "ben-laptop")
        local_push.expected_vapid_key = settings.VAPID_PUBLIC_KEY
        credits_give(site, anna.user, 10)
        conversation, _message = send(site, anna, ben, "Hi Ben, coffee?")
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        assert send_now(site, row) == NoticeState.SENT
        pushes = local_push.wait_for(2)
        assert {push.token for push in pushes} == {"ben-phone", "ben-laptop"}
        push = pushes[0]
        assert push.ttl == settings.PUSH_TTL and push.urgency == "high" and push.topic == f"chat-{conversation.pk}"
        assert push.vapid_key == settings.VAPID_PUBLIC_KEY and push.vapid_sub.startswith("mailto:")
        assert push.json["title"] == "Anna started a conversation with you"
        assert push.json["body"] == "Anna: Hi Ben, coffee?"
        assert push.json["url"] == push.json["checkUrl"] == f"/chats/{conversation.pk}"
        assert push.json["tag"] == f"chat-{conversation.pk}" and push.json["kind"] == "new_conversations"
        assert push.json["badge"] == 1 and push.json["id"] == str(row.pk)

    def test_gone_devices_are_deleted_at_once(self, site, anna_ben, local_push):
        anna, ben = anna_ben
        gone = device(site, ben.user, local_push, "gone")
        expired = device(site, ben.user, local_push, "expired")
        kept = device(site, ben.user, local_push, "kept")
        local_push.answer(gone, 404)
        local_push.answer(expired, 410)
        credits_give(site, anna.user, 10)
        with on_site(site):
            PushSubscription.objects.filter(user=ben.user).count()
        send(site, anna, ben)
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        assert send_now(site, row) == NoticeState.SENT
        with on_site(site):
            left = list(PushSubscription.objects.filter(user=ben.user).values_list("endpoint", flat=True))
        assert left == [kept["endpoint"]]

    def test_429_and_5xx_are_retried_not_before_retry_after(self, site, anna_ben, local_push, settings):
        anna, ben = anna_ben
        busy = device(site, ben.user, local_push, "busy")
        fine = device(site, ben.user, local_push, "fine")
        local_push.answer(busy, 429, retry_after=120)
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        before = timezone.now()
        assert send_now(site, row) == NoticeState.PENDING
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        assert row.due_at >= before + timedelta(seconds=120)
        with on_site(site):
            busy_id = PushSubscription.objects.get(endpoint=busy["endpoint"]).pk
        assert row.retry_subscriptions == [busy_id] and row.merge_key == ""
        # The retry goes to the busy device only; a 500 is retried again.
        local_push.answer(busy, 500)
        due_now(site, row)
        assert send_now(site, row) == NoticeState.PENDING
        due_now(site, row)
        assert send_now(site, row) == NoticeState.SENT
        tokens = [push.token for push in local_push.pushes]
        assert sorted(tokens) == ["busy", "fine"]
        assert fine  # delivered once, in the first attempt

    def test_401_and_403_keep_the_device_and_fail(self, site, anna_ben, local_push):
        anna, ben = anna_ben
        refused = device(site, ben.user, local_push, "refused")
        local_push.answer(refused, 403)
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        assert send_now(site, row) == NoticeState.FAILED
        with on_site(site):
            assert PushSubscription.objects.filter(endpoint=refused["endpoint"]).exists()

    def test_a_private_endpoint_is_refused_when_sending_too(self, site, anna_ben, fake_push):
        anna, ben = anna_ben
        device(site, ben.user, fake_push)  # 127.0.0.1: refused by the check
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        assert send_now(site, row) == NoticeState.FAILED
        assert fake_push.requests == []

    def test_gives_up_after_the_last_attempt(self, site, anna_ben, local_push):
        anna, ben = anna_ben
        down = device(site, ben.user, local_push, "down")
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        (row,) = notices(site, ben.user, channel=Channel.PUSH)
        for _attempt in range(sending.MAX_ATTEMPTS):
            local_push.answer(down, 503)
            due_now(site, row)
            state = send_now(site, row)
        assert state == NoticeState.FAILED
        assert "gave up" in notices(site, ben.user, channel=Channel.PUSH)[0].result


@pytest.mark.parametrize("language", [code for code in INTERFACE_LANGUAGES if code != "en"])
def test_every_catalogue_has_the_mail_and_its_unsubscribe(site, anna_ben, client_for, language):
    """Issue 14: e-mail content, headers and unsubscribe in every language catalogue."""
    from django.utils.translation import gettext

    anna, ben = anna_ben
    with on_site(site):
        User.objects.filter(pk=ben.user_id).update(language=language)
    credits_give(site, anna.user, 10)
    send(site, anna, ben)
    mail.outbox.clear()
    send_now(site, notices(site, ben.user)[0])
    (message,) = mail.outbox
    html = message.alternatives[0][0]
    with translation.override(language):
        texts = {
            "title": gettext("%(name)s started a conversation with you") % {"name": "Anna"},
            "cta": gettext("Read the message"),
            "unsubscribe": gettext("Unsubscribe from these e-mails"),
            "settings": gettext("All notification settings"),
            "type": gettext("New conversations"),
        }
    english = {"Anna started a conversation with you", "Read the message", "Unsubscribe from these e-mails"}
    assert not english & set(texts.values()), f"{language} is not translated"
    assert message.subject == f"{site.name}: {texts['title']}"
    for text in texts.values():
        assert text in message.body and text in html.replace("&#x27;", "'").replace("&quot;", '"')
    # The unsubscribe page answers in the visitor's language too, and works.
    url = message.extra_headers["List-Unsubscribe"].strip("<>").removeprefix("http://localhost")
    client = client_for(site)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    response = client.post(url)
    assert response.status_code == 200
    with on_site(site):
        assert "new_conversations" not in User.objects.get(pk=ben.user_id).email_notifications
