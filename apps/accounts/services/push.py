"""Web push subscriptions (spec §7 POST /api/user.php?push=1)."""

from django.utils.translation import gettext as _

from apps.accounts.models import PushSubscription, User
from apps.common.exceptions import ApplicationError


def push_subscription_save(*, user: User, subscription: dict) -> PushSubscription:
    endpoint = str(subscription.get("endpoint") or "")
    keys = subscription.get("keys") or {}
    if not endpoint.startswith("https://") or not keys.get("p256dh") or not keys.get("auth"):
        raise ApplicationError("invalid_subscription", _("This push subscription is not valid."))
    item, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint[:1000],
        defaults={"user": user, "p256dh": str(keys["p256dh"])[:200], "auth": str(keys["auth"])[:100]},
    )
    return item
