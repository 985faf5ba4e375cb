"""The notification benchmark's push service: a small ASGI app under uvicorn, in a
process of its own, that takes pushes at http://127.0.0.1:<port>/push/<token> and
answers 201 as fast as it can, so the sender is what is measured.

Every subscription of the bench shares one key pair (BENCH_PUSH_PRIVATE_KEY, raw
base64url; BENCH_PUSH_AUTH), so the sink can check any push. It checks one push in
BENCH_PUSH_VERIFY_EVERY fully, as tests/fake_push.py does for every push: the VAPID
token (ES256 with the key it names, `aud` = this origin) and the aes128gcm body, which
must decrypt to JSON. GET /stats gives the counts, GET /times the arrival time
(time.time()) of the first push per token.

    python -m uvicorn bench.push_sink:app --port 9999
"""

from __future__ import annotations

import json
import os
import time

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from tests.fake_push import _params, _verify_jwt, b64url_decode

_private = os.environ.get("BENCH_PUSH_PRIVATE_KEY", "")
PRIVATE_KEY = (
    ec.derive_private_key(int.from_bytes(b64url_decode(_private), "big"), ec.SECP256R1()) if _private else None
)
AUTH = b64url_decode(os.environ.get("BENCH_PUSH_AUTH", "")) if PRIVATE_KEY else b""
VERIFY_EVERY = int(os.environ.get("BENCH_PUSH_VERIFY_EVERY", "100"))
ORIGIN = os.environ.get("BENCH_PUSH_ORIGIN", "")

stats = {"count": 0, "verified": 0, "failed": 0, "last_error": ""}
arrivals: dict[str, list[float]] = {}


def _verify(headers: dict[str, str], body: bytes) -> None:
    auth = headers.get("authorization", "")
    scheme, _, rest = auth.partition(" ")
    params = _params(rest, ",")
    claims = _verify_jwt(params["t"], params["k"])
    if ORIGIN and claims.get("aud") != ORIGIN:
        raise ValueError(f"aud {claims.get('aud')!r}")
    if claims.get("exp", 0) < time.time():
        raise ValueError("expired")
    payload = http_ece.decrypt(body, private_key=PRIVATE_KEY, auth_secret=AUTH, version="aes128gcm")
    json.loads(payload)
    if scheme.lower() != "vapid" or not headers.get("ttl"):
        raise ValueError("headers")


async def _body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send, status: int, body: bytes = b"", content_type: bytes = b"application/json") -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})
    await send({"type": "http.response.body", "body": body})


async def app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    if scope["method"] == "GET" and path == "/stats":
        await _answer(send, 200, json.dumps(stats).encode())
        return
    if scope["method"] == "GET" and path == "/times":
        await _answer(send, 200, json.dumps(arrivals).encode())
        return
    if scope["method"] != "POST" or not path.startswith("/push/"):
        await _answer(send, 404)
        return
    now = time.time()
    body = await _body(receive)
    token = path[len("/push/") :]
    arrivals.setdefault(token, []).append(now)
    stats["count"] += 1
    if PRIVATE_KEY is not None and stats["count"] % VERIFY_EVERY == 1:
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        try:
            _verify(headers, body)
            stats["verified"] += 1
        except Exception as error:  # noqa: BLE001 - counted and shown by the bench
            stats["failed"] += 1
            stats["last_error"] = repr(error)[:300]
    await _answer(send, 201, b"", b"text/plain")
