"""The dismissible alerts of the default layout's warnings area (spec §4): add a profile
photo and enable push: `{% load profile_alerts %}{% profile_photo_alert %}{% enable_push_alert %}`."""

from django import template

from apps.common.sites import is_public
from apps.profiles.models import (
    PhotoRejectionReason,
    VerificationRejectionReason,
    VerificationStatus,
    photo_fix_hint,
    verification_fix_hint,
)
from apps.profiles.selectors import enable_push_alert_key, photo_alerts, profile_photo_alert_shown

register = template.Library()


@register.inclusion_tag("profiles/partials/profile_photo_alert.html", takes_context=True)
def profile_photo_alert(context) -> dict:
    """Shown to a member without an approved or waiting photo who has not dismissed it;
    not on /profile itself, where the photos are managed."""
    request = context.get("request")
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    on_profile_page = match is not None and match.url_name == "profile"
    show = bool(user is not None and not on_profile_page and profile_photo_alert_shown(user))
    if show:
        alert_shown(request)
    return {"show": show}


@register.inclusion_tag("profiles/partials/photo_rejected_alert.html", takes_context=True)
def photo_rejected_alert(context) -> dict:
    """A photo support rejected since the member last dismissed this alert: the reason
    in the member's language and how to fix it, with a link to their photos (the e-mail
    and push say the same, under the member's preferences). Not on /profile itself, where
    each photo shows its reason."""
    request = context.get("request")
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    if user is None or (match is not None and match.url_name == "profile"):
        return {"photo": None}
    photo = photo_alerts(user)["rejected"]
    if photo is None:
        return {"photo": None}
    alert_shown(request)
    reason = photo.rejection_reason or PhotoRejectionReason.OTHER
    label = PhotoRejectionReason(reason).label if reason in PhotoRejectionReason.values else ""
    return {"photo": photo, "reason": label or PhotoRejectionReason.OTHER.label, "hint": photo_fix_hint(reason)}


@register.inclusion_tag("profiles/partials/verification_decided_alert.html", takes_context=True)
def verification_decided_alert(context) -> dict:
    """Support decided the member's verification request since they last dismissed this
    alert: verified, or not with the reason and how to take the next selfie, with a link
    (the e-mail and push say the same, under the member's "photo_decisions" preferences).
    Not on /profile and /profile/verify, which show where the verification stands."""
    request = context.get("request")
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    if user is None or (match is not None and match.url_name in ("profile", "profile-verify")):
        return {"verification": None}
    verification = photo_alerts(user)["verification"]
    if verification is None:
        return {"verification": None}
    alert_shown(request)
    if verification.status == VerificationStatus.APPROVED:
        return {"verification": verification, "verified": True}
    reason = verification.rejection_reason or VerificationRejectionReason.OTHER
    label = VerificationRejectionReason(reason).label if reason in VerificationRejectionReason.values else ""
    return {
        "verification": verification,
        "verified": False,
        "reason": label or VerificationRejectionReason.OTHER.label,
        "hint": verification_fix_hint(reason),
    }


def alert_shown(request) -> None:
    """A dismissible alert is on this page: the "enable push" alert, which can wait, waits
    for a page without one (a phone's first screen is not a wall of alerts)."""
    if request is not None:
        request.dismissible_alert_shown = True


@register.inclusion_tag("profiles/partials/enable_push_alert.html", takes_context=True)
def enable_push_alert(context) -> dict:
    """Rendered hidden for a member who did not dismiss it on a site with a push key (not
    on the signup pages); static_src/base/enablePush.ts shows it when the browser can do
    push, has not been refused and holds no subscription yet."""
    # Up to accounts: the signup pages ask for push in a step of their own.
    from apps.accounts.views_signup import SIGNUP_ROUTES

    request = context.get("request")
    site = getattr(request, "site", None)
    user = getattr(request, "user", None)
    match = getattr(request, "resolver_match", None)
    if site is None or is_public(request) or user is None or (match is not None and match.url_name in SIGNUP_ROUTES):
        return {"push_key": ""}
    if getattr(request, "dismissible_alert_shown", False):  # one at a time (alert_shown)
        return {"push_key": ""}
    return {"push_key": enable_push_alert_key(user, site)}
