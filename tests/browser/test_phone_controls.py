"""Members' controls on a phone (390 x 844): every control a member touches is at least
44 px high (Apple's and WCAG 2.5.5's touch target), the swipe game's pass and like are on
the first screen even below the time-bonus banner and the add-a-photo alert, and the
likes tabs with two-digit counts fit one row in every language. Geometry only: the
tests read bounding boxes, never wait for time."""

import pytest
from django.conf import settings
from django.utils import translation
from playwright.sync_api import expect

from apps.likes.views import TAB_LABELS
from apps.profiles.models import Profile
from conftest import PHONE, on_site
from tests.browser.helpers import goto_past_the_match_modal, log_in, member
from tests.browser.test_swipe import women  # noqa: F401 (a fixture)
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

TOUCH = 44
LANGUAGES = ("da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "sv")
# What members touch: buttons, fields, selects, tabs and close buttons.
CONTROLS = ".btn, .form-control, .form-select, .nav-tabs .nav-link, .btn-close"


@pytest.fixture
def viewport() -> dict:
    return PHONE


def _small_controls(page) -> list[str]:
    """The visible controls lower than TOUCH px, described for the failure message."""
    return page.evaluate(
        """([selector, touch]) => [...document.querySelectorAll(selector)]
            .filter(el => el.offsetParent !== null || getComputedStyle(el).position === "fixed")
            .map(el => [el, el.getBoundingClientRect()])
            .filter(([, box]) => box.width > 0 && box.height < touch - 0.5)
            .map(([el, box]) => {
                const name = (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30);
                return `${el.className} "${name}" ${box.height.toFixed(1)}px`;
            })""",
        [CONTROLS, TOUCH],
    )


def test_13_touch_targets_are_44_px_on_phones(site_server, page, site, women):  # noqa: F811
    """On the pages a member uses most on a phone, no button, field, select, tab or close
    button is lower than 44 px (Bootstrap's defaults are 38 px and less)."""
    email, _profile = member(site, "Touch")
    women(2)
    log_in(page, site_server, email)
    for path in ("/swipe-game", "/likes", "/members", "/settings", "/profile", "/credits"):
        goto_past_the_match_modal(page, site_server.url("localhost", path))
        expect(page.locator(CONTROLS).first).to_be_attached()
        assert _small_controls(page) == [], path


def test_checkboxes_are_large_and_their_rows_44_px_on_phones(site_server, page, site):
    """The settings' checkboxes and switches (/notifications): 1.25em boxes (Bootstrap's 1em is too small to
    hit), each row with its label 44 px high, the box beside the label's first line."""
    email, _profile = member(site, "Checks")
    log_in(page, site_server, email)
    goto_past_the_match_modal(page, site_server.url("localhost", "/notifications"))
    checks = page.locator(".form-check")
    expect(checks.first).to_be_visible()
    found = page.evaluate(
        """() => [...document.querySelectorAll(".form-check")].filter(el => el.offsetParent !== null).map(el => {
            const input = el.querySelector(".form-check-input"), label = el.querySelector(".form-check-label");
            const row = el.getBoundingClientRect(), box = input.getBoundingClientRect();
            const lab = label ? label.getBoundingClientRect() : row;
            return {row: row.height, box: box.height, font: parseFloat(getComputedStyle(input).fontSize),
                    label: lab.height, inside: box.top >= row.top - 0.5 && box.bottom <= row.bottom + 0.5,
                    aligned: Math.abs((box.top + box.bottom) / 2 - (lab.top + Math.min(lab.height, 44) / 2)) < 4};
        })"""
    )
    assert found, "no checkbox on the settings page"
    for check in found:
        assert check["box"] >= 1.25 * check["font"] - 0.5, check
        assert check["row"] >= TOUCH - 0.5 and check["label"] >= TOUCH - 0.5, check
        assert check["inside"] and check["aligned"], check
    # The notification table's checkboxes too (a box per channel in each row).
    boxes = page.evaluate(
        """() => [...document.querySelectorAll("input.form-check-input")].filter(el => el.offsetParent !== null)
            .map(el => [el.getBoundingClientRect().width, parseFloat(getComputedStyle(el).fontSize)])"""
    )
    assert len(boxes) > len(found)
    assert all(width >= 1.25 * font - 0.5 for width, font in boxes), boxes
    # Each of the table's boxes is pressed through its cell: a 44 px square label.
    cells = page.evaluate(
        """() => [...document.querySelectorAll("td .check-cell")].filter(el => el.offsetParent !== null)
            .map(el => [el.getBoundingClientRect().width, el.getBoundingClientRect().height])"""
    )
    assert cells and all(width >= TOUCH - 0.5 and height >= TOUCH - 0.5 for width, height in cells), cells
    first = page.locator("td .check-cell").first
    box = first.locator("input")
    was = box.is_checked()
    first.scroll_into_view_if_needed()
    area = first.bounding_box()
    page.mouse.click(area["x"] + 3, area["y"] + 3)  # the cell's corner, beside the box
    expect(box).to_be_checked(checked=not was)


def test_13_touch_targets_on_the_login_page(site_server, page):
    page.goto(site_server.url("localhost", "/login"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    expect(page.locator("#login-email")).to_be_visible()
    assert _small_controls(page) == []


def test_14_swipe_buttons_on_the_first_screen_with_banner_and_alert(site_server, page, site, women):  # noqa: F811
    """A new member (the time bonus runs) without a photo (the add-a-photo alert shows)
    sees pass and like without scrolling."""
    email, profile = member(site, "Phone")

    def make_him_a_man() -> None:
        with on_site(site):
            Profile.objects.filter(pk=profile.pk).update(gender="male", sexuality="hetero")

    in_thread(make_him_a_man)
    women(3)
    log_in(page, site_server, email)
    goto_past_the_match_modal(page, site_server.url("localhost", "/swipe-game"))
    expect(page.get_by_test_id("time-bonus-banner")).to_be_visible()
    expect(page.get_by_test_id("profile-photo-alert")).to_be_visible()
    expect(page.get_by_test_id("swipe-card-name")).to_be_visible()
    page.screenshot(path=str(settings.BASE_DIR / "test-results" / "swipe-390.png"))
    assert page.evaluate("window.scrollY") == 0
    nav = page.locator(".bottom-nav")
    bottom = nav.bounding_box()["y"] if nav.count() and nav.is_visible() else PHONE["height"]
    for testid in ("swipe-pass", "swipe-like"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box["y"] >= 0 and box["x"] >= 0, testid
        assert box["y"] + box["height"] <= bottom, (testid, box, bottom)
        assert box["x"] + box["width"] <= PHONE["width"], testid
        assert box["height"] >= TOUCH, testid


@pytest.mark.parametrize("language", LANGUAGES)
def test_15_likes_tabs_fit_one_row_with_two_digit_counts(site_server, page, site, language):
    """The four tabs with each language's words from the catalogues (the demo site offers
    English only) and 99 in every count: one row, nothing scrolled out of sight, 44 px high."""
    with translation.override(language):
        words = [str(label) for label in TAB_LABELS.values()]
    email, _profile = member(site, "Tabs")
    log_in(page, site_server, email)
    goto_past_the_match_modal(page, site_server.url("localhost", "/likes/received"))
    tabs = page.get_by_test_id("likes-tabs")
    expect(tabs.locator(".nav-link")).to_have_count(4)
    tabs.evaluate(
        """(el, words) => el.querySelectorAll(".nav-link").forEach((link, i) => {
            link.firstChild.textContent = words[i] + " ";
            const badge = link.querySelector(".badge");
            if (badge) badge.textContent = "99";
        })""",
        words,
    )
    if language == "fi":
        page.screenshot(path=str(settings.BASE_DIR / "test-results" / "likes-tabs-390.png"))
    rows = tabs.evaluate("el => new Set([...el.querySelectorAll('.nav-item')].map(i => i.offsetTop)).size")
    assert rows == 1
    assert tabs.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), words
    for link in tabs.locator(".nav-link").all():
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], link.inner_text()
        assert box["height"] >= TOUCH, link.inner_text()
