"""Web push subscriptions (spec §7 POST /api/user.php?push=1).

A subscription's endpoint is a URL the server will POST to, so it is checked like any
address a member hands us: https on port 443 (every browser's push service uses it), no
user or password in it, and a host whose every address is a public one (after DNS
resolution), never loopback, private, link-local, multicast or otherwise reserved: the
push sender must not become a way into the network. The sender applies the same rules
again to the addresses it connects to (apps.notifications.webpush), since a name may
resolve elsewhere by then. The keys must be what a browser makes: a P-256 public key
(65 bytes) and a 16-byte auth secret, base64url-encoded."""

import base64
import binascii
import socket

from cryptography.hazmat.primitives.asymmetric import ec
from django.utils.translation import gettext as _

from apps.accounts.models import PushSubscription, User
from apps.common.exceptions import ApplicationError

# The rule for any URL handed to us from outside (also partners' postback URLs).
from apps.common.outbound import HTTPS_PORT as PUSH_PORT
from apps.common.outbound import address_public, https_host

ENDPOINT_MAX_LENGTH = 1000
P256DH_BYTES = 65
AUTH_BYTES = 16


def _invalid() -> ApplicationError:
    return ApplicationError("invalid_subscription", _("This push subscription is not valid."))


def _key_bytes(value) -> bytes | None:
    if not isinstance(value, str) or not value or len(value) > 200:
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def push_endpoint_origin(endpoint) -> str | None:
    """The host of an endpoint the server may post to (https, port 443, no user or
    password, printable, at most ENDPOINT_MAX_LENGTH), or None. Says nothing about the
    host's addresses."""
    return https_host(endpoint, max_length=ENDPOINT_MAX_LENGTH)


def push_endpoint_public(endpoint: str) -> bool:
    """Whether `endpoint` is an https URL on port 443 of a host whose every address is
    public (resolved now)."""
    host = push_endpoint_origin(endpoint)
    if host is None:
        return False
    try:
        found = socket.getaddrinfo(host, PUSH_PORT, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(address_public(info[4][0]) for info in found)


def push_subscription_save(*, user: User, subscription: dict) -> PushSubscription:
    endpoint = subscription.get("endpoint")
    keys = subscription.get("keys")
    if not isinstance(keys, dict):
        raise _invalid()
    p256dh, auth = _key_bytes(keys.get("p256dh")), _key_bytes(keys.get("auth"))
    if p256dh is None or len(p256dh) != P256DH_BYTES or auth is None or len(auth) != AUTH_BYTES:
        raise _invalid()
    try:  # a point on the curve, or nothing could ever be encrypted for it
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
    except ValueError as error:
        raise _invalid() from error
    if not push_endpoint_public(endpoint):
        raise _invalid()
    item, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user": user, "p256dh": keys["p256dh"], "auth": keys["auth"]}
    )
    return item
