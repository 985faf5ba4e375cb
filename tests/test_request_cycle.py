"""The request cycle where it leans on asgiref and the ASGI server (apps.common.asgi,
apps.common.realtime; docs/security.md "Request cycle"), on the live uvicorn server of the
tests and on the site's ASGI handler itself:

- chat events find the server's event loop from a view's thread, so a member's answer never
  waits for Redis (asgiref pinned in requirements.txt: an upgrade that moves its note of the
  loop fails here, not quietly in production);
- where there is no server loop, a send gives up after its timeout;
- the work a view leaves for after its response (the badge counts) is done also when the
  client goes away before the response is sent;
- a request thread taken from the handler's pool carries no site, member or language of
  the request before into the next one."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import threading
import time
import uuid
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers
from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.signals import request_started
from django.db import connection
from django.utils import translation
from django.utils.html import escape
from django.utils.module_loading import import_string
from django_tenants.utils import get_public_schema_name

from apps.chat import events
from apps.chat.models import Participant
from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import credits_give
from apps.common import locale, realtime
from apps.common.asgi import SiteASGIHandler
from apps.common.exceptions import RETRY_AFTER_SECONDS, unavailable_body, unavailable_message
from apps.common.realtime import HANDLER, member_group, message_events
from conftest import on_site
from tests.faults import TcpProxy
from tests.live import client as live_client
from tests.live import in_thread

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
# Generous for a busy two-core machine; every wait below ends as soon as its state is reached.
DEADLINE = 30


@pytest.fixture
def pair(site, committed):
    """Anna (20 credits, logged in) and Ben with a conversation: committed rows."""
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben", gender="male")
    in_thread(credits_give, site, anna.user, 20)

    def open_conversation() -> int:
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk).pk

    conversation = in_thread(open_conversation)
    return anna, ben, conversation, committed.session(site, anna.user)


def _message_body(conversation: int, text: str) -> dict:
    return {"conversation": conversation, "client_id": uuid.uuid4().hex, "text": text}


def _layer_direct(address: str):
    """A channel layer of its own on Redis itself (not through the test's proxy)."""
    config = settings.CHANNEL_LAYERS["default"]
    hosts = [{**config["CONFIG"]["hosts"][0], "address": address}]
    return import_string(config["BACKEND"])(**{**config["CONFIG"], "hosts": hosts})


def _listen(layer, site, user_id: int) -> str:
    channel = f"test.listener.{uuid.uuid4().hex}"
    in_thread(async_to_sync(layer.group_add), member_group(site_id=site.pk, user_id=user_id), channel)
    return channel


def _next_event(layer, channel: str, kind: str) -> dict:
    async def receive() -> dict:
        while True:
            message = await asyncio.wait_for(layer.receive(channel), timeout=DEADLINE)
            assert message["type"] == HANDLER
            for event in message_events(message):
                if event["type"] == kind:
                    return event

    return in_thread(async_to_sync(receive))


@pytest.fixture
def layer_proxy(settings):
    """The channel layer (only) reaches Redis through a proxy the test controls."""
    layer = settings.CHANNEL_LAYERS["default"]
    host = layer["CONFIG"]["hosts"][0]
    target = urlsplit(host["address"])
    proxy = TcpProxy(target.port or 6379, target.hostname or "127.0.0.1")
    address = f"redis://127.0.0.1:{proxy.port}{target.path or '/0'}"
    hosts = [{**host, "address": address}]
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": hosts}}}
    channel_layers.backends.clear()
    proxy.direct_address = host["address"]
    yield proxy
    proxy.close()
    channel_layers.backends.clear()


def test_request_cycle_chat_events_find_the_servers_event_loop(site_server, site, pair, layer_proxy, monkeypatch):
    """On the live server, with the channel layer's Redis stalled: the paid message is
    answered at once, because its events were handed to the server's loop (found through
    asgiref's note in the view's thread); once Redis answers again they reach the
    recipient. Were the loop not found, the view's thread would itself wait for the stalled
    Redis and give the events up."""
    _anna, ben, conversation, session = pair
    direct = _layer_direct(layer_proxy.direct_address)
    bens = _listen(direct, site, ben.user_id)
    found = []
    server_loop = realtime._server_loop

    def server_loop_noted():
        loop = server_loop()
        found.append(loop)
        return loop

    monkeypatch.setattr(realtime, "_server_loop", server_loop_noted)
    layer_proxy.stall()
    csrf = uuid.uuid4().hex
    with live_client(site_server, "localhost", session) as client:
        client.cookies.set(settings.CSRF_COOKIE_NAME, csrf)
        response = client.post(
            "/api/message.php",
            json=_message_body(conversation, "While Redis stalls"),
            headers={"Origin": f"http://localhost:{site_server.port}", "X-CSRFToken": csrf},
        )
    assert response.status_code == 201, response.text[:300]
    assert found, "the message sent no event"
    assert all(loop is not None and loop.is_running() for loop in found), (
        "chat events found no server event loop in the view's thread: asgiref's or the server's "
        f"request cycle changed (asgiref {version('asgiref')}), and every send now blocks its request"
    )
    layer_proxy.restore()
    event = _next_event(direct, bens, "message.new")
    assert event["message"]["id"] == response.json()["message"]["id"]


def test_request_cycle_a_send_without_a_server_loop_gives_up_after_its_timeout(site, layer_proxy, monkeypatch, caplog):
    """In a thread with no server loop (a Celery task, a command) an event is sent at once
    and its caller waits; with Redis stalled it waits SEND_TIMEOUT, logs, and goes on."""
    monkeypatch.setattr(realtime, "SEND_TIMEOUT", 0.5)
    layer_proxy.stall()

    def send() -> float:
        started = time.monotonic()
        realtime.event_send(site_id=site.pk, user_id=1, event={"type": "badges", "credits": 1})
        return time.monotonic() - started

    with caplog.at_level(logging.ERROR, logger="apps.common.realtime"):
        waited = in_thread(send)
    assert waited >= 0.5
    assert [record.exc_info[0] for record in caplog.records if "not sent" in record.getMessage()] == [TimeoutError]


def _raw_post(port: int, path: str, body: dict, cookies: str, csrf: str) -> socket.socket:
    data = json.dumps(body).encode()
    host = f"localhost:{port}"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nX-CSRFToken: {csrf}\r\n"
        f"Cookie: {cookies}\r\n\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    sock.sendall(head.encode() + data)
    return sock


def test_request_cycle_after_response_work_is_done_when_the_client_leaves_mid_response(
    site_server, site, pair, committed, monkeypatch
):
    """On the live server: a member opens a conversation with an unread message (POST
    /api/chat-read.php) and goes away before the answer is sent (a phone losing its
    network). The conversation is read, and the work the view left for after its
    response, the member's unread badge, is still done. (A message's own badge travels
    with it since issue 28 and leaves nothing for after its answer.)"""
    from apps.chat.api import views

    anna, ben, conversation, _session = pair
    session = committed.session(site, ben.user)

    def unread_message() -> None:
        with on_site(site):
            message_send(user=anna.user, conversation_id=conversation, client_id=uuid.uuid4().hex, text="Hi")

    in_thread(unread_message)
    held, left, counted = threading.Event(), threading.Event(), threading.Event()
    waited = []

    listen = SiteASGIHandler.listen_for_disconnect

    async def listen_noting_the_disconnect(self, receive):
        try:
            return await listen(self, receive)
        except RequestAborted:
            left.set()
            raise

    run_after_sent = views.run_after_sent

    def run_after_sent_once_the_client_left(response, jobs):
        run_after_sent(response, jobs)
        held.set()
        waited.append(left.wait(DEADLINE))  # the view returns only after the server saw the client go

    unread_send = events.unread_send
    counts = []

    def unread_send_noted(**kwargs):
        unread_send(**kwargs)
        counts.append(kwargs["user_id"])
        counted.set()

    monkeypatch.setattr(SiteASGIHandler, "listen_for_disconnect", listen_noting_the_disconnect)
    monkeypatch.setattr(views, "run_after_sent", run_after_sent_once_the_client_left)
    monkeypatch.setattr(events, "unread_send", unread_send_noted)

    csrf = uuid.uuid4().hex
    cookies = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={csrf}"
    sock = _raw_post(site_server.port, "/api/chat-read.php", {"conversation": conversation}, cookies, csrf)
    try:
        assert held.wait(DEADLINE), "the view did not run"
    finally:
        sock.close()  # mid-response: the view has run, nothing of the answer has been sent
    assert counted.wait(DEADLINE), "the after-response work was lost with the client"
    assert waited == [True], "the server did not notice the client leaving"
    assert counts == [ben.user_id]

    def unread() -> list[int]:
        with on_site(site):
            return list(Participant.objects.filter(user_id=ben.user_id).values_list("num_unread", flat=True))

    assert in_thread(unread) == [0]


# --- A pooled thread, one request after another -------------------------------------------


async def _get(handler: SiteASGIHandler, host: str, path: str, headers: dict[str, str]) -> dict:
    """One GET through the handler, awaited to its end (the thread is back in the pool)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", host.encode())] + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    requested = False
    answer: dict = {"body": b""}

    async def receive():
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays until the handler is done

    async def send(message):
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        else:
            answer["body"] += message.get("body", b"")

    await handler(scope, receive, send)
    return {
        "status": answer["status"],
        "language": answer["headers"].get("content-language"),
        "body": answer["body"],
    }


async def _get_with_headers(handler: SiteASGIHandler, host: str, path: str, headers: dict[str, str]) -> dict:
    """`_get` with the response's headers."""
    seen: dict = {}

    async def noting(scope, receive, send):
        async def send_noting(message):
            if message["type"] == "http.response.start":
                seen.update({k.decode().lower(): v.decode() for k, v in message["headers"]})
            await send(message)

        await SiteASGIHandler.__call__(handler, scope, receive, send_noting)

    answer = await _get(noting, host, path, headers)
    return {**answer, "headers": seen}


def test_request_cycle_a_pooled_thread_carries_no_site_member_or_language_into_the_next_request(
    site, gay_site, committed
):
    """Anna, logged in on localhost and reading French, then a visitor on gay.localhost and
    one on localhost, one after another on one thread of the handler's pool: each later
    request starts in the public schema, with no language active and no request bound,
    and gets the answer a fresh thread gives it."""
    anna = committed.member(site, "Anna")
    session = committed.session(site, anna.user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.LANGUAGE_COOKIE_NAME}=fr"
    annas = ("localhost", {"cookie": cookie})
    visitors = [("gay.localhost", {}), ("localhost", {})]
    started = []

    def at_start(**kwargs):
        started.append(
            {
                "thread": threading.get_ident(),
                "schema": connection.schema_name,
                "language": translation.get_language(),
                "request": locale.current_request(),
            }
        )

    handlers = []

    def handler() -> SiteASGIHandler:
        handlers.append(SiteASGIHandler())
        return handlers[-1]

    async def fresh(host, headers) -> dict:
        return await _get(handler(), host, "/api/user.php", headers)

    async def in_a_row() -> list[dict]:
        pooled = handler()
        return [await _get(pooled, host, "/api/user.php", headers) for host, headers in [annas, *visitors]]

    request_started.connect(at_start, weak=False, dispatch_uid="request-cycle-at-start")
    try:
        expected = [in_thread(async_to_sync(fresh), host, headers) for host, headers in visitors]
        started.clear()
        answers = in_thread(async_to_sync(in_a_row))
    finally:
        request_started.disconnect(dispatch_uid="request-cycle-at-start")
        for made in handlers:
            for executor in made._idle:
                executor.shutdown()

    assert answers[0]["status"] == 200 and answers[0]["language"] == "fr"
    assert json.loads(answers[0]["body"])["user"]["id"] == anna.user_id
    assert len({start["thread"] for start in started}) == 1, "the requests did not share a pooled thread"
    clean = {"schema": get_public_schema_name(), "language": settings.LANGUAGE_CODE, "request": None}
    for start in started[1:]:
        assert {key: start[key] for key in clean} == clean
    assert answers[1:] == expected
    assert all(answer["status"] != 200 for answer in expected)  # nobody logged in


def test_request_cycle_asgiref_is_pinned_to_the_version_installed():
    """The request cycle reads asgiref beyond its documented API (apps.common.realtime,
    apps.common.asgi): the version is a decision, not whatever Django's range allows."""
    pins = re.findall(r"^asgiref==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert pins == [version("asgiref")]


# --- Load shedding -------------------------------------------------------------------------


def test_request_cycle_past_its_slots_a_request_waits_its_turn_or_gets_503_with_retry_after(site, settings):
    """With every slot taken (REQUEST_CONCURRENCY) a request waits up to
    REQUEST_QUEUE_SECONDS for one: given none, it is answered 503 with Retry-After at once,
    in the visitor's language, as JSON under /api/, without reaching Django; given one, it
    is served as usual."""
    settings.REQUEST_CONCURRENCY = 1
    settings.REQUEST_QUEUE_SECONDS = 0
    entered, release = threading.Event(), threading.Event()
    reached: list[str] = []
    handler = SiteASGIHandler()
    respond = handler._respond

    def held(request):
        reached.append(request.path)
        if request.path == "/pages/faq":
            entered.set()
            release.wait(60)
        return respond(request)

    handler._respond = held

    async def run() -> tuple[dict, dict, dict, dict]:
        first = asyncio.ensure_future(_get_with_headers(handler, "localhost", "/pages/faq", {}))
        assert await asyncio.to_thread(entered.wait, 60)  # the one slot is taken
        page = await _get_with_headers(handler, "localhost", "/", {"accept-language": "de"})
        api = await _get_with_headers(handler, "localhost", "/api/user.php", {"accept-language": "fr-CH, fr;q=0.9"})
        settings.REQUEST_QUEUE_SECONDS = 60
        waiting = asyncio.ensure_future(_get_with_headers(handler, "localhost", "/", {}))
        await asyncio.sleep(0)  # it is in the line, behind the held request
        assert not waiting.done()
        release.set()
        return await first, page, api, await waiting

    try:
        first, page, api, waited = in_thread(async_to_sync(run))
    finally:
        release.set()
        for executor in handler._idle:
            executor.shutdown()

    assert first["status"] == 200 and waited["status"] == 200
    assert reached == ["/pages/faq", "/"]  # the shed ones never reached Django
    for shed in (page, api):
        assert shed["status"] == 503
        assert shed["headers"]["retry-after"] == str(RETRY_AFTER_SECONDS)
    assert page["headers"]["content-type"].startswith("text/html")
    with translation.override("de"):
        assert escape(unavailable_message()).encode() in page["body"]
    assert api["headers"]["content-type"] == "application/json"
    with translation.override("fr"):
        assert json.loads(api["body"]) == unavailable_body()
        assert unavailable_message() != "The service is busy right now. Please try again in a moment."
