"""The member's chats in "Download my data" (apps.accounts.services.export):

- `messages`: what they wrote, with the conversation, the profile it went to and the
  credits it cost, and the photo files they sent (under chat/ in the ZIP).
- `conversations`: each conversation as the member saw it, like the big messengers'
  exports: the other member named as the chat showed them, and the messages both ways that
  the member could see (not those they deleted, not ones still held back from them).
  Photos the other member sent are marked, not copied: the files are the sender's."""

import posixpath
from collections.abc import Iterable

from django.core.files.storage import Storage
from django.db.models import Q
from django.utils import timezone

from apps.chat.models import Message, Participant
from apps.chat.payloads import gift_name


def messages_section(user) -> tuple[str, list]:
    others = dict(Participant.objects.filter(user_id=user.pk).values_list("conversation_id", "other_profile_id"))
    messages = Message.objects.filter(sender_id=user.pk).order_by("created", "pk")
    return "messages", [
        {
            "id": message.pk,
            "conversation": message.conversation_id,
            "to_profile": others.get(message.conversation_id),
            "created": timezone.localtime(message.created).isoformat(),
            "kind": message.kind,
            "text": message.text,
            "photo": _photo_path(message) if message.photo.name else None,
            "gift": message.gift_name or None,
            "credits": message.credits,
            "read_at": timezone.localtime(message.read_at).isoformat() if message.read_at else None,
        }
        for message in messages
    ]


def conversations_section(user) -> tuple[str, list]:
    participations = (
        Participant.objects.filter(user_id=user.pk).select_related("other_profile").order_by("conversation_id")
    )
    conversations = []
    for row in participations:
        seen = (
            Message.objects.filter(conversation_id=row.conversation_id, pk__gt=row.cleared_up_to)
            .exclude(Q(held=True) & ~Q(sender_id=user.pk))
            .order_by("created", "pk")
        )
        conversations.append(
            {
                "conversation": row.conversation_id,
                "with": {"profile": row.other_profile_id, "name": row.other_profile.name},
                "messages": [_seen_message(message, mine=message.sender_id == user.pk) for message in seen],
            }
        )
    return "conversations", conversations


def _seen_message(message: Message, *, mine: bool) -> dict:
    photo = None
    if message.photo.name:
        photo = _photo_path(message) if mine else "received photo"
    return {
        "id": message.pk,
        "from": "me" if mine else "them",
        "created": timezone.localtime(message.created).isoformat(),
        "kind": message.kind,
        "text": message.text,
        "photo": photo,
        "gift": gift_name(message.gift_name) or None,
        "read_at": timezone.localtime(message.read_at).isoformat() if message.read_at else None,
    }


def _photo_path(message: Message) -> str:
    """Where a sent photo lies in the ZIP."""
    return f"chat/{message.pk}-{posixpath.basename(message.photo.name)}"


def photo_files(user) -> Iterable[tuple[str, Storage, str]]:
    """The photo files the member sent, for the ZIP (`export_files`)."""
    sent = Message.objects.filter(sender_id=user.pk).exclude(photo="").order_by("pk")
    for message in sent.iterator():
        yield _photo_path(message), message.photo.storage, message.photo.name
