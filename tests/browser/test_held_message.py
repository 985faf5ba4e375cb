"""A held message in real browsers: on a site whose rule holds a new account's first
message with scam signals, Sam (new) writes Rita a messenger name and a phone number. Sam
sees it as sent; Rita has no conversation; a support agent finds it in the complaints
queue (reason "Message held for review"), delivers it, and Rita then reads it. axe finds
nothing on the agent's page or on Rita's conversation (with the stay-safe note)."""

import pytest
from django.db import connection
from playwright.sync_api import expect

from apps.chat.tests.helpers import credits_give
from apps.moderation.models import ComplaintCase
from conftest import DESKTOP
from tests.browser.helpers import log_in, member
from tests.browser.test_accessibility import axe_violations, report
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

TEXT = "Add me on WhatsApp +31 6 1234 5678"


@pytest.fixture
def viewport() -> dict:
    return DESKTOP


@pytest.fixture
def agent():
    user = in_thread(staff_member, "support")
    yield user

    def delete():
        connection.set_schema_to_public()
        user.delete()

    in_thread(delete)


def _rule(site, rule):
    def run():
        connection.set_schema_to_public()
        site.refresh_from_db()
        site.chat_safety_rule = rule
        site.save(update_fields=["chat_safety_rule"])

    in_thread(run)


def test_held_message_waits_for_support_then_reaches_the_member(site, site_server, page, new_context, agent):
    _rule(site, "hold")
    try:
        sam_email, sam = member(site, "Sam")
        rita_email, rita = member(site, "Rita")
        in_thread(lambda: credits_give(site, sam.user, 5))

        # Sam writes; it shows as sent.
        log_in(page, site_server, sam_email)
        page.goto(site_server.url("localhost", f"/members/{rita.pk}/chat"))
        # An empty conversation offers the icebreaker: Sam opens it and writes his own.
        page.get_by_test_id("chat-icebreaker-open").click()
        page.get_by_test_id("icebreaker-own").click()
        expect(page.get_by_test_id("chat-icebreaker")).to_have_count(0)
        page.get_by_test_id("chat-input").fill(TEXT)
        page.get_by_test_id("chat-send").click()
        mine = page.locator('[data-testid="message"][data-mine="true"]').last
        expect(mine.get_by_test_id("message-ticks")).to_have_attribute("data-state", "sent")

        # Rita has nothing yet.
        rita_context = new_context()
        rita_page = rita_context.new_page()
        log_in(rita_page, site_server, rita_email)
        chats = rita_page.request.get(site_server.url("localhost", "/api/chats.php")).json()["chats"]
        assert [chat for chat in chats if chat["profile"] == sam.pk] == []

        def case_of():
            connection.set_schema_to_public()
            return ComplaintCase.objects.get(site=site, member_id=sam.user_id, reason="held_message")

        case = in_thread(case_of)

        # The agent finds it in the queue and delivers it.
        agent_context = new_context()
        agent_page = agent_context.new_page()
        admin = site_server.url("admin.localhost", "")
        staff_browser_login(agent_page, admin, agent)
        agent_page.goto(f"{admin}/admin/moderation/complaintcase/?reason__exact=held_message&site__id__exact={site.pk}")
        agent_page.get_by_role("link", name=f"Complaint {case.complaint_id}", exact=True).click()
        expect(agent_page.get_by_test_id("complaint-message-named")).to_contain_text(TEXT)
        expect(agent_page.get_by_test_id("complaint-reason")).to_have_text("Message held for review")
        violations = axe_violations(agent_page)
        assert not violations, report(violations)
        agent_page.get_by_test_id("held-deliver").click()
        expect(agent_page.get_by_test_id("complaint-status")).to_have_text("Resolved")
        expect(agent_page.get_by_test_id("complaint-action")).to_contain_text("Held message delivered")

        # Rita now reads it, with the stay-safe note.
        rita_page.goto(site_server.url("localhost", "/chats"))
        rita_page.get_by_text(sam.name).first.click()
        theirs = rita_page.locator('[data-testid="message"][data-mine="false"]').last
        expect(theirs.get_by_test_id("message-text")).to_have_text(TEXT)
        expect(rita_page.get_by_test_id("chat-safety-tip")).to_be_visible()
        violations = axe_violations(rita_page)
        assert not violations, report(violations)
    finally:
        _rule(site, "notice")
