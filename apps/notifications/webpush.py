"""Sending web pushes (RFC 8030/8291/8292), and what the push service's answer means
for the subscription. pywebpush's WebPusher encrypts the payload (http_ece, aes128gcm)
and the request is the one its asyncio sender (`send_async`) makes, posted as one
HTTP/1.1 request on a connection kept open to the push service (_Sender); the VAPID
header is py_vapid's, signed once per push service for hours (apps.common.vapid).

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
port and any address are allowed, on connections kept apart from the checked ones."""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import logging
import os
import ssl
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import quote, urlsplit

from django.conf import settings
from pywebpush import WebPusher, WebPushException

from apps.accounts.services.push import ENDPOINT_MAX_LENGTH
from apps.common.outbound import HTTPS_PORT, VettedResolver, refused_by_us, url_refusal
from apps.common.vapid import vapid_headers

logger = logging.getLogger(__name__)

DELIVERED, GONE, RETRY, REFUSED = "delivered", "gone", "retry", "refused"
PUSH_TIMEOUT = 10  # seconds for a whole push: connection, request and answer
CONNECT_TIMEOUT = 5
MAX_ANSWER_BYTES = 64 * 1024  # push services answer with a few bytes, or a short error
URGENCIES = ("very-low", "low", "normal", "high")
# Requests under way at once per process, and connections kept open for the next ones
# (a fan-out keeps a batch's pushes in flight on them).
MAX_CONNECTIONS = 100
KEEPALIVE_SECONDS = 30  # a kept connection idle this long is closed, not used
USER_AGENT = "web-push-sender"


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


class AnswerGarbled(OSError):
    """What came back is no HTTP/1.1 answer (or the connection ended inside one)."""


class _Connection:
    """A kept HTTP/1.1 connection to one push service, on the address vetted when it was
    opened."""

    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.idle_since = 0.0

    def usable(self, now: float) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof() and now - self.idle_since < KEEPALIVE_SECONDS

    def close(self) -> None:
        self.writer.close()


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], str, bool]:
    """(status, headers with lower-case names, body as text for the log, whether the
    connection may carry the next request) of one HTTP/1.x answer; its head and its body
    are each read up to MAX_ANSWER_BYTES. An interim 1xx answer is skipped."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head[:-4].decode("latin-1").split("\r\n")
            version, _, rest = lines[0].partition(" ")
            code = rest[:3]
            if not version.startswith("HTTP/1.") or len(code) != 3 or not code.isdigit() or rest[3:4] not in ("", " "):
                raise AnswerGarbled(f"not an HTTP answer: {lines[0][:80]!r}")
            status = int(code)
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, colon, value = line.partition(":")
                if not colon or not name or name != name.strip():
                    raise AnswerGarbled(f"a bad header line: {line[:80]!r}")
                headers[name.lower()] = value.strip()
            if not 100 <= status < 200:
                break
        keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunked(reader)
        elif "content-length" in headers:
            length = headers["content-length"]
            if not length.isdigit():
                raise AnswerGarbled(f"Content-Length {length[:40]!r}")
            if int(length) > MAX_ANSWER_BYTES:
                raise AnswerTooLarge(f"an answer of {length} bytes")
            body = await reader.readexactly(int(length))
        elif status in (204, 304):
            body = b""
        else:  # up to the connection's end
            body, keep = b"", False
            while chunk := await reader.read(MAX_ANSWER_BYTES):
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise AnswerTooLarge(f"an answer of more than {MAX_ANSWER_BYTES} bytes")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as error:
        raise AnswerGarbled(repr(error)[:200]) from error
    return status, headers, body.decode(errors="replace"), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0].strip(), 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
                pass
            return body
        if len(body) + size > MAX_ANSWER_BYTES:
            raise AnswerTooLarge(f"an answer of more than {MAX_ANSWER_BYTES} bytes")
        body += (await reader.readexactly(size + 2))[:-2]


class _Sender:
    """The process's push sender: an asyncio loop in a daemon thread, and the HTTP/1.1
    connections it keeps open to each push service (keep-alive), each on the address
    vetted when it was opened. The kept connections are by endpoint rule too (checked,
    or local with the check off), so that a connection opened for the local rule is
    never used for the other.

    A push is one request on a kept connection: its head made once per push service and
    batch, written with the body, and the answer read within its bounds (_read_answer).
    This is what aiohttp's client did for a push, at a fraction of its CPU per request
    (bench "notify"): no redirects, cookies, proxies, compression or URL rewriting to
    turn off, since a push needs none of them."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.idle: dict[tuple, list[_Connection]] = {}
        self.idle_count = 0
        self._slots: asyncio.Semaphore | None = None
        self._tls: ssl.SSLContext | None = None
        self.thread = threading.Thread(target=self.loop.run_forever, name="push-sender", daemon=True)
        self.thread.start()

    def submit(self, coroutine) -> Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    # On the loop's thread only, from here on.

    def slots(self) -> asyncio.Semaphore:
        """Requests under way at once, each on a connection of its own."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(MAX_CONNECTIONS)
        return self._slots

    def tls(self) -> ssl.SSLContext:
        """Certificates checked against the system's authorities, for the endpoint's name."""
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls

    def take(self, key: tuple) -> _Connection | None:
        """A kept connection to the push service of `key`, if one is open and usable."""
        kept = self.idle.get(key)
        now = time.monotonic()
        while kept:
            connection = kept.pop()
            self.idle_count -= 1
            if connection.usable(now):
                return connection
            connection.close()
        return None

    def keep(self, key: tuple, connection: _Connection) -> None:
        """Keep a connection for the next request; the oldest kept one is closed when
        MAX_CONNECTIONS are kept."""
        connection.idle_since = time.monotonic()
        self.idle.setdefault(key, []).append(connection)
        self.idle_count += 1
        if self.idle_count > MAX_CONNECTIONS:
            oldest = min((kept[0].idle_since, name) for name, kept in self.idle.items() if kept)[1]
            self.idle[oldest].pop(0).close()
            self.idle_count -= 1

    async def connect(self, push: _Push) -> _Connection:
        """A new connection for `push`: its host looked up once (VettedResolver: every
        address checked under the rule, or the host refused), then one of those very
        addresses connected to, with the name kept for TLS (SNI and the certificate)."""
        found = await VettedResolver(checked=push.checked).resolve(push.host, push.port)
        error: BaseException | None = None
        for address in found:
            try:
                reader, writer = await asyncio.open_connection(
                    address["host"],
                    address["port"],
                    family=address["family"],
                    ssl=self.tls() if push.tls else None,
                    server_hostname=push.host if push.tls else None,
                    limit=MAX_ANSWER_BYTES,
                )
            except OSError as failed:
                error = failed
                continue
            return _Connection(reader, writer)
        raise error or OSError(f"{push.host} has no address")

    async def _close(self) -> None:
        idle, self.idle, self.idle_count = self.idle, {}, 0
        for kept in idle.values():
            for connection in kept:
                connection.close()

    def close(self) -> None:
        """Close the kept connections (the loop keeps running)."""
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


@dataclass
class _Push:
    """A push the sender may post: checked, with its body and request head made."""

    host: str
    port: int
    tls: bool
    checked: bool
    subscription: dict  # as WebPusher takes it
    data: bytes
    head: bytes  # the request line and headers, without Content-Length

    @property
    def key(self) -> tuple:
        """Which kept connections may carry it: same rule, scheme, host and port."""
        return (self.checked, self.tls, self.host, self.port)


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
    if isinstance(error, OSError):  # TimeoutError and AnswerGarbled are OSErrors
        logger.info("push to %s failed: %r", host, error)
        return PushAnswer(RETRY, 0)
    logger.error("push to %s failed: %r", host, error, exc_info=error)
    return PushAnswer(RETRY, 0)


async def _post(sender: _Sender, push: _Push, body: bytes) -> PushAnswer:
    """Post one encrypted push (the request pywebpush's send_async makes: the body with
    its TTL, Content-Encoding and VAPID headers) on a kept connection to its push service
    or a new one, and read the answer within its bounds, all within PUSH_TIMEOUT. No
    redirect is followed (a push service does not redirect, and a redirect must not take
    a push elsewhere). The URL was checked by pushes_start; connect() checks the
    addresses of each new connection. A request is sent once: a kept connection the
    push service closed meanwhile is a retry later, not a second request now."""
    try:
        async with sender.slots(), asyncio.timeout(PUSH_TIMEOUT):
            connection = sender.take(push.key)
            if connection is None:
                async with asyncio.timeout(CONNECT_TIMEOUT):
                    connection = await sender.connect(push)
            try:
                connection.writer.write(b"%sContent-Length: %d\r\n\r\n%s" % (push.head, len(body), body))
                status, headers, text, keep = await _read_answer(connection.reader)
            except BaseException:
                connection.close()
                raise
            if keep:
                sender.keep(push.key, connection)
            else:
                connection.close()
        return _answer(push.host, status, headers.get("retry-after", ""), text)
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
    block = shared_headers.get(key) if shared_headers is not None else None
    if block is None:
        headers = dict(vapid_headers(private_key=private_key, audience=audience, subject=subject))
        headers["Urgency"] = urgency if urgency in URGENCIES else "normal"
        if topic:
            headers["Topic"] = topic
        headers["TTL"] = str(ttl)
        headers["Content-Encoding"] = "aes128gcm"
        headers["User-Agent"] = USER_AGENT
        lines = [f"{name}: {value}" for name, value in headers.items()]
        if any("\r" in line or "\n" in line or not line.isascii() for line in lines):
            logger.warning("push to %s refused: a header that cannot be sent", parts.hostname)
            return PushAnswer(REFUSED, 0)
        block = "".join(f"{line}\r\n" for line in lines).encode()
        if shared_headers is not None:
            shared_headers[key] = block
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not target.isascii() or " " in target:
        target = quote(target, safe="/?=&%:@!$'()*+,;~-._")
    host = parts.netloc.rpartition("@")[2]  # never a user or password (refused when checked)
    head = f"POST {target} HTTP/1.1\r\nHost: {host}\r\n".encode() + block
    tls = parts.scheme == "https"
    port = parts.port or (HTTPS_PORT if tls else 80)
    data = payload if isinstance(payload, bytes) else payload_bytes(payload)
    subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    return _Push(parts.hostname or "", port, tls, checked, subscription, data, head)


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
