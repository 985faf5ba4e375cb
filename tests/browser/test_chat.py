"""The chat in real browsers, at phone and desktop widths (issue 7 "Browser test"): two
members in two browser contexts like each other (a match), chat live over /ws/ (the list
and the top-bar badge update, typing, delivered and read ticks, HTML shown as text),
send a photo and a gift, run out of credits and get the credit alert, buy credits on the
sandbox and go on; then one blocks the other and the open conversation closes."""

import re
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from playwright.sync_api import expect

from apps.chat.models import Conversation
from apps.chat.tests.helpers import credits_give
from apps.payments.models import CreditPackage
from apps.profiles.tests.helpers import jpeg_upload
from conftest import on_site
from tests.browser.helpers import goto_past_the_match_modal, log_in, member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

HTML = '<b>bold</b> <img src=x onerror="window.__pwned=1"> <script>window.__pwned=1</script>'


def in_thread(fn):
    def run():
        try:
            return fn()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def conversation_of(site, a, b) -> int:
    def find() -> int:
        with on_site(site):
            low, high = sorted((a.pk, b.pk))
            return Conversation.objects.get(profile_low_id=low, profile_high_id=high).pk

    return in_thread(find)


def is_phone(page) -> bool:
    return page.viewport_size["width"] < 576


def send_text(page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()


def last_message(page, *, mine: bool):
    return page.locator(f'[data-testid="message"][data-mine="{str(mine).lower()}"]').last


def test_two_members_match_chat_run_out_buy_and_block(
    new_context, site, site_server, page, chromium, viewport, tmp_path
):
    a_email, a = member(site, "Writer")
    b_email, b = member(site, "Reader")
    # A text (1), a photo (2), a gift (3) and one more text (1): then A is out of credits.
    in_thread(lambda: credits_give(site, a.user, 7))
    in_thread(lambda: credits_give(site, b.user, 3))

    # They like each other: a match.
    log_in(page, site_server, a_email)
    page.goto(site_server.url("localhost", f"/members/{b.pk}"))
    page.get_by_test_id("profile-like").click()
    expect(page.get_by_test_id("profile-like-state")).to_have_text("Liked")

    other_context = new_context()
    other = other_context.new_page()
    other_errors: list[str] = []
    other.on("pageerror", lambda exc: other_errors.append(str(exc)))
    try:
        log_in(other, site_server, b_email)
        goto_past_the_match_modal(other, site_server.url("localhost", f"/members/{a.pk}"))
        other.get_by_test_id("profile-like").click()
        expect(other.get_by_test_id("profile-like-state")).to_have_text("It's a match!")

        # B waits on the (empty) conversation list.
        other.goto(site_server.url("localhost", "/chats"))
        expect(other.get_by_test_id("chat-empty")).to_be_visible()

        # A writes from B's profile: the empty conversation offers the icebreaker ("Break the ice").
        page.goto(site_server.url("localhost", f"/members/{b.pk}"))
        match_modal = page.get_by_test_id("match-modal")  # B's like, shown once
        expect(match_modal).to_be_visible()
        match_modal.click(position={"x": 5, "y": 5})  # a click anywhere closes it
        expect(match_modal).to_have_count(0)
        page.get_by_test_id("profile-message").click()
        page.wait_for_url(re.compile(r"/chats/\d+$"))
        conversation = conversation_of(site, a, b)
        assert page.url.endswith(f"/chats/{conversation}")
        expect(page.get_by_test_id("chat-header-name")).to_have_text(b.name)
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("7")
        icebreaker = page.get_by_test_id("chat-icebreaker")
        expect(icebreaker).to_have_count(0)  # not over the page: offered in the message area
        offer = page.get_by_test_id("chat-icebreaker-open")
        expect(page.get_by_test_id("chat-messages").get_by_role("button", name="Break the ice")).to_be_visible()
        offer.click()
        expect(icebreaker).to_be_visible()
        opener = page.get_by_test_id("icebreaker-opener").first
        opener_text = opener.inner_text().strip()
        assert b.name in opener_text
        opener.click()
        expect(icebreaker).to_have_count(0)
        expect(page.get_by_test_id("chat-input")).to_have_value(opener_text)
        expect(page.get_by_test_id("chat-input")).to_be_focused()
        # A writes HTML instead of the opener: it is sent and shown as text.
        send_text(page, HTML)
        mine = last_message(page, mine=True)
        expect(mine.get_by_test_id("message-text")).to_have_text(HTML)
        expect(mine.get_by_test_id("message-ticks")).to_have_attribute("data-state", re.compile("sent|delivered"))
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("6")
        expect(page.get_by_test_id("chat-icebreaker-offer")).to_have_count(0)  # the conversation has begun

        # B's list shows it live, with its unread count; so do the top bar and the title.
        item = other.get_by_test_id(f"chat-item-{conversation}")
        expect(item).to_be_visible()
        expect(other.get_by_test_id(f"chat-unread-{conversation}")).to_have_text("1")
        expect(item.get_by_test_id("chat-preview")).to_contain_text("<b>bold</b>")
        expect(other).to_have_title(re.compile(r"^\(1\) "))
        # The socket delivered it to B's device: A sees two ticks.
        expect(mine.get_by_test_id("message-ticks")).to_have_attribute("data-state", "delivered")

        # B opens it: shown as text, never as HTML; the unread count goes to 0; A sees "read".
        item.locator("a.chat-item-link").click()
        other.wait_for_url(f"**/chats/{conversation}")
        theirs = last_message(other, mine=False)
        expect(theirs.get_by_test_id("message-text")).to_have_text(HTML)
        assert theirs.locator("b, img, script").count() == 0
        assert other.evaluate("window.__pwned") is None
        expect(other.get_by_test_id("chat-icebreaker-offer")).to_have_count(0)  # not for a conversation with messages
        expect(other).not_to_have_title(re.compile(r"^\(\d+\) "))
        expect(mine.get_by_test_id("message-ticks")).to_have_attribute("data-state", "read")

        # B types: A sees it; B answers, A gets it live.
        other.get_by_test_id("chat-input").press_sequentially("Hi ")
        expect(page.get_by_test_id("chat-typing")).to_have_text(f"{b.name} is typing…")
        other.get_by_test_id("chat-input").press_sequentially("there!")
        other.get_by_test_id("chat-send").click()
        expect(last_message(page, mine=False).get_by_test_id("message-text")).to_have_text("Hi there!")
        expect(page.get_by_test_id("chat-typing")).to_have_count(0)

        # A sends a photo (2 credits) and a gift (3 credits); B sees both live.
        photo = tmp_path / "holiday.jpg"
        photo.write_bytes(jpeg_upload(800, 600).getvalue())
        page.get_by_test_id("chat-photo-input").set_input_files(str(photo))
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("4")
        received_photo = last_message(other, mine=False).get_by_test_id("message-photo")
        expect(received_photo).to_be_visible()
        expect(received_photo.locator("img")).to_have_attribute("src", re.compile(r"\.(webp|jpg|jpeg)$"))
        # The file is served to B (a member of the conversation) and shows.
        other.wait_for_function("() => document.querySelector('[data-testid=message-photo] img')?.naturalWidth > 0")

        page.get_by_test_id("chat-gift-button").click()
        gifts = page.get_by_test_id("chat-gifts")
        expect(gifts).to_be_visible()
        gifts.locator('[data-testid^="gift-"]').first.click()
        expect(gifts).to_have_count(0)
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("1")
        expect(last_message(other, mine=False).get_by_test_id("message-gift")).to_be_visible()

        # The last credit, then the credit alert; the message stays in the box.
        send_text(page, "One more")
        expect(last_message(other, mine=False).get_by_test_id("message-text")).to_have_text("One more")
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("0")
        send_text(page, "And another")
        alert = page.get_by_test_id("chat-credit-alert")
        expect(alert).to_contain_text("You do not have enough credits")
        expect(page.get_by_test_id("chat-input")).to_have_value("And another")
        other.wait_for_timeout(300)
        expect(other.get_by_test_id("message-text").filter(has_text="And another")).to_have_count(0)

        # Buy credits on the sandbox and go on.
        alert.get_by_test_id("chat-credit-link").click()
        page.wait_for_url("**/credits")
        twenty = CreditPackage.objects.get(site=site, credits=20).pk
        page.get_by_test_id(f"package-buy-{twenty}").click()
        page.get_by_test_id("method-visa").click()
        page.get_by_test_id("checkout-pay").click()
        page.wait_for_url(re.compile(r"/sandbox/checkout/"))
        page.get_by_test_id("sandbox-pay").click()
        expect(page.get_by_test_id("payment-completed")).to_be_visible(timeout=20_000)
        page.goto(site_server.url("localhost", f"/chats/{conversation}"))
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("20")
        expect(page.get_by_test_id("chat-input")).to_have_value("And another")  # the draft was kept
        page.get_by_test_id("chat-send").click()
        expect(last_message(other, mine=False).get_by_test_id("message-text")).to_have_text("And another")
        expect(page.get_by_test_id("chat-credits-count")).to_have_text("19")

        # B blocks A: A's open conversation closes at once.
        other.goto(site_server.url("localhost", f"/members/{a.pk}"))
        other.get_by_test_id("profile-block").click()
        expect(other.get_by_test_id("profile-blocked")).to_contain_text(f"You have blocked {a.name}.")
        expect(page.get_by_test_id("chat-closed")).to_be_visible()
        expect(page.get_by_test_id("chat-input")).to_be_disabled()
        # ... and the conversation is gone from B's list.
        other.goto(site_server.url("localhost", "/chats"))
        expect(other.get_by_test_id(f"chat-item-{conversation}")).to_have_count(0)
        assert not other_errors, other_errors
    finally:
        other_context.close()


def test_delete_a_chat_leaves_the_list_at_once(site, site_server, page, viewport):
    from apps.chat.tests.helpers import send

    a_email, a = member(site, "Deleter")
    _b_email, b = member(site, f"Talker{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, b.user, 5))
    in_thread(lambda: send(site, b, a, "Hello there"))
    conversation = conversation_of(site, a, b)

    log_in(page, site_server, a_email)
    page.goto(site_server.url("localhost", "/chats"))
    item = page.get_by_test_id(f"chat-item-{conversation}")
    expect(item.get_by_test_id("chat-preview")).to_have_text("Hello there")
    expect(page.get_by_test_id("badge-messages").first).to_have_text("1")

    # The server refuses the first delete: the alert shows its error and the list reloads.
    page.route(
        "**/api/chat.php",
        lambda route: (
            route.fulfill(
                status=503,
                content_type="application/json",
                body='{"error": {"code": "unavailable", "message": "Try again in a minute."}}',
            )
            if route.request.method == "DELETE"
            else route.continue_()
        ),
    )
    page.get_by_test_id(f"chat-delete-{conversation}").click()
    page.get_by_test_id("chat-delete-confirm").click()
    expect(page.get_by_test_id("chat-delete-error")).to_contain_text("Try again in a minute.")
    expect(item).to_be_visible()  # back after the reload
    page.unroute("**/api/chat.php")

    page.get_by_test_id(f"chat-delete-{conversation}").click()
    with page.expect_response(lambda r: r.url.endswith("/api/chat.php") and r.request.method == "DELETE") as deleted:
        page.get_by_test_id("chat-delete-confirm").click()
        expect(item).to_have_count(0)  # at once, before the server answers
        expect(page.get_by_test_id("chat-empty")).to_be_visible()
    assert deleted.value.ok
    page.reload()
    expect(page.get_by_test_id("chat-empty")).to_be_visible()


def _list_metrics(page) -> dict:
    return page.get_by_test_id("chat-messages").evaluate(
        "el => ({top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight,"
        " page: document.documentElement.scrollHeight, viewport: window.innerHeight})"
    )


def test_chat_cannot_be_scrolled_when_taller_than_the_screen(site, site_server, page, viewport):
    """Issue 13 item 8: a conversation taller than the screen scrolls inside its list, opens
    at the newest message, keeps the message box on screen and follows a new message."""
    from apps.chat.models import Message
    from apps.chat.services import message_send
    from apps.chat.tests.helpers import client_id, send
    from apps.profiles.tests.helpers import jpeg_upload
    from apps.tenants.models import Gift

    a_email, a = member(site, "Scroller")
    _b_email, b = member(site, f"Longtalker{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, a.user, 10))
    in_thread(lambda: credits_give(site, b.user, 200))

    def long_conversation() -> int:
        conversation, _message = send(site, b, a, "Message 0")
        with on_site(site):

            def more(**content) -> None:
                message_send(user=b.user, conversation_id=conversation.pk, client_id=client_id(), **content)

            for number in range(1, 40):
                more(text=f"Message {number}")
            more(photo=jpeg_upload(800, 1200))
            more(gift_id=Gift.objects.filter(site=site).order_by("position").first().pk)
            more(text="The newest one")
            assert Message.objects.filter(conversation=conversation).count() == 43
        return conversation.pk

    conversation = in_thread(long_conversation)
    log_in(page, site_server, a_email)
    # The photo arrives only after the list has opened at its end: the list grows above
    # the newest message and must stay at its end.
    held = []
    page.route("**/media/*/chat/**", lambda route: held.append(route))
    with page.expect_request(lambda request: "/chat/" in request.url and "/media/" in request.url):
        page.goto(site_server.url("localhost", f"/chats/{conversation}"))
    newest = page.get_by_test_id("message-text").filter(has_text="The newest one")
    expect(newest).to_be_in_viewport()
    for _ in range(100):  # the route's handler runs as Playwright reads its events
        if held:
            break
        page.evaluate("() => new Promise(requestAnimationFrame)")
    assert held, "the photo was not requested"
    for route in held:
        route.continue_()
    page.locator('[data-testid="message-photo"] img').evaluate("img => img.decode()")
    expect(newest).to_be_in_viewport()

    metrics = _list_metrics(page)
    assert metrics["page"] <= metrics["viewport"], metrics  # the page itself does not grow
    assert metrics["height"] > metrics["client"], metrics  # the list is taller than its box: it scrolls
    box = page.get_by_test_id("chat-input").bounding_box()
    assert box and box["y"] + box["height"] <= metrics["viewport"], (box, metrics)
    # At the newest message, also after the photo loaded.
    page.wait_for_function(
        "() => { const el = document.querySelector('[data-testid=chat-messages]');"
        " return el.scrollHeight - el.scrollTop - el.clientHeight <= 2; }"
    )

    # Scrolled up to read, the member stays where they are; the wheel scrolls the list.
    page.get_by_test_id("chat-messages").hover()
    page.mouse.wheel(0, -100000)
    expect(page.get_by_test_id("message-text").filter(has_text="Message 0")).to_be_in_viewport()
    expect(newest).not_to_be_in_viewport()
    expect(page.get_by_test_id("chat-input")).to_be_in_viewport()

    # Sending brings the newest message into view, with the box still on screen.
    send_text(page, "My answer")
    expect(last_message(page, mine=True).get_by_test_id("message-text")).to_have_text("My answer")
    expect(last_message(page, mine=True)).to_be_in_viewport()
    expect(page.get_by_test_id("chat-input")).to_be_in_viewport()


# The shown icons of the conversation (the back arrow is hidden beside the list) and their width.
ICONS_DRAWN = """() => [...document.querySelectorAll('[data-testid="chat-conversation"] svg[data-icon]')]
    .filter((svg) => svg.getClientRects().length)
    .map((svg) => [svg.dataset.icon, svg.querySelector("use").getBBox().width])"""


def test_the_conversations_icons_are_drawn_from_the_sprite(site, site_server, page, viewport):
    """The conversation's icons come from the icons' sprite (static/chat/icons.svg, an image,
    not script): each one is drawn (a use element that found nothing has no box), hidden
    from screen readers, and the buttons keep their names."""
    from apps.chat.tests.helpers import send

    a_email, a = member(site, "Iconic")
    _b_email, b = member(site, f"Sprite{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, a.user, 5))
    in_thread(lambda: send(site, a, b, "Hello from the sprite"))
    conversation = conversation_of(site, a, b)

    log_in(page, site_server, a_email)
    with page.expect_response(lambda r: r.url.endswith("/static/chat/icons.svg")) as sprite:
        page.goto(site_server.url("localhost", f"/chats/{conversation}"))
    assert sprite.value.ok and sprite.value.headers["content-type"].startswith("image/svg+xml")
    expect(page.get_by_test_id("message-ticks").first).to_be_visible()
    page.wait_for_function(f"() => ({ICONS_DRAWN})().every(([, width]) => width > 0)")
    drawn = dict(page.evaluate(ICONS_DRAWN))
    assert {"flag", "coins", "photo", "gift", "send"} <= set(drawn) and {"check", "checks"} & set(drawn), drawn
    assert page.locator("svg[data-icon]:not([aria-hidden='true'])").count() == 0
    expect(page.get_by_role("button", name=re.compile("^Send a photo"))).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("^Send a gift"))).to_be_visible()
    expect(page.get_by_test_id("chat-send")).to_have_attribute("aria-label", re.compile("^Send "))
