"""Events go through the real channel layer (Redis) only after commit, to groups that
carry the site: apps.common.realtime."""

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from apps.accounts.models import UserStatus
from apps.accounts.selectors import member_totals
from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import client_id, credits_give, member
from apps.common.exceptions import ApplicationError
from apps.common.realtime import HANDLER, member_group, message_events
from apps.profiles.services.blocks import chat_closed_announce
from conftest import on_site
from tests.live import in_thread

pytestmark = pytest.mark.django_db


class Listener:
    """A channel in a member's group, read without a socket."""

    def __init__(self, site, user_id: int) -> None:
        self.layer = get_channel_layer()
        # A plain channel name (no "!"): read straight from Redis, from any event loop.
        self.channel = f"test.listener.{uuid.uuid4().hex}"
        # In threads of their own: the browser tests leave an event loop running in this one.
        in_thread(async_to_sync(self.layer.group_add), member_group(site_id=site.pk, user_id=user_id), self.channel)

    def messages(self, wait: float = 0.3) -> list[dict]:
        """The channel messages that came, each carrying one event or several."""

        async def drain() -> list[dict]:
            found = []
            while True:
                try:
                    message = await asyncio.wait_for(self.layer.receive(self.channel), timeout=wait)
                except TimeoutError:
                    return found
                assert message["type"] == HANDLER
                found.append(message)

        return in_thread(async_to_sync(drain))

    def events(self, wait: float = 0.3) -> list[dict]:
        return [event for message in self.messages(wait) for event in message_events(message)]


def test_a_message_is_announced_only_after_commit(site, django_capture_on_commit_callbacks):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    credits_give(site, anna.user, 1)
    listener = Listener(site, ben.user_id)
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        with django_capture_on_commit_callbacks(execute=False) as pending:
            message, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi"
            )
        assert listener.events() == []  # Not committed yet: nothing went out.
        for callback in pending:
            callback()
        events = listener.events()
        assert [event["type"] for event in events] == ["message.new", "badges"]
        assert events[0]["message"]["id"] == message.pk
        assert events[1]["unreadMessages"] == 1

        # Refused (no credits left): nothing stored, nothing announced.
        with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApplicationError):
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Again")
        assert listener.events() == []


def test_the_senders_copy_and_balance_go_out_in_one_channel_message(site, django_capture_on_commit_callbacks):
    """One group_send for what a message tells its sender's other tabs; their sockets send
    the events as frames of their own (test_realtime)."""
    anna, ben = member(site, "Anna"), member(site, "Ben")
    credits_give(site, anna.user, 3)
    annas = Listener(site, anna.user_id)
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        with django_capture_on_commit_callbacks(execute=True):
            message, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi"
            )
    messages = annas.messages()
    assert [[event["type"] for event in message_events(one)] for one in messages] == [["message.new", "badges"]]
    own, balance = message_events(messages[0])
    assert (own["message"]["id"], own["message"]["mine"]) == (message.pk, True)
    assert balance == {"type": "badges", "credits": 3 - message.credits}


def test_the_recipients_copy_and_unread_badge_go_out_in_one_channel_message(site, django_capture_on_commit_callbacks):
    """The recipient's badge is counted by the message's listing statement (their other
    open chats plus this one's new count) and travels with their copy: one group_send,
    and no count after commit."""
    anna, ben, cleo = member(site, "Anna"), member(site, "Ben"), member(site, "Cleo")
    credits_give(site, anna.user, 5)
    credits_give(site, cleo.user, 5)
    with on_site(site):
        from_cleo = conversation_open(user=cleo.user, profile_id=ben.pk)
        with django_capture_on_commit_callbacks(execute=True):
            for text in ("Hi", "Hello?"):
                message_send(user=cleo.user, conversation_id=from_cleo.pk, client_id=client_id(), text=text)
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        bens = Listener(site, ben.user_id)
        with django_capture_on_commit_callbacks(execute=True):
            first, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi"
            )
            second, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Again"
            )
        assert member_totals(ben.user)["unreadMessages"] == 4
    messages = bens.messages()
    assert [[event["type"] for event in message_events(one)] for one in messages] == [["message.new", "badges"]] * 2
    for one, message, unread in zip(messages, (first, second), (3, 4), strict=True):
        copy, badge = message_events(one)
        assert (copy["message"]["id"], copy["message"]["mine"]) == (message.pk, False)
        assert badge == {"type": "badges", "unreadMessages": unread}


def test_a_message_held_for_its_recipient_counts_no_badge(site, django_capture_on_commit_callbacks):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    credits_give(site, anna.user, 1)
    bens = Listener(site, ben.user_id)
    with on_site(site):
        ben.user.status = UserStatus.NOT_CONFIRMED
        ben.user.save(update_fields=["status"])
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        with django_capture_on_commit_callbacks(execute=True):
            message, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi"
            )
    assert message.held
    assert bens.events() == []


def test_a_block_closes_the_chat_on_both_sides(site, django_capture_on_commit_callbacks):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    annas = Listener(site, anna.user_id)
    bens = Listener(site, ben.user_id)
    with on_site(site), django_capture_on_commit_callbacks(execute=True):
        chat_closed_announce(blocker=anna.user, blocked_profile=ben)
    assert [e for e in annas.events() if e["type"] == "chat.closed"] == [{"type": "chat.closed", "profile": ben.pk}]
    assert [e for e in bens.events() if e["type"] == "chat.closed"] == [{"type": "chat.closed", "profile": anna.pk}]


def test_blocking_through_the_service_closes_the_chat_on_both_sides(site, django_capture_on_commit_callbacks):
    from apps.profiles.services.blocks import block_create

    anna, ben = member(site, "Anna"), member(site, "Ben")
    annas = Listener(site, anna.user_id)
    bens = Listener(site, ben.user_id)
    with on_site(site), django_capture_on_commit_callbacks(execute=True):
        block_create(user=anna.user, profile_id=ben.pk)
    assert [e for e in annas.events() if e["type"] == "chat.closed"] == [{"type": "chat.closed", "profile": ben.pk}]
    assert [e for e in bens.events() if e["type"] == "chat.closed"] == [{"type": "chat.closed", "profile": anna.pk}]


def test_gift_names_in_the_recipients_language_and_in_the_chat_list_preview(
    site, client_for, django_capture_on_commit_callbacks
):
    from django.conf import settings
    from django.utils import translation

    from apps.profiles.tests.helpers_view import logged_in
    from apps.tenants.models import Gift

    anna, ben = member(site, "Anna"), member(site, "Ben", user_fields={"language": "fr"})
    credits_give(site, anna.user, 10)
    listener = Listener(site, ben.user_id)
    with on_site(site):
        teddy = Gift.objects.get(site=site, name="Teddy bear")
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        # Anna's request is in English; Ben reads French.
        with translation.override("en"), django_capture_on_commit_callbacks(execute=True):
            message, _created = message_send(
                user=anna.user, conversation_id=conversation.pk, client_id=client_id(), gift_id=teddy.pk
            )
    assert message.gift_name == "Teddy bear"
    [event] = [event for event in listener.events() if event["type"] == "message.new"]
    assert event["message"]["gift"]["name"] == "Nounours"
    # The chat list's last line names the gift, in the reader's language.
    bens = logged_in(site, client_for, ben)
    bens.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    chats = bens.get("/api/chats.php", HTTP_ACCEPT_LANGUAGE="fr").json()["chats"]
    [last] = [chat["last_message"] for chat in chats if chat["conversation"] == conversation.pk]
    assert (last["kind"], last["gift_name"]) == ("gift", "Nounours")
