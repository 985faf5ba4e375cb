"""The swipe game (spec §2 swipe-game, §9 "Swipe game: 4 likes per day, with a wait
shown"): selectors for the deck and the day's likes, services for a like or a pass.

The day is the calendar day in UTC: the likes with source "swipe" made since today's
00:00 UTC count; at SWIPE_LIKES_PER_DAY the next likes come at the next midnight UTC.
The count and the insert run under a row lock on the member's User row, so parallel
swipes cannot exceed the limit."""

from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.common.exceptions import ApplicationError
from apps.likes.models import Like, LikeSource, SwipePass
from apps.likes.selectors import likeable_profiles
from apps.likes.services import like_create
from apps.profiles.cards import profile_card
from apps.profiles.models import Profile
from apps.profiles.search import VERIFIED_PARAM, own_profile
from apps.profiles.selectors import looking_for_genders, verified_q
from apps.profiles.visibility import profiles_visible_to
from apps.tenants.models import Site

SWIPE_LIKES_PER_DAY = 4
DECK_SIZE = 10
# Likes or passes a visitor makes on the lander before the signup opens.
VISITOR_FREE_SWIPES = 2


# --- Selectors -------------------------------------------------------------------


def day_start(now: datetime | None = None) -> datetime:
    """Today's 00:00 UTC."""
    now = (now or timezone.now()).astimezone(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def next_day_start(now: datetime | None = None) -> datetime:
    return day_start(now) + timedelta(days=1)


def swipe_likes_today(user, *, now: datetime | None = None) -> int:
    return Like.objects.filter(liker_id=user.pk, source=LikeSource.SWIPE, created__gte=day_start(now)).count()


def swipe_status(user, *, now: datetime | None = None, used: int | None = None) -> dict:
    """{"likes_left", "next_likes_at"}: next_likes_at (ISO, UTC) only when none are left."""
    if used is None:
        used = swipe_likes_today(user, now=now)
    left = max(SWIPE_LIKES_PER_DAY - used, 0)
    return {"likes_left": left, "next_likes_at": None if left else next_day_start(now).isoformat()}


def wait_text(until: datetime, *, now: datetime | None = None) -> str:
    """ "5 h 12 min" (minutes rounded up; "12 min" under an hour)."""
    seconds = max(int((until - (now or timezone.now())).total_seconds()), 0)
    minutes = max((seconds + 59) // 60, 1)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": minutes}
    return _("%(minutes)s min") % {"minutes": minutes}


def deck_genders(*, site: Site, profile: Profile | None) -> list[str]:
    return looking_for_genders(
        site=site, gender=profile.gender if profile else "", sexuality=profile.sexuality if profile else ""
    )


def swipe_deck(*, site: Site, user, limit: int = DECK_SIZE, verified: bool = False) -> list[Profile]:
    """Visible profiles of the genders the member looks for that the member neither liked
    nor passed, newest first; with `verified`, only those with the "verified" badge."""
    genders = deck_genders(site=site, profile=own_profile(user))
    queryset: QuerySet[Profile] = likeable_profiles(user).filter(gender__in=genders)
    if verified:
        queryset = queryset.filter(verified_q())
    queryset = (
        queryset.exclude(Exists(Like.objects.filter(liker_id=user.pk, profile_id=OuterRef("pk"))))
        .exclude(Exists(SwipePass.objects.filter(member_id=user.pk, profile_id=OuterRef("pk"))))
        .select_related("main_photo")
        .order_by("-created", "-pk")
    )
    return list(queryset[:limit])


def demo_deck(*, site: Site, limit: int = DECK_SIZE) -> list[Profile]:
    """The lander's fixed deck for visitors: the newest visible profiles of the site."""
    genders = deck_genders(site=site, profile=None)
    queryset = profiles_visible_to(None).filter(gender__in=genders).select_related("main_photo")
    return list(queryset.order_by("-created", "-pk")[:limit])


def deck_cards(profiles: list[Profile]) -> list[dict]:
    today = timezone.localdate()
    return [profile_card(profile, today=today) for profile in profiles]


def swipe_verified_param(value) -> bool:
    """The deck's "verified members only" parameter ("1"; "" or "0" for everyone).
    Anything else is a 400 in the API's error shape."""
    value = (value or "").strip()
    if value not in ("", "0", "1"):
        message = _("Choose 1 for verified members only, or leave it out.")
        raise ApplicationError("invalid", message, extra={"fields": {VERIFIED_PARAM: [message]}})
    return value == "1"


def swipe_payload(*, site: Site, user, verified: bool = False) -> dict:
    """The JSON of GET /api/swipe.php (?verified=1: verified members only)."""
    return {"deck": deck_cards(swipe_deck(site=site, user=user, verified=verified)), **swipe_status(user)}


# --- Services ----------------------------------------------------------------------


def _lock_member(user) -> None:
    """Row lock on the member's User row; held until the transaction ends."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


def swipe_limit_error(*, now: datetime | None = None) -> ApplicationError:
    next_at = next_day_start(now)
    return ApplicationError(
        "swipe_limit",
        ngettext(
            "You have used your %(count)s like for today. New likes in %(wait)s.",
            "You have used your %(count)s likes for today. New likes in %(wait)s.",
            SWIPE_LIKES_PER_DAY,
        )
        % {"count": SWIPE_LIKES_PER_DAY, "wait": wait_text(next_at, now=now)},
        status_code=429,
        extra={"likes_left": 0, "next_likes_at": next_at.isoformat()},
    )


def swipe_like(*, user, profile_id: int, now: datetime | None = None) -> tuple[Like, bool, dict]:
    """Like from the game: (like, match, status after it). Raises ApplicationError
    "swipe_limit" (429) at the day's limit, and like_create's errors."""
    with transaction.atomic():
        _lock_member(user)
        used = swipe_likes_today(user, now=now)
        if used >= SWIPE_LIKES_PER_DAY:
            raise swipe_limit_error(now=now)
        like, match = like_create(liker=user, profile_id=profile_id, source=LikeSource.SWIPE)
    return like, match, swipe_status(user, now=now, used=used + 1)


def swipe_pass(*, user, profile_id: int) -> SwipePass:
    """Swipe a profile away; idempotent. Only profiles the member may see."""
    if not likeable_profiles(user).filter(pk=profile_id).exists():
        raise ApplicationError("profile_not_available", _("This profile is not available."), status_code=404)
    swipe, _created = SwipePass.objects.get_or_create(member_id=user.pk, profile_id=profile_id)
    return swipe
