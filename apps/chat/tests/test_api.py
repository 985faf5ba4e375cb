"""The chat API (spec §7): /api/chats.php, /api/chat.php, /api/chat-read.php,
/api/message.php, /api/gifts.php: the contract the chat islands will use."""

import json

import pytest

from apps.chat.models import Message
from apps.chat.tests.helpers import client_id, credits_give, member, send
from apps.credits.models import CreditEntry
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import logged_in
from apps.tenants.models import Gift
from conftest import on_site

pytestmark = pytest.mark.django_db


def _json(client, method: str, path: str, body: dict):
    return getattr(client, method)(path, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def pair(site):
    anna, ben = member(site, "Anna"), member(site, "Ben", gender="male")
    credits_give(site, anna.user, 10)
    credits_give(site, ben.user, 10)
    return anna, ben


def test_open_send_list_read_and_history(site, client_for, pair):
    anna, ben = pair
    annas, bens = logged_in(site, client_for, anna), logged_in(site, client_for, ben)

    opened = _json(annas, "post", "/api/chat.php", {"profile": ben.pk})
    assert opened.status_code == 200
    conversation = opened.json()["conversation"]
    # Nothing written yet (and an empty conversation is not the last opened chat either).
    assert annas.get("/api/chats.php").json() == {"chats": [], "last_opened": None}

    text = "<script>alert('x')</script> Hi & bye"
    sent = _json(annas, "post", "/api/message.php", {"conversation": conversation, "client_id": "m1", "text": text})
    assert sent.status_code == 201
    body = sent.json()
    assert (body["message"]["text"], body["message"]["mine"], body["message"]["client_id"], body["credits"]) == (
        text,
        True,
        "m1",
        9,
    )
    assert "<script>" in sent.content.decode()  # JSON carries the text as is; the client shows it as text.

    chats = bens.get("/api/chats.php").json()["chats"]
    assert [(c["conversation"], c["profile"], c["num_unread_messages"]) for c in chats] == [(conversation, anna.pk, 1)]
    assert chats[0]["last_message"]["text"] == text

    history = bens.get(f"/api/chat.php?conversation={conversation}").json()
    assert [(m["text"], m["mine"]) for m in history["messages"]] == [(text, False)]
    assert history["conversation"]["profile"]["id"] == anna.pk
    assert history["costs"] == {"text": 1, "photo": 2, "gift": 3}
    assert history["has_older"] is False

    read = _json(bens, "post", "/api/chat-read.php", {"conversation": conversation})
    assert read.json() == {"num_unread_messages": 0, "unread_total": 0}
    assert bens.get("/api/chats.php").json()["chats"][0]["num_unread_messages"] == 0


def test_a_resent_message_is_stored_once_and_answers_200(site, client_for, pair):
    anna, ben = pair
    annas = logged_in(site, client_for, anna)
    conversation = _json(annas, "post", "/api/chat.php", {"profile": ben.pk}).json()["conversation"]
    body = {"conversation": conversation, "client_id": "same", "text": "Hi"}
    first, again = (_json(annas, "post", "/api/message.php", body) for _ in range(2))
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["message"]["id"] == again.json()["message"]["id"]
    with on_site(site):
        assert Message.objects.count() == 1
        assert CreditEntry.objects.filter(user=anna.user, kind="message").count() == 1


def test_a_photo_is_sent_as_multipart(site, client_for, pair):
    anna, ben = pair
    annas = logged_in(site, client_for, anna)
    conversation = _json(annas, "post", "/api/chat.php", {"profile": ben.pk}).json()["conversation"]
    sent = annas.post(
        "/api/message.php", {"conversation": conversation, "client_id": client_id(), "photo": jpeg_upload()}
    )
    assert sent.status_code == 201, sent.content
    photo = sent.json()["message"]["photo"]
    assert photo["filename"].startswith(f"/media/{site.schema_name}/chat/") and photo["width"] == 640
    assert sent.json()["credits"] == 8


def test_gifts_are_listed_and_sent(site, client_for, pair):
    anna, ben = pair
    annas = logged_in(site, client_for, anna)
    gifts = annas.get("/api/gifts.php").json()
    with on_site(site):
        expected = list(Gift.objects.filter(site=site, is_active=True).values_list("pk", flat=True))
    assert [g["id"] for g in gifts["gifts"]] == expected and gifts["credits"] == 3
    conversation = _json(annas, "post", "/api/chat.php", {"profile": ben.pk}).json()["conversation"]
    sent = _json(
        annas, "post", "/api/message.php", {"conversation": conversation, "client_id": "g1", "gift": expected[0]}
    )
    assert sent.status_code == 201
    assert sent.json()["message"]["gift"]["emoji"] == gifts["gifts"][0]["emoji"]
    assert sent.json()["credits"] == 7


@pytest.mark.parametrize(
    ("case", "status", "code", "message"),
    [
        ("no credits", 402, "not_enough_credits", "You do not have enough credits"),
        ("too long", 400, "message_too_long", "Your message is too long. The maximum is 1000 characters."),
        ("empty", 400, "message_empty", "Write a message."),
        ("not mine", 404, "conversation_not_found", "This conversation does not exist."),
        ("visitor", 403, "authentication_required", "Log in or sign up to chat."),
    ],
)
def test_send_errors_store_nothing(site, client_for, case, status, code, message):
    anna, ben, carl = member(site, "Anna"), member(site, "Ben"), member(site, "Carl")
    if case != "no credits":
        credits_give(site, anna.user, 5)
    credits_give(site, carl.user, 5)
    conversation, _message = send(site, carl, ben, "Carl to Ben")
    with on_site(site):
        from apps.chat.services import conversation_open

        own = conversation_open(user=anna.user, profile_id=ben.pk)
    client = client_for(site) if case == "visitor" else logged_in(site, client_for, anna)
    body = {
        "conversation": conversation.pk if case == "not mine" else own.pk,
        "client_id": client_id(),
        "text": {"too long": "x" * 1001, "empty": "  "}.get(case, "Hello"),
    }
    answer = _json(client, "post", "/api/message.php", body)
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code and answer.json()["error"]["message"] == message
    if case in ("too long", "empty"):
        assert answer.json()["error"]["fields"] == {"text": [message]}
    with on_site(site):
        assert Message.objects.count() == 1


@pytest.mark.parametrize(
    ("field", "given"),
    [
        *[("text", value) for value in (0, 12.5, True, ["Hello"], {"text": "Hello"})],
        # The schema says a string: a number is not taken as its digits.
        *[("client_id", value) for value in (0, 12, True, ["m1"], {"id": "m1"})],
    ],
)
def test_a_text_or_client_id_that_is_not_a_string_is_refused_and_nothing_stored(site, client_for, pair, field, given):
    anna, ben = pair
    credits_give(site, anna.user, 5)
    with on_site(site):
        from apps.chat.services import conversation_open

        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
    client = logged_in(site, client_for, anna)
    body = {"conversation": conversation.pk, "client_id": client_id(), "text": "Hi", field: given}
    answer = _json(client, "post", "/api/message.php", body)
    assert answer.status_code == 400
    assert field in answer.json()["error"]["fields"]
    with on_site(site):
        assert Message.objects.count() == 0


def test_the_third_started_conversation_needs_premium(site, client_for):
    anna = member(site, "Anna")
    credits_give(site, anna.user, 10)
    others = [member(site, f"M{i}") for i in range(3)]
    send(site, anna, others[0])
    send(site, anna, others[1])
    answer = _json(logged_in(site, client_for, anna), "post", "/api/chat.php", {"profile": others[2].pk})
    assert (answer.status_code, answer.json()["error"]) == (
        403,
        {"code": "premium_required", "message": "This feature is only available for premium members."},
    )


def test_delete_by_conversation_and_by_profile(site, client_for, pair):
    anna, ben = pair
    carl = member(site, "Carl")
    credits_give(site, carl.user, 5)
    first, _ = send(site, ben, anna)
    send(site, carl, anna)
    annas = logged_in(site, client_for, anna)
    assert _json(annas, "delete", "/api/chat.php", {"conversation": first.pk}).json() == {"deleted": 1}
    assert [c["profile"] for c in annas.get("/api/chats.php").json()["chats"]] == [carl.pk]
    assert _json(annas, "delete", "/api/chat.php", {"profile": carl.pk}).json() == {"deleted": 1}
    assert annas.get("/api/chats.php").json() == {"chats": [], "last_opened": None}
    missing = _json(annas, "delete", "/api/chat.php", {"conversation": 987654})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "conversation_not_found")
    neither = _json(annas, "delete", "/api/chat.php", {})
    assert (neither.status_code, neither.json()["error"]["code"]) == (400, "invalid")
    # Ben keeps his.
    assert len(logged_in(site, client_for, ben).get("/api/chats.php").json()["chats"]) == 1


def test_visitors_get_the_login_error_everywhere(site, client_for):
    visitor = client_for(site)
    for answer in (
        visitor.get("/api/chats.php"),
        visitor.get("/api/chat.php?conversation=1"),
        _json(visitor, "delete", "/api/chat.php", {"conversation": 1}),
        _json(visitor, "post", "/api/chat-read.php", {"conversation": 1}),
    ):
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "authentication_required")


def test_unsafe_calls_need_the_csrf_token(site, client_for, pair):
    anna, ben = pair
    from django.test import Client

    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    with on_site(site):
        client.force_login(anna.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    answer = _json(client, "post", "/api/chat.php", {"profile": ben.pk})
    assert answer.status_code == 403


def test_the_top_bar_counts_unread_messages(site, client_for, pair):
    anna, ben = pair
    send(site, anna, ben, "one")
    send(site, anna, ben, "two")
    with on_site(site):
        from apps.accounts.selectors import member_totals

        assert member_totals(ben.user)["unreadMessages"] == 2
