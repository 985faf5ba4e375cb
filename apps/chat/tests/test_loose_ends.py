"""Logging out closes the sockets of that session; erasing a member deletes the chat
photo files of their conversations."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User, UserStatus
from apps.accounts.services.deletion import member_erase
from apps.chat.consumers import CLOSE_UNAUTHORIZED
from apps.chat.models import Message
from apps.chat.tests.helpers import credits_give, member, send
from apps.chat.tests.test_realtime import TIMEOUT, _socket, run
from apps.common.realtime import session_token
from apps.profiles.tests.helpers import jpeg_upload
from conftest import on_site

pytestmark = pytest.mark.django_db


# --- Logging out closes the session's sockets -------------------------------------------------


def _logout(site, session_key: str, path: str) -> int:
    client = Client(HTTP_HOST="localhost")
    client.cookies[settings.SESSION_COOKIE_NAME] = session_key
    with on_site(site):
        # GET /api/logout.php (spec §7), POST /logout (the top bar's form).
        return (client.get(path) if path.startswith("/api/") else client.post(path)).status_code


@pytest.mark.parametrize("path", ["/api/logout.php", "/logout"])
def test_logging_out_closes_that_sessions_sockets_only(committed, site, path):
    anna = committed.member(site, "Anna")
    phone, laptop = committed.session(site, anna.user), committed.session(site, anna.user)
    ben = committed.member(site, "Ben", gender="male")
    bens_session = committed.session(site, ben.user)

    async def body():
        phones = [_socket("localhost", phone), _socket("localhost", phone)]  # two tabs
        laptops, bens = _socket("localhost", laptop), _socket("localhost", bens_session)
        for socket in (*phones, laptops, bens):
            assert (await socket.connect(timeout=TIMEOUT))[0]

        status = await database_sync_to_async(_logout)(site, phone, path)
        assert status in (200, 204, 302)

        for socket in phones:
            closed = await socket.receive_output(TIMEOUT)
            assert closed == {"type": "websocket.close", "code": CLOSE_UNAUTHORIZED}
        # The member's other device and other members stay connected.
        for socket in (laptops, bens):
            assert await socket.receive_nothing(timeout=0.3)
            await socket.send_json_to({"type": "ping"})
            assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
            await socket.disconnect()
        # The old session opens no socket any more.
        again = _socket("localhost", phone)
        assert not (await again.connect(timeout=TIMEOUT))[0]
        await again.disconnect()

    run(body)


def test_a_logout_message_of_another_session_leaves_the_socket_open(committed, site):
    """The message names the session by a hash, never by its key; a socket opened
    with another session ignores it."""
    from channels.layers import get_channel_layer

    from apps.common.realtime import LOGOUT_HANDLER, member_group

    anna = committed.member(site, "Anna")
    session = committed.session(site, anna.user)
    assert session_token(session) != session and session not in session_token(session)

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        group = member_group(site_id=site.pk, user_id=anna.user.pk)
        layer = get_channel_layer()
        await layer.group_send(group, {"type": LOGOUT_HANDLER, "session": session_token("another-session")})
        assert await socket.receive_nothing(timeout=0.3)
        await layer.group_send(group, {"type": LOGOUT_HANDLER, "session": session_token(session)})
        assert (await socket.receive_output(TIMEOUT))["code"] == CLOSE_UNAUTHORIZED

    run(body)


def test_a_logout_in_a_transaction_that_rolls_back_closes_nothing(committed, site):
    from django.contrib.auth.signals import user_logged_out
    from django.db import transaction

    anna = committed.member(site, "Anna")
    session = committed.session(site, anna.user)

    def logout_rolled_back():
        class _Request:
            class session:
                session_key = None

        _Request.session.session_key = session
        with on_site(site):
            try:
                with transaction.atomic():
                    user_logged_out.send(sender=User, request=_Request, user=anna.user)
                    raise RuntimeError("rolled back")
            except RuntimeError:
                pass

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(logout_rolled_back)()
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()

    run(body)


# --- Erasing a member deletes the chat photos ------------------------------------------------


def _erase(site, user) -> bool:
    with on_site(site):
        User.objects.filter(pk=user.pk).update(
            status=UserStatus.DELETED, deleted_at=timezone.now() - timedelta(days=20)
        )
        return member_erase(site=site, member_id=user.pk, cutoff=timezone.now() - timedelta(days=14))


def test_erasing_a_member_deletes_the_photo_files_of_their_conversations(site):
    anna, ben, carl = member(site, "Anna"), member(site, "Ben", gender="male"), member(site, "Carl", gender="male")
    for profile in (anna, ben, carl):
        credits_give(site, profile.user, 20)
    _conversation, sent = send(site, anna, ben, None, photo=jpeg_upload())
    _conversation, received = send(site, ben, anna, None, photo=jpeg_upload())
    _conversation, text = send(site, anna, ben, "Hi")
    _other, kept = send(site, ben, carl, None, photo=jpeg_upload())
    erased_files = [sent.photo.name, sent.photo_thumb.name, received.photo.name, received.photo_thumb.name]
    kept_files = [kept.photo.name, kept.photo_thumb.name]
    assert all(default_storage.exists(name) for name in erased_files + kept_files)

    assert _erase(site, anna.user)

    assert not any(default_storage.exists(name) for name in erased_files)
    assert all(default_storage.exists(name) for name in kept_files)
    with on_site(site):
        assert not Message.objects.filter(pk__in=[sent.pk, received.pk, text.pk]).exists()
        assert Message.objects.filter(pk=kept.pk).exists()
    with on_site(site):
        for name in kept_files:
            default_storage.delete(name)


def test_a_member_not_yet_due_keeps_their_chat_photos(site):
    anna, ben = member(site, "Anna"), member(site, "Ben", gender="male")
    credits_give(site, anna.user, 20)
    _conversation, sent = send(site, anna, ben, None, photo=jpeg_upload())
    with on_site(site):
        User.objects.filter(pk=anna.user.pk).update(status=UserStatus.DELETED, deleted_at=timezone.now())
        assert not member_erase(site=site, member_id=anna.user.pk, cutoff=timezone.now() - timedelta(days=14))
    assert default_storage.exists(sent.photo.name) and default_storage.exists(sent.photo_thumb.name)
    default_storage.delete(sent.photo.name)
    default_storage.delete(sent.photo_thumb.name)
