from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language, get_language_info

from apps.tenants.middleware import is_public
from apps.tenants.selectors import request_country, visible_languages


def _rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    return ", ".join(str(int(value[i : i + 2], 16)) for i in (0, 2, 4))


def site(request: HttpRequest) -> dict:
    current = getattr(request, "site", None)
    if current is None or is_public(request):
        return {"site": None}
    language = get_language() or "en"
    languages = visible_languages(current, request_country(request))
    return {
        "site": current,
        "company": current.company,
        "site_languages": [
            {"code": code, "name": get_language_info(code)["name_local"], "current": code == language}
            for code in languages
        ],
        "theme_primary_rgb": _rgb(current.theme_primary),
        "theme_secondary_rgb": _rgb(current.theme_secondary),
        "show_us_footer": language == "en",
        "language_cookie_name": settings.LANGUAGE_COOKIE_NAME,
    }
