"""The member's chat messages in "Download my data" (apps.accounts.services.export):
what they wrote, with the conversation and the profile it went to. Messages written
by others stay out (their data)."""

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
            "photo": message.photo.name or None,
            "gift": message.gift_name or None,
            "credits": message.credits,
            "read_at": timezone.localtime(message.read_at).isoformat() if message.read_at else None,
        }
        for message in messages
    ]
