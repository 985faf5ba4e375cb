"""The signup credits (issue 6 item 2): the site's `signup_credits`, granted once, when the
member confirms the e-mail address (apps.accounts runs the hook, see apps.py)."""

from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_grant
from apps.tenants.current import current_site
from apps.tenants.models import Site


def signup_bonus_key(user) -> str:
    return f"signup_bonus:{user.pk}"


def signup_bonus_grant(*, user, site: Site | None = None) -> CreditEntry | None:
    """Grant the site's signup credits to `user`, once per member (a repeated call, e.g.
    after confirming a changed address, returns None). Runs in the member's site schema."""
    site = site or current_site()
    credits = site.signup_credits
    if credits <= 0:
        return None
    return credits_grant(user=user, credits=credits, kind=EntryKind.SIGNUP_BONUS, key=signup_bonus_key(user))


def member_confirmed(user) -> None:
    """apps.accounts' member_confirmed hook."""
    signup_bonus_grant(user=user)
