"""Members, credits and messages for the chat tests (ORM, in the site's schema)."""

import uuid

from apps.chat.services import conversation_open, message_send
from apps.credits.models import EntryKind
from apps.credits.services import credits_grant
from apps.profiles.tests.helpers_view import member  # noqa: F401
from conftest import on_site


def credits_give(site, user, credits: int) -> None:
    with on_site(site):
        credits_grant(user=user, credits=credits, kind=EntryKind.SIGNUP_BONUS, key=f"test:{uuid.uuid4().hex}")


def client_id() -> str:
    return uuid.uuid4().hex


def send(site, sender, profile, text: str = "Hello", **kwargs):
    """Open the conversation of `sender` (a Profile) with `profile` and send a text."""
    with on_site(site):
        conversation = conversation_open(user=sender.user, profile_id=profile.pk)
        message, _created = message_send(
            user=sender.user, conversation_id=conversation.pk, client_id=client_id(), text=text, **kwargs
        )
    return conversation, message
