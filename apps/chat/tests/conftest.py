"""The chat tests' committed rows come from tests/live.py (`committed` is a fixture of the
root conftest)."""

import pytest

from apps.chat.services import conversation_open
from apps.chat.tests.helpers import credits_give
from conftest import on_site
from tests.live import in_thread


@pytest.fixture
def pair(committed, site):
    """Anna and Ben (committed), 10 credits each, and their conversation."""
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben", gender="male")
    in_thread(credits_give, site, anna.user, 10)
    in_thread(credits_give, site, ben.user, 10)

    def open_():
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk)

    return anna, ben, in_thread(open_)
