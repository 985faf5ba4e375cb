"""Chat writes (spec §2 chats, §4 Chat, §6, §9): open a conversation, send a text, photo or
gift message, read, delete, and release what was held for a member who had not yet
confirmed their e-mail address.

Money: a message is stored if and only if its credits are spent, in one transaction
(apps.credits.services.credits_spend with reference "message:<id>"). A resent message
(the same `client_id` from the same sender) is stored and paid once.

Locks, always in this order: the sender's account row, then the conversation's two
participant rows by primary key (with the conversation's row, in the same statement).
Every send of one member therefore runs one at a time, which also makes the free members'
conversation limit exact."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.db.models.constants import OnConflict
from django.db.models.functions import Coalesce
from django.db.models.sql import InsertQuery
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from apps.accounts.models import SignupMessage, User, UserStatus
from apps.chat.events import credits_event, credits_send_on_commit, unread_send_on_commit
from apps.chat.models import FREE_CONVERSATION_LIMIT, Conversation, Message, MessageKind, MessageReview, Participant
from apps.chat.payloads import message_payload
from apps.chat.pricing import message_cost
from apps.chat.safety import message_review
from apps.chat.selectors import UNREAD_ELSEWHERE
from apps.common.exceptions import ApplicationError
from apps.common.prepared import PreparedQuery, server_cursor
from apps.common.realtime import event_send_on_commit, events_send_on_commit
from apps.credits.models import EntryKind
from apps.credits.services import credits_spend, not_enough_credits_error

# Up to the notifications' outbox, their bottom: a message records its notice; delivery is never imported.
from apps.notifications.outbox import notice_event
from apps.profiles.images import image_filename, process_upload
from apps.profiles.models import Block, Profile, ProfileStatus
from apps.profiles.services.complaints import held_message_file
from apps.profiles.visibility import profiles_visible_to
from apps.tenants.current import current_site

logger = logging.getLogger(__name__)

CLIENT_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

LEDGER_KINDS = {
    MessageKind.TEXT: EntryKind.MESSAGE,
    MessageKind.PHOTO: EntryKind.PHOTO,
    MessageKind.GIFT: EntryKind.GIFT,
}

# Chat photos: the same checks as profile photos, a smaller thumbnail for the bubble.
CHAT_PHOTO_THUMB_SIDE = 320


# --- Errors --------------------------------------------------------------------------


def _login_required() -> ApplicationError:
    return ApplicationError("authentication_required", _("Log in or sign up to chat."), status_code=403)


def _not_available() -> ApplicationError:
    return ApplicationError("profile_not_available", _("This profile is not available."), status_code=404)


def _conversation_not_found() -> ApplicationError:
    return ApplicationError("conversation_not_found", _("This conversation does not exist."), status_code=404)


def premium_required_error() -> ApplicationError:
    return ApplicationError(
        "premium_required", _("This feature is only available for premium members."), status_code=403
    )


def _invalid(field: str, message: str, code: str = "invalid") -> ApplicationError:
    return ApplicationError(code, message, extra={"fields": {field: [message]}})


# --- Helpers -------------------------------------------------------------------------


def _member(user) -> User:
    if user is None or not getattr(user, "is_authenticated", False):
        raise _login_required()
    return user


def _own_profile(user) -> Profile:
    profile = Profile.objects.filter(user_id=user.pk).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    return profile


def _blocked_either_way(*, user_id: int, own_profile_id: int, other: Profile) -> bool:
    condition = Q(blocker_id=user_id, blocked_id=other.pk)
    if other.user_id:
        condition |= Q(blocker_id=other.user_id, blocked_id=own_profile_id)
    return Block.objects.filter(condition).exists()


def _chat_profiles(user):
    """Profiles a member may start a conversation with: those they may see (no blocks
    either way, no disabled, invisible or deleted members), without resell entries on
    a site that does not sell them on (as the profile page and likes)."""
    profiles = profiles_visible_to(user)
    if not getattr(current_site(), "member_resell", True):
        profiles = profiles.exclude(is_resell=True)
    return profiles


# A free member's first message in a conversation counts the ones they started: compiled
# once (apps.common.prepared), as the send's other reads.
_STARTED = PreparedQuery(
    lambda user_id: (
        Participant.objects.filter(user_id=user_id, is_starter=True)
        .values("user_id")
        .annotate(started=Count("id"))
        .values_list("started")
    )
)


def started_count(*, user) -> int:
    """Conversations the member started (sent the first message in)."""
    rows = _STARTED.rows(user_id=user.pk)
    return rows[0][0] if rows else 0


def _participant(*, user, conversation_id) -> Participant:
    try:
        conversation_id = int(conversation_id)
    except (TypeError, ValueError):
        raise _conversation_not_found() from None
    participant = (
        Participant.objects.select_related("other_profile", "other_profile__user", "conversation")
        .filter(conversation_id=conversation_id, user_id=user.pk)
        .first()
    )
    if participant is None:
        raise _conversation_not_found()
    return participant


# --- Opening ---------------------------------------------------------------------------


def conversation_open(*, user, profile_id) -> Conversation:
    """The conversation between the member and the profile, made when there is none.
    An existing one is reused (also after the member deleted it) unless a block stands
    between them or the other member deleted their account. A new one needs a profile
    the member may see; a free member who already started FREE_CONVERSATION_LIMIT
    conversations gets "premium_required". Changes nothing when it raises."""
    user = _member(user)
    own = _own_profile(user)
    try:
        profile_id = int(profile_id)
    except (TypeError, ValueError):
        raise _not_available() from None
    if profile_id == own.pk:
        raise ApplicationError("chat_self", _("You cannot chat with yourself."), status_code=409)
    low, high = sorted((own.pk, profile_id))
    existing = Conversation.objects.filter(profile_low_id=low, profile_high_id=high).first()
    if existing is not None:
        other = Profile.objects.select_related("user").filter(pk=profile_id).first()
        if (
            other is None
            or (other.user_id and other.user.status == UserStatus.DELETED)
            or _blocked_either_way(user_id=user.pk, own_profile_id=own.pk, other=other)
        ):
            raise _not_available()
        return existing
    other = _chat_profiles(user).filter(pk=profile_id).first()
    if other is None:
        raise _not_available()
    if not user.paid_user and started_count(user=user) >= FREE_CONVERSATION_LIMIT:
        raise premium_required_error()
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(profile_low_id=low, profile_high_id=high)
            Participant.objects.bulk_create(
                [
                    Participant(conversation=conversation, profile=own, user_id=user.pk, other_profile=other),
                    Participant(conversation=conversation, profile=other, user_id=other.user_id, other_profile=own),
                ]
            )
    except IntegrityError:  # Both opened it at the same moment: the other one won.
        conversation = Conversation.objects.get(profile_low_id=low, profile_high_id=high)
    return conversation


# --- Sending -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Content:
    kind: str
    text: str = ""
    gift: object | None = None


def _content(*, site, text, photo, gift_id) -> _Content:
    text = (text or "").replace("\x00", "").strip()
    given = [name for name, value in (("text", text), ("photo", photo), ("gift", gift_id)) if value]
    if not given:
        raise _invalid("text", _("Write a message."), code="message_empty")
    if len(given) > 1:
        raise _invalid(given[1], _("Send a text, a photo or a gift, one at a time."))
    if text:
        if len(text) > site.message_length:
            raise _invalid(
                "text",
                _("Your message is too long. The maximum is %(max)s characters.") % {"max": site.message_length},
                code="message_too_long",
            )
        return _Content(kind=MessageKind.TEXT, text=text)
    if photo:
        return _Content(kind=MessageKind.PHOTO)
    from apps.tenants.models import Gift

    try:
        gift_id = int(gift_id)
    except (TypeError, ValueError):
        gift_id = 0
    gift = Gift.objects.filter(site_id=site.pk, pk=gift_id, is_active=True).first() if gift_id > 0 else None
    if gift is None:
        # An unknown id, like an unknown conversation.
        raise ApplicationError(
            "gift_not_found",
            _("This gift is not available."),
            status_code=404,
            extra={"fields": {"gift": [_("This gift is not available.")]}},
        )
    return _Content(kind=MessageKind.GIFT, gift=gift)


def _existing(*, user, client_id: str) -> Message | None:
    return Message.objects.filter(sender_id=user.pk, client_id=client_id).first()


# The message's INSERT as the model's insert compiler writes it, kept per database after
# its first use: compiling it again for every message cost more than its parameters.
_INSERT_SQL: dict[str, str] = {}


def _message_insert(message: Message) -> bool:
    """Store `message` unless its sender already stored one with its `client_id` (a resend
    that committed meanwhile); True when stored. One statement, INSERT ... ON CONFLICT DO
    NOTHING RETURNING, built by the model's own compiler as `save()` builds it: it needs
    no savepoint to survive the conflict (a savepoint, the INSERT and the release were
    three round trips in every message's transaction). The SQL is compiled once; each
    message's values are prepared as the compiler prepares them (each field's `pre_save`,
    then `get_db_prep_save`)."""
    meta = Message._meta
    fields = [f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field]
    sql = _INSERT_SQL.get(connection.alias)
    if sql is None:
        query = InsertQuery(Message, on_conflict=OnConflict.IGNORE)
        query.insert_values(fields, [message])
        compiler = query.get_compiler(connection=connection)
        compiler.returning_fields = meta.db_returning_fields
        [(sql, params)] = compiler.as_sql()
        if not any(hasattr(getattr(message, field.attname), "resolve_expression") for field in fields):
            _INSERT_SQL[connection.alias] = sql
    else:
        params = []
        for field in fields:
            value = field.pre_save(message, True)
            if hasattr(value, "resolve_expression"):  # an expression is the compiler's to write
                raise TypeError(f"Message.{field.name}: an expression cannot be stored by the kept INSERT")
            params.append(field.get_db_prep_save(value, connection=connection))
    with server_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return False
    for value, field in zip(row, meta.db_returning_fields, strict=True):
        setattr(message, field.attname, value)
    message._state.adding, message._state.db = False, connection.alias
    return True


def _files_delete(names: list[str]) -> None:
    for name in names:
        if name:
            default_storage.delete(name)


# The conversation's newest message and both members' lists, after a message is stored.
_LISTED_UPDATES = f"""
WITH conversation AS (
    UPDATE {Conversation._meta.db_table} SET started_by_id = %s, last_message_at = %s WHERE id = %s
), listed AS (
    UPDATE {Participant._meta.db_table}
    SET listed = true, last_message_id = %s, last_message_at = %s, deleted_at = NULL,
        is_starter = CASE WHEN id = %s THEN %s ELSE is_starter END,
        num_unread = CASE WHEN id = %s THEN num_unread + 1 ELSE num_unread END
    WHERE id = ANY(%s)
    RETURNING id, num_unread
)"""  # noqa: S608 (table names from the models, values as parameters)
_LISTED = _LISTED_UPDATES + "\nSELECT NULL"
# The same, returning the recipient's unread badge: this chat's new count plus their other
# open chats' (apps.chat.selectors.UNREAD_ELSEWHERE, as the statement's snapshot has them:
# the data-modifying part is not visible to the rest of the statement). The badge then
# travels with the message, counted in the same round trip.
_LISTED_COUNTED = (
    _LISTED_UPDATES + "\nSELECT (SELECT num_unread FROM listed WHERE id = %s) + COALESCE(({unread}), 0)"  # noqa: S608
)


def _listed(*, conversation, message: Message, mine: Participant, theirs: Participant, held: bool, recipient_id):
    """Runs the listing statement; returns the recipient's unread badge when there is a
    recipient who sees the message (None otherwise)."""
    now = message.created
    listing = [mine.pk] if held else [mine.pk, theirs.pk]
    params = [
        *(conversation.started_by_id, now, conversation.pk),
        *(message.pk, now, mine.pk, mine.is_starter, theirs.pk, listing),
    ]
    counted = not held and recipient_id is not None
    if counted:
        unread_sql, unread_params = UNREAD_ELSEWHERE.statement(user_id=recipient_id, participant_id=theirs.pk)
        sql = _LISTED_COUNTED.format(unread=unread_sql)
        params += [theirs.pk, *unread_params]
    else:
        sql = _LISTED
    with server_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if counted else None


# The sender's account row, locked (compiled once, and prepared by PostgreSQL on each
# pooled connection: apps.common.prepared).
_SENDER = PreparedQuery(lambda user_id: User.objects.select_for_update().filter(pk=user_id), server=True)
# The conversation's two participant rows and the conversation, locked in one statement,
# with both profiles and whether a block stands between the two.
_PARTICIPANTS = PreparedQuery(
    lambda user_id, conversation_id: (
        Participant.objects.select_for_update(of=("self", "conversation"))
        .select_related("conversation", "profile", "profile__user")
        .annotate(
            blocked=Exists(
                Block.objects.filter(
                    Q(blocker_id=user_id, blocked_id=OuterRef("profile_id"))
                    | Q(blocker_id=OuterRef("profile__user_id"), blocked_id=OuterRef("other_profile_id"))
                )
            )
        )
        .filter(conversation_id=conversation_id)
        .order_by("pk")
    ),
    server=True,
)


def _sendable(*, user: User, conversation_id: int, cost: int) -> tuple[Participant, Participant, User | None, bool]:
    """(the sender's participant row, the other's with the conversation, the recipient,
    whether this is the conversation's first message), with the rows locked, once the
    sender (their account row locked) may send this message. Raises the refusal."""
    rows = _PARTICIPANTS.objects(user_id=user.pk, conversation_id=conversation_id)
    mine = next((row for row in rows if row.user_id == user.pk), None)
    if mine is None:
        raise _conversation_not_found()
    if cost > user.credits:
        raise not_enough_credits_error()
    theirs = next(row for row in rows if row.pk != mine.pk)
    other = theirs.profile
    recipient = other.user
    if (
        (recipient is not None and recipient.status == UserStatus.DELETED)
        or (other.status != ProfileStatus.ACTIVE and (recipient is None or recipient.is_confirmed))
        or theirs.blocked
    ):
        raise _not_available()
    # The first message starts the conversation: a free member may start a few.
    first = theirs.conversation.started_by_id is None
    if first and not user.paid_user and started_count(user=user) >= FREE_CONVERSATION_LIMIT:
        raise premium_required_error()
    return mine, theirs, recipient, first


def message_send(
    *, user, conversation_id, client_id: str, text: str | None = None, photo=None, gift_id=None
) -> tuple[Message, bool]:
    """Send a text, a photo (an upload, checked and re-encoded like profile photos) or a
    gift. Returns (message, created): the same `client_id` again returns the message
    stored the first time, paid once, with created False.

    Raises ApplicationError: "conversation_not_found", "message_empty",
    "message_too_long", "gift_not_found", an image error, "email_not_confirmed",
    "profile_not_available" (blocked either way, the other member deleted or disabled),
    "premium_required" (a free member's third started conversation),
    "not_enough_credits" (402) or "credits_frozen". Then nothing is stored or spent."""
    user = _member(user)
    site = current_site()
    client_id = (client_id or "").strip()
    if not CLIENT_ID_PATTERN.match(client_id):
        raise _invalid("client_id", _("An error has occurred."))
    try:
        conversation_id = int(conversation_id)
    except (TypeError, ValueError):
        raise _conversation_not_found() from None
    processed = None
    if photo:  # Before decoding a photo for nothing: a resend, or too few credits.
        existing = _existing(user=user, client_id=client_id)
        if existing is not None:
            return existing, False
    if user.status == UserStatus.NOT_CONFIRMED:
        raise ApplicationError("email_not_confirmed", _("Please confirm your e-mail address first."), status_code=403)
    content = _content(site=site, text=text, photo=photo, gift_id=gift_id)
    cost = message_cost(site=site, user=user, kind=content.kind)
    if content.kind == MessageKind.PHOTO:
        if cost > User.objects.filter(pk=user.pk).values_list("credits", flat=True).first():
            raise not_enough_credits_error()
        processed = process_upload(photo, thumb_side=CHAT_PHOTO_THUMB_SIDE)
    files: list[str] = []
    try:
        with transaction.atomic():
            sender = _SENDER.objects(user_id=user.pk)[0]
            try:
                mine, theirs, recipient, first = _sendable(user=sender, conversation_id=conversation_id, cost=cost)
            except ApplicationError:
                # A resend (also one that waited for the first one's lock) gets the first,
                # whatever stands in the way now (the credits it spent, a block since).
                existing = _existing(user=user, client_id=client_id)
                if existing is not None:
                    return existing, False
                raise
            conversation = theirs.conversation
            held = recipient is not None and not recipient.is_confirmed
            # Scam and spam signals (apps.chat.safety): one call, no query; a text that is a
            # conversation's first message also costs one Redis round trip.
            signals, review = message_review(site=site, sender=sender, first=first, text=content.text)
            if (
                not first
                and not review
                and theirs.last_message_id is None
                and Message.objects.filter(conversation_id=conversation.pk, review=MessageReview.HELD).exists()
            ):
                # The first message waits for support: what follows it waits with it.
                review = MessageReview.HELD
            message = Message(
                conversation_id=conversation.pk,
                sender_id=sender.pk,
                sender_profile_id=mine.profile_id,
                kind=content.kind,
                text=content.text,
                credits=cost,
                client_id=client_id,
                held=held or review == MessageReview.HELD,
                signals=signals,
                review=review,
            )
            held = message.held
            if content.gift is not None:
                gift = content.gift
                message.gift_id = gift.pk
                message.gift_name = gift.name
                message.gift_emoji = gift.emoji
                message.gift_image = gift.image.url if gift.image else ""
            if processed is not None:
                name = image_filename(processed.extension)
                message.photo.save(name, ContentFile(processed.full), save=False)
                files.append(message.photo.name)
                message.photo_thumb.save(name, ContentFile(processed.thumb), save=False)
                files.append(message.photo_thumb.name)
                message.photo_width, message.photo_height = processed.width, processed.height
            if not _message_insert(message):  # A resend: the first is stored (and paid) already.
                _files_delete(files)
                files = []
                return _existing(user=user, client_id=client_id), False
            if cost:
                credits_spend(
                    user=sender, credits=cost, kind=LEDGER_KINDS[content.kind], reference=f"message:{message.pk}"
                )
            if review == MessageReview.HELD and first:  # into support's queue, in this transaction
                held_message_file(site=site, message=message)
            now = message.created
            if first:
                conversation.started_by_id = sender.pk
                mine.is_starter = True
            conversation.last_message_at = now
            # The conversation and both lists in one statement: the message is the newest
            # of each, unread for the recipient (unless it is held for them), whose badge
            # it counts.
            unread = _listed(
                conversation=conversation,
                message=message,
                mine=mine,
                theirs=theirs,
                held=held,
                recipient_id=recipient.pk if recipient is not None else None,
            )
            if not held and recipient is not None:  # an e-mail or push if still unread after a while
                notice_event(
                    user=recipient,
                    kind="new_conversations" if first else "new_messages",
                    item={
                        "m": message.pk,
                        "c": conversation.pk,
                        "p": mine.profile_id,
                        "n": sender.username,
                        "k": content.kind,
                        "t": (content.text or "")[:200],
                    },
                )
    except BaseException:
        _files_delete(files)
        raise
    user.credits = sender.credits
    recipient_id = recipient.pk if recipient is not None and not held else None
    _announce(
        message=message,
        sender_id=sender.pk,
        recipient_id=recipient_id,
        sender_credits=sender.credits,
        recipient_unread=unread,
    )
    return message, True


def _payload_for_reader(message: Message, *, viewer_id: int) -> dict:
    """`message_payload` for another member than the one whose request this is: a gift's
    name in that member's language (nothing else in a message is translated)."""
    if message.kind != MessageKind.GIFT:
        return message_payload(message, viewer_id=viewer_id)
    language = User.objects.filter(pk=viewer_id).values_list("language", flat=True).first()
    with translation.override(language or "en"):
        return message_payload(message, viewer_id=viewer_id)


def _announce(
    *,
    message: Message,
    sender_id: int,
    recipient_id: int | None,
    sender_credits: int | None = None,
    recipient_unread: int | None = None,
) -> None:
    # The recipient's copy goes first (after commit, in this order, nobody waiting for
    # them): the send-to-deliver time is what the chat feels like. Their unread badge
    # travels with it when the message's transaction counted it (one channel message),
    # else it is counted after the answer. The sender's other tabs and their balance
    # follow, in one channel message.
    if recipient_id:
        recipient_events = [{"type": "message.new", "message": _payload_for_reader(message, viewer_id=recipient_id)}]
        if recipient_unread is not None:
            recipient_events.append({"type": "badges", "unreadMessages": recipient_unread})
        events_send_on_commit(user_id=recipient_id, events=recipient_events)
    sender_events = [{"type": "message.new", "message": message_payload(message, viewer_id=sender_id)}]
    if sender_credits is not None and message.credits:
        sender_events.append(credits_event(sender_credits))
    events_send_on_commit(user_id=sender_id, events=sender_events)
    if recipient_id and recipient_unread is None:
        unread_send_on_commit(user_id=recipient_id)


# --- Read and delivered state ------------------------------------------------------------------


def conversation_read(*, user, conversation_id) -> int:
    """The member opened the conversation: its unread count becomes 0 and the other's
    messages are read (and delivered). The other member's pages hear of it. Idempotent;
    returns the number of messages marked read."""
    user = _member(user)
    participant = _participant(user=user, conversation_id=conversation_id)
    now = timezone.now()
    with transaction.atomic():
        incoming = Message.objects.filter(
            conversation_id=participant.conversation_id, held=False, id__gt=participant.cleared_up_to
        ).exclude(sender_id=user.pk)
        newest = incoming.order_by("-id").values_list("id", flat=True).first()
        changed = incoming.filter(read_at__isnull=True).update(read_at=now, delivered_at=Coalesce("delivered_at", now))
        Participant.objects.filter(pk=participant.pk).update(
            num_unread=0, last_read_message_id=newest or F("last_read_message_id")
        )
    other_id = participant.other_profile.user_id
    if changed and other_id:
        event_send_on_commit(
            user_id=other_id,
            event={"type": "read", "conversation": participant.conversation_id, "up_to": newest, "at": now.isoformat()},
        )
    if participant.num_unread:
        unread_send_on_commit(user_id=user.pk)
    return changed


def messages_delivered(*, user, conversation_id, up_to_id=None) -> int:
    """The member's device received the other's messages (up to `up_to_id`): they are
    delivered. The sender's pages hear of it. Idempotent."""
    user = _member(user)
    participant = _participant(user=user, conversation_id=conversation_id)
    now = timezone.now()
    messages = Message.objects.filter(
        conversation_id=participant.conversation_id, held=False, delivered_at__isnull=True
    ).exclude(sender_id=user.pk)
    if up_to_id is not None:
        try:
            messages = messages.filter(id__lte=int(up_to_id))
        except (TypeError, ValueError):
            return 0
    newest = messages.order_by("-id").values_list("id", flat=True).first()
    if newest is None:
        return 0
    changed = messages.filter(id__lte=newest).update(delivered_at=now)
    other_id = participant.other_profile.user_id
    if changed and other_id:
        event_send_on_commit(
            user_id=other_id,
            event={
                "type": "delivered",
                "conversation": participant.conversation_id,
                "up_to": newest,
                "at": now.isoformat(),
            },
        )
    return changed


def messages_delivered_pending(*, user) -> int:
    """The member's device came online (a socket opened): every message waiting for them
    is delivered, and each sender's pages hear of it per conversation. Two queries
    whatever the number of conversations; returns the number of messages."""
    return messages_delivered_pending_many(user_ids=[user.pk])


def messages_delivered_pending_many(*, user_ids: list[int]) -> int:
    """messages_delivered_pending for many members of the site at once (the sockets of a
    crowd reconnecting together, apps.chat.batching): the conversations where one of them
    has unread messages, then those messages, in two queries whatever the number of
    members; one UPDATE when some are waiting. A message is delivered when a member of
    the batch other than its sender has unread messages in its conversation, as for one
    member. Returns the number of messages delivered."""
    waiting: dict[int, list[int]] = {}
    for conversation_id, user_id in Participant.objects.filter(user_id__in=user_ids, num_unread__gt=0).values_list(
        "conversation_id", "user_id"
    ):
        waiting.setdefault(conversation_id, []).append(user_id)
    if not waiting:
        return 0
    rows = []
    for message_id, conversation_id, sender_id in Message.objects.filter(
        conversation_id__in=list(waiting), held=False, delivered_at__isnull=True
    ).values_list("id", "conversation_id", "sender_id"):
        if any(user_id != sender_id for user_id in waiting[conversation_id]):
            rows.append((message_id, conversation_id, sender_id))
    if not rows:
        return 0
    now = timezone.now()
    changed = Message.objects.filter(id__in=[row[0] for row in rows], delivered_at__isnull=True).update(
        delivered_at=now
    )
    newest: dict[tuple[int, int], int] = {}
    for message_id, conversation_id, sender_id in rows:
        key = (conversation_id, sender_id)
        newest[key] = max(newest.get(key, 0), message_id)
    for (conversation_id, sender_id), up_to in newest.items():
        event_send_on_commit(
            user_id=sender_id,
            event={"type": "delivered", "conversation": conversation_id, "up_to": up_to, "at": now.isoformat()},
        )
    return changed


def conversation_opened(*, user, conversation_id: int) -> None:
    """The member opened the conversation (its page, GET /api/chat.php): it becomes their
    last opened chat (spec §3). One UPDATE of their own side only; call it after the
    conversation was found theirs and open (conversation_history), so a foreign id
    records nothing."""
    Participant.objects.filter(conversation_id=conversation_id, user_id=user.pk).update(last_opened=timezone.now())


# --- Deleting ---------------------------------------------------------------------------------


def _hide(rows) -> int:
    """Hide conversations for their member: off the list, unread 0, the messages so far
    hidden for good (a later message brings the chat back, without the old ones)."""
    count = 0
    now = timezone.now()
    for row in rows:
        newest = (
            Message.objects.filter(conversation_id=row.conversation_id)
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
        )
        Participant.objects.filter(pk=row.pk).update(
            listed=False,
            num_unread=0,
            cleared_up_to=max(row.cleared_up_to, newest or 0),
            last_message=None,
            last_message_at=None,
            deleted_at=now,
            # A deleted chat is never the last opened one again, even when a message brings it back.
            last_opened=None,
        )
        count += 1
    return count


def conversation_delete(*, user, conversation_id) -> None:
    """DELETE /api/chat.php {conversation}: the chat leaves the member's list (the other
    member keeps theirs). Deleting it again is fine; someone else's is "not found"."""
    user = _member(user)
    participant = _participant(user=user, conversation_id=conversation_id)
    with transaction.atomic():
        _hide([participant])
    unread_send_on_commit(user_id=user.pk)


def conversations_delete_with_profile(*, user, profile_id) -> int:
    """DELETE /api/chat.php {profile}: every conversation of the member with that
    profile leaves their list (spec §4). Returns how many."""
    user = _member(user)
    try:
        profile_id = int(profile_id)
    except (TypeError, ValueError):
        raise _not_available() from None
    with transaction.atomic():
        rows = list(Participant.objects.select_for_update().filter(user_id=user.pk, other_profile_id=profile_id))
        count = _hide(rows)
    unread_send_on_commit(user_id=user.pk)
    return count


# --- E-mail confirmed ------------------------------------------------------------------------


def chat_release_held(*, user) -> int:
    """The member confirmed their e-mail address (call inside the confirming
    transaction, after the status became active): messages kept back for them are
    delivered (their unread counts and list updated, their pages told), and the first
    messages they wrote while signing up (accounts.SignupMessage) are sent. Idempotent.
    Returns the number of held messages released."""
    released = 0
    with transaction.atomic():
        rows = list(Participant.objects.select_for_update().filter(user_id=user.pk).order_by("pk"))
        for row in rows:
            held = list(
                Message.objects.filter(conversation_id=row.conversation_id, held=True)
                .exclude(sender_id=user.pk)
                .exclude(review=MessageReview.HELD)  # support decides those (held_message_release)
                .order_by("id")
            )
            if not held:
                continue
            Message.objects.filter(pk__in=[message.pk for message in held]).update(held=False)
            newest = held[-1]
            Participant.objects.filter(pk=row.pk).update(
                listed=True,
                num_unread=F("num_unread") + len(held),
                last_message=newest,
                last_message_at=newest.created,
                deleted_at=None,
            )
            released += len(held)
            for message in held:
                message.held = False
                payload = _payload_for_reader(message, viewer_id=user.pk)
                event_send_on_commit(user_id=user.pk, event={"type": "message.new", "message": payload})
        signup_messages_deliver(user=user)
    if released:
        unread_send_on_commit(user_id=user.pk)
    return released


def signup_messages_deliver(*, user) -> int:
    """Send the messages the member wrote to profiles while signing up (spec §4 signup
    step 0), once each (client_id "signup-<id>"). They cost nothing: the member wrote
    them before they could buy credits. A profile that is no longer available gets
    nothing; the row is marked delivered either way. Returns the number sent."""
    sent = 0
    pending = list(SignupMessage.objects.select_for_update().filter(user_id=user.pk, delivered_at__isnull=True))
    for signup_message in pending:
        try:
            with transaction.atomic():
                conversation = conversation_open(user=user, profile_id=signup_message.profile_id)
                _free_message(user=user, conversation=conversation, signup_message=signup_message)
                sent += 1
        except ApplicationError as error:
            logger.info("signup message %s not delivered: %s", signup_message.pk, error.code)
        SignupMessage.objects.filter(pk=signup_message.pk).update(delivered_at=timezone.now())
    return sent


def _free_message(*, user, conversation: Conversation, signup_message: SignupMessage) -> None:
    site = current_site()
    text = signup_message.text.replace("\x00", "").strip()[: site.message_length]
    if not text:
        return
    rows = list(Participant.objects.select_for_update().filter(conversation=conversation).order_by("pk"))
    mine = next(row for row in rows if row.user_id == user.pk)
    theirs = next(row for row in rows if row.pk != mine.pk)
    recipient = User.objects.filter(pk=theirs.user_id).first() if theirs.user_id else None
    held = recipient is not None and not recipient.is_confirmed
    message, created = Message.objects.get_or_create(
        sender_id=user.pk,
        client_id=f"signup-{signup_message.pk}",
        defaults={
            "conversation": conversation,
            "sender_profile_id": mine.profile_id,
            "kind": MessageKind.TEXT,
            "text": text,
            "held": held,
        },
    )
    if not created:
        return
    now = message.created
    if conversation.started_by_id is None:
        Conversation.objects.filter(pk=conversation.pk).update(started_by_id=user.pk, last_message_at=now)
        mine.is_starter = True
    else:
        Conversation.objects.filter(pk=conversation.pk).update(last_message_at=now)
    Participant.objects.filter(pk=mine.pk).update(
        listed=True, last_message=message, last_message_at=now, deleted_at=None, is_starter=mine.is_starter
    )
    if not held:
        Participant.objects.filter(pk=theirs.pk).update(
            listed=True, num_unread=F("num_unread") + 1, last_message=message, last_message_at=now, deleted_at=None
        )
    _announce(message=message, sender_id=user.pk, recipient_id=None if held else theirs.user_id)


def member_chat_files_erase(*, user) -> int:
    """The photo files of every message in the member's conversations, for the erasure
    of the member (apps.accounts.services.deletion.member_erase): those conversations
    and their messages go with the member's profile. Returns the number of files."""
    names = []
    rows = Message.objects.filter(
        Q(conversation__profile_low__user_id=user.pk) | Q(conversation__profile_high__user_id=user.pk) | Q(sender=user),
        kind=MessageKind.PHOTO,
    ).values_list("photo", "photo_thumb")
    for photo, thumb in rows:
        names += [name for name in (photo, thumb) if name]
    _files_delete(names)
    return len(names)


# --- Held for review (apps.chat.safety) --------------------------------------------------


def _held_for_review(message_id: int) -> list[Message]:
    """The held message and what its sender wrote after it in that conversation (held with
    it), oldest first, locked; [] when the message is not held for review."""
    first = Message.objects.filter(pk=message_id, review=MessageReview.HELD).only("conversation_id", "sender_id")
    first = first.first()
    if first is None:
        return []
    return list(
        Message.objects.select_for_update()
        .filter(conversation_id=first.conversation_id, sender_id=first.sender_id, review=MessageReview.HELD)
        .order_by("pk")
    )


def held_message_release(*, message_id: int) -> int:
    """Support approved a held first message: it and what its sender wrote after it reach
    the recipient now, as if just sent (list, unread count, live event, an e-mail or push
    if still unread); for a recipient who has not confirmed their address yet, when they
    confirm (chat_release_held). Returns how many were released (0: nothing held)."""
    with transaction.atomic():
        messages = _held_for_review(message_id)
        if not messages:
            return 0
        newest = messages[-1]
        theirs = (
            Participant.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(conversation_id=newest.conversation_id)
            .exclude(user_id=newest.sender_id)
            .first()
        )
        recipient = theirs.user if theirs is not None else None
        still_held = recipient is not None and not recipient.is_confirmed
        Message.objects.filter(pk__in=[message.pk for message in messages]).update(
            review=MessageReview.APPROVED, held=still_held
        )
        if theirs is None or still_held:
            return len(messages)
        Participant.objects.filter(pk=theirs.pk).update(
            listed=True,
            num_unread=F("num_unread") + len(messages),
            last_message=newest,
            last_message_at=newest.created,
            deleted_at=None,
        )
        if recipient is not None:
            sender = User.objects.filter(pk=newest.sender_id).only("username").first()
            notice_event(
                user=recipient,
                kind="new_conversations",
                item={
                    "m": newest.pk,
                    "c": newest.conversation_id,
                    "p": newest.sender_profile_id,
                    "n": sender.username if sender else "",
                    "k": newest.kind,
                    "t": (newest.text or "")[:200],
                },
            )
            for message in messages:
                message.held, message.review = False, MessageReview.APPROVED
                payload = message_payload(message, viewer_id=recipient.pk)
                event_send_on_commit(user_id=recipient.pk, event={"type": "message.new", "message": payload})
    if recipient is not None:
        unread_send_on_commit(user_id=recipient.pk)
    return len(messages)


def held_message_reject(*, message_id: int, staff_name: str) -> int | None:
    """Support rejected a held first message: it and what its sender wrote after it never
    reach the recipient, and each one's credits go back to the sender, exactly as spent
    (a support adjustment naming the message). Returns the credits given back (None:
    nothing was held)."""
    from apps.credits.services import credits_adjust

    returned = 0
    with transaction.atomic():
        messages = _held_for_review(message_id)
        if not messages:
            return None
        Message.objects.filter(pk__in=[message.pk for message in messages]).update(review=MessageReview.REJECTED)
        sender = User.objects.get(pk=messages[0].sender_id)
        for message in messages:
            if message.credits:
                credits_adjust(
                    user=sender,
                    credits=message.credits,
                    staff_name=staff_name,
                    note=f"message:{message.pk} held and rejected: credits returned",
                )
                returned += message.credits
    if returned:
        credits_send_on_commit(user_id=sender.pk, credits=sender.credits)
    return returned
