"""The chat pages (spec §2 chats, chats-id, members-id-chat): who may see what, what the
Chat island gets as props, and a fixed number of queries whatever the lengths."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.chat.models import Conversation
from apps.chat.tests.helpers import credits_give, member, send
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site

pytestmark = pytest.mark.django_db


def island_props(response) -> dict:
    body = response.content.decode()
    match = re.search(r'<script id="island-Chat-\d+-props" type="application/json">(.*?)</script>', body, re.S)
    assert match, "no Chat island on the page"
    return json.loads(match.group(1))


@pytest.fixture
def anna(site):
    anna = member(site, "Anna")
    credits_give(site, anna.user, 50)
    return anna


@pytest.fixture
def ben(site):
    return member(site, "Ben", gender="male")


def test_chats_lists_the_members_chats_newest_first(site, client_for, anna, ben):
    carl = member(site, "Carl", gender="male")
    first, _ = send(site, anna, ben, "to Ben")
    second, _ = send(site, anna, carl, "to Carl")
    response = logged_in(site, client_for, anna).get("/chats")
    assert response.status_code == 200
    assert 'class="d-flex flex-column min-vh-100 layout-chat chat-fullscreen"' in response.content.decode()
    props = island_props(response)
    assert props["view"] == "list"
    assert [c["conversation"] for c in props["chats"]] == [second.pk, first.pk]
    assert props["chats"][0]["last_message"]["text"] == "to Carl"
    assert props["history"] is None
    assert props["urls"]["chat"] == "/chats/{id}"
    assert props["urls"]["profile"] == "/members/{id}"
    assert props["messageLength"] == site.message_length
    assert props["costs"] == {"text": 1, "photo": 2, "gift": 3}
    assert props["costLabels"]["gift"] == "3 credits"
    assert props["credits"] == 48
    assert props["strings"]["noCredits"] == "You do not have enough credits"
    assert props["strings"]["premiumRequired"] == "This feature is only available for premium members."
    assert len(props["openers"]) >= 3


def test_the_chat_gets_the_members_locale_for_its_times(site, client_for, anna):
    """Language and country (apps.common.locale.locale_tag), as the page's <meta name="locale">."""
    brit = member(site, "Brit", user_fields={"country": "GB"})
    send(site, anna, brit, "Hello")
    props = island_props(logged_in(site, client_for, brit).get("/chats", HTTP_CF_IPCOUNTRY="US"))
    assert props["locale"] == "en-GB"


def test_chats_empty_state_and_visitors_go_to_login(site, client_for, anna):
    props = island_props(logged_in(site, client_for, anna).get("/chats"))
    assert props["chats"] == []
    assert props["urls"]["search"] == "/members"
    response = client_for(site).get("/chats")
    assert response.status_code == 302
    assert "/login" in response["Location"]


def test_a_conversation_page_is_the_members_own_only(site, client_for, anna, ben):
    conversation, message = send(site, anna, ben, "<b>hi</b>")
    props = island_props(logged_in(site, client_for, ben).get(f"/chats/{conversation.pk}"))
    assert props["view"] == "conversation"
    assert props["history"]["conversation"]["id"] == conversation.pk
    assert props["history"]["conversation"]["profile"]["id"] == anna.pk
    assert [(m["id"], m["text"], m["mine"]) for m in props["history"]["messages"]] == [(message.pk, "<b>hi</b>", False)]

    # The text is in the JSON props, never as markup on the page.
    body = logged_in(site, client_for, ben).get(f"/chats/{conversation.pk}").content.decode()
    assert "<b>hi</b>" not in body
    # The chat layout: the bottom bar (hidden by the island's view on phones), no template
    # comment left as text.
    assert 'data-testid="bottom-nav"' in body and "bottom-nav-static" in body
    assert "{#" not in body and "{% comment" not in body

    outsider = member(site, "Olga")
    assert logged_in(site, client_for, outsider).get(f"/chats/{conversation.pk}").status_code == 404
    assert logged_in(site, client_for, ben).get("/chats/999999").status_code == 404
    assert client_for(site).get(f"/chats/{conversation.pk}").status_code == 302


def test_the_list_page_loads_the_island_without_the_conversation(site, client_for, anna, ben):
    """/chats loads the Chat island's list entry (index.list.tsx), /chats/<id> the one with the
    conversation (index.tsx); both mount as "Chat" (docs/bench.md, js)."""
    from apps.common.islands import manifest

    islands = manifest()["islands"]
    conversation, _ = send(site, anna, ben, "hi")
    client = logged_in(site, client_for, ben)
    listing = client.get("/chats").content.decode()
    page = client.get(f"/chats/{conversation.pk}").content.decode()
    assert islands["Chat.list"]["file"] in listing and islands["Chat"]["file"] not in listing
    assert islands["Chat"]["file"] in page and islands["Chat.list"]["file"] not in page
    assert 'data-island="Chat"' in listing and 'data-island="Chat"' in page


def test_members_id_chat_opens_then_reuses_the_conversation(site, client_for, anna, ben):
    client = logged_in(site, client_for, anna)
    response = client.get(f"/members/{ben.pk}/chat")
    assert response.status_code == 302
    with on_site(site):
        conversation = Conversation.objects.get()
    assert response["Location"] == f"/chats/{conversation.pk}"
    again = client.get(f"/members/{ben.pk}/chat?gift=1")
    assert again["Location"] == f"/chats/{conversation.pk}?gift=1"
    with on_site(site):
        assert Conversation.objects.count() == 1
    # Ben reaches the same conversation from Anna's profile.
    assert logged_in(site, client_for, ben).get(f"/members/{anna.pk}/chat")["Location"] == f"/chats/{conversation.pk}"
    props = island_props(client.get(f"/chats/{conversation.pk}?gift=1"))
    assert props["openGifts"] is True
    assert props["history"]["messages"] == []


def test_members_id_chat_for_visitors_shows_the_login_message(site, client_for, ben):
    response = client_for(site).get(f"/members/{ben.pk}/chat")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-testid="chat-login-needed"' in body
    assert "Log in or sign up to send a message." in body
    assert f"/login?next=%2Fmembers%2F{ben.pk}%2Fchat" in body
    assert f"/members/{ben.pk}/signup" in body
    with on_site(site):
        assert not Conversation.objects.exists()


def test_a_free_members_third_conversation_shows_the_premium_alert(site, client_for, anna, ben):
    carl, dave = member(site, "Carl", gender="male"), member(site, "Dave", gender="male")
    send(site, anna, ben)
    send(site, anna, carl)
    response = logged_in(site, client_for, anna).get(f"/members/{dave.pk}/chat")
    assert response.status_code == 403
    body = response.content.decode()
    assert 'data-testid="chat-premium-alert"' in body
    assert "This feature is only available for premium members." in body
    assert 'href="/premium"' in body
    with on_site(site):
        assert Conversation.objects.count() == 2
    # A premium member may go on.
    with on_site(site):
        anna.user.paid_user = True
        anna.user.save(update_fields=["paid_user"])
    assert logged_in(site, client_for, anna).get(f"/members/{dave.pk}/chat").status_code == 302


def test_members_id_chat_unknown_profile_and_self(site, client_for, anna):
    client = logged_in(site, client_for, anna)
    assert client.get("/members/999999/chat").status_code == 404
    assert client.get(f"/members/{anna.pk}/chat").status_code == 400


def test_the_profile_page_message_button_opens_the_chat(site, client_for, anna, ben):
    body = logged_in(site, client_for, anna).get(f"/members/{ben.pk}").content.decode()
    assert f'href="/members/{ben.pk}/chat" data-testid="profile-message"' in body


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def test_query_counts_do_not_grow_with_chats_or_messages(site, client_for, anna, ben):
    client = logged_in(site, client_for, anna)
    conversation, _ = send(site, anna, ben, "one")
    _queries(client, "/chats")  # warm the site's caches
    few_list = _queries(client, "/chats")
    few_chat = _queries(client, f"/chats/{conversation.pk}")

    with on_site(site):
        anna.user.paid_user = True
        anna.user.save(update_fields=["paid_user"])
    for i in range(6):
        send(site, anna, member(site, f"Other{i}", gender="male"), f"hello {i}")
    for i in range(20):
        send(site, anna, ben, f"more {i}")
    assert _queries(client, "/chats") == few_list
    assert _queries(client, f"/chats/{conversation.pk}") == few_chat


def test_a_chat_photo_is_served_to_the_conversations_two_members_only(site, client_for, anna, ben):
    from apps.profiles.tests.helpers import jpeg_upload

    _conversation, message = send(site, anna, ben, "", photo=jpeg_upload())
    carl = member(site, "Carl", gender="male")
    for path in (message.photo.name, message.photo_thumb.name):
        url = f"/media/{path}"
        for who in (anna, ben):
            response = logged_in(site, client_for, who).get(url)
            assert response.status_code == 200, who
            assert response["Content-Type"] == "image/jpeg"
            assert response["Cache-Control"] == "private, max-age=86400"
            assert b"".join(response.streaming_content)[:2] == b"\xff\xd8"
        assert logged_in(site, client_for, carl).get(url).status_code == 404
        assert client_for(site).get(url).status_code == 404
    # Only this site's files, and no way out of its folder.
    assert logged_in(site, client_for, anna).get("/media/site_other/chat/x.jpg").status_code == 404
    assert logged_in(site, client_for, anna).get(f"/media/{site.schema_name}/chat/../photos/x.jpg").status_code == 404
