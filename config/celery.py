"""Celery application. Tasks run in the schema of the site that queued them
(tenant-schemas-celery stores the schema name in the task headers)."""

import gc
import os

from celery.signals import worker_process_init
from tenant_schemas_celery.app import CeleryApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = CeleryApp("dating")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _worker_without_database_pool(**kwargs) -> None:
    """A worker child is forked from the main process: a psycopg pool it inherited
    (settings DATABASE_POOL_MAX_SIZE) has no threads and shares the parent's sockets.
    Workers open their own connection per task instead, as before pooling."""
    from django.db import connections

    for alias in connections:  # the wrappers share these dicts (settings_dict)
        connections.settings[alias].get("OPTIONS", {}).pop("pool", None)
    for connection in connections.all(initialized_only=True):
        connection.connection = None  # the parent's, never closed from here


@worker_process_init.connect
def worker_objects_frozen(**kwargs) -> None:
    """What a worker process holds once it started (Django, the apps, the tasks' modules:
    some 140,000 objects) lives as long as the process: it is moved out of the garbage
    collector's generations (gc.freeze), which every full collection walked whole, a few
    times per chunk of a campaign's 500 pushes. Measured in the fan-out (bench "notify"):
    about 9% of a push notice's CPU. Collected first, so no garbage is frozen with it."""
    gc.collect()
    gc.freeze()
