"""The demo sites in a real browser (Debian's Chromium), at phone and desktop widths."""

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from conftest import on_site
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_each_site_shows_its_own_name_and_niche(site_server, page):
    page.goto(site_server.url("localhost"))
    assert page.get_by_test_id("site-name").inner_text() == "Heartline"
    assert page.locator("body").get_attribute("data-niche") == "1"
    general_title = page.get_by_test_id("index-title").inner_text()
    page.goto(site_server.url("gay.localhost"))
    assert page.get_by_test_id("site-name").inner_text() == "Manline"
    assert page.locator("body").get_attribute("data-niche") == "7"
    assert page.get_by_test_id("index-title").inner_text() != general_title
    # The internal niche label is never shown.
    assert "GAY" not in page.locator("main").inner_text()


def test_an_unknown_host_gets_404(site_server, page):
    response = page.goto(site_server.url("unknown.localhost"))
    assert response.status == 404
    assert "This page could not be found" in page.content()
    assert "Heartline" not in page.content()


def test_entry_warning_appears_once_and_not_after_dismissal(site_server, page):
    page.goto(site_server.url("localhost"))
    warning = page.get_by_test_id("entry-warning")
    warning.wait_for(state="visible")
    # Escape does not close it.
    page.keyboard.press("Escape")
    assert warning.is_visible()
    page.get_by_test_id("entry-warning-enter").click()
    warning.wait_for(state="detached")
    page.reload()
    page.get_by_test_id("site-name").wait_for()
    assert page.get_by_test_id("entry-warning").count() == 0
    page.goto(site_server.url("localhost", "/pages/faq"))
    assert page.get_by_test_id("entry-warning").count() == 0


def test_switching_to_french_shows_french_text(site_server, page):
    page.goto(site_server.url("localhost"))
    page.get_by_test_id("entry-warning-enter").click()
    assert page.get_by_test_id("signup-cta").inner_text() == "Sign up for free"
    dropdown = page.get_by_test_id("language-dropdown")
    if not page.get_by_test_id("language-fr").is_visible():
        dropdown.get_by_role("button").first.click()
    page.get_by_test_id("language-fr").click()
    page.wait_for_url("**/")
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.get_by_test_id("signup-cta").inner_text() == "Inscrivez-vous gratuitement"
    assert "Conditions générales" in page.locator("footer").inner_text()


def test_language_choice_is_per_site(site_server, page):
    page.goto(site_server.url("localhost", "/lang-config"))
    page.get_by_test_id("entry-warning-enter").click()
    page.locator("main button[lang=fr]").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "fr"
    page.goto(site_server.url("gay.localhost"))
    assert page.locator("html").get_attribute("lang") == "en"


def test_a_belgian_visitor_switches_language_with_the_keyboard(site_server, new_context):
    """The gay site (en/nl/de) offers a Belgian visitor nl and de (spec §9), also on a page
    in English, which is outside that list: the toggle stays and works from the keyboard."""
    context = new_context()
    context.set_extra_http_headers({"CF-IPCountry": "BE"})
    page = context.new_page()
    page.goto(site_server.url("gay.localhost"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    assert page.locator("html").get_attribute("lang") == "en"
    toggle = page.get_by_test_id("language-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_accessible_name("Language: en")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("language-nl")).to_be_visible()
    expect(page.get_by_test_id("language-en")).to_have_count(0)
    page.keyboard.press("ArrowDown")
    expect(page.get_by_test_id("language-nl")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_test_id("language-de")).to_be_focused()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("html").get_attribute("lang") == "de"
    expect(page.get_by_test_id("language-toggle")).to_contain_text("de")


def test_a_french_visitor_on_an_english_page_is_offered_french(site_server, new_context):
    context = new_context()
    context.set_extra_http_headers({"CF-IPCountry": "FR"})
    page = context.new_page()
    page.goto(site_server.url("localhost"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    page.get_by_test_id("language-toggle").click()
    with page.expect_navigation():
        page.get_by_test_id("language-fr").click()
    assert page.locator("html").get_attribute("lang") == "fr"
    # Now in the one visible language: nothing left to choose.
    expect(page.get_by_test_id("language-dropdown")).to_have_count(0)


def test_a_member_who_switches_to_french_keeps_it_for_mails_and_pushes(site, site_server, page):
    """The language menu keeps a logged-in member's choice on the member (User.language,
    what e-mails and pushes are written in), not only in the browser's cookie."""
    email, _profile = member(site, "Lingua")
    log_in(page, site_server, email)
    dropdown = page.get_by_test_id("language-dropdown")
    if not page.get_by_test_id("language-fr").is_visible():
        dropdown.get_by_role("button").first.click()
    with page.expect_navigation():
        page.get_by_test_id("language-fr").click()
    assert page.locator("html").get_attribute("lang") == "fr"

    def language() -> str:
        with on_site(site):
            return User.objects.get(email=email).language

    assert in_thread(language) == "fr"
