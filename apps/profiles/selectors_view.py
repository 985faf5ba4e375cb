"""Reads for the profile page (spec §2 "Profile view", §6 roles): who may see which
profile, which of its photos, its details as the site shows them, related profiles.

Every function here runs a fixed number of queries, whatever the number of photos,
interests or related profiles (apps/profiles/tests/test_profile_view.py pins it)."""

from dataclasses import dataclass, field

from django.http import Http404
from django.utils import timezone

# Up to accounts: a profile's age is the account's rule (the member and the date of birth are the account's).
from apps.accounts.selectors import age_on
from apps.profiles.cards import DETAIL_FIELDS, profile_place
from apps.profiles.models import Photo, PhotoStatus, Profile
from apps.profiles.selectors import photos_visible_to
from apps.profiles.visibility import blocked_by, has_blocked, profiles_visible_to
from apps.tenants.constants import PROFILE_FIELDS
from apps.tenants.models import Site

RELATED_PROFILES = 6
FIELD_LABELS = dict(PROFILE_FIELDS)


class BlockedByOwner(Exception):
    """The profile's member blocked the viewer: a 403 page names them (spec §6)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def member_is_premium(user) -> bool:
    """Premium members see every photo (spec §4, §6). Membership becomes premium on the
    first credit purchase (apps.payments)."""
    return bool(user.paid_user)


def shown_photos(viewer, profile: Profile) -> list[Photo]:
    """The photos the profile page shows: `photos_visible_to` without rejected ones (the
    owner manages those on /profile). One query."""
    return list(photos_visible_to(viewer, profile).exclude(status=PhotoStatus.REJECTED))


def _is_owner(viewer, profile: Profile) -> bool:
    return bool(getattr(viewer, "is_authenticated", False) and profile.user_id == viewer.pk)


def _shown(site: Site, queryset):
    """Resell entries show only on sites that sell them on (Site.member_resell)."""
    return queryset if site.member_resell else queryset.exclude(is_resell=True)


@dataclass
class ProfilePage:
    profile: Profile
    own: bool
    blocked: bool  # the viewer blocked this profile
    premium: bool
    photos: list[Photo] = field(default_factory=list)  # shown in full, main photo first
    locked: int = 0  # photos behind the lock overlay
    photo_count: int = 0
    related: list[Profile] = field(default_factory=list)


def profile_page(*, viewer, site: Site, profile_id: int) -> ProfilePage:
    """What /members/<id> shows to `viewer` (may be anonymous). Raises Http404 for a
    profile the viewer may not see (disabled, invisible or deleted member, resell entry
    on a site without resell, unknown id) and BlockedByOwner when its member blocked
    the viewer. The viewer's own profile always shows."""
    profile = (
        Profile.objects.select_related("main_photo", "user").filter(pk=profile_id).first()
        if _is_owner_id(viewer, profile_id)
        else _shown(site, profiles_visible_to(None)).select_related("main_photo").filter(pk=profile_id).first()
    )
    if profile is None:
        raise Http404
    own = _is_owner(viewer, profile)
    if not own and blocked_by(viewer=viewer, profile=profile):
        raise BlockedByOwner(profile.name)
    page = ProfilePage(
        profile=profile,
        own=own,
        blocked=not own and has_blocked(viewer=viewer, profile=profile),
        premium=own or (getattr(viewer, "is_authenticated", False) and member_is_premium(viewer)),
    )
    if page.blocked:
        return page
    photos = shown_photos(viewer, profile)
    photos.sort(key=lambda photo: photo.pk != profile.main_photo_id)  # main photo first, stable
    page.photo_count = len(photos)
    if page.premium:
        page.photos = photos
    else:
        page.photos = [photo for photo in photos if photo.pk == profile.main_photo_id]
        page.locked = len(photos) - len(page.photos)
    if not own:
        page.related = related_profiles(viewer=viewer, site=site, profile=profile)
    return page


def _is_owner_id(viewer, profile_id: int) -> bool:
    """Whether the id is the viewer's own profile; the top bar already loaded it."""
    if not getattr(viewer, "is_authenticated", False):
        return False
    try:
        own = viewer.profile
    except Profile.DoesNotExist:
        return False
    return own is not None and own.pk == profile_id


def related_profiles(*, viewer, site: Site, profile: Profile) -> list[Profile]:
    """Up to six other profiles of the same gender and country the viewer may see,
    newest first. One query."""
    queryset = (
        _shown(site, profiles_visible_to(viewer))
        .filter(gender=profile.gender, country=profile.country)
        .exclude(pk=profile.pk)
        .select_related("main_photo")
        .order_by("-created", "-pk")
    )
    return list(queryset[:RELATED_PROFILES])


def profile_age(profile: Profile) -> int | None:
    return age_on(profile.date_of_birth, timezone.localdate()) if profile.date_of_birth else None


def profile_location(*, site: Site, profile: Profile) -> str:
    """City, region and country, each only when the site shows it (as on the cards)."""
    return profile_place(profile, site.visible_profile_fields)


def profile_details(*, site: Site, profile: Profile) -> list[dict]:
    """The choice fields the site shows, as translated label and value, blanks left out."""
    shown = site.visible_profile_fields
    rows = []
    for name in DETAIL_FIELDS:
        if name in shown and getattr(profile, name):
            rows.append({"name": name, "label": FIELD_LABELS[name], "value": getattr(profile, f"get_{name}_display")()})
    return rows
