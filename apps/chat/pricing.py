"""What a message costs: one rule, read by the send (apps.chat.services) and by the
screens that show the price (apps.chat.selectors.message_costs)."""

from __future__ import annotations

from apps.chat.models import MessageKind
from apps.tenants.selectors import text_message_credits


def message_cost(*, site, user, kind: str) -> int:
    """Credits a message costs the sender: a text the site's price for the sender's country
    (apps.tenants.selectors.text_message_credits, the rule /pricing shows too); a photo
    `photo_credits`, a gift `gift_credits`."""
    if kind == MessageKind.PHOTO:
        return site.photo_credits
    if kind == MessageKind.GIFT:
        return site.gift_credits
    country = user.country.code if getattr(user, "country", None) else ""
    return text_message_credits(site, country)
