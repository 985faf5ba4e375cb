"""Product constants for sites (spec §1, §3, §9)."""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

# Spec §9 marketing text: "premium members have a 46% higher chance of a match".
MATCH_CHANCE_PERCENTAGE = 46

# Spec §9 "Visible languages by country".
VISIBLE_LANGUAGES_BY_COUNTRY: dict[str, tuple[str, ...]] = {
    "US": ("en", "es"),
    "NL": ("nl",),
    "BE": ("nl", "fr", "de"),
    "FR": ("fr",),
    "IT": ("it",),
    "ES": ("es",),
    "DE": ("de",),
    "AT": ("de",),
    "IE": ("en",),
    "GB": ("en",),
    "CA": ("en", "fr"),
    "PL": ("pl",),
    "AU": ("en",),
    "NZ": ("en",),
    "CH": ("de", "it", "fr", "en"),
    "DK": ("da",),
    "FI": ("fi", "sv"),
    "NO": ("nb",),
    "SE": ("sv",),
}

# Countries where the entry warning shows in the chat and lander layouts (spec §2, §9).
ENTRY_WARNING_STRICT_COUNTRIES = ("NL", "DE")

# Terms version date (spec §4): this, or the company's added date if later.
TERMS_VERSION_DATE = "2023-12-01T12:00:00+00:00"


class Niche(models.IntegerChoices):
    GENERAL = 1, _("General")
    SHE = 2, _("She")
    BDSM = 3, _("BDSM")
    BBW = 4, _("BBW")
    GILF = 5, _("GILF")
    MILF = 6, _("MILF")
    GAY = 7, _("Gay")


# Spec §9: niche 1 to 7 map to lander prefixes none, she, bdsm, bbw, gilf, milf, gay.
LANDER_PREFIXES = {
    Niche.GENERAL: "",
    Niche.SHE: "she",
    Niche.BDSM: "bdsm",
    Niche.BBW: "bbw",
    Niche.GILF: "gilf",
    Niche.MILF: "milf",
    Niche.GAY: "gay",
}


class Signups(models.TextChoices):
    ALL = "all", _("Everyone")
    WITH_TRAFFICSOURCE = "with_trafficsource", _("Only visitors with a tracking network")


class YesNo(models.TextChoices):
    YES = "yes", _("Yes")
    NO = "no", _("No")


# Spec §3 "Profile": the fields a site may show and search on.
PROFILE_FIELDS = (
    ("age", _("Age")),
    ("country", _("Country")),
    ("region", _("Region")),
    ("city", _("City")),
    ("gender", _("Gender")),
    ("sexuality", _("Sexuality")),
    ("relationship_status", _("Relationship status")),
    ("body_type", _("Body type")),
    ("hair_color", _("Hair colour")),
    ("eye_color", _("Eye colour")),
    ("tattoos", _("Tattoos")),
    ("interests", _("Interests")),
    ("about_me", _("About me")),
)
PROFILE_FIELD_NAMES = tuple(name for name, _label in PROFILE_FIELDS)
SEARCHABLE_PROFILE_FIELDS = (
    "relationship_status",
    "body_type",
    "hair_color",
    "eye_color",
    "tattoos",
    "sexuality",
    "interests",
)

DEFAULT_INTERESTS = (
    "Travel",
    "Music",
    "Cinema",
    "Cooking",
    "Sports",
    "Reading",
    "Dancing",
    "Nature",
    "Art",
    "Gaming",
    "Fitness",
    "Photography",
)

# The default interests in the reader's language. Members' profiles and searches keep the
# site's own words (the values above, or an operator's), so a search finds the same profiles
# in every language; only what is shown is translated. An operator's own interest is shown
# as typed.
INTEREST_LABELS = {
    "Travel": pgettext_lazy("interest", "Travel"),
    "Music": pgettext_lazy("interest", "Music"),
    "Cinema": pgettext_lazy("interest", "Cinema"),
    "Cooking": pgettext_lazy("interest", "Cooking"),
    "Sports": pgettext_lazy("interest", "Sports"),
    "Reading": pgettext_lazy("interest", "Reading"),
    "Dancing": pgettext_lazy("interest", "Dancing"),
    "Nature": pgettext_lazy("interest", "Nature"),
    "Art": pgettext_lazy("interest", "Art"),
    "Gaming": pgettext_lazy("interest", "Gaming"),
    "Fitness": pgettext_lazy("interest", "Fitness"),
    "Photography": pgettext_lazy("interest", "Photography"),
}


def interest_label(value: str) -> str:
    """An interest as the page's language names it (INTEREST_LABELS)."""
    label = INTEREST_LABELS.get(value)
    return str(label) if label is not None else value


# The pictures of the default gifts (apps.tenants.services.DEFAULT_GIFTS), by emoji without
# its variation selector: static files, so a gift shows where the device has no emoji font.
GIFT_PICTURES = {
    "🌹": "gifts/rose.svg",
    "❤": "gifts/heart.svg",
    "💋": "gifts/kiss.svg",
    "🍾": "gifts/champagne.svg",
    "🍫": "gifts/chocolate.svg",
    "🧸": "gifts/teddy-bear.svg",
    "💎": "gifts/diamond.svg",
    "☕": "gifts/coffee.svg",
}
