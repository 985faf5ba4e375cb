"""Celery application. Tasks run in the schema of the site that queued them
(tenant-schemas-celery stores the schema name in the task headers)."""

import os

from tenant_schemas_celery.app import CeleryApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = CeleryApp("dating")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
