"""What every page's layout needs about the host's site: the site and its company, the
theme's colours, the language menu for the visitor's country (spec §9)."""

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language, get_language_info

from apps.common.locale import request_country
from apps.common.sites import is_public
from apps.tenants.selectors import visible_languages


def _rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    return ", ".join(str(int(value[i : i + 2], 16)) for i in (0, 2, 4))


def language_menu(languages: list[str], current: str) -> dict | None:
    """The top bar's language menu: the visible languages for the visitor's country (spec
    §9), offered whenever there is a choice, i.e. more than one of them, or one the page
    is not in (a French visitor on a page in English is offered French). The toggle
    always names the page's own language, also when it is outside that list."""
    if len(languages) < 2 and (not languages or languages == [current]):
        return None
    return {
        "current": current,
        "choices": [
            {"code": code, "name": get_language_info(code)["name_local"], "current": code == current}
            for code in languages
        ],
    }


def site(request: HttpRequest) -> dict:
    current = getattr(request, "site", None)
    if current is None or is_public(request):
        return {"site": None}
    language = get_language() or "en"
    return {
        "site": current,
        "company": current.company,
        "language_menu": language_menu(visible_languages(current, request_country(request)), language),
        "theme_primary_rgb": _rgb(current.theme_primary),
        "theme_secondary_rgb": _rgb(current.theme_secondary),
        "show_us_footer": language == "en",
        "language_cookie_name": settings.LANGUAGE_COOKIE_NAME,
    }
