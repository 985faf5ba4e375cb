"""The profile photo alert of the default layout's warnings area (spec §4 dismissible
alerts): `{% load profile_alerts %}{% profile_photo_alert %}`."""

from django import template

from apps.profiles.selectors import profile_photo_alert_shown

register = template.Library()


@register.inclusion_tag("profiles/partials/profile_photo_alert.html", takes_context=True)
def profile_photo_alert(context) -> dict:
    """Shown to a member without an approved or waiting photo who has not dismissed it;
    not on /profile itself, where the photos are managed."""
    request = context.get("request")
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    on_profile_page = match is not None and match.url_name == "profile"
    return {"show": bool(user is not None and not on_profile_page and profile_photo_alert_shown(user))}
