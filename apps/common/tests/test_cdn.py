"""The site's CDN (spec §3 settings cdn_prefix): a site that has one serves its static
assets and the media anyone may see from it, with the CSP allowing that origin; another
site on the same server is untouched, and files only a member may see stay on the host."""

import re

import pytest

from apps.chat.tests.helpers import credits_give, send
from apps.common.storage import cdn_origin, cdn_url, site_static_url
from apps.profiles.models import PhotoStatus
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import logged_in, member, photos_add
from conftest import on_site

pytestmark = pytest.mark.django_db

CDN = "https://cdn.heartline.example/assets"


@pytest.fixture
def cdn_site(two_sites):
    site, other = two_sites
    site.cdn_prefix = CDN + "/"
    site.save()
    return site, other


def csp(response) -> dict[str, list[str]]:
    return {
        part.split()[0]: part.split()[1:]
        for part in (p.strip() for p in response.headers["Content-Security-Policy"].split(";"))
        if part
    }


def asset_urls(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*/static/[^"]*)"', html)


def test_assets_of_the_site_with_a_cdn_come_from_it_and_the_other_sites_from_their_host(cdn_site, client_for):
    site, other = cdn_site
    with_cdn = client_for(site).get("/")
    urls = asset_urls(with_cdn.content.decode())
    assert urls and all(url.startswith(f"{CDN}/static/") for url in urls), urls
    assert any(url.startswith(f"{CDN}/static/dist/") and url.endswith(".js") for url in urls)
    without = asset_urls(client_for(other).get("/").content.decode())
    assert without and all(url.startswith("/static/") for url in without), without


def test_the_csp_allows_the_cdn_origin_on_its_own_site_only(cdn_site, client_for):
    site, other = cdn_site
    policy = csp(client_for(site).get("/"))
    origin = "https://cdn.heartline.example"
    for directive in ("script-src", "style-src", "img-src", "font-src", "media-src"):
        assert origin in policy[directive], (directive, policy)
    assert policy["font-src"][0] == policy["media-src"][0] == "'self'"
    assert origin not in policy["connect-src"] and origin not in policy["default-src"]
    other_policy = csp(client_for(other).get("/"))
    assert not any(origin in sources for sources in other_policy.values())
    assert "font-src" not in other_policy


def test_approved_photos_come_from_the_cdn_and_a_members_pending_and_chat_photos_do_not(cdn_site, client_for):
    site, _other = cdn_site
    anna = member(site, "Anna")
    ben = member(site, "Ben", gender="male")
    (approved,) = photos_add(site, anna, 1)
    (pending,) = photos_add(site, ben, 1, status=PhotoStatus.PENDING)
    # Another member's approved photos, on their profile page and in the search cards.
    page = logged_in(site, client_for, ben).get(f"/members/{anna.pk}").content.decode()
    assert f'src="{CDN}/media/{approved.thumb.name}"' in page
    assert f'href="{CDN}/media/{approved.image.name}"' in page
    cards = logged_in(site, client_for, ben).get("/api/search.php").json()
    thumbs = [card["main_image"]["thumb_filename"] for card in cards["results"] if card["main_image"]]
    assert f"{CDN}/media/{approved.thumb.name}" in thumbs
    matches = [card["main_image"]["match_filename"] for card in cards["results"] if card["main_image"]]
    assert f"{CDN}/media/{approved.image.name}" in matches
    # The member's own photo waiting for approval: on the site's host, where the session is.
    own = logged_in(site, client_for, ben).get(f"/members/{ben.pk}").content.decode()
    assert f'src="/media/{pending.thumb.name}"' in own and CDN + "/media/" not in own
    photos = logged_in(site, client_for, ben).get("/api/photos.php").json()["photos"]
    assert [photo["thumb_url"] for photo in photos] == [f"/media/{pending.thumb.name}"]
    # A chat's photos only its two members may see: never from the CDN.
    credits_give(site, anna.user, 10)
    conversation, message = send(site, anna, ben, None, photo=jpeg_upload())
    chat = logged_in(site, client_for, ben).get(f"/chats/{conversation.pk}").content.decode()
    assert f"{CDN}/media/{approved.thumb.name}" in chat  # the peer's approved thumbnail
    assert f'"/media/{message.photo.name}"' in chat and f"{CDN}/media/{message.photo.name}" not in chat
    # The chat's icons' sprite (<use href>, which never loads another origin's file): the host's.
    assert '"icons": "/static/chat/icons.svg"' in chat and f"{CDN}/static/chat/" not in chat


def test_cdn_urls_only_prefix_paths_of_the_site(cdn_site):
    site, other = cdn_site
    with on_site(site):
        assert cdn_url("/media/x.jpg") == f"{CDN}/media/x.jpg"
        assert cdn_url("https://bucket.example/x.jpg") == "https://bucket.example/x.jpg"
        assert cdn_url("//evil.example/x.jpg") == "//evil.example/x.jpg"
    with on_site(other):
        assert cdn_url("/media/x.jpg") == "/media/x.jpg"
    assert cdn_origin(CDN) == "https://cdn.heartline.example"
    with on_site(site):
        assert site_static_url("chat/icons.svg") == "/static/chat/icons.svg"
    assert cdn_origin("") == cdn_origin("not a url") == ""
