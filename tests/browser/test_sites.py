"""The demo sites in a real browser (Debian's Chromium), at phone and desktop widths."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_each_site_shows_its_own_name_and_niche(site_server, page):
    page.goto(site_server.url("localhost"))
    assert page.get_by_test_id("site-name").inner_text() == "Heartline"
    assert page.get_by_test_id("niche").inner_text().lower() == "general"
    page.goto(site_server.url("gay.localhost"))
    assert page.get_by_test_id("site-name").inner_text() == "Manline"
    assert page.get_by_test_id("niche").inner_text().lower() == "gay"


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
