"""What a message costs: one rule, read by the send (apps.chat.services) and by the
screens that show the price (apps.chat.selectors.message_costs)."""

from __future__ import annotations

from apps.chat.models import MessageKind


def message_cost(*, site, user, kind: str) -> int:
    """Credits a message costs the sender: a text costs the site's minimum for the
    sender's country when there is one (spec §3 `minimum_message_costs`), else
    `message_credits`; a photo `photo_credits`, a gift `gift_credits`."""
    if kind == MessageKind.PHOTO:
        return site.photo_credits
    if kind == MessageKind.GIFT:
        return site.gift_credits
    country = user.country.code if getattr(user, "country", None) else ""
    if country:
        # .all() so the site middleware's prefetch is used.
        for minimum in site.minimum_message_costs.all():
            if minimum.country.code == country:
                return minimum.costs
    return site.message_credits
