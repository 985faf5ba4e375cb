"""The member's profile page (spec §2: /members/<id>, /likes/m/<id>). It composes
several apps: the profile (apps.profiles.selectors_view), the like between the two
(apps.likes) and the gift button (apps.chat); its block and unblock forms and the
complaint link are the profiles' (apps.profiles.views). Parse, read, render."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from apps.chat.views import profile_gift_props
from apps.common.storage import cdn_url
from apps.likes.selectors import like_state
from apps.likes.services import like_mark_opened
from apps.profiles.cards import fictional_label, profile_notes
from apps.profiles.selectors import public_thumb_url
from apps.profiles.selectors_view import (
    BlockedByOwner,
    profile_age,
    profile_details,
    profile_location,
    profile_page,
)


def _og_image(request: HttpRequest, profile) -> str | None:
    """The share preview's picture: the main photo only when it is approved."""
    photo = profile.main_photo
    if photo is None or not photo.is_public or not photo.image:
        return None
    return request.build_absolute_uri(cdn_url(photo.image.url))


def _header_thumb(page) -> str | None:
    """The owner sees their own main photo even while it waits for approval."""
    photo = page.profile.main_photo
    if page.own and photo is not None and photo.thumb:
        return photo.thumb.url
    return public_thumb_url(page.profile)


def _like_state(request: HttpRequest, page) -> dict:
    """Whether the viewer likes the profile and whether it is a match. Opening a liker's
    profile clears that like's new flag (spec §4)."""
    if page.own or page.blocked or not request.user.is_authenticated:
        return {"liked": False, "match": False}
    state = like_state(viewer=request.user, profile=page.profile)
    if state["liked_by_new"]:
        like_mark_opened(viewer=request.user, profile=page.profile)
    return {"liked": state["liked"], "match": state["liked"] and state["liked_by"]}


def _login_needed_props(urls: dict) -> dict:
    """A visitor's action buttons open the LoginNeeded island's dialogs (one per action)."""
    return {
        "loginUrl": urls["login"],
        "signupUrl": urls["signup"],
        "texts": {
            "message": _("Log in or sign up to send a message."),
            "like": _("Log in or sign up to like this profile."),
            "photos": _("Log in or sign up to see more photos."),
            "gift": _("Log in or sign up to send a gift."),
        },
        "strings": {"close": _("Close"), "login": _("Login"), "signup": _("Sign up for free")},
    }


@require_http_methods(["GET", "HEAD"])
def profile_view(request: HttpRequest, id: int) -> HttpResponse:
    site = request.site
    try:
        page = profile_page(viewer=request.user, site=site, profile_id=id)
    except BlockedByOwner as blocked:
        message = _("You're blocked by %(name)s. You do not have access to this page.") % {"name": blocked.name}
        return render(request, "errors/error.html", {"status": 403, "message": message}, status=403)
    profile = page.profile
    like = _like_state(request, page)
    shown = site.visible_profile_fields
    profile_path = reverse("members-id", args=[profile.pk])
    context = {
        "page": page,
        "profile": profile,
        "thumb": _header_thumb(page),
        "age": profile_age(profile) if "age" in shown else None,
        "location": profile_location(site=site, profile=profile),
        "fictional": fictional_label(profile, site),
        "notes": profile_notes(profile, site),
        "details": profile_details(site=site, profile=profile),
        "interests": profile.interests if "interests" in shown else [],
        "about_me": profile.about_me if "about_me" in shown else "",
        "related": [
            {
                "id": other.pk,
                "name": other.name,
                "thumb": public_thumb_url(other),
                "fictional": fictional_label(other, site),
            }
            for other in page.related
        ],
        "locked_range": range(page.locked),
        "like": like,
        "og_image": _og_image(request, profile),
        "og_url": request.build_absolute_uri(profile_path),
        "urls": {
            "edit": reverse("profile"),
            "premium": reverse("premium"),
            "chat": reverse("members-id-chat", args=[profile.pk]),
            "block": reverse("members-id-block", args=[profile.pk]),
            "like": reverse("members-id-like", args=[profile.pk]),
            "unlike": reverse("members-id-unlike", args=[profile.pk]),
            "unblock": reverse("members-id-unblock", args=[profile.pk]),
            "complaint": f"{reverse('complaints')}?{urlencode({'profile': profile.pk})}",
            "login": f"{reverse('login')}?{urlencode({'next': profile_path})}",
            "signup": reverse("members-id-signup", args=[profile.pk]),
        },
    }
    if request.user.is_authenticated and not page.own and not page.blocked:
        context["gift_props"] = profile_gift_props(request, profile)
    elif not request.user.is_authenticated:
        context["login_needed_props"] = _login_needed_props(context["urls"])
    return render(request, "profiles/profile_view.html", context)
