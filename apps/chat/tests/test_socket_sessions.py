"""WebSockets die with their session (issue 13 item 2): a password change in another
session, a deletion, the end of all sessions, a block by support and the session's expiry
each close the member's open sockets at once; afterwards no new message reaches them and
no `read` is taken from them."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from apps.accounts.models import PushSubscription, User
from apps.accounts.services.deletion import member_sessions_end
from apps.chat.consumers import CLOSE_UNAUTHORIZED
from apps.chat.tests.test_realtime import TIMEOUT, _send_sync, _socket, run
from apps.profiles.tests.helpers_view import PASSWORD
from conftest import on_site

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another-Long-passphrase-43"


def _post(site, session_key: str, path: str, data: dict) -> tuple[int, str]:
    """(status, the session cookie afterwards)."""
    client = Client(HTTP_HOST="localhost")
    client.cookies[settings.SESSION_COOKIE_NAME] = session_key
    with on_site(site):
        status = client.post(path, data).status_code
    return status, client.cookies[settings.SESSION_COOKIE_NAME].value


async def _closed(socket) -> None:
    """The socket closes with 4401, whatever events were on their way before."""
    while True:
        output = await socket.receive_output(TIMEOUT)
        if output["type"] == "websocket.close":
            assert output["code"] == CLOSE_UNAUTHORIZED
            return


async def _open(socket) -> None:
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}


def test_websockets_outlive_the_session_after_a_password_change(committed, site, pair):
    anna, ben, conversation = pair
    phone, laptop = committed.session(site, anna.user), committed.session(site, anna.user)

    async def body():
        on_phone, on_laptop = _socket("localhost", phone), _socket("localhost", laptop)
        assert (await on_phone.connect(timeout=TIMEOUT))[0]
        assert (await on_laptop.connect(timeout=TIMEOUT))[0]
        data = {
            "action": "password",
            "old_password": PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        }
        status, phone_now = await database_sync_to_async(_post)(site, phone, "/notifications", data)
        assert status == 302
        committed.sessions.append((site, phone_now))  # deleted after the test like the others
        # The laptop's session no longer logs Anna in: its socket closes at once. The
        # phone's session was renewed under a new key (Django cycles it): its socket,
        # opened with the old one, closes too, and the page connects again with the new.
        await _closed(on_laptop)
        await _closed(on_phone)
        assert phone_now != phone
        renewed = _socket("localhost", phone_now)
        assert (await renewed.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(_send_sync)(site, ben, conversation, "still there?")
        assert (await renewed.receive_json_from(timeout=TIMEOUT))["type"] in ("message.new", "badges")
        for old in (laptop, phone):
            again = _socket("localhost", old)
            assert not (await again.connect(timeout=TIMEOUT))[0]
        await renewed.disconnect()

    run(body)


def test_deleting_the_account_closes_every_socket_and_push_subscription(committed, site, pair):
    anna, _ben, _conversation = pair
    phone, laptop = committed.session(site, anna.user), committed.session(site, anna.user)

    def subscribe():
        with on_site(site):
            PushSubscription.objects.create(
                user=anna.user, endpoint=f"https://push.example.com/{anna.pk}", p256dh="k" * 20, auth="a" * 10
            )

    async def body():
        await database_sync_to_async(subscribe)()
        sockets = [_socket("localhost", phone), _socket("localhost", laptop)]
        for socket in sockets:
            assert (await socket.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(_post)(
            site, phone, "/notifications/delete", {"action": "reason", "reason": "found_someone"}
        )
        status, _session = await database_sync_to_async(_post)(
            site, phone, "/notifications/delete", {"action": "confirm", "password": PASSWORD}
        )
        assert status == 302
        for socket in sockets:
            await _closed(socket)

        def left():
            with on_site(site):
                return PushSubscription.objects.filter(user=anna.user).count()

        assert await database_sync_to_async(left)() == 0

    run(body)


def test_ending_all_sessions_and_a_block_by_support_close_the_sockets(committed, site, pair):
    anna, ben, _conversation = pair
    annas, bens = committed.session(site, anna.user), committed.session(site, ben.user)

    def end_annas_sessions():
        with on_site(site):
            return member_sessions_end(user_id=anna.user.pk)

    def block_ben():
        with on_site(site):
            member = User.objects.get(pk=ben.user.pk)
            member.is_active = False
            member.save()

    async def body():
        on_annas, on_bens = _socket("localhost", annas), _socket("localhost", bens)
        assert (await on_annas.connect(timeout=TIMEOUT))[0]
        assert (await on_bens.connect(timeout=TIMEOUT))[0]
        assert await database_sync_to_async(end_annas_sessions)() == 1
        await _closed(on_annas)
        await _open(on_bens)
        await database_sync_to_async(block_ben)()
        await _closed(on_bens)

    run(body)


def test_a_socket_closes_when_its_session_expires(committed, site, pair):
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    def expire_soon():
        with on_site(site):
            Session.objects.filter(session_key=session).update(expire_date=timezone.now() + timedelta(seconds=1))

    async def body():
        await database_sync_to_async(expire_soon)()
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        await _open(socket)
        await _closed(socket)  # nothing was sent: the expiry alone closes it

    run(body)


def test_saving_a_member_without_changing_the_password_keeps_the_sockets(committed, site, pair):
    anna, _ben, _conversation = pair
    session = committed.session(site, anna.user)

    def touch():
        with on_site(site):
            member = User.objects.get(pk=anna.user.pk)
            member.last_login = timezone.now()
            member.save()
            User.objects.only("pk").get(pk=anna.user.pk).save(update_fields=[])

    async def body():
        socket = _socket("localhost", session)
        assert (await socket.connect(timeout=TIMEOUT))[0]
        await database_sync_to_async(touch)()
        assert await socket.receive_nothing(timeout=0.5)
        await _open(socket)
        await socket.disconnect()

    run(body)


def test_logging_out_on_all_devices_closes_every_socket(committed, site, pair):
    """Settings, "Log out on all devices": every session ends, this one too, and every
    socket of the member closes; the login page says so."""
    anna, ben, _conversation = pair
    phone, laptop = committed.session(site, anna.user), committed.session(site, anna.user)
    bens = committed.session(site, ben.user)

    def sessions_left() -> int:
        with on_site(site):
            return Session.objects.filter(session_key__in=[phone, laptop]).count()

    async def body():
        sockets = [_socket("localhost", phone), _socket("localhost", laptop)]
        others = _socket("localhost", bens)
        for socket in (*sockets, others):
            assert (await socket.connect(timeout=TIMEOUT))[0]
        status, _session = await database_sync_to_async(_post)(site, phone, "/notifications", {"action": "logout_all"})
        assert status == 302
        for socket in sockets:
            await _closed(socket)
        await _open(others)  # another member is not touched
        assert await database_sync_to_async(sessions_left)() == 0
        await others.disconnect()

    run(body)


def test_the_settings_page_offers_log_out_on_all_devices(site, client_for):
    from apps.chat.tests.helpers import member
    from apps.profiles.tests.helpers_view import logged_in

    client = logged_in(site, client_for, member(site, "Anna"))
    assert 'data-testid="logout-all"' in client.get("/notifications").content.decode()
    response = client.post("/notifications", {"action": "logout_all"}, follow=True)
    assert response.redirect_chain[-1][0].startswith("/login")
    assert "You have been logged out on all devices." in response.content.decode()
    assert "_auth_user_id" not in client.session
