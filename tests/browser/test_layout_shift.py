"""Cumulative layout shift (CLS) on the members' busiest screens, at 390 and 1280 px:
search, a profile and the chats with a conversation open. A PerformanceObserver collects
the page's layout-shift entries (those after the member's own input excluded, as CLS
does); the sum must stay under 0.05. Islands mount into reserved space (skeletons) and
images carry their dimensions, so nothing jumps when they arrive."""

import uuid

import pytest
from playwright.sync_api import expect

from apps.chat.tests.helpers import credits_give, send
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

OBSERVER = """
window.__cls = 0;
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__cls += entry.value;
    window.__shifts.push({
      value: entry.value,
      sources: (entry.sources || []).map((s) => s.node ? (s.node.className || s.node.nodeName) + "" : "?"),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""

LIMIT = 0.05


def settled_cls(page, ready: str) -> float:
    """The page's CLS once `ready` (a test id) is visible and the network is quiet; two
    animation frames later, so shifts of the last paint are counted."""
    expect(page.get_by_test_id(ready).first).to_be_visible()
    page.wait_for_load_state("networkidle")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return page.evaluate("window.__cls")


def test_layout_shift_on_search_profile_and_chat(site, site_server, page, viewport):
    email, me = member(site, "Shift")
    _other_email, other = member(site, f"Talker{uuid.uuid4().hex[:4]}")
    in_thread(lambda: credits_give(site, other.user, 5))
    conversation, _message = in_thread(lambda: send(site, other, me, "Hello, how are you?"))
    log_in(page, site_server, email)
    page.add_init_script(OBSERVER)
    width = viewport["width"]
    for name, path, ready in [
        ("search", "/members", "search-count"),
        ("profile", f"/members/{other.pk}", "profile-name"),
        ("chat", f"/chats/{conversation.pk}", "chat-conversation"),
    ]:
        page.goto(site_server.url("localhost", path))
        cls = settled_cls(page, ready)
        print(f"CLS {name} @ {width} px: {cls:.4f}")
        assert cls < LIMIT, (name, width, cls, page.evaluate("window.__shifts"))
