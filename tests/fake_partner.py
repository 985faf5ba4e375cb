"""A local fake partner (an affiliate network's postback endpoint) for tests: a real
HTTP/1.1 server on the loopback address that records each GET it receives (path and
query, decoded as the partner would decode them) and answers as scripted: 200 "OK" by
default, or any status with a body and headers (a 302 to elsewhere, a 500, a 429).

    with FakePartner() as partner:
        partner.answers = [(500, "busy", {}), (200, "OK", {})]
        ...
        [hit] = partner.hits
        hit.query["click"] == ["abc"]
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Hit:
    path: str
    query: dict[str, list[str]]
    raw: str
    headers: dict[str, str]


class FakePartner:
    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.answers: list[tuple[int, str, dict]] = []
        partner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                partner.hits.append(
                    Hit(parts.path, parse_qs(parts.query, keep_blank_values=True), self.path, dict(self.headers))
                )
                status, body, headers = partner.answers.pop(0) if partner.answers else (200, "OK", {})
                data = body.encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str = "/pb") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> FakePartner:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
