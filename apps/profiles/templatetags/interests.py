"""{{ interest|interest_label }}: a site's interest in the page's language (the default ones
are in the catalogues; an operator's own is shown as typed)."""

from django import template

from apps.tenants.constants import interest_label as _interest_label

register = template.Library()


@register.filter
def interest_label(value) -> str:
    return _interest_label(str(value))
