"""Issue 15 (operators) in a real browser: staff log in to the admin with a password and
a TOTP code (and enrol one at the first login, through a one-time set-up link); an operator adds a site in the admin and
the new site answers on its own domain within seconds, with its default credit packages
and gifts; the theme preview follows the colour fields live."""

import re
import time

import pytest
from playwright.sync_api import expect

from apps.payments.models import CreditPackage
from apps.payments.packages import DEFAULT_PACKAGES
from apps.tenants.models import Gift, Site
from apps.tenants.services import DEFAULT_GIFTS
from tests.live import client as live_client
from tests.live import in_thread
from tests.staff import (
    STAFF_PASSWORD,
    fresh_totp_code,
    staff_browser_login,
    staff_delete_committed,
    staff_device,
    staff_member_committed,
    staff_set_up_link_committed,
    totp_code,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

# The goal for a site created in the admin: its home page answers within this many
# seconds of the click on "Save" (docs/operators.md gives the measured figure).
LIVE_WITHIN_SECONDS = 5.0


@pytest.fixture
def operator():
    user = staff_member_committed("operators")
    yield user
    staff_delete_committed(user)


def admin_url(server, path: str = "") -> str:
    return server.url("admin.localhost", path)


def test_an_operator_logs_in_with_password_and_code(site_server, page, operator):
    page.goto(admin_url(site_server, "/admin/"))
    page.wait_for_url("**/admin/login/?next=/admin/")
    page.locator("#id_username").fill(operator.username)
    page.locator("#id_password").fill(STAFF_PASSWORD)
    page.locator('#login-form [type="submit"]').click()
    # The password alone is not enough: the code comes next.
    page.wait_for_url("**/admin/login/code/**")
    expect(page.locator("#id_code")).to_be_focused()
    page.locator("#id_code").fill("000000" if totp_code(operator) != "000000" else "111111")
    page.locator("#id_code").press("Enter")
    expect(page.locator(".errorlist")).to_contain_text("This code is not correct")
    # Still not in: an admin page sends back to the code.
    page.goto(admin_url(site_server, "/admin/tenants/site/"))
    page.wait_for_url("**/admin/login/code/?next=%2Fadmin%2Ftenants%2Fsite%2F")
    page.locator("#id_code").fill(fresh_totp_code(operator))
    page.get_by_test_id("staff-code-submit").click()
    page.wait_for_url(admin_url(site_server, "/admin/tenants/site/"))
    page.goto(admin_url(site_server, "/admin/"))
    expect(page.locator("#site-name")).to_be_visible()
    expect(page.get_by_role("link", name="Sites")).to_be_visible()
    # An operator's index has no member directory, queues or money.
    expect(page.get_by_role("link", name="Members", exact=True)).to_have_count(0)
    expect(page.get_by_role("link", name="Photo moderation")).to_have_count(0)


def test_log_in_as_someone_else_from_the_code_step(site_server, page, operator):
    page.goto(admin_url(site_server, "/admin/login/?next=/admin/"))
    page.locator("#id_username").fill(operator.username)
    page.locator("#id_password").fill(STAFF_PASSWORD)
    page.locator('#login-form [type="submit"]').click()
    page.wait_for_url("**/admin/login/code/**")
    page.get_by_test_id("staff-step-cancel").click()
    page.wait_for_url(admin_url(site_server, "/admin/login/"))
    expect(page.locator("#id_password")).to_be_visible()
    page.goto(admin_url(site_server, "/admin/"))
    page.wait_for_url("**/admin/login/?next=/admin/")  # the password step again, not the code


def test_a_new_staff_member_enrols_an_authenticator_through_the_set_up_link(site_server, page):
    newcomer = staff_member_committed("support", enrolled=False)
    try:
        # The password alone sets up nothing: ask another operator.
        page.goto(admin_url(site_server, "/admin/login/?next=/admin/"))
        page.locator("#id_username").fill(newcomer.username)
        page.locator("#id_password").fill(STAFF_PASSWORD)
        page.locator('#login-form [type="submit"]').click()
        expect(page.get_by_test_id("staff-step-notice")).to_contain_text("Ask another operator")
        # The link of staff_create: then the password, then the authenticator.
        link = staff_set_up_link_committed(newcomer)
        page.goto(admin_url(site_server, link))
        page.wait_for_url("**/admin/login/?next=%2Fadmin%2F")
        expect(page.locator(".messagelist")).to_contain_text("then set up the second step")
        page.locator("#id_username").fill(newcomer.username)
        page.locator("#id_password").fill(STAFF_PASSWORD)
        page.locator('#login-form [type="submit"]').click()
        page.wait_for_url("**/admin/login/enrol/?**")
        qr = page.get_by_test_id("staff-enrol-qr")
        expect(qr).to_be_visible()
        assert qr.evaluate("image => image.naturalWidth") > 0  # the QR code image loads under the CSP
        secret = page.get_by_test_id("staff-enrol-secret").inner_text()
        assert re.fullmatch(r"([A-Z2-7]{4} ){7}[A-Z2-7]{4}", secret)
        page.locator("#id_code").fill(totp_code(secret))
        page.get_by_test_id("staff-code-submit").click()
        page.wait_for_url(admin_url(site_server, "/admin/"))
        expect(page.locator(".messagelist")).to_contain_text("The second step is set up")
        # The secret is never shown again, and the link is used up.
        page.goto(admin_url(site_server, "/admin/login/enrol/"))
        page.wait_for_url(admin_url(site_server, "/admin/"))
        assert secret not in page.content()
        page.goto(admin_url(site_server, link))
        expect(page.get_by_test_id("staff-step-notice")).to_contain_text("has already been used")
    finally:
        staff_delete_committed(newcomer)


def _delete_site(name: str) -> None:
    def delete() -> None:
        for site in Site.objects.filter(name=name):
            site.delete(force_drop=True)

    in_thread(delete)


def test_an_operator_adds_a_site_that_is_live_within_seconds(site_server, page, operator):
    name, domain = "Newsite", "newsite.localhost"
    _delete_site(name)
    try:
        staff_browser_login(page, admin_url(site_server), operator)
        page.goto(admin_url(site_server, "/admin/tenants/site/add/"))
        # Not there yet: an unknown host.
        http = live_client(site_server, domain)
        assert http.get("/").status_code == 404
        page.locator("#id_name").fill(name)
        page.locator("#id_niche").select_option("3")
        page.locator("#id_languages").fill("en,nl")
        page.locator("#id_domain_language").select_option("en")
        page.locator("#id_countries").select_option(["NL", "GB"])
        page.locator("#id_index_title").fill("Newsite: meet people")
        page.locator("#id_support_email").fill("support@newsite.localhost")
        page.locator("#id_domains-0-domain").fill(domain)
        page.locator("#id_domains-0-is_primary").check()
        # The theme preview follows the colour as it is typed.
        preview = page.get_by_test_id("theme-preview")
        ratio = preview.locator('[data-preview="ratio"]')
        warning = preview.locator('[data-preview="warning"]')
        page.locator("#id_theme_primary").fill("#ffcc00")
        expect(warning).to_be_visible()
        expect(ratio).to_have_text(re.compile(r"^1\.\d\d:1$"))
        page.locator("#id_theme_primary").fill("#7a1f5c")
        expect(warning).to_be_hidden()
        topbar = preview.locator('[data-preview="topbar"]')
        assert topbar.evaluate("element => getComputedStyle(element).backgroundColor") == "rgb(122, 31, 92)"
        page.locator("#id_theme_secondary").fill("#f2c6de")
        badge = preview.locator('[data-preview="badge"]')
        assert badge.evaluate("element => getComputedStyle(element).backgroundColor") == "rgb(242, 198, 222)"

        started = time.perf_counter()
        page.locator('input[name="_save"]').click()
        page.wait_for_url(admin_url(site_server, "/admin/tenants/site/"))
        saved = time.perf_counter() - started
        first_200 = None
        while time.perf_counter() - started < 30:
            if http.get("/").status_code == 200:
                first_200 = time.perf_counter() - started
                break
            time.sleep(0.05)
        print(f"\nsite from the admin: saved in {saved:.2f} s, home page 200 after {first_200} s")
        assert first_200 is not None and first_200 < LIVE_WITHIN_SECONDS
        expect(page.locator(".messagelist")).to_contain_text(name)

        page.goto(site_server.url(domain, "/"))
        expect(page.get_by_test_id("site-name")).to_have_text(name)
        site = Site.objects.get(name=name)
        assert site.niche == 3 and site.languages == ["en", "nl"] and site.country_codes == ["NL", "GB"]
        assert site.theme_primary == "#7a1f5c"
        packages = CreditPackage.objects.filter(site=site).order_by("position")
        assert [package.credits for package in packages] == [credits for credits, _prices, _top in DEFAULT_PACKAGES]
        assert [gift.name for gift in Gift.objects.filter(site=site)] == [gift for gift, _emoji in DEFAULT_GIFTS]
    finally:
        _delete_site(name)


def test_a_support_agent_cannot_add_a_site(site_server, page):
    agent = staff_member_committed("support")
    try:
        staff_browser_login(page, admin_url(site_server), agent)
        expect(page.get_by_role("link", name="Sites")).to_have_count(0)
        response = page.goto(admin_url(site_server, "/admin/tenants/site/add/"))
        assert response.status == 403
    finally:
        staff_delete_committed(agent)


def test_a_code_is_not_accepted_twice(site_server, page, new_context, operator):
    staff_browser_login(page, admin_url(site_server), operator)
    device = staff_device(operator)
    used = totp_code(device, at=device.t0 + device.last_t * device.step + 1)  # the code just accepted
    other = new_context().new_page()
    other.goto(admin_url(site_server, "/admin/login/?next=/admin/"))
    other.locator("#id_username").fill(operator.username)
    other.locator("#id_password").fill(STAFF_PASSWORD)
    other.locator('#login-form [type="submit"]').click()
    other.wait_for_url("**/admin/login/code/**")
    other.locator("#id_code").fill(used)
    other.get_by_test_id("staff-code-submit").click()
    expect(other.locator(".errorlist")).to_contain_text("This code is not correct")
    assert "/admin/login/code/" in other.url
