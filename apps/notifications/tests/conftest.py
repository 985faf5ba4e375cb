"""Fixtures of the notification tests: members on a site, their devices at the local
fake push service (tests/fake_push.py) and the send path run as after a commit."""

from __future__ import annotations

import pytest

from apps.accounts.models import PushSubscription
from apps.profiles.tests.helpers_view import member
from conftest import on_site


@pytest.fixture
def local_push(settings, fake_push):
    """Pushes may go to the fake push service on 127.0.0.1 (the endpoint check refuses
    loopback addresses everywhere else)."""
    settings.PUSH_ENDPOINT_CHECK = False
    return fake_push


def device(site, user, fake_push, name: str | None = None) -> dict:
    """A browser subscription of `user` at the fake push service, stored as the API would."""
    subscription = fake_push.subscription(name)
    with on_site(site):
        PushSubscription.objects.create(
            user=user,
            endpoint=subscription["endpoint"],
            p256dh=subscription["keys"]["p256dh"],
            auth=subscription["keys"]["auth"],
        )
    return subscription


@pytest.fixture
def anna_ben(site):
    """Anna writes, Ben receives (both active members with profiles on `site`)."""
    return member(site, "Anna"), member(site, "Ben", gender="male")
