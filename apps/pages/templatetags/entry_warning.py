"""The site-entry warning (spec §2, §9) that every layout renders:
`{% load entry_warning %}{% entry_warning "default" %}`. Who sees it is the pages' rule
(apps.pages.selectors.entry_warning_visible); the island itself skips standalone mode
and a dismissal stored in the browser."""

from django import template
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from apps.common.i18n import per_language
from apps.common.templatetags.islands import island
from apps.pages.selectors import entry_warning_visible

register = template.Library()


def entry_warning_strings(min_age: int = 18) -> dict:
    """The island's strings in the active language (a copy: the caller may add to it)."""
    return dict(_entry_warning_strings(min_age))


@per_language
def _entry_warning_strings(min_age: int) -> dict:
    return {
        "title": _("Adults only"),
        "body": _(
            "This website contains material of an adult nature and is only meant for adults.\n"
            "By entering you confirm that you are at least %(min_age)s years old and that you do not find "
            "such content offensive."
        )
        % {"min_age": min_age},
        "enter": _("I am %(min_age)s or older, enter") % {"min_age": min_age},
        "leave": _("Leave"),
    }


@register.simple_tag(takes_context=True)
def entry_warning(context, layout: str) -> SafeString:
    request = context.get("request")
    if request is None or not entry_warning_visible(request=request, layout=layout):
        return mark_safe("")
    return island(
        "EntryWarning",
        {
            "leaveUrl": "https://www.google.com/",
            "storageKey": "entryWarning",
            "cookieName": settings.ENTRY_WARNING_COOKIE_NAME,
            "strings": entry_warning_strings(min_age=request.site.min_age),
        },
    )
