"""Every lander in a real browser on both demo sites, at phone and desktop widths: a
visitor from an ad (tracking parameters in the address) reaches signup from each, with
the tracking kept; one signup per site and width goes through the real form, and the
tracking, the lander and the campaign land on the account. Also: the signup link works
before any island script has loaded, and the video plays unless the visitor prefers
reduced motion.

The demo sites get demo profiles (and localhost its video) once for the module, committed
so that the live server sees them, and deleted again at the end."""

from __future__ import annotations

import json
import uuid
from http.cookies import SimpleCookie

import pytest
from django.http import HttpRequest
from playwright.sync_api import expect

from apps.accounts.models import SignupTracking
from apps.accounts.tracking import COOKIE, SALT
from apps.landers.keys import GENERIC_LANDERS
from apps.profiles.models import Profile
from apps.tenants.models import Site
from conftest import on_site
from tests.browser.helpers import PASSWORD
from tests.live import in_thread, members_delete

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

DOMAINS = ("localhost", "gay.localhost")
# The lander each site signs up from through the real form, per width: (path, the lander
# and campaign stored on the account).
SIGNUP_FROM = {
    ("localhost", 390): ("/landers/gallery/spring-24", "gallery", "spring-24"),
    ("localhost", 1280): ("/members/{id}/landing2/retarget", "member-landing2", "retarget"),
    ("gay.localhost", 390): ("/members/{id}/landing", "member-landing", ""),
    ("gay.localhost", 1280): ("/landers/maplanding/nearby", "maplanding", "nearby"),
}


@pytest.fixture(scope="module")
def lander_sites(django_db_setup, django_db_blocker):
    """Both demo sites with 8 demo profiles each (localhost also its video): {domain:
    (site, id of a demo profile)}."""
    from apps.landers.video import lander_video_delete, lander_video_make
    from apps.profiles.services.demo import demo_profiles_delete, demo_profiles_seed

    with django_db_blocker.unblock():
        sites = {domain: Site.objects.get(domains__domain=domain) for domain in DOMAINS}
        for site in sites.values():
            in_thread(demo_profiles_seed, site=site, count=8)
        in_thread(lander_video_make, site=sites["localhost"])

        def first_profile(site) -> int:
            with on_site(site):
                return Profile.objects.filter(user__isnull=True).order_by("-created").values_list("pk", flat=True)[0]

        yield {domain: (site, in_thread(first_profile, site)) for domain, site in sites.items()}
        in_thread(lander_video_delete, site=sites["localhost"])
        for site in sites.values():
            in_thread(demo_profiles_delete, site=site)


def lander_paths(profile_id: int) -> list[str]:
    return [
        *(f"/landers/{lander}/ad-{lander}" for lander in GENERIC_LANDERS),
        f"/members/{profile_id}/landing",
        f"/members/{profile_id}/landing2/ad-two",
        f"/members/{profile_id}/landing3/ad-three",
        f"/members/{profile_id}/signup",
        "/landers/tinderswipe",
    ]


def tracking_cookie(page) -> dict:
    """What the signed tracking cookie of the page's site holds in the browser."""
    [cookie] = [cookie for cookie in page.context.cookies(page.url) if cookie["name"] == COOKIE]
    request = HttpRequest()
    request.COOKIES[COOKIE] = SimpleCookie(f"{COOKIE}={cookie['value']}")[COOKIE].value  # undo the quoting
    return json.loads(request.get_signed_cookie(COOKIE, salt=SALT))


def stored_tracking(site, email: str) -> SignupTracking:
    with on_site(site):
        return SignupTracking.objects.select_related("user").get(user__email=email)


def arrive(page, server, domain: str, path: str, marker: str) -> None:
    """Open the lander as a visitor from an ad; the parameters are kept and leave the address."""
    page.goto(server.url(domain, f"{path}?network=adnet&sub1={marker}&cpc=0.05"))
    expect(page).to_have_url(server.url(domain, path))
    expect(page.get_by_test_id("lander").or_(page.get_by_test_id("tinderswipe-lander"))).to_be_visible()


def test_every_lander_leads_into_signup_with_the_tracking_kept(site_server, page, lander_sites, viewport):
    for domain, (_site, profile_id) in lander_sites.items():
        for path in lander_paths(profile_id):
            marker = uuid.uuid4().hex[:8]
            arrive(page, site_server, domain, path, marker)
            kept = tracking_cookie(page)
            assert (kept["network"], kept["sub1"], kept["cpc"]) == ("adnet", marker, "0.05"), path
            if path == "/landers/tinderswipe":
                assert kept["lander"] == "tinderswipe"
                page.get_by_test_id("tinderswipe-signup").click()
                expect(page.get_by_test_id("signup-page")).to_be_visible()
                continue
            assert kept["lander"] == page.get_by_test_id("lander").get_attribute("data-lander")
            if path.endswith("/signup"):  # the signup steps themselves, in the lander layout
                expect(page.get_by_test_id("signup-step-title")).to_contain_text("Write a message to")
                continue
            if "ad-" in path:
                assert kept["campaign"] == path.rsplit("/", 1)[1]
            cta = page.get_by_test_id("lander-signup")
            expect(cta).to_be_in_viewport() if "/landers/" in path else expect(cta).to_be_visible()
            cta.click()
            modal = page.get_by_test_id("signup-modal")
            expect(modal).to_be_visible()
            title = "Write a message to" if path.startswith("/members/") else "Create your free account"
            expect(modal.get_by_test_id("signup-step-title")).to_contain_text(title)
            expect(page).to_have_url(site_server.url(domain, path))  # the modal, not another page
            page.keyboard.press("Escape")
            expect(modal).to_be_hidden()


def test_a_link_back_with_lb_counts_as_the_lander_and_leaves_the_address(site_server, page, lander_sites):
    """docs/decisions.md "The lb parameter": a partner's pre-lander links back to the
    site's home page with ?lb=<lander>; the visitor sees the home page at its own address
    and the lander is kept with the tracking. A value that names no lander changes nothing."""
    page.goto(site_server.url("localhost", "/?network=adnet&lb=maplanding"))
    expect(page).to_have_url(site_server.url("localhost", "/"))
    expect(page.get_by_test_id("entry-warning")).to_be_visible()
    kept = tracking_cookie(page)
    assert (kept["network"], kept["lander"]) == ("adnet", "maplanding")
    page.goto(site_server.url("localhost", "/pages/faq?lb=%3Cscript%3Ealert(1)%3C/script%3E"))
    expect(page).to_have_url(site_server.url("localhost", "/pages/faq"))
    assert tracking_cookie(page) == kept


def test_a_visitor_from_an_ad_signs_up_and_the_account_keeps_the_tracking(
    site_server, new_context, lander_sites, viewport
):
    for domain, (site, profile_id) in lander_sites.items():
        page = new_context().new_page()
        path, lander, campaign = SIGNUP_FROM[(domain, viewport["width"])]
        path = path.format(id=profile_id)
        marker = uuid.uuid4().hex[:8]
        arrive(page, site_server, domain, path, marker)
        page.get_by_test_id("lander-signup").click()
        modal = page.get_by_test_id("signup-modal")
        if path.startswith("/members/"):
            modal.get_by_test_id("signup-message").fill("Hello, nice profile!")
            modal.get_by_test_id("signup-message-next").click()
        email = f"lander-{marker}@example.com"
        modal.get_by_test_id("signup-email").fill(email)
        modal.get_by_test_id("signup-name").fill(f"Ad{marker}")
        modal.get_by_test_id("signup-dob-day").select_option("5")
        modal.get_by_test_id("signup-dob-month").select_option("4")
        modal.get_by_test_id("signup-dob-year").select_option("1990")
        modal.get_by_test_id("signup-password").fill(PASSWORD)
        modal.get_by_test_id("signup-submit").click()
        expect(modal.get_by_test_id("signup-step-title")).to_have_text("Add a profile photo")

        tracking = in_thread(stored_tracking, site, email)
        assert (tracking.network, tracking.sub1, tracking.cpc) == ("adnet", marker, "0.05")
        assert (tracking.lander, tracking.campaign) == (lander, campaign)
        members_delete([(site, tracking.user_id)])
        page.context.close()


def test_the_signup_link_works_before_any_script(site_server, page, lander_sites):
    page.route("**/static/dist/**/*.js", lambda route: route.abort())
    page.goto(site_server.url("gay.localhost", "/landers/collagelanding"))
    expect(page.get_by_test_id("lander-heading")).to_have_text("Thousands of guys are looking for a man like you")
    page.get_by_test_id("lander-signup").click()
    expect(page).to_have_url(site_server.url("gay.localhost", "/signup"))


def test_the_video_plays_muted_unless_motion_is_reduced(site_server, chromium, lander_sites):
    url = site_server.url("localhost", "/landers/video")
    for motion, playing in (("no-preference", True), ("reduce", False)):
        context = chromium.new_context(viewport={"width": 390, "height": 844}, reduced_motion=motion)
        page = context.new_page()
        page.goto(url)
        video = page.get_by_test_id("lander-video")
        expect(video).to_be_visible()
        if playing:
            page.wait_for_function(
                "() => { const v = document.querySelector('[data-lander-video]'); return v.currentTime > 0.2; }"
            )
        else:
            expect(video).to_have_js_property("paused", True)
            expect(video).to_have_js_property("controls", True)  # its play button starts it
        expect(video).to_have_js_property("muted", True)
        expect(video).to_have_js_property("loop", True)
        assert page.evaluate("() => document.querySelector('[data-lander-video]').textTracks.length") == 2
        context.close()
