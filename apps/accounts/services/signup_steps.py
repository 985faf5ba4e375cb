"""Signup steps 1 to 4 (spec §4 Signup): photo, location, personal info, about me. Each
step is optional; what a member fills in goes straight into their profile."""

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.profiles.models import Photo, Profile
from apps.profiles.services.photos import photo_upload
from apps.profiles.services.profile import (  # noqa: F401 - the lengths are re-exported for the signup island
    ABOUT_ME_MAX_LENGTH,
    CITY_MAX_LENGTH,
    profile_update,
    profile_validate,
)
from apps.tenants.models import Site

PROFILE_STEP_FIELDS = ("gender", "sexuality", "country", "region", "city", "about_me")
# Key in User.dismissals: the member went through the steps (filled in or skipped).
SIGNUP_STEPS_DONE = "signup_steps"


def signup_profile_validate(*, site: Site, profile: Profile, data: dict) -> dict:
    """The cleaned values of the step fields present in `data` (the profile page's rules,
    apps.profiles.services.profile); raises ApplicationError("invalid") with `fields`."""
    return profile_validate(
        site=site, profile=profile, data={k: v for k, v in data.items() if k in PROFILE_STEP_FIELDS}
    )


@transaction.atomic
def signup_profile_update(*, site: Site, user: User, data: dict, done: bool = False) -> Profile:
    """Store the fields of a signup step in the member's profile. `done` records that the
    member went through the last step, so /complete-signup stops offering the steps."""
    profile = profile_update(
        site=site, user=user, data={key: value for key, value in data.items() if key in PROFILE_STEP_FIELDS}
    )
    if done:
        signup_steps_mark_done(user=user)
    return profile


def signup_steps_done(user: User) -> bool:
    """Whether the member went through the signup steps (filled in or skipped)."""
    return SIGNUP_STEPS_DONE in (user.dismissals or {})


@transaction.atomic
def signup_steps_mark_done(*, user: User) -> None:
    """Idempotent: the first time counts. The row is locked so that a dismissal stored at
    the same moment by another request is not overwritten."""
    locked = User.objects.select_for_update().only("pk", "dismissals").get(pk=user.pk)
    dismissals = dict(locked.dismissals or {})
    if SIGNUP_STEPS_DONE not in dismissals:
        dismissals[SIGNUP_STEPS_DONE] = timezone.now().isoformat()
        User.objects.filter(pk=user.pk).update(dismissals=dismissals)
    user.dismissals = dismissals


def signup_photo_add(*, site: Site, user: User, upload) -> Photo:
    """The photo step: apps.profiles.services.photos.photo_upload."""
    return photo_upload(site=site, user=user, upload=upload)
