"""A visitor's landing page answered from the page cache (apps.common.page_cache) in a real
browser: its scripts and styles run under the response's own CSP nonce (the
browser_context fixture fails on any CSP violation), and its forms post with the CSRF
token filled in for this visitor."""

import re

import pytest

from apps.common import page_cache

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_a_cached_home_page_runs_its_islands_and_posts_its_forms(site_server, page, site, monkeypatch):
    # The stored pages the server answers with (the live server runs in this process).
    hits: list[str] = []
    respond = page_cache.response_messages

    def answered_from_the_cache(entry, visitor):
        hits.append(entry.body.decode())
        return respond(entry, visitor)

    monkeypatch.setattr(page_cache, "response_messages", answered_from_the_cache)
    url = site_server.url("localhost")
    page.goto(url)  # the server learns the site
    page.goto(url)  # and stores this visitor's page
    pages = page_cache._client().hgetall(page_cache.store_key(site.schema_name))
    assert [variant for variant in pages if not variant.startswith(b"#")] != []
    assert len([variant for variant in pages if not variant.startswith(b"#")]) == 1
    assert hits == []
    page.context.clear_cookies()
    response = page.goto(url)  # a new visitor: from the cache
    assert len(hits) == 1
    # What the browser got is that stored page, with this response's own nonce and tokens.
    nonce = re.search(r"'nonce-([^']+)'", response.headers["content-security-policy"]).group(1)
    # (Only where the stored page marks a CSRF token: the page holds other long values,
    # e.g. the push key, that may look like one.)
    stored = re.escape(hits[0].replace(page_cache.NONCE_MARK.decode(), nonce))
    stored = stored.replace(re.escape(page_cache.CSRF_MARK.decode()), "[A-Za-z0-9]{64}")
    assert re.fullmatch(stored, response.text())
    # The entry warning is an island: its script ran, its props were read.
    page.get_by_test_id("entry-warning-enter").click()
    assert page.get_by_test_id("signup-cta").inner_text() == "Sign up for free"
    # The language menu is a form posted with the page's CSRF token.
    if not page.get_by_test_id("language-fr").is_visible():
        page.get_by_test_id("language-dropdown").get_by_role("button").first.click()
    page.get_by_test_id("language-fr").click()
    page.wait_for_url("**/")
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.get_by_test_id("signup-cta").inner_text() == "Inscrivez-vous gratuitement"
