"""The push requests' small HTTP/1.1 client (apps.notifications.pushhttp) against a raw
socket server that answers as push services may: Content-Length, chunked, a body up to
the connection's end, a kept or closed connection, an idle connection closed by the
server, and garbage."""

from __future__ import annotations

import socket
import threading

import pytest

from apps.notifications import pushhttp


class RawServer:
    """Answers each request on a connection with the next scripted bytes; `None` closes
    the connection instead of answering."""

    def __init__(self, answers: list[bytes | None]) -> None:
        self.answers = list(answers)
        self.requests: list[bytes] = []
        self.connections = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/push/x"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        with conn:
            buffer = b""
            while self.answers:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, _, rest = buffer.partition(b"\r\n\r\n")
                length = int(
                    next(
                        line.split(b":")[1]
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    )
                )
                while len(rest) < length:
                    rest += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + rest[:length])
                buffer = rest[length:]
                answer = self.answers.pop(0)
                if answer is None:
                    return
                conn.sendall(answer)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(autouse=True)
def _no_idle_connections():
    pushhttp.close_all()
    yield
    pushhttp.close_all()


def test_content_length_and_keep_alive():
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nLocation: /m/1\r\n\r\n"] * 2)
    first = pushhttp.post(server.url, data=b"abc", headers={"TTL": "60"})
    second = pushhttp.post(server.url, data=b"defg", headers={"TTL": "60"})
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.headers["location"] == "/m/1"
    assert server.connections == 1
    assert server.requests[0].startswith(b"POST /push/x HTTP/1.1\r\n") and server.requests[0].endswith(b"\r\n\r\nabc")
    assert b"TTL: 60\r\n" in server.requests[0] and b"Content-Length: 3\r\n" in server.requests[0]
    server.close()


def test_a_chunked_answer_with_retry_after():
    body = b"5\r\nslow \r\n5\r\ndown!\r\n0\r\n\r\n"
    server = RawServer([b"HTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nRetry-After: 30\r\n\r\n" + body])
    answer = pushhttp.post(server.url, data=b"x")
    assert answer.status_code == 429 and answer.text == "slow down!" and answer.headers["retry-after"] == "30"
    server.close()


def test_a_body_to_the_end_of_the_connection():
    server = RawServer([b"HTTP/1.1 410 Gone\r\nConnection: close\r\n\r\nunsubscribed"])
    answer = pushhttp.post(server.url, data=b"x")
    assert answer.status_code == 410 and answer.text == "unsubscribed"
    server.close()


def test_an_idle_connection_closed_by_the_server_is_opened_again_once():
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", None, b"HTTP/1.1 201 Created\r\n\r\n"])
    assert pushhttp.post(server.url, data=b"1").status_code == 201
    # The server drops the kept connection without answering the next request.
    assert pushhttp.post(server.url, data=b"2").status_code == 201
    assert server.connections == 2
    server.close()


@pytest.mark.parametrize(
    "answer", [b"garbage\r\n\r\n", b"HTTP/1.1 abc OK\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n"]
)
def test_garbage_is_an_error_not_a_crash(answer):
    server = RawServer([answer])
    with pytest.raises(OSError):
        pushhttp.post(server.url, data=b"x", timeout=2)
    server.close()


def test_nobody_listening_is_an_oserror():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(OSError):
        pushhttp.post(f"http://127.0.0.1:{port}/push/x", data=b"x", timeout=2)
    with pytest.raises(OSError):
        pushhttp.post("ftp://example.net/x", data=b"x")
