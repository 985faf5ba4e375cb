"""HTTPS for a new domain the moment it is saved: Debian's Caddy runs deploy/Caddyfile
itself (its internal CA instead of Let's Encrypt, high ports, a home of its own) in front
of the live test server. A domain saved for a site gets a certificate on its first HTTPS
request and serves that site, and the site admin's state follows; a name no site has gets
no certificate at all (the handshake fails); the chat's WebSocket works through it.
`make test` installs Caddy (the Makefile's `caddy` target)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from websockets.sync.client import connect

from apps.tenants import tls
from apps.tenants.models import Domain, Site
from conftest import _free_port
from tests.live import in_thread, until
from tests.staff import ADMIN_HOST

CADDYFILE = Path(settings.BASE_DIR) / "deploy" / "Caddyfile"
DEADLINE = 60  # seconds: a certificate from the internal CA takes well under one


class Caddy:
    def __init__(self, process: subprocess.Popen, https_port: int, data: Path, log: Path) -> None:
        self.process, self.https_port, self.data, self.log = process, https_port, data, log

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def root_certificate(self) -> Path:
        """The internal CA's root, which a deployment's visitors would not need (theirs
        is Let's Encrypt's, in every browser)."""
        return until(
            lambda: (path := self.data / "caddy" / "pki" / "authorities" / "local" / "root.crt").exists() and path,
            "Caddy's local root certificate",
            DEADLINE,
        )

    def tls_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.root_certificate()))

    def handshake(self, name: str) -> dict:
        """A TLS handshake with `name` in the SNI, the way a browser resolving `name` to
        this machine makes it; the certificate must be valid for `name`."""
        raw = socket.create_connection(("127.0.0.1", self.https_port), timeout=DEADLINE)
        with raw, self.tls_context().wrap_socket(raw, server_hostname=name) as sock:
            return sock.getpeercert()

    def get(self, name: str, path: str = "/") -> tuple[int, str]:
        connection = _PinnedHTTPSConnection(name, self.https_port, context=self.tls_context(), timeout=DEADLINE)
        try:
            connection.request("GET", path, headers={"Accept-Language": "en"})
            response = connection.getresponse()
            return response.status, response.read().decode(errors="replace")
        finally:
            connection.close()


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to the proxy on 127.0.0.1 for a host name no resolver knows: SNI, the
    certificate check and the Host header all use the name."""

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)


@pytest.fixture(scope="module")
def caddy(asgi_server, tmp_path_factory) -> Iterator[Caddy]:
    binary = shutil.which("caddy")
    assert binary, "Debian's caddy is needed: make caddy (as root: apt-get install caddy)"
    home = tmp_path_factory.mktemp("caddy")
    https_port, http_port, ask_port, admin_port = (_free_port() for _ in range(4))
    environment = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "HTTP_PORT": str(http_port),
        "HTTPS_PORT": str(https_port),
        "ASK_PORT": str(ask_port),
        "CADDY_ADMIN": f"127.0.0.1:{admin_port}",
        "UPSTREAM": f"127.0.0.1:{asgi_server.port}",
        "OPERATORS_HOST": ADMIN_HOST,
        "ACME_EMAIL": "tls-test@example.com",
        "TLS_ISSUER": "internal",
    }
    log = home / "caddy.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [binary, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=environment,
            cwd=home,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    proxy = Caddy(process, https_port, home, log)
    try:

        def listening() -> bool:
            assert process.poll() is None, f"caddy stopped: {proxy.output()}"
            for port in (https_port, ask_port):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                except OSError:
                    return False
            return True

        until(listening, "Caddy listening on its ports", DEADLINE)
        yield proxy
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture
def new_domain(site_server, gay_site) -> Iterator[str]:
    """A host name the test saves for the gay demo site; removed again afterwards."""
    name = f"tls-{uuid.uuid4().hex[:8]}.localhost"
    yield name
    in_thread(lambda: Domain.objects.filter(domain=name).delete())


def _domain_save(site: Site, name: str) -> None:
    """As the site admin's Domains inline saves a row: validated by the model, committed."""

    def save() -> None:
        domain = Domain(domain=name, tenant=Site.objects.get(pk=site.pk), is_primary=False)
        domain.full_clean()
        domain.save()

    in_thread(save)


def _domain(name: str) -> Domain:
    return in_thread(lambda: Domain.objects.get(domain=name))


def test_a_saved_domain_gets_a_certificate_on_its_first_https_request(caddy, gay_site, new_domain):
    tls.marks_clear()
    # Before the operator saves it, the name gets nothing: no certificate, no page.
    with pytest.raises(ssl.SSLError):
        caddy.handshake(new_domain)

    _domain_save(gay_site, new_domain)
    certificate = caddy.handshake(new_domain)
    assert ("DNS", new_domain) in certificate["subjectAltName"], certificate
    status, body = caddy.get(new_domain, "/")
    assert status == 200, caddy.output()
    assert f">{gay_site.name}<" in body  # the site's own page, over HTTPS

    # The site admin's state: the proxy asked, and the domain answered over HTTPS.
    saved = _domain(new_domain)
    assert saved.certificate_requested is not None, caddy.output()
    assert saved.last_seen_https is not None and saved.last_seen_https >= saved.certificate_requested
    assert _domain("gay.localhost").last_seen_https is None  # only the name that was visited


def test_a_name_no_site_has_gets_no_certificate(caddy, site_server):
    for name in (f"stranger-{uuid.uuid4().hex[:6]}.example.com", "localhost.evil.example", ADMIN_HOST.upper() + ".x"):
        with pytest.raises(ssl.SSLError):
            caddy.handshake(name)
    # The operators' own host does get one.
    assert ("DNS", ADMIN_HOST) in caddy.handshake(ADMIN_HOST)["subjectAltName"]
    status, _body = caddy.get(ADMIN_HOST, "/admin/login/")
    assert status == 200


def test_a_switched_off_site_gets_no_new_certificate(caddy, gay_site, new_domain):
    _domain_save(gay_site, new_domain)
    in_thread(lambda: Site.objects.filter(pk=gay_site.pk).update(is_active=False))
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    try:
        with pytest.raises(ssl.SSLError):
            caddy.handshake(new_domain)
    finally:
        in_thread(lambda: Site.objects.filter(pk=gay_site.pk).update(is_active=True))
        site_cache_clear()


def test_the_chat_socket_works_through_the_proxy(caddy, committed, gay_site, new_domain):
    _domain_save(gay_site, new_domain)
    member = committed.member(gay_site, "Tls")
    session = committed.session(gay_site, member.user)
    raw = socket.create_connection(("127.0.0.1", caddy.https_port), timeout=DEADLINE)
    with connect(
        f"wss://{new_domain}:{caddy.https_port}/ws/",
        sock=raw,
        ssl=caddy.tls_context(),
        origin=f"https://{new_domain}:{caddy.https_port}",
        additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"},
        open_timeout=DEADLINE,
    ) as chat:
        chat.send(json.dumps({"type": "ping"}))
        assert json.loads(chat.recv(timeout=DEADLINE)) == {"type": "pong"}
