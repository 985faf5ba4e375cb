"""A member's live connection: `/ws/` on the site's host (apps.chat.routing resolves the
site and the member).

Server -> client, JSON frames with a "type": "message.new" {message}, "typing"
{conversation}, "delivered" / "read" {conversation, up_to, at}, "like" {profile},
"match" {profile}, "badges" {unreadMessages, newLikes, credits}, "pong", "error".

Client -> server: "ping"; "typing" {conversation}; "delivered" {conversation, up_to};
"read" {conversation}. Frames are small and few: a frame over MAX_FRAME_BYTES closes
the socket (1009), more than the rate limit closes it (1008), and typing is passed on
at most once per TYPING_INTERVAL per conversation.

A socket lives only as long as the session it was opened with: a "chat.revoke" message
(sent when the member's password, status or sessions change; apps.chat.events) makes
every socket of the member check its session again and close (4401) when it no longer
logs that member in. Each socket also checks at its session's expiry and at least every
SESSION_CHECK_SECONDS, in case a revoke message was lost.

Each database call runs in the site's schema (`_in_site`): the worker threads are
shared by every site's sockets, so none may rely on the schema a thread was left in."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from datetime import datetime
from importlib import import_module

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.accounts.models import User, UserStatus
from apps.chat.batching import LoopBatcher
from apps.common.exceptions import ApplicationError
from apps.common.realtime import HANDLER, member_group, message_events, session_token

logger = logging.getLogger(__name__)

MAX_FRAME_BYTES = 2048
# A token bucket per socket: bursts of RATE_BURST frames, RATE_PER_SECOND on average.
RATE_BURST = 20
RATE_PER_SECOND = 2.0
TYPING_INTERVAL = 2.0
# How long a socket trusts its lookup of a conversation's other member.
PEER_CACHE_SECONDS = 30.0

# A socket checks its session at least this often (and at the session's expiry).
SESSION_CHECK_SECONDS = 300.0

# Close codes: 4401 visitor or unknown site (refused before the handshake completes),
# or the session the socket was opened with logged out.
CLOSE_UNAUTHORIZED = 4401
# A closing socket's group_discard is tried again after these pauses (seconds) when Redis
# does not answer: thousands of sockets closing at once on a saturated machine had their
# connections to Redis time out, and each such socket stayed in its member's group until
# the group's expiry (a day; bench "scale": 64 groups of 400 left).
DISCARD_RETRY_SECONDS = (0.5, 1.0, 2.0, 4.0, 8.0)
CLOSE_TOO_BIG = 1009
CLOSE_POLICY = 1008


def _in_site(site, func, /, *args, **kwargs):
    with tenant_context(site):
        return func(*args, **kwargs)


def _peer(site, user, conversation_id: int) -> int | None:
    """The other member of a conversation the member takes part in and may still write
    to (not closed by a block or a deletion); None otherwise."""
    from apps.chat.selectors import conversation_peer

    return _in_site(site, conversation_peer, user=user, conversation_id=conversation_id)


def _read(site, user, conversation_id: int) -> int:
    from apps.chat.services import conversation_read

    return _in_site(site, conversation_read, user=user, conversation_id=conversation_id)


def _delivered(site, user, conversation_id: int, up_to) -> int:
    from apps.chat.services import messages_delivered

    return _in_site(site, messages_delivered, user=user, conversation_id=conversation_id, up_to_id=up_to)


def _delivered_pending(items: list[tuple[object, int]]) -> list[int]:
    """The delivered state of the messages waiting for the members whose sockets just
    opened, (site, member id) each: one batch per site (messages_delivered_pending_many),
    so that a crowd reconnecting at once shares the hop and the queries."""
    from apps.chat.services import messages_delivered_pending_many

    sites: dict[int, tuple[object, list[int]]] = {}
    for site, user_id in items:
        sites.setdefault(site.pk, (site, []))[1].append(user_id)
    for site, user_ids in sites.values():
        _in_site(site, messages_delivered_pending_many, user_ids=user_ids)
    return [0] * len(items)


# Looked up by name at each batch, so that a test can count the batches.
_delivered_pending_batch = LoopBatcher(
    lambda items: _delivered_pending(items), size=200, name="delivered state of sockets' members"
)


def session_member(site, session_key: str | None):
    """(the member the session logs in, or AnonymousUser; the session's expiry or None),
    read in the site's schema, where sessions and accounts live. Django's get_user (here
    apps.accounts.authentication's, its member read compiled once) also checks the password
    hash kept in the session. Shared with apps.chat.routing."""
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.models import Session

    from apps.accounts.authentication import get_user

    if not session_key:
        return AnonymousUser(), None
    engine = import_module(settings.SESSION_ENGINE)
    with tenant_context(site):

        class _Request:  # What get_user reads.
            session = engine.SessionStore(session_key)

        user = get_user(_Request())
        if not user.is_authenticated:
            return user, None
        return user, Session.objects.filter(session_key=session_key).values_list("expire_date", flat=True).first()


def sessions_members(site, session_keys: list[str]) -> dict[str, tuple[object, datetime | None]]:
    """session_member for many sessions of one site at once, in two queries (their
    sessions, then their members) instead of three per session: the handshakes of a
    reconnecting crowd (a deploy, a network blip) are checked in batches
    (apps.chat.routing). The checks are Django's get_user's: the backend named in the
    session, the member active for it, the session's hash of the password (or of a
    fallback secret's). A session whose hash does not match only refuses the socket; the
    next page request logs it out, as it always did. A session naming another kind of
    backend is checked by session_member, one at a time."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, load_backend
    from django.contrib.auth.backends import ModelBackend
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.models import Session
    from django.utils.crypto import constant_time_compare

    engine = import_module(settings.SESSION_ENGINE)
    found: dict[str, tuple[object, datetime | None]] = {key: (AnonymousUser(), None) for key in session_keys}
    with tenant_context(site):
        rows = Session.objects.filter(session_key__in=set(session_keys), expire_date__gt=timezone.now()).values_list(
            "session_key", "session_data", "expire_date"
        )
        store = engine.SessionStore()
        sessions = {}
        for key, data, expires in rows:
            session = store.decode(data)
            backend_path = session.get(BACKEND_SESSION_KEY)
            if SESSION_KEY not in session or backend_path not in settings.AUTHENTICATION_BACKENDS:
                continue
            backend = load_backend(backend_path)
            if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
                found[key] = session_member(site, key)
                continue
            try:
                user_id = User._meta.pk.to_python(session[SESSION_KEY])
            except ValidationError:
                continue
            sessions[key] = (session, backend, user_id, expires)
        users = User._default_manager.in_bulk({user_id for _s, _b, user_id, _e in sessions.values()})
        for key, (session, backend, user_id, expires) in sessions.items():
            user = users.get(user_id)
            if user is None or not backend.user_can_authenticate(user):
                continue
            session_hash = session.get(HASH_SESSION_KEY)
            if session_hash and (
                constant_time_compare(session_hash, user.get_session_auth_hash())
                or any(constant_time_compare(session_hash, h) for h in user.get_session_auth_fallback_hash())
            ):
                found[key] = (user, expires)
    return found


def _may_connect(user) -> bool:
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and getattr(user, "status", None) != UserStatus.DELETED
    )


def session_expiry(site, user_id: int, session_key: str) -> datetime | None:
    """When the session expires, if it still logs in this member (not logged out or
    ended, same password, account active and not deleted); None otherwise."""
    user, expires = session_member(site, session_key)
    return expires if _may_connect(user) and user.pk == user_id else None


class MemberConsumer(AsyncWebsocketConsumer):
    group: str | None = None
    checker: asyncio.Task | None = None

    async def __call__(self, scope, receive, send) -> None:
        # Why: the server ends a consumer without a websocket.disconnect when a frame is
        # sent to a client that is already gone (uvicorn raises ClientDisconnected from
        # that send, and logs nothing). The socket then stayed in the member's group in
        # Redis for the group's expiry (bench "scale": a member group left after 10,000
        # sockets closed at once, while events were still on their way to them), and its
        # session checker ran on. However the consumer ends, it leaves its group.
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._leave()

    async def _leave(self) -> None:
        """Stops the session checker and leaves the member's group; once."""
        if self.checker is not None:
            self.checker.cancel()
            self.checker = None
        group, self.group = self.group, None
        if not group:
            return
        for pause in (*DISCARD_RETRY_SECONDS, None):
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
                return
            except Exception:
                if pause is None:  # Redis away for good: the group's expiry removes the channel
                    logger.exception("socket of group %s not discarded", group)
                    return
            # A little apart, so that sockets that failed together do not retry together.
            await asyncio.sleep(pause * (0.75 + 0.5 * random.random()))  # noqa: S311 - jitter, no secret

    async def connect(self) -> None:
        self.site = self.scope.get("site")
        self.user = self.scope.get("user")
        self.group = None
        self.revoked = False
        self.checker = None
        self.session_key = self.scope.get("session_key") or ""
        self.expires = self.scope.get("session_expires")
        if self.site is None or not _may_connect(self.user) or self.expires is None:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        self.group = member_group(site_id=self.site.pk, user_id=self.user.pk)
        self.session = session_token(self.session_key)
        self.tokens = float(RATE_BURST)
        self.tokens_at = time.monotonic()
        self.typing_sent: dict[int, float] = {}
        self.peers: dict[int, tuple[float, int | None]] = {}
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.checker = asyncio.create_task(self._check_periodically())
        # The device is online: what was sent to the member meanwhile is delivered now.
        try:
            await _delivered_pending_batch((self.site, self.user.pk))
        except Exception:  # never keeps the socket from working; the next connect tries again
            logger.exception("delivered state of member %s not updated on connect", self.user.pk)

    async def disconnect(self, code) -> None:
        await self._leave()

    # --- The session -------------------------------------------------------------------

    async def _session_stands(self) -> bool:
        """Checks the session again; closes the socket when it no longer stands."""
        if self.revoked:
            return False
        try:
            expires = await database_sync_to_async(session_expiry)(self.site, self.user.pk, self.session_key)
        except Exception:  # the database is away: the next check decides
            logger.exception("session of member %s's socket not checked", self.user.pk)
            return True
        if expires is not None:
            self.expires = expires
            return True
        self.revoked = True
        await self.close(code=CLOSE_UNAUTHORIZED)
        return False

    async def _check_periodically(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while not self.revoked:
                until_expiry = (self.expires - timezone.now()).total_seconds() + 1
                await asyncio.sleep(max(0.0, min(SESSION_CHECK_SECONDS, until_expiry)))
                await self._session_stands()

    async def chat_revoke(self, message: dict) -> None:
        """The member's password, account or sessions changed (apps.chat.events)."""
        await self._session_stands()

    # --- Incoming frames ---------------------------------------------------------------

    def _allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(float(RATE_BURST), self.tokens + (now - self.tokens_at) * RATE_PER_SECOND)
        self.tokens_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if not self.group or self.revoked:
            return
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if text_data is None or size > MAX_FRAME_BYTES:
            await self.close(code=CLOSE_TOO_BIG)
            return
        if not self._allow():
            await self.close(code=CLOSE_POLICY)
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            frame = None
        if not isinstance(frame, dict):
            await self._send({"type": "error", "code": "invalid"})
            return
        kind = frame.get("type")
        conversation = frame.get("conversation")
        if kind == "ping":
            await self._send({"type": "pong"})
            return
        if kind not in ("typing", "delivered", "read") or type(conversation) is not int or conversation <= 0:
            await self._send({"type": "error", "code": "invalid"})
            return
        if kind == "typing":
            await self._typing(conversation)
            return
        try:
            if kind == "read":
                await database_sync_to_async(_read)(self.site, self.user, conversation)
            else:
                up_to = frame.get("up_to")
                up_to = up_to if type(up_to) is int else None
                await database_sync_to_async(_delivered)(self.site, self.user, conversation, up_to)
        except ApplicationError as error:
            await self._send({"type": "error", "code": error.code, "conversation": conversation})

    async def _typing(self, conversation: int) -> None:
        now = time.monotonic()
        if now - self.typing_sent.get(conversation, 0.0) < TYPING_INTERVAL:
            return
        self.typing_sent[conversation] = now
        cached = self.peers.get(conversation)
        if cached and now - cached[0] < PEER_CACHE_SECONDS:
            peer = cached[1]
        else:
            peer = await database_sync_to_async(_peer)(self.site, self.user, conversation)
            self.peers[conversation] = (now, peer)
        if peer:
            await self.channel_layer.group_send(
                member_group(site_id=self.site.pk, user_id=peer),
                {"type": HANDLER, "event": {"type": "typing", "conversation": conversation}},
            )

    # --- Outgoing events ---------------------------------------------------------------

    async def chat_event(self, message: dict) -> None:
        for event in message_events(message):
            await self._send(event)

    async def chat_logout(self, message: dict) -> None:
        """The member logged out of the session this socket was opened with."""
        if self.session and message.get("session") == self.session:
            self.revoked = True
            await self.close(code=CLOSE_UNAUTHORIZED)

    async def _send(self, event: dict) -> None:
        if self.revoked:  # closing: nothing more goes out
            return
        await self.send(text_data=json.dumps(event, separators=(",", ":")))
