"""Chat reads (spec §3 Chat, §4 Chat, §9 history limit). Each runs a fixed number of
queries, whatever the number of chats or messages (apps/chat/tests pin them).

A chat is in the member's list after a message they sent or received, until they
delete it. Chats with a profile blocked either way, or whose member deleted their
account, are closed: out of the list and the counts, and their history is refused."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet, Sum
from django.utils.translation import gettext as _

from apps.accounts.models import UserStatus
from apps.chat.models import CHAT_HISTORY_LIMIT, Message, MessageKind, Participant
from apps.chat.payloads import gift_name, message_payload, message_preview
from apps.chat.pricing import message_cost
from apps.common.exceptions import ApplicationError
from apps.common.prepared import PreparedQuery
from apps.profiles.models import Block
from apps.profiles.selectors import public_main_image

# The chat list is long enough for anyone; older chats come back with a new message.
CHATS_LIMIT = 500


def _open_participations(*, user_id: int) -> QuerySet[Participant]:
    """The member's sides of conversations that are not closed by a block or a deletion."""
    return (
        Participant.objects.filter(user_id=user_id)
        .exclude(Exists(Block.objects.filter(blocker_id=user_id, blocked_id=OuterRef("other_profile_id"))))
        .exclude(
            Exists(
                Block.objects.filter(blocker_id=OuterRef("other_profile__user_id"), blocked_id=OuterRef("profile_id"))
            )
        )
        .exclude(other_profile__user__status=UserStatus.DELETED)
    )


def conversation_peer(*, user, conversation_id: int) -> int | None:
    """The other member (user id) of a conversation `user` takes part in and that is
    not closed; None otherwise, also for demo profiles. One query."""
    return (
        _open_participations(user_id=user.pk)
        .filter(conversation_id=conversation_id)
        .values_list("other_profile__user_id", flat=True)
        .first()
    )


def _profile_summary(profile) -> dict:
    return {
        "id": profile.pk,
        "name": profile.name,
        "main_image": public_main_image(profile),
        "is_fictional": profile.is_fictional,
    }


def chats_state(*, user) -> dict:
    """GET /api/chats.php: the member's chats, newest first, and their last opened chat
    (spec §3 "last opened chat profile and date"): `{"conversation", "profile", "at"}` of
    the listed chat they opened last, or None. Closed (blocked, deleted account) and
    deleted chats are not listed, so they never come back as the last opened. One query:
    the last opened chat comes from the list's own rows."""
    rows = (
        _open_participations(user_id=user.pk)
        .filter(listed=True)
        .select_related("other_profile__main_photo", "last_message")
        .order_by("-last_message_at", "-id")[:CHATS_LIMIT]
    )
    chats = []
    last = None
    for row in rows:
        other = row.other_profile
        chats.append(
            {
                "conversation": row.conversation_id,
                "profile": other.pk,
                "name": other.name,
                "main_image": _profile_summary(other)["main_image"],
                "is_fictional": other.is_fictional,
                "last_message": message_preview(row.last_message, viewer_id=user.pk),
                "num_unread_messages": row.num_unread,
                "updated": row.last_message_at.isoformat() if row.last_message_at else None,
            }
        )
        if row.last_opened and (last is None or row.last_opened > last.last_opened):
            last = row
    last_opened = None
    if last is not None:
        last_opened = {
            "conversation": last.conversation_id,
            "profile": last.other_profile_id,
            "at": last.last_opened.isoformat(),
        }
    return {"chats": chats, "last_opened": last_opened}


def _unread_rows(user_id: int, *, excluding=None) -> QuerySet:
    chats = _open_participations(user_id=user_id).filter(listed=True)
    if excluding is not None:
        chats = chats.exclude(pk=excluding)
    return chats.values("user_id").annotate(total=Sum("num_unread")).values_list("total")


# The badge is counted after most changes of a member's chats: compiled once
# (apps.common.prepared). One row per member, none without open chats.
_UNREAD_TOTAL = PreparedQuery(lambda user_id: _unread_rows(user_id))
# The same total without one of the member's chats (`participant_id`, their side of it):
# a message's listing statement adds that chat's new count (apps.chat.services), so that
# the recipient's badge travels with the message.
UNREAD_ELSEWHERE = PreparedQuery(lambda user_id, participant_id: _unread_rows(user_id, excluding=participant_id))


def unread_total(*, user) -> int:
    """Unread messages over the member's open chats (the top bar's badge). One query."""
    rows = _UNREAD_TOTAL.rows(user_id=user.pk)
    return (rows[0][0] or 0) if rows else 0


def conversation_history(*, user, conversation_id, limit: int = CHAT_HISTORY_LIMIT) -> dict:
    """The newest `limit` messages of a conversation the member takes part in, oldest
    first; older ones are hidden (spec §9), `has_older` says there are some. Messages
    the member deleted, and messages held for them, are not shown. Two queries."""
    try:
        conversation_id = int(conversation_id)
    except (TypeError, ValueError):
        conversation_id = 0
    participant = (
        _open_participations(user_id=user.pk)
        .select_related("other_profile__main_photo")
        .filter(conversation_id=conversation_id)
        .first()
    )
    if participant is None:
        raise ApplicationError("conversation_not_found", _("This conversation does not exist."), status_code=404)
    newest = list(
        Message.objects.filter(conversation_id=conversation_id, id__gt=participant.cleared_up_to)
        .filter(Q(held=False) | Q(sender_id=user.pk))
        .order_by("-id")[: limit + 1]
    )
    has_older = len(newest) > limit
    messages = [message_payload(message, viewer_id=user.pk) for message in reversed(newest[:limit])]
    return {
        "conversation": {
            "id": conversation_id,
            "profile": _profile_summary(participant.other_profile),
            "num_unread_messages": participant.num_unread,
        },
        "messages": messages,
        "has_older": has_older,
    }


def message_costs(*, site, user) -> dict:
    """What the member pays per message kind (the footer shows it)."""
    return {kind.value: message_cost(site=site, user=user, kind=kind) for kind in MessageKind}


def gifts_offered(*, site) -> list[dict]:
    """The site's gift catalogue, in the operator's order. One query."""
    from apps.tenants.models import Gift

    return [
        {"id": gift.pk, "name": gift_name(gift.name), "emoji": gift.emoji, "image": gift.picture_url}
        for gift in Gift.objects.filter(site_id=site.pk, is_active=True).order_by("position", "pk")
    ]
