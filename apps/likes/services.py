"""Likes (spec §3 likes / liked_by, §4): like and unlike a profile, clear the new-like
flag when a liker's profile is opened, and hand out the next unseen like for the match
modal (GET /api/auto-like.php). Every refusal raises ApplicationError and changes nothing."""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.common.realtime import badges_send_on_commit, event_send_on_commit
from apps.likes.models import Like, LikeSource
from apps.likes.selectors import likeable_profiles

# Up to the notifications' outbox, their bottom: a like records its notice; delivery is never imported.
from apps.notifications.outbox import notice_event
from apps.profiles.cards import profile_card
from apps.profiles.models import Profile
from apps.profiles.visibility import profiles_visible_to


def _not_available() -> ApplicationError:
    return ApplicationError("profile_not_available", _("This profile is not available."), status_code=404)


def _own_profile(member) -> Profile | None:
    try:
        return member.profile
    except Profile.DoesNotExist:
        return None


def _target(*, member, profile_id: int) -> Profile:
    if not getattr(member, "is_authenticated", False):
        raise ApplicationError("authentication_required", _("Log in or sign up to like this profile."), status_code=403)
    own = _own_profile(member)
    if own is not None and own.pk == profile_id:
        raise ApplicationError("like_self", _("You cannot like your own profile."), status_code=409)
    profile = likeable_profiles(member).select_related("main_photo").filter(pk=profile_id).first()
    if profile is None:
        raise _not_available()
    return profile


def like_create(*, liker, profile_id: int, source: str = LikeSource.PROFILE) -> tuple[Like, bool]:
    """`liker` (a logged-in member) likes the profile. Returns the like and whether it
    makes a match (the profile's member already likes the liker). Liking twice, the own
    profile or a profile the liker may not see is refused; nothing changes then."""
    profile = _target(member=liker, profile_id=profile_id)
    already = _("You already like %(name)s.") % {"name": profile.name}
    if Like.objects.filter(liker=liker, profile=profile).exists():
        raise ApplicationError("already_liked", already, status_code=409)
    own = _own_profile(liker)
    try:
        with transaction.atomic():
            like = Like.objects.create(liker=liker, profile=profile, source=source)
            is_match = bool(
                own is not None
                and profile.user_id
                and Like.objects.filter(liker_id=profile.user_id, profile=own).exists()
            )
            if own is not None and profile.user_id:  # an e-mail or push if still unseen after a while
                notice_event(
                    user=User.objects.get(pk=profile.user_id),
                    kind="like",
                    item={"l": like.pk, "p": own.pk, "n": own.name, "match": is_match},
                )
    except IntegrityError:  # unique (liker, profile): a double click won the race
        raise ApplicationError("already_liked", already, status_code=409) from None
    like.profile = profile
    _like_announce(liker=liker, liker_profile=own, profile=profile, is_match=is_match)
    return like, is_match


def _like_announce(*, liker, liker_profile, profile, is_match: bool) -> None:
    """`liker` (with `liker_profile`) liked `profile`: its member hears of the like (or
    the match), the liker of a match too; both get fresh badges. After commit."""
    if liker_profile is None:
        return
    if profile.user_id:
        kind = "match" if is_match else "like"
        event_send_on_commit(user_id=profile.user_id, event={"type": kind, "profile": profile_card(liker_profile)})
        badges_send_on_commit(user_id=profile.user_id)
    if is_match:
        event_send_on_commit(user_id=liker.pk, event={"type": "match", "profile": profile_card(profile)})


def like_delete(*, liker, profile_id: int) -> None:
    """`liker` takes back a like. Refused when there is none, or the profile is not
    available to the liker (the same rule as liking)."""
    profile = _target(member=liker, profile_id=profile_id)
    deleted, _rows = Like.objects.filter(liker=liker, profile=profile).delete()
    if not deleted:
        raise ApplicationError("not_liked", _("You do not like this profile."), status_code=409)


def like_mark_opened(*, viewer, profile: Profile) -> int:
    """The viewer opened `profile`: when its member likes the viewer, that like is no
    longer new (spec §4). Idempotent; returns the number of likes changed (0 or 1)."""
    if not getattr(viewer, "is_authenticated", False) or not profile.user_id or profile.user_id == viewer.pk:
        return 0
    return Like.objects.filter(liker_id=profile.user_id, profile__user_id=viewer.pk, is_new=True).update(is_new=False)


def like_show_next(*, member) -> Profile | None:
    """The liker's profile of the oldest received like that `member` has not been shown
    yet (GET /api/auto-like.php), marked as shown so it never comes twice. Only real
    likes from profiles the member may see; None when there is none. Concurrent calls
    never hand out the same like (the row is locked and skipped by the others)."""
    own = _own_profile(member)
    if own is None:
        return None
    with transaction.atomic():
        like = (
            Like.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(profile=own, seen_at__isnull=True, liker__profile__in=profiles_visible_to(member))
            .order_by("created", "pk")
            .first()
        )
        if like is None:
            return None
        like.seen_at = timezone.now()
        like.save(update_fields=["seen_at"])
    return Profile.objects.select_related("main_photo").get(user_id=like.liker_id)
