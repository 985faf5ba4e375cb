"""The regions of a country (ISO 3166-2, top level) as pycountry has them: reference data
that site settings, profiles, search and landers read, and that no site changes (a site's
choice among them is Site.regions, apps.tenants.selectors.regions_offered)."""

import re
from functools import lru_cache

import pycountry


@lru_cache(maxsize=256)
def iso_regions(country: str) -> tuple[dict, ...]:
    """Top-level subdivisions of a country (ISO 3166-2) with ISO's own names, which may
    carry a bracketed note ("Wales [Cymru GB-CYM]", "Catalunya [Cataluña]"): for matching
    names (apps.profiles.geocoding), never for showing."""
    subdivisions = pycountry.subdivisions.get(country_code=country) or []
    return tuple({"code": sub.code, "name": sub.name} for sub in subdivisions if sub.parent_code is None)


def region_plain_name(name: str) -> str:
    """ "Wales [Cymru GB-CYM]" -> "Wales": ISO 3166-2 names without their bracketed note."""
    return re.sub(r"\s*\[[^\]]*\]$", "", name).strip() or name


@lru_cache(maxsize=256)
def regions_for_country(country: str) -> tuple[dict, ...]:
    """Top-level subdivisions of a country (ISO 3166-2) as members read them (profiles,
    signup, search, /api/regions.php, landers), sorted by name."""
    regions = ({"code": region["code"], "name": region_plain_name(region["name"])} for region in iso_regions(country))
    return tuple(sorted(regions, key=lambda item: item["name"]))


@lru_cache(maxsize=4096)
def region_name(code: str) -> str:
    """The name of one region (ISO 3166-2 code) as members read it; the code itself when
    ISO does not know it."""
    subdivision = pycountry.subdivisions.get(code=code) if code else None
    return region_plain_name(subdivision.name) if subdivision else code
