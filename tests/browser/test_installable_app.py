"""The installable app and push in Debian's Chromium, at phone and desktop widths: the
manifest and its icons load (Chromium parses the manifest without errors); in standalone
mode the top bar's back button shows on the listed routes after navigating there and goes
back; a push delivered to the site's service worker (DevTools protocol) shows its
notification, reaches the page (NEW_PUSH_MESSAGE: the last message is stored), and a
click on it brings the page to the conversation, or refreshes the page already there."""

import json
import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from apps.chat.services import conversation_open
from conftest import on_site
from tests.browser.helpers import goto_past_the_match_modal
from tests.browser.test_accessibility import AXE_SOURCE, WCAG_TAGS, report
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def origin(server, host: str = "localhost") -> str:
    return server.url(host, "/").rstrip("/")


def log_in_by_cookie(context, server, committed, site, profile) -> None:
    """The member's session in this browser context (no login form, no entry warning).
    Tests ask for `committed` before the browser's fixtures: its clean-up (members and
    sessions deleted) then runs after the browser context is closed, not while its pages
    still call the site (a 403 logs the page out and reloads it, and closing a context in
    the middle of that hung now and then)."""
    key = committed.session(site, profile.user)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": server.url("localhost", "/")}])


def server_payload(site, me, bella, conversation: int) -> dict:
    """The push apps.notifications sends Me for Bella's first message (its content and
    payload code, as the sender uses them; the device's encryption is the push service's
    part, which the DevTools protocol stands in for)."""
    import uuid

    from django.utils import translation

    from apps.chat.services import message_send
    from apps.chat.tests.helpers import credits_give
    from apps.notifications.content import notice_content
    from apps.notifications.models import Notice
    from apps.notifications.sending import _badge, push_payload

    credits_give(site, bella.user, 10)
    with on_site(site), translation.override("en"):
        message, _created = message_send(
            user=bella.user, conversation_id=conversation, client_id=uuid.uuid4().hex, text="are you there?"
        )
        item = {"m": message.pk, "c": conversation, "p": bella.pk, "n": "Bella", "k": "text", "t": message.text}
        notice = Notice(pk=10**9, user=me.user, kind="new_conversations", channel="push", items=[item])
        return push_payload(site, notice, notice_content(notice), badge=_badge(notice))


def notice(conversation: int, **extra) -> dict:
    """The server's push payload (the contract of apps.notifications)."""
    return {
        "id": f"n-{conversation}",
        "kind": "new_messages",
        "title": "New message",
        "body": "Bella: are you there?",
        "url": f"/chats/{conversation}",
        "checkUrl": f"/chats/{conversation}",
        "tag": f"chat-{conversation}",
        "icon": "/icons/icon-192.png",
        "badgeIcon": "/icons/badge-96.png",
        "badge": 3,
        **extra,
    }


# --- Manifest and icons ------------------------------------------------------------------


@pytest.mark.parametrize(("host", "name"), [("localhost", "Heartline"), ("gay.localhost", "Manline")])
def test_the_manifest_is_linked_and_loads_with_its_icons(site_server, page, host, name):
    page.goto(site_server.url(host, "/"))
    link = page.locator('link[rel="manifest"]')
    expect(link).to_have_attribute("href", "/manifest.webmanifest")

    # Chromium itself fetches and parses the linked manifest.
    cdp = page.context.new_cdp_session(page)
    app = cdp.send("Page.getAppManifest")
    cdp.detach()
    assert app["url"] == site_server.url(host, "/manifest.webmanifest")
    assert app["errors"] == [], app["errors"]
    data = json.loads(app["data"])
    assert data["name"] == name
    assert data["display"] == "standalone"
    assert data["start_url"] == "/?source=pwa"

    # Every icon (the manifest's, the favicon, the home-screen one) loads as an image of its size.
    sources = [(icon["src"], int(icon["sizes"].split("x")[0])) for icon in data["icons"]]
    sources.append((page.locator('link[rel="icon"]').get_attribute("href"), 32))
    sources.append((page.locator('link[rel="apple-touch-icon"]').get_attribute("href"), 180))
    for src, size in sources:
        loaded = page.evaluate(
            """async (src) => {
                const img = new Image();
                img.src = src;
                await img.decode();
                return [img.naturalWidth, img.naturalHeight];
            }""",
            src,
        )
        assert loaded == [size, size], src
    expect(page.locator('meta[name="theme-color"]')).to_have_attribute("content", re.compile(r"^#[0-9a-f]{6}$"))

    # The start address is an ordinary visit of the home page.
    response = page.goto(site_server.url(host, data["start_url"]))
    assert response.status == 200
    expect(page.get_by_test_id("site-name")).to_have_text(name)


# --- Standalone mode: the back button ---------------------------------------------------------


# Chromium (156) ignores "display-mode" in the protocol's Emulation.setEmulatedMedia (it
# answers without error and matchMedia stays false; checked here on every run), so the
# installed app is emulated by answering that one media query "matches" before any of the
# page's scripts run. Init scripts are not subject to the page's CSP.
STANDALONE_INIT = """(() => {
  const original = window.matchMedia.bind(window);
  window.matchMedia = (query) => {
    if (String(query).replace(/\\s+/g, '') !== '(display-mode:standalone)') return original(query);
    const none = () => {};
    return {matches: true, media: query, onchange: null, addEventListener: none, removeEventListener: none,
            addListener: none, removeListener: none, dispatchEvent: () => false};
  };
})();"""


def standalone(page) -> None:
    """Emulates the installed app in this page (`display-mode: standalone`)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setEmulatedMedia", {"features": [{"name": "display-mode", "value": "standalone"}]})
    if page.evaluate("matchMedia('(display-mode: standalone)').matches"):
        return  # the session stays attached: its emulation ends with it
    cdp.detach()
    page.add_init_script(STANDALONE_INIT)


def test_the_back_button_shows_in_the_installed_app_on_listed_routes(
    committed, site, site_server, browser_context, page
):
    me = committed.member(site, "Appuser")
    other = committed.member(site, "Seen")
    log_in_by_cookie(browser_context, site_server, committed, site, me)
    standalone(page)
    back = page.get_by_test_id("topbar-back")

    goto_past_the_match_modal(page, site_server.url("localhost", "/members"))
    assert page.evaluate("matchMedia('(display-mode: standalone)').matches") is True
    expect(page.locator("body")).to_have_attribute("data-route", "members")
    expect(back).to_be_hidden()  # /members is not one of the routes

    goto_past_the_match_modal(page, site_server.url("localhost", f"/members/{other.pk}"))
    expect(page.locator("body")).to_have_attribute("data-route", "members-id")
    expect(back).to_be_visible()
    expect(back).to_have_accessible_name("Back")
    # Keyboard: it takes the focus and Enter goes back.
    back.focus()
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(site_server.url("localhost", "/members"))
    expect(back).to_be_hidden()

    # With a click too (forward again first).
    page.go_forward()
    page.wait_for_url(site_server.url("localhost", f"/members/{other.pk}"))
    expect(back).to_be_visible()
    back.click()
    page.wait_for_url(site_server.url("localhost", "/members"))


def test_no_back_button_in_a_browser_tab_or_on_the_first_page(committed, site, site_server, new_context):
    me = committed.member(site, "Tabuser")
    other = committed.member(site, "Other")
    # A browser tab, with history: no button.
    context = new_context()
    log_in_by_cookie(context, site_server, committed, site, me)
    page = context.new_page()
    goto_past_the_match_modal(page, site_server.url("localhost", "/members"))
    goto_past_the_match_modal(page, site_server.url("localhost", f"/members/{other.pk}"))
    assert page.evaluate("history.length") > 1
    expect(page.locator("body")).to_have_attribute("data-route", "members-id")
    expect(page.get_by_test_id("topbar-back")).to_be_hidden()

    # The installed app opened right on the profile (history 1, as when a notification
    # opens it there): no button either. The new tab's blank page is replaced, not kept
    # in the history.
    app = context.new_page()
    standalone(app)
    profile_url = site_server.url("localhost", f"/members/{other.pk}")
    # (Later, so that the evaluation has answered before the page goes away.)
    app.evaluate("(url) => { setTimeout(() => location.replace(url), 0); }", profile_url)
    app.wait_for_url(profile_url)
    expect(app.locator("body")).to_have_attribute("data-route", "members-id")
    assert app.evaluate("history.length") == 1
    assert app.evaluate("matchMedia('(display-mode: standalone)').matches") is True
    expect(app.get_by_test_id("topbar-back")).to_be_hidden()


# --- Push ----------------------------------------------------------------------------------


def pushed_and_bella(committed, site):
    """A member ("Pushed") and Bella, with the conversation Pushed opened with her (its id)."""
    me = committed.member(site, "Pushed")
    bella = committed.member(site, "Bella")

    def open_conversation() -> int:
        with on_site(site):
            return conversation_open(user=me.user, profile_id=bella.pk).pk

    return me, bella, in_thread(open_conversation)


def test_a_push_shows_its_notification_tells_the_page_and_a_click_opens_the_conversation(
    committed, site, site_server, browser_context, page
):
    me, bella, conversation = pushed_and_bella(committed, site)
    first_push = in_thread(server_payload, site, me, bella, conversation)
    log_in_by_cookie(browser_context, site_server, committed, site, me)
    browser_context.grant_permissions(["notifications"], origin=origin(site_server))
    goto_past_the_match_modal(page, site_server.url("localhost", "/members"))
    cdp, worker, deliver = push_worker(browser_context, page, site_server)

    # The member looks at another tab: the site's page has no focus, so the worker shows
    # OS notifications (with a focused page of the site it leaves them to the page, see
    # test_a_push_to_the_page_in_front_shows_in_the_page_once).
    elsewhere = browser_context.new_page()
    look_away(cdp, page, worker, elsewhere)

    # The push the server makes for Bella's message: a notification with its title, body
    # and tag, and the page hears of it.
    assert first_push["title"] == "Bella started a conversation with you" and first_push["badge"] == 1
    page.evaluate("sessionStorage.removeItem('push-last-message')")
    deliver(first_push)
    page.wait_for_function(
        """async ([tag, title]) => {
            const registration = await navigator.serviceWorker.ready;
            const shown = await registration.getNotifications({tag});
            return shown.length === 1 && shown[0].title === title && shown[0].body === 'Bella: are you there?';
        }""",
        arg=[f"chat-{conversation}", first_push["title"]],
    )
    page.wait_for_function(
        "(id) => { const m = JSON.parse(sessionStorage.getItem('push-last-message') || 'null');"
        " return !!m && m.id === id && m.kind === 'new_conversations' && typeof m.at === 'number'; }",
        arg=first_push["id"],
    )
    data = page.evaluate(
        """async (tag) => {
            const [n] = await (await navigator.serviceWorker.ready).getNotifications({tag});
            return n.data;
        }""",
        f"chat-{conversation}",
    )
    assert data == {
        "url": site_server.url("localhost", f"/chats/{conversation}"),
        "checkUrl": site_server.url("localhost", f"/chats/{conversation}"),
        "id": first_push["id"],
        "kind": "new_conversations",
    }

    # A newer notice with the same tag replaces the older one.
    deliver(notice(conversation, id="n-second", body="Bella: hello?"))
    page.wait_for_function(
        """async (tag) => {
            const shown = await (await navigator.serviceWorker.ready).getNotifications({tag});
            return shown.length === 1 && shown[0].body === 'Bella: hello?';
        }""",
        arg=f"chat-{conversation}",
    )

    # A click on it (a real NotificationEvent in the worker): this tab goes to the conversation.
    click = """async (tag) => {
        const [notification] = await self.registration.getNotifications({tag});
        self.dispatchEvent(new NotificationEvent('notificationclick', {notification}));
        return true;
    }"""
    worker.evaluate(click, f"chat-{conversation}")
    page.wait_for_url(site_server.url("localhost", f"/chats/{conversation}"))
    expect(page.get_by_test_id("chat-app")).to_be_visible()

    # On that page already: a click refreshes it instead of loading it again. (The click
    # focused the page: the member looks away again first.)
    look_away(cdp, page, worker, elsewhere)
    deliver(notice(conversation, id="n-third"))
    page.wait_for_function(
        "() => (JSON.parse(sessionStorage.getItem('push-last-message') || 'null') || {}).id === 'n-third'"
    )
    page.evaluate(
        """() => {
            window.__sameDocument = true;
            window.__refreshes = [];
            addEventListener('push-message', (event) => window.__refreshes.push(event.detail));
        }"""
    )
    worker.evaluate(click, f"chat-{conversation}")
    page.wait_for_function("() => window.__refreshes.length === 1")
    assert page.evaluate("window.__refreshes") == [{"checkUrl": site_server.url("localhost", f"/chats/{conversation}")}]
    assert page.evaluate("window.__sameDocument") is True
    assert page.url == site_server.url("localhost", f"/chats/{conversation}")
    # The click closed the notification.
    page.wait_for_function(
        "async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({tag})).length === 0",
        arg=f"chat-{conversation}",
    )
    # No notice in the page for a push the OS showed.
    expect(page.get_by_test_id("push-notice")).to_have_count(0)
    elsewhere.close()
    cdp.send("ServiceWorker.disable")
    cdp.detach()


def test_a_push_to_the_page_in_front_shows_in_the_page_once(
    committed, site, site_server, browser_context, page, viewport
):
    """The member looks at the site: no OS notification, the page shows the push as a notice
    (lib/pushNotice.ts) with its title, body, an Open link and a Close button reachable by
    keyboard; a redelivery of the same push, also after a reload, shows nothing; a newer one
    shows; on the push's own page nothing shows (the conversation has the message)."""
    me, _bella, conversation = pushed_and_bella(committed, site)
    log_in_by_cookie(browser_context, site_server, committed, site, me)
    browser_context.grant_permissions(["notifications"], origin=origin(site_server))
    goto_past_the_match_modal(page, site_server.url("localhost", "/likes"))
    cdp, worker, deliver = push_worker(browser_context, page, site_server)
    page.bring_to_front()
    wait_for_window(worker, focused=True)

    count_notices = """() => {
        window.__notices = [];
        new MutationObserver((records) => {
            for (const r of records) for (const n of r.addedNodes) window.__notices.push(n.textContent);
        }).observe(document.querySelector('[data-push-notices]'), {childList: true});
    }"""
    page.evaluate(count_notices)
    deliver(notice(conversation, id="n-1", title="Bella wrote", body="Bella: are you there?"))
    shown = page.get_by_test_id("push-notice")
    expect(shown).to_be_visible()
    expect(shown).to_contain_text("Bella wrote")
    expect(shown).to_contain_text("Bella: are you there?")
    expect(page.get_by_test_id("push-notices")).to_have_attribute("role", "status")
    open_link = page.get_by_test_id("push-notice-open")
    expect(open_link).to_have_text("Open")
    expect(open_link).to_have_attribute("href", site_server.url("localhost", f"/chats/{conversation}"))
    expect(page.get_by_test_id("push-notice-close")).to_have_attribute("aria-label", "Close")
    # axe (WCAG 2.2 A and AA) finds nothing in it.
    page.evaluate(f"() => {{ {AXE_SOURCE}\n; window.axe = axe; }}")
    violations = page.evaluate(
        "async (tags) => (await window.axe.run(document.querySelector('[data-push-notices]'),"
        " {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})).violations",
        WCAG_TAGS,
    )
    assert not violations, report(violations)
    # It did not take the focus, and no OS notification doubles it.
    assert page.evaluate("document.activeElement === document.body")
    assert page.evaluate("async () => (await (await navigator.serviceWorker.ready).getNotifications()).length") == 0
    # On the screen at the top, clear of the bottom bar and of a conversation's message box.
    box = shown.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
    assert box["y"] + box["height"] < viewport["height"] / 3, box

    # After a reload the same push (push services deliver again) shows nothing; a newer one
    # does. (The newer one is the check that the older one has been dealt with.)
    page.reload()
    wait_for_window(worker, focused=True)
    page.evaluate(count_notices)
    deliver(notice(conversation, id="n-1", title="Again"))
    deliver(notice(conversation, id="n-2", title="Newer"))
    expect(shown).to_contain_text("Newer")
    assert page.evaluate("window.__notices.length") == 1, page.evaluate("window.__notices")
    assert page.evaluate("async () => (await (await navigator.serviceWorker.ready).getNotifications()).length") == 0

    # Keyboard: Tab from its Open link reaches Close, Enter closes it; the focus moves on to
    # the main content instead of being lost.
    open_link.focus()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("push-notice-close")).to_be_focused()
    page.keyboard.press("Enter")
    expect(shown).to_have_count(0)
    expect(page.locator("#main")).to_be_focused()
    # Escape closes it too.
    deliver(notice(conversation, id="n-3", title="Third"))
    expect(shown).to_contain_text("Third")
    open_link.focus()
    page.keyboard.press("Escape")
    expect(shown).to_have_count(0)

    # On the push's own page (the conversation) nothing shows: the message is there.
    page.goto(site_server.url("localhost", f"/chats/{conversation}"))
    expect(page.get_by_test_id("chat-app")).to_be_visible()
    wait_for_window(worker, focused=True)
    page.evaluate(count_notices)
    deliver(notice(conversation, id="n-4", title="Here"))
    deliver(notice(conversation, id="n-5", title="Likes", url="/likes", checkUrl="/likes"))
    expect(shown).to_contain_text("Likes")
    assert page.evaluate("window.__notices.length") == 1, page.evaluate("window.__notices")
    cdp.send("ServiceWorker.disable")
    cdp.detach()


def push_worker(browser_context, page, site_server):
    """The site's worker, registered as the page's own code does (lib/push.ts); returns the
    DevTools session, the worker and deliver(payload), which hands it a push as the push
    service would."""
    cdp = browser_context.new_cdp_session(page)
    registrations: dict[str, dict] = {}
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.update({r["registrationId"]: r for r in event["registrations"]}),
    )
    cdp.send("ServiceWorker.enable")
    with browser_context.expect_event("serviceworker") as worker_info:
        page.evaluate("navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => true)")
    worker = worker_info.value
    page.wait_for_function("() => navigator.serviceWorker.ready.then((r) => !!r.active)")
    # The registration's id comes with the protocol's events (one more round trip lets
    # the last of them arrive).
    page.wait_for_function("() => true")
    ours = [
        r for r in registrations.values() if r["scopeURL"] == site_server.url("localhost", "/") and not r["isDeleted"]
    ]
    assert len(ours) == 1, registrations
    registration_id = ours[0]["registrationId"]

    def deliver(payload: dict) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": origin(site_server), "registrationId": registration_id, "data": json.dumps(payload)},
        )

    return cdp, worker, deliver


def wait_for_window(worker, focused: bool) -> None:
    """Until the worker sees a focused, visible window of the site (focused=True) or none
    (what sw/handlers.ts pageShowsPush asks)."""
    worker.evaluate(
        """async (focused) => {
            for (;;) {
                const all = await clients.matchAll({type: 'window', includeUncontrolled: true});
                const any = all.some((c) => c.focused && c.visibilityState === 'visible');
                if (any === focused) return true;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
        }""",
        focused,
    )


def look_away(cdp, page, worker, elsewhere) -> None:
    """The member looks at another tab (about:blank): Playwright's headless pages all count
    as focused (its focus emulation), so the site's page stops emulating it and the other
    tab comes to the front."""
    cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": False})
    elsewhere.bring_to_front()
    page.wait_for_function("() => !document.hasFocus()")
    wait_for_window(worker, focused=False)


# --- The "enable push" alert -------------------------------------------------------------------


def test_the_enable_push_alert_shows_where_push_can_be_had_and_stays_dismissed(
    committed, site, site_server, browser_context, page
):
    me = committed.member(site, "Alerted")

    def photo_alert_dismissed() -> None:  # the push alert waits for a page without another alert
        from django.utils import timezone

        from apps.accounts.models import User

        with on_site(site):
            User.objects.filter(pk=me.user_id).update(dismissals={"profile_photo": timezone.now().isoformat()})

    in_thread(photo_alert_dismissed)
    log_in_by_cookie(browser_context, site_server, committed, site, me)
    goto_past_the_match_modal(page, site_server.url("localhost", "/members"))
    # Rendered hidden; shown by the page's script (Chromium can do push, not refused, no
    # subscription yet).
    alert = page.get_by_test_id("enable-push-alert")
    expect(alert).to_be_visible()
    expect(alert.get_by_role("button", name="Turn on notifications")).to_be_visible()
    expect(page.get_by_test_id("enable-push-status")).to_have_attribute("aria-live", "polite")

    with page.expect_response(lambda r: r.url.endswith("/api/dismiss.php") and r.request.method == "POST") as answer:
        alert.get_by_role("button", name="Close").click()
    assert answer.value.status == 200
    expect(alert).to_have_count(0)
    goto_past_the_match_modal(page, site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("topbar-account")).to_be_visible()  # still logged in
    expect(page.get_by_test_id("enable-push-alert")).to_have_count(0)
