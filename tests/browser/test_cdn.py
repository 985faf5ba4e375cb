"""A site with a CDN (settings cdn_prefix) in Debian's Chromium: its pages load their
scripts, styles and approved photos from the CDN's origin, under the site's CSP, and the
islands run; another site on the same server still loads everything from its own host.

The "CDN" here is another host name of the same server, as an origin-pull CDN in front of
the site would be: a different origin for the browser (module scripts need CORS, which
whitenoise answers), the same files."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from apps.profiles.models import PhotoStatus
from apps.profiles.services.photos import photo_upload
from apps.profiles.tests.helpers import jpeg_upload
from apps.tenants.models import Domain, Site
from conftest import on_site
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

CDN_HOST = "cdn.localhost"


@pytest.fixture
def cdn(site, site_server):
    """The general site served through cdn.localhost for the test; put back afterwards."""
    prefix = site_server.url(CDN_HOST, "").rstrip("/")

    def set_prefix(value: str) -> None:
        row = Site.objects.get(pk=site.pk)
        row.cdn_prefix = value
        row.save()

    def add() -> None:
        Domain.objects.create(domain=CDN_HOST, tenant_id=site.pk, is_primary=False)
        set_prefix(prefix)

    def remove() -> None:
        set_prefix("")
        Domain.objects.filter(domain=CDN_HOST).delete()

    in_thread(add)
    yield f"{urlsplit(prefix).scheme}://{urlsplit(prefix).netloc}"
    in_thread(remove)


def approved_photo(site, profile) -> None:
    def run() -> None:
        with on_site(site):
            photo = photo_upload(site=site, user=profile.user, upload=jpeg_upload(width=500, height=500))
            type(photo).objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)

    in_thread(run)


def test_a_site_with_a_cdn_loads_its_assets_and_photos_from_it(committed, cdn, site, site_server, page):
    requests: list[str] = []
    page.on("requestfinished", lambda request: requests.append(request.url))
    anna_email, anna = member(site, "Anna")
    _ben_email, ben = member(site, "Ben")
    committed.made += [(site, anna.user_id), (site, ben.user_id)]
    approved_photo(site, ben)

    log_in(page, site_server, anna_email)
    page.goto(site_server.url("localhost", f"/members/{ben.pk}"))
    photo = page.get_by_test_id("profile-photo").first
    expect(photo).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=photo.element_handle())
    assert photo.get_attribute("src").startswith(f"{cdn}/media/")
    # The islands' modules came from the CDN and ran (the gift button is an island).
    expect(page.get_by_test_id("profile-gift")).to_be_visible()
    assets = [url for url in requests if "/static/" in url]
    assert assets and all(url.startswith(f"{cdn}/static/") for url in assets), assets
    assert any(url.endswith(".js") for url in assets) and any(url.endswith(".css") for url in assets)


def test_another_site_on_the_same_server_keeps_its_own_host(committed, cdn, gay_site, site_server, page):
    requests: list[str] = []
    page.on("requestfinished", lambda request: requests.append(request.url))
    page.goto(site_server.url("gay.localhost"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("entry-warning").wait_for(state="detached")
    assets = [url for url in requests if "/static/" in url]
    assert assets and all(url.startswith(site_server.url("gay.localhost", "/static/")) for url in assets), assets


def test_the_chats_icons_come_from_the_sites_own_host_with_a_cdn(committed, cdn, site, site_server, page):
    """A use element never draws another origin's file: with a CDN the conversation's
    scripts come from it, its icons' sprite from the site's host, and every icon is drawn."""
    from apps.chat.tests.helpers import credits_give, send

    requests: list[str] = []
    page.on("requestfinished", lambda request: requests.append(request.url))
    anna_email, anna = member(site, "Anna")
    _ben_email, ben = member(site, "Ben")
    committed.made += [(site, anna.user_id), (site, ben.user_id)]

    def talk() -> int:
        credits_give(site, anna.user, 5)
        conversation, _message = send(site, anna, ben, "Hello")
        return conversation.pk

    conversation = in_thread(talk)
    log_in(page, site_server, anna_email)
    page.goto(site_server.url("localhost", f"/chats/{conversation}"))
    expect(page.get_by_test_id("chat-send")).to_be_visible()
    shown = """() => [...document.querySelectorAll('[data-testid="chat-conversation"] svg[data-icon]')]
        .filter((svg) => svg.getClientRects().length).map((svg) => svg.querySelector("use").getBBox().width)"""
    drawn = "(widths) => widths.length >= 5 && widths.every((width) => width > 0)"
    page.wait_for_function(f"() => ({drawn})(({shown})())")
    assert site_server.url("localhost", "/static/chat/icons.svg") in requests, requests
    assert any(url.startswith(f"{cdn}/static/dist/") and url.endswith(".js") for url in requests), requests
