"""What a web process does once it loaded the application (config.asgi)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from django.conf import settings


def test_a_web_process_keeps_what_it_loaded_out_of_the_collectors_scans():
    code = "import gc, config.asgi; print(gc.get_freeze_count())"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 50_000


def test_not_in_the_test_process_which_loads_the_application_halfway_through_a_run():
    import config.asgi  # noqa: F401

    assert settings.WEB_OBJECTS_FROZEN is False
    assert gc.get_freeze_count() == 0
