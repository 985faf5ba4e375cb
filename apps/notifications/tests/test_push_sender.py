"""The push sender (apps.notifications.webpush): pywebpush's WebPusher, and HTTP/1.1
connections of the sender's own that go only to the addresses it checked.

Against the outside world's fakes: a fake DNS (socket.getaddrinfo answering for one push
service's name, the real one for every other name), a fake route for public addresses
(a connection to one is refused and recorded: no test reaches the internet), listeners on
127.0.0.1 that stand for services inside the network, and a raw socket server that
answers as push services may (Content-Length, chunked, up to the connection's end, a
kept or closed connection, garbage)."""

from __future__ import annotations

import _socket
import base64
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from apps.accounts.services.push import address_public
from apps.notifications import webpush
from apps.notifications.webpush import DELIVERED, GONE, REFUSED, RETRY, push_send, pushes_send
from tests.production import production_environment

ROOT = Path(__file__).resolve().parents[3]
PUSH_HOST = "push.example.net"
PUBLIC = "93.184.215.14"  # a global unicast address; the fake route never lets it out


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _request(endpoint: str) -> dict:
    """A push to `endpoint` with a browser's keys, signed with the test run's key."""
    from django.conf import settings

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {
        "endpoint": endpoint,
        "p256dh": _b64(point),
        "auth": _b64(os.urandom(16)),
        "payload": {"title": "Hello"},
        "private_key": settings.VAPID_PRIVATE_KEY,
        "subject": "mailto:support@example.net",
        "ttl": 60,
    }


class Listener:
    """A service inside the network on 127.0.0.1: records every connection it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections: list[tuple] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            self.connections.append(peer)
            conn.close()

    def close(self) -> None:
        self.sock.close()


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


class FakeDNS:
    """socket.getaddrinfo for PUSH_HOST: each lookup takes the next answer (a list of
    addresses; the last answer repeats), with the port of `port` (a listener's, standing
    for the service's 443). Every other name goes to the real resolver."""

    def __init__(self, monkeypatch, answers: list[list[str]], port: int) -> None:
        self.answers, self.port, self.lookups = list(answers), port, []
        real = socket.getaddrinfo

        def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
            if host != PUSH_HOST:
                return real(host, port, family, type, proto, flags)
            self.lookups.append((host, port))
            addresses = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
            return [
                (
                    socket.AF_INET6 if ":" in address else socket.AF_INET,
                    socket.SOCK_STREAM,
                    socket.IPPROTO_TCP,
                    "",
                    (address, self.port, 0, 0) if ":" in address else (address, self.port),
                )
                for address in addresses
            ]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def public_route(monkeypatch):
    """The route to public addresses: a connection to one is recorded and refused (the
    tests never reach the internet); connections to anything else are real."""
    attempts: list[tuple] = []

    def connect(sock, address):
        if isinstance(address, tuple) and address_public(address[0]):
            attempts.append(address[:2])
            raise ConnectionRefusedError(111, "the fake route refuses")
        return _socket.socket.connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@pytest.fixture(autouse=True)
def _fresh_connections():
    webpush.close_all()
    yield
    webpush.close_all()


@pytest.fixture
def checked(settings):
    settings.PUSH_ENDPOINT_CHECK = True


@pytest.fixture
def local(settings):
    settings.PUSH_ENDPOINT_CHECK = False


# --- The address rule -----------------------------------------------------------------


def test_push_dns_rebinding_never_reaches_the_loopback_address(checked, monkeypatch, public_route):
    """A name that answers a public address to the first lookup and 127.0.0.1 to the next:
    the push goes to the public address it checked, and the next one is refused."""
    inside = Listener()
    dns = FakeDNS(monkeypatch, [[PUBLIC], ["127.0.0.1"]], inside.port)
    first = push_send(**_request(f"https://{PUSH_HOST}/push/abc"))
    assert public_route == [(PUBLIC, inside.port)]  # connected where it checked
    assert first.outcome == RETRY  # the fake route refused it
    second = push_send(**_request(f"https://{PUSH_HOST}/push/abc"))
    assert second.outcome == REFUSED
    assert len(dns.lookups) == 2  # one lookup per send, none between check and connection
    assert public_route == [(PUBLIC, inside.port)]
    assert inside.connections == []
    inside.close()


def test_push_every_address_of_the_host_is_checked(checked, monkeypatch, public_route):
    """One private address among public ones refuses the host: no connection at all."""
    inside = Listener()
    dns = FakeDNS(monkeypatch, [[PUBLIC, "127.0.0.1", "2606:4700::1111"]], inside.port)
    answer = push_send(**_request(f"https://{PUSH_HOST}/push/abc"))
    assert answer.outcome == REFUSED
    assert len(dns.lookups) == 1
    assert public_route == [] and inside.connections == []
    inside.close()


def test_push_a_batch_checks_each_connection_it_opens(checked, monkeypatch, public_route):
    """Two pushes to one host handed over together open two connections at once: each
    gets a lookup of its own, and the one that answers the loopback address is refused."""
    inside = Listener()
    dns = FakeDNS(monkeypatch, [[PUBLIC], ["127.0.0.1"]], inside.port)
    answers = pushes_send([_request(f"https://{PUSH_HOST}/push/{n}") for n in range(2)], in_flight=2)
    assert sorted(answer.outcome for answer in answers) == [REFUSED, RETRY]
    assert len(dns.lookups) == 2
    assert public_route == [(PUBLIC, inside.port)]
    assert inside.connections == []
    inside.close()


@pytest.mark.parametrize(
    "endpoint",
    [
        f"https://{PUSH_HOST}:8443/push/abc",
        f"https://{PUSH_HOST}:80/push/abc",
        f"http://{PUSH_HOST}/push/abc",
        "https://127.0.0.1/push/abc",
        "https://[::1]/push/abc",
        "https://[::ffff:127.0.0.1]/push/abc",
        "https://169.254.169.254/latest/meta-data",
        "https://2130706433/push/abc",
        "https://127.1/push/abc",
        "https://0x7f.1/push/abc",
        f"https://user:secret@{PUSH_HOST}/push/abc",
        "ftp://example.net/push/abc",
    ],
)
def test_push_port_other_than_443_and_addresses_in_the_url_are_refused(checked, monkeypatch, public_route, endpoint):
    inside = Listener()
    dns = FakeDNS(monkeypatch, [[PUBLIC]], inside.port)
    assert push_send(**_request(endpoint)).outcome == REFUSED
    assert dns.lookups == [] and public_route == [] and inside.connections == []
    inside.close()


def test_push_the_check_holds_for_the_name_resolved_when_connecting(checked, monkeypatch, public_route):
    """A name that resolves to the loopback address only is refused by the resolver,
    with no connection (the URL alone looks fine)."""
    inside = Listener()
    FakeDNS(monkeypatch, [["127.0.0.1"]], inside.port)
    assert webpush.endpoint_refusal(f"https://{PUSH_HOST}/push/abc", checked=True) == ""
    assert push_send(**_request(f"https://{PUSH_HOST}/push/abc")).outcome == REFUSED
    assert inside.connections == []
    inside.close()


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.215.14", True),
        ("2606:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.5", False),
        ("192.168.1.1", False),
        ("100.64.0.1", False),  # carrier-grade NAT
        ("169.254.169.254", False),  # cloud metadata
        ("0.0.0.0", False),
        ("255.255.255.255", False),
        ("224.0.1.1", False),  # multicast, though "global"
        ("240.0.0.1", False),
        ("192.0.2.1", False),  # documentation
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fe80::1%eth0", False),
        ("fc00::1", False),
        ("fec0::1", False),  # site-local
        ("ff0e::1", False),  # multicast, global scope
        ("::ffff:127.0.0.1", False),  # mapped
        ("::ffff:93.184.215.14", False),  # mapped: refused whatever it maps
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:5db8:d70e::1", True),  # 6to4 of a public address
        ("2001::1", False),  # Teredo
        ("2001:db8::1", False),
        ("not an address", False),
    ],
)
def test_push_address_public(address, public):
    assert address_public(address) is public


def test_push_the_check_cannot_be_turned_off_in_production():
    """PUSH_ENDPOINT_CHECK=false is the tests' and the bench's (local push services);
    the production settings keep the check on whatever the environment says."""

    env = production_environment(PUSH_ENDPOINT_CHECK="false")
    script = "from django.conf import settings; print(settings.PUSH_ENDPOINT_CHECK)"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


# --- What push services answer (PUSH_ENDPOINT_CHECK off: a local server) ---------------


def test_push_content_length_and_keep_alive(local):
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nLocation: /m/1\r\n\r\n"] * 2)
    first = push_send(**_request(server.url))
    second = push_send(**_request(server.url))
    assert (first.outcome, first.status, second.outcome) == (DELIVERED, 201, DELIVERED)
    assert server.connections == 1
    head, _, body = server.requests[0].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /push/x HTTP/1.1\r\n")
    headers = {line.split(b":", 1)[0].lower(): line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")[1:]}
    assert headers[b"ttl"] == b"60" and headers[b"content-encoding"] == b"aes128gcm"
    assert headers[b"content-length"] == str(len(body)).encode() and len(body) > 86  # header + ciphertext
    assert headers[b"authorization"].startswith(b"vapid t=")
    server.close()


def test_push_a_batch_answers_each_push_in_its_order(local):
    """One hand-over, many push services: each answer is its own push's, in the order
    of the requests, whatever order the services answer in."""
    delivered = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 2)
    gone = RawServer([b"HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n"])
    busy = RawServer([b"HTTP/1.1 503 Busy\r\nRetry-After: 120\r\nContent-Length: 0\r\n\r\n"])
    endpoints = [delivered.url, "ftp://example.net/x", gone.url, busy.url, delivered.url]
    answers = pushes_send([_request(endpoint) for endpoint in endpoints], in_flight=2)
    assert [(answer.outcome, answer.status, answer.retry_after) for answer in answers] == [
        (DELIVERED, 201, 0),
        (REFUSED, 0, 0),
        (GONE, 410, 0),
        (RETRY, 503, 120),
        (DELIVERED, 201, 0),
    ]
    assert len(delivered.requests) == 2 and len(gone.requests) == len(busy.requests) == 1
    for server in (delivered, gone, busy):
        server.close()


def test_push_a_batch_keeps_at_most_in_flight_requests_open(local):
    """A batch larger than its bound: every push delivered over at most `in_flight`
    connections, kept open from one push to the next, each push body encrypted anew."""
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 20)
    answers = pushes_send([_request(server.url) for _ in range(20)], in_flight=3)
    assert [answer.outcome for answer in answers] == [DELIVERED] * 20
    assert 1 <= server.connections <= 3
    bodies = [request.partition(b"\r\n\r\n")[2] for request in server.requests]
    assert len(set(bodies)) == 20  # a fresh key and salt per push
    server.close()


def test_push_a_chunked_answer_with_retry_after(local):
    body = b"5\r\nslow \r\n5\r\ndown!\r\n0\r\n\r\n"
    server = RawServer([b"HTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nRetry-After: 30\r\n\r\n" + body])
    answer = push_send(**_request(server.url))
    assert (answer.outcome, answer.status, answer.retry_after) == (RETRY, 429, 30)
    server.close()


def test_push_a_body_to_the_end_of_the_connection(local):
    server = RawServer([b"HTTP/1.1 410 Gone\r\nConnection: close\r\n\r\nunsubscribed"])
    assert push_send(**_request(server.url)).outcome == GONE
    server.close()


def test_push_an_idle_connection_closed_by_the_server_is_opened_again(local):
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", None, b"HTTP/1.1 201 Created\r\n\r\n"])
    assert push_send(**_request(server.url)).outcome == DELIVERED
    # The server drops the kept connection without answering the next request.
    answer = push_send(**_request(server.url))
    assert answer.outcome in (DELIVERED, RETRY)  # a request already sent is not sent twice
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert server.connections >= 2
    server.close()


# 128 KB of an error's body in chunks: more than MAX_ANSWER_BYTES, with no length ahead.
LONG_CHUNKED = (
    b"HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n"
    + (b"4000\r\n" + b"x" * 0x4000 + b"\r\n") * 8
    + b"0\r\n\r\n"
)


@pytest.mark.parametrize(
    "answer",
    [
        b"garbage\r\n\r\n",
        b"HTTP/1.1 abc OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n",
        LONG_CHUNKED,
    ],
)
def test_push_garbage_or_a_long_answer_is_a_retry_not_a_crash(local, answer):
    server = RawServer([answer])
    assert push_send(**_request(server.url)).outcome == RETRY
    server.close()


def test_push_nobody_listening_is_a_retry(local):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    assert push_send(**_request(f"http://127.0.0.1:{port}/push/x")).outcome == RETRY
    assert push_send(**_request("ftp://example.net/x")).outcome == REFUSED


def test_push_a_redirect_is_not_followed(local):
    inside = Listener()
    location = f"http://127.0.0.1:{inside.port}/admin".encode()
    server = RawServer([b"HTTP/1.1 307 Temporary Redirect\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n"])
    answer = push_send(**_request(server.url))
    assert (answer.outcome, answer.status) == (REFUSED, 307)
    assert inside.connections == []
    server.close()
    inside.close()


def test_push_a_connection_opened_with_the_check_off_is_not_used_with_it_on(settings, monkeypatch, public_route):
    """The two rules have sessions of their own: a kept connection to a local address
    does not carry a checked push."""
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 2)
    settings.PUSH_ENDPOINT_CHECK = False
    assert push_send(**_request(server.url)).outcome == DELIVERED
    settings.PUSH_ENDPOINT_CHECK = True
    assert push_send(**_request(server.url)).outcome == REFUSED
    assert len(server.requests) == 1
    server.close()


def test_push_an_idle_connection_is_kept_only_for_a_while(local, monkeypatch):
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 3)
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert server.connections == 1  # kept
    monkeypatch.setattr(webpush, "KEEPALIVE_SECONDS", 0)
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert server.connections == 2  # idle too long: a new one
    server.close()


def test_push_an_interim_answer_is_skipped(local):
    server = RawServer([b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n"])
    answer = push_send(**_request(server.url))
    assert (answer.outcome, answer.status) == (GONE, 410)
    server.close()


def test_push_no_answer_within_the_push_timeout_is_a_retry(local, monkeypatch):
    """A push service that takes the request and never answers: the push is a retry
    once its time is up, and the batch's other pushes are answered meanwhile."""
    silent_socket = socket.socket()  # listens, never accepts: a connection that never answers
    silent_socket.bind(("127.0.0.1", 0))
    silent_socket.listen()
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 2)
    monkeypatch.setattr(webpush, "PUSH_TIMEOUT", 0.3)
    monkeypatch.setattr(webpush, "EXPIRY_TICK", 0.05)
    endpoints = [f"http://127.0.0.1:{silent_socket.getsockname()[1]}/push/x", server.url, server.url]
    answers = pushes_send([_request(endpoint) for endpoint in endpoints], in_flight=2)
    assert [answer.outcome for answer in answers] == [RETRY, DELIVERED, DELIVERED]
    silent_socket.close()
    server.close()


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Slow\r\nRetry-After: 30\r\nContent-Length: 2\r\n\r\nno",
        b"HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nslow \r\n3\r\nnow\r\n0\r\nA: b\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
    ],
)
def test_push_an_answer_arriving_in_pieces_is_read_when_whole(answer):
    """The answer is parsed from what has arrived each time something arrives: any cut
    of it is incomplete, the whole is the answer, and what follows is left."""
    whole = webpush._parse_answer(answer + b"HTTP/1.1", eof=False)
    assert whole is not None and whole[0] == len(answer)
    for cut in range(len(answer)):
        assert webpush._parse_answer(answer[:cut], eof=False) is None
        with pytest.raises(OSError):  # the connection ended inside the answer
            webpush._parse_answer(answer[:cut], eof=True)


def test_push_a_body_to_the_end_of_the_connection_is_read_when_it_ends():
    answer = b"HTTP/1.1 410 Gone\r\n\r\nunsubscribed"
    assert webpush._parse_answer(answer, eof=False) is None
    assert webpush._parse_answer(answer, eof=True) == (len(answer), 410, {}, "unsubscribed", False)


def test_push_bytes_after_an_answer_are_not_taken_for_the_next(local):
    """A push service that sends more than its answer: the connection is not used again
    (what it sent is no answer to the next request)."""
    server = RawServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\nHTTP/1.1 410 Gone\r\n\r\n"] * 2)
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert server.connections == 2
    server.close()


# --- TLS: the certificate is checked for the endpoint's name --------------------------


def _certificate(name: str) -> tuple[bytes, bytes]:
    """(certificate, key) in PEM: self-signed for `name`, its own authority."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return (
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )


class TLSServer(RawServer):
    """RawServer over TLS with a certificate for `certified`; records the names the
    clients asked for (SNI). Its URL names `localhost`."""

    def __init__(self, answers: list[bytes | None], certified: str, tmp_path) -> None:
        import ssl

        self.certificate, key = _certificate(certified)
        (tmp_path / "cert.pem").write_bytes(self.certificate)
        (tmp_path / "key.pem").write_bytes(key)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
        self.names: list[str | None] = []
        self.context.sni_callback = lambda _sock, name, _context: self.names.append(name)
        super().__init__(answers)
        self.url = f"https://localhost:{self.sock.getsockname()[1]}/push/x"

    def _connection(self, conn: socket.socket) -> None:
        import ssl

        try:
            secure = self.context.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError):
            conn.close()
            return
        super()._connection(secure)


def _trust(monkeypatch, certificate: bytes) -> None:
    """The sender trusts `certificate` as it trusts the system's authorities."""
    import ssl

    context = ssl.create_default_context(cadata=certificate.decode())
    monkeypatch.setattr(webpush._Sender, "tls", lambda self: context)


def test_push_over_tls_to_the_name_of_the_endpoint(local, monkeypatch, tmp_path):
    server = TLSServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"] * 2, "localhost", tmp_path)
    _trust(monkeypatch, server.certificate)
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert push_send(**_request(server.url)).outcome == DELIVERED
    assert server.names == ["localhost"] and server.connections == 1  # SNI, and the connection kept
    assert f"\r\nHost: localhost:{server.url.split(':')[2].split('/')[0]}\r\n".encode() in server.requests[0]
    server.close()


def test_push_a_certificate_for_another_name_is_refused_before_the_request(local, monkeypatch, tmp_path):
    server = TLSServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"], "push.example.org", tmp_path)
    _trust(monkeypatch, server.certificate)
    assert push_send(**_request(server.url)).outcome == REFUSED  # final, as a 403 is
    assert server.requests == []
    server.close()


def test_push_a_certificate_no_authority_signed_is_refused_before_the_request(local, tmp_path):
    server = TLSServer([b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"], "localhost", tmp_path)
    assert push_send(**_request(server.url)).outcome == REFUSED  # final, as a 403 is
    assert server.requests == []
    server.close()
