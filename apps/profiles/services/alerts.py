"""Dismissible alerts (spec §4): add a profile photo, enable push, disabled
notifications. A dismissal is stored with its time in User.dismissals[<alert>]."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

# Up to accounts: a dismissed alert is stored on the member's account (User.dismissals).
from apps.accounts.models import User
from apps.common.exceptions import ApplicationError

PROFILE_PHOTO = "profile_photo"
ENABLE_PUSH = "enable_push"
DISABLED_NOTIFICATIONS = "disabled_notifications"
TIME_BONUS = "time_bonus"  # the time-bonus modal (apps.payments.discounts, spec §4)
# A photo support rejected: dismissed until the next rejection (apps.profiles.selectors.photo_alerts).
PHOTO_REJECTED = "photo_rejected"
# Support decided the member's verification request: dismissed until the next decision
# (apps.profiles.selectors.photo_alerts).
VERIFICATION_DECIDED = "verification_decided"
DISMISSIBLE_ALERTS = (
    PROFILE_PHOTO,
    ENABLE_PUSH,
    DISABLED_NOTIFICATIONS,
    TIME_BONUS,
    PHOTO_REJECTED,
    VERIFICATION_DECIDED,
)


@transaction.atomic
def alert_dismiss(*, user: User, alert: str) -> str:
    """Store now as the dismissal time of `alert` (one of DISMISSIBLE_ALERTS) and return
    it (ISO 8601). The row is locked so that another dismissal stored at the same moment
    is not overwritten."""
    if alert not in DISMISSIBLE_ALERTS:
        message = _("Unknown alert.")
        raise ApplicationError("invalid", message, extra={"fields": {"alert": [message]}})
    locked = User.objects.select_for_update().only("pk", "dismissals").get(pk=user.pk)
    dismissals = dict(locked.dismissals or {})
    dismissals[alert] = timezone.now().isoformat()
    User.objects.filter(pk=user.pk).update(dismissals=dismissals)
    user.dismissals = dismissals
    return dismissals[alert]
