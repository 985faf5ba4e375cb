"""The JSON shapes of chat messages and chats, shared by the API, the selectors and the
real-time events. Text goes out exactly as stored: the client shows it as text."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext

from apps.chat.models import Message, MessageKind, MessageReview
from apps.tenants.models import gift_picture_url

PREVIEW_LENGTH = 120


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def gift_name(name: str) -> str:
    """A gift's name in the reader's language: the default gifts' names are in the
    catalogues (apps.tenants.services.DEFAULT_GIFTS); an operator's own name stays as typed."""
    return gettext(name) if name else name


def message_payload(message: Message, *, viewer_id: int) -> dict:
    """One message as `viewer_id` (a participant) sees it."""
    mine = message.sender_id == viewer_id
    payload = {
        "id": message.pk,
        "conversation": message.conversation_id,
        "profile": message.sender_profile_id,
        "mine": mine,
        "kind": message.kind,
        "text": message.text,
        "photo": None,
        "gift": None,
        "created": _iso(message.created),
        "delivered_at": _iso(message.delivered_at),
        "read_at": _iso(message.read_at),
    }
    if message.kind == MessageKind.PHOTO and message.photo:
        payload["photo"] = {
            "filename": message.photo.url,
            "thumb_filename": message.photo_thumb.url if message.photo_thumb else message.photo.url,
            "width": message.photo_width,
            "height": message.photo_height,
        }
    if message.kind == MessageKind.GIFT:
        payload["gift"] = {
            "id": message.gift_id,
            "name": gift_name(message.gift_name),
            "emoji": message.gift_emoji,
            # The upload as sent, else the default gift's picture (a static file's current address).
            "image": message.gift_image or gift_picture_url(message.gift_emoji),
        }
    if not mine and message.review == MessageReview.NOTICE:
        # A new account's first message with scam signals, on a site whose rule is to show
        # it with a safety notice (apps.chat.safety).
        payload["safety_notice"] = True
    if mine:
        payload["client_id"] = message.client_id
        payload["credits"] = message.credits
        payload["held"] = message.held
    return payload


def message_preview(message: Message | None, *, viewer_id: int) -> dict | None:
    """The chat list's last-message line."""
    if message is None:
        return None
    text = message.text
    if len(text) > PREVIEW_LENGTH:
        text = text[: PREVIEW_LENGTH - 1] + "…"
    return {
        "id": message.pk,
        "kind": message.kind,
        "text": text,
        "gift_emoji": message.gift_emoji or None,
        "gift_name": gift_name(message.gift_name) or None,
        "mine": message.sender_id == viewer_id,
        "created": _iso(message.created),
        "read": message.read_at is not None,
    }
