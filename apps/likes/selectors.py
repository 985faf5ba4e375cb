"""Reads about likes (spec §3 likes / liked_by, §4 "Received likes are ordered new
first"). Each list starts from the profiles the member may see, so a block, a disabled
profile or a deleted member hides the like. Every function runs a fixed number of
queries, whatever the number of likes (apps/likes/tests pin it)."""

from dataclasses import dataclass

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from apps.likes.models import Like
from apps.profiles.cards import profile_card
from apps.profiles.models import Profile
from apps.profiles.visibility import profiles_visible_to


def _own_profile(member) -> Profile | None:
    try:
        return member.profile
    except Profile.DoesNotExist:
        return None


def likeable_profiles(member) -> QuerySet[Profile]:
    """Profiles `member` may like or unlike: `profiles_visible_to` (no blocks either
    way, no disabled, invisible or deleted members, not the own one), without resell
    entries on a site that does not sell them on (as the profile page). The services
    refuse a like outside it, and the lists show only likes inside it."""
    profiles = profiles_visible_to(member)
    site = getattr(connection, "tenant", None)
    if site is not None and not getattr(site, "member_resell", True):
        profiles = profiles.exclude(is_resell=True)
    return profiles


def likes_sent_qs(*, member) -> QuerySet[Like]:
    """The member's likes of profiles they may see, newest first."""
    return (
        Like.objects.filter(liker_id=member.pk, profile__in=likeable_profiles(member))
        .select_related("profile__main_photo")
        .order_by("-created", "-pk")
    )


def likes_received_qs(*, member) -> QuerySet[Like]:
    """Likes of the member's profile from members they may see: new first, then newest."""
    own = _own_profile(member)
    if own is None:
        return Like.objects.none()
    return (
        Like.objects.filter(profile=own, liker__profile__in=profiles_visible_to(member))
        .select_related("liker__profile__main_photo")
        .order_by("-is_new", "-created", "-pk")
    )


def likes_matches_qs(*, member) -> QuerySet[Like]:
    """The member's likes that are returned (a match), newest first."""
    own = _own_profile(member)
    if own is None:
        return Like.objects.none()
    return likes_sent_qs(member=member).filter(profile__user__likes_given__profile=own)


def likes_new_count(*, member) -> int:
    """New received likes (the top bar's badge)."""
    return likes_received_qs(member=member).filter(is_new=True).count()


@dataclass(frozen=True)
class LikesCounts:
    received: int
    sent: int
    matches: int
    new: int


def likes_counts(*, member) -> LikesCounts:
    return LikesCounts(
        received=likes_received_qs(member=member).count(),
        sent=likes_sent_qs(member=member).count(),
        matches=likes_matches_qs(member=member).count(),
        new=likes_new_count(member=member),
    )


def received_item(like: Like, *, today=None) -> dict:
    profile = like.liker.profile
    return {"id": profile.pk, "like_new": like.is_new, "profile": profile_card(profile, today=today)}


def likes_payload(*, member) -> dict:
    """GET /api/likes.php: {"profiles", "liked_by", "matches", "num_new"}. Four queries."""
    today = timezone.localdate()
    liked_by = [received_item(like, today=today) for like in likes_received_qs(member=member)]
    return {
        "profiles": [profile_card(like.profile, today=today) for like in likes_sent_qs(member=member)],
        "liked_by": liked_by,
        "matches": [profile_card(like.profile, today=today) for like in likes_matches_qs(member=member)],
        "num_new": sum(1 for item in liked_by if item["like_new"]),
    }


def like_state(*, viewer, profile: Profile) -> dict:
    """For the profile page: whether the viewer likes the profile, whether its member
    likes the viewer, and whether that like is still new. One query."""
    state = {"liked": False, "liked_by": False, "liked_by_new": False}
    if not getattr(viewer, "is_authenticated", False) or profile.user_id == viewer.pk:
        return state
    rows = Like.objects.filter(liker_id=viewer.pk, profile=profile).values_list("liker_id", "is_new")
    if profile.user_id:
        rows = rows.union(
            Like.objects.filter(liker_id=profile.user_id, profile__user_id=viewer.pk).values_list("liker_id", "is_new")
        )
    for liker_id, is_new in rows:
        if liker_id == viewer.pk:
            state["liked"] = True
        else:
            state["liked_by"], state["liked_by_new"] = True, is_new
    return state
