"""Report a message, in a real browser at phone and desktop widths, as a member would: Sam
writes to Rita; Rita opens the conversation, reaches "Report" on Sam's message with the
keyboard, the dialog (the islands' one Dialog) asks for a reason first, then takes the
reason, a text and "also block"; the report lands in the complaints queue naming the
message, the conversation closes, and axe finds nothing with the dialog open."""

import pytest
from playwright.sync_api import expect

from apps.chat.tests.helpers import credits_give, send
from apps.moderation.models import ComplaintCase
from apps.profiles.models import Block, Complaint
from conftest import csp_violations, on_site
from tests.browser.helpers import log_in, member
from tests.browser.test_accessibility import assert_accessible, track_requests
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_report_message(site, site_server, page, browser_context):
    rita_email, rita = member(site, "Rita")
    _sam_email, sam = member(site, "Sam")
    in_thread(lambda: credits_give(site, sam.user, 5))
    conversation, message = in_thread(lambda: send(site, sam, rita, text="Send me 200 euro by Western Union"))
    violations = csp_violations(browser_context)
    track_requests(page)

    log_in(page, site_server, rita_email)
    page.goto(site_server.url("localhost", f"/chats/{conversation.pk}"))
    theirs = page.locator('[data-testid="message"][data-mine="false"]').last
    expect(theirs.get_by_test_id("message-text")).to_have_text("Send me 200 euro by Western Union")
    # Only the incoming message carries "Report"; the keyboard reaches it.
    report = theirs.get_by_role("button", name="Report this message")
    # A control that looks like one (an outlined button with a flag and its word), at
    # least 44 px square to touch.
    expect(report).to_contain_text("Report")
    looks = report.evaluate(
        """el => { const s = getComputedStyle(el), box = el.getBoundingClientRect();
            return {width: box.width, height: box.height, border: s.borderTopStyle, borderWidth: s.borderTopWidth,
                    icon: !!el.querySelector("svg"), underline: s.textDecorationLine}; }"""
    )
    assert looks["width"] >= 44 and looks["height"] >= 44, looks
    assert looks["border"] == "solid" and looks["borderWidth"] != "0px" and looks["icon"], looks
    assert looks["underline"] == "none", looks
    page.screenshot(path=f"/tmp/gaps-report-{page.viewport_size['width']}.png")
    report.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("chat-report")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("chat-report-excerpt")).to_have_text("Send me 200 euro by Western Union")
    assert_accessible(page, f"report dialog {page.viewport_size['width']}")

    # The reasons' radio buttons are 1.25em, not Bootstrap's 1em; on a phone each row is
    # a 44 px target (the label checks it).
    radio = dialog.get_by_label("Asks for money or is a scam")
    size = radio.evaluate("el => [el.getBoundingClientRect().width, parseFloat(getComputedStyle(el).fontSize)]")
    assert size[0] >= 1.25 * size[1] - 0.5, size
    if page.viewport_size["width"] < 768:
        row = radio.locator("xpath=..").bounding_box()
        assert row["height"] >= 44, row
    page.screenshot(path=f"/tmp/gaps-report-dialog-{page.viewport_size['width']}.png")

    dialog.get_by_test_id("chat-report-send").click()
    expect(dialog.get_by_test_id("chat-report-error")).to_have_text("Choose a reason.")
    dialog.get_by_label("Asks for money or is a scam").check()
    dialog.get_by_label("What happened? (optional)").fill("Wants money before we ever met.")
    dialog.get_by_label(f"Also block {sam.name}").check()
    dialog.get_by_test_id("chat-report-send").click()
    expect(dialog.get_by_test_id("chat-report-done")).to_contain_text("received your report")
    expect(page.get_by_test_id("chat-closed")).to_be_visible()
    dialog.get_by_test_id("chat-report-close").click()
    expect(dialog).to_have_count(0)
    expect(report).to_be_focused()
    assert violations == []

    def stored():
        with on_site(site):
            complaint = Complaint.objects.get(reporter=rita.user)
            blocked = Block.objects.filter(blocker=rita.user, blocked=sam).exists()
        from django.db import connection

        connection.set_schema_to_public()
        case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
        return complaint, blocked, case

    complaint, blocked, case = in_thread(stored)
    assert (complaint.reason, complaint.text, complaint.message_id, complaint.profile_id) == (
        "scam",
        "Wants money before we ever met.",
        message.pk,
        sam.pk,
    )
    assert blocked
    assert (case.message_id, case.member_id) == (message.pk, sam.user_id)


def test_report_dialog_close_button_keeps_its_focus_ring_inside(site, site_server, page):
    """The dialog's close button reaches into the header's padding but not to the dialog's
    edge: its focus ring (Bootstrap's, 0.25rem) shows whole, on the phone's bottom sheet
    whose edge is the screen's too."""
    rita_email, rita = member(site, "Rita")
    _sam_email, sam = member(site, "Sam")
    in_thread(lambda: credits_give(site, sam.user, 5))
    conversation, _message = in_thread(lambda: send(site, sam, rita, text="Hello there"))
    log_in(page, site_server, rita_email)
    page.goto(site_server.url("localhost", f"/chats/{conversation.pk}"))
    theirs = page.locator('[data-testid="message"][data-mine="false"]').last
    theirs.get_by_role("button", name="Report this message").click()
    dialog = page.get_by_test_id("chat-report")
    expect(dialog).to_be_visible()
    # Measured once the opening animation (a scale) has ended.
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    close = dialog.get_by_role("button", name="Close")
    close.focus()
    expect(close).to_be_focused()
    gap = close.evaluate(
        """button => {
            const box = button.getBoundingClientRect();
            const sheet = button.closest("dialog").getBoundingClientRect();
            const ring = parseFloat(getComputedStyle(document.documentElement).fontSize) * 0.25;
            return {
                right: sheet.right - box.right - ring,
                top: box.top - sheet.top - ring,
                screen: window.innerWidth - box.right - ring,
                size: Math.min(box.width, box.height),
            };
        }"""
    )
    assert gap["right"] >= 0, gap
    assert gap["top"] >= 0, gap
    assert gap["screen"] >= 0, gap
    assert gap["size"] >= 44, gap
