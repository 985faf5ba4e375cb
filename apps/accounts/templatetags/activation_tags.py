"""{% activation_reminder_dialog %}: the activation reminder right after signing up (spec §4),
the ActivationReminder island on the one Dialog, for the member whose reminder is the modal
one (apps.accounts.selectors.activation_reminder, in the context as `activation_reminder`)."""

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from apps.common.templatetags.islands import island

register = template.Library()


@register.simple_tag(takes_context=True)
def activation_reminder_dialog(context) -> SafeString:
    request = context.get("request")
    user = getattr(request, "user", None)
    if context.get("activation_reminder") != "modal" or user is None or not user.is_authenticated:
        return mark_safe("")
    text = _(
        "We have sent an e-mail to %(email)s. Open the link in it to confirm your address: until then your "
        "profile is hidden and you cannot receive messages."
    ) % {"email": user.email}
    return island(
        "ActivationReminder",
        {
            "text": text,
            "strings": {
                "title": _("Please confirm your e-mail address"),
                "close": _("Close"),
                "ok": _("OK"),
                "resend": _("Send the e-mail again"),
                "sent": _("We have sent the e-mail again. Check your inbox and your spam folder."),
            },
        },
    )
