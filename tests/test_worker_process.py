"""What a Celery worker process does when it starts (config.celery)."""

from __future__ import annotations

import gc

from celery.signals import worker_process_init

from config import celery


def test_a_worker_process_keeps_what_it_loaded_out_of_the_collectors_scans():
    assert celery.worker_objects_frozen in worker_process_init._live_receivers(None)
    assert gc.get_freeze_count() == 0
    try:
        celery.worker_objects_frozen()
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
