"""What every page's layout needs about the logged-in member: the top bar's counts and
badges, the islands' initial state (#app-state) and the activation reminder."""

from django.http import HttpRequest
from django.urls import reverse

from apps.accounts.selectors import (
    activation_reminder,
    badge_label,
    credits_badge,
    member_totals,
    user_payload,
)
from apps.accounts.time_zone import COOKIE as TIME_ZONE_COOKIE
from apps.accounts.tracking import consent, tracking_from_request
from apps.common.sites import is_public
from apps.payments.discounts import time_bonus_island_props, time_bonus_page_state


def _anonymous() -> dict:
    return {
        "app_state": {"user": None, "totals": {"unreadMessages": 0, "newLikes": 0}},
        "topbar": None,
        "activation_reminder": None,
        "time_bonus_island": None,
    }


def _member(request: HttpRequest) -> dict:
    user = request.user
    payload = user_payload(user)
    totals = member_totals(user)
    profile = payload["profile"] or {}
    main_image = profile.get("main_image") or {}
    time_bonus = time_bonus_page_state(user)  # no query (paid_user, date_joined)
    return {
        "app_state": {
            "user": payload,
            "totals": {"unreadMessages": totals["unreadMessages"], "newLikes": totals["newLikes"]},
            "timeBonus": time_bonus,
        },
        "time_bonus_island": time_bonus_island_props(request, time_bonus),
        "topbar": {
            "name": profile.get("name") or payload["name"],
            "thumb": main_image.get("thumb_filename"),
            "paid": payload["paid_user"],
            "messages_badge": badge_label(totals["unreadMessages"]),
            "likes_badge": badge_label(totals["newLikes"]),
            "credits": totals["credits"],
            "credits_badge": credits_badge(totals["credits"]),
        },
        "activation_reminder": activation_reminder(request=request),
        "time_zone_cookie": TIME_ZONE_COOKIE,  # the member's pages report the browser's zone
    }


def member(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if getattr(request, "site", None) is None or is_public(request):  # the operators' host
        return _anonymous()
    if user is None or not user.is_authenticated:
        return {**_anonymous(), "cookie_banner": _cookie_banner(request)}
    return _member(request)


def _cookie_banner(request: HttpRequest) -> bool:
    """A visitor who came through a partner's link and has not chosen yet is asked whether
    that may be remembered (apps.accounts.tracking)."""
    if consent(request) is not None or request.path == reverse("pages-cookies"):
        return False
    return bool(tracking_from_request(request))
