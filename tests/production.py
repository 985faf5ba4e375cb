"""The environment a process with the production settings needs, for tests that start
one (manage.py check --deploy, a settings guard): every variable production requires has
its test value here once, so a newly required one is added in one place."""

from __future__ import annotations

import os
import secrets

from cryptography.fernet import Fernet
from django.conf import settings


def production_environment(**variables: str | None) -> dict[str, str]:
    """This process's environment without its Django, key and SMS settings, plus what
    production requires; `variables` override (None leaves a variable out)."""
    env = {
        # The browser tests' DJANGO_ALLOW_ASYNC_UNSAFE and the test settings are theirs.
        **{key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "SECRETS_", "SMS_"))},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        # The deployment's push keys; the test run's will do.
        "VAPID_PRIVATE_KEY": settings.VAPID_PRIVATE_KEY,
        "VAPID_PUBLIC_KEY": settings.VAPID_PUBLIC_KEY,
        "SECRETS_KEYS": Fernet.generate_key().decode(),
        # The page cache's own Redis; the test run's will do.
        "CACHE_URL": settings.CACHE_URL,
        # The console SMS backend (no provider is configured here) needs the deployment to
        # take test payments (apps/payments/tests/test_production_guard_rails.py).
        "ALLOW_TEST_PAYMENTS": "1",
        **variables,
    }
    return {key: value for key, value in env.items() if value is not None}
