"""{% signup_modal %}: the signup island in a modal, for visitors (spec §2: the default
and empty layouts carry the signup modal). Any element with [data-signup-modal] opens it."""

from django import template
from django.utils.safestring import SafeString, mark_safe

from apps.common.templatetags.islands import island

register = template.Library()


@register.simple_tag(takes_context=True)
def signup_modal(context) -> SafeString:
    from apps.accounts.views_signup import SIGNUP_ROUTES, signup_island_props

    request = context.get("request")
    if request is None or context.get("site") is None or getattr(request, "site", None) is None:
        return mark_safe("")
    if request.user.is_authenticated:
        return mark_safe("")
    match = getattr(request, "resolver_match", None)
    if match is not None and match.url_name in SIGNUP_ROUTES:
        return mark_safe("")  # The page shows the island itself.
    return island("Signup", signup_island_props(request, mode="modal"))
