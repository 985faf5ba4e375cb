"""`manage.py check --deploy` with the production settings finds nothing (issue 13 item 6)."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet
from django.conf import settings

ROOT = Path(__file__).resolve().parents[3]


def test_check_deploy_with_production_settings_fails():
    # The browser tests' DJANGO_ALLOW_ASYNC_UNSAFE is theirs, not production's.
    env = {
        **{key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
        # Production requires the deployment's push keys; the test run's will do.
        "VAPID_PRIVATE_KEY": settings.VAPID_PRIVATE_KEY,
        "VAPID_PUBLIC_KEY": settings.VAPID_PUBLIC_KEY,
        "SECRETS_KEYS": Fernet.generate_key().decode(),
        # The console SMS backend (no provider is configured here) needs the deployment
        # to take test payments (apps/payments/tests/test_production_guard_rails.py).
        "ALLOW_TEST_PAYMENTS": "1",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
