"""Signup steps 1 to 4 (spec §4 Signup): photo, location, personal info, about me. Each
step is optional; what a member fills in goes straight into their profile."""

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.profiles.images import image_filename, process_upload
from apps.profiles.models import Gender, Photo, PhotoStatus, Profile, Sexuality
from apps.profiles.selectors import FREE_PHOTO_LIMIT, PREMIUM_PHOTO_LIMIT, photo_count, photo_limit
from apps.tenants.models import Site
from apps.tenants.selectors import regions_for_country

PROFILE_STEP_FIELDS = ("gender", "sexuality", "country", "region", "city", "about_me")
CITY_MAX_LENGTH = 120
ABOUT_ME_MAX_LENGTH = 2000
# Key in User.dismissals: the member went through the steps (filled in or skipped).
SIGNUP_STEPS_DONE = "signup_steps"


def _profile_for(user: User, *, lock: bool = False) -> Profile:
    queryset = Profile.objects.select_for_update() if lock else Profile.objects
    profile = queryset.filter(user=user).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    return profile


def _text(value) -> str | None:
    """The submitted value as stripped text; None when it is not text at all."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return None


def _region_codes(country: str) -> set[str]:
    return {item["code"] for item in regions_for_country(country)} if country else set()


def signup_profile_validate(*, site: Site, profile: Profile, data: dict) -> dict:
    """The cleaned values of the step fields present in `data`; raises
    ApplicationError("invalid") whose `fields` maps each field to its messages. A blank
    value clears the field."""
    errors: dict[str, list[str]] = {}
    cleaned: dict[str, str] = {}
    values = {key: _text(data[key]) for key in PROFILE_STEP_FIELDS if key in data}

    if "gender" in values:
        if values["gender"] not in ("", *Gender.values):
            errors["gender"] = [_("Choose your gender.")]
        else:
            cleaned["gender"] = values["gender"]
    if "sexuality" in values:
        if values["sexuality"] not in ("", *Sexuality.values):
            errors["sexuality"] = [_("Choose your sexuality.")]
        else:
            cleaned["sexuality"] = values["sexuality"]

    country = profile.country.code if profile.country else ""
    if "country" in values:
        code = (values["country"] or "").upper()
        if values["country"] is None or (code and code not in site.country_codes):
            errors["country"] = [_("Choose one of the countries of this site.")]
        else:
            cleaned["country"] = country = code
    if "region" in values:
        region = (values["region"] or "").upper()
        if values["region"] is None:
            errors["region"] = [_("Choose a region of the selected country.")]
        elif not region:
            cleaned["region"] = ""
        elif "country" in errors:
            pass  # The country is wrong already: its message is enough.
        elif not country:
            errors["region"] = [_("Choose a country first.")]
        elif region not in _region_codes(country):
            errors["region"] = [_("Choose a region of the selected country.")]
        else:
            cleaned["region"] = region
    elif "country" in cleaned and profile.region and profile.region not in _region_codes(country):
        cleaned["region"] = ""  # The old region does not belong to the new country.

    if "city" in values:
        if values["city"] is None:
            errors["city"] = [_("Enter the name of your city.")]
        elif len(values["city"]) > CITY_MAX_LENGTH:
            errors["city"] = [_("A city name can have at most %(max)s characters.") % {"max": CITY_MAX_LENGTH}]
        else:
            cleaned["city"] = values["city"]
    if "about_me" in values:
        if values["about_me"] is None:
            errors["about_me"] = [_("Enter a text about yourself.")]
        elif len(values["about_me"]) > ABOUT_ME_MAX_LENGTH:
            errors["about_me"] = [_("Your text can have at most %(max)s characters.") % {"max": ABOUT_ME_MAX_LENGTH}]
        else:
            cleaned["about_me"] = values["about_me"]

    if errors:
        raise ApplicationError("invalid", _("Please check the fields marked in red."), extra={"fields": errors})
    return cleaned


@transaction.atomic
def signup_profile_update(*, site: Site, user: User, data: dict, done: bool = False) -> Profile:
    """Store the fields of a signup step in the member's profile. `done` records that the
    member went through the last step, so /complete-signup stops offering the steps."""
    profile = _profile_for(user, lock=True)
    cleaned = signup_profile_validate(site=site, profile=profile, data=data)
    if cleaned:
        for key, value in cleaned.items():
            setattr(profile, key, value)
        profile.save(update_fields=[*cleaned, "updated"])
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


def _photo_limit_error(limit: int) -> ApplicationError:
    if limit < PREMIUM_PHOTO_LIMIT:
        message = _("You can upload up to %(free)s photos. Become a premium member to upload up to %(premium)s.") % {
            "free": FREE_PHOTO_LIMIT,
            "premium": PREMIUM_PHOTO_LIMIT,
        }
    else:
        message = _("You can upload up to %(max)s photos.") % {"max": limit}
    return ApplicationError("photo_limit", message, extra={"fields": {"photo": [message]}})


def signup_photo_add(*, site: Site, user: User, upload) -> Photo:
    """Re-encode an uploaded photo (apps.profiles.images) and add it to the member's
    profile, as the main photo when there is none yet. Approved at once when the site
    says so, otherwise waiting for approval. Raises ImageRejected or "photo_limit"."""
    limit = photo_limit(user)
    profile = _profile_for(user)
    if photo_count(profile) >= limit:  # Cheap check before the expensive decoding.
        raise _photo_limit_error(limit)
    processed = process_upload(upload)
    with transaction.atomic():
        # The lock makes two uploads at once count one after the other.
        profile = _profile_for(user, lock=True)
        if photo_count(profile) >= limit:
            raise _photo_limit_error(limit)
        name = image_filename(processed.extension)
        photo = Photo(
            profile=profile,
            status=PhotoStatus.ACTIVE if site.auto_approve_photos else PhotoStatus.PENDING,
        )
        photo.image.save(name, ContentFile(processed.full), save=False)
        photo.thumb.save(name, ContentFile(processed.thumb), save=False)
        photo.width, photo.height = processed.width, processed.height
        photo.save()
        if profile.main_photo_id is None:
            profile.main_photo = photo
            profile.save(update_fields=["main_photo", "updated"])
    return photo
