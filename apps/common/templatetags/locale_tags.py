"""Dates in the member's locale (apps.common.locale): `{% load locale_tags %}`,
`{{ value|local_date:"SHORT_DATE_FORMAT" }}` (any of Django's named formats, DATE_FORMAT by
default) and `{% locale_tag %}` for the page's `<meta name="locale">`."""

from django import template

from apps.common import locale

register = template.Library()


@register.filter(expects_localtime=True, is_safe=False)
def local_date(value, format_name: str = "DATE_FORMAT") -> str:
    try:
        return locale.date_format(value, format_name or "DATE_FORMAT")
    except (AttributeError, TypeError, ValueError):
        return ""


@register.simple_tag(takes_context=True)
def locale_tag(context) -> str:
    return locale.locale_tag(context.get("request"))
