"""{% arrival_params %}: the query parameters an arrival keeps in the tracking cookie
(apps.accounts.tracking), space-separated, for the page's script that takes them out of
the address (static_src/base/arrivalAddress.ts) when the page cache answered a paid
arrival with the page itself instead of the redirect (docs/decisions.md "Paid arrivals
from the cache too")."""

from django import template

from apps.accounts.tracking import ARRIVAL_KEYS

register = template.Library()

_NAMES = " ".join(ARRIVAL_KEYS)


@register.simple_tag
def arrival_params() -> str:
    return _NAMES
