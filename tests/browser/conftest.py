"""The browser tests' members are deleted after each test (tests.browser.helpers)."""

import pytest

from apps.accounts.models import User
from apps.tenants.models import Site
from conftest import on_site
from tests.browser import helpers
from tests.live import in_thread, members_delete


def _signed_up() -> list[tuple[Site, int]]:
    found = []
    for domain, email in helpers.SIGNED_UP:
        site = Site.objects.get(domains__domain=domain)
        with on_site(site):
            found += [(site, user_id) for user_id in User.objects.filter(email=email).values_list("pk", flat=True)]
    return found


@pytest.fixture(autouse=True)
def _members_deleted(django_db_blocker):
    helpers.MADE.clear()
    helpers.SIGNED_UP.clear()
    yield
    if not (helpers.MADE or helpers.SIGNED_UP):
        return
    with django_db_blocker.unblock():
        made = helpers.MADE + in_thread(_signed_up)
        helpers.MADE.clear()
        helpers.SIGNED_UP.clear()
        members_delete(made)
