"""The chat list, the history and the unread total run a fixed number of queries,
whatever their length (STYLE "Query counts do not grow with the number of rows")."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.chat.selectors import chats_state, conversation_history, unread_total
from apps.chat.tests.helpers import credits_give, member, send
from apps.profiles.tests.helpers_view import photos_add
from conftest import on_site

pytestmark = pytest.mark.django_db


# django-tenants sets the search path once per connection and schema
# (TENANT_LIMIT_SET_CALLS): at most one "SET search_path" comes on top.
SET_PATH = 1


@pytest.mark.parametrize("count", [1, 12])
def test_the_chat_list_is_one_query(site, django_assert_max_num_queries, count):
    me = member(site, "Me")
    for i in range(count):
        other = member(site, f"Other{i}")
        photos_add(site, other, 1)
        credits_give(site, other.user, 2)
        send(site, other, me, f"hello {i}")
    with on_site(site), django_assert_max_num_queries(1 + SET_PATH):
        chats = chats_state(user=me.user)["chats"]
    assert len(chats) == count
    assert all(chat["main_image"]["thumb_filename"] for chat in chats)
    # The match modal's picture, the photo itself, comes with the same query.
    assert all(
        chat["main_image"]["match_filename"].startswith("/media/photos/p")
        and "thumbs" not in chat["main_image"]["match_filename"]
        for chat in chats
    )


@pytest.mark.parametrize("count", [1, 30])
def test_the_history_is_two_queries(site, django_assert_max_num_queries, count):
    me, other = member(site, "Me"), member(site, "Other")
    photos_add(site, other, 1)
    credits_give(site, other.user, count)
    for i in range(count):
        conversation, _message = send(site, other, me, f"m{i}")
    with on_site(site), django_assert_max_num_queries(2 + SET_PATH):
        history = conversation_history(user=me.user, conversation_id=conversation.pk, limit=20)
    assert len(history["messages"]) == min(count, 20)
    main_image = history["conversation"]["profile"]["main_image"]
    assert main_image["thumb_filename"].startswith("/media/photos/thumbs/")
    assert main_image["match_filename"].startswith("/media/photos/p")


def test_the_unread_total_is_one_query_and_sums_the_open_chats(site, django_assert_max_num_queries):
    me = member(site, "Me")
    for i in range(3):
        other = member(site, f"Other{i}")
        credits_give(site, other.user, 2)
        send(site, other, me, "a")
        send(site, other, me, "b")
    with on_site(site), django_assert_max_num_queries(1 + SET_PATH):
        assert unread_total(user=me.user) == 6


def test_the_chats_api_runs_the_same_queries_for_few_and_many(site, client_for):
    from apps.profiles.tests.helpers_view import logged_in

    counts = []
    for size in (2, 9):
        me = member(site, f"Me{size}")
        for i in range(size):
            other = member(site, f"O{size}x{i}")
            photos_add(site, other, 1)
            credits_give(site, other.user, 2)
            send(site, other, me, "hi")
        client = logged_in(site, client_for, me)
        client.get("/api/chats.php")  # Warm the site and session caches alike.
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/api/chats.php")
        assert response.status_code == 200 and len(response.json()["chats"]) == size
        counts.append(len(queries))
    assert counts[0] == counts[1]
