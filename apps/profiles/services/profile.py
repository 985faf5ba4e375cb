"""The member's own profile (spec §3 "Profile", §5): every field with its rules and
messages. Signup (apps.accounts.services.signup, signup_steps) uses the same rules."""

from datetime import date

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

# Up to accounts: the name and date of birth are stored on the member's account too.
from apps.accounts.models import User
from apps.accounts.selectors import age_on
from apps.common.exceptions import ApplicationError
from apps.profiles.models import BodyType, EyeColor, Gender, HairColor, Profile, RelationshipStatus, Sexuality, Tattoos
from apps.tenants.models import Site
from apps.tenants.regions import regions_for_country

NAME_MAX_LENGTH = 30
CITY_MAX_LENGTH = 120
ABOUT_ME_MAX_LENGTH = 2000

# Every field of the edit page, in the page's order.
PROFILE_FIELDS = (
    "name",
    "country",
    "region",
    "city",
    "date_of_birth",
    "gender",
    "sexuality",
    "relationship_status",
    "body_type",
    "hair_color",
    "eye_color",
    "tattoos",
    "interests",
    "about_me",
)

# Choice fields: their choices and the message for anything else.
_CHOICE_FIELDS = {
    "gender": (Gender, lambda: _("Choose your gender.")),
    "sexuality": (Sexuality, lambda: _("Choose your sexuality.")),
    "relationship_status": (RelationshipStatus, lambda: _("Choose a relationship status from the list.")),
    "body_type": (BodyType, lambda: _("Choose a body type from the list.")),
    "hair_color": (HairColor, lambda: _("Choose a hair colour from the list.")),
    "eye_color": (EyeColor, lambda: _("Choose an eye colour from the list.")),
    "tattoos": (Tattoos, lambda: _("Choose an answer about tattoos from the list.")),
}


def _text(value) -> str | None:
    """The submitted value as stripped text; None when it is not text at all."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return None


def _parse_date(value) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except (TypeError, ValueError):
        return None


def region_codes(country: str) -> set[str]:
    return {item["code"] for item in regions_for_country(country)} if country else set()


def name_error(name: str, *, email: str, user_id: int | None = None) -> str | None:
    """Spec §5 username rules (signup and profile edit); None when the name is fine.
    `user_id` is the member who already holds the name, if any."""
    if not name:
        return _("Enter a name")
    if name.startswith("@"):
        return _("Username may not start with @")
    if name.casefold() == (email or "").strip().casefold():
        return _("Username may not be the same as your e-mail address")
    if len(name) > NAME_MAX_LENGTH:
        return _("A name can have at most %(max)s characters.") % {"max": NAME_MAX_LENGTH}
    taken = User.objects.filter(username__iexact=name)
    if user_id is not None:
        taken = taken.exclude(pk=user_id)
    if taken.exists():
        return _("This name is already taken.")
    return None


def date_of_birth_clean(value, *, min_age: int) -> tuple[date | None, str | None]:
    """(the date, None) or (None, the spec §5 message)."""
    if value in (None, ""):
        return None, _("Enter your date of birth (%(min_age)s+)") % {"min_age": min_age}
    born = _parse_date(value)
    today = timezone.localdate()
    if born is None or born > today or age_on(born, today) > 120:
        return None, _("Invalid date of birth.")
    if age_on(born, today) < min_age:
        return None, _("Enter your date of birth (%(min_age)s+)") % {"min_age": min_age}
    return born, None


def profile_validate(*, site: Site, profile: Profile, data: dict, email: str = "") -> dict:
    """The cleaned values of the PROFILE_FIELDS present in `data`; raises
    ApplicationError("invalid") whose `fields` maps each field to its messages. A blank
    value clears an optional field; name and date of birth cannot be cleared."""
    errors: dict[str, list[str]] = {}
    cleaned: dict = {}
    present = [key for key in PROFILE_FIELDS if key in data]
    values = {key: _text(data[key]) for key in present if key not in ("interests", "date_of_birth")}

    if "name" in values:
        name = values["name"]
        message = _("Enter a name") if name is None else name_error(name, email=email, user_id=profile.user_id)
        if message:
            errors["name"] = [message]
        else:
            cleaned["name"] = name

    if "date_of_birth" in data:
        born, message = date_of_birth_clean(data["date_of_birth"], min_age=site.min_age)
        if message:
            errors["date_of_birth"] = [message]
        else:
            cleaned["date_of_birth"] = born

    for key, (choices, message) in _CHOICE_FIELDS.items():
        if key in values:
            if values[key] not in ("", *choices.values):
                errors[key] = [message()]
            else:
                cleaned[key] = values[key]

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
        elif region not in region_codes(country):
            errors["region"] = [_("Choose a region of the selected country.")]
        else:
            cleaned["region"] = region
    elif "country" in cleaned and profile.region and profile.region not in region_codes(country):
        cleaned["region"] = ""  # The old region does not belong to the new country.

    if "city" in values:
        if values["city"] is None:
            errors["city"] = [_("Enter the name of your city.")]
        elif len(values["city"]) > CITY_MAX_LENGTH:
            errors["city"] = [_("A city name can have at most %(max)s characters.") % {"max": CITY_MAX_LENGTH}]
        else:
            cleaned["city"] = values["city"]

    if "interests" in data:
        raw = data["interests"]
        if raw in (None, ""):
            raw = []
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, (list, tuple)) or not all(isinstance(item, str) for item in raw):
            errors["interests"] = [_("Choose interests from the list.")]
        else:
            wanted = {item.strip() for item in raw if item.strip()}
            if wanted - set(site.interests):
                errors["interests"] = [_("Choose interests from the list.")]
            else:
                cleaned["interests"] = [item for item in site.interests if item in wanted]  # The site's order.

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


def _profile_locked(user: User) -> Profile:
    profile = Profile.objects.select_for_update().filter(user=user).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    return profile


@transaction.atomic
def profile_update(*, site: Site, user: User, data: dict) -> Profile:
    """Store the fields present in `data` in the member's profile (all or nothing). The
    name is the account's username too, the date of birth the account's as well."""
    # Up to accounts: a new name reaches the support's member directory in the same transaction.
    from apps.accounts.services.directory import directory_sync

    # A member's rows are locked in one order everywhere: the account, then the profile
    # (the e-mail confirmation locks the account and then updates the profile; the other
    # order deadlocked with it when the last signup step was saved at the same moment).
    User.objects.select_for_update().only("pk").get(pk=user.pk)
    profile = _profile_locked(user)
    cleaned = profile_validate(site=site, profile=profile, data=data, email=user.email)
    if not cleaned:
        return profile
    for key, value in cleaned.items():
        setattr(profile, key, value)
    profile.save(update_fields=[*cleaned, "updated"])
    user_fields = {}
    if "name" in cleaned and cleaned["name"] != user.username:
        user_fields["username"] = cleaned["name"]
    if "date_of_birth" in cleaned and cleaned["date_of_birth"] != user.date_of_birth:
        user_fields["date_of_birth"] = cleaned["date_of_birth"]
    if user_fields:
        try:
            with transaction.atomic():
                User.objects.filter(pk=user.pk).update(**user_fields)
        except IntegrityError as error:  # The same name taken at the same moment.
            message = _("This name is already taken.")
            raise ApplicationError("invalid", message, extra={"fields": {"name": [message]}}) from error
        for key, value in user_fields.items():
            setattr(user, key, value)
        if "username" in user_fields:
            directory_sync(user=user)
    return profile
