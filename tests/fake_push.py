"""A local fake Web Push service for tests: a real HTTP/1.1 server on the loopback
address that checks each push as Mozilla's or Google's push services do (RFC 8030 push
requests, RFC 8292 VAPID, RFC 8291/8188 `aes128gcm` encryption), decrypts it with the
fake browser subscription's keys and records it. Tests can script its answers (404,
410, 429 with Retry-After, 500...) to see how the sender handles them.

    with FakePushService() as service:
        subscription = service.subscription("alice")   # as PushSubscription.toJSON()
        webpush(subscription, json.dumps({...}), vapid_private_key=..., vapid_claims=...)
        [push] = service.wait_for(1)
        push.json, push.ttl, push.urgency, push.topic

What pywebpush 2.5 sends (py_vapid's `Vapid` is `Vapid02`): `authorization: vapid
t=<JWT>,k=<key>` (no space after the comma), `ttl`, `content-encoding: aes128gcm`, and
whatever extra headers it was given (`urgency`, `topic`), all names lower-cased. Given a
`Vapid01` object it sends the draft form `authorization: WebPush <JWT>` with
`crypto-key: p256ecdsa=<key>`; both are accepted.
"""

from __future__ import annotations

import base64
import binascii
import collections
import contextlib
import json
import re
import secrets
import socket
import struct
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

PUSH_PATH = "/push/"
MAX_BODY = 4096  # RFC 8030 §7.2: what every push service must take; larger is 413
MAX_JWT_LIFETIME = 24 * 60 * 60  # RFC 8292 §2: `exp` at most 24 hours ahead
URGENCIES = ("very-low", "low", "normal", "high")  # RFC 8030 §5.3
TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")  # RFC 8030 §5.4
B64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,100}")

Subscription = dict[str, Any]


def b64url(data: bytes) -> str:
    """Base64url without padding, as browsers and VAPID write keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict base64url (padding optional): any other character is a ValueError."""
    if not B64URL.fullmatch(text):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except binascii.Error as error:
        raise ValueError(str(error)) from error


@dataclass(frozen=True)
class Push:
    """A push the service accepted (answered 201), decrypted."""

    endpoint: str
    token: str
    ttl: int
    urgency: str | None
    topic: str | None
    payload: bytes
    json: object | None  # the payload parsed as JSON, None when it is not JSON
    vapid_sub: str
    vapid_key: str  # base64url of the sender's public key, as in `k=`
    received_at: float


@dataclass(frozen=True)
class PushRequest:
    """Any request the service answered, accepted or not."""

    method: str
    path: str
    endpoint: str
    token: str | None
    status: int
    headers: dict[str, str]  # names lower-cased
    body: bytes
    error: str | None  # why it was refused, None for a 2xx or a scripted answer
    received_at: float


@dataclass
class _Subscriber:
    """The browser's side of one subscription: the keys to decrypt with."""

    token: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    gone: bool = False
    script: collections.deque[tuple[int, int | None]] = field(default_factory=collections.deque)


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class _Vapid:
    sub: str
    key: str


class FakePushService:
    """A Web Push service on 127.0.0.1 with a random free port, plain http.

    `expected_vapid_key` (base64url public key, may be set later too): a push signed
    with another key is answered 403, as for a subscription made with another
    applicationServerKey. `max_body`: larger bodies are answered 413.
    """

    def __init__(self, expected_vapid_key: str | None = None, max_body: int = MAX_BODY) -> None:
        self.expected_vapid_key = expected_vapid_key
        self.max_body = max_body
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._subscribers: dict[str, _Subscriber] = {}
        self._pushes: list[Push] = []
        self._requests: list[PushRequest] = []
        self._connections: set[socket.socket] = set()
        self._connection_count = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.service = self
        self.port: int = self._server.server_address[1]
        self._stopped = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-push", daemon=True
        )
        self._thread.start()

    # --- Life cycle ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The origin of every endpoint: what the VAPID `aud` claim must be."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stops listening and closes every open (keep-alive) connection."""
        if self._stopped:
            return
        self._stopped = True
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=10)

    def __enter__(self) -> FakePushService:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- Subscriptions and scripted answers ---------------------------------------------

    def subscription(self, name: str | None = None) -> Subscription:
        """A new fake browser subscription, as `PushSubscription.toJSON()` gives it.

        `name` (letters, digits, `-`, `_`) becomes the endpoint's token, so
        `answer("alice", 410)` works; without it the token is random.
        """
        token = name if name is not None else secrets.token_urlsafe(24)
        if not TOKEN.fullmatch(token):
            raise ValueError(f"a subscription name is 1-100 of A-Z a-z 0-9 - _: {token!r}")
        private_key = ec.generate_private_key(ec.SECP256R1())
        auth = secrets.token_bytes(16)
        endpoint = f"{self.url}{PUSH_PATH}{token}"
        with self._lock:
            if token in self._subscribers:
                raise ValueError(f"there is a subscription {token!r} already")
            self._subscribers[token] = _Subscriber(token, endpoint, private_key, auth)
        public = private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}

    def answer(self, subscription: Subscription | str, *statuses: int, retry_after: int | None = None) -> None:
        """Queues the status codes of the next pushes to this subscription (its dict, its
        endpoint or its token), e.g. `answer(sub, 201, 404)` or `answer(sub, 429,
        retry_after=2)`. A scripted 201 is a normal acceptance; any other status is
        answered as it is (with `Retry-After` when given) and the push is not recorded.
        Requests that are invalid anyway get their 400/401/403 and leave the queue as it
        is. When the queue is empty, valid pushes get 201 again."""
        for status in statuses:
            if not 200 <= status <= 599:
                raise ValueError(f"not a status to answer: {status}")
        with self._lock:
            self._subscriber(subscription).script.extend((status, retry_after) for status in statuses)

    def unsubscribe(self, subscription: Subscription | str) -> None:
        """The browser dropped the subscription: every push to it is answered 410."""
        with self._lock:
            self._subscriber(subscription).gone = True

    def reset(self) -> None:
        """Forgets the pushes, the requests and the scripted answers (subscriptions stay)."""
        with self._lock:
            self._pushes.clear()
            self._requests.clear()
            for subscriber in self._subscribers.values():
                subscriber.script.clear()

    # --- What arrived -------------------------------------------------------------------

    @property
    def pushes(self) -> list[Push]:
        """The accepted pushes, in the order they arrived."""
        with self._lock:
            return list(self._pushes)

    @property
    def requests(self) -> list[PushRequest]:
        """Every request answered, accepted or refused, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def connections(self) -> int:
        """How many TCP connections were opened to the service (keep-alive reuses one)."""
        with self._lock:
            return self._connection_count

    def wait_for(self, count: int, timeout: float = 10, subscription: Subscription | str | None = None) -> list[Push]:
        """Waits until at least `count` pushes (to `subscription`, if given) were accepted
        and returns them all; fails the test after `timeout` seconds."""
        endpoint = None if subscription is None else self._endpoint_of(subscription)
        return self._wait(
            lambda: [push for push in self._pushes if endpoint is None or push.endpoint == endpoint],
            count,
            timeout,
            "pushes",
        )

    def wait_for_requests(self, count: int, timeout: float = 10) -> list[PushRequest]:
        """Waits until at least `count` requests were answered (refused ones too) and
        returns them all."""
        return self._wait(lambda: list(self._requests), count, timeout, "requests")

    def _wait(self, select: Callable[[], list], count: int, timeout: float, what: str) -> list:
        with self._changed:
            if not self._changed.wait_for(lambda: len(select()) >= count, timeout=timeout):
                answered = [(request.status, request.error) for request in self._requests[-5:]]
                raise AssertionError(
                    f"waited {timeout}s for {count} {what}: {len(self._pushes)} pushes accepted, "
                    f"{len(self._requests)} requests answered; the last answers: {answered}"
                )
            return select()

    # --- Internals ----------------------------------------------------------------------

    def _endpoint_of(self, subscription: Subscription | str) -> str:
        if isinstance(subscription, dict):
            return subscription["endpoint"]
        return subscription if "/" in subscription else f"{self.url}{PUSH_PATH}{subscription}"

    def _subscriber(self, subscription: Subscription | str) -> _Subscriber:
        token = self._endpoint_of(subscription).rsplit("/", 1)[-1]
        try:
            return self._subscribers[token]
        except KeyError:
            raise KeyError(f"no subscription {token!r} on this push service") from None

    def _track(self, sock: socket.socket, opened: bool) -> None:
        with self._lock:
            if opened:
                self._connections.add(sock)
                self._connection_count += 1
                if self._stopped:  # accepted while stopping
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
            else:
                self._connections.discard(sock)

    def _handle(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Answers one request: (status, response headers, response body)."""
        received_at = time.time()
        token = path[len(PUSH_PATH) :] if path.startswith(PUSH_PATH) else None
        with self._lock:
            subscriber = self._subscribers.get(token) if token else None
        endpoint = f"{self.url}{path}"
        push: Push | None = None
        extra: dict[str, str] = {}
        error: str | None = None
        try:
            if subscriber is None:
                raise _Refused(404, "no such subscription")
            if method != "POST":
                raise _Refused(405, "a push is a POST")
            if subscriber.gone:
                raise _Refused(410, "the subscription has expired or was unsubscribed")
            push = self._check(subscriber, headers, body, received_at)
            with self._lock:
                status, retry_after = subscriber.script.popleft() if subscriber.script else (201, None)
            if retry_after is not None:
                extra["Retry-After"] = str(retry_after)
        except _Refused as refused:
            status, error = refused.status, refused.message
            extra.update({"Allow": "POST"} if status == 405 else {})
        if status == 201 and push is not None:
            extra.update({"Location": f"{self.url}/message/{uuid.uuid4().hex}", "TTL": str(push.ttl)})
            answer = b""
        else:
            push = None
            try:
                reason = HTTPStatus(status).phrase
            except ValueError:
                reason = "Unknown"
            message = error or "scripted answer"
            answer = json.dumps({"code": status, "error": reason, "message": message}).encode()
            extra["Content-Type"] = "application/json"
        with self._changed:
            self._requests.append(PushRequest(method, path, endpoint, token, status, headers, body, error, received_at))
            if push is not None:
                self._pushes.append(push)
            self._changed.notify_all()
        return status, extra, answer

    def _check(self, subscriber: _Subscriber, headers: dict[str, str], body: bytes, received_at: float) -> Push:
        """The push service's checks, in the order real ones make them."""
        vapid = self._check_vapid(headers, received_at)
        ttl_header = headers.get("ttl")
        if ttl_header is None:
            raise _Refused(400, "the TTL header is missing")
        if not ttl_header.strip().isdigit():
            raise _Refused(400, f"TTL is not a number of seconds: {ttl_header!r}")
        urgency = headers.get("urgency")
        if urgency is not None and urgency not in URGENCIES:
            raise _Refused(400, f"Urgency is not one of {', '.join(URGENCIES)}: {urgency!r}")
        topic = headers.get("topic")
        if topic is not None and not TOPIC.fullmatch(topic):
            raise _Refused(400, f"Topic is not 1-32 characters of the base64url alphabet: {topic!r}")
        if len(body) > self.max_body:
            raise _Refused(413, f"the body has {len(body)} bytes, more than {self.max_body}")
        payload = b""
        if body:
            encoding = headers.get("content-encoding")
            if encoding != "aes128gcm":
                raise _Refused(400, f"Content-Encoding must be aes128gcm, not {encoding!r}")
            try:
                payload = http_ece.decrypt(
                    body, private_key=subscriber.private_key, auth_secret=subscriber.auth, version="aes128gcm"
                )
            except (http_ece.ECEException, InvalidTag, ValueError, TypeError, IndexError, struct.error) as error:
                raise _Refused(400, f"the body does not decrypt: {error!r}") from error
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:
            parsed = None
        return Push(
            endpoint=subscriber.endpoint,
            token=subscriber.token,
            ttl=int(ttl_header),
            urgency=urgency,
            topic=topic,
            payload=payload,
            json=parsed,
            vapid_sub=vapid.sub,
            vapid_key=vapid.key,
            received_at=received_at,
        )

    def _check_vapid(self, headers: dict[str, str], now: float) -> _Vapid:
        """RFC 8292: `vapid t=<JWT>, k=<key>`, or the draft `WebPush <JWT>` with
        `Crypto-Key: p256ecdsa=<key>`. 401 for anything wrong, 403 for a valid token
        signed with another key than the expected one."""
        authorization = headers.get("authorization")
        if not authorization:
            raise _Refused(401, "no VAPID Authorization header")
        scheme, _, rest = authorization.strip().partition(" ")
        if scheme.lower() == "vapid":
            params = _params(rest, ",")
            token, key = params.get("t"), params.get("k")
        elif scheme.lower() == "webpush":
            token = rest.strip()
            key = _params(headers.get("crypto-key", ""), ";,").get("p256ecdsa")
        else:
            raise _Refused(401, f"unknown authorization scheme {scheme!r}")
        if not token or not key:
            raise _Refused(401, "the VAPID token or key is missing")
        claims = _verify_jwt(token, key)
        if claims.get("aud") != self.url:
            raise _Refused(401, f"the JWT's aud is {claims.get('aud')!r}, not {self.url!r}")
        exp = claims.get("exp")
        if not isinstance(exp, int) or isinstance(exp, bool):
            raise _Refused(401, "the JWT has no exp")
        if exp <= now:
            raise _Refused(401, f"the JWT expired {now - exp:.0f}s ago")
        if exp > now + MAX_JWT_LIFETIME:
            raise _Refused(401, f"the JWT's exp is {exp - now:.0f}s away, more than 24 hours")
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub.startswith(("mailto:", "https:")):
            raise _Refused(401, f"the JWT's sub is not a mailto: or https: URL: {sub!r}")
        key = b64url(b64url_decode(key))
        expected = self.expected_vapid_key
        if expected is not None and b64url_decode(expected) != b64url_decode(key):
            raise _Refused(403, "the push was signed with another VAPID key than the subscription's")
        return _Vapid(sub=sub, key=key)


def _params(text: str, separators: str) -> dict[str, str]:
    """`a=1, b=2` (or `;`-separated) as a dict."""
    found = {}
    for part in re.split(f"[{re.escape(separators)}]", text):
        name, equals, value = part.strip().partition("=")
        if equals:
            found[name.strip().lower()] = value.strip().strip('"')
    return found


def _verify_jwt(token: str, key: str) -> dict:
    """An ES256 JWT signed by the P-256 key `key`: its claims, or 401."""
    try:
        header_b64, claims_b64, signature_b64 = token.split(".")
        header = json.loads(b64url_decode(header_b64))
        raw_key = b64url_decode(key)
        signature = b64url_decode(signature_b64)
        if len(raw_key) != 65 or raw_key[0] != 4:
            raise ValueError("the key is not an uncompressed P-256 point")
        public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw_key)
    except ValueError as error:
        raise _Refused(401, f"malformed VAPID token or key: {error}") from error
    if not isinstance(header, dict) or header.get("alg") != "ES256":
        raise _Refused(401, f"the JWT is not ES256: {header!r}")
    if len(signature) != 64:
        raise _Refused(401, "the JWT signature is not 64 bytes (r || s)")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{header_b64}.{claims_b64}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise _Refused(401, "the JWT signature does not verify with the key k") from None
    try:
        claims = json.loads(b64url_decode(claims_b64))
    except ValueError as error:
        raise _Refused(401, f"the JWT claims are not JSON: {error}") from error
    if not isinstance(claims, dict):
        raise _Refused(401, "the JWT claims are not an object")
    return claims


# --- The HTTP server ------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    service: FakePushService

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (or the service stopping) is no error worth a traceback."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # headers and body in separate writes: no 40 ms stalls
    timeout = 60  # an idle keep-alive connection is closed after this
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.service._track(self.connection, opened=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.service._track(self.connection, opened=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes | None:
        """The request body (Content-Length or chunked); None when it is unreadable."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size_line = self.rfile.readline(1024)
                try:
                    size = int(size_line.split(b";")[0], 16)
                except ValueError:
                    return None
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline(1024)
                if sum(map(len, chunks)) > 1 << 20:
                    return None
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > 1 << 20:
            return None
        return self.rfile.read(int(length))

    def _serve(self) -> None:
        body = self._body()
        if body is None:
            self.close_connection = True
            status, headers, answer = 413, {}, b""
        else:
            request_headers = {name.lower(): value for name, value in self.headers.items()}
            status, headers, answer = self.server.service._handle(self.command, self.path, request_headers, body)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _serve
