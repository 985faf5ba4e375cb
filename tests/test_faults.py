"""Faults on real services: Redis cut or stalled through a TCP proxy during a paid message
and a purchase webhook, the login lockout with Redis away, and the database connection
lost in the middle of a paid message. Each case has its one right answer (a paid message
needs no Redis: 201, its events given up; a webhook, a login and a lost database: 503),
never half-applied, and every balance still equals its ledger afterwards."""

from __future__ import annotations

import json
import logging
import uuid
from urllib.parse import urlsplit

import psycopg
import pytest
from channels.layers import channel_layers
from django.conf import settings
from django.db import connection
from django.test import Client

from apps.chat.models import Message
from apps.chat.services import conversation_open
from apps.chat.tests.helpers import credits_give, member
from apps.credits.management.commands.credits_check import balance_mismatches
from apps.payments.tests.helpers_core import buyer
from apps.payments.tests.test_webhooks import paid_at_the_sandbox, webhook
from apps.profiles.tests.helpers_view import PASSWORD
from conftest import on_site
from tests.faults import TcpProxy
from tests.live import in_thread

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_proxy(settings):
    """The Redis of the rate limits (the default cache) and of the channel layer is reached
    through a proxy the test controls. The evictable page cache ("volatile", CACHE_URL) is
    another service and stays as it is."""
    cache = settings.CACHES["default"]
    target = urlsplit(cache["LOCATION"])
    proxy = TcpProxy(target.port or 6379, target.hostname or "127.0.0.1")

    def through_proxy(url: str) -> str:
        parts = urlsplit(url)
        assert (parts.hostname, parts.port or 6379) == (target.hostname, target.port or 6379), url
        return f"redis://127.0.0.1:{proxy.port}{parts.path or '/0'}"

    settings.CACHES = {**settings.CACHES, "default": {**cache, "LOCATION": through_proxy(cache["LOCATION"])}}
    layer = settings.CHANNEL_LAYERS["default"]
    host = layer["CONFIG"]["hosts"][0]
    host = {**host, "address": through_proxy(host["address"]), "socket_connect_timeout": 2}
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [host]}}}
    channel_layers.backends.clear()
    yield proxy
    proxy.close()
    channel_layers.backends.clear()


def _balanced(site) -> None:
    with on_site(site):
        assert list(balance_mismatches()) == []


def _message(client: Client, conversation: int, client_id: str, text: str = "Hello"):
    body = {"conversation": conversation, "client_id": client_id, "text": text}
    return client.post("/api/message.php", json.dumps(body), content_type="application/json")


def _state(site, user, conversation: int) -> tuple[int, int]:
    with on_site(site):
        user.refresh_from_db()
        return user.credits, Message.objects.filter(conversation_id=conversation).count()


@pytest.fixture
def chat_pair(site, committed):
    """Anna (20 credits) in a conversation with Ben, with committed rows: the message is
    sent on a connection of its own, so its transaction commits and its events go out to
    Redis inside the request, as on the server."""
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben", gender="male")
    in_thread(credits_give, site, anna.user, 20)

    def open_conversation() -> int:
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk).pk

    return anna, in_thread(open_conversation), committed.session(site, anna.user)


def _message_as(session: str, conversation: int, client_id: str):
    """POST /api/message.php on a connection of its own (autocommit, like a request)."""

    def send():
        client = Client(HTTP_HOST="localhost")
        client.cookies[settings.SESSION_COOKIE_NAME] = session
        return _message(client, conversation, client_id)

    return in_thread(send)


@pytest.mark.parametrize("fault", ["down", "stalled"])
def test_redis_away_during_a_paid_message_send(site, chat_pair, redis_proxy, fault, monkeypatch, caplog):
    """The message and its payment are PostgreSQL's; Redis carries only its events. With
    Redis away the answer is 201, the message stored and paid once, and its events are
    given up and logged (at once when Redis refuses, after realtime.SEND_TIMEOUT when it
    hangs); the pages' polling shows the message."""
    from apps.common import realtime

    monkeypatch.setattr(realtime, "SEND_TIMEOUT", 0.5)
    anna, conversation, session = chat_pair
    before = in_thread(_state, site, anna.user, conversation)
    redis_proxy.cut() if fault == "down" else redis_proxy.stall()
    client_id = uuid.uuid4().hex
    with caplog.at_level(logging.ERROR, logger="apps.common.realtime"):
        first = _message_as(session, conversation, client_id)
    assert first.status_code == 201, first.content
    paid = first.json()["message"]["credits"]
    assert paid > 0
    assert in_thread(_state, site, anna.user, conversation) == (before[0] - paid, before[1] + 1)
    given_up = [record for record in caplog.records if record.getMessage().endswith("not sent")]
    assert given_up, "no event went to Redis: the fault was not on the path"
    if fault == "stalled":
        assert {record.exc_info[0] for record in given_up} == {TimeoutError}
    in_thread(_balanced, site)

    # Redis is back: the same message (same client_id) is the one stored, not paid again.
    redis_proxy.restore()
    again = _message_as(session, conversation, client_id)
    assert again.status_code == 200, again.content
    assert again.json()["message"]["id"] == first.json()["message"]["id"]
    assert in_thread(_state, site, anna.user, conversation) == (before[0] - paid, before[1] + 1)
    in_thread(_balanced, site)


def test_redis_down_during_a_purchase_webhook(site, redis_proxy):
    with on_site(site):
        user = buyer(site)
        payment = paid_at_the_sandbox(site, user)
        credits_before = user.credits
    redis_proxy.cut()
    client = Client(HTTP_HOST="localhost")
    refused = webhook(client, payment.provider_id)
    assert refused.status_code == 503  # the provider tries again later
    assert refused.json()["error"]["code"] == "unavailable"
    with on_site(site):
        payment.refresh_from_db()
        user.refresh_from_db()
        assert (payment.status, user.credits) == ("open", credits_before)
    redis_proxy.restore()
    for _ in range(2):
        assert webhook(client, payment.provider_id).status_code == 200
    with on_site(site):
        payment.refresh_from_db()
        user.refresh_from_db()
        assert payment.status == "paid" and user.credits == credits_before + payment.credits
    _balanced(site)


def test_with_redis_down_the_login_lockout_refuses_rather_than_allows(site, client_for, redis_proxy):
    anna = member(site, "Anna")
    redis_proxy.cut()
    client = client_for(site)
    for password in ("wrong-password", PASSWORD):
        response = client.post(
            "/api/user.php", {"email": anna.user.email, "password": password}, content_type="application/json"
        )
        assert response.status_code == 503, response.content
        assert response.json()["error"]["code"] == "unavailable"
    assert "_auth_user_id" not in client.session
    redis_proxy.restore()
    response = client.post(
        "/api/user.php", {"email": anna.user.email, "password": PASSWORD}, content_type="application/json"
    )
    assert response.status_code == 200, response.content


def test_the_database_connection_lost_in_the_middle_of_a_paid_message(site, committed):
    """The request's connection is killed as the message is about to be stored (as when
    PostgreSQL restarts): 503, nothing stored, nothing paid; the next request works."""
    anna = committed.member(site, "Anna")
    ben = committed.member(site, "Ben", gender="male")
    in_thread(credits_give, site, anna.user, 20)

    def open_conversation():
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk).pk

    conversation = in_thread(open_conversation)
    session = committed.session(site, anna.user)
    dsn = settings.DATABASES["default"]

    def kill_this_connection():
        pid = connection.connection.info.backend_pid
        with psycopg.connect(
            dbname=connection.settings_dict["NAME"],
            user=dsn.get("USER") or None,
            host=dsn.get("HOST") or None,
            port=dsn.get("PORT") or None,
            autocommit=True,
        ) as other:
            other.execute("SELECT pg_terminate_backend(%s)", [pid])

    message_table = f'INSERT INTO "{Message._meta.db_table}"'
    killed = []

    def kill_before_the_message_insert(execute, sql, params, many, context):
        """As the message is about to be stored, whatever statement stores it."""
        if not killed and sql.lstrip().startswith(message_table):
            killed.append(sql)
            kill_this_connection()
        return execute(sql, params, many, context)

    def send(client_id: str, *, fault: bool = False):
        client = Client(HTTP_HOST="localhost")
        client.cookies[settings.SESSION_COOKIE_NAME] = session
        with on_site(site):
            if not fault:
                return _message(client, conversation, client_id)
            with connection.execute_wrapper(kill_before_the_message_insert):
                return _message(client, conversation, client_id)

    def state():
        return _state(site, anna.user, conversation)

    before = in_thread(state)
    client_id = uuid.uuid4().hex
    lost = in_thread(send, client_id, fault=True)
    assert killed, "the message's INSERT was not on the path"
    assert lost.status_code == 503, lost.content
    assert lost.json()["error"]["code"] == "unavailable"
    assert in_thread(state) == before

    retried = in_thread(send, client_id)
    assert retried.status_code == 201, retried.content
    credits, count = in_thread(state)
    assert (credits, count) == (before[0] - retried.json()["message"]["credits"], before[1] + 1)
    in_thread(_balanced, site)


@pytest.mark.parametrize(("path", "json_error"), [("/api/search.php", True), ("/", False)])
def test_the_database_away_while_a_middleware_looks_the_site_up(site, path, json_error):
    """The site lookup (SiteMiddleware, before any view) cannot get a database connection,
    as when the pool is exhausted or PostgreSQL restarts: 503 with Retry-After, in the
    API's JSON shape or as an error page, never a 500."""
    from apps.tenants.middleware import site_cache_clear

    dsn = connection.settings_dict
    proxy = TcpProxy(int(dsn.get("PORT") or 5432), dsn.get("HOST") or "127.0.0.1")
    proxy.cut()

    def request():
        from django.db import connections

        own = connections["default"]
        own.settings_dict = {**own.settings_dict, "HOST": "127.0.0.1", "PORT": proxy.port}
        site_cache_clear()
        return Client(HTTP_HOST="localhost", raise_request_exception=False).get(path)

    try:
        response = in_thread(request)
    finally:
        proxy.close()
        site_cache_clear()
    assert response.status_code == 503, response.content[:300]
    assert response["Retry-After"]
    if json_error:
        assert response.json()["error"]["code"] == "unavailable"
    else:
        assert b"try again" in response.content
