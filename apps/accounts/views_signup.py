"""Signup pages (spec §2, §4 Signup): /signup, /complete-signup, /signup-matches, the
props of the signup island (page and modal), and /sw.js. /members/<id>/signup is a
lander (apps.landers.views.member_signup)."""

from functools import lru_cache, wraps
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dates import MONTHS
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from django_countries import countries

from apps.accounts.api.signup_steps import profile_step_payload
from apps.accounts.selectors import age_on, signup_allowed
from apps.accounts.services.signup_steps import ABOUT_ME_MAX_LENGTH, CITY_MAX_LENGTH, signup_steps_done
from apps.common.islands import signup_strings
from apps.common.locale import request_country
from apps.profiles.models import Gender, Profile, Sexuality
from apps.profiles.selectors import FREE_PHOTO_LIMIT, photo_limit, public_thumb_url, signup_matches
from apps.tenants.selectors import push_public_key, regions_offered, selected_country

# Routes that show the island themselves: the layouts leave the signup modal out there.
SIGNUP_ROUTES = frozenset({"signup", "members-id-signup", "complete-signup"})


def _login_redirect(request: HttpRequest) -> HttpResponse:
    return redirect(f"{reverse('login')}?{urlencode({'next': request.get_full_path()})}")


def member_required(view):
    """Logged-in members only; visitors go to the login page and come back after."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return _login_redirect(request)
        return view(request, *args, **kwargs)

    return wrapper


def _profile_card(profile: Profile) -> dict:
    return {"id": profile.pk, "name": profile.name, "photo": public_thumb_url(profile)}


@lru_cache(maxsize=512)
def _site_signup_props(
    language: str, codes: tuple[str, ...], min_age: int, message_length: int, push_key: str, regions: tuple[str, ...]
) -> dict:
    """The part of the props that is the same for every visitor of a site in one
    language. Keyed by exactly the settings it reads, so an operator's change is a new
    key; built once per process instead of on every page a visitor opens."""
    return {
        "countries": [{"code": code, "name": str(countries.name(code))} for code in codes],
        "regions": {code: regions_offered(regions, code) for code in codes},
        "genders": [{"value": value, "label": str(label)} for value, label in Gender.choices],
        "sexualities": [{"value": value, "label": str(label)} for value, label in Sexuality.choices],
        "months": [str(MONTHS[number]) for number in range(1, 13)],
        "minAge": min_age,
        "messageMaxLength": message_length,
        "cityMaxLength": CITY_MAX_LENGTH,
        "aboutMaxLength": ABOUT_ME_MAX_LENGTH,
        "pushPublicKey": push_key,
        "urls": {
            "signup": reverse("api-signup"),
            "resend": reverse("api-signup-resend"),
            "profile": reverse("api-signup-profile"),
            "photo": reverse("api-signup-photo"),
            "user": reverse("api-user"),
            "push": reverse("api-user") + "?push=1",
            "serviceWorker": reverse("service-worker"),
            "login": reverse("login"),
            "service": reverse("pages-service"),
            "terms": reverse("pages-terms"),
            "privacy": reverse("pages-privacy"),
            "matches": reverse("signup-matches"),
        },
        "strings": signup_strings(min_age=min_age),
    }


def signup_island_props(
    request: HttpRequest,
    *,
    mode: str = "page",
    start_step: int = 0,
    profile: Profile | None = None,
) -> dict:
    """Props of the Signup island (static_src/islands/Signup/types.ts)."""
    site = request.site
    user = request.user if request.user.is_authenticated else None
    own_profile = Profile.objects.select_related("main_photo").filter(user=user).first() if user else None
    shared = _site_signup_props(
        get_language() or "en",
        tuple(site.country_codes),
        site.min_age,
        site.message_length,
        push_public_key(site),
        tuple(site.regions),
    )
    after_login = (
        reverse("members-id", args=[profile.pk]) if profile else (request.get_full_path() if mode == "modal" else "/")
    )
    return {
        **shared,
        "mode": mode,
        "startStep": start_step,
        "profile": _profile_card(profile) if profile else None,
        "user": {"email": user.email, "name": user.username, "confirmed": user.is_confirmed} if user else None,
        "initial": profile_step_payload(own_profile) if own_profile else None,
        "defaultCountry": selected_country(site, request_country(request)),
        "photoLimit": photo_limit(user) if user else FREE_PHOTO_LIMIT,
        "signupsOpen": True if user else signup_allowed(request=request),
        "urls": {**shared["urls"], "afterLogin": after_login},
    }


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("index" if signup_steps_done(request.user) else "complete-signup")
    return render(request, "accounts/signup.html", {"signup_props": signup_island_props(request)})


@member_required
def complete_signup(request: HttpRequest) -> HttpResponse:
    """The steps after the account (photo, location, personal info, about me) for members
    who have not gone through them yet."""
    if signup_steps_done(request.user):
        return redirect("index")
    return render(
        request, "accounts/complete_signup.html", {"signup_props": signup_island_props(request, start_step=1)}
    )


def _own_profile(user) -> Profile | None:
    try:
        return user.profile  # Cached on the user: the layout's top bar reads it too.
    except Profile.DoesNotExist:
        return None


@member_required
def signup_matches_page(request: HttpRequest) -> HttpResponse:
    """Suggested profiles right after signup."""
    own = _own_profile(request.user)
    page = signup_matches(site=request.site, profile=own, page=request.GET.get("page") or 1)
    today = timezone.localdate()
    cards = [
        {
            "id": profile.pk,
            "name": profile.name,
            "age": age_on(profile.date_of_birth, today) if profile.date_of_birth else None,
            "city": profile.city,
            "thumb": public_thumb_url(profile),
            "url": reverse("members-id", args=[profile.pk]),
        }
        for profile in page.object_list
    ]
    return render(
        request,
        "accounts/signup_matches.html",
        {"page": page, "cards": cards, "members_url": reverse("members")},
    )


_SERVICE_WORKER = "dist/sw.js"


def _service_worker_file() -> Path | None:
    found = finders.find(_SERVICE_WORKER)
    if found:
        return Path(found)
    collected = Path(settings.STATIC_ROOT) / _SERVICE_WORKER
    return collected if collected.is_file() else None


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The push service worker (static_src/sw/sw.ts, built to static/dist/sw.js), served
    from the site's root so that it may control every page."""
    path = _service_worker_file()
    if path is None:
        raise Http404(_("This page could not be found"))
    response = HttpResponse(path.read_bytes(), content_type="application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
