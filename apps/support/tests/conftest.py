import pytest
from django.db import transaction


@pytest.fixture
def on_commit_at_once(monkeypatch):
    """Each test runs in a transaction that never commits; run after-commit work
    (queued mails) at once so the test sees it."""
    monkeypatch.setattr(transaction, "on_commit", lambda func, using=None, robust=False: func())
