"""Who may see whom. Every list of profiles starts from `profiles_visible_to`:
disabled profiles, invisible and deleted members, and blocks in either direction
never show (spec §4 Search, §6 Blocked user)."""

from django.db.models import Exists, OuterRef, Q, QuerySet

# Up to accounts: the account's status decides whether its profile is seen.
from apps.accounts.models import UserStatus
from apps.profiles.models import Block, Profile, ProfileStatus


def profiles_visible_to(viewer) -> QuerySet[Profile]:
    """Active profiles the viewer may see in lists; `viewer` may be anonymous."""
    profiles = Profile.objects.filter(status=ProfileStatus.ACTIVE).exclude(
        Q(user__invisible=True) | Q(user__status=UserStatus.DELETED)
    )
    if viewer is not None and getattr(viewer, "is_authenticated", False):
        profiles = profiles.exclude(user_id=viewer.pk).exclude(
            Exists(Block.objects.filter(blocker_id=viewer.pk, blocked_id=OuterRef("pk")))
        )
        own = getattr(viewer, "profile", None)
        if own is not None:
            profiles = profiles.exclude(Exists(Block.objects.filter(blocker_id=OuterRef("user_id"), blocked_id=own.pk)))
    return profiles


def blocked_by(*, viewer, profile: Profile) -> bool:
    """Whether the profile's member blocked the viewer."""
    own = getattr(viewer, "profile", None) if getattr(viewer, "is_authenticated", False) else None
    return bool(own and profile.user_id and Block.objects.filter(blocker_id=profile.user_id, blocked=own).exists())


def has_blocked(*, viewer, profile: Profile) -> bool:
    if not getattr(viewer, "is_authenticated", False):
        return False
    return Block.objects.filter(blocker_id=viewer.pk, blocked=profile).exists()
