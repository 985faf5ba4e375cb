"""The member's chat messages in "Download my data" (apps.accounts.services.export):
what they wrote, with the conversation and the profile it went to, and the photo files
they sent (under chat/ in the ZIP, named in data.json). Messages written by others stay
out (their data)."""

import posixpath
from collections.abc import Iterable

from django.core.files.storage import Storage
from django.utils import timezone

from apps.chat.models import Message, Participant


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


def _photo_path(message: Message) -> str:
    """Where a sent photo lies in the ZIP."""
    return f"chat/{message.pk}-{posixpath.basename(message.photo.name)}"


def photo_files(user) -> Iterable[tuple[str, Storage, str]]:
    """The photo files the member sent, for the ZIP (`export_files`)."""
    sent = Message.objects.filter(sender_id=user.pk).exclude(photo="").order_by("pk")
    for message in sent.iterator():
        yield _photo_path(message), message.photo.storage, message.photo.name
