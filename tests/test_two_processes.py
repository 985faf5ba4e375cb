"""Nothing depends on being the only process (issue 17, docs/deploy.md): two web
processes and two Celery workers, each started from its Procfile line (deploy/run.sh) on
the test database and the same Redis, as production runs them on several machines.

(a) A member's WebSocket on web process A receives a message POSTed through web process B
    (the channel layer in Redis carries it between the processes).
(b) A site created through the operators' admin on web process A, while both processes
    serve with their caches warm and process B has already been asked for the new host
    (and answered 404), is served at once by web process B.
(c) A credit purchase processed by both workers at the same time is applied once: the
    reconciliation task queued twice, one copy on each worker; then the payment webhook
    queued twice, each copy delivered through another web process. The test holds the
    payment's row until both copies wait for it (a barrier), so they really overlap.
    Exactly one ledger entry each time, and every balance equals its ledger."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest
from django.conf import settings
from django.utils import timezone
from psycopg import sql
from websockets.sync.client import connect

from apps.chat.services import conversation_open
from apps.chat.tests.helpers import credits_give
from apps.credits.management.commands.credits_check import balance_mismatches
from apps.credits.models import CreditEntry
from apps.payments.models import Payment
from apps.payments.tasks import payment_webhook_send, payments_reconcile
from apps.payments.tests.helpers_core import buyer
from apps.payments.tests.test_webhooks import paid_at_the_sandbox
from config.celery import app as celery_app
from conftest import on_site
from tests.live import database_url_for_tests, in_thread
from tests.live import until as live_until

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "deploy" / "run.sh"
# Four Django processes starting at once on a busy two-core machine.
DEADLINE_SECONDS = 120


def until(predicate, what: str):
    return live_until(predicate, what, DEADLINE_SECONDS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Process:
    name: str
    process: subprocess.Popen
    log: Path
    port: int = 0
    extra: dict = field(default_factory=dict)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> None:
        assert self.process.poll() is None, f"{self.name} stopped:\n{self.output()[-3000:]}"

    def http(self, host: str = "localhost") -> httpx.Client:
        return httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}",
            headers={"Host": f"{host}:{self.port}"},
            timeout=60,
            follow_redirects=False,
        )


@dataclass
class Cluster:
    web_a: Process
    web_b: Process
    worker_a: Process
    worker_b: Process


def _environment() -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set by the browser tests for their own process
    return env


def _start(name: str, args: list[str], folder: Path, **env) -> Process:
    """One line of the Procfile, as deploy/compose.yaml runs it, with its own log."""
    log = folder / f"{name}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(RUN), *args], cwd=ROOT, env={**_environment(), **env}, stdout=out, stderr=subprocess.STDOUT
        )
    return Process(name, process, log)


def _stop(process: Process) -> None:
    if process.process.poll() is None:
        process.process.send_signal(signal.SIGTERM)
    try:
        process.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.process.kill()
        process.process.wait()


def _money_queue_purge() -> None:
    """A copy left by an interrupted earlier run must not reach these workers."""
    with celery_app.connection_for_write() as conn:
        celery_app.amqp.queues["money"].bind(conn.default_channel).purge()


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory):
    folder = tmp_path_factory.mktemp("two-processes")
    started: list[Process] = []
    with django_db_blocker.unblock():
        _money_queue_purge()
        try:
            for name in ("web-a", "web-b"):
                port = free_port()
                web = _start(name, ["web"], folder, HOST="127.0.0.1", PORT=str(port), WEB_CONCURRENCY="1")
                web.port = port
                started.append(web)
            for name in ("worker-a", "worker-b"):
                # The money worker's line; one pool process each and a name of its own
                # (on one machine both would be money@<host>).
                worker = _start(name, ["worker-money", "--concurrency", "1", "-n", f"{name}@%h"], folder)
                started.append(worker)
            web_a, web_b, worker_a, worker_b = started

            def web_ready(web: Process) -> bool:
                web.alive()
                try:
                    with web.http() as client:
                        return client.get("/healthz").status_code == 200
                except httpx.TransportError:
                    return False

            def worker_ready(worker: Process) -> bool:
                worker.alive()
                return " ready." in worker.output()

            for web in (web_a, web_b):
                until(lambda web=web: web_ready(web), f"{web.name} to answer")
            for worker in (worker_a, worker_b):
                until(lambda worker=worker: worker_ready(worker), f"{worker.name} to be ready")
            assert len({process.process.pid for process in started}) == 4
            yield Cluster(web_a, web_b, worker_a, worker_b)
        finally:
            for process in started:
                _stop(process)


# --- (a) ---------------------------------------------------------------------------------


def _receive(sock, kind: str, text: str) -> dict:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        event = json.loads(sock.recv(timeout=max(0.1, deadline - time.monotonic())))
        if event["type"] == kind and event.get("message", {}).get("text") == text:
            return event


def test_a_members_socket_on_process_a_receives_a_message_posted_through_process_b(cluster, committed, site):
    web_a, web_b = cluster.web_a, cluster.web_b
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben")
    in_thread(credits_give, site, anna.user, 5)
    anna_session, ben_session = committed.session(site, anna.user), committed.session(site, ben.user)

    def open_conversation() -> int:
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk).pk

    conversation = in_thread(open_conversation)
    text = f"From process B {uuid.uuid4().hex[:8]}"
    with connect(
        f"ws://localhost:{web_a.port}/ws/",
        origin=f"http://localhost:{web_a.port}",
        additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={ben_session}"},
        open_timeout=DEADLINE_SECONDS,
    ) as ben_socket:
        ben_socket.send(json.dumps({"type": "ping"}))
        assert json.loads(ben_socket.recv(timeout=DEADLINE_SECONDS)) == {"type": "pong"}  # Ben is in his group

        csrf = uuid.uuid4().hex  # 32 characters, as the CSRF cookie holds it
        with web_b.http() as client:
            client.cookies.set(settings.SESSION_COOKIE_NAME, anna_session)
            client.cookies.set(settings.CSRF_COOKIE_NAME, csrf)
            response = client.post(
                "/api/message.php",
                json={"conversation": conversation, "client_id": uuid.uuid4().hex, "text": text},
                headers={"Origin": f"http://localhost:{web_b.port}", "X-CSRFToken": csrf},
            )
        assert response.status_code == 201, response.text + web_b.output()[-4000:]

        event = _receive(ben_socket, "message.new", text)
        assert event["message"]["mine"] is False
    web_a.alive(), web_b.alive()


# --- (b) ---------------------------------------------------------------------------------


def _site_add_data(user, name: str, domain: str) -> dict:
    """The operators' "add site" form as the browser posts it: every field at its initial
    value, the name and one primary domain."""
    from django import forms
    from django.contrib import admin
    from django.test import RequestFactory

    from apps.tenants.admin import SiteAdmin
    from apps.tenants.models import Site

    request = RequestFactory().get("/admin/tenants/site/add/")
    request.user = user
    model_admin = SiteAdmin(Site, admin.site)
    form = model_admin.get_form(request, None)()
    data = {}
    for field_name, form_field in form.fields.items():
        value = form[field_name].value()
        if isinstance(value, list):
            data[field_name] = ",".join(value) if form_field.__class__.__name__ == "SimpleArrayField" else value
        elif isinstance(value, bool):
            if value:
                data[field_name] = "on"
        elif value is not None and not isinstance(form_field, forms.FileField):
            data[field_name] = value
    for inline in model_admin.get_inline_instances(request, None):
        formset = inline.get_formset(request, None)()
        management = formset.management_form
        data.update({f"{formset.prefix}-{key}": management[key].value() for key in management.fields})
        if inline.model.__name__ == "Domain":  # one domain form, not the empty extra one
            data[f"{formset.prefix}-TOTAL_FORMS"] = 1
            data[f"{formset.prefix}-0-domain"] = domain
            data[f"{formset.prefix}-0-is_primary"] = "on"
    data.update({"name": name, "schema_name": ""})
    return data


def test_a_site_created_through_process_a_is_served_at_once_by_process_b(cluster, site):
    from apps.tenants.models import Site
    from tests.staff import ADMIN_HOST, staff_client, staff_delete_committed, staff_member_committed

    web_a, web_b = cluster.web_a, cluster.web_b
    for web in (web_a, web_b):  # both have served the demo site: their site caches are warm
        with web.http("localhost") as client:
            assert client.get("/").status_code == 200

    operator = staff_member_committed("operators")
    tag = uuid.uuid4().hex[:8]
    name, domain = f"Second Process {tag}", f"p{tag}.localhost"
    with web_b.http(domain) as client:  # B is asked for the host before the site exists
        assert client.get("/").status_code == 404
    try:
        session = in_thread(lambda: staff_client(operator).cookies[settings.SESSION_COOKIE_NAME].value)
        data = in_thread(_site_add_data, operator, name, domain)
        csrf = uuid.uuid4().hex
        with web_a.http(ADMIN_HOST) as client:  # the operators' admin on process A
            client.cookies.set(settings.SESSION_COOKIE_NAME, session)
            client.cookies.set(settings.CSRF_COOKIE_NAME, csrf)
            response = client.post(
                "/admin/tenants/site/add/",
                data={**data, "csrfmiddlewaretoken": csrf},
                headers={"Origin": f"http://{ADMIN_HOST}:{web_a.port}"},
            )
        assert response.status_code == 302, response.text[-3000:] + web_a.output()[-3000:]

        with web_b.http(domain) as client:  # B's first request for it: no retry, no wait
            response = client.get("/")
        assert response.status_code == 200, (response.status_code, web_b.output()[-3000:])
        assert name in response.text
        with web_a.http(domain) as client:
            assert client.get("/").status_code == 200
    finally:

        def cleanup():
            for made in Site.objects.filter(domains__domain=domain):
                made.delete(force_drop=True)

        in_thread(cleanup)
        staff_delete_committed(operator)


# --- (c) ---------------------------------------------------------------------------------


def _send(task, **options) -> str:
    """Queue a task on the broker (the test settings run tasks eagerly)."""
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        return task.apply_async(**options).id
    finally:
        celery_app.conf.task_always_eager = eager


@contextlib.contextmanager
def _payment_held(site, payment_id: int):
    """Holds the payment's row (the lock every change of a payment takes first,
    apps.payments.services._apply) until the block's end, on a connection of the test's
    own. `waiting()` counts the other connections waiting for it, directly or queued
    behind one that does (PostgreSQL lines the second one up behind the first)."""
    from apps.payments.models import Payment

    with (
        psycopg.connect(database_url_for_tests()) as holder,
        psycopg.connect(database_url_for_tests(), autocommit=True) as watcher,
    ):
        table = sql.Identifier(site.schema_name, Payment._meta.db_table)
        holder.execute(sql.SQL("SELECT 1 FROM {} WHERE id = %s FOR UPDATE").format(table), [payment_id])
        pid = holder.info.backend_pid

        def waiting() -> int:
            query = """
                WITH RECURSIVE blocked(pid) AS (
                    SELECT %s::int
                    UNION
                    SELECT activity.pid FROM pg_stat_activity activity JOIN blocked
                    ON blocked.pid = ANY(pg_blocking_pids(activity.pid))
                )
                SELECT count(*) - 1 FROM blocked"""
            return watcher.execute(query, [pid]).fetchone()[0]

        try:
            yield waiting
        finally:
            holder.rollback()


def _both_waiting(cluster: Cluster, waiting) -> bool:
    """The barrier: both copies are in the payment's change at once, waiting for its row."""
    for process in (cluster.worker_a, cluster.worker_b, cluster.web_a, cluster.web_b):
        process.alive()
    return waiting() == 2


def _run_by_each_worker(cluster: Cluster, first: str, second: str) -> list[str]:
    """Waits for both copies to finish; one copy ran on each worker. Their log lines."""
    pattern = r"\[{}\] succeeded in [0-9.]+s: (.*)"
    workers = (cluster.worker_a, cluster.worker_b)

    def finished():
        for worker in workers:
            worker.alive()
        found = {}
        for task_id in (first, second):
            for worker in workers:
                match = re.search(pattern.format(task_id), worker.output())
                if match:
                    found[task_id] = (worker.name, match[1])
        return found if len(found) == 2 else None

    found = until(finished, "both copies of the task to finish")
    assert {found[first][0], found[second][0]} == {"worker-a", "worker-b"}, found
    return [found[first][1], found[second][1]]


def _state(site, user_id: int, payment_id: int):
    def read():
        with on_site(site):
            payment = Payment.objects.get(pk=payment_id)
            entries = list(CreditEntry.objects.filter(key=f"purchase:{payment_id}").values_list("credits", flat=True))
            from apps.accounts.models import User

            return (
                payment.status,
                payment.credits,
                entries,
                User.objects.get(pk=user_id).credits,
                list(balance_mismatches()),
            )

    return in_thread(read)


def _purchase(site, *, due: bool):
    """A member who paid at the sandbox's checkout; the site has not heard of it yet."""

    def make():
        with on_site(site):
            user = buyer(site)
            payment = paid_at_the_sandbox(site, user)
            if due:  # old enough for the reconciliation to fetch it
                Payment.objects.filter(pk=payment.pk).update(created=timezone.now() - timezone.timedelta(hours=1))
            return user.pk, payment.pk, payment.provider_id

    return in_thread(make)


def _delete_user(site, user_id: int) -> None:
    def delete():
        from apps.accounts.models import User

        with on_site(site):
            User.objects.filter(pk=user_id).delete()

    in_thread(delete)


def test_a_purchase_processed_by_both_workers_at_once_is_applied_once(cluster, site):
    # Reconciliation (beat's task, apps.payments.tasks.payments_reconcile) queued twice
    # without naming a queue: the routes send both copies to "money", one to each worker.
    user_id, payment_id, _ = _purchase(site, due=True)
    try:
        status, _credits, entries, _balance, _ = _state(site, user_id, payment_id)
        assert (status, entries) == ("open", [])  # nothing applied yet
        with _payment_held(site, payment_id) as waiting:
            first, second = _send(payments_reconcile), _send(payments_reconcile)
            until(lambda: _both_waiting(cluster, waiting), "both reconciliations to wait for the payment")
        _run_by_each_worker(cluster, first, second)
        status, credits, entries, balance, mismatches = _state(site, user_id, payment_id)
        assert status == "paid"
        assert entries == [credits]  # one ledger entry
        assert balance == credits and mismatches == []
    finally:
        _delete_user(site, user_id)

    # The provider's webhook (apps.payments.tasks.payment_webhook_send) queued twice, one
    # copy per worker, each delivered through another web process.
    user_id, payment_id, provider_id = _purchase(site, due=False)
    try:
        assert _state(site, user_id, payment_id)[2] == []
        with _payment_held(site, payment_id) as waiting:
            hooks = [
                _send(
                    payment_webhook_send,
                    kwargs={"url": f"http://localhost:{web.port}/api/payment-webhook.php", "provider_id": provider_id},
                )
                for web in (cluster.web_a, cluster.web_b)
            ]
            until(lambda: _both_waiting(cluster, waiting), "both webhooks to wait for the payment")
        assert _run_by_each_worker(cluster, *hooks) == ["True", "True"]  # each answered 2xx
        status, credits, entries, balance, mismatches = _state(site, user_id, payment_id)
        assert status == "paid"
        assert entries == [credits]
        assert balance == credits and mismatches == []
    finally:
        _delete_user(site, user_id)
