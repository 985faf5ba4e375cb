"""Push subscriptions (spec §7 POST /api/user.php?push=1): the endpoint is a URL the server
will POST to, so only https URLs of public hosts are taken; the keys must be a browser's
(a P-256 point and a 16-byte secret). Port 443 only. Anything else is a clear 400, never a 500."""

import base64
import os

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from apps.accounts.models import PushSubscription
from apps.chat.tests.helpers import member
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site

pytestmark = pytest.mark.django_db


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def subscription_of(endpoint: str) -> dict:
    """What a browser's PushSubscription.toJSON() gives, with real keys."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"endpoint": endpoint, "keys": {"p256dh": _b64(point), "auth": _b64(os.urandom(16))}}


def _post(client, subscription):
    return client.post("/api/user.php?push=1", {"subscription": subscription}, content_type="application/json")


def test_a_public_https_endpoint_with_a_browsers_keys_is_stored(site, client_for):
    anna = member(site, "Anna")
    client = logged_in(site, client_for, anna)
    assert _post(client, subscription_of("https://93.184.216.34/push/v2/abc")).status_code == 200
    with on_site(site):
        assert PushSubscription.objects.filter(user=anna.user).count() == 1


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://93.184.216.34/push",
        "https://127.0.0.1/push",
        "https://localhost/push",
        "https://localhost:8443/push",
        "https://93.184.216.34:8443/push",  # push services listen on 443 only
        "https://10.1.2.3/push",
        "https://192.168.1.1/push",
        "https://172.16.0.5/push",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/push",
        "https://[fe80::1]/push",
        "https://[::ffff:127.0.0.1]/push",
        "https://0.0.0.0/push",
        "https://user:password@93.184.216.34/push",
        "https://no-such-host.invalid/push",
        "https://93.184.216.34:99999/push",
        "https:///push",
        "ftp://93.184.216.34/push",
        "https://93.184.216.34/" + "a" * 1000,
    ],
)
def test_a_private_address_endpoint_is_refused(site, client_for, endpoint):
    client = logged_in(site, client_for, member(site, "Anna"))
    response = _post(client, subscription_of(endpoint))
    assert response.status_code == 400, endpoint
    assert response.json()["error"] == {
        "code": "invalid_subscription",
        "message": "This push subscription is not valid.",
    }


@pytest.mark.parametrize(
    "change",
    [
        {"keys": "not an object"},
        {"keys": ["p256dh", "auth"]},
        {"keys": {}},
        {"keys": {"p256dh": "key", "auth": "secret"}},
        {"keys": {"p256dh": _b64(b"\x04" + b"\x01" * 64), "auth": _b64(b"a" * 16)}},  # not on the curve
        {"keys": {"p256dh": 12345, "auth": None}},
        {"endpoint": 42},
        {"endpoint": None},
        {"endpoint": "https://93.184.216.34/\x00"},  # refused by the JSON parser
    ],
)
def test_a_malformed_subscription_body_is_refused(site, client_for, change):
    client = logged_in(site, client_for, member(site, "Anna"))
    body = {**subscription_of("https://93.184.216.34/push"), **change}
    response = _post(client, body)
    assert response.status_code == 400, change
    assert response.json()["error"]["code"] in ("invalid_subscription", "invalid", "parse_error")
    assert response.json()["error"]["message"]
