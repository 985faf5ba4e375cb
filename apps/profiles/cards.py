"""What a profile card shows (search, match finder, likes, swipe game, real-time likes
and matches): the facts the site shows (Site.visible_profile_fields, spec §3 "Settings"),
computed once here so every card, server-rendered or island, shows the same, plus the
profile's notes (Site.visible_profile_notes) and its fictional-profile label.

Cards carry plain text only; templates and React escape it when they render it."""

from __future__ import annotations

from datetime import date

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

# Up to accounts: a card's age is the account's rule (the member and the date of birth are the account's).
from apps.accounts.selectors import age_on
from apps.profiles.models import Profile
from apps.profiles.selectors import profile_verified, public_main_image
from apps.tenants.constants import interest_label
from apps.tenants.current import current_site
from apps.tenants.models import Site, _default_visible_fields
from apps.tenants.regions import region_name
from apps.tenants.selectors import country_name

# The choice fields a card lists on one line, in the order of PROFILE_FIELDS.
DETAIL_FIELDS = ("gender", "sexuality", "relationship_status", "body_type", "hair_color", "eye_color", "tattoos")
# The model fields a card reads (search loads only these).
CARD_FIELDS = (
    "id",
    "name",
    "date_of_birth",
    "city",
    "region",
    "country",
    *DETAIL_FIELDS,
    "interests",
    "about_me",
    "is_fictional",
    "is_cam",
    "is_resell",
    "created",
    "main_photo__status",
    "main_photo__thumb",
    # The match modal's picture (main_image.match_filename); an ImageField reads its
    # dimension fields when the row loads, so they come along (no query per card).
    "main_photo__image",
    "main_photo__width",
    "main_photo__height",
    "main_photo__verified",
)
CARD_INTERESTS = 3
CARD_ABOUT_LENGTH = 90


def shown_fields(site: Site | None) -> list[str]:
    return list(site.visible_profile_fields) if site is not None else _default_visible_fields()


def country_code(profile: Profile) -> str:
    """The profile's country code as stored: reading `profile.country` makes a
    django-countries Country object each time, which a list of cards pays per card."""
    return profile.__dict__.get("country") or ""


def profile_place(profile: Profile, shown, language: str | None = None) -> str:
    """City, region and country, each only when the site shows it (a region named like
    the city once); the country named in `language` (default: the active one)."""
    parts = []
    if "city" in shown and profile.city:
        parts.append(profile.city)
    if "region" in shown and profile.region:
        region = region_name(profile.region)
        if region.casefold() != profile.city.casefold() or "city" not in shown:  # "Groningen, Groningen"
            parts.append(region)
    if "country" in shown and (code := country_code(profile)):
        parts.append(country_name(code, language))
    return ", ".join(parts)


def _short(text: str, length: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def card_facts(profile: Profile, shown, language: str | None = None) -> list[dict]:
    """The lines under a card's name, each {"name", "text"}: the place, the site's choice
    fields on one line, a few interests, the start of the about-me text. Age is not a
    line: it stands beside the name. Empty values are left out."""
    facts = []
    place = profile_place(profile, shown, language)
    if place:
        facts.append({"name": "place", "text": place})
    details = [
        str(getattr(profile, f"get_{name}_display")())
        for name in DETAIL_FIELDS
        if name in shown and getattr(profile, name)
    ]
    if details:
        facts.append({"name": "details", "text": " · ".join(details)})
    if "interests" in shown and profile.interests:
        interests = ", ".join(interest_label(interest) for interest in profile.interests[:CARD_INTERESTS])
        more = "…" if len(profile.interests) > CARD_INTERESTS else ""
        facts.append({"name": "interests", "text": interests + more})
    if "about_me" in shown and profile.about_me.strip():
        facts.append({"name": "about_me", "text": _short(profile.about_me, CARD_ABOUT_LENGTH)})
    return facts


def fictional_label(profile: Profile, site: Site | None) -> dict | None:
    """How a fictional profile is marked: the site's icon, its word for one fictional
    profile (the label) and its warning."""
    if not profile.is_fictional:
        return None
    if site is None:
        return {"icon": "★", "label": _("fictional profile"), "warning": ""}
    return {"icon": site.fictional_icon, "label": site.fictional_singular, "warning": site.fictional_warning}


def profile_notes(profile: Profile, site: Site | None) -> list[dict]:
    """The notes under a profile's facts, each {"kind", "text"}: the "verified" badge
    (photos checked against a selfie, apps.profiles.services.verification) and, when the
    site shows profile notes (Site.visible_profile_notes), what kind of entry it is."""
    # The "verified" badge is shown on every site: it is about the member's safety.
    verified = [{"kind": "verified", "text": _("Verified photos")}] if profile_verified(profile) else []
    if site is not None and not site.visible_profile_notes:
        return verified
    notes = verified
    fictional = fictional_label(profile, site)
    if fictional and fictional["label"]:
        notes.append({"kind": "fictional", "text": fictional["label"]})
    if profile.is_cam:
        notes.append({"kind": "cam", "text": _("Cam")})
    if profile.is_resell:
        notes.append({"kind": "partner", "text": _("Partner profile")})
    return notes


def card_basics(profile: Profile, shown, today: date | None = None) -> dict:
    """Id, name, and the age, city and region where the site shows them: what every card
    has (these and the landers' cached cards, apps.landers.selectors)."""
    return {
        "id": profile.pk,
        "name": profile.name,
        "age": age_on(profile.date_of_birth, today or timezone.localdate())
        if "age" in shown and profile.date_of_birth
        else None,
        "city": profile.city if "city" in shown else "",
        "region": profile.region if "region" in shown else "",
    }


def profile_card(profile: Profile, *, today: date | None = None, site: Site | None = None) -> dict:
    """One card (the JSON of the APIs and the likes pages' context). `site` defaults to
    the site of the connection's schema."""
    site = site or current_site()
    return _card(profile, today=today, site=site, shown=shown_fields(site), language=get_language())


def profile_cards(profiles, *, today: date | None = None, site: Site | None = None) -> list[dict]:
    """The cards of a list of profiles (search's pages), each as `profile_card` makes it;
    what every card of the list shares (the site, its shown fields, today, the language)
    is worked out once for the list."""
    site = site or current_site()
    shown, language, today = frozenset(shown_fields(site)), get_language(), today or timezone.localdate()
    return [_card(profile, today=today, site=site, shown=shown, language=language) for profile in profiles]


def _card(profile: Profile, *, today: date | None, site: Site | None, shown, language: str | None) -> dict:
    return {
        **card_basics(profile, shown, today),
        "country": country_code(profile) if "country" in shown else "",
        "facts": card_facts(profile, shown, language),
        "notes": profile_notes(profile, site),
        "fictional": fictional_label(profile, site),
        "main_image": public_main_image(profile),
        "is_fictional": profile.is_fictional,
        "is_cam": profile.is_cam,
    }
