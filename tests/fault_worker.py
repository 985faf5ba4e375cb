"""The Celery application for the worker-kill fault test (tests/test_worker_kill.py): the
project's own, plus a hook in each worker process that, while FAULT_DIR/block exists,
stops a credit grant in the middle (inside its transaction, before the ledger row is
written), says so in FAULT_DIR/reached with the process id, and waits to be killed."""

import os
import time
from pathlib import Path

from celery.signals import worker_process_init

from config.celery import app

__all__ = ["app"]


@worker_process_init.connect
def _stop_in_the_middle_of_a_grant(**kwargs) -> None:
    from django.db.models.signals import pre_save

    from apps.credits.models import CreditEntry

    folder = Path(os.environ["FAULT_DIR"])

    def hold(sender, instance, **kwargs) -> None:
        if (folder / "block").exists() and instance.key.startswith("purchase:"):
            (folder / "reached").write_text(str(os.getpid()))
            time.sleep(120)

    pre_save.connect(hold, sender=CreditEntry, weak=False, dispatch_uid="fault-hold")
