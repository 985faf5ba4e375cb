"""The WebSocket at /ws/ (config.asgi, apps.chat.routing, apps.chat.consumers), through
the whole ASGI application with Channels' WebsocketCommunicator and the real Redis
channel layer. Rows are committed (apps/chat/tests/conftest.py); each async test body
runs in a worker thread, whose connection the consumer's database calls share."""

import asyncio
import contextlib
import json
import secrets
import threading
import uuid
from urllib.parse import urlsplit

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.conf import settings

from apps.chat import events
from apps.chat.consumers import MAX_FRAME_BYTES, RATE_BURST
from apps.chat.models import Message
from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import credits_give
from apps.chat.tests.ws import HttpCommunicator, WebsocketCommunicator
from apps.likes.services import like_create
from config.asgi import application
from conftest import on_site
from tests.live import in_thread

pytestmark = pytest.mark.django_db

TIMEOUT = 3


def _socket(host: str, session: str | None = None, origin: str | None = "same") -> WebsocketCommunicator:
    headers = [(b"host", host.encode())]
    if origin == "same":
        origin = f"http://{host}"
    if origin:
        headers.append((b"origin", origin.encode()))
    if session:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}; other=1".encode()))
    return WebsocketCommunicator(application, "/ws/", headers=headers)


def run(body):
    """Run an async test body on a worker thread with its own database connection.

    Each body gets a channel layer of its own: a RedisChannelLayer receives for one
    event loop at a time (a server process has one; every test body here is a new one)."""
    channel_layers.backends.clear()
    try:
        in_thread(async_to_sync(body))
    finally:
        # Nor is this one left to the live server's loop (tests/browser).
        channel_layers.backends.clear()


async def _until(socket: WebsocketCommunicator, kind: str) -> dict:
    """The next event of `kind`, skipping others (badges arrive next to each event)."""
    while True:
        event = await socket.receive_json_from(timeout=TIMEOUT)
        if event["type"] == kind:
            return event


def _send_sync(site, sender, conversation, text):
    with on_site(site):
        return message_send(user=sender.user, conversation_id=conversation.pk, client_id=uuid.uuid4().hex, text=text)


# --- Who may connect ------------------------------------------------------------------------


def test_a_member_connects_on_their_sites_host(committed, site, pair):
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    async def body():
        socket = _socket("localhost:8000", session)
        connected, _ = await socket.connect(timeout=TIMEOUT)
        assert connected
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
        await socket.disconnect()

    run(body)


@pytest.mark.parametrize(
    ("case", "host", "origin"),
    [
        ("anonymous", "localhost", "same"),
        ("no origin", "localhost", None),
        ("other origin", "localhost", "https://evil.example"),
        ("other site's origin", "localhost", "http://gay.localhost"),
        ("unknown host", "nosuchsite.example", "same"),
        ("other site's host", "gay.localhost", "same"),
    ],
)
def test_sockets_are_refused_without_a_member_of_the_site_or_from_elsewhere(committed, site, pair, case, host, origin):
    anna, _ben, _conversation = pair
    session = None if case == "anonymous" else committed.session(site, anna.user)

    async def body():
        socket = _socket(host, session, origin)
        connected, _code = await socket.connect(timeout=TIMEOUT)
        assert not connected, case
        await socket.disconnect()

    run(body)


# --- Events ------------------------------------------------------------------------------------


def test_a_new_message_reaches_the_recipient_and_the_senders_other_tabs_with_badges(committed, site, pair):
    anna, ben, conversation = pair
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)

    async def body():
        bens, annas = _socket("localhost", ben_session), _socket("localhost", anna_session)
        assert (await bens.connect(timeout=TIMEOUT))[0] and (await annas.connect(timeout=TIMEOUT))[0]
        message, _created = await database_sync_to_async(_send_sync)(site, anna, conversation, "<b>Hi</b> Ben")

        event = await _until(bens, "message.new")
        assert event["message"]["id"] == message.pk
        assert (event["message"]["text"], event["message"]["mine"]) == ("<b>Hi</b> Ben", False)
        assert "client_id" not in event["message"]
        badges = await _until(bens, "badges")
        assert badges["unreadMessages"] == 1

        own = await _until(annas, "message.new")
        assert (own["message"]["mine"], own["message"]["client_id"]) == (True, message.client_id)
        assert (await _until(annas, "badges"))["credits"] == 9
        await bens.disconnect()
        await annas.disconnect()

    run(body)


def test_the_senders_answer_waits_for_no_badge_count(committed, site, pair, monkeypatch):
    """POST /api/message.php through the ASGI application: the recipient's copy with their
    unread badge (counted by the message's own listing statement), the sender's other tabs'
    copy and their new balance leave at commit without being waited for, and the answer
    goes out. No badge is counted after commit: a count there would wait until the test
    has read the answer, and an answer that waited for it would not come in time."""
    anna, ben, conversation = pair
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)
    answered = threading.Event()
    waited_in_vain = []
    unread_send = events.unread_send

    def unread_send_after_the_answer(**kwargs):
        waited_in_vain.append(not answered.wait(2 * TIMEOUT))
        unread_send(**kwargs)

    monkeypatch.setattr(events, "unread_send", unread_send_after_the_answer)  # not called at all
    csrf = secrets.token_hex(16)
    cookies = f"{settings.SESSION_COOKIE_NAME}={anna_session}; {settings.CSRF_COOKIE_NAME}={csrf}"
    body_json = {"conversation": conversation.pk, "client_id": uuid.uuid4().hex, "text": "Hi Ben"}

    async def body():
        bens, annas = _socket("localhost", ben_session), _socket("localhost", anna_session)
        assert (await bens.connect(timeout=TIMEOUT))[0] and (await annas.connect(timeout=TIMEOUT))[0]
        post = HttpCommunicator(
            application,
            "POST",
            "/api/message.php",
            body=json.dumps(body_json).encode(),
            headers=[
                (b"host", b"localhost"),
                (b"origin", b"http://localhost"),
                (b"content-type", b"application/json"),
                (b"x-csrftoken", csrf.encode()),
                (b"cookie", cookies.encode()),
            ],
        )
        response = await post.get_response(timeout=TIMEOUT)
        answered.set()
        assert response["status"] == 201, response["body"][:300]
        message = json.loads(response["body"])["message"]

        event = await _until(bens, "message.new")
        assert (event["message"]["id"], event["message"]["mine"]) == (message["id"], False)
        assert (await _until(bens, "badges"))["unreadMessages"] == 1
        own = await _until(annas, "message.new")
        assert (own["message"]["id"], own["message"]["mine"]) == (message["id"], True)
        assert (await _until(annas, "badges"))["credits"] == 9
        await post.wait(timeout=TIMEOUT)
        await bens.disconnect()
        await annas.disconnect()

    run(body)
    assert waited_in_vain == []


def test_typing_read_and_delivered_go_to_the_other_member(committed, site, pair):
    anna, ben, conversation = pair
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)

    async def body():
        bens, annas = _socket("localhost", ben_session), _socket("localhost", anna_session)
        assert (await bens.connect(timeout=TIMEOUT))[0] and (await annas.connect(timeout=TIMEOUT))[0]
        message, _created = await database_sync_to_async(_send_sync)(site, anna, conversation, "Hi")
        await _until(bens, "message.new")

        await annas.send_json_to({"type": "typing", "conversation": conversation.pk})
        await annas.send_json_to({"type": "typing", "conversation": conversation.pk})  # Throttled.
        assert await _until(bens, "typing") == {"type": "typing", "conversation": conversation.pk}

        await bens.send_json_to({"type": "delivered", "conversation": conversation.pk, "up_to": message.pk})
        delivered = await _until(annas, "delivered")
        assert (delivered["conversation"], delivered["up_to"]) == (conversation.pk, message.pk)

        await bens.send_json_to({"type": "read", "conversation": conversation.pk})
        read = await _until(annas, "read")
        assert (read["conversation"], read["up_to"]) == (conversation.pk, message.pk)
        assert (await _until(bens, "badges"))["unreadMessages"] == 0
        # Only one typing event came through.
        assert await bens.receive_nothing(timeout=0.3)
        await bens.disconnect()
        await annas.disconnect()

    run(body)


def test_messages_sent_while_the_recipient_was_offline_are_delivered_when_a_socket_opens(committed, site, pair):
    anna, ben, conversation = pair
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)
    first, _ = in_thread(_send_sync, site, anna, conversation, "Are you there?")
    second, _ = in_thread(_send_sync, site, anna, conversation, "Hello?")

    async def body():
        annas = _socket("localhost", anna_session)
        assert (await annas.connect(timeout=TIMEOUT))[0]
        assert await annas.receive_nothing(timeout=0.3)  # Anna's own socket delivers nothing
        bens = _socket("localhost", ben_session)
        assert (await bens.connect(timeout=TIMEOUT))[0]
        delivered = await _until(annas, "delivered")
        assert (delivered["conversation"], delivered["up_to"]) == (conversation.pk, second.pk)
        # Once: a second socket of Ben's finds nothing waiting.
        again = _socket("localhost", ben_session)
        assert (await again.connect(timeout=TIMEOUT))[0]
        assert await annas.receive_nothing(timeout=0.3)
        for socket in (annas, bens, again):
            await socket.disconnect()

    run(body)

    def states():
        with on_site(site):
            return set(Message.objects.filter(pk__in=[first.pk, second.pk]).values_list("delivered_at", flat=True))

    assert None not in in_thread(states)


def test_sockets_opening_at_once_deliver_what_waits_for_each_member_in_shared_batches(
    committed, site, pair, monkeypatch
):
    """A crowd reconnecting at once (a deploy) marks what waited for each member delivered
    in batches: one database hop for many sockets, and still each member gets only the
    messages sent to them, each sender hears of it, and a member with nothing waiting
    delivers nothing. Anna and Ben each wrote to the other while both were offline."""
    from apps.chat import consumers

    anna, ben, conversation = pair
    carl = committed.member(site, "Carl")
    sessions = {
        "anna": committed.session(site, anna.user),
        "ben": committed.session(site, ben.user),
        "carl": committed.session(site, carl.user),
    }
    to_ben, _ = in_thread(_send_sync, site, anna, conversation, "Are you there?")
    to_anna, _ = in_thread(_send_sync, site, ben, conversation, "Yes, are you?")
    batches: list[int] = []
    deliver = consumers._delivered_pending

    def counted(items):
        batches.append(len(items))
        return deliver(items)

    monkeypatch.setattr(consumers, "_delivered_pending", counted)
    who = ["anna", "ben", "carl"] * 4

    async def body():
        sockets = [_socket("localhost", sessions[name]) for name in who]
        results = await asyncio.gather(*(socket.connect(timeout=TIMEOUT) for socket in sockets))
        assert all(connected for connected, _ in results)
        heard = {}
        for name, socket in zip(who, sockets, strict=True):
            if name != "carl" and name not in heard:
                event = await _until(socket, "delivered")
                heard[name] = (event["conversation"], event["up_to"])
        # Each sender hears that their own message was delivered.
        assert heard == {"anna": (conversation.pk, to_ben.pk), "ben": (conversation.pk, to_anna.pk)}
        assert sum(batches) == len(who) and len(batches) < len(who)
        for socket in sockets:
            await socket.disconnect()

    run(body)

    def states():
        with on_site(site):
            return set(Message.objects.filter(pk__in=[to_ben.pk, to_anna.pk]).values_list("delivered_at", flat=True))

    assert None not in in_thread(states)


def test_typing_into_someone_elses_conversation_reaches_nobody(committed, site, pair):
    _anna, ben, conversation = pair
    carl = committed.member(site, "Carl")
    carl_session, ben_session = committed.session(site, carl.user), committed.session(site, ben.user)

    async def body():
        bens, carls = _socket("localhost", ben_session), _socket("localhost", carl_session)
        assert (await bens.connect(timeout=TIMEOUT))[0] and (await carls.connect(timeout=TIMEOUT))[0]
        await carls.send_json_to({"type": "typing", "conversation": conversation.pk})
        await carls.send_json_to({"type": "read", "conversation": conversation.pk})
        error = await carls.receive_json_from(timeout=TIMEOUT)
        assert error == {"type": "error", "code": "conversation_not_found", "conversation": conversation.pk}
        assert await bens.receive_nothing(timeout=0.5)
        await bens.disconnect()
        await carls.disconnect()

    run(body)


def test_likes_and_matches_are_announced(committed, site, pair):
    anna, ben, _conversation = pair
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)

    def like(liker, profile):
        with on_site(site):
            like_create(liker=liker.user, profile_id=profile.pk)

    async def body():
        bens, annas = _socket("localhost", ben_session), _socket("localhost", anna_session)
        assert (await bens.connect(timeout=TIMEOUT))[0] and (await annas.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(like)(anna, ben)
        event = await _until(bens, "like")
        assert event["profile"]["id"] == anna.pk
        assert (await _until(bens, "badges"))["newLikes"] == 1
        await database_sync_to_async(like)(ben, anna)
        assert (await _until(annas, "match"))["profile"]["id"] == ben.pk
        assert (await _until(bens, "match"))["profile"]["id"] == anna.pk
        await bens.disconnect()
        await annas.disconnect()

    run(body)


def test_a_socket_on_one_site_never_receives_another_sites_events(committed, site, gay_site):
    """The same member id on two sites: an event on one site stays there."""
    user_id = 900_000_000 + uuid.uuid4().int % 1_000_000
    here = committed.member(site, "Here", user_fields={"id": user_id})
    there = committed.member(gay_site, "There", gender="male", user_fields={"id": user_id})
    writer = committed.member(gay_site, "Writer", gender="male")
    in_thread(credits_give, gay_site, writer.user, 5)
    here_session, there_session = committed.session(site, here.user), committed.session(gay_site, there.user)

    def write():
        with on_site(gay_site):
            conversation = conversation_open(user=writer.user, profile_id=there.pk)
            message_send(user=writer.user, conversation_id=conversation.pk, client_id=uuid.uuid4().hex, text="Hi")

    async def body():
        heres, theres = _socket("localhost", here_session), _socket("gay.localhost", there_session)
        assert (await heres.connect(timeout=TIMEOUT))[0] and (await theres.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(write)()
        assert (await _until(theres, "message.new"))["message"]["text"] == "Hi"
        assert await heres.receive_nothing(timeout=0.5)
        await heres.disconnect()
        await theres.disconnect()

    assert here.user_id == there.user_id == user_id
    run(body)


# --- Limits on incoming frames -------------------------------------------------------------------


def test_an_oversized_frame_closes_the_socket(committed, site, pair):
    anna, _ben, conversation = pair
    session = committed.session(site, anna.user)

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        await socket.send_to(
            text_data=json.dumps({"type": "typing", "conversation": conversation.pk, "x": "a" * MAX_FRAME_BYTES})
        )
        closed = await socket.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": 1009}
        await socket.disconnect()

    run(body)


def test_too_many_frames_close_the_socket(committed, site, pair):
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        for _ in range(RATE_BURST + 5):
            await socket.send_json_to({"type": "ping"})
        pongs = 0
        while True:
            output = await socket.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                assert output["code"] == 1008
                break
            pongs += 1
        assert RATE_BURST <= pongs < RATE_BURST + 5
        await socket.disconnect()

    run(body)


def test_malformed_frames_get_an_error_and_keep_the_socket(committed, site, pair):
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        for frame in ("not json", "[1, 2]", json.dumps({"type": "typing", "conversation": "1"})):
            await socket.send_to(text_data=frame)
            assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "error", "code": "invalid"}
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
        await socket.disconnect()

    run(body)


def test_a_switched_off_site_takes_no_live_connection(committed, site, pair):
    """Issue 15: an operator switches the site off; its members' sockets are refused
    until it is on again."""
    from apps.tenants.middleware import site_cache_clear
    from apps.tenants.models import Site

    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    def switch(on: bool) -> None:
        Site.objects.filter(pk=site.pk).update(is_active=on)
        site_cache_clear()

    async def connects() -> bool:
        socket = _socket("localhost:8000", session)
        connected, _ = await socket.connect(timeout=TIMEOUT)
        if connected:
            await socket.disconnect()
        return connected

    in_thread(switch, False)
    try:
        assert in_thread(async_to_sync(connects)) is False
    finally:
        in_thread(switch, True)
    assert in_thread(async_to_sync(connects)) is True


def test_a_socket_whose_client_is_gone_when_an_event_arrives_leaves_its_group(committed, site, pair):
    """The server (uvicorn) raises ClientDisconnected from a send to a client that has
    already gone, and the consumer then ends without a websocket.disconnect. It must
    still leave the member's group: it was left in Redis (bench "scale", a member group
    after 10,000 sockets closed at once while events were on their way to them)."""
    from uvicorn.protocols.utils import ClientDisconnected

    from apps.common.realtime import HANDLER, member_group

    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)
    gone = threading.Event()

    def as_the_server(app):
        async def wrapped(scope, receive, send):
            async def send_or_fail(message):
                if gone.is_set():  # what uvicorn's send does once the client disconnected
                    raise ClientDisconnected()
                await send(message)

            with contextlib.suppress(ClientDisconnected):  # as uvicorn's run_asgi: nothing logged
                await app(scope, receive, send_or_fail)

        return wrapped

    async def body():
        layer = channel_layers["default"]
        group = member_group(site_id=site.pk, user_id=anna.user.pk)
        key = layer._group_key(group)
        connection = layer.connection(layer.consistent_hash(group))
        before = set(await connection.zrange(key, 0, -1))  # another test's socket may be there
        headers = _socket("localhost", session).scope["headers"]  # the same socket, through the server's send
        socket = WebsocketCommunicator(as_the_server(application), "/ws/", headers=headers)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
        assert len(set(await connection.zrange(key, 0, -1)) - before) == 1
        gone.set()
        await layer.group_send(group, {"type": HANDLER, "event": {"type": "typing", "conversation": 1}})
        await socket.wait(TIMEOUT)  # the consumer ended with the failed send
        assert set(await connection.zrange(key, 0, -1)) - before == set()

    run(body)


def test_a_closing_socket_leaves_its_group_once_redis_answers_again(committed, site, pair, settings, monkeypatch):
    """Thousands of sockets closing at once on a saturated machine had their Redis
    connections time out, and each such socket stayed in its member's group until the
    group's expiry (bench "scale": 64 groups of 400 left). A socket whose group_discard
    fails tries again, a little later each time, and leaves the group once Redis answers."""
    import redis.asyncio
    import redis.exceptions

    from apps.chat import consumers
    from apps.common.realtime import member_group
    from tests.faults import TcpProxy

    monkeypatch.setattr(consumers, "DISCARD_RETRY_SECONDS", (0.1,) * 50)
    layer_settings = settings.CHANNEL_LAYERS["default"]
    host = layer_settings["CONFIG"]["hosts"][0]
    address = urlsplit(host["address"])
    proxy = TcpProxy(address.port or 6379, address.hostname or "127.0.0.1")
    through = {**host, "address": proxy.url(path=address.path or "/0"), "socket_connect_timeout": 1}
    config = {**layer_settings["CONFIG"], "hosts": [through]}
    settings.CHANNEL_LAYERS = {"default": {**layer_settings, "CONFIG": config}}
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    async def body():
        layer = channel_layers["default"]
        group = member_group(site_id=site.pk, user_id=anna.user.pk)
        key = layer._group_key(group)
        direct = redis.asyncio.Redis.from_url(host["address"])  # the real Redis, not through the proxy
        try:
            before = set(await direct.zrange(key, 0, -1))  # another test's socket may be there
            socket = _socket("localhost", session)
            assert (await socket.connect(timeout=TIMEOUT))[0]
            await socket.send_json_to({"type": "ping"})
            assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
            assert len(set(await direct.zrange(key, 0, -1)) - before) == 1
            proxy.cut()
            await socket.send_input({"type": "websocket.disconnect", "code": 1000})
            for _ in range(500):  # until the consumer's discard has met the closed door twice
                if proxy.refused >= 2:
                    break
                await asyncio.sleep(0.02)
            assert proxy.refused >= 2
            assert len(set(await direct.zrange(key, 0, -1)) - before) == 1  # not left yet
            proxy.restore()
            # The consumer ends once its discard went through (the layer's receive, cut
            # too, may have ended it first with its ConnectionError: either way it leaves).
            with contextlib.suppress(redis.exceptions.ConnectionError):
                await socket.wait(10)
            assert set(await direct.zrange(key, 0, -1)) - before == set()
        finally:
            await direct.aclose()

    try:
        run(body)
    finally:
        proxy.close()


def test_sockets_opened_at_once_are_checked_together_each_as_its_own_member(committed, site, pair, monkeypatch):
    """A crowd of handshakes (a deploy, a network blip) is checked in batches: one
    database hop for many sockets, and still each socket is its own session's member's,
    and a socket with no valid session is refused."""
    from apps.chat import routing
    from apps.common.realtime import HANDLER, member_group

    anna, ben, _conversation = pair
    sessions = {"anna": committed.session(site, anna.user), "ben": committed.session(site, ben.user)}
    batches: list[int] = []
    lookup = routing._sites_and_members

    def counted(lookups):
        batches.append(len(lookups))
        return lookup(lookups)

    monkeypatch.setattr(routing, "_sites_and_members", counted)
    who = ["anna", "ben"] * 8 + ["nobody"] * 2

    async def body():
        sockets = [_socket("localhost", sessions.get(name, "x" * 32)) for name in who]
        results = await asyncio.gather(*(socket.connect(timeout=TIMEOUT) for socket in sockets))
        assert [connected for connected, _ in results] == [name != "nobody" for name in who]
        assert sum(batches) == len(who) and len(batches) < len(who)
        layer = channel_layers["default"]
        for name, user in (("anna", anna.user), ("ben", ben.user)):
            group = member_group(site_id=site.pk, user_id=user.pk)
            await layer.group_send(group, {"type": HANDLER, "event": {"type": "typing", "conversation": len(name)}})
        for name, socket in zip(who, sockets, strict=True):
            if name != "nobody":
                assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "typing", "conversation": len(name)}
                await socket.disconnect()

    run(body)
