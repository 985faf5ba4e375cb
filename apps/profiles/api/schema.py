"""OpenAPI post-processing (drf-spectacular) for the values that are the site's own: the
schema is made per request on the site's host, so it names the countries, regions,
genders and profile choices that site accepts, and a generated client or fuzzer sends
what the server takes."""

from apps.profiles.images import PHOTO_TYPES
from apps.profiles.models import Gender, Sexuality
from apps.profiles.search import ALL_GENDERS, CHOICE_FIELDS, MAX_AGE, MAX_PAGE, niche_genders
from apps.profiles.services.profile import ABOUT_ME_MAX_LENGTH, CITY_MAX_LENGTH
from apps.tenants.constants import SEARCHABLE_PROFILE_FIELDS
from apps.tenants.selectors import site_regions


def _parameter(operation: dict, name: str) -> dict | None:
    return next((item for item in operation.get("parameters", []) if item["name"] == name), None)


def _restrict(operation: dict | None, name: str, schema: dict) -> None:
    """Give the parameter its schema; one whose choices are none on this site is not offered."""
    if operation is None or _parameter(operation, name) is None:
        return
    if schema.get("enum") == []:
        operation["parameters"] = [item for item in operation["parameters"] if item["name"] != name]
    else:
        _parameter(operation, name)["schema"] = schema


def site_choices(result, generator, request, public):
    site = getattr(request, "site", None)
    if site is None or not hasattr(site, "country_codes"):
        return result  # built without a site (the generator's own check): no site's values
    paths = result.get("paths", {})
    countries = sorted(site.country_codes)
    regions = sorted({region["code"] for code in countries for region in site_regions(site, code)})
    _restrict(paths.get("/api/regions.php", {}).get("get"), "country", {"type": "string", "enum": countries})
    search = paths.get("/api/search.php", {}).get("get")
    _restrict(search, "gender", {"type": "string", "enum": sorted({*niche_genders(site), ALL_GENDERS})})
    _restrict(search, "country", {"type": "string", "enum": countries})
    _restrict(search, "region", {"type": "string", "enum": regions})
    for name in ("min_age", "max_age"):
        _restrict(search, name, {"type": "integer", "minimum": site.min_age, "maximum": MAX_AGE})
    _restrict(search, "page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE})
    for name in SEARCHABLE_PROFILE_FIELDS:
        if name not in site.search_fields:
            # Not searched on this site: the server ignores it, so it is not offered.
            search["parameters"] = [item for item in search["parameters"] if item["name"] != name]
        elif name == "interests":
            _restrict(search, name, {"type": "string", "enum": sorted(site.interests)})
        else:
            _restrict(search, name, {"type": "string", "enum": sorted(CHOICE_FIELDS[name].values)})
    components = result.get("components", {}).get("schemas", {})
    for name in ("SignupProfileInputRequest", "PatchedSignupProfileInputRequest"):
        properties = components.get(name, {}).get("properties", {})
        for field, values in (
            ("gender", Gender.values),
            ("sexuality", Sexuality.values),
            ("country", countries),
            ("region", regions),
        ):
            if field in properties:
                # "" clears the field.
                properties[field] = {"type": "string", "enum": ["", *sorted(values)]}
        for field, length in (("city", CITY_MAX_LENGTH), ("about_me", ABOUT_ME_MAX_LENGTH)):
            if field in properties:
                properties[field]["maxLength"] = length
    for item in paths.values():
        for operation in item.values():
            form = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data")
            if form and form.get("schema", {}).get("properties", {}).get("photo", {}).get("format") == "binary":
                form["encoding"] = {"photo": {"contentType": PHOTO_TYPES}}
    message = paths.get("/api/message.php", {}).get("post", {}).get("requestBody", {}).get("content", {})
    for shape in message.get("application/json", {}).get("schema", {}).get("oneOf", []):
        if "text" in shape["properties"]:
            shape["properties"]["text"]["maxLength"] = site.message_length
    language = components.get("LanguageInputRequest", {}).get("properties", {})
    if "language" in language:
        language["language"] = {"type": "string", "enum": list(site.languages)}
    return result
