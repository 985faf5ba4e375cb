"""Choosing the interface language (spec §4 "Locale")."""

import functools
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language
from django.utils.translation.trans_real import parse_accept_lang_header

# The interface languages: the catalogues in locale/; a site's settings choose from them.
INTERFACE_LANGUAGES = ("da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "sv")


def per_language(make: Callable) -> Callable:
    """`make(*args)` made once per process for each active language and arguments: for
    texts built of gettext calls (the catalogues change only with a new process), which
    a page would otherwise look up again every time. The arguments must be few and
    bounded (an island's name, an age); `.cache_clear()` forgets what was made."""
    made: dict[tuple, object] = {}

    @functools.wraps(make)
    def made_once(*args):
        key = (get_language() or "", *args)
        value = made.get(key)
        if value is None:
            value = made[key] = make(*args)
        return value

    made_once.cache_clear = made.clear
    return made_once


# Browser tags that stand for one of our languages under another code.
_ALIASES = {"no": "nb", "nn": "nb"}


def _normalise(tag: str) -> str:
    primary = tag.split("-")[0].split("_")[0].lower()
    return _ALIASES.get(primary, primary)


def browser_language(request: HttpRequest, allowed: list[str]) -> str | None:
    for tag, _quality in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
        code = _normalise(tag)
        if code in allowed:
            return code
    return None


def language_remember(request: HttpRequest, language: str) -> None:
    """Keep `language` in the language cookie with this request's answer (written by
    apps.common.middleware.SiteLocaleMiddleware if the site offers it): a member's choice
    in the menu or settings, and a member's own language at login, so that a member who
    chose German on the phone gets German on a new computer too."""
    request.language_remembered = language


def language_cookie_set(request: HttpRequest, response, allowed: list[str]) -> None:
    """Write the language `language_remember` kept, if allowed and not already there."""
    language = getattr(request, "language_remembered", None)
    if not language or language not in allowed or language not in INTERFACE_LANGUAGES:
        return
    if request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) == language:
        return
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def pick_language(request: HttpRequest, site_languages: list[str], domain_language: str | None) -> str:
    """Cookie, then the site's domain language (only when there is no cookie), then
    the browser's language, then English: each only if the site offers it."""
    allowed = [code for code in site_languages if code in INTERFACE_LANGUAGES] or ["en"]
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if cookie in allowed:
        return cookie
    if cookie is None and domain_language in allowed:
        return domain_language
    return browser_language(request, allowed) or ("en" if "en" in allowed else allowed[0])
