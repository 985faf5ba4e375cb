"""The phones' bottom bar (templates/partials/bottom_nav.html) at 390 px: the members' main
navigation with its badges (kept live like the top bar's), the current page marked, touch
targets of at least 44 px, visible labels, and no page content hidden under it."""

import uuid

import pytest
from playwright.sync_api import expect

from apps.chat.tests.helpers import credits_give, send
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

phone_only = pytest.mark.parametrize("viewport", ["phone"], indirect=True)


@phone_only
def test_the_bottom_bar_replaces_the_top_bar_links_on_phones(site, site_server, page, viewport):
    email, _me = member(site, "Bottom")
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", "/members"))
    bar = page.get_by_test_id("bottom-nav")
    expect(bar).to_be_visible()
    # The top bar keeps the logo and the account menu; its links are the bottom bar's now.
    expect(page.get_by_test_id("site-name")).to_be_visible()
    expect(page.get_by_test_id("topbar-account")).to_be_visible()
    expect(page.get_by_test_id("topbar-members")).to_be_hidden()

    # Fixed to the bottom of the screen.
    box = bar.bounding_box()
    assert abs(box["y"] + box["height"] - viewport["height"]) <= 1, box
    assert box["width"] == viewport["width"]

    labels = {
        "bottom-nav-search": "Search",
        "bottom-nav-swipe": "Swipe game",
        "bottom-nav-likes": "Likes",
        "bottom-nav-messages": "Messages",
        "bottom-nav-credits": "Premium",
    }
    for testid, label in labels.items():
        link = page.get_by_test_id(testid)
        expect(link).to_contain_text(label)
        expect(link.locator(".bottom-nav-label")).to_be_visible()
        size = link.bounding_box()
        assert size["width"] >= 44 and size["height"] >= 44, (testid, size)
    expect(page.get_by_test_id("bottom-nav-search")).to_have_attribute("aria-current", "page")
    assert bar.locator("[aria-current]").count() == 1

    # A new member has no credits: the danger badge (spec §2), on the Premium item.
    expect(page.get_by_test_id("bottom-badge-credits")).to_have_text("0")
    expect(page.get_by_test_id("bottom-badge-credits")).to_have_class(
        "badge rounded-pill bottom-nav-badge text-bg-danger"
    )
    expect(page.get_by_test_id("bottom-badge-messages")).to_be_hidden()

    # The swipe game from the navigation; it becomes the current page.
    page.get_by_test_id("bottom-nav-swipe").click()
    page.wait_for_url("**/swipe-game")
    expect(page.get_by_test_id("bottom-nav-swipe")).to_have_attribute("aria-current", "page")
    expect(page.get_by_test_id("bottom-nav-search")).not_to_have_attribute("aria-current", "page")
    # No word is cut, the current one in bold included.
    cut = page.evaluate(
        "[...document.querySelectorAll('.bottom-nav-label')].filter((l) => l.scrollWidth > l.clientWidth)"
        ".map((l) => l.textContent)"
    )
    assert cut == [], cut


@phone_only
def test_nothing_is_hidden_under_the_bar(site, site_server, page, viewport):
    email, _me = member(site, "Under")
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", "/pages/faq"))
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    footer_bottom = page.evaluate(
        "Math.max(...[...document.querySelectorAll('footer *')].map((el) => el.getBoundingClientRect().bottom))"
    )
    bar_top = page.get_by_test_id("bottom-nav").bounding_box()["y"]
    assert footer_bottom <= bar_top + 0.5, (footer_bottom, bar_top)


@phone_only
def test_the_messages_badge_updates_live(site, site_server, page, viewport):
    email, me = member(site, "Live")
    _other_email, other = member(site, f"Sender{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, other.user, 5))
    log_in(page, site_server, email)
    with page.expect_websocket():
        page.goto(site_server.url("localhost", "/likes"))
    expect(page.get_by_test_id("bottom-nav-likes")).to_have_attribute("aria-current", "page")
    badge = page.get_by_test_id("bottom-badge-messages")
    expect(badge).to_be_hidden()
    in_thread(lambda: send(site, other, me, "Hello from below"))
    # Over the socket, or at the latest with the first refresh (5 s, spec §9).
    expect(badge).to_have_text("1", timeout=15_000)
    expect(badge).to_be_visible()
    page.get_by_test_id("bottom-nav-messages").click()
    page.wait_for_url("**/chats")
    expect(page.get_by_test_id("bottom-nav-messages")).to_have_attribute("aria-current", "page")


@phone_only
def test_the_bar_comes_back_with_the_chat_list(site, site_server, page, viewport):
    """An open conversation has the screen to itself; its back arrow shows the list in place
    (no reload) and the bar with it; the browser's back goes to the conversation again."""
    email, me = member(site, "Back")
    _other_email, other = member(site, f"Writer{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, other.user, 5))
    conversation, _message = in_thread(lambda: send(site, other, me, "Back and forth"))
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", f"/chats/{conversation.pk}"))
    expect(page.get_by_test_id("chat-conversation")).to_be_visible()
    bar = page.get_by_test_id("bottom-nav")
    expect(bar).to_be_hidden()
    page.evaluate("window.__samePage = true")

    page.get_by_test_id("chat-back").click()
    page.wait_for_url("**/chats")
    expect(page.get_by_test_id(f"chat-item-{conversation.pk}")).to_be_visible()
    expect(page.get_by_test_id("chat-conversation")).to_have_count(0)
    expect(bar).to_be_visible()
    assert page.evaluate("window.__samePage === true"), "the list was loaded again"
    assert page.title().startswith("Messages | ")
    box = bar.bounding_box()
    assert abs(box["y"] + box["height"] - viewport["height"]) <= 1, box
    expect(page.get_by_test_id("bottom-nav-messages")).to_have_attribute("aria-current", "page")

    # The browser's back: the conversation again, without the bar.
    page.go_back()
    page.wait_for_url(f"**/chats/{conversation.pk}")
    expect(page.get_by_test_id("chat-conversation")).to_be_visible()
    expect(bar).to_be_hidden()
    # The list page itself shows the bar.
    page.goto(site_server.url("localhost", "/chats"))
    expect(bar).to_be_visible()


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_the_top_bar_badges_follow_their_words_on_desktop(site, site_server, page, viewport):
    email, me = member(site, "Wide")
    _other_email, other = member(site, f"Note{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, other.user, 5))
    in_thread(lambda: send(site, other, me, "Hi there"))
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("bottom-nav")).to_be_hidden()
    badge = page.get_by_test_id("badge-messages")
    expect(badge).to_have_text("1")
    word = page.get_by_test_id("topbar-messages").locator("span", has_text="Messages")
    word_box, badge_box = word.bounding_box(), badge.bounding_box()
    assert badge_box["x"] >= word_box["x"] + word_box["width"], (word_box, badge_box)
