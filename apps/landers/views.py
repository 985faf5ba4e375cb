"""The landers of spec §2 (landers-*, members-id-landing*), the video's files and
captions, and the operators' site pages at /<token>.

Every lander renders fully on the server in the lander layout and leads into signup
with a plain link (the signup steps page) that the signup modal island takes over once
its script has loaded. A visit remembers the lander and its campaign label ({slug}) in
the tracking cookie; the account made afterwards keeps them (SignupTracking.lander,
.campaign) together with the tracking parameters of spec §7."""

from __future__ import annotations

import math
import mimetypes
import re
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe
from django_countries import countries

# Up to accounts: whether this visitor may sign up, and the partner's tracking kept, are the account's.
from apps.accounts.selectors import signup_allowed
from apps.accounts.tracking import lander_visit_keep
from apps.common import page_cache
from apps.common.locale import request_country
from apps.common.media import media_path_check
from apps.landers.copy import niche_copy
from apps.landers.keys import MEMBER_LANDERS
from apps.landers.markup import page_summary, render_page_body
from apps.landers.selectors import (
    THUMB_SIDE,
    approved_photo_count,
    featured_profile,
    lander_cards,
    member_photos,
    online_cards,
    profile_card,
    region_groups,
    site_lander_video,
    site_page,
)
from apps.profiles.models import Profile
from apps.profiles.selectors_view import profile_location
from apps.tenants.selectors import selected_country

# Images in the first screen of a phone are loaded at once, the rest lazily.
EAGER_IMAGES = 4
# The message of the normal 404 page.
NOT_FOUND = gettext_lazy("This page could not be found")


# --- Shared ---------------------------------------------------------------------------


def _signup_context(request: HttpRequest, *, profile: Profile | None = None) -> dict:
    """The way into signup: the steps page as a plain link (works before any script),
    taken over by the signup modal island; or, when this visitor may not sign up
    (spec §5 signups "with_trafficsource" without a network), no offer but a message."""
    # Up to accounts: a lander offers the signup island with the signup pages' own props.
    from apps.accounts.views_signup import signup_island_props

    open_ = signup_allowed(request=request)
    next_path = reverse("members-id", args=[profile.pk]) if profile else "/"
    return {
        "signups_open": open_,
        "signup_url": reverse("members-id-signup", args=[profile.pk]) if profile else reverse("signup"),
        "login_url": f"{reverse('login')}?{urlencode({'next': next_path})}",
        "signup_props": signup_island_props(request, mode="modal", profile=profile) if open_ else None,
    }


def _member_context(request: HttpRequest, profile: Profile) -> dict:
    """The featured member as the member landers show them (their card in the first screen)."""
    site = request.site
    return {
        "profile": profile,
        "card": {**profile_card(profile, site=site), "eager": True},
        "location": profile_location(site=site, profile=profile),
    }


def _eager(cards: list[dict], count: int = EAGER_IMAGES) -> list[dict]:
    """Copies of the (cached) cards, the first `count` marked to load at once."""
    return [{**card, "eager": index < count} for index, card in enumerate(cards)]


def _render(request: HttpRequest, template: str, context: dict, *, lander: str, slug: str) -> HttpResponse:
    site = request.site
    eager = context.pop("eager_count", EAGER_IMAGES)
    for key in ("cards", "others"):
        if key in context:
            context[key] = _eager(context[key], eager if key == "cards" else 0)
    context = {"copy": niche_copy(site.niche), "lander": lander, "thumb_side": THUMB_SIDE, **context}
    response = render(request, template, context)
    lander_visit_keep(response, request, lander=lander, campaign=slug)
    # Visitors of the same variant get this page from the cache (apps.common.page_cache),
    # with their own tracking cookie.
    page_cache.offer(request, label=slug, keep={"lander": lander, "campaign": slug})
    return response


# --- Generic landers -------------------------------------------------------------------


def _benefits() -> list[dict]:
    return [
        {"icon": "free", "title": _("Free sign-up"), "text": _("Create your profile in a minute, at no cost.")},
        {"icon": "near", "title": _("People near you"), "text": _("Search by region, age and what you like.")},
        {"icon": "chat", "title": _("Chat in real time"), "text": _("Messages, photos and gifts, live.")},
        {"icon": "shield", "title": _("Discreet and safe"), "text": _("Your data stays private; block anyone.")},
        {"icon": "heart", "title": _("Likes and matches"), "text": _("See who likes you back.")},
        {"icon": "phone", "title": _("On your phone"), "text": _("Install the site as an app, get push messages.")},
    ]


def _map_pins(groups: list[dict]) -> list[dict]:
    """Positions on the map's 300 x 300 SVG: the visitor in the centre, each region on a
    ring around it (the busiest nearest), spread evenly. Decorative: the list beside
    it carries the information."""
    pins = []
    for index, group in enumerate(groups):
        angle = index * 2.39996  # the golden angle: no two pins line up
        radius = 55 + 18 * index
        pins.append(
            {
                **group,
                "x": round(150 + radius * math.cos(angle), 1),
                "y": round(150 + radius * math.sin(angle), 1),
                "r": max(6, min(16, 4 + group["count"])),
            }
        )
    return pins


def _captions_tracks(request: HttpRequest) -> list[dict]:
    current = translation.get_language()
    tracks = []
    for code in request.site.languages:
        with translation.override(code):
            label = translation.get_language_info(code)["name_local"]
        tracks.append(
            {
                "code": code,
                "label": label,
                "url": reverse("landers-captions", args=[code]),
                "default": code == current,
            }
        )
    if tracks and not any(track["default"] for track in tracks):
        tracks[0]["default"] = True
    return tracks


def _generic_context(request: HttpRequest, lander: str) -> dict:
    site = request.site
    if lander == "alonetonight":
        return {"cards": online_cards(site, limit=12)}
    if lander == "collagelanding":
        return {"cards": lander_cards(site, limit=13)}
    if lander == "gallery":
        return {"cards": lander_cards(site, limit=24)}
    if lander == "iconslanding":
        return {"cards": lander_cards(site, limit=6), "benefits": _benefits()}
    if lander == "maplanding":
        country = selected_country(site, request_country(request))
        groups = region_groups(site, country=country)
        place = str(countries.name(country)) or country
        heading = str(niche_copy(site.niche).map_heading) % {"place": place}
        return {"country": country, "place": place, "map_heading": heading, "pins": _map_pins(groups), "groups": groups}
    if lander == "socialnetwork":
        return {"cards": lander_cards(site, limit=8)}
    # video, transitionsvideolanding
    video = site_lander_video(site)
    return {
        "video": video,
        "tracks": _captions_tracks(request) if video else [],
        "cards": lander_cards(site, limit=8),
        "eager_count": 0,  # the poster (or the slideshow's first photo) is the first screen
    }


@page_cache.cacheable
@require_safe
def generic_lander(request: HttpRequest, lander: str, slug: str = "") -> HttpResponse:
    """/landers/<lander> and /landers/<lander>/<slug> (urls.py routes GENERIC_LANDERS only)."""
    if request.user.is_authenticated:
        return redirect("members")
    context = {**_signup_context(request), **_generic_context(request, lander)}
    return _render(request, f"landers/{lander}.html", context, lander=lander, slug=slug)


# --- Landers of one member ---------------------------------------------------------------


def _member_or_404(id: int) -> Profile:
    profile = featured_profile(id)
    if profile is None:
        raise Http404(NOT_FOUND)
    return profile


@page_cache.cacheable
@require_safe
def member_lander(request: HttpRequest, id: int, variant: str, slug: str = "") -> HttpResponse:
    """/members/<id>/landing, /landing2/<slug>, /landing3/<slug>: one member of this site
    featured; signup starts with a message to them and comes back to their profile."""
    profile = _member_or_404(id)
    if request.user.is_authenticated:
        return redirect("members-id", id=profile.pk)
    others = [other for other in lander_cards(request.site, limit=7) if other["id"] != profile.pk][:6]
    context = {
        **_signup_context(request, profile=profile),
        **_member_context(request, profile),
        "photos": member_photos(profile),
        "photo_count": approved_photo_count(profile),
        "others": others,
    }
    lander = MEMBER_LANDERS[variant]
    return _render(request, f"landers/member_{variant}.html", context, lander=lander, slug=slug)


@page_cache.cacheable
@require_safe
def member_signup(request: HttpRequest, id: int) -> HttpResponse:
    """/members/<id>/signup: the signup steps at once, starting with a message to this
    member, beside their card, in the lander layout."""
    # Up to accounts: a lander offers the signup island with the signup pages' own props.
    from apps.accounts.views_signup import signup_island_props

    profile = _member_or_404(id)
    if request.user.is_authenticated:
        return redirect("members-id", id=profile.pk)
    # The island says itself when this visitor may not sign up (its signupsOpen).
    context = {**_member_context(request, profile), "signup_props": signup_island_props(request, profile=profile)}
    return _render(request, "landers/member_signup.html", context, lander="member-signup", slug="")


# --- The video's files and captions -----------------------------------------------------

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@require_safe
def lander_media(request: HttpRequest, path: str) -> HttpResponse:
    """The site's lander video files (development and test servers; production serves
    media from its storage), with byte ranges: Safari plays a video only from a server
    that answers them."""
    media_path_check(path, "landers")
    video = site_lander_video(request.site)
    field = {file.name: file for file in video.files}.get(path) if video else None
    if field is None:
        raise Http404(NOT_FOUND)
    try:
        with field.open("rb") as handle:
            data = handle.read()
    except OSError as error:
        raise Http404(NOT_FOUND) from error
    response = HttpResponse(data, content_type=mimetypes.guess_type(path)[0])
    match = _RANGE.match(request.headers.get("Range", ""))
    if match and (match.group(1) or match.group(2)):
        size = len(data)
        if match.group(1):
            start = int(match.group(1))
            end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
        else:  # the last N bytes
            start, end = max(size - int(match.group(2)), 0), size - 1
        if start >= size or start > end:
            response = HttpResponse(status=416)
            response["Content-Range"] = f"bytes */{size}"
            return response
        response.content, response.status_code = data[start : end + 1], 206
        response["Content-Range"] = f"bytes {start}-{end}/{size}"
    response["Accept-Ranges"] = "bytes"
    # The names change with every new video: a file never changes under its name.
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def _timestamp(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"


@require_safe
def captions(request: HttpRequest, language: str) -> HttpResponse:
    """The video's WebVTT captions in one of the site's languages, one cue per slide:
    the niche's lines (apps.landers.copy), translated by gettext."""
    site = request.site
    video = site_lander_video(site)
    if video is None or language not in site.languages:
        raise Http404(NOT_FOUND)
    lines = niche_copy(site.niche).captions
    cues = ["WEBVTT", ""]
    with translation.override(language):
        for index in range(max(video.slides, 1)):
            start, end = index * video.slide_seconds, (index + 1) * video.slide_seconds
            text = str(lines[index % len(lines)]).replace("-->", "→")
            cues += [str(index + 1), f"{_timestamp(start)} --> {_timestamp(end)}", text, ""]
    response = HttpResponse("\n".join(cues), content_type="text/vtt; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    response["Content-Language"] = language
    return response


# --- Operators' site pages: /<token> -----------------------------------------------------


@require_safe
def site_page_view(request: HttpRequest, token: str) -> HttpResponse:
    """An operator's page for this site (apps.landers.models.SitePage); the normal 404
    page for any other address of one path segment."""
    page = site_page(request.site, token)
    if page is None:
        # Exactly the 404 of an address no route matches (the error page names no route).
        request.resolver_match = None
        raise Http404(NOT_FOUND)
    context = {"page": page, "body": render_page_body(page.body), "summary": page_summary(page.body)}
    return render(request, "landers/site_page.html", context)
