"""The ws and scale benchmarks' conversations start with earlier messages, as a chat
site's do: read, each participant's list row at the newest, the conversation started by
its first sender, so that the measured messages are neither first messages nor sent into
an empty table."""

import uuid

import pytest

from apps.chat.models import Conversation, Message, Participant
from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import credits_give
from apps.profiles.tests.helpers_view import member
from bench.bench_ws import HISTORY_MESSAGES, conversation_history
from conftest import on_site

pytestmark = pytest.mark.django_db


def test_each_conversation_gets_its_read_history_and_the_next_message_is_not_a_first(site):
    profiles = [member(site, name, gender="male" if n % 2 else "female") for n, name in enumerate("ABCD")]
    users = [profile.user for profile in profiles]
    with on_site(site):
        conversations = [conversation_open(user=users[2 * j], profile_id=profiles[2 * j + 1].pk).pk for j in (0, 1)]
        assert conversation_history(users, profiles, conversations) == 2 * HISTORY_MESSAGES
        for j, conversation_id in enumerate(conversations):
            messages = list(Message.objects.filter(conversation_id=conversation_id).order_by("id"))
            assert len(messages) == HISTORY_MESSAGES
            assert [m.sender_id for m in messages[:2]] == [users[2 * j].pk, users[2 * j + 1].pk]
            assert all(m.read_at and m.delivered_at and not m.held for m in messages)
            conversation = Conversation.objects.get(pk=conversation_id)
            assert conversation.started_by_id == users[2 * j].pk
            rows = {row.user_id: row for row in Participant.objects.filter(conversation_id=conversation_id)}
            assert {
                (row.listed, row.num_unread, row.last_message_id, row.last_read_message_id) for row in rows.values()
            } == {(True, 0, messages[-1].pk, messages[-1].pk)}
            assert (rows[users[2 * j].pk].is_starter, rows[users[2 * j + 1].pk].is_starter) == (True, False)
    credits_give(site, users[1], 5)
    with on_site(site):
        _message, created = message_send(
            user=users[1], conversation_id=conversations[0], client_id=uuid.uuid4().hex, text="Next"
        )
        assert created
        assert Conversation.objects.get(pk=conversations[0]).started_by_id == users[0].pk
        assert Participant.objects.get(conversation_id=conversations[0], user=users[0]).num_unread == 1
