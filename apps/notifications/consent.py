"""Which notification types a new member gets by default (docs/notifications.md).

Notices about the member's own conversations and likes, and reminders about them, are
part of the service and on by default everywhere. Marketing (promotions, news, weekly
updates) needs the member's prior consent in the EU and EEA (ePrivacy Directive art. 13,
GDPR), the United Kingdom (PECR), Switzerland (UWG art. 3 o) and Canada (CASL): there
those types start off and the member turns them on in /notifications. Elsewhere they
start on, and every mail carries a one-click unsubscribe."""

from apps.accounts.models import NOTIFICATION_TYPE_NAMES

MARKETING_TYPES = ("promotions", "news", "weekly_updates")

# EU, then the EEA, the United Kingdom, Switzerland and Canada.
CONSENT_COUNTRIES = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO GB CH CA".split()  # noqa: SIM905
)


def consent_required(country: str) -> bool:
    """Whether marketing needs opt-in for a member of `country`; an unknown country is
    treated as one that does."""
    return not country or country.upper() in CONSENT_COUNTRIES


def default_notification_types(country: str) -> list[str]:
    if consent_required(country):
        return [name for name in NOTIFICATION_TYPE_NAMES if name not in MARKETING_TYPES]
    return list(NOTIFICATION_TYPE_NAMES)
