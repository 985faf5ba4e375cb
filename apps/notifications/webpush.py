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
for their answers on kept connections (pywebpush encrypts on that loop); an answer is
parsed as it arrives and the next push to the same push service is posted from there,
with no task woken per push (_Run). With PUSH_ENDPOINT_CHECK off (the tests' and the bench's local
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
from apps.common.outbound import HTTPS_PORT, VettedResolver, refused_by_us, url_refusal, url_split_refusal
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
EXPIRY_TICK = 0.5  # how often the requests' deadlines are checked (a push ends by PUSH_TIMEOUT + this)
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


class _Connection(asyncio.Protocol):
    """A kept HTTP/1.1 connection to one push service, on the address vetted when it was
    opened: one request at a time, its answer parsed from what has arrived each time
    something arrives (_parse_answer) and handed to the request's callback, with no task
    woken per answer."""

    __slots__ = ("buffer", "closed", "deadline", "done", "eof", "idle_since", "transport")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.closed = self.eof = False
        self.idle_since = self.deadline = 0.0
        self.done = None  # the waiting request's callback: done(answer or error)

    def open(self) -> bool:
        """Whether it may carry a request: neither end closed it, and nothing came that
        nobody asked for."""
        return not (self.closed or self.eof or self.buffer or self.transport is None or self.transport.is_closing())

    def usable(self, now: float) -> bool:
        """Whether a kept connection may carry a request: open, and not idle too long."""
        return self.open() and now - self.idle_since < KEEPALIVE_SECONDS

    def request(self, data: bytes, deadline: float, done) -> None:
        """Send one request; `done` gets its answer (_parse_answer's) or the error."""
        self.deadline, self.done = deadline, done
        self.transport.write(data)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def fail(self, error: BaseException) -> None:
        """End the waiting request with `error`; the connection is not used again."""
        self.close()
        done, self.done = self.done, None
        if done is not None:
            done(error)

    def _settle(self) -> None:
        try:
            answer = _parse_answer(self.buffer, self.eof)
        except OSError as error:
            self.fail(error)
            return
        if answer is not None:
            self.buffer = self.buffer[answer[0] :]
            done, self.done = self.done, None
            done(answer)

    # asyncio.Protocol

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.done is not None:
            self._settle()
        elif len(self.buffer) > MAX_ANSWER_BYTES:  # answers to nothing asked
            self.close()

    def eof_received(self) -> None:
        self.eof = True
        if self.done is not None:
            self._settle()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = self.eof = True
        if self.done is not None:
            self._settle()
        if self.done is not None:  # the connection ended inside the answer
            self.fail(AnswerGarbled(f"the connection ended inside an answer: {exc!r}"[:200]))


def _parse_answer(data: bytes, eof: bool) -> tuple[int, int, dict[str, str], str, bool] | None:
    """(bytes it took, status, headers with lower-case names, body as text for the log,
    whether the connection may carry the next request) of the HTTP/1.x answer at the
    start of `data`, or None while it is incomplete (`eof`: nothing more will come). Its
    head and its body are each at most MAX_ANSWER_BYTES; an interim 1xx answer is
    skipped."""
    start = 0
    while True:
        end = data.find(b"\r\n\r\n", start)
        if end < 0:
            if eof or len(data) - start > MAX_ANSWER_BYTES:
                raise AnswerGarbled("no complete answer head")
            return None
        if end - start > MAX_ANSWER_BYTES:
            raise AnswerGarbled("an answer head longer than any push service's")
        lines = data[start:end].decode("latin-1").split("\r\n")
        start = end + 4
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
        chunked = _parse_chunked(data, start, eof)
        if chunked is None:
            return None
        body, start = chunked
    elif "content-length" in headers:
        length = headers["content-length"]
        if not length.isdigit():
            raise AnswerGarbled(f"Content-Length {length[:40]!r}")
        if int(length) > MAX_ANSWER_BYTES:
            raise AnswerTooLarge(f"an answer of {length} bytes")
        if len(data) - start < int(length):
            if eof:
                raise AnswerGarbled("the connection ended inside an answer's body")
            return None
        body, start = data[start : start + int(length)], start + int(length)
    elif status in (204, 304):
        body = b""
    else:  # up to the connection's end
        if len(data) - start > MAX_ANSWER_BYTES:
            raise AnswerTooLarge(f"an answer of more than {MAX_ANSWER_BYTES} bytes")
        if not eof:
            return None
        body, start, keep = data[start:], len(data), False
    return start, status, headers, body.decode(errors="replace"), keep


def _parse_chunked(data: bytes, start: int, eof: bool) -> tuple[bytes, int] | None:
    """(body, where it ends) of a chunked body at `start`, or None while incomplete."""
    body = b""
    while True:
        end = data.find(b"\r\n", start)
        if end < 0:
            if eof or len(data) - start > MAX_ANSWER_BYTES:
                raise AnswerGarbled("a chunk's size line is incomplete")
            return None
        try:
            size = int(data[start:end].split(b";", 1)[0].strip(), 16)
        except ValueError as error:
            raise AnswerGarbled(repr(error)[:200]) from error
        start = end + 2
        if size == 0:
            while True:  # trailers, if any, up to an empty line
                end = data.find(b"\r\n", start)
                if end < 0:
                    if eof or len(data) - start > MAX_ANSWER_BYTES:
                        raise AnswerGarbled("the trailers are incomplete")
                    return None
                line, start = data[start:end], end + 2
                if not line:
                    return body, start
        if size < 0 or len(body) + size > MAX_ANSWER_BYTES:
            raise AnswerTooLarge(f"an answer of more than {MAX_ANSWER_BYTES} bytes")
        if len(data) - start < size + 2:
            if eof:
                raise AnswerGarbled("the connection ended inside a chunk")
            return None
        body += data[start : start + size]
        start += size + 2


class _Sender:
    """The process's push sender: an asyncio loop in a daemon thread, and the HTTP/1.1
    connections it keeps open to each push service (keep-alive), each on the address
    vetted when it was opened. The kept connections are by endpoint rule too (checked,
    or local with the check off), so that a connection opened for the local rule is
    never used for the other.

    A push is one request on a kept connection: its head made once per push service and
    batch, written with the body, and the answer read within its bounds (_parse_answer).
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
        self.waiting: set[_Connection] = set()  # connections with a request waiting for its answer
        self._expiry: asyncio.TimerHandle | None = None
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
        now = self.loop.time()
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
        connection.idle_since = self.loop.time()
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
                _transport, connection = await self.loop.create_connection(
                    _Connection,
                    address["host"],
                    address["port"],
                    family=address["family"],
                    ssl=self.tls() if push.tls else None,
                    server_hostname=push.host if push.tls else None,
                )
            except OSError as failed:
                error = failed
                continue
            return connection
        raise error or OSError(f"{push.host} has no address")

    def watch(self, connection: _Connection) -> None:
        """Hold the waiting request of `connection` to its deadline: one timer for all the
        connections, not one per push."""
        self.waiting.add(connection)
        if self._expiry is None:
            self._expiry = self.loop.call_later(EXPIRY_TICK, self._expire)

    def _expire(self) -> None:
        self._expiry = None
        now = self.loop.time()
        for connection in list(self.waiting):
            if connection.done is None:
                self.waiting.discard(connection)
            elif connection.deadline <= now:
                self.waiting.discard(connection)
                connection.fail(TimeoutError(f"no answer within {PUSH_TIMEOUT} s"))
        if self.waiting:
            self._expiry = self.loop.call_later(EXPIRY_TICK, self._expire)

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


class _Run:
    """A batch on the sender's loop: `in_flight` lanes, each a slot (a request under way)
    with the connection it holds, take the batch's pushes in turn.

    pywebpush's WebPusher encrypts each push (a fresh ECDH key and salt per push, RFC
    8291) on this loop, `in_flight` of them in one go whenever no encrypted push is left
    to post, so encrypting alternates with whole rounds of answers arriving rather than
    with each one (measured: about a third less CPU per push than encrypting each push
    just before its request).

    A push is sent from the answer of the lane's last one, in the connection's callback,
    when it goes to the same push service on a connection that may carry it; a push that
    needs a connection (the lane's first, another push service, a connection the push
    service closed or said it would close) goes back to the lane's task, which takes a
    kept connection or opens one. Each push is answered within PUSH_TIMEOUT of its turn
    (one timer of the sender checks the deadlines, _Sender.watch). No redirect is
    followed (a push service does not redirect, and a redirect must not take a push
    elsewhere). The URLs were checked by pushes_start; connect() checks the addresses of
    each new connection. A request is sent once: a kept connection the push service
    closed meanwhile is a retry later, not a second request now."""

    def __init__(self, sender: _Sender, pushes: list[_Push], in_flight: int) -> None:
        self.sender, self.pushes, self.in_flight = sender, pushes, in_flight
        self.answers: list[PushAnswer | None] = [None] * len(pushes)
        self.ready: collections.deque[tuple[int, bytes]] = collections.deque()
        self.encrypted = 0

    def next(self) -> tuple[int, bytes] | None:
        """The next encrypted push (index, body), or None when every push is taken."""
        while not self.ready:
            if self.encrypted >= len(self.pushes):
                return None
            end = min(len(self.pushes), self.encrypted + self.in_flight)
            for index in range(self.encrypted, end):
                push = self.pushes[index]
                try:
                    self.ready.append((index, WebPusher(push.subscription).encode(push.data, "aes128gcm")["body"]))
                except Exception as error:  # noqa: BLE001 - keys that cannot be encrypted for
                    self.answers[index] = _failure(push.host, error)
            self.encrypted = end
        return self.ready.popleft()

    async def lane(self) -> None:
        """One slot's share of the batch: the pushes that need a connection are posted
        here, the others from their predecessor's answer (_Lane.answered)."""
        sender = self.sender
        async with sender.slots():
            lane = _Lane(self)
            try:
                item = self.next()
                while item is not None:
                    index, body = item
                    push = self.pushes[index]
                    deadline = sender.loop.time() + PUSH_TIMEOUT
                    try:
                        connection = sender.take(push.key)
                        if connection is None:
                            async with asyncio.timeout(min(CONNECT_TIMEOUT, PUSH_TIMEOUT)):
                                connection = await sender.connect(push)
                    except Exception as error:  # noqa: BLE001 - every failure is an answer for its device
                        self.answers[index] = _failure(push.host, error)
                        item = self.next()
                        continue
                    lane.connection, lane.key = connection, push.key
                    lane.waiter = sender.loop.create_future()
                    lane.post(index, body, deadline)
                    item = await lane.waiter
            finally:
                if lane.connection is not None:  # cancelled while a request was waiting
                    lane.connection.done = None
                    lane.connection.close()


class _Lane:
    """A lane of a _Run: its connection and the push waiting on it."""

    __slots__ = ("connection", "index", "key", "run", "waiter")

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.connection: _Connection | None = None
        self.key: tuple = ()
        self.index = -1
        self.waiter: asyncio.Future | None = None

    def post(self, index: int, body: bytes, deadline: float) -> None:
        push = self.run.pushes[index]
        self.index = index
        self.connection.request(
            b"%sContent-Length: %d\r\n\r\n%s" % (push.head, len(body), body), deadline, self.answered
        )
        self.run.sender.watch(self.connection)

    def answered(self, answer) -> None:
        """The connection's callback: the answer (or the error) of the push posted."""
        if self.waiter is None or self.waiter.done():  # the batch was cancelled
            return
        try:
            self._answered(answer)
        except BaseException as error:  # noqa: BLE001 - the batch fails as a whole rather than hang
            if self.connection is not None:
                self.connection.close()
                self.connection = None
            if not self.waiter.done():
                self.waiter.set_exception(error)

    def _answered(self, answer) -> None:
        run, connection = self.run, self.connection
        push = run.pushes[self.index]
        if isinstance(answer, BaseException):
            run.answers[self.index] = _failure(push.host, answer)
            keep = False
        else:
            _taken, status, headers, text, keep = answer
            run.answers[self.index] = _answer(push.host, status, headers.get("retry-after", ""), text)
            keep = keep and connection.open()
        item = run.next()
        if item is not None and keep and run.pushes[item[0]].key == self.key:
            self.post(item[0], item[1], run.sender.loop.time() + PUSH_TIMEOUT)
            return
        self.connection = None
        if keep:
            run.sender.keep(self.key, connection)
        else:
            connection.close()
        self.waiter.set_result(item)


async def _post_all(sender: _Sender, pushes: list[_Push], in_flight: int) -> list[PushAnswer]:
    """Send a batch with `in_flight` requests at a time (_Run); the answers in its order."""
    run = _Run(sender, pushes, in_flight)
    await asyncio.gather(*(run.lane() for _ in range(max(1, min(in_flight, len(pushes))))))
    return run.answers  # type: ignore[return-value] - every index is answered


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
    checked: bool,
    shared_headers: dict | None = None,
) -> _Push | PushAnswer:
    """The push for a subscription, or REFUSED when its endpoint is not one the sender
    posts to. `shared_headers`: a batch's headers made so far, by push service and
    what else they say (the same dict for each push of a batch that shares them; nobody
    changes it). `checked`: PUSH_ENDPOINT_CHECK, read once per batch."""
    split, reason = url_split_refusal(endpoint, checked=checked, max_length=ENDPOINT_MAX_LENGTH)
    if split is None:
        logger.warning("push endpoint %s refused: %s", _hostname(endpoint), reason)
        return PushAnswer(REFUSED, 0)
    parts, hostname = split.parts, split.host
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
            logger.warning("push to %s refused: a header that cannot be sent", hostname)
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
    port = split.port or (HTTPS_PORT if tls else 80)
    data = payload if isinstance(payload, bytes) else payload_bytes(payload)
    subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    return _Push(hostname, port, tls, checked, subscription, data, head)


def _hostname(endpoint: str) -> str | None:
    """The host of an endpoint refused, for the log (never the whole URL: it is the
    device's address)."""
    try:
        return urlsplit(endpoint).hostname
    except ValueError:
        return None


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
    checked = settings.PUSH_ENDPOINT_CHECK
    for index, request in enumerate(requests):
        push = _push_make(**request, shared_headers=shared_headers, checked=checked)
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
