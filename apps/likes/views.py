"""The likes pages (spec §2 likes, likes-type; §4): an overview with the counts and the
newest few of each list, and one page per list (received, sent, matches). Cards link
to /likes/m/<id>. Also the profile page's like and unlike forms (the no-JavaScript way)."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from apps.common.exceptions import ApplicationError
from apps.likes.selectors import likes_counts, likes_matches_qs, likes_received_qs, likes_sent_qs
from apps.likes.services import like_create, like_delete
from apps.profiles.cards import profile_card

OVERVIEW_SIZE = 6
# A list page shows this many; older likes are still counted in the overview.
LIST_SIZE = 200
TYPES = {
    "received": gettext_lazy("Likes received"),
    "sent": gettext_lazy("Likes sent"),
    "matches": gettext_lazy("Matches"),
}
# The tabs' words: short, so the four tabs with their counts fit one row of a phone.
TAB_LABELS = {
    "": pgettext_lazy("likes tab", "Overview"),
    "received": pgettext_lazy("likes tab", "Received"),
    "sent": pgettext_lazy("likes tab", "Sent"),
    "matches": pgettext_lazy("likes tab", "Matches"),
}


def _tabs(counts, current: str) -> list[dict]:
    """The likes pages' tabs: the overview, then each list with its count."""
    return [
        {
            "type": kind,
            "label": label,
            "title": TYPES.get(kind, ""),
            "count": getattr(counts, kind) if kind else None,
            "current": kind == current,
        }
        for kind, label in TAB_LABELS.items()
    ]


def _cards(member, kind: str, limit: int) -> list[dict]:
    today = timezone.localdate()
    if kind == "received":
        return [
            {**profile_card(like.liker.profile, today=today), "like_new": like.is_new}
            for like in likes_received_qs(member=member)[:limit]
        ]
    queryset = likes_sent_qs(member=member) if kind == "sent" else likes_matches_qs(member=member)
    return [{**profile_card(like.profile, today=today), "like_new": False} for like in queryset[:limit]]


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def likes_overview(request: HttpRequest) -> HttpResponse:
    counts = likes_counts(member=request.user)
    sections = [
        {
            "type": kind,
            "title": title,
            "count": getattr(counts, kind),
            "cards": _cards(request.user, kind, OVERVIEW_SIZE),
        }
        for kind, title in TYPES.items()
    ]
    return render(request, "likes/overview.html", {"sections": sections, "tabs": _tabs(counts, "")})


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def likes_type(request: HttpRequest, type: str) -> HttpResponse:
    if type not in TYPES:
        raise Http404
    context = {
        "type": type,
        "title": TYPES[type],
        "tabs": _tabs(likes_counts(member=request.user), type),
        "cards": _cards(request.user, type, LIST_SIZE),
    }
    return render(request, "likes/list.html", context)


def _back(request: HttpRequest, id: int) -> str:
    wanted = request.POST.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(wanted, {request.get_host()}, request.is_secure()):
        return wanted
    return reverse("members-id", args=[id])


def _like_action(request: HttpRequest, id: int, *, like: bool) -> HttpResponse:
    back = _back(request, id)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?{urlencode({'next': back})}")
    try:
        if like:
            like_create(liker=request.user, profile_id=id)
        else:
            like_delete(liker=request.user, profile_id=id)
    except ApplicationError as error:
        if error.status_code == 404:
            return redirect("index")
        messages.error(request, error.message)
    return redirect(back)


@require_POST
def like_view(request: HttpRequest, id: int) -> HttpResponse:
    return _like_action(request, id, like=True)


@require_POST
def unlike_view(request: HttpRequest, id: int) -> HttpResponse:
    return _like_action(request, id, like=False)
