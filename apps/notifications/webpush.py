"""Sending web pushes (RFC 8030/8291/8292), and what the push service's answer means
for the subscription. pywebpush's WebPusher encrypts the payload (http_ece, aes128gcm)
and the request is the one its asyncio sender (`send_async`) makes, posted on an
aiohttp session; the VAPID header is py_vapid's, signed once per push service for hours
(apps.common.vapid).

- 201 (or 200/202): delivered to the push service.
- 404, 410: the subscription is gone; it is deleted at once.
- 429 and 5xx (and a network error): try again later, not before Retry-After.
- 401, 403 (and other 4xx, and a redirect): our keys or request are wrong, or the
  endpoint is refused; the subscription is kept and the answer logged, a retry would not
  help.

An endpoint is a URL a member handed us, so the sender connects only where it may
(docs/security.md "Push sender"): https on port 443, and a host name is resolved once
for the connection, every address it has is checked (public unicast only: no loopback,
private, link-local, reserved, multicast, nor an IPv6 form carrying such an IPv4
address) and the connection goes to one of those very addresses, with the name kept
for TLS (SNI, certificate) and the Host header. A name that answers a public address to
a check and the loopback address to the connection (DNS rebinding) has no second answer
to give. A connection is kept open for the next pushes to the same host; it stays on the
address that was checked when it was opened. No redirect is followed, no proxy from the
environment is used, and an answer's body is read up to MAX_ANSWER_BYTES.

Sends happen on one asyncio loop per process, in a thread of its own. A caller hands
over a whole batch of pushes at once (pushes_start; one thread hop there and one back,
however many pushes) and the loop sends them with up to `in_flight` requests waiting
for their answers on kept connections, encrypting the next push meanwhile (pywebpush
encrypts on that loop). With PUSH_ENDPOINT_CHECK off (the tests' and the bench's local
push services on 127.0.0.1, never production: config/settings/production.py), http, any
port and any address are allowed, on a session of their own."""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import logging
import os
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import aiohttp
from django.conf import settings
from pywebpush import WebPusher, WebPushException

from apps.accounts.services.push import ENDPOINT_MAX_LENGTH
from apps.common.outbound import VettedResolver, refused_by_us, url_refusal
from apps.common.vapid import vapid_headers

logger = logging.getLogger(__name__)

DELIVERED, GONE, RETRY, REFUSED = "delivered", "gone", "retry", "refused"
PUSH_TIMEOUT = 10  # seconds for a whole push: connection, request and answer
CONNECT_TIMEOUT = 5
MAX_ANSWER_BYTES = 64 * 1024  # push services answer with a few bytes, or a short error
URGENCIES = ("very-low", "low", "normal", "high")
# Open connections per process (a fan-out keeps a batch's pushes in flight on them).
MAX_CONNECTIONS = 100


@dataclass
class PushAnswer:
    outcome: str  # DELIVERED, GONE, RETRY or REFUSED
    status: int  # the push service's HTTP status, 0 for no answer
    retry_after: int = 0  # seconds the push service asked us to wait


class AnswerTooLarge(OSError):
    """The push service's answer is larger than any push service's answer."""


def endpoint_refusal(endpoint: str, *, checked: bool) -> str:
    """Why the sender does not post to `endpoint` ("" when it may), from the URL alone
    (apps.common.outbound.url_refusal)."""
    return url_refusal(endpoint, checked=checked, max_length=ENDPOINT_MAX_LENGTH)


async def _read_bounded(response: aiohttp.ClientResponse) -> str:
    """An answer's body, read up to MAX_ANSWER_BYTES, as text for the log."""
    length = response.content_length
    if length is not None and length > MAX_ANSWER_BYTES:
        raise AnswerTooLarge(f"an answer of {length} bytes")
    if length is not None:
        return (await response.read()).decode(errors="replace")
    # No length (chunked, or up to the connection's end): read in steps; such an answer's
    # text is not kept for the log.
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise AnswerTooLarge(f"an answer of more than {MAX_ANSWER_BYTES} bytes")
    return ""


class _Sender:
    """The process's push sender: an asyncio loop in a daemon thread and, made on it when
    first needed, one aiohttp session per endpoint rule (checked, or local with the check
    off), so that a connection opened for the local rule is never used for the other.
    A session's connector keeps the connections to each push service open for the next
    pushes (keep-alive), each on the address vetted when it was opened."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.sessions: dict[bool, aiohttp.ClientSession] = {}
        self.thread = threading.Thread(target=self.loop.run_forever, name="push-sender", daemon=True)
        self.thread.start()

    def session(self, checked: bool) -> aiohttp.ClientSession:
        """The session of a rule (on the loop's thread only)."""
        session = self.sessions.get(checked)
        if session is None:
            connector = aiohttp.TCPConnector(
                resolver=VettedResolver(checked=checked),
                use_dns_cache=False,  # each new connection looks the name up, and checks it
                limit=MAX_CONNECTIONS,
                keepalive_timeout=30,
            )
            session = self.sessions[checked] = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,  # no proxy from the environment
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,  # the answer is bounded as it comes
                skip_auto_headers=("Accept-Encoding",),
            )
        return session

    def submit(self, coroutine) -> Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    async def _close(self) -> None:
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            await session.close()

    def close(self) -> None:
        """Close the sessions and their connections (the loop keeps running)."""
        if self.thread.is_alive():
            with contextlib.suppress(Exception):
                self.submit(self._close()).result(timeout=5)


_sender_lock = threading.Lock()
_sender_instance: _Sender | None = None


def _sender() -> _Sender:
    """The sender of this process (a new one after a fork: a Celery worker's child does
    not inherit the parent's thread)."""
    global _sender_instance
    with _sender_lock:
        if _sender_instance is None or _sender_instance.pid != os.getpid():
            _sender_instance = _Sender()
        return _sender_instance


@atexit.register
def close_all() -> None:
    """Close every open connection (at exit, and in tests)."""
    sender = _sender_instance
    if sender is not None and sender.pid == os.getpid():
        sender.close()


def retry_after_seconds(value: str | None) -> int:
    """Retry-After as seconds: a number or an HTTP date; 0 when absent or unreadable."""
    if not value:
        return 0
    value = value.strip()
    if value.isdigit():
        return min(int(value), 24 * 60 * 60)
    try:
        return max(0, min(int(parsedate_to_datetime(value).timestamp() - time.time()), 24 * 60 * 60))
    except (TypeError, ValueError, OverflowError):
        return 0


def payload_bytes(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


# One timeout for every push: connection, request and answer.
_TIMEOUT = aiohttp.ClientTimeout(total=PUSH_TIMEOUT, connect=CONNECT_TIMEOUT)


@dataclass
class _Push:
    """A push the sender may post: checked, with its body and headers made."""

    host: str
    checked: bool
    endpoint: str
    subscription: dict  # as WebPusher takes it
    data: bytes
    headers: dict


def _answer(host: str, status: int, retry_after: str, text: str) -> PushAnswer:
    """What a push service's answer means for the subscription."""
    if status in (200, 201, 202):
        return PushAnswer(DELIVERED, status)
    if status in (404, 410):
        return PushAnswer(GONE, status)
    if status == 429 or status >= 500:
        return PushAnswer(RETRY, status, retry_after_seconds(retry_after))
    logger.warning("push to %s refused with %s: %s", host, status, text[:200])
    return PushAnswer(REFUSED, status)


def _failure(host: str, error: BaseException) -> PushAnswer:
    """What an error instead of an answer means: keys pywebpush cannot encrypt for and an
    address of ours refused are final, anything on the way (no connection, a timeout, a
    garbled or too long answer) is tried again later."""
    if isinstance(error, (WebPushException, ValueError)):
        logger.warning("push to %s refused: %s", host, error)
        return PushAnswer(REFUSED, 0)
    refused = refused_by_us(error)
    if refused is not None:
        logger.warning("push endpoint %s refused: %s", host, refused)
        return PushAnswer(REFUSED, 0)
    if isinstance(error, (OSError, aiohttp.ClientError, asyncio.TimeoutError)):  # TimeoutError is an OSError
        logger.info("push to %s failed: %r", host, error)
        return PushAnswer(RETRY, 0)
    logger.error("push to %s failed: %r", host, error, exc_info=error)
    return PushAnswer(RETRY, 0)


async def _post(sender: _Sender, push: _Push, body: bytes) -> PushAnswer:
    """Post one encrypted push (the request pywebpush's send_async makes: the body with
    its TTL, Content-Encoding and VAPID headers) and read the answer within its bound;
    redirects are off (a push service does not redirect, and a redirect must not take a
    push elsewhere). The URL was checked by pushes_start; the resolver checks the
    addresses of each new connection."""
    try:
        async with sender.session(push.checked).post(
            push.endpoint, data=body, headers=push.headers, timeout=_TIMEOUT, allow_redirects=False
        ) as response:
            text = await _read_bounded(response)
            return _answer(push.host, response.status, response.headers.get("Retry-After", ""), text)
    except Exception as error:  # noqa: BLE001 - every failure is an answer for its device
        return _failure(push.host, error)


async def _post_all(sender: _Sender, pushes: list[_Push], in_flight: int) -> list[PushAnswer]:
    """Send a batch with `in_flight` requests at a time; the answers in its order.

    pywebpush's WebPusher encrypts each push (a fresh ECDH key and salt per push, RFC
    8291) on this loop, `in_flight` of them in one go whenever no encrypted push is left
    to post, so encrypting alternates with whole rounds of answers arriving rather than
    with each one (measured: about a third less CPU per push than encrypting each push
    just before its request)."""
    answers: list[PushAnswer | None] = [None] * len(pushes)
    ready: collections.deque[tuple[int, bytes]] = collections.deque()
    encrypted = 0

    def encrypt_next() -> None:
        nonlocal encrypted
        end = min(len(pushes), encrypted + in_flight)
        for index in range(encrypted, end):
            push = pushes[index]
            try:
                ready.append((index, WebPusher(push.subscription).encode(push.data, "aes128gcm")["body"]))
            except Exception as error:  # noqa: BLE001 - keys that cannot be encrypted for
                answers[index] = _failure(push.host, error)
        encrypted = end

    async def poster() -> None:
        while ready or encrypted < len(pushes):
            if not ready:
                encrypt_next()
                continue
            index, body = ready.popleft()
            answers[index] = await _post(sender, pushes[index], body)

    await asyncio.gather(*(poster() for _ in range(max(1, min(in_flight, len(pushes))))))
    return answers  # type: ignore[return-value] - every index is answered


def _push_make(
    *,
    endpoint: str,
    p256dh: str,
    auth: str,
    payload: dict | bytes,
    private_key: str,
    subject: str,
    ttl: int,
    urgency: str = "normal",
    topic: str = "",
    shared_headers: dict | None = None,
) -> _Push | PushAnswer:
    """The push for a subscription, or REFUSED when its endpoint is not one the sender
    posts to. `shared_headers`: a batch's headers made so far, by push service and
    what else they say (the same dict for each push of a batch that shares them; nobody
    changes it)."""
    checked = settings.PUSH_ENDPOINT_CHECK
    parts = urlsplit(endpoint)
    reason = endpoint_refusal(endpoint, checked=checked)
    if reason:
        logger.warning("push endpoint %s refused: %s", parts.hostname, reason)
        return PushAnswer(REFUSED, 0)
    audience = f"{parts.scheme}://{parts.netloc}"
    key = (private_key, audience, subject, urgency, topic, ttl)
    headers = shared_headers.get(key) if shared_headers is not None else None
    if headers is None:
        headers = dict(vapid_headers(private_key=private_key, audience=audience, subject=subject))
        headers["Urgency"] = urgency if urgency in URGENCIES else "normal"
        if topic:
            headers["Topic"] = topic
        headers["TTL"] = str(ttl)
        headers["Content-Encoding"] = "aes128gcm"
        if shared_headers is not None:
            shared_headers[key] = headers
    data = payload if isinstance(payload, bytes) else payload_bytes(payload)
    subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    return _Push(parts.hostname or "", checked, endpoint, subscription, data, headers)


@dataclass
class PushBatch:
    """Pushes on their way: handed to the sender together, the answers are read by
    `pushes_result`."""

    answers: list[PushAnswer | None]  # settled before sending (a refused endpoint), or None
    sent: list[int]  # the indexes of the pushes handed to the sender
    request: Future | None = None
    timeout: float = 0


def pushes_start(requests: list[dict], *, in_flight: int = 64) -> PushBatch:
    """Hand the pushes (each the keywords of push_send) to the sender in one go and
    return at once; it encrypts and posts them with up to `in_flight` requests waiting
    for their answers. The answers come with pushes_result()."""
    answers: list[PushAnswer | None] = []
    pushes: list[_Push] = []
    sent: list[int] = []
    shared_headers: dict = {}
    for index, request in enumerate(requests):
        push = _push_make(**request, shared_headers=shared_headers)
        if isinstance(push, PushAnswer):
            answers.append(push)
        else:
            answers.append(None)
            pushes.append(push)
            sent.append(index)
    batch = PushBatch(answers, sent)
    if pushes:
        sender = _sender()
        batch.request = sender.submit(_post_all(sender, pushes, in_flight))
        # Each push ends within PUSH_TIMEOUT once it has its turn.
        batch.timeout = PUSH_TIMEOUT * -(-len(pushes) // max(1, in_flight)) + 5
    return batch


def pushes_result(batch: PushBatch) -> list[PushAnswer]:
    """What the push services answered, in the order of the requests."""
    answers = list(batch.answers)
    if batch.request is None:
        return answers
    try:
        sent = batch.request.result(timeout=batch.timeout)
    except TimeoutError:  # the loop is stuck: these devices are tried again later
        batch.request.cancel()
        logger.error("%s pushes got no answer within %s s", len(batch.sent), batch.timeout)
        sent = [PushAnswer(RETRY, 0)] * len(batch.sent)
    for index, answer in zip(batch.sent, sent, strict=True):
        answers[index] = answer
    return answers


def pushes_send(requests: list[dict], *, in_flight: int = 64) -> list[PushAnswer]:
    """Send the pushes and wait for their answers (pushes_start + pushes_result)."""
    return pushes_result(pushes_start(requests, in_flight=in_flight))


def push_send(**request) -> PushAnswer:
    """Send one push and wait for the answer."""
    return pushes_send([request])[0]
