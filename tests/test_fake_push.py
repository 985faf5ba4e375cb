"""The fake push service (tests/fake_push.py) against the real pywebpush: what it sends
arrives decrypted, what a push service refuses is refused with the status real ones
answer, and scripted answers reach pywebpush as WebPushException."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid, Vapid01
from pywebpush import WebPusher, WebPushException, webpush, webpush_async

from tests.fake_push import FakePushService, b64url

SUB = "mailto:push@example.com"


class Sender:
    """A site's VAPID key pair and the forms pywebpush takes the private key in."""

    def __init__(self) -> None:
        self.vapid = Vapid()
        self.vapid.generate_keys()
        self.public = b64url(
            self.vapid.public_key.public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )
        # 32 bytes, base64url: the form a settings field holds (`push_private_key`).
        self.raw = b64url(self.vapid.private_key.private_numbers().private_value.to_bytes(32, "big"))
        self.der = b64url(
            self.vapid.private_key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )

    def send(self, subscription: dict, data: str | None = "hello", **kwargs):
        """webpush() as the sender calls it; a fresh claims dict each time, since
        pywebpush writes `aud` and `exp` into the one it is given."""
        kwargs.setdefault("vapid_private_key", self.raw)
        kwargs.setdefault("vapid_claims", {"sub": SUB})
        kwargs.setdefault("timeout", 10)
        return webpush(subscription, data, **kwargs)

    def headers(self, service: FakePushService, **claims) -> dict[str, str]:
        """VAPID headers signed by hand, with any claims (an expired `exp`...)."""
        return self.vapid.sign({"sub": SUB, "aud": service.url, "exp": int(time.time()) + 3600, **claims})


@pytest.fixture
def sender() -> Sender:
    return Sender()


def refused(call) -> WebPushException:
    with pytest.raises(WebPushException) as caught:
        call()
    return caught.value


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- Subscriptions and accepted pushes ---------------------------------------------------


def test_a_subscription_is_what_a_browser_gives(fake_push):
    subscription = fake_push.subscription()
    assert set(subscription) == {"endpoint", "expirationTime", "keys"}
    assert subscription["expirationTime"] is None
    assert subscription["endpoint"].startswith(f"{fake_push.url}/push/")
    assert fake_push.url.startswith("http://127.0.0.1:")
    p256dh, auth = subscription["keys"]["p256dh"], subscription["keys"]["auth"]
    assert "=" not in p256dh + auth
    assert len(b64decode(p256dh)) == 65 and b64decode(p256dh)[0] == 4
    assert len(b64decode(auth)) == 16
    named = fake_push.subscription("alice")
    assert named["endpoint"] == f"{fake_push.url}/push/alice"
    assert named["keys"] != subscription["keys"]
    with pytest.raises(ValueError):
        fake_push.subscription("alice")
    with pytest.raises(ValueError):
        fake_push.subscription("a/b")


def test_a_push_arrives_decrypted_with_its_headers(fake_push, sender):
    subscription = fake_push.subscription("bob")
    message = {"title": "New message", "body": "Hi Bob 👋", "url": "/chat/7/"}
    response = sender.send(subscription, json.dumps(message), ttl=3600, headers={"Urgency": "high", "Topic": "chat-7"})
    assert response.status_code == 201
    assert response.headers["Location"].startswith(f"{fake_push.url}/message/")

    [push] = fake_push.wait_for(1)
    assert push.json == message
    assert push.payload == json.dumps(message).encode()
    assert (push.endpoint, push.token) == (subscription["endpoint"], "bob")
    assert (push.ttl, push.urgency, push.topic) == (3600, "high", "chat-7")
    assert (push.vapid_sub, push.vapid_key) == (SUB, sender.public)

    # What pywebpush 2.5 puts on the wire: the RFC 8292 scheme (py_vapid's Vapid is
    # Vapid02), no Crypto-Key, header names lower-cased by its CaseInsensitiveDict.
    [request] = fake_push.requests
    assert request.status == 201 and request.error is None
    assert request.headers["authorization"].startswith("vapid t=ey")
    assert f",k={sender.public}" in request.headers["authorization"]
    assert "crypto-key" not in request.headers
    assert request.headers["content-encoding"] == "aes128gcm"
    assert request.headers["ttl"] == "3600"
    assert (request.headers["urgency"], request.headers["topic"]) == ("high", "chat-7")


def test_without_options_the_ttl_is_0_and_no_urgency_or_topic(fake_push, sender):
    subscription = fake_push.subscription()
    sender.send(subscription, "not json")
    [push] = fake_push.wait_for(1)
    assert (push.ttl, push.urgency, push.topic) == (0, None, None)
    assert (push.payload, push.json) == (b"not json", None)


@pytest.mark.parametrize("form", ["raw", "der", "vapid", "pem_file"])
def test_every_form_of_the_private_key_pywebpush_takes(fake_push, sender, form, tmp_path):
    pem_file = tmp_path / "vapid.pem"
    pem_file.write_bytes(sender.vapid.private_pem())
    key = {"raw": sender.raw, "der": sender.der, "vapid": sender.vapid, "pem_file": str(pem_file)}[form]
    fake_push.expected_vapid_key = sender.public
    sender.send(fake_push.subscription(), '{"n": 1}', vapid_private_key=key)
    assert fake_push.wait_for(1)[0].json == {"n": 1}


def test_a_pem_string_is_no_key_for_pywebpush(fake_push, sender):
    """Vapid.from_string takes raw or DER base64url; a PEM text fails before sending."""
    with pytest.raises(ValueError):
        sender.send(fake_push.subscription(), vapid_private_key=sender.vapid.private_pem().decode())
    assert fake_push.requests == []


def test_the_draft_webpush_scheme_with_crypto_key_is_accepted(fake_push, sender):
    subscription = fake_push.subscription()
    sender.send(subscription, "draft", vapid_private_key=Vapid01(sender.vapid.private_key))
    [push] = fake_push.wait_for(1)
    assert (push.payload, push.vapid_key) == (b"draft", sender.public)
    [request] = fake_push.requests
    assert request.headers["authorization"].startswith("WebPush ey")
    assert request.headers["crypto-key"] == f"p256ecdsa={sender.public}"


def test_the_rfc_form_with_a_space_after_the_comma_is_accepted(fake_push, sender):
    subscription = fake_push.subscription()
    headers = sender.headers(fake_push)
    headers["Authorization"] = headers["Authorization"].replace(",k=", ", k=")
    WebPusher(subscription).send("spaced", headers, ttl=5, timeout=10)
    assert fake_push.wait_for(1)[0].payload == b"spaced"


def test_a_push_without_payload(fake_push, sender):
    subscription = fake_push.subscription()
    assert sender.send(subscription, None).status_code == 201
    [push] = fake_push.wait_for(1)
    assert (push.payload, push.json) == (b"", None)
    assert "content-encoding" not in fake_push.requests[0].headers


def test_the_async_sender_aiohttp(fake_push, sender):
    subscription = fake_push.subscription()

    async def send():
        response = await webpush_async(
            subscription, '{"async": true}', vapid_private_key=sender.raw, vapid_claims={"sub": SUB}, ttl=60
        )
        return response.status

    # In a thread of its own: the browser tests' Playwright keeps an event loop running in
    # this one when the whole suite runs.
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert pool.submit(asyncio.run, send()).result(timeout=30) == 201
    assert fake_push.wait_for(1)[0].json == {"async": True}


# --- Refused pushes ------------------------------------------------------------------------


def test_no_vapid_is_401(fake_push, sender):
    error = refused(lambda: sender.send(fake_push.subscription(), vapid_claims=None))
    assert error.response.status_code == 401
    assert "no VAPID" in error.response.json()["message"]
    assert fake_push.pushes == []
    assert [request.status for request in fake_push.requests] == [401]


def test_a_wrong_signature_is_401(fake_push, sender):
    subscription = fake_push.subscription()
    headers = sender.headers(fake_push)
    token = headers["Authorization"].split("t=")[1].split(",")[0]
    signature = token.rsplit(".", 1)[1]
    forged = b64url(bytes(byte ^ 1 for byte in b64decode(signature)))
    headers["Authorization"] = headers["Authorization"].replace(signature, forged)
    response = WebPusher(subscription).send("x", headers, ttl=5, timeout=10)
    assert response.status_code == 401
    assert "does not verify" in response.json()["message"]


def test_a_token_signed_by_another_key_than_k_is_401(fake_push, sender):
    subscription = fake_push.subscription()
    headers = sender.headers(fake_push)
    other = Sender()
    headers["Authorization"] = headers["Authorization"].replace(f"k={sender.public}", f"k={other.public}")
    assert WebPusher(subscription).send("x", headers, ttl=5, timeout=10).status_code == 401


@pytest.mark.parametrize(
    ("claims", "why"),
    [
        ({"exp": int(time.time()) - 60}, "expired"),
        ({"exp": int(time.time()) + 25 * 3600}, "more than 24 hours"),
        ({"aud": "https://push.example.com"}, "aud"),
        ({"aud": "http://127.0.0.1:1"}, "aud"),
    ],
)
def test_bad_claims_are_401(fake_push, sender, claims, why):
    subscription = fake_push.subscription()
    response = WebPusher(subscription).send("x", sender.headers(fake_push, **claims), ttl=5, timeout=10)
    assert response.status_code == 401
    assert why in response.json()["message"]
    assert fake_push.pushes == []


def test_an_exp_too_far_through_webpush_is_401(fake_push, sender):
    """pywebpush keeps an `exp` that is in the future, however far."""
    far = {"sub": SUB, "exp": int(time.time()) + 48 * 3600}
    assert refused(lambda: sender.send(fake_push.subscription(), vapid_claims=far)).status_code == 401


def test_a_sub_that_is_no_mailto_or_https_is_401(fake_push, sender):
    lax = Vapid(sender.vapid.private_key, conf={"no-strict": True})  # py_vapid's check of `sub` off
    claims = {"sub": "push@example.com"}
    error = refused(lambda: sender.send(fake_push.subscription(), vapid_private_key=lax, vapid_claims=claims))
    assert error.status_code == 401
    assert "sub" in error.response.json()["message"]


def test_a_push_signed_with_another_key_than_expected_is_403(sender):
    with FakePushService(expected_vapid_key=sender.public) as service:
        subscription = service.subscription()
        assert refused(lambda: Sender().send(subscription)).response.status_code == 403
        assert sender.send(subscription).status_code == 201
        assert [request.status for request in service.requests] == [403, 201]
        assert len(service.wait_for(1)) == 1


def test_a_corrupted_body_is_400(fake_push, sender):
    subscription = fake_push.subscription()
    body = WebPusher(subscription).encode(b'{"a": 1}')["body"]
    corrupted = body[:-1] + bytes([body[-1] ^ 0xFF])
    headers = {**sender.headers(fake_push), "TTL": "60", "Content-Encoding": "aes128gcm"}
    response = requests.post(subscription["endpoint"], data=corrupted, headers=headers, timeout=10)
    assert response.status_code == 400
    assert "does not decrypt" in response.json()["message"]
    assert requests.post(subscription["endpoint"], data=body, headers=headers, timeout=10).status_code == 201
    assert fake_push.wait_for(1)[0].json == {"a": 1}


def test_a_body_for_another_subscription_is_400(fake_push, sender):
    mine, other = fake_push.subscription(), fake_push.subscription()
    body = WebPusher(other).encode(b"secret")["body"]
    headers = {**sender.headers(fake_push), "TTL": "60", "Content-Encoding": "aes128gcm"}
    assert requests.post(mine["endpoint"], data=body, headers=headers, timeout=10).status_code == 400


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"Topic": "x" * 33}, "Topic"),
        ({"Topic": "new message"}, "Topic"),
        ({"Topic": "a+b"}, "Topic"),
        ({"Urgency": "urgent"}, "Urgency"),
    ],
)
def test_bad_topic_or_urgency_is_400(fake_push, sender, headers, why):
    error = refused(lambda: sender.send(fake_push.subscription(), headers=headers))
    assert error.status_code == 400
    assert why in error.response.json()["message"]


def test_a_topic_of_32_base64url_characters_is_fine(fake_push, sender):
    topic = "aZ09-_" + "x" * 26
    sender.send(fake_push.subscription(), headers={"Topic": topic, "Urgency": "very-low"})
    assert fake_push.wait_for(1)[0].topic == topic


def test_missing_ttl_other_encodings_and_big_bodies_are_refused(fake_push, sender):
    subscription = fake_push.subscription()
    body = WebPusher(subscription).encode(b"x")["body"]
    vapid = sender.headers(fake_push)

    def post(headers: dict[str, str]) -> int:
        return requests.post(subscription["endpoint"], data=body, headers={**vapid, **headers}, timeout=10).status_code

    assert post({"Content-Encoding": "aes128gcm"}) == 400  # no TTL
    assert post({"Content-Encoding": "aes128gcm", "TTL": "soon"}) == 400
    assert post({"TTL": "60"}) == 400  # no Content-Encoding
    assert refused(lambda: sender.send(subscription, content_encoding="aesgcm")).status_code == 400
    assert refused(lambda: sender.send(subscription, "x" * 4000)).status_code == 413
    assert fake_push.pushes == []
    assert post({"Content-Encoding": "aes128gcm", "TTL": "60"}) == 201


def test_unknown_endpoints_and_other_methods(fake_push, sender):
    subscription = fake_push.subscription()
    assert refused(lambda: sender.send({**subscription, "endpoint": f"{fake_push.url}/push/nobody"})).status_code == 404
    response = requests.get(subscription["endpoint"], timeout=10)
    assert (response.status_code, response.headers["Allow"]) == (405, "POST")


# --- Scripted answers ------------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 410, 429, 500, 401, 403])
def test_a_scripted_answer_reaches_pywebpush(fake_push, sender, status):
    subscription = fake_push.subscription()
    fake_push.answer(subscription, status)
    error = refused(lambda: sender.send(subscription, '{"n": 1}'))
    assert error.status_code == error.response.status_code == status
    assert error.retry_after is None
    assert fake_push.pushes == []
    # The queue is empty again: the next push is accepted.
    assert sender.send(subscription, '{"n": 2}').status_code == 201
    assert [push.json for push in fake_push.wait_for(1)] == [{"n": 2}]
    assert [request.status for request in fake_push.requests] == [status, 201]
    assert fake_push.requests[0].headers["ttl"] == "0"


def test_429_carries_retry_after(fake_push, sender):
    subscription = fake_push.subscription()
    fake_push.answer(subscription["endpoint"], 429, retry_after=2)
    error = refused(lambda: sender.send(subscription))
    assert error.response.status_code == 429
    assert error.response.headers["Retry-After"] == "2"
    assert error.retry_after == "2"


def test_answers_are_queued_in_order_per_subscription(fake_push, sender):
    alice, bob = fake_push.subscription("alice"), fake_push.subscription("bob")
    fake_push.answer(alice, 201, 404)
    fake_push.answer("bob", 500, 500)
    assert sender.send(alice, "1").status_code == 201
    assert refused(lambda: sender.send(alice, "2")).status_code == 404
    assert sender.send(alice, "3").status_code == 201
    assert refused(lambda: sender.send(bob, "4")).status_code == 500
    assert refused(lambda: sender.send(bob, "5")).status_code == 500
    assert sender.send(bob, "6").status_code == 201
    assert [push.payload for push in fake_push.wait_for(3)] == [b"1", b"3", b"6"]
    assert [push.payload for push in fake_push.wait_for(1, subscription=bob)] == [b"6"]
    assert [(request.token, request.status) for request in fake_push.requests] == [
        ("alice", 201),
        ("alice", 404),
        ("alice", 201),
        ("bob", 500),
        ("bob", 500),
        ("bob", 201),
    ]


def test_an_invalid_push_does_not_use_up_a_scripted_answer(fake_push, sender):
    subscription = fake_push.subscription()
    fake_push.answer(subscription, 410)
    assert refused(lambda: sender.send(subscription, vapid_claims=None)).status_code == 401
    assert refused(lambda: sender.send(subscription)).status_code == 410


def test_an_unsubscribed_endpoint_is_gone_for_good(fake_push, sender):
    subscription = fake_push.subscription()
    fake_push.unsubscribe(subscription)
    for _ in range(3):
        assert refused(lambda: sender.send(subscription)).status_code == 410


def test_reset_forgets_pushes_requests_and_scripts(fake_push, sender):
    subscription = fake_push.subscription()
    sender.send(subscription)
    fake_push.answer(subscription, 500)
    fake_push.reset()
    assert (fake_push.pushes, fake_push.requests) == ([], [])
    assert sender.send(subscription).status_code == 201
    with pytest.raises(KeyError):
        fake_push.answer("nobody", 404)


def test_wait_for_fails_when_too_few_arrive(fake_push, sender):
    sender.send(fake_push.subscription())
    with pytest.raises(AssertionError, match="2 pushes: 1 pushes accepted"):
        fake_push.wait_for(2, timeout=0.2)


def test_wait_for_wakes_when_a_push_arrives_from_another_thread(fake_push, sender):
    subscription = fake_push.subscription()
    thread = threading.Thread(target=sender.send, args=(subscription, "late"))
    thread.start()
    assert fake_push.wait_for(1)[0].payload == b"late"
    thread.join()


# --- Load and life cycle ---------------------------------------------------------------------


def test_a_burst_of_300_pushes_from_8_threads_arrives_complete(fake_push, sender):
    """Each thread sends over a keep-alive session, as a sending worker would."""
    subscriptions = [fake_push.subscription() for _ in range(10)]
    local = threading.local()

    def send(number: int) -> int:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        subscription = subscriptions[number % len(subscriptions)]
        return sender.send(subscription, json.dumps({"n": number}), ttl=60, requests_session=local.session).status_code

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(send, range(300)))
    elapsed = time.monotonic() - started
    assert statuses == [201] * 300
    pushes = fake_push.wait_for(300)
    assert sorted(push.json["n"] for push in pushes) == list(range(300))
    for subscription in subscriptions:
        assert len(fake_push.wait_for(30, subscription=subscription)) == 30
    assert fake_push.connections <= 8  # one keep-alive connection per thread
    assert elapsed < 20, f"300 pushes took {elapsed:.1f}s"


def test_connections_without_a_session_are_closed_by_the_client(fake_push, sender):
    subscription = fake_push.subscription()
    for number in range(5):
        sender.send(subscription, str(number))
    assert len(fake_push.wait_for(5)) == 5
    assert fake_push.connections == 5


def test_stop_closes_keep_alive_connections_and_the_port(sender):
    service = FakePushService()
    subscription = service.subscription()
    session = requests.Session()
    assert sender.send(subscription, requests_session=session).status_code == 201
    service.stop()
    service.stop()  # twice is fine
    with pytest.raises(requests.ConnectionError):
        sender.send(subscription, requests_session=session)
    with pytest.raises(requests.ConnectionError):
        sender.send(subscription)
