"""The notification benchmark's push service: a small asyncio HTTP/1.1 server in a
process of its own that takes pushes at http://127.0.0.1:<port>/push/<token> and answers
201 as fast as it can, so that the sender is what is measured (a general ASGI server
spent more per request than the sender's encryption, and the fan-out waited for it).

Every subscription of the bench shares one key pair (BENCH_PUSH_PRIVATE_KEY, raw
base64url; BENCH_PUSH_AUTH), so the sink can check any push. It checks one push in
BENCH_PUSH_VERIFY_EVERY in full, as tests/fake_push.py does for every push: the VAPID
token (ES256 with the key it names, `aud` = this origin, not expired) and the aes128gcm
body, which must decrypt to JSON. GET /stats gives the counts, GET /times the arrival
times (time.time()) of the pushes per token.

    python -m bench.push_sink <port>
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
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
CREATED = b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"


def _verify(headers: dict[str, str], body: bytes) -> None:
    scheme, _, rest = headers.get("authorization", "").partition(" ")
    params = _params(rest, ",")
    claims = _verify_jwt(params["t"], params["k"])
    if ORIGIN and claims.get("aud") != ORIGIN:
        raise ValueError(f"aud {claims.get('aud')!r}")
    if claims.get("exp", 0) < time.time():
        raise ValueError("expired")
    if scheme.lower() != "vapid" or not headers.get("ttl"):
        raise ValueError("headers")
    json.loads(http_ece.decrypt(body, private_key=PRIVATE_KEY, auth_secret=AUTH, version="aes128gcm"))


def _json(value: object) -> bytes:
    body = json.dumps(value).encode()
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def _connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            now = time.time()
            lines = head.decode("latin-1").split("\r\n")
            method, path, _version = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if method == "GET" and path == "/stats":
                writer.write(_json(stats))
            elif method == "GET" and path == "/times":
                writer.write(_json(arrivals))
            elif method == "POST" and path.startswith("/push/"):
                arrivals.setdefault(path[len("/push/") :], []).append(now)
                stats["count"] += 1
                if PRIVATE_KEY is not None and stats["count"] % VERIFY_EVERY == 1:
                    try:
                        _verify(headers, body)
                        stats["verified"] += 1
                    except Exception as error:  # noqa: BLE001 - counted; the bench fails on it
                        stats["failed"] += 1
                        stats["last_error"] = repr(error)[:300]
                writer.write(CREATED)
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main(port: int) -> None:
    server = await asyncio.start_server(_connection, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
