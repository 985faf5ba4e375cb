"""The WebSocket through the real ASGI server (uvicorn, as in production) with a real
WebSocket client: the same application the browser tests use."""

import json
import uuid

import pytest
from django.conf import settings
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import credits_give
from conftest import on_site
from tests.live import in_thread

pytestmark = pytest.mark.django_db


def _cookie(session: str) -> dict:
    return {"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"}


def _receive(socket, kind: str) -> dict:
    while True:
        event = json.loads(socket.recv(timeout=5))
        if event["type"] == kind:
            return event


def test_a_message_arrives_over_the_servers_socket(site_server, committed, site):
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben")
    in_thread(credits_give, site, anna.user, 3)
    session = committed.session(site, ben.user)
    url = site_server.url("localhost", "/ws/").replace("http://", "ws://")
    origin = site_server.url("localhost", "").rstrip("/")

    def write():
        with on_site(site):
            conversation = conversation_open(user=anna.user, profile_id=ben.pk)
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=uuid.uuid4().hex, text="Live")

    with connect(
        url, origin=origin, additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"}
    ) as socket:
        socket.send(json.dumps({"type": "ping"}))
        assert json.loads(socket.recv(timeout=5)) == {"type": "pong"}
        in_thread(write)
        assert _receive(socket, "message.new")["message"]["text"] == "Live"


def test_the_server_refuses_a_foreign_origin(site_server, committed, site):
    ben = committed.member(site, "Ben")
    session = committed.session(site, ben.user)
    url = site_server.url("localhost", "/ws/").replace("http://", "ws://")
    with pytest.raises(InvalidStatus) as refused:
        connect(
            url,
            origin="https://evil.example",
            additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"},
        )
    assert refused.value.response.status_code == 403
