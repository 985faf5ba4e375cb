"""The member's last opened chat (spec §3; docs/chat.md): on a wide screen (1280 px, the
chat's two panes) /chats opens the conversation the member opened last; when that chat is
gone (deleted, blocked) the list shows as before; on a phone (390 px) /chats stays the
list."""

import re
import uuid

import pytest
from playwright.sync_api import expect

from apps.chat.services import conversation_delete
from apps.chat.tests.helpers import credits_give, send
from apps.profiles.models import Block
from conftest import on_site
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def writers(site, me, count: int, committed=None) -> list[tuple[object, int]]:
    """`count` members who each wrote to `me`: [(profile, conversation id)], oldest first;
    with `committed`, deleted again (with their conversations) after the test."""
    found = []
    for i in range(count):
        _email, other = member(site, f"Writer{i}{uuid.uuid4().hex[:4]}")
        if committed is not None:
            committed.made.append((site, other.user_id))
        in_thread(lambda other=other: credits_give(site, other.user, 5))
        conversation, _message = in_thread(lambda other=other, i=i: send(site, other, me, f"Hello {i}"))
        found.append((other, conversation.pk))
    return found


def stays_on_the_list(page, conversation: int) -> None:
    """/chats shows the list and stays there: after the island's first render (a click on
    a delete button shows its confirmation) no conversation page was asked for."""
    expect(page.get_by_test_id(f"chat-item-{conversation}")).to_be_visible()
    page.get_by_test_id(f"chat-delete-{conversation}").click()
    expect(page.get_by_test_id("chat-delete-confirm")).to_be_visible()
    page.get_by_test_id(f"chat-item-{conversation}").get_by_role("button", name="Cancel").click()
    assert page.url.endswith("/chats"), page.url


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_a_wide_chats_page_opens_the_last_opened_conversation(committed, site, site_server, page, viewport):
    email, me = member(site, "Reader")
    committed.made.append((site, me.user_id))
    (ben, with_ben), (carl, with_carl), (_dora, with_dora) = writers(site, me, 3, committed)
    log_in(page, site_server, email)

    # Nothing opened yet: the list and "Choose a conversation" beside it.
    page.goto(site_server.url("localhost", "/chats"))
    expect(page.get_by_test_id("chat-placeholder")).to_be_visible()
    stays_on_the_list(page, with_dora)

    # Open Ben's, then Carl's conversation, go elsewhere, come back to /chats: Carl's opens.
    page.goto(site_server.url("localhost", f"/chats/{with_ben}"))
    expect(page.get_by_test_id("chat-header-name")).to_have_text(ben.name)
    page.get_by_test_id(f"chat-item-{with_carl}").locator("a").click()
    page.wait_for_url(f"**/chats/{with_carl}")
    expect(page.get_by_test_id("chat-header-name")).to_have_text(carl.name)
    page.goto(site_server.url("localhost", "/members"))
    page.goto(site_server.url("localhost", "/chats"))
    page.wait_for_url(f"**/chats/{with_carl}")
    expect(page.get_by_test_id("chat-header-name")).to_have_text(carl.name)
    expect(page.get_by_test_id(f"chat-item-{with_carl}")).to_have_class(re.compile(r"\bactive\b"))
    # The address was replaced: back goes to the page before /chats.
    page.go_back()
    page.wait_for_url("**/members")

    # Carl's chat deleted: the one opened before it (Ben's) opens.
    in_thread(lambda: _on(site, lambda: conversation_delete(user=me.user, conversation_id=with_carl)))
    page.goto(site_server.url("localhost", "/chats"))
    page.wait_for_url(f"**/chats/{with_ben}")
    expect(page.get_by_test_id("chat-header-name")).to_have_text(ben.name)

    # Ben blocked too: no opened chat is left, the list shows as before.
    in_thread(lambda: _on(site, lambda: Block.objects.create(blocker=me.user, blocked=ben)))
    page.goto(site_server.url("localhost", "/chats"))
    expect(page.get_by_test_id("chat-placeholder")).to_be_visible()
    expect(page.get_by_test_id(f"chat-item-{with_ben}")).to_have_count(0)
    stays_on_the_list(page, with_dora)


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_a_phone_chats_page_stays_the_list(committed, site, site_server, page, viewport):
    email, me = member(site, "Phone")
    committed.made.append((site, me.user_id))
    [(other, conversation)] = writers(site, me, 1, committed)
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", f"/chats/{conversation}"))
    expect(page.get_by_test_id("chat-header-name")).to_have_text(other.name)
    page.goto(site_server.url("localhost", "/members"))
    page.goto(site_server.url("localhost", "/chats"))
    expect(page.get_by_test_id("chat-list")).to_be_visible()
    expect(page.get_by_test_id("chat-conversation")).to_have_count(0)
    stays_on_the_list(page, conversation)


def _on(site, fn):
    with on_site(site):
        return fn()
