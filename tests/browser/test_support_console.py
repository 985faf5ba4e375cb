"""A support agent in a real browser (issue 15): logs in with password and TOTP, finds a
member of another site by e-mail, opens the member page, grants credits with a reason,
and sees the balance and the audit row; an action without a reason is refused with the
form kept."""

import pytest
from django.db import connection
from playwright.sync_api import expect

from apps.accounts.services.directory import directory_sync
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


@pytest.fixture
def agent():
    user = in_thread(staff_member, "support")
    yield user

    def delete():
        connection.set_schema_to_public()
        user.delete()

    in_thread(delete)


def test_a_support_agent_finds_a_member_and_grants_credits(committed, gay_site, site_server, agent, page):
    profile = committed.member(gay_site, "Mika")

    def sync():
        with on_site(gay_site):
            directory_sync(user=profile.user)
        connection.set_schema_to_public()
        return MemberDirectoryEntry.objects.get(site=gay_site, member_id=profile.user_id).pk

    entry_id = in_thread(sync)
    admin = site_server.url("admin.localhost", "")
    staff_browser_login(page, admin, agent)

    page.goto(f"{admin}/admin/support/member/")
    page.locator("#searchbar").fill(profile.user.email)
    page.locator("#searchbar").press("Enter")
    page.wait_for_url("**/admin/support/member/?q=*")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    page.get_by_role("link", name=profile.user.email).click()
    page.wait_for_url(f"**/admin/support/member/{entry_id}/change/**")
    expect(page.get_by_test_id("support-balance")).to_have_text("0")
    expect(page.get_by_test_id("support-member")).to_contain_text("Manline")

    credits = page.get_by_test_id("support-credits-form")
    page.get_by_text("Grant or take credits").click()
    credits.get_by_label("Credits").fill("25")
    credits.get_by_role("button", name="Change the credits").click()
    # The browser refuses an empty reason before sending (required field).
    expect(page.get_by_test_id("support-balance")).to_have_text("0")
    assert credits.get_by_label("Reason").evaluate("el => el.validity.valueMissing")
    credits.get_by_label("Reason").fill("Goodwill: chat was down for an hour")
    credits.get_by_role("button", name="Change the credits").click()
    expect(page.locator(".messagelist")).to_contain_text("+25 credits for")
    expect(page.get_by_test_id("support-balance")).to_have_text("25")
    expect(page.get_by_test_id("support-audit-row").first).to_contain_text("Goodwill: chat was down for an hour")

    def audited():
        connection.set_schema_to_public()
        return list(
            AuditEntry.objects.filter(site_id=gay_site.pk, member_id=profile.user_id).values_list("action", "actor")
        )

    assert in_thread(audited) == [("credits.grant", agent.username)]
    page.screenshot(path=f"/tmp/support-member-{page.viewport_size['width']}.png", full_page=True)
