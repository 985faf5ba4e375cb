"""Test harness: the test database holds the public schema, the template schema and
the two demo sites (created once per session); fixtures give each test a site, a
client bound to a site's host, and a live ASGI server driven by Debian's Chromium."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

from apps.tenants.models import Site

if TYPE_CHECKING:
    from tests.fake_push import FakePushService

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def _database_serving_role(django_db_blocker) -> dict:
    """The role the tests serve as (settings.DATABASE_SERVING_ROLE), made on the server
    before the test database is migrated, whose migrations grant it its rights."""
    from django.conf import settings

    from apps.common.database_roles import serving_role_create

    role, password = settings.DATABASE_SERVING_ROLE, settings.DATABASE_SERVING_PASSWORD
    if connection.settings_dict["USER"] == role:  # DATABASE_URL already names it
        return dict(connection.settings_dict)
    with django_db_blocker.unblock(), connection._nodb_cursor() as cursor:
        serving_role_create(cursor, role=role, password=password)
    return {**connection.settings_dict, "USER": role, "PASSWORD": password}


@pytest.fixture(scope="session")
def django_db_setup(_database_serving_role, django_db_setup, django_db_blocker):
    """After pytest-django made and migrated the test database as DATABASE_URL's role (the
    owner): the template schema, then every connection logs in as the serving role, as the
    processes of a deployment do, and the demo sites are cloned from the template as an
    operator's would be. The owner drops the database at the end."""
    from apps.common.database_roles import connection_as
    from apps.tenants.demo import demo_sites_ensure
    from apps.tenants.services import template_schema_migrate

    with django_db_blocker.unblock():
        template_schema_migrate()
        connection.set_schema_to_public()
    with connection_as(_database_serving_role):
        with django_db_blocker.unblock():
            demo_sites_ensure()
            connection.set_schema_to_public()
        yield
        with django_db_blocker.unblock():
            connection.close()


@pytest.fixture(autouse=True)
def _public_schema_after_test():
    yield
    connection.set_schema_to_public()


@pytest.fixture(autouse=True)
def _language_after_test():
    """A test-client request runs its middleware in the test's own thread, and the
    locale middleware leaves the request's language active there (a French cookie makes
    French the thread's language). Each test ends with the language it started with, so
    a later test's English texts do not depend on the order the tests ran in."""
    from django.utils import translation

    language = translation.get_language()
    yield
    translation.activate(language)


@pytest.fixture(autouse=True)
def _celery_join_allowed():
    """Eager tasks (the test settings) mark "inside a task" in a process-wide flag and put
    the old value back when they end; two running at once in the live server's threads (a
    message's notice, a mail) can leave it set, and a later test's `.get()` then fails with
    "Never call result.get() within a task!". Each test starts with it cleared."""
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(False)
    yield


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate-limit counters and cached entries live in Redis: each test starts clean.
    Only the test settings' key prefix is touched."""
    from django.conf import settings
    from django.core.cache import caches

    from apps.common.cache import volatile_reset

    def clear() -> None:
        volatile_reset()  # an outage of the evictable cache seen by an earlier test
        for alias in settings.CACHES:
            client = caches[alias]._cache.get_client(write=True)
            prefix = settings.CACHES[alias]["KEY_PREFIX"]
            keys = list(client.scan_iter(match=f"*:{prefix}:*", count=1000))  # schema:prefix:version:key
            if keys:
                client.delete(*keys)

    clear()
    yield
    clear()


@pytest.fixture(autouse=True)
def _clear_site_cache():
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    yield
    site_cache_clear()


@pytest.fixture
def committed(db):
    """Members and sessions with committed rows, for work on other connections (the live
    server, WebSocket consumers, racing threads); deleted again after the test."""
    from tests.live import Committed

    made = Committed()
    yield made
    made.cleanup()


@pytest.fixture
def site(db) -> Site:
    """The general demo site on `localhost` (niche 1)."""
    return Site.objects.get(domains__domain="localhost")


@pytest.fixture
def gay_site(db) -> Site:
    """The gay demo site on `gay.localhost` (niche 7)."""
    return Site.objects.get(domains__domain="gay.localhost")


@pytest.fixture
def two_sites(site, gay_site) -> tuple[Site, Site]:
    return site, gay_site


@contextlib.contextmanager
def on_site(site: Site) -> Iterator[Site]:
    """Run the block in the site's schema."""
    with schema_context(site.schema_name):
        connection.set_tenant(site)
        yield site


@pytest.fixture
def in_site(site) -> Iterator[Site]:
    with on_site(site):
        yield site


def site_client(site: Site, **defaults) -> Client:
    domain = site.domains.get(is_primary=True).domain
    return Client(HTTP_HOST=domain, **defaults)


@pytest.fixture
def client_for():
    return site_client


# --- Live server and browser ---------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    def __init__(self, port: int) -> None:
        self.port = port

    def url(self, host: str = "localhost", path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    """The app over ASGI (uvicorn) in a thread, on the test database."""
    import uvicorn

    from config.asgi import application

    port = _free_port()
    config = uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    with django_db_blocker.unblock():
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the ASGI test server did not start")
            time.sleep(0.05)
        yield LiveServer(port)
        server.should_exit = True
        thread.join(timeout=10)
        # The server's worker threads may still hold connections; end them so the
        # test database can be dropped.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture
def site_server(asgi_server, django_db_blocker) -> Iterator[LiveServer]:
    """Browser tests read and write committed data through the server thread."""
    with django_db_blocker.unblock():
        yield asgi_server


@pytest.fixture(scope="session")
def chromium():
    import os

    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in the main thread; the test's own
    # ORM calls there are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        loop = asyncio._get_running_loop()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        asyncio._set_running_loop(loop)  # the session's last test may have run without it
        browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Playwright's sync API leaves its event loop marked as running in the main thread
    for as long as the session's `chromium` lives. A later test without a browser would
    run as if called from that loop: its database connection would not be the one its
    test transaction was opened on, and apps.common.realtime would hand its sends to a
    loop that never runs them. Such a test runs, set-up to tear-down, without the mark."""
    loop = asyncio._get_running_loop()
    if loop is None or "chromium" in item.fixturenames:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


@pytest.fixture(params=["phone", "desktop"])
def viewport(request) -> dict:
    return PHONE if request.param == "phone" else DESKTOP


def csp_violations(context) -> list[str]:
    """Collects every Content Security Policy violation Chromium reports in `context`
    (an inline style or script, a connection to another host...)."""
    found: list[str] = []

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            found.append(f"{message.page.url if message.page else ''}: {message.text}")

    context.on("console", on_console)
    return found


@pytest.fixture
def browser_context(chromium, viewport):
    context = chromium.new_context(viewport=viewport, locale="en-US")
    violations = csp_violations(context)
    yield context
    context.close()
    assert not violations, f"CSP violations: {violations}"


@pytest.fixture
def new_context(chromium, viewport):
    """More browser contexts (a second member), checked for CSP violations like the first."""
    made: list[tuple[object, list[str]]] = []

    def make():
        context = chromium.new_context(viewport=viewport, locale="en-US")
        made.append((context, csp_violations(context)))
        return context

    yield make
    for context, violations in made:
        context.close()
        assert not violations, f"CSP violations: {violations}"


@pytest.fixture
def page(browser_context):
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert not errors, f"JavaScript errors on the page: {errors}"


# --- Web Push ----------------------------------------------------------------------


@pytest.fixture
def fake_push() -> Iterator[FakePushService]:
    """A local Web Push service (tests/fake_push.py) on 127.0.0.1 with a random port:
    `fake_push.subscription()` makes a browser's subscription, pushes sent to it are
    checked (VAPID, TTL, aes128gcm) and decrypted into `fake_push.pushes`."""
    from tests.fake_push import FakePushService

    with FakePushService() as service:
        yield service
