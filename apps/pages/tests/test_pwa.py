"""The installable app (apps.pages.pwa): each site's web app manifest and icons, the head
links and the back button's markup of the base layout, and the "enable push" alert."""

import io
import json
import math
import re
from unittest import mock

import pytest
from django.conf import settings
from django.template import Context, Template
from django.test import RequestFactory
from PIL import Image, ImageChops

from apps.pages import pwa
from apps.profiles.tests.helpers_view import logged_in, member, photos_add

pytestmark = pytest.mark.django_db


def rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return tuple(int(value[i : i + 2], 16) for i in (0, 2, 4))


def manifest_of(client) -> dict:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    return json.loads(response.content)


def png(response) -> Image.Image:
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    image.load()
    return image


def ink_box(image: Image.Image, background: tuple[int, int, int] | None) -> tuple[int, int, int, int]:
    """The box of the pixels that are not the background (the letter); with no
    background, of the pixels that are not transparent."""
    if background is None:
        mask = image.convert("RGBA").getchannel("A")
    else:
        plain = Image.new("RGB", image.size, background)
        mask = ImageChops.difference(image.convert("RGB"), plain).convert("L").point(lambda v: 255 if v > 24 else 0)
    box = mask.getbbox()
    assert box, "the icon shows no letter"
    return box


# --- The manifest ----------------------------------------------------------------------


def test_each_site_has_its_own_manifest(two_sites, client_for):
    general, gay = two_sites
    first, second = manifest_of(client_for(general)), manifest_of(client_for(gay))
    assert (first["name"], second["name"]) == ("Heartline", "Manline")
    assert (first["short_name"], second["short_name"]) == ("Heartline", "Manline")
    assert first["theme_color"] == general.theme_primary == "#5566e8"
    assert second["theme_color"] == gay.theme_primary == "#5a67d8"
    for data, site in ((first, general), (second, gay)):
        assert data["id"] == "/"
        assert data["start_url"] == "/?source=pwa"
        assert data["scope"] == "/"
        assert data["display"] == "standalone"
        assert data["background_color"] == "#ffffff"
        assert data["lang"] == "en"
        assert data["description"] == (site.description or site.index_title or site.name)
        version = pwa.icon_version(site)
        assert data["icons"] == [
            {"src": f"/icons/icon-192.png?v={version}", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": f"/icons/icon-512.png?v={version}", "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {
                "src": f"/icons/maskable-512.png?v={version}",
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ]
    assert pwa.icon_version(general) != pwa.icon_version(gay)


def test_the_manifest_speaks_the_visitors_language(site, client_for):
    client = client_for(site)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    assert manifest_of(client)["lang"] == "fr"


def test_the_manifest_follows_the_operators_changes(site, client_for):
    before = manifest_of(client_for(site))
    site.name = "Heartline Dating Club"
    site.theme_primary = "#d63384"
    site.save()
    after = manifest_of(client_for(site))
    assert after["name"] == "Heartline Dating Club"
    assert after["short_name"] == "Heartline"
    assert after["theme_color"] == "#d63384"
    assert after["icons"][0]["src"] != before["icons"][0]["src"]


def test_the_manifest_is_asked_again_and_answered_304_when_unchanged(site, client_for):
    client = client_for(site)
    response = client.get("/manifest.webmanifest")
    assert response["Cache-Control"] == "no-cache"
    assert "Accept-Language" in response["Vary"] and "Cookie" in response["Vary"]
    again = client.get("/manifest.webmanifest", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    assert client.head("/manifest.webmanifest").status_code == 200
    assert client.post("/manifest.webmanifest").status_code == 405


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("Heartline", "Heartline"),
        ("Twelve chars", "Twelve chars"),
        ("Heartline Dating Club", "Heartline"),
        ("Love & Co Dating", "Love & Co"),
        ("Milf - Meet tonight", "Milf"),
        ("Supercalifragilistic", "Supercalifra"),
        ("  Spaced   out  name ", "Spaced out"),
    ],
)
def test_short_names_fit_under_the_icon(name, short):
    assert pwa.short_name(name) == short
    assert len(pwa.short_name(name)) <= 12


@pytest.mark.parametrize(
    ("name", "letter"),
    [("heartline", "H"), ("Éclat", "E"), ("Ølstue", "O"), ("42 Dates", "4"), ("«Amour»", "A"), ("Жизнь", None)],
)
def test_the_initial(name, letter):
    assert pwa.initial(name) == letter


def test_start_url_query_breaks_nothing(site, client_for):
    response = client_for(site).get("/?source=pwa")
    assert response.status_code == 200
    assert "Heartline" in response.content.decode()


# --- The icons -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "size"), [("icon-192", 192), ("icon-512", 512), ("maskable-512", 512)])
def test_icons_are_pngs_in_the_sites_colour_with_a_white_centred_letter(two_sites, client_for, name, size):
    for site in two_sites:
        image = png(client_for(site).get(pwa.icon_url(site, name)))
        assert image.size == (size, size)
        colour = rgb(site.theme_primary)
        rgb_image = image.convert("RGB")
        for corner in ((0, 0), (size - 1, 0), (0, size - 1), (size - 1, size - 1)):
            assert rgb_image.getpixel(corner) == colour
        left, top, right, bottom = ink_box(image, colour)
        # Centred (within 2 %), white, and big enough to read.
        assert abs((left + right) / 2 - size / 2) <= size * 0.02
        assert abs((top + bottom) / 2 - size / 2) <= size * 0.02
        assert (bottom - top) >= size * 0.3
        assert rgb_image.getpixel((int((left + right) / 2 + 0.5), int((top + bottom) / 2))) in {
            (255, 255, 255),
            colour,
        }  # the middle of an "H" is its bar, of an "M" may be the colour
        colours = {c: n for n, c in rgb_image.crop((left, top, right, bottom)).getcolors(1 << 20)}
        whites = colours.get((255, 255, 255), 0)
        assert whites > (right - left) * (bottom - top) * 0.15


def test_the_maskable_letter_stays_in_the_safe_zone(site, client_for):
    image = png(client_for(site).get(pwa.icon_url(site, "maskable-512")))
    left, top, right, bottom = ink_box(image, rgb(site.theme_primary))
    radius = 0.4 * 512
    for x, y in ((left, top), (right, top), (left, bottom), (right, bottom)):
        assert math.hypot(x - 256, y - 256) < radius


def test_the_badge_is_a_white_letter_on_transparent(site, client_for):
    image = png(client_for(site).get(pwa.icon_url(site, "badge-96")))
    assert image.size == (96, 96)
    rgba = image.convert("RGBA")
    assert rgba.getpixel((0, 0))[3] == 0
    assert rgba.getpixel((95, 95))[3] == 0
    counts = rgba.getcolors(1 << 20)
    opaque = sum(n for n, px in counts if px[3] > 200)
    assert opaque > 96 * 96 * 0.1
    assert {px[:3] for _n, px in counts if px[3] > 0} == {(255, 255, 255)}


def test_favicon_and_apple_touch_icon(site, client_for):
    assert png(client_for(site).get(pwa.icon_url(site, "favicon-32"))).size == (32, 32)
    assert png(client_for(site).get(pwa.icon_url(site, "apple-touch-icon-180"))).size == (180, 180)


def test_a_very_light_colour_gets_a_dark_letter():
    light = Image.open(io.BytesIO(pwa.render_icon(name="Sun", colour="#fff3b0", spec=pwa.ICONS["icon-192"])))
    darkest = min(value for _n, value in light.convert("L").getcolors(256))
    assert darkest < 60
    assert pwa.letter_colour(rgb("#5566e8")) == (255, 255, 255)


def test_a_name_without_latin_letters_gets_a_heart():
    image = Image.open(io.BytesIO(pwa.render_icon(name="Жизнь", colour="#5566e8", spec=pwa.ICONS["icon-192"])))
    left, _top, right, _bottom = ink_box(image, rgb("#5566e8"))
    assert right - left > 192 * 0.4  # a shape, not the font's empty box


def test_versioned_icons_are_cached_for_a_year_others_briefly(site, client_for):
    client = client_for(site)
    current = client.get(pwa.icon_url(site, "icon-192"))
    assert current["Cache-Control"] == "public, max-age=31536000, immutable"
    assert current["ETag"]
    for path in ("/icons/icon-192.png", "/icons/icon-192.png?v=0000000000"):
        response = client.get(path)
        assert response.status_code == 200
        assert response["Cache-Control"] == "public, max-age=300"
        assert response.content == current.content
    not_modified = client.get("/icons/icon-192.png", HTTP_IF_NONE_MATCH=current["ETag"])
    assert not_modified.status_code == 304
    assert not not_modified.content


def test_a_colour_change_is_a_new_icon_address_and_a_new_icon(site, client_for):
    old_url = pwa.icon_url(site, "icon-192")
    old = png(client_for(site).get(old_url))
    site.theme_primary = "#198754"
    site.save()
    new_url = pwa.icon_url(site, "icon-192")
    assert new_url != old_url
    new = png(client_for(site).get(new_url))
    assert new.convert("RGB").getpixel((0, 0)) == (0x19, 0x87, 0x54)
    assert old.convert("RGB").getpixel((0, 0)) != new.convert("RGB").getpixel((0, 0))
    # The old address is no longer "immutable": it shows the current icon briefly.
    stale = client_for(site).get(old_url)
    assert stale["Cache-Control"] == "public, max-age=300"


def test_icons_are_drawn_once_per_site_and_colour(two_sites, client_for):
    general, gay = two_sites
    with mock.patch.object(pwa, "render_icon", wraps=pwa.render_icon) as render:
        for _ in range(3):
            client_for(general).get(pwa.icon_url(general, "icon-512"))
        assert render.call_count == 1
        client_for(gay).get(pwa.icon_url(gay, "icon-512"))
        assert render.call_count == 2
        # Each site's schema has its own cache entry: never the other site's colour.
        gay_icon = png(client_for(gay).get(pwa.icon_url(gay, "icon-512")))
        assert gay_icon.convert("RGB").getpixel((0, 0)) == rgb(gay.theme_primary)
        assert render.call_count == 2


@pytest.mark.parametrize(
    "path",
    [
        "/icons/nope.png",
        "/icons/icon-193.png",
        "/icons/ICON-192.png",
        "/icons/icon-192.jpg",
        "/icons/../icon-192.png",
        "/icons/..png",
        "/icons/%2e%2e/icon-192.png",
        "/icons/icon-192.png/",
        "//icons/icon-192.png",
        "/icons//icon-192.png",
        "/icons/icon-192.png\x00",
        "/icons/icon-192\x00.png",
        "/icons/icon-192.png?v=\x00",
        "/manifest.webmanifest\x00",
        "/manifest.webmanifest?x=%00",
    ],
)
def test_bad_icon_and_manifest_addresses_get_4xx(site, client_for, path):
    response = client_for(site).get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)


def test_icons_refuse_writes(site, client_for):
    assert client_for(site).post("/icons/icon-192.png").status_code == 405


def test_icon_url_knows_only_real_icons(site):
    with pytest.raises(KeyError):
        pwa.icon_url(site, "nope")


# --- The base layout ---------------------------------------------------------------------


def test_pages_link_the_manifest_and_icons(site, client_for):
    body = client_for(site).get("/").content.decode()
    version = pwa.icon_version(site)
    assert '<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials">' in body
    assert '<meta name="theme-color" content="#5566e8">' in body
    assert f'<link rel="icon" href="/icons/favicon-32.png?v={version}" sizes="32x32" type="image/png">' in body
    assert f'<link rel="apple-touch-icon" href="/icons/apple-touch-icon-180.png?v={version}" sizes="180x180">' in body


def test_the_csp_lets_the_page_load_its_manifest_and_icons(site, client_for):
    csp = client_for(site).get("/")["Content-Security-Policy"]
    directives = dict([*part.strip().split(" ", 1), ""][:2] for part in csp.split(";") if part.strip())
    manifest_src = directives.get("manifest-src", directives["default-src"])
    assert "'self'" in manifest_src.split()
    assert "'self'" in directives["img-src"].split()


def test_the_body_names_the_route_and_the_top_bar_has_a_hidden_back_button(site, client_for):
    profile = member(site, "Backer")
    client = logged_in(site, client_for, profile)
    body = client.get(f"/members/{profile.pk}").content.decode()
    assert 'data-route="members-id"' in body
    button = re.search(r"<button[^>]*data-back-button[^>]*>", body).group(0)
    assert 'aria-label="Back"' in button and "hidden" in button and 'type="button"' in button
    assert 'data-route="members"' in client.get("/members").content.decode()
    # Visitors' top bar has it too; a 404 page names no route.
    assert "data-back-button" in client_for(site).get("/").content.decode()
    assert 'data-route=""' in client_for(site).get("/no-such-page").content.decode()


# --- The "enable push" alert --------------------------------------------------------------


def render_alert(request) -> str:
    return Template("{% load profile_alerts %}{% enable_push_alert %}").render(Context({"request": request}))


def alert_request(site, user, url_name: str = "index"):
    request = RequestFactory().get("/")
    request.site = request.tenant = site
    request.user = user
    request.resolver_match = mock.Mock(url_name=url_name)
    return request


def test_the_push_alert_is_rendered_hidden_for_members_with_the_key(site, client_for, settings):
    settings.VAPID_PUBLIC_KEY = "deployment-key"
    profile = member(site, "Pusher")
    photos_add(site, profile, 1)  # no photo alert: the push alert waits for a page without one
    body = logged_in(site, client_for, profile).get("/members").content.decode()
    alert = re.search(r"<div[^>]*data-enable-push-alert[^>]*>", body).group(0)
    assert 'data-push-key="deployment-key"' in alert
    assert " hidden" in alert
    assert 'data-dismiss-alert="enable_push"' in body
    assert "Turn on notifications" in body
    assert 'aria-live="polite"' in body
    # Not for visitors.
    assert "data-enable-push-alert" not in client_for(site).get("/").content.decode()


def test_the_push_alert_uses_the_sites_own_key_first(site, settings):
    from django.contrib.auth.models import AnonymousUser

    settings.VAPID_PUBLIC_KEY = "deployment-key"
    profile = member(site, "Owner")
    assert 'data-push-key="deployment-key"' in render_alert(alert_request(site, profile.user))
    site.push_public_key = "site-key"
    assert 'data-push-key="deployment-key"' in render_alert(alert_request(site, profile.user))  # half a pair
    site.push_private_key = "site-private-key"
    assert 'data-push-key="site-key"' in render_alert(alert_request(site, profile.user))
    assert render_alert(alert_request(site, AnonymousUser())).strip() == ""


def test_the_push_alert_is_not_rendered_without_a_key(site, settings):
    settings.VAPID_PUBLIC_KEY = ""
    site.push_public_key = ""
    profile = member(site, "Keyless")
    assert "data-enable-push-alert" not in render_alert(alert_request(site, profile.user))


def test_the_push_alert_is_not_rendered_once_dismissed(site, client_for, settings):
    settings.VAPID_PUBLIC_KEY = "deployment-key"
    profile = member(site, "Dismisser")
    photos_add(site, profile, 1)
    client = logged_in(site, client_for, profile)
    assert "data-enable-push-alert" in client.get("/members").content.decode()
    response = client.post(
        "/api/dismiss.php", data={"alert": "enable_push"}, content_type="application/json", HTTP_X_CSRFTOKEN="x"
    )
    assert response.status_code == 200, response.content
    assert "data-enable-push-alert" not in client.get("/members").content.decode()


def test_the_push_alert_is_not_on_the_signup_pages(site, settings):
    settings.VAPID_PUBLIC_KEY = "deployment-key"
    profile = member(site, "Signer")
    for route in ("signup", "members-id-signup", "complete-signup"):
        assert "data-enable-push-alert" not in render_alert(alert_request(site, profile.user, route))
    assert "data-enable-push-alert" in render_alert(alert_request(site, profile.user, "notifications"))


def test_settings_and_signup_get_the_deployment_key_when_the_site_has_none(site, client_for, settings):
    from apps.tenants.selectors import push_public_key

    settings.VAPID_PUBLIC_KEY = "deployment-key"
    site.push_public_key = ""
    site.save()
    assert push_public_key(site) == "deployment-key"
    assert client_for(site).get("/api/settings.php").json()["push_public_key"] == "deployment-key"
    assert "deployment-key" in client_for(site).get("/signup").content.decode()
    site.push_public_key, site.push_private_key = "site-key", "site-private-key"
    site.save()
    assert push_public_key(site) == "site-key"
    assert client_for(site).get("/api/settings.php").json()["push_public_key"] == "site-key"
