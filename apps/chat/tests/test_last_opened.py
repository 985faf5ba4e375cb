"""The member's last opened chat (spec §3 "last opened chat profile and date"): recorded
when they open a conversation of their own (its page, GET /api/chat.php), one UPDATE;
given to the list page (props "lastOpened") and in GET /api/chats.php ("last_opened")
without an extra query; closed and deleted chats never come back as the last opened."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.chat.models import Participant
from apps.chat.selectors import chats_state
from apps.chat.services import conversation_delete, conversation_opened
from apps.chat.tests.helpers import credits_give, member, send
from apps.chat.tests.test_selectors import SET_PATH
from apps.chat.tests.test_views import island_props
from apps.profiles.models import Block
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna(site):
    anna = member(site, "Anna")
    credits_give(site, anna.user, 50)
    with on_site(site):
        anna.user.paid_user = True
        anna.user.save(update_fields=["paid_user"])
    return anna


@pytest.fixture
def ben(site):
    return member(site, "Ben", gender="male")


def _opened(site) -> dict:
    """{(conversation id, profile id): last_opened} of every participant row."""
    with on_site(site):
        return {(p.conversation_id, p.profile_id): p.last_opened for p in Participant.objects.all()}


def test_opening_a_conversation_page_makes_it_the_last_opened(site, client_for, anna, ben):
    carl = member(site, "Carl", gender="male")
    with_ben, _ = send(site, anna, ben, "to Ben")
    with_carl, _ = send(site, anna, carl, "to Carl")
    client = logged_in(site, client_for, anna)
    assert island_props(client.get("/chats"))["lastOpened"] is None

    assert client.get(f"/chats/{with_ben.pk}").status_code == 200
    opened = _opened(site)
    assert opened[(with_ben.pk, anna.pk)] is not None
    # Only the member's own side: Ben's and the other conversation's rows stay as they were.
    assert opened[(with_ben.pk, ben.pk)] is None and opened[(with_carl.pk, anna.pk)] is None
    last = island_props(client.get("/chats"))["lastOpened"]
    assert last == {
        "conversation": with_ben.pk,
        "profile": ben.pk,
        "at": opened[(with_ben.pk, anna.pk)].isoformat(),
    }

    client.get(f"/chats/{with_carl.pk}")
    assert island_props(client.get("/chats"))["lastOpened"]["conversation"] == with_carl.pk
    # The conversation page has it too (the island's props are the same on both pages).
    assert island_props(client.get(f"/chats/{with_ben.pk}"))["lastOpened"]["conversation"] == with_ben.pk
    # Each member has their own: Ben never opened one.
    assert island_props(logged_in(site, client_for, ben).get("/chats"))["lastOpened"] is None


def test_a_foreign_or_unknown_conversation_is_404_and_records_nothing(site, client_for, anna, ben):
    conversation, _ = send(site, anna, ben, "hi")
    outsider = member(site, "Olga")
    before = _opened(site)
    client = logged_in(site, client_for, outsider)
    assert client.get(f"/chats/{conversation.pk}").status_code == 404
    assert client.get("/chats/999999").status_code == 404
    for query in (f"conversation={conversation.pk}", "conversation=999999", "conversation=x"):
        response = client.get(f"/api/chat.php?{query}")
        assert response.status_code == 404, query
        assert response.json()["error"]["code"] == "conversation_not_found"
    nul = client.get(f"/api/chat.php?conversation={conversation.pk}%00")
    assert nul.status_code == 400 and "error" in nul.json()
    assert _opened(site) == before
    assert client.get("/api/chats.php").json() == {"chats": [], "last_opened": None}


def test_the_chats_api_gives_the_last_opened_chat(site, client_for, anna, ben):
    conversation, _ = send(site, anna, ben, "hi")
    client = logged_in(site, client_for, ben)
    assert client.get("/api/chats.php").json()["last_opened"] is None
    # GET /api/chat.php opens the conversation for an app that shows it without a page.
    assert client.get(f"/api/chat.php?conversation={conversation.pk}").status_code == 200
    body = client.get("/api/chats.php").json()
    at = _opened(site)[(conversation.pk, ben.pk)]
    assert body["last_opened"] == {"conversation": conversation.pk, "profile": anna.pk, "at": at.isoformat()}
    assert [chat["conversation"] for chat in body["chats"]] == [conversation.pk]


def test_an_opened_chat_that_is_not_listed_is_not_the_last_opened(site, client_for, anna, ben):
    """An empty conversation (opened from a profile, nothing written) is not in the list,
    so /chats does not open it: the last listed one it opened stays."""
    carl = member(site, "Carl", gender="male")
    written, _ = send(site, anna, ben, "hi")
    client = logged_in(site, client_for, anna)
    client.get(f"/chats/{written.pk}")
    empty = client.get(f"/members/{carl.pk}/chat")["Location"]
    assert client.get(empty).status_code == 200
    assert island_props(client.get("/chats"))["lastOpened"]["conversation"] == written.pk


def test_deleted_and_closed_chats_never_come_back_as_the_last_opened(site, client_for, anna, ben):
    carl = member(site, "Carl", gender="male")
    credits_give(site, carl.user, 5)
    with_ben, _ = send(site, anna, ben, "to Ben")
    with_carl, _ = send(site, anna, carl, "to Carl")
    client = logged_in(site, client_for, anna)
    client.get(f"/chats/{with_ben.pk}")
    client.get(f"/chats/{with_carl.pk}")

    # Blocked: the chat is closed; the one opened before is the last opened again.
    with on_site(site):
        block = Block.objects.create(blocker=anna.user, blocked=carl)
    assert island_props(client.get("/chats"))["lastOpened"]["conversation"] == with_ben.pk
    with on_site(site):
        block.delete()
    assert island_props(client.get("/chats"))["lastOpened"]["conversation"] == with_carl.pk

    # Deleted: gone for good, even when a new message brings the chat back.
    with on_site(site):
        conversation_delete(user=anna.user, conversation_id=with_carl.pk)
    assert island_props(client.get("/chats"))["lastOpened"]["conversation"] == with_ben.pk
    send(site, carl, anna, "back again")
    props = island_props(client.get("/chats"))
    assert with_carl.pk in [chat["conversation"] for chat in props["chats"]]
    assert props["lastOpened"]["conversation"] == with_ben.pk
    with on_site(site):
        conversation_delete(user=anna.user, conversation_id=with_ben.pk)
    assert client.get("/api/chats.php").json()["last_opened"] is None


def test_recording_is_one_update_and_the_list_no_extra_query(site, client_for, django_assert_num_queries, anna, ben):
    conversation, _ = send(site, anna, ben, "hi")
    with on_site(site), django_assert_num_queries(1 + SET_PATH):
        conversation_opened(user=anna.user, conversation_id=conversation.pk)
    with on_site(site), django_assert_num_queries(1 + SET_PATH):
        state = chats_state(user=anna.user)
    assert state["last_opened"]["conversation"] == conversation.pk

    client = logged_in(site, client_for, anna)
    client.get(f"/chats/{conversation.pk}")  # Warm the site and session caches.
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/chats/{conversation.pk}").status_code == 200
    updates = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "chat_participant"')]
    assert len(updates) == 1 and '"last_opened"' in updates[0]

    def count(client, path: str) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path).status_code == 200
        return len(queries)

    # The list runs as many queries with a last opened chat as without one.
    bens = logged_in(site, client_for, ben)
    count(bens, "/chats")  # Warm the caches.
    without = {path: count(bens, path) for path in ("/chats", "/api/chats.php")}
    bens.get(f"/chats/{conversation.pk}")
    assert island_props(bens.get("/chats"))["lastOpened"]["conversation"] == conversation.pk
    assert {path: count(bens, path) for path in ("/chats", "/api/chats.php")} == without


def test_the_api_answer_and_docs_agree(site, client_for, anna, ben):
    """docs/chat.md names the answer's keys."""
    from pathlib import Path

    send(site, anna, ben, "hi")
    body = logged_in(site, client_for, anna).get("/api/chats.php").json()
    assert set(body) == {"chats", "last_opened"}
    docs = (Path(__file__).resolve().parents[3] / "docs" / "chat.md").read_text()
    assert '"last_opened": {"conversation", "profile", "at"}' in docs
