"""A small HTTP/1.1 client for push requests: one POST with a short body and a short
answer, many of them to a few push services. Keep-alive connections per host, shared
by the process's threads; TLS with the system's certificates and hostname checks for https.

General clients (requests, urllib3) spend more time per request than the push's
encryption does (proxies from the environment, header objects, the e-mail parser for
the answer's headers); a fan-out to every member of a site sends one request per
device, so the client's cost is most of the work (bench/bench_notify.py).

Only what push services answer is understood: a status line, headers, and a body with
Content-Length, chunked, or none. A connection the server closed while idle is opened
again once, before any byte of an answer arrived (the request was not read)."""

from __future__ import annotations

import atexit
import contextlib
import socket
import ssl
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 1024 * 1024


class PushHTTPError(OSError):
    """The push service's answer could not be read (or no connection)."""


@dataclass
class Answer:
    status_code: int
    headers: dict[str, str] = field(default_factory=dict)
    text: str = ""


_tls = ssl.create_default_context()
# Idle keep-alive connections per (scheme, host, port), shared by the threads of a
# process: one thread uses a connection at a time.
_idle: dict[tuple, list] = {}
_idle_lock = threading.Lock()
MAX_IDLE_PER_HOST = 16


class _Connection:
    def __init__(self, scheme: str, host: str, port: int, timeout: float) -> None:
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = _tls.wrap_socket(sock, server_hostname=host) if scheme == "https" else sock
        self.buffer = b""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionResetError("the push service closed the connection")
        self.buffer += chunk

    def _take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEADER_BYTES:
                raise PushHTTPError("the answer's header is too long")
            self._fill()
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def exchange(self, request: bytes) -> tuple[Answer, bool]:
        """Send `request`, read the answer; (answer, whether to keep the connection)."""
        self.sock.sendall(request)
        return self.receive()

    def receive(self) -> tuple[Answer, bool]:
        """Read the answer to the request sent last."""
        status_line = self._line()
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise PushHTTPError(f"not an HTTP answer: {status_line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        size = 0
        while True:
            line = self._line()
            if not line:
                break
            size += len(line)
            if size > MAX_HEADER_BYTES:
                raise PushHTTPError("the answer's header is too long")
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                length = int(self._line().split(b";", 1)[0] or b"0", 16)
                if length == 0:
                    while self._line():  # trailers
                        pass
                    break
                if len(body) + length > MAX_BODY_BYTES:
                    raise PushHTTPError("the answer's body is too long")
                body += self._take(length)
                self._line()
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if length > MAX_BODY_BYTES:
                raise PushHTTPError("the answer's body is too long")
            body = self._take(length)
        elif status in (204, 304) or 100 <= status < 200:
            body = b""
        else:  # the body ends with the connection
            body = self.buffer
            while True:
                chunk = self.sock.recv(65536)
                if not chunk or len(body) > MAX_BODY_BYTES:
                    break
                body += chunk
            self.buffer = b""
            return Answer(status, headers, body.decode("utf-8", "replace")), False
        keep = headers.get("connection", "").lower() != "close" and parts[0] != b"HTTP/1.0"
        return Answer(status, headers, body.decode("utf-8", "replace") if body else ""), keep


def _checkout(key: tuple):
    with _idle_lock:
        idle = _idle.get(key)
        return idle.pop() if idle else None


def _checkin(key: tuple, connection: _Connection) -> None:
    with _idle_lock:
        idle = _idle.setdefault(key, [])
        if len(idle) < MAX_IDLE_PER_HOST:
            idle.append(connection)
            return
    connection.close()


@atexit.register
def close_all() -> None:
    """Close every idle connection (at exit, and in tests)."""
    with _idle_lock:
        connections = [connection for idle in _idle.values() for connection in idle]
        _idle.clear()
    for connection in connections:
        connection.close()


def _request(url: str, data: bytes | None, headers: dict | None) -> tuple[tuple, bytes]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PushHTTPError(f"not an http(s) URL: {url[:80]}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    body = data or b""
    lines = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items() if name.lower() != "content-length"]
    return (parts.scheme, parts.hostname, port), ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Pending:
    """A request sent whose answer is read later (`result`): one thread keeps a few
    requests in flight on connections of their own while it encrypts the next push.
    No pipelining: each connection carries one request at a time."""

    def __init__(self, key: tuple, request: bytes, timeout: float) -> None:
        self.key, self.request, self.timeout = key, request, timeout
        self.error: Exception | None = None
        self.connection: _Connection | None = None
        self.reused = False
        try:
            self._send()
        except (OSError, ValueError) as error:
            self.error = error

    def _send(self) -> None:
        self.connection = _checkout(self.key)
        self.reused = self.connection is not None
        if self.connection is None:
            self.connection = _Connection(self.key[0], self.key[1], self.key[2], self.timeout)
        self.connection.sock.settimeout(self.timeout)
        try:
            self.connection.sock.sendall(self.request)
        except (BrokenPipeError, ConnectionResetError):
            self.connection.close()
            if not self.reused:
                raise
            # An idle connection the server had closed: nothing was read, a new one.
            self.connection = _Connection(self.key[0], self.key[1], self.key[2], self.timeout)
            self.reused = False
            self.connection.sock.settimeout(self.timeout)
            self.connection.sock.sendall(self.request)

    def result(self) -> Answer:
        """The answer; raises OSError (PushHTTPError) when none could be had."""
        if self.error is not None:
            raise PushHTTPError(str(self.error)) from self.error
        connection = self.connection
        try:
            answer, keep = connection.receive()
        except (ConnectionResetError, BrokenPipeError) as error:
            connection.close()
            if self.reused and not connection.buffer:  # closed while idle: once more, anew
                self.reused = False
                try:
                    connection = self.connection = _Connection(self.key[0], self.key[1], self.key[2], self.timeout)
                    connection.sock.settimeout(self.timeout)
                    answer, keep = connection.exchange(self.request)
                except (OSError, ValueError) as again:
                    connection.close()
                    raise PushHTTPError(str(again)) from again
            else:
                raise PushHTTPError(str(error)) from error
        except (OSError, ValueError) as error:
            connection.close()
            raise PushHTTPError(str(error)) from error
        if keep:
            _checkin(self.key, connection)
        else:
            connection.close()
        return answer


def start(url: str, *, data: bytes | None = None, headers: dict | None = None, timeout: float = 10) -> Pending:
    """Send a POST now; its answer comes with `.result()`."""
    key, request = _request(url, data, headers)
    return Pending(key, request, timeout)


def post(url: str, *, data: bytes | None = None, headers: dict | None = None, timeout: float = 10) -> Answer:
    """POST `data` to `url` with `headers`; raises OSError (PushHTTPError) when no
    answer could be had."""
    return start(url, data=data, headers=headers, timeout=timeout).result()
