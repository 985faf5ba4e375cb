"""Real-time events to members' open pages (the WebSocket at /ws/, apps.chat.consumers).

Every member's sockets join one group whose name carries the site, so an event can
only reach the site it was made on. Services send events only after their transaction
commits (`event_send_on_commit`): a rolled-back message is never announced. A failure
to publish is logged and swallowed; the clients' polling (spec §9) catches up."""

from __future__ import annotations

import hashlib
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django_tenants.utils import get_public_schema_name

logger = logging.getLogger(__name__)

# The consumer method that forwards an event to the socket ("chat.event" -> chat_event).
HANDLER = "chat.event"
# The consumer method that closes the sockets of a session that logged out.
LOGOUT_HANDLER = "chat.logout"
# The consumer method that makes a member's sockets check their sessions again.
REVOKE_HANDLER = "chat.revoke"


def session_token(session_key: str) -> str:
    """What the sockets of one session are known by in a logout message: a hash, so the
    session key itself never travels through Redis."""
    return hashlib.sha256(f"chat-socket:{session_key}".encode()).hexdigest()[:32]


def member_group(*, site_id: int, user_id: int) -> str:
    """The group of one member's sockets on one site."""
    return f"site{site_id}.member{user_id}"


def _current_site_id() -> int:
    site = getattr(connection, "tenant", None)
    if site is None or getattr(site, "pk", None) is None:
        raise RuntimeError("real-time events need the site's schema to be set")
    return site.pk


def event_send(*, site_id: int, user_id: int, event: dict) -> None:
    """Send at once (no transaction involved). Never raises."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        group = member_group(site_id=site_id, user_id=user_id)
        async_to_sync(layer.group_send)(group, {"type": HANDLER, "event": event})
    except Exception:  # The channel layer (Redis) is down: the page's polling catches up.
        logger.exception("real-time event %s to member %s of site %s not sent", event.get("type"), user_id, site_id)


def badges_send_on_commit(*, user_id: int | None) -> None:
    """The member's top-bar counts ({"type": "badges", "unreadMessages", "newLikes",
    "credits"}), computed after commit so they include the change just made."""
    if not user_id:
        return
    site_id = _current_site_id()

    def send() -> None:
        from apps.accounts.models import User
        from apps.accounts.selectors import member_totals

        member = User.objects.filter(pk=user_id).first()
        if member is not None:
            event_send(site_id=site_id, user_id=user_id, event={"type": "badges", **member_totals(member)})

    transaction.on_commit(send)


def like_announce(*, liker, liker_profile, profile, is_match: bool) -> None:
    """`liker` (with `liker_profile`) liked `profile`: its member hears of the like (or
    the match), the liker of a match too; both get fresh badges. After commit."""
    from apps.profiles.cards import profile_card

    if liker_profile is None:
        return
    if profile.user_id:
        kind = "match" if is_match else "like"
        event_send_on_commit(user_id=profile.user_id, event={"type": kind, "profile": profile_card(liker_profile)})
        badges_send_on_commit(user_id=profile.user_id)
    if is_match:
        event_send_on_commit(user_id=liker.pk, event={"type": "match", "profile": profile_card(profile)})


def chat_closed_announce(*, blocker, blocked_profile) -> None:
    """A block closes the chats between two members at once on both sides' pages:
    {"type": "chat.closed", "profile": <the other side's profile id>}. For
    apps.profiles.services.blocks.block_create to call (after the block is stored)."""
    from apps.profiles.models import Profile

    blocker_profile_id = Profile.objects.filter(user_id=blocker.pk).values_list("pk", flat=True).first()
    event_send_on_commit(user_id=blocker.pk, event={"type": "chat.closed", "profile": blocked_profile.pk})
    if blocker_profile_id:
        event_send_on_commit(
            user_id=blocked_profile.user_id, event={"type": "chat.closed", "profile": blocker_profile_id}
        )
    badges_send_on_commit(user_id=blocker.pk)
    badges_send_on_commit(user_id=blocked_profile.user_id)


def event_send_on_commit(*, user_id: int | None, event: dict, site_id: int | None = None) -> None:
    """Send `event` to the member's sockets once the current transaction commits (at
    once outside one). Members without an account (demo profiles) get nothing."""
    if not user_id:
        return
    site_id = site_id or _current_site_id()
    transaction.on_commit(lambda: event_send(site_id=site_id, user_id=user_id, event=event))


def member_logged_out(sender, request, user, **kwargs) -> None:
    """`user_logged_out` receiver (connected in apps.chat.apps): the member's sockets
    opened with the session that logs out close (the member's other devices stay
    connected). Sent after commit; never raises."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    site = getattr(connection, "tenant", None)
    site_id = getattr(site, "pk", None)
    if user is None or not getattr(user, "pk", None) or not session_key or site_id is None:
        return
    message = {"type": LOGOUT_HANDLER, "session": session_token(session_key)}
    _group_send_on_commit(member_group(site_id=site_id, user_id=user.pk), message)


def member_sockets_revoke(*, user_id: int, site_id: int | None = None) -> None:
    """Every open socket of the member checks its session again once the current
    transaction commits, and closes when the session no longer logs the member in: after
    a password change (other sessions), a deletion, a block by support, or the end of
    all the member's sessions. Never raises."""
    site_id = site_id or _current_site_id()
    _group_send_on_commit(member_group(site_id=site_id, user_id=user_id), {"type": REVOKE_HANDLER})


def _group_send_on_commit(group: str, message: dict) -> None:
    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:  # Redis is away: each socket checks its session periodically anyway.
            logger.exception("%s not sent to group %s", message["type"], group)

    transaction.on_commit(send)


# --- Changes that end a member's sessions ----------------------------------------------

_AUTH_FIELDS = ("password", "status", "is_active")


def member_auth_remember(sender, instance, **kwargs) -> None:
    """`post_init` of User: what the sessions depend on, as loaded (deferred fields are
    left alone, so nothing is queried)."""
    instance._auth_loaded = tuple(instance.__dict__.get(name) for name in _AUTH_FIELDS)


def member_auth_changed(sender, instance, created, **kwargs) -> None:
    """`post_save` of User: a changed password, status or active flag revokes the member's
    sockets (each checks its session; the session that changed a password stays)."""
    loaded = getattr(instance, "_auth_loaded", None)
    now = tuple(instance.__dict__.get(name) for name in _AUTH_FIELDS)
    instance._auth_loaded = now
    if created or loaded is None or connection.schema_name == get_public_schema_name():
        return
    if any(old is not None and old != new for old, new in zip(loaded, now, strict=True)):
        member_sockets_revoke(user_id=instance.pk)


def member_sessions_ended(sender, user_id: int, **kwargs) -> None:
    """`apps.accounts.signals.sessions_ended` receiver."""
    member_sockets_revoke(user_id=user_id)
