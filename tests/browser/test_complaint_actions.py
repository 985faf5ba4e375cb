"""A support agent acts on a reported message from the complaints queue, in a real
browser at 1280 px: Rita reported Sam's message from the chat; the agent opens the
complaint, sees the message with those around it, disables Sam's profile from the
complaint's page with a reason (keyboard only), and the complaint is resolved with that
action; both are in the audit trail, and axe finds nothing on the page."""

import pytest
from django.db import connection
from django.test import RequestFactory
from playwright.sync_api import expect

from apps.accounts.services.directory import directory_sync
from apps.chat.tests.helpers import credits_give, send
from apps.moderation.models import ComplaintCase
from apps.profiles.models import Profile
from apps.profiles.services.complaints import message_report
from apps.support.models import AuditEntry
from conftest import DESKTOP, on_site
from tests.browser.test_accessibility import axe_violations, report
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


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


def _reported(site, rita, sam):
    credits_give(site, sam.user, 5)
    credits_give(site, rita.user, 5)
    send(site, rita, sam, text="Hi Sam")
    _conversation, message = send(site, sam, rita, text="Pay 100 euro in gift cards first")
    request = RequestFactory().post("/api/report.php", REMOTE_ADDR="10.77.0.1")
    request.site = site
    with on_site(site):
        directory_sync(user=sam.user)
        complaint = message_report(request=request, reporter=rita.user, reason="scam", message_id=message.pk)
    connection.set_schema_to_public()
    return complaint, ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)


def test_an_agent_disables_a_reported_member_from_the_complaint(committed, site, site_server, agent, page):
    rita, sam = committed.member(site, "Rita"), committed.member(site, "Sam")
    complaint, case = in_thread(_reported, site, rita, sam)
    try:
        admin = site_server.url("admin.localhost", "")
        staff_browser_login(page, admin, agent)
        page.goto(f"{admin}/admin/moderation/complaintcase/{case.pk}/handle/")
        expect(page.get_by_test_id("complaint-message-named")).to_contain_text("Pay 100 euro in gift cards first")
        expect(page.get_by_test_id("complaint-message")).to_contain_text("Hi Sam")
        violations = axe_violations(page)
        assert not violations, report(violations)

        form = page.get_by_test_id("complaint-act-profile_disable")
        reason = form.get_by_label("Reason (for the audit trail)")
        reason.focus()
        page.keyboard.type("Asks members for gift cards")
        page.keyboard.press("Tab")
        expect(form.get_by_test_id("complaint-act-profile_disable-submit")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator(".messagelist")).to_contain_text(f"Complaint {complaint.pk} is resolved.")
        expect(page.get_by_test_id("complaint-status")).to_have_text("Resolved")
        expect(page.get_by_test_id("complaint-action")).to_contain_text("Profile disabled")

        def stored():
            with on_site(site):
                status = Profile.objects.get(pk=sam.pk).status
            connection.set_schema_to_public()
            actions = sorted(
                AuditEntry.objects.filter(actor=agent.username, site_id=site.pk, member_id=sam.user_id).values_list(
                    "action", flat=True
                )
            )
            return status, actions

        assert in_thread(stored) == ("disabled", ["complaint.status", "member.profile_disable"])
    finally:

        def cleanup():
            connection.set_schema_to_public()
            ComplaintCase.objects.filter(pk=case.pk).delete()

        in_thread(cleanup)
