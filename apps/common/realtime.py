"""Real-time event transport: how an app's event reaches a member's open pages (the
WebSocket at /ws/, apps.chat.consumers). The apps that announce (chat, likes, profiles)
say what happened through this module; it knows none of them, as Zulip's
`send_event_on_commit` lives apart from the actions that call it.

Every member's sockets join one group whose name carries the site, so an event can
only reach the site it was made on. Services send events only after their transaction
commits (`event_send_on_commit`): a rolled-back message is never announced. A failure
to publish is logged and swallowed; the clients' polling (spec §9) catches up.

Nobody waits for an event. In the web server (ASGI) the request's thread hands the
group_send to the server's event loop and goes on (`_publish`): the recipient's copy of a
message leaves the moment the transaction commits, while the sender's answer is still
being written. The events of one member group go out in the order they were made. Outside
a server (Celery, commands, tests without a loop) they are sent at once, and the caller
waits at most SEND_TIMEOUT for Redis. Finding the server's loop reads asgiref's note of it
(pinned in requirements.txt); tests/test_request_cycle.py fails when an upgrade of asgiref
or uvicorn stops it being found, instead of every request quietly waiting on Redis.

The badges need queries (what `badges_counter` was given: apps.accounts.selectors.
member_totals). Inside a view wrapped in `after_response` they are counted after the answer
has gone out (Django runs a response's closers once its body is sent, under ASGI and WSGI
alike); elsewhere right after commit."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction

# The one current site (apps.tenants.current, through common.sites) names the groups a
# site's events go to.
from apps.common.sites import current_site

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


# --- Publishing without waiting ---------------------------------------------------------

# A group_send that has not finished after this long is given up (and logged), so that one
# stuck Redis call cannot hold back the member's later events for ever.
PUBLISH_TIMEOUT = 10.0
# A send made where there is no server loop blocks its caller (a Celery task, a command):
# a stalled Redis may hold it this long, not for as long as the TCP connection lives.
SEND_TIMEOUT = 2.0


class _LoopSends:
    """The group_sends in flight on one event loop: every task is referenced until it is
    done (the loop itself keeps only weak references), and the newest task of each group,
    which the group's next send waits for (the order of one member's events)."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task] = set()
        self.last: dict[str, asyncio.Task] = {}


_loop_sends: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopSends] = weakref.WeakKeyDictionary()


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop this sync code was called from, if it is still running: Django's
    ASGI handler runs the views in a thread through asgiref's SyncToAsync, which notes
    its loop in a thread local (async_to_sync finds it the same way)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    # Not part of asgiref's documented API: read defensively, so that a release without it
    # makes the sends blocking (with their timeout), not failing.
    note = getattr(SyncToAsync, "threadlocal", None)
    if getattr(note, "main_event_loop_pid", None) != os.getpid():
        return None  # none, or a forked parent's
    loop = getattr(note, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _send_now(layer, group: str, message: dict) -> None:
    """group_send from sync code, waiting for it at most SEND_TIMEOUT; raises what the
    channel layer raises, or TimeoutError."""

    async def send() -> None:
        await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)

    async_to_sync(send)()


async def _send_in_order(layer, group: str, message: dict, before: asyncio.Task | None) -> None:
    if before is not None:
        await asyncio.wait([before])  # its outcome is its own (logged when it failed)
    await asyncio.wait_for(layer.group_send(group, message), PUBLISH_TIMEOUT)


def _start(layer, group: str, message: dict) -> None:
    """On the loop: start the send after the group's previous one."""
    loop = asyncio.get_running_loop()
    sends = _loop_sends.get(loop)
    if sends is None:
        sends = _loop_sends[loop] = _LoopSends()
    task = loop.create_task(_send_in_order(layer, group, message, sends.last.get(group)))
    sends.tasks.add(task)
    sends.last[group] = task
    task.add_done_callback(functools.partial(_finished, sends, group, message["type"]))


def _finished(sends: _LoopSends, group: str, kind: str, task: asyncio.Task) -> None:
    sends.tasks.discard(task)
    if sends.last.get(group) is task:
        del sends.last[group]
    if task.cancelled():
        logger.warning("%s to group %s not sent: cancelled", kind, group)
    elif task.exception() is not None:
        error = task.exception()
        logger.error("%s to group %s not sent", kind, group, exc_info=(type(error), error, error.__traceback__))


def _publish(group: str, message: dict) -> None:
    """group_send without waiting when there is an event loop to hand it to, else at
    once. Never raises."""
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _server_loop()
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_start, layer, group, message)
            return
        except RuntimeError:  # The loop closed just now: send from here.
            pass
    try:
        _send_now(layer, group, message)
    except Exception:  # The channel layer (Redis) is down or stalled: the page's polling catches up.
        logger.exception("%s to group %s not sent", message["type"], group)


async def publish_drain() -> None:
    """Wait for the group_sends handed to this event loop (tests; a server's shutdown)."""
    sends = _loop_sends.get(asyncio.get_running_loop())
    while sends is not None and sends.tasks:
        await asyncio.wait(list(sends.tasks))


# --- After the response -------------------------------------------------------------------

_after = threading.local()


@contextlib.contextmanager
def after_response() -> Iterator[list[Callable[[], None]]]:
    """Collect the work that `later` is given while the block runs (on this thread); the
    caller attaches it to its response (`run_after_sent`). Should the block raise, what
    was collected runs at once: it belongs to transactions that did commit."""
    outer = getattr(_after, "jobs", None)
    jobs: list[Callable[[], None]] = []
    _after.jobs = jobs
    try:
        yield jobs
    except BaseException:
        _after.jobs = outer
        _run(jobs)
        raise
    _after.jobs = outer


def run_after_sent(response, jobs: list[Callable[[], None]]) -> None:
    """Run `jobs` once `response` has been sent: Django calls a response's closers from
    response.close(), which the ASGI handler (and a WSGI server) call after the last
    byte of the body, still in the request's thread with its database connection (each
    job sets its site's schema itself: `on_this_site`)."""
    if jobs:
        response._resource_closers.append(functools.partial(_run, jobs))


def on_this_site(job: Callable[[], None]) -> Callable[[], None]:
    """`job` bound to the site whose schema is set now: it runs in that schema whenever it
    runs (after the response the site middleware has put the connection back in the
    public schema; a commit may happen outside the site's block)."""
    site = connection.tenant

    def run() -> None:
        previous = connection.tenant
        connection.set_tenant(site)
        try:
            job()
        finally:
            connection.set_tenant(previous)

    return run


def later(job: Callable[[], None]) -> None:
    """`job` after the response when a view collects (`after_response`), else now."""
    jobs = getattr(_after, "jobs", None)
    if jobs is None:
        _run([job])
    else:
        jobs.append(job)


def _run(jobs: list[Callable[[], None]]) -> None:
    for job in jobs:
        try:
            job()
        except Exception:  # Django would swallow it silently in a closer
            logger.exception("real-time work after the response failed")
    jobs.clear()


# --- Events -----------------------------------------------------------------------------


def event_send(*, site_id: int, user_id: int, event: dict) -> None:
    """Send at once (no transaction involved), without waiting for Redis when there is a
    server loop. Never raises."""
    _publish(member_group(site_id=site_id, user_id=user_id), {"type": HANDLER, "event": event})


def events_send(*, site_id: int, user_id: int, events: list[dict]) -> None:
    """Several events of one member in one channel message (one group_send, one message
    for each socket to receive): each socket sends them as frames of their own, in this
    order (the consumer's HANDLER reads "events" as it reads "event"). Never raises."""
    if len(events) == 1:
        event_send(site_id=site_id, user_id=user_id, event=events[0])
    elif events:
        _publish(member_group(site_id=site_id, user_id=user_id), {"type": HANDLER, "events": events})


def message_events(message: dict) -> list[dict]:
    """The events a HANDLER channel message carries, in order."""
    events = message.get("events")
    return events if events is not None else [message["event"]]


def event_send_on_commit(*, user_id: int | None, event: dict, site_id: int | None = None) -> None:
    """Send `event` to the member's sockets once the current transaction commits (at
    once outside one). Members without an account (demo profiles) get nothing. Without
    `site_id`, the current site's (apps.tenants.current: raises outside a site's schema)."""
    events_send_on_commit(user_id=user_id, events=[event], site_id=site_id)


def events_send_on_commit(*, user_id: int | None, events: list[dict], site_id: int | None = None) -> None:
    """`events_send` once the current transaction commits: what one change tells one
    member (a message and the balance it left) goes out as one channel message."""
    if not user_id or not events:
        return
    site_id = site_id or current_site().pk
    transaction.on_commit(lambda: events_send(site_id=site_id, user_id=user_id, events=events))


def group_send_on_commit(group: str, message: dict) -> None:
    """`message` to every socket of `group` once the current transaction commits, waiting
    at most SEND_TIMEOUT: for the sockets' own handlers (LOGOUT_HANDLER, REVOKE_HANDLER),
    which the next periodic session check would also reach. Never raises."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            _send_now(layer, group, message)
        except Exception:  # Redis is away: each socket checks its session periodically anyway.
            logger.exception("%s not sent to group %s", message["type"], group)

    transaction.on_commit(send)


# --- Badges -------------------------------------------------------------------------------

_badge_counter: Callable[[int], dict | None] | None = None


def badges_counter(count: Callable[[int], dict | None]) -> None:
    """Set what counts a member's top-bar numbers: `count(user_id)` returns
    {"unreadMessages", "newLikes", "credits", ...}, or None for a member who is gone. The
    accounts app gives it in its `ready()`, so the apps that announce need not know who
    counts, and this module knows no app above it."""
    global _badge_counter
    _badge_counter = count


def badges_send(*, site_id: int, user_id: int) -> None:
    """Count the member's top-bar numbers now and send them."""
    counts = _badge_counter(user_id) if _badge_counter is not None else None
    if counts is not None:
        event_send(site_id=site_id, user_id=user_id, event={"type": "badges", **counts})


def badges_send_on_commit(*, user_id: int | None) -> None:
    """The member's top-bar counts ({"type": "badges", "unreadMessages", "newLikes",
    "credits"}), computed after commit so they include the change just made, and after
    the response when the view collects (`after_response`): nobody waits for them."""
    if not user_id:
        return
    job = on_this_site(functools.partial(badges_send, site_id=current_site().pk, user_id=user_id))
    transaction.on_commit(lambda: later(job))
