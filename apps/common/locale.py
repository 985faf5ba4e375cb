"""The member's locale for dates and money: their language plus their country.

A member reading English in the United Kingdom gets "en-GB" (25/11/2026, £14.95), in
Switzerland reading German "de-CH". The language is the active translation (the site's
language choice, apps.common.i18n); the country is the logged-in member's own
(User.country), else the visitor's GeoIP country (settings.GEOIP_COUNTRY_HEADER).

- `locale_tag(request)`: the BCP 47 tag; islands get it from `<meta name="locale">`
  (templates/layouts/base.html, static_src/lib/locale.ts) or their props.
- `date_format(value, format)` / `money_format` (apps.payments.formatting): Django's
  format modules of that locale (django/conf/locale/en_GB/formats.py...), falling back
  to the language's own; the templates use `{% load locale_tags %}` `|local_date:"..."`.

SiteLocaleMiddleware binds the request for the formatting done while it is handled (the
member is known only after the authentication middleware, so the country is read when a
date is formatted, not when the request arrives).
"""

import re

from asgiref.local import Local
from django.conf import settings
from django.http import HttpRequest
from django.utils import dateformat, formats
from django.utils.translation import get_language

_state = Local()
_COUNTRY = re.compile(r"^[A-Z]{2}$")


def bind(request) -> None:
    _state.request = request


def unbind() -> None:
    _state.request = None


def current_request():
    return getattr(_state, "request", None)


def _country(request) -> str:
    if request is None:
        return ""
    user = getattr(request, "user", None)
    country = ""
    if user is not None and getattr(user, "is_authenticated", False):
        country = str(getattr(user, "country", "") or "")
    if not country:
        country = request_country(request) or ""
    country = country.upper()
    return country if _COUNTRY.match(country) else ""


def request_country(request: HttpRequest) -> str | None:
    """The visitor's country as told by the edge proxy (ISO alpha-2), if any."""
    value = request.META.get(settings.GEOIP_COUNTRY_HEADER, "")
    value = value.strip().upper()
    if len(value) == 2 and value.isalpha() and value not in ("XX", "T1"):
        return value
    return None


def language_code() -> str:
    return (get_language() or settings.LANGUAGE_CODE).split("-")[0].lower()


def locale_tag(request=None, *, language: str | None = None, country: str | None = None) -> str:
    """ "en-GB": the active language (or `language`) and the member's or visitor's
    country (or `country`); the language alone when no country is known."""
    language = (language or language_code()).split("-")[0].lower()
    if country is None:
        country = _country(request if request is not None else current_request())
    country = (country or "").upper()
    return f"{language}-{country}" if _COUNTRY.match(country) else language


def format_language(tag: str | None = None) -> str:
    """The language code Django's format lookups take for a locale tag ("en-gb"): its
    country's format module where Django has one (en_GB, de_CH, fr_BE...), else the
    language's."""
    return (tag or locale_tag()).lower()


def get_format(name: str, tag: str | None = None):
    return formats.get_format(name, lang=format_language(tag), use_l10n=True)


def one_full_stop(sentence: str) -> str:
    """`sentence` ending in one full stop where a date put in it ends with its own: English
    date formats end in "a.m." or "p.m." ("This code expired on Nov. 28, 2026, 2:30 p.m.."),
    and a translation's sentence ends with a full stop after it. An ellipsis stays."""
    if sentence.endswith("..") and not sentence.endswith("..."):
        return sentence[:-1]
    return sentence


def date_format(value, format_name: str = "DATE_FORMAT", tag: str | None = None) -> str:
    """A date or datetime in the locale's named format (DATE_FORMAT, SHORT_DATE_FORMAT,
    DATETIME_FORMAT, TIME_FORMAT...): "25 Nov 2026" and "25/11/2026" for en-GB."""
    if value in (None, ""):
        return ""
    return dateformat.format(value, get_format(format_name, tag))
