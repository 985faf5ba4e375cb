"""Sending one web push (RFC 8030/8291/8292), and what the push service's answer means
for the subscription. pywebpush's parts do the cryptography (http_ece encrypts,
py_vapid signs, apps.notifications.vapid); the request itself is the one
pywebpush's send() makes, on a lighter client (apps.notifications.pushhttp).

- 201 (or 200/202): delivered to the push service.
- 404, 410: the subscription is gone; it is deleted at once.
- 429 and 5xx (and a network error): try again later, not before Retry-After.
- 401, 403 (and other 4xx): our keys or request are wrong; the subscription is kept and
  the answer logged, a retry would not help.

The endpoint is checked again before each push (a host's addresses may have changed
since the member subscribed): only public addresses, remembered per host for a while."""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings

from apps.accounts.services.push import push_endpoint_public
from apps.notifications import pushhttp
from apps.notifications.vapid import vapid_headers

logger = logging.getLogger(__name__)

DELIVERED, GONE, RETRY, REFUSED = "delivered", "gone", "retry", "refused"
PUSH_TIMEOUT = 10
URGENCIES = ("very-low", "low", "normal", "high")
_HOST_CHECK_SECONDS = 300


@dataclass
class PushAnswer:
    outcome: str  # DELIVERED, GONE, RETRY or REFUSED
    status: int  # the push service's HTTP status, 0 for no answer
    retry_after: int = 0  # seconds the push service asked us to wait


_hosts_lock = threading.Lock()
_hosts: dict[str, tuple[float, bool]] = {}


def endpoint_allowed(endpoint: str) -> bool:
    if not settings.PUSH_ENDPOINT_CHECK:
        return True
    host = urlsplit(endpoint).hostname or ""
    now = time.monotonic()
    with _hosts_lock:
        cached = _hosts.get(host)
    if cached and cached[0] > now:
        return cached[1] and endpoint.startswith("https://")
    allowed = push_endpoint_public(endpoint)
    with _hosts_lock:
        _hosts[host] = (now + _HOST_CHECK_SECONDS, allowed)
    return allowed


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


def _key(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def encrypt(data: bytes, *, p256dh: str, auth: str) -> bytes:
    """The push's body (RFC 8291, aes128gcm): what pywebpush's WebPusher.encode does,
    with http_ece and a fresh ECDH key per push, without its per-call copy of the
    subscription and an unused encoding of the key (a fan-out encrypts once per device:
    bench/bench_notify.py)."""
    server_key = ec.generate_private_key(ec.SECP256R1())
    return http_ece.encrypt(
        data, salt=None, private_key=server_key, dh=_key(p256dh), auth_secret=_key(auth), version="aes128gcm"
    )


def payload_bytes(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class PushPending:
    """A push on its way: its request is sent, the answer is read by `push_result`."""

    host: str
    request: pushhttp.Pending | None = None
    answer: PushAnswer | None = None  # settled before sending (a refused endpoint)


def push_start(
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
) -> PushPending:
    """Encrypt `payload` (a dict, or its JSON as bytes) for the subscription and send it
    to its push service; the answer comes with push_result()."""
    parts = urlsplit(endpoint)
    if not endpoint_allowed(endpoint):
        logger.warning("push endpoint %s refused: not a public https address", parts.hostname)
        return PushPending(parts.hostname or "", answer=PushAnswer(REFUSED, 0))
    headers = dict(vapid_headers(private_key=private_key, audience=f"{parts.scheme}://{parts.netloc}", subject=subject))
    headers["Urgency"] = urgency if urgency in URGENCIES else "normal"
    if topic:
        headers["Topic"] = topic
    data = payload if isinstance(payload, bytes) else payload_bytes(payload)
    headers["TTL"] = str(ttl)
    headers["Content-Encoding"] = "aes128gcm"
    try:
        request = pushhttp.start(
            endpoint, data=encrypt(data, p256dh=p256dh, auth=auth), headers=headers, timeout=PUSH_TIMEOUT
        )
    except OSError as error:
        logger.info("push to %s failed: %s", parts.hostname, error)
        return PushPending(parts.hostname or "", answer=PushAnswer(RETRY, 0))
    return PushPending(parts.hostname or "", request=request)


def push_result(pending: PushPending) -> PushAnswer:
    """What the push service answered, and what it means for the subscription."""
    if pending.answer is not None:
        return pending.answer
    try:
        response = pending.request.result()
    except OSError as error:  # no connection, no answer (pushhttp.PushHTTPError)
        logger.info("push to %s failed: %s", pending.host, error)
        return PushAnswer(RETRY, 0)
    status = response.status_code
    if status in (200, 201, 202):
        return PushAnswer(DELIVERED, status)
    if status in (404, 410):
        return PushAnswer(GONE, status)
    if status == 429 or status >= 500:
        return PushAnswer(RETRY, status, retry_after_seconds(response.headers.get("retry-after")))
    logger.warning("push to %s refused with %s: %s", pending.host, status, response.text[:200])
    return PushAnswer(REFUSED, status)


def push_send(**request) -> PushAnswer:
    """Send one push and wait for the answer (push_start + push_result)."""
    return push_result(push_start(**request))
