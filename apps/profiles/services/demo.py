"""Demo profiles for the demo sites (`manage.py seed_demo`, `make run`).

Deterministic: a site's profiles come from random.Random(seed) with a seed made from
the site's primary domain, so the same site gets the same names, ages, towns,
regions, interests and pictures on every machine (only the photo file names, which
are random by design, and the timestamps differ). Demo profiles have no member
(`user` is null) and are active; their photos are drawn here and stored through
apps.profiles.images.process_upload, exactly like uploads, under the site's media
prefix.
"""

from __future__ import annotations

import colorsys
import io
import random
import zlib
from dataclasses import dataclass
from datetime import date, timedelta

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import tenant_context
from PIL import Image, ImageDraw, ImageFont

from apps.profiles.images import image_filename, process_upload
from apps.profiles.models import (
    BodyType,
    EyeColor,
    Gender,
    HairColor,
    Photo,
    PhotoStatus,
    Profile,
    ProfileStatus,
    RelationshipStatus,
    Sexuality,
    Tattoos,
)
from apps.tenants.constants import Niche
from apps.tenants.models import Site
from apps.tenants.regions import regions_for_country

DEFAULT_COUNT = 60
AVATAR_SIDE = 600

# Real towns, named as the people who live there write them (a member types "Köln", not
# "Cologne"), with their ISO 3166-2 top-level region, for the countries demo sites
# usually serve; other countries take towns from the geocoder's GeoNames data.
TOWNS: dict[str, tuple[tuple[str, str], ...]] = {
    "NL": (("Amsterdam", "NL-NH"), ("Rotterdam", "NL-ZH"), ("Utrecht", "NL-UT"), ("Eindhoven", "NL-NB"),
           ("Groningen", "NL-GR"), ("Haarlem", "NL-NH"), ("Den Haag", "NL-ZH"), ("Nijmegen", "NL-GE"),
           ("Maastricht", "NL-LI"), ("Leeuwarden", "NL-FR"), ("Zwolle", "NL-OV"), ("Breda", "NL-NB")),
    "DE": (("Berlin", "DE-BE"), ("Hamburg", "DE-HH"), ("München", "DE-BY"), ("Köln", "DE-NW"),
           ("Frankfurt am Main", "DE-HE"), ("Stuttgart", "DE-BW"), ("Düsseldorf", "DE-NW"), ("Leipzig", "DE-SN"),
           ("Dresden", "DE-SN"), ("Hannover", "DE-NI"), ("Bremen", "DE-HB"), ("Nürnberg", "DE-BY")),
    "GB": (("London", "GB-ENG"), ("Manchester", "GB-ENG"), ("Birmingham", "GB-ENG"), ("Leeds", "GB-ENG"),
           ("Bristol", "GB-ENG"), ("Glasgow", "GB-SCT"), ("Edinburgh", "GB-SCT"), ("Cardiff", "GB-WLS"),
           ("Belfast", "GB-NIR"), ("Liverpool", "GB-ENG"), ("Brighton", "GB-ENG"), ("Swansea", "GB-WLS")),
    "US": (("New York", "US-NY"), ("Los Angeles", "US-CA"), ("Chicago", "US-IL"), ("Houston", "US-TX"),
           ("Phoenix", "US-AZ"), ("Philadelphia", "US-PA"), ("San Diego", "US-CA"), ("Seattle", "US-WA"),
           ("Denver", "US-CO"), ("Boston", "US-MA"), ("Miami", "US-FL"), ("Atlanta", "US-GA")),
    "IE": (("Dublin", "IE-L"), ("Cork", "IE-M"), ("Limerick", "IE-M"), ("Galway", "IE-C"), ("Waterford", "IE-M"),
           ("Kilkenny", "IE-L"), ("Sligo", "IE-C"), ("Letterkenny", "IE-U")),
    "FR": (("Paris", "FR-IDF"), ("Marseille", "FR-PAC"), ("Lyon", "FR-ARA"), ("Toulouse", "FR-OCC"),
           ("Nice", "FR-PAC"), ("Nantes", "FR-PDL"), ("Strasbourg", "FR-GES"), ("Bordeaux", "FR-NAQ"),
           ("Lille", "FR-HDF"), ("Rennes", "FR-BRE"), ("Rouen", "FR-NOR"), ("Dijon", "FR-BFC")),
    "BE": (("Bruxelles", "BE-BRU"), ("Antwerpen", "BE-VLG"), ("Gent", "BE-VLG"), ("Brugge", "BE-VLG"),
           ("Leuven", "BE-VLG"), ("Liège", "BE-WAL"), ("Namur", "BE-WAL"), ("Charleroi", "BE-WAL")),
    "CA": (("Toronto", "CA-ON"), ("Montréal", "CA-QC"), ("Vancouver", "CA-BC"), ("Calgary", "CA-AB"),
           ("Ottawa", "CA-ON"), ("Edmonton", "CA-AB"), ("Winnipeg", "CA-MB"), ("Québec", "CA-QC"),
           ("Halifax", "CA-NS"), ("Victoria", "CA-BC")),
}  # fmt: skip

FIRST_NAMES = {
    Gender.FEMALE: ("Emma", "Sophie", "Julia", "Anna", "Laura", "Mia", "Lisa", "Sarah", "Chloe", "Eva", "Lotte",
                    "Hannah", "Olivia", "Amelia", "Isla", "Léa", "Manon", "Camille", "Sanne", "Fleur", "Nina",
                    "Grace", "Ella", "Zoe", "Charlotte", "Marie", "Lena", "Ava", "Ruby", "Jess"),
    Gender.MALE: ("Liam", "Noah", "Lucas", "Daan", "Sem", "Finn", "Jack", "Oliver", "Harry", "Leo", "Louis",
                  "Hugo", "Jules", "Max", "Paul", "Ben", "Jonas", "Felix", "Tom", "Thomas", "James", "Ethan",
                  "Milan", "Lars", "Ruben", "Adam", "Sam", "Owen", "Tim", "David"),
}  # fmt: skip

ABOUT_ME = (
    "Love long walks, good coffee and even better conversations.",
    "Weekend hiker, weekday cook. Looking for someone to share both with.",
    "New in town and curious to meet people who like music as much as I do.",
    "Honest, relaxed and always up for a spontaneous trip.",
    "Books, bikes and board games. Tell me your favourite!",
    "I laugh easily and I'd like to find someone to laugh with.",
    "Dog person, early riser, terrible at karaoke (but I still sing).",
    "Looking for something real. Say hi and let's see where it goes.",
)


@dataclass(frozen=True)
class _Niche:
    genders: tuple[tuple[str, int], ...]  # (gender, weight)
    ages: tuple[int, int]
    body_types: tuple[str, ...] = tuple(BodyType.values)


_NICHES = {
    Niche.GENERAL: _Niche(genders=((Gender.FEMALE, 55), (Gender.MALE, 45)), ages=(18, 60)),
    Niche.SHE: _Niche(genders=((Gender.FEMALE, 1),), ages=(18, 55)),
    Niche.BDSM: _Niche(genders=((Gender.FEMALE, 50), (Gender.MALE, 50)), ages=(21, 60)),
    Niche.BBW: _Niche(genders=((Gender.FEMALE, 1),), ages=(18, 60), body_types=(BodyType.CURVY, BodyType.FULL)),
    Niche.GILF: _Niche(genders=((Gender.FEMALE, 1),), ages=(55, 75)),
    Niche.MILF: _Niche(genders=((Gender.FEMALE, 1),), ages=(35, 55)),
    Niche.GAY: _Niche(genders=((Gender.MALE, 1),), ages=(18, 60)),
}


def demo_seed_for(site: Site) -> int:
    """The fixed seed of a site: from its primary domain, so it is the same on every
    machine (schema names may differ)."""
    domain = site.domains.filter(is_primary=True).values_list("domain", flat=True).first() or site.schema_name
    return zlib.crc32(f"demo:{domain}".encode())


def demo_profiles(site: Site):
    """The site's demo profiles: those without a member."""
    return Profile.objects.filter(user__isnull=True)


def demo_profiles_seed(*, site: Site, count: int = DEFAULT_COUNT, reset: bool = False, seed: int | None = None) -> int:
    """Create `count` demo profiles with photos on `site` and return how many were made.
    Idempotent: a site that already has demo profiles is left alone (0), unless
    `reset`, which deletes them (rows and photo files) first. Runs in the site's schema
    whatever the caller's connection is set to."""
    with tenant_context(site):
        if demo_profiles(site).exists():
            if not reset:
                return 0
            demo_profiles_delete(site=site)
        rng = random.Random(demo_seed_for(site) if seed is None else seed)  # noqa: S311 - demo data, repeatable
        specs = [_profile_spec(site, rng, number) for number in range(count)]
        pictures = [_avatar(spec["name"], rng) for spec in specs]
        return _store(specs, pictures)


def demo_profiles_delete(*, site: Site) -> int:
    """Delete the site's demo profiles with their photos' files."""
    with tenant_context(site):
        photos = Photo.objects.filter(profile__user__isnull=True)
        files = [name for pair in photos.values_list("image", "thumb") for name in pair if name]
        with transaction.atomic():
            Profile.objects.filter(user__isnull=True).update(main_photo=None)
            deleted, _per_model = demo_profiles(site).delete()
        storage = Photo._meta.get_field("image").storage
        for name in files:
            storage.delete(name)
        return deleted


# --- Generation ---------------------------------------------------------------------


def _profile_spec(site: Site, rng: random.Random, number: int) -> dict:
    niche = _NICHES.get(Niche(site.niche), _NICHES[Niche.GENERAL])
    gender = rng.choices([g for g, _w in niche.genders], weights=[w for _g, w in niche.genders])[0]
    if site.niche == Niche.GAY:
        sexuality = rng.choices([Sexuality.GAY, Sexuality.BI], weights=[85, 15])[0]
    else:
        same = Sexuality.LESBIAN if gender == Gender.FEMALE else Sexuality.GAY
        sexuality = rng.choices([Sexuality.HETERO, Sexuality.BI, same], weights=[80, 12, 8])[0]
    countries = site.country_codes or ["GB"]
    country = rng.choice(countries)
    city, region = _town(country, rng)
    low, high = max(niche.ages[0], site.min_age), max(niche.ages[1], site.min_age)
    age = rng.randint(low, high)
    today = timezone.localdate()
    born = _years_before(today, age) - timedelta(days=rng.randint(1, 364))
    interests = list(site.interests)
    kind = rng.random()
    return {
        "name": rng.choice(FIRST_NAMES[gender]),
        "gender": gender,
        "sexuality": sexuality,
        "country": country,
        "region": region,
        "city": city,
        "date_of_birth": born,
        "relationship_status": rng.choices(
            [RelationshipStatus.SINGLE, RelationshipStatus.DIVORCED, RelationshipStatus.COMPLICATED, ""],
            weights=[70, 15, 5, 10],
        )[0],
        "body_type": rng.choice(niche.body_types),
        "hair_color": rng.choice([value for value in HairColor.values if gender == Gender.MALE or value != "bald"]),
        "eye_color": rng.choice(EyeColor.values),
        "tattoos": rng.choice(Tattoos.values),
        "interests": sorted(rng.sample(interests, min(len(interests), rng.randint(2, 5)))) if interests else [],
        "about_me": rng.choice(ABOUT_ME),
        "is_fictional": kind < 0.10,
        "is_cam": 0.10 <= kind < 0.15,
        "is_resell": 0.15 <= kind < 0.20,
        # Spread over the last weeks, newest first in lists.
        "created": timezone.now() - timedelta(hours=number * 7 + rng.randint(0, 6)),
    }


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def _town(country: str, rng: random.Random) -> tuple[str, str]:
    towns = TOWNS.get(country)
    if towns is None:
        from apps.profiles.geocoding import towns_of

        towns = tuple(town for town in towns_of(country) if town[1]) or tuple(towns_of(country))
    if towns:
        return rng.choice(towns)
    regions = regions_for_country(country)
    return "", rng.choice(regions)["code"] if regions else ""


def _avatar(name: str, rng: random.Random) -> bytes:
    """A 600 px square: a diagonal two-colour gradient, a few soft circles and the
    initial, as a JPEG."""
    hue = rng.random()
    top = _colour(hue, 0.55, 0.92)
    bottom = _colour((hue + rng.uniform(0.08, 0.2)) % 1.0, 0.65, 0.62)
    vertical = Image.linear_gradient("L").resize((AVATAR_SIDE, AVATAR_SIDE), Image.Resampling.BILINEAR)
    mask = Image.blend(vertical, vertical.rotate(90), 0.5)  # top left to bottom right
    picture = Image.composite(Image.new("RGB", mask.size, bottom), Image.new("RGB", mask.size, top), mask)

    overlay = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for _circle in range(rng.randint(3, 6)):
        radius = rng.randint(40, 170)
        x, y = rng.randint(0, AVATAR_SIDE), rng.randint(0, AVATAR_SIDE)
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=(255, 255, 255, rng.randint(25, 60)))
    font = ImageFont.load_default(size=260)
    draw.text((AVATAR_SIDE / 2, AVATAR_SIDE / 2 + 10), name[:1].upper(), font=font, anchor="mm",
              fill=(255, 255, 255, 235))  # fmt: skip
    picture = Image.alpha_composite(picture.convert("RGBA"), overlay).convert("RGB")
    out = io.BytesIO()
    picture.save(out, format="JPEG", quality=92)
    return out.getvalue()


def _colour(hue: float, saturation: float, value: float) -> tuple[int, int, int]:
    red, green, blue = colorsys.hsv_to_rgb(hue, saturation, value)
    return round(red * 255), round(green * 255), round(blue * 255)


def _store(specs: list[dict], pictures: list[bytes]) -> int:
    storage_files: list[str] = []
    try:
        with transaction.atomic():
            created = [spec.pop("created") for spec in specs]
            profiles = Profile.objects.bulk_create(
                [Profile(user=None, status=ProfileStatus.ACTIVE, **spec) for spec in specs]
            )
            photos = []
            for profile, picture in zip(profiles, pictures, strict=True):
                processed = process_upload(io.BytesIO(picture))
                name = image_filename(processed.extension)
                photo = Photo(profile=profile, status=PhotoStatus.ACTIVE)
                photo.image.save(name, ContentFile(processed.full), save=False)
                photo.thumb.save(name, ContentFile(processed.thumb), save=False)
                storage_files += [photo.image.name, photo.thumb.name]
                photo.width, photo.height = processed.width, processed.height
                photos.append(photo)
            Photo.objects.bulk_create(photos)
            for profile, photo, when in zip(profiles, photos, created, strict=True):
                profile.main_photo = photo
                profile.created = when
            Profile.objects.bulk_update(profiles, ["main_photo", "created"])
    except Exception:
        storage = Photo._meta.get_field("image").storage
        for name in storage_files:  # The rows are gone: so are their files.
            storage.delete(name)
        raise
    return len(profiles)
