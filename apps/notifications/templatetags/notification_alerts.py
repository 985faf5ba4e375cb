"""The "disabled notifications" alert of the default layout's warnings area (spec §4
dismissible alerts): `{% load notification_alerts %}{% notifications_disabled_alert %}`, and
the live region every page has for a push shown in the page: `{% push_notices %}`."""

from datetime import datetime

from django import template
from django.template.loader import get_template
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from apps.common.i18n import per_language

register = template.Library()

DISMISSAL = "disabled_notifications"


def disabled_alert_shown(user) -> bool:
    """A member whose e-mails stopped (bounce, spam complaint, unsubscribe) sees why and
    the remedy, until they dismiss it; a later stop shows it again."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "email_disabled_reason", ""):
        return False
    dismissed = (user.dismissals or {}).get(DISMISSAL)
    if not dismissed:
        return True
    if user.email_disabled_at is None:
        return False
    try:
        return datetime.fromisoformat(dismissed) < user.email_disabled_at
    except (TypeError, ValueError):
        return True


@register.inclusion_tag("notifications/partials/disabled_alert.html", takes_context=True)
def notifications_disabled_alert(context) -> dict:
    """Not on /notifications itself, which shows the remedies in full."""
    request = context.get("request")
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    on_settings = match is not None and match.url_name == "notifications"
    shown = bool(user is not None and not on_settings and disabled_alert_shown(user))
    if shown:
        from apps.profiles.templatetags.profile_alerts import alert_shown

        alert_shown(request)
    return {
        "show": shown,
        "reason": getattr(user, "email_disabled_reason", ""),
        "user": user,
        "request": request,
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag
def push_notices() -> SafeString:
    """The empty live region a push shown in the page goes into (static_src/lib/pushNotice.ts),
    with its strings in the page's language."""
    return _push_notices()


@per_language
def _push_notices() -> SafeString:
    """The live region in the active language, rendered once per process: it holds only its strings."""
    # "Open" alone is also a payment's state ("Offen"): the link's verb has a context of its own.
    strings = {"label": _("Notifications"), "open_text": pgettext("push notice link", "Open"), "close_text": _("Close")}
    return SafeString(get_template("notifications/partials/push_notices.html").render(strings))
