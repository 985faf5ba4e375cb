"""Blocking (spec §2 profile view "block and unblock", §6 "Blocked user"). Once a member
blocks a profile, neither sees the other in lists (apps.profiles.visibility) and the
blocked member gets a 403 page on the blocker's profile, and their chats close at once
(`chat_closed_announce`, through apps.common.realtime)."""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from apps.common.exceptions import ApplicationError
from apps.common.realtime import badges_send_on_commit, event_send_on_commit
from apps.profiles.models import Block, Profile
from apps.profiles.visibility import profiles_visible_to


def _not_found() -> ApplicationError:
    return ApplicationError("profile_not_found", _("This profile could not be found."), status_code=404)


def block_create(*, user, profile_id: int) -> Block:
    """`user` (a logged-in member) blocks the profile. Only a profile that others may see
    can be blocked; the own one, and one already blocked, are refused. Changes nothing
    when it raises."""
    profile = profiles_visible_to(None).filter(pk=profile_id).only("pk", "user_id").first()
    if profile is None:
        raise _not_found()
    if profile.user_id == user.pk:
        raise ApplicationError("block_self", _("You cannot block yourself."), status_code=409)
    try:
        with transaction.atomic():
            block = Block.objects.create(blocker=user, blocked=profile)
    except IntegrityError:  # unique (blocker, blocked): blocked before, or a double click
        raise ApplicationError(
            "already_blocked", _("You have already blocked this profile."), status_code=409
        ) from None
    # Open chats between the two close at once on both sides' pages (after commit).
    chat_closed_announce(blocker=user, blocked_profile=profile)
    return block


def chat_closed_announce(*, blocker, blocked_profile) -> None:
    """A block closes the chats between two members at once on both sides' pages:
    {"type": "chat.closed", "profile": <the other side's profile id>}, with fresh badges
    for both (after commit)."""
    blocker_profile_id = Profile.objects.filter(user_id=blocker.pk).values_list("pk", flat=True).first()
    event_send_on_commit(user_id=blocker.pk, event={"type": "chat.closed", "profile": blocked_profile.pk})
    if blocker_profile_id:
        event_send_on_commit(
            user_id=blocked_profile.user_id, event={"type": "chat.closed", "profile": blocker_profile_id}
        )
    badges_send_on_commit(user_id=blocker.pk)
    badges_send_on_commit(user_id=blocked_profile.user_id)


def block_delete(*, user, profile_id: int) -> None:
    """`user` unblocks the profile. Refused when it was not blocked."""
    if not Profile.objects.filter(pk=profile_id).exists():
        raise _not_found()
    deleted, _rows = Block.objects.filter(blocker=user, blocked_id=profile_id).delete()
    if not deleted:
        raise ApplicationError("not_blocked", _("You have not blocked this profile."), status_code=409)
