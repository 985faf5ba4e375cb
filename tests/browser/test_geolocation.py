""" "Use my location" in a real browser (spec §3, §7, §9): at the signup's location step and
in the search filters. Chromium is given a fixed position (Paris, which the server's
offline geocoder resolves to FR, FR-IDF, Paris) or no permission; the device is asked only
on a tap, and a refusal leaves the fields as the member chose them, with a polite note."""

import re

import pytest
from playwright.sync_api import expect

from apps.profiles.models import Profile
from tests.browser.helpers import enter, sign_up
from tests.browser.test_accessibility import assert_accessible, track_requests
from tests.browser.test_search import committed, open_filters

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

PARIS = {"latitude": 48.8566, "longitude": 2.3522}
LONDON = {"latitude": 51.5072, "longitude": -0.1276}
FOUND = "Your location has been filled in."
DENIED = "Your browser does not share your location. Please choose it yourself."


@pytest.fixture
def open_page(new_context):
    """A page in a context of its own (with or without the geolocation permission) that
    fails the test on JavaScript errors, and the geocode requests it made."""
    pages: list[tuple[object, list[str]]] = []

    def make(*, position: dict | None):
        context = new_context()
        if position:
            context.grant_permissions(["geolocation"])
            context.set_geolocation(position)
        page = context.new_page()
        track_requests(page)  # assert_accessible waits for the page's requests
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        geocodes: list[str] = []
        page.on("request", lambda request: "/api/geocode.php" in request.url and geocodes.append(request.url))
        pages.append((page, errors))
        return page, geocodes

    yield make
    for page, errors in pages:
        assert not errors, f"JavaScript errors on {page.url}: {errors}"


def to_location_step(page, site_server) -> str:
    enter(page, site_server.url("localhost", "/login"))
    email, _name = sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/complete-signup"))
    page.get_by_test_id("signup-skip").click()  # 1: no photo
    expect(page.get_by_test_id("signup-step-title")).to_have_text("Where do you live?")
    return email


def test_my_location_fills_the_signup_step_and_the_search_filters(site_server, site, open_page):
    page, geocodes = open_page(position=PARIS)
    email = to_location_step(page, site_server)

    button = page.get_by_role("button", name="Use my location")
    expect(button).to_be_visible()
    expect(page.get_by_test_id("signup-country")).not_to_have_value("FR")
    assert geocodes == []  # nothing is asked on load

    button.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("signup-country")).to_have_value("FR")
    expect(page.get_by_test_id("signup-region")).to_have_value("FR-IDF")
    expect(page.get_by_test_id("signup-city")).to_have_value("Paris")
    expect(page.get_by_test_id("signup-use-location-note")).to_have_text(FOUND)
    expect(button).to_be_enabled()
    assert_accessible(page, "signup location step, location found")
    assert len(geocodes) == 1
    # Only the town is kept in the browser, never the coordinates.
    kept = page.evaluate("() => localStorage.getItem('geolocation')")
    assert "Paris" in kept and "48.8" not in kept and "2.35" not in kept

    page.get_by_test_id("signup-save").click()
    expect(page.get_by_test_id("signup-step-title")).to_have_text("Tell us about yourself")
    profile = committed(site, lambda: Profile.objects.values("country", "region", "city").get(user__email=email))
    assert profile == {"country": "FR", "region": "FR-IDF", "city": "Paris"}

    # Within the hour the kept town is used: the device (now in London) is not asked again.
    page.context.set_geolocation(LONDON)
    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("search")).to_be_visible()
    open_filters(page)
    page.get_by_test_id("search-country").select_option("GB")
    page.get_by_test_id("search-use-location").click()
    expect(page.get_by_test_id("search-country")).to_have_value("FR")
    expect(page.get_by_test_id("search-region")).to_have_value("FR-IDF")
    expect(page.get_by_test_id("search-use-location-note")).to_have_text(FOUND)
    assert len(geocodes) == 1
    assert_accessible(page, "search filters, location found")


def test_search_asks_the_device_when_nothing_is_kept(site_server, open_page):
    page, geocodes = open_page(position=PARIS)
    enter(page, site_server.url("localhost", "/login"))
    sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("search")).to_be_visible()
    open_filters(page)
    expect(page.get_by_test_id("search-country")).not_to_have_value("FR")
    assert geocodes == []

    page.get_by_test_id("search-use-location").click()
    expect(page.get_by_test_id("search-country")).to_have_value("FR")
    expect(page.get_by_test_id("search-region")).to_have_value("FR-IDF")
    assert len(geocodes) == 1
    page.get_by_test_id("search-submit").click()
    expect(page).to_have_url(re.compile(r"[?&]country=FR&.*region=FR-IDF|[?&]region=FR-IDF&.*country=FR"))


def test_without_permission_the_fields_stay_as_chosen_with_a_polite_note(site_server, open_page):
    page, geocodes = open_page(position=None)
    to_location_step(page, site_server)
    page.get_by_test_id("signup-country").select_option("BE")
    page.get_by_test_id("signup-city").fill("Gent")

    page.get_by_role("button", name="Use my location").click()
    note = page.get_by_test_id("signup-use-location-note")
    expect(note).to_have_text(DENIED)
    expect(note).to_have_attribute("aria-live", "polite")
    expect(page.get_by_test_id("signup-country")).to_have_value("BE")
    expect(page.get_by_test_id("signup-city")).to_have_value("Gent")
    expect(page.get_by_role("button", name="Use my location")).to_be_enabled()
    expect(page.get_by_role("alert")).to_have_count(0)
    assert geocodes == []
    assert_accessible(page, "signup location step, location refused")

    # The refusal is remembered: the search's button says so before any tap.
    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("search")).to_be_visible()
    open_filters(page)
    expect(page.get_by_test_id("search-use-location-note")).to_have_text(DENIED)
    country = page.get_by_test_id("search-country").input_value()
    page.get_by_test_id("search-use-location").click()
    expect(page.get_by_test_id("search-use-location-note")).to_have_text(DENIED)
    expect(page.get_by_test_id("search-country")).to_have_value(country)
    assert geocodes == []
