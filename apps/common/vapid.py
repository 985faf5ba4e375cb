"""VAPID keys (RFC 8292) for web push: making a pair, and the signed Authorization
header for a push service, cached per audience until shortly before it expires (one
ES256 signature per push service every few hours instead of one per push).

Key arithmetic only, knowing no app: a site's key check (tenants) and web push
delivery (notifications) both use it, so it stands below both."""

from __future__ import annotations

import base64
import threading
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

# A signed token is good for 12 hours (push services refuse more than 24); it is
# renewed an hour before it runs out.
TOKEN_LIFETIME = 12 * 60 * 60
TOKEN_RENEW_BEFORE = 60 * 60


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def vapid_keys_generate() -> tuple[str, str]:
    """A new (private, public) pair, base64url: the raw 32-byte private value and the
    65-byte uncompressed public point (the browser's applicationServerKey)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _b64(private), _b64(public)


def vapid_public_key_of(private_key: str) -> str:
    return _b64(
        Vapid02.from_raw(private_key.encode()).public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


_lock = threading.Lock()
_signers: dict[str, Vapid02] = {}
_tokens: dict[tuple[str, str, str], tuple[float, dict]] = {}


def vapid_headers(*, private_key: str, audience: str, subject: str) -> dict:
    """{"Authorization": "vapid t=<jwt>,k=<public key>"} for pushes to `audience` (the
    push service's origin), signed with `private_key` for `subject` (mailto: or https:)."""
    now = time.time()
    cache_key = (private_key, audience, subject)
    with _lock:
        cached = _tokens.get(cache_key)
        if cached and cached[0] - TOKEN_RENEW_BEFORE > now:
            return cached[1]
        signer = _signers.get(private_key)
        if signer is None:
            signer = _signers[private_key] = Vapid02.from_raw(private_key.encode())
    expires = int(now) + TOKEN_LIFETIME
    headers = signer.sign({"aud": audience, "sub": subject, "exp": expires})
    with _lock:
        _tokens[cache_key] = (expires, headers)
    return headers
