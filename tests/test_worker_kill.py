"""A Celery worker process killed with SIGKILL in the middle of a credit grant (issue 13):
the task was acknowledged late, so the broker gives it to the worker's next process, which
runs it again; the credits are granted exactly once and every balance equals its ledger."""

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.utils import timezone

from apps.credits.management.commands.credits_check import balance_mismatches
from apps.credits.models import CreditEntry
from apps.payments.models import Payment
from apps.payments.tasks import payments_reconcile
from apps.payments.tests.helpers_core import buyer
from apps.payments.tests.test_webhooks import paid_at_the_sandbox
from config.celery import app as celery_app
from conftest import on_site
from tests.live import database_url_for_tests, in_thread, until

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
DEADLINE_SECONDS = 90


def _until(predicate, what: str):
    return until(predicate, what, DEADLINE_SECONDS)


@pytest.fixture
def worker(tmp_path):
    queue = f"fault-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        "FAULT_DIR": str(tmp_path),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    command = [sys.executable, "-m", "celery", "-A", "tests.fault_worker", "worker", "-P", "prefork", "-c", "1"]
    command += ["-Q", queue, "--without-heartbeat", "--without-mingle", "--without-gossip", "-l", "warning"]
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    yield queue, tmp_path, process
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


def test_a_worker_killed_with_sigkill_mid_credit_grant_grants_once(site, worker):
    queue, folder, process = worker

    def due_payment():
        with on_site(site):
            user = buyer(site)
            payment = paid_at_the_sandbox(site, user)
            Payment.objects.filter(pk=payment.pk).update(created=timezone.now() - timezone.timedelta(hours=1))
            return user.pk, payment.pk

    user_id, payment_id = in_thread(due_payment)
    (folder / "block").touch()
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        payments_reconcile.apply_async(queue=queue)
    finally:
        celery_app.conf.task_always_eager = eager

    child = int(_until(lambda: (folder / "reached").exists() and (folder / "reached").read_text(), "the grant"))
    assert child != process.pid  # a pool process, not the worker's main process
    (folder / "block").unlink()
    os.kill(child, signal.SIGKILL)

    def granted():
        with on_site(site):
            return Payment.objects.filter(pk=payment_id, status="paid").exists()

    _until(lambda: in_thread(granted), "the task to run again and grant")
    assert process.poll() is None  # the worker lives on with a new process

    def state():
        with on_site(site):
            entries = list(CreditEntry.objects.filter(key=f"purchase:{payment_id}").values_list("credits", flat=True))
            return entries, list(balance_mismatches()), Payment.objects.get(pk=payment_id).credits

    entries, mismatches, credits = in_thread(state)
    assert entries == [credits]  # granted exactly once
    assert mismatches == []
    log = (folder / "worker.log").read_text()
    assert "WorkerLostError" in log or "signal 9" in log, log

    def cleanup():
        with on_site(site):
            from apps.accounts.models import User

            User.objects.filter(pk=user_id).delete()

    in_thread(cleanup)
