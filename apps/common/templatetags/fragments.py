"""{% include_kept "name.html" var=value ... %}: an include rendered once per process for
the same inputs, for a partial every page of a site repeats as it is (the footer). The
landers' cards and photos are written out in Python instead
(apps.landers.templatetags.lander_cards): the key of a kept card cost about as much as
rendering it that way.

The partial sees only the variables named, the site (`site`) and its company (`company`)
and the page's language and time zone, never the rest of the page's context: what it shows is a function of exactly
what the key holds, so a kept render can never be another visitor's, and a variable it
reads but is not given is empty in every render alike (its tests see it). The key holds
the values themselves (plain data: strings, numbers, dates, lists and dicts of them, as
their pickle; any other value, a safe string or an object, renders the partial without
keeping it), the site's fingerprint (every field
of the site and its company, apps.common.page_cache.site_fingerprint), the URLconf and
script prefix its links are reversed in, the language, the time zone and whether the
page autoescapes. Nothing needs forgetting: changed inputs are
another key. At most KEPT renders are kept; past that the process starts again empty."""

from __future__ import annotations

import datetime
import decimal
import pickle

from django import template
from django.template.context import Context
from django.template.loader import get_template
from django.urls import get_script_prefix, get_urlconf
from django.utils import timezone, translation
from django.utils.safestring import SafeString

register = template.Library()

KEPT = 4096

_kept: dict[tuple, SafeString] = {}
# Exactly these types (no subclass: a SafeString renders unescaped, an object's attributes
# may read anything) in dicts, lists and tuples make a key.
_SCALARS = frozenset(
    {str, int, float, bool, type(None), datetime.date, datetime.datetime, datetime.time, datetime.timedelta}
    | {decimal.Decimal}
)


def _plain(value) -> bool:
    """Whether `value` is plain data only (its pickle is then the whole of it)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())
    if kind is list or kind is tuple:
        return all(_plain(item) for item in value)
    return False


def _company(site):
    return site.company if site is not None and site.company_id else None


@register.simple_tag(takes_context=True)
def include_kept(context: Context, name: str, **values) -> SafeString:
    from apps.common.page_cache import site_fingerprint

    site = context.get("site")
    key = None
    if _plain(values):
        key = (
            name,
            get_urlconf(),
            get_script_prefix(),
            translation.get_language(),
            timezone.get_current_timezone_name(),
            context.autoescape,
            site_fingerprint(site) if site is not None else None,
            pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL),
        )
    if key is not None:
        rendered = _kept.get(key)
        if rendered is not None:
            return rendered
    own = Context({**values, "site": site, "company": _company(site)}, autoescape=context.autoescape)
    rendered = SafeString(get_template(name).template.render(own))
    if key is not None:
        if len(_kept) >= KEPT:
            _kept.clear()
        _kept[key] = rendered
    return rendered
