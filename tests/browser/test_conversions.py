"""Conversions as an operator uses them, in a real browser: add a traffic network with a
signup postback, see the postback a new member's signup sends to the partner (a local
fake partner), and open the revenue dashboard with a breakdown by network; axe finds
nothing on the network form, the network list, its postbacks, a postback and the
dashboard, and the CSP holds."""

import re
import uuid

import pytest
from django.db import connection
from django.test import override_settings
from playwright.sync_api import expect

from apps.conversions.models import DailyRollup, Network
from conftest import DESKTOP, on_site
from tests.browser.test_accessibility import axe_violations, report
from tests.fake_partner import FakePartner
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


@pytest.fixture
def viewport() -> dict:
    return DESKTOP


@pytest.fixture
def operator():
    user = in_thread(staff_member, "operators")
    yield user

    def delete():
        connection.set_schema_to_public()
        user.delete()

    in_thread(delete)


def _member_from(site, network: str, name: str) -> int:
    """A member who signed up from `network` (the signup's tracking row, which is the
    event the conversions count), committed."""
    from apps.accounts.models import SignupTracking
    from apps.profiles.tests.helpers_view import member

    with on_site(site):
        user = member(site, name).user
        SignupTracking.objects.create(user=user, network=network, ref="r7", sub1="banner")
        return user.pk


def _clean(site, network: str, member_id: int) -> None:
    from apps.accounts.models import User

    with on_site(site):
        User.objects.filter(pk=member_id).delete()
    connection.set_schema_to_public()
    Network.objects.filter(name=network).delete()
    DailyRollup.objects.filter(site=site, network=network).delete()


def axe_check(chromium, page) -> None:
    """axe on the page's address, in a context of its own with the page's cookies: axe
    applies inline styles while it checks some form controls, which this context's CSP
    check would count against the page."""
    context = chromium.new_context(viewport=DESKTOP, locale="en-US")
    try:
        context.add_cookies(page.context.cookies())
        other = context.new_page()
        other.goto(page.url)
        assert not (found := axe_violations(other)), report(found)
    finally:
        context.close()


def test_an_operator_adds_a_network_sees_its_postback_and_the_dashboard(site, site_server, operator, page, chromium):
    name = f"adnet{uuid.uuid4().hex[:6]}"
    member_id = None
    with FakePartner() as partner, override_settings(POSTBACK_URL_CHECK=False):
        try:
            admin = site_server.url("admin.localhost", "")
            staff_browser_login(page, admin, operator)
            page.goto(f"{admin}/admin/conversions/network/add/")
            page.get_by_label("Name").fill(name.upper())
            page.locator("#id_rules-0-event").select_option("signup")
            page.locator("#id_rules-0-url").fill(partner.url("/pb") + "?click={ref}&s1={sub1}&m={member}&pay={payout}")
            page.locator("#id_rules-0-payout_fixed").fill("250")
            axe_check(chromium, page)
            page.locator('input[name="_save"]').click()
            expect(page.locator(".messagelist")).to_contain_text(name)

            member_id = in_thread(_member_from, site, name, f"Pat{uuid.uuid4().hex[:6]}")
            assert [hit.query["click"] for hit in partner.hits] == [["r7"]]
            assert partner.hits[0].query["pay"] == ["2.50"]

            page.goto(f"{admin}/admin/conversions/network/?q={name}")
            axe_check(chromium, page)
            page.locator("#result_list").get_by_role("link", name="Postbacks").click()
            row = page.locator("#result_list tbody tr")
            expect(row).to_have_count(1)
            expect(row).to_contain_text("Sent")
            axe_check(chromium, page)
            row.locator("a").first.click()
            expect(page.locator(".inline-group")).to_contain_text("200")
            axe_check(chromium, page)

            page.goto(f"{admin}/admin/")
            page.get_by_test_id("reports-link").get_by_role("link", name="Revenue reports").click()
            page.get_by_label("Breakdown by", exact=True).select_option("network")
            page.get_by_label("Per", exact=True).select_option("week")
            page.get_by_role("button", name="Show").click()
            expect(page).to_have_url(re.compile(r"/admin/reports/\?.*period=week.*by=network"))
            groups = page.get_by_test_id("reports-groups")
            expect(groups.locator("tr", has_text=name)).to_contain_text("1")
            expect(page.get_by_test_id("reports-chart-signups")).to_be_visible()
            # The filters are in the address: the page opened again shows the same.
            page.reload()
            expect(page.get_by_label("Per", exact=True)).to_have_value("week")
            axe_check(chromium, page)

            page.goto(f"{admin}/admin/reports/?period=year")
            expect(page.get_by_test_id("reports-error")).to_be_visible()
        finally:
            if member_id is not None:
                in_thread(_clean, site, name, member_id)
            else:
                in_thread(Network.objects.filter(name=name).delete)
