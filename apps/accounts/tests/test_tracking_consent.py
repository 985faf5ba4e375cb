"""Tracking from ad links and the cookie choice (issue 13 item 11): a visitor's first
request with ?network= no longer gets a 30-day session before any consent."""

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session

from apps.accounts.tests.test_api import signup_data
from apps.accounts.tracking import CONSENT_COOKIE, COOKIE, TRACKING_DAYS
from conftest import on_site

pytestmark = pytest.mark.django_db


def test_a_visitors_first_request_with_network_sets_a_30_day_session_cookie(site, client_for):
    client = client_for(site)
    with on_site(site):
        sessions = Session.objects.count()
    response = client.get("/?network=adnet&sub1=spring")
    assert response.status_code == 302 and response["Location"] == "/"
    assert settings.SESSION_COOKIE_NAME not in response.cookies
    tracking = response.cookies[COOKIE]
    assert tracking["max-age"] == "" and tracking["expires"] == ""  # gone when the browser closes
    assert tracking["httponly"]
    with on_site(site):
        assert Session.objects.count() == sessions
    page = client.get("/")
    assert 'data-testid="cookie-banner"' in page.content.decode()
    assert settings.SESSION_COOKIE_NAME not in page.cookies


def test_allowing_cookies_keeps_the_tracking_for_30_days(site, client_for):
    client = client_for(site)
    client.get("/?network=adnet&ref=r1")
    response = client.post("/pages/cookies", {"choice": "all", "next": "/pricing"})
    assert response.status_code == 302 and response["Location"] == "/pricing"
    assert response.cookies[CONSENT_COOKIE].value == "all"
    assert response.cookies[COOKIE]["max-age"] == TRACKING_DAYS * 24 * 3600
    page = client.get("/pricing").content.decode()
    assert 'data-testid="cookie-banner"' not in page
    assert "Your cookie choice has been saved." in page
    # A later arrival is kept as long, and merged with what was there.
    again = client.get("/?sub2=s2")
    assert again.cookies[COOKIE]["max-age"] == TRACKING_DAYS * 24 * 3600


def test_only_necessary_cookies_keep_it_until_the_browser_closes(site, client_for):
    client = client_for(site)
    client.get("/?network=adnet")
    response = client.post("/pages/cookies", {"choice": "necessary", "next": "https://evil.example/"})
    assert response["Location"] == "/pages/cookies"  # never off the site
    assert response.cookies[CONSENT_COOKIE].value == "necessary"
    assert response.cookies[COOKIE]["max-age"] == ""
    body = client.get("/pages/cookies").content.decode()
    assert "You allow only necessary cookies." in body
    assert client.post("/pages/cookies", {"choice": "everything"}).status_code == 400


def test_a_forged_tracking_cookie_is_ignored(site, client_for):
    client = client_for(site)
    client.cookies[COOKIE] = '{"network":"forged"}'
    assert 'data-testid="cookie-banner"' not in client.get("/").content.decode()
    site.signups = "with_trafficsource"
    site.save()
    response = client.post("/api/signup.php", signup_data(), content_type="application/json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "signups_closed"
