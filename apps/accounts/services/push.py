"""Web push subscriptions (spec §7 POST /api/user.php?push=1).

A subscription's endpoint is a URL the server will POST to, so it is checked like any
address a member hands us: https only, no user or password in it, and a host whose every
address is a public one (after DNS resolution), never loopback, private, link-local or
otherwise reserved: the push sender must not become a way into the network. The keys
must be what a browser makes: a P-256 public key (65 bytes) and a 16-byte auth secret,
base64url-encoded."""

import base64
import binascii
import ipaddress
import socket
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.utils.translation import gettext as _

from apps.accounts.models import PushSubscription, User
from apps.common.exceptions import ApplicationError

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


def push_endpoint_public(endpoint: str) -> bool:
    """Whether `endpoint` is an https URL of a host whose every address is public."""
    if not isinstance(endpoint, str) or len(endpoint) > ENDPOINT_MAX_LENGTH or not endpoint.isprintable():
        return False
    try:
        parts = urlsplit(endpoint)
        port = parts.port or 443
    except ValueError:
        return False
    if parts.scheme != "https" or not parts.hostname or parts.username or parts.password:
        return False
    try:
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {ipaddress.ip_address(info[4][0].split("%")[0]) for info in found}
    return bool(addresses) and all(address.is_global for address in addresses)


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
