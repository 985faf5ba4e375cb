"""The installable app (spec §2 "installed-app (standalone) mode"): each site's web app
manifest at /manifest.webmanifest and its icons at /icons/<name>.png.

The icons are drawn with Pillow from the site's primary colour and the first letter of its
name (a white letter on the colour; a dark one where white would not be readable), once
per site, name and colour: the PNGs are kept in the (per-site) cache under a version, a
short hash of what they are drawn from. Pages link them with that version (`?v=`), so an
operator's change of colour or name is a new address and browsers may keep each version
for a year.
"""

from __future__ import annotations

import hashlib
import io
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe
from PIL import Image, ImageDraw, ImageFont

from apps.tenants.models import Site

# Raise when the drawing changes: every site's icons get new addresses.
ICON_DESIGN = "1"
SHORT_NAME_MAX = 12
BACKGROUND_COLOUR = "#ffffff"
LETTER_LIGHT = (255, 255, 255)
LETTER_DARK = (33, 37, 41)  # Bootstrap's body colour, for very light primary colours
ICON_CACHE_SECONDS = 30 * 24 * 60 * 60
# A versioned address never changes its content; one without (or with an old) version
# may, so it is kept briefly only.
IMMUTABLE = "public, max-age=31536000, immutable"
SHORT_LIVED = "public, max-age=300"


@dataclass(frozen=True)
class IconSpec:
    size: int
    # "any": the letter on a full square of the colour; "maskable": the same with the
    # letter inside the safe zone (the circle of 40 % radius in the middle); "badge": a
    # white letter on transparent, for the status bar of notifications.
    kind: str
    # The largest box the letter may fill, as parts of the icon's width and height.
    glyph_width: float
    glyph_height: float


ICONS: dict[str, IconSpec] = {
    "icon-192": IconSpec(192, "any", 0.66, 0.54),
    "icon-512": IconSpec(512, "any", 0.66, 0.54),
    # Half the diagonal of 0.54 x 0.42 is 0.34 < 0.40: inside the safe zone.
    "maskable-512": IconSpec(512, "maskable", 0.54, 0.42),
    "apple-touch-icon-180": IconSpec(180, "any", 0.66, 0.54),
    "favicon-32": IconSpec(32, "any", 0.78, 0.68),
    "badge-96": IconSpec(96, "badge", 0.84, 0.76),
}

# Letters the built-in font lacks (it has ASCII only) and that do not decompose.
_LETTER_FALLBACKS = {"Ø": "O", "Æ": "A", "Œ": "O", "ß": "S", "Ł": "L", "Đ": "D", "Þ": "T", "Ð": "D", "Ŀ": "L"}


def initial(name: str) -> str | None:
    """The first letter or digit of `name` as the built-in font can draw it (ASCII,
    upper case: "Éclat" -> "E"), or None when the name has none (the icon shows a heart)."""
    for char in name:
        if not char.isalnum():
            continue
        char = char.upper()
        char = _LETTER_FALLBACKS.get(char, char)
        ascii_only = "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii() and c.isalnum())
        if ascii_only:
            return ascii_only[0].upper()
    return None


def short_name(name: str, limit: int = SHORT_NAME_MAX) -> str:
    """The name under the app's icon: the site's name when it is short enough, else the
    part before a tagline ("Milf - Meet tonight" -> "Milf"), else as many of its first
    words as fit ("Heartline Dating Club" -> "Heartline"), else its first `limit`
    characters."""
    name = " ".join(name.split())
    if len(name) <= limit:
        return name
    # "Milf - Meet tonight", "Heartline | Dating": the part before the tagline.
    for separator in (" | ", " - ", " – ", " — ", ": ", " · "):
        head = name.split(separator, 1)[0].strip()
        if head and head != name:
            name = head
            break
    if len(name) <= limit:
        return name
    fitted = ""
    for word in name.split(" "):
        candidate = f"{fitted} {word}" if fitted else word
        if len(candidate) > limit:
            break
        fitted = candidate
    fitted = fitted.rstrip(" -–—:,.&+|/")
    return fitted or name[:limit].rstrip()


def icon_version(site: Site) -> str:
    """A short hash of what the icons are drawn from."""
    source = f"{ICON_DESIGN}|{site.theme_primary.lower()}|{site.name}"
    return hashlib.sha256(source.encode()).hexdigest()[:10]


def icon_url(site: Site, name: str) -> str:
    """The versioned address of one of the site's icons (a key of ICONS), e.g. for the
    `icon` ("icon-192") and `badgeIcon` ("badge-96") of a push notice."""
    if name not in ICONS:
        raise KeyError(name)
    return f"/icons/{name}.png?v={icon_version(site)}"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    if len(value) != 6:
        value = "5566e8"
    try:
        return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))
    except ValueError:
        return (0x55, 0x66, 0xE8)


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def letter_colour(background: tuple[int, int, int]) -> tuple[int, int, int]:
    """White, unless white on `background` has less than 3:1 contrast (WCAG's minimum for
    large text and graphics): then a near-black."""
    contrast = 1.05 / (_luminance(background) + 0.05)
    return LETTER_LIGHT if contrast >= 3 else LETTER_DARK


_GLYPH_FONT_SIZE = 400


@lru_cache(maxsize=64)
def _glyph_mask(letter: str | None) -> Image.Image:
    """The letter (or a heart) as a large 8-bit mask cropped to its ink."""
    canvas = Image.new("L", (_GLYPH_FONT_SIZE * 2, _GLYPH_FONT_SIZE * 2), 0)
    draw = ImageDraw.Draw(canvas)
    if letter is None:
        # A heart: two circles and the triangle below them.
        r = _GLYPH_FONT_SIZE // 4
        cx, cy = _GLYPH_FONT_SIZE, _GLYPH_FONT_SIZE
        draw.ellipse((cx - 2 * r, cy - r, cx, cy + r), fill=255)
        draw.ellipse((cx, cy - r, cx + 2 * r, cy + r), fill=255)
        # The lines from the tip touch each circle (tangents: angle 136.4°).
        side = (1.724 * r, 0.69 * r)
        draw.polygon(
            [(cx - side[0], cy + side[1]), (cx, cy), (cx + side[0], cy + side[1]), (cx, cy + 2.5 * r)], fill=255
        )
    else:
        font = ImageFont.load_default(size=_GLYPH_FONT_SIZE)
        # The built-in font is a regular weight; a stroke in the same colour makes it bold
        # enough to read at 32 px.
        stroke = _GLYPH_FONT_SIZE // 28
        draw.text(
            (_GLYPH_FONT_SIZE, _GLYPH_FONT_SIZE),
            letter,
            fill=255,
            font=font,
            anchor="mm",
            stroke_width=stroke,
            stroke_fill=255,
        )
    box = canvas.getbbox()
    return canvas.crop(box) if box else canvas


def _fitted_glyph(letter: str | None, spec: IconSpec) -> Image.Image:
    mask = _glyph_mask(letter)
    max_w, max_h = spec.size * spec.glyph_width, spec.size * spec.glyph_height
    scale = min(max_w / mask.width, max_h / mask.height)
    size = (max(1, round(mask.width * scale)), max(1, round(mask.height * scale)))
    return mask.resize(size, Image.Resampling.LANCZOS)


def render_icon(*, name: str, colour: str, spec: IconSpec) -> bytes:
    """One icon as PNG bytes."""
    glyph = _fitted_glyph(initial(name), spec)
    position = ((spec.size - glyph.width) // 2, (spec.size - glyph.height) // 2)
    if spec.kind == "badge":
        # Only the alpha channel counts (Android tints it): white everywhere, the letter opaque.
        alpha = Image.new("L", (spec.size, spec.size), 0)
        alpha.paste(glyph, position)
        image = Image.new("RGBA", (spec.size, spec.size), (*LETTER_LIGHT, 0))
        image.putalpha(alpha)
    else:
        background = _rgb(colour)
        image = Image.new("RGB", (spec.size, spec.size), background)  # opaque: no alpha channel
        image.paste(
            letter_colour(background), (*position, position[0] + glyph.width, position[1] + glyph.height), mask=glyph
        )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def site_icon(site: Site, name: str) -> bytes:
    """The PNG of one of the site's icons, drawn once per version (the cache keys carry
    the site's schema, django_tenants.cache.make_key)."""
    spec = ICONS[name]
    version = icon_version(site)
    key = f"pwa-icon:{name}:{version}"
    data = cache.get(key)
    if data is None:
        data = render_icon(name=site.name, colour=site.theme_primary, spec=spec)
        cache.set(key, data, ICON_CACHE_SECONDS)
    return data


@require_safe
def icon(request: HttpRequest, name: str) -> HttpResponse:
    if name not in ICONS:
        raise Http404(_("This page could not be found"))
    site = request.tenant
    version = icon_version(site)
    etag = f'"{name}-{version}"'
    cache_control = IMMUTABLE if request.GET.get("v") == version else SHORT_LIVED
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(site_icon(site, name), content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response


def manifest_data(site: Site) -> dict:
    """The web app manifest of `site` in the current language."""
    version = icon_version(site)

    def entry(name: str, purpose: str) -> dict:
        size = ICONS[name].size
        return {
            "src": f"/icons/{name}.png?v={version}",
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": purpose,
        }

    return {
        "id": "/",
        "name": site.name,
        "short_name": short_name(site.name),
        "description": site.description or site.index_title or site.name,
        "lang": get_language() or site.default_language or "en",
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": "/?source=pwa",
        "scope": "/",
        "display": "standalone",
        "theme_color": site.theme_primary,
        "background_color": BACKGROUND_COLOUR,
        "categories": ["social", "lifestyle"],
        "icons": [entry("icon-192", "any"), entry("icon-512", "any"), entry("maskable-512", "maskable")],
    }


@require_safe
def manifest(request: HttpRequest) -> HttpResponse:
    response = JsonResponse(
        manifest_data(request.tenant),
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
    # Its language follows the visitor's choice; the operator may change the name and
    # colours at any time: browsers ask again each time (a 304 when nothing changed).
    response["Cache-Control"] = "no-cache"
    response["ETag"] = '"' + hashlib.sha256(response.content).hexdigest()[:16] + '"'
    if request.headers.get("If-None-Match") == response["ETag"]:
        not_modified = HttpResponse(status=304)
        not_modified["ETag"] = response["ETag"]
        not_modified["Cache-Control"] = response["Cache-Control"]
        patch_vary_headers(not_modified, ("Cookie", "Accept-Language"))
        return not_modified
    patch_vary_headers(response, ("Cookie", "Accept-Language"))
    return response
