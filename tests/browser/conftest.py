"""What a browser test wrote to the demo sites is deleted after it: the members made in
the test (through the signup page, the API or the ORM) with their conversations and
complaints, their rows in the public directory (also of those the test deleted itself),
and the support queues' rows made meanwhile. A later test that counts a site's members,
messages, directory or queue does not count theirs."""

import pytest
from django.db.models import Max

from apps.accounts.models import User
from apps.accounts.services.directory import directory_remove
from apps.moderation.models import ComplaintCase, PhotoReview, VerificationReview
from apps.profiles.models import Complaint
from apps.tenants.models import MemberDirectoryEntry, Site
from conftest import on_site
from tests.live import in_thread, members_delete

DEMO_DOMAINS = ("localhost", "gay.localhost")
QUEUES = (PhotoReview, ComplaintCase, VerificationReview)


def _highest(rows) -> int:
    return rows.aggregate(highest=Max("pk"))["highest"] or 0


def _marks() -> dict:
    """The highest id of each kind of row the test may add, per demo site."""
    marks = {"queues": {model: _highest(model.objects) for model in QUEUES}, "sites": []}
    for domain in DEMO_DOMAINS:
        site = Site.objects.get(domains__domain=domain)
        with on_site(site):
            marks["sites"].append((site, _highest(User.objects), _highest(Complaint.objects)))
    return marks


def _made_since(marks: dict) -> list[tuple[Site, int]]:
    made = []
    for site, users, complaints in marks["sites"]:
        with on_site(site):
            Complaint.objects.filter(pk__gt=complaints).delete()
            made += [(site, pk) for pk in User.objects.filter(pk__gt=users).values_list("pk", flat=True)]
        # Every public row of a member made since, also of one the test deleted itself.
        for member_id in MemberDirectoryEntry.objects.filter(site=site, member_id__gt=users).values_list(
            "member_id", flat=True
        ):
            directory_remove(site_id=site.pk, member_id=member_id)
    return made


def _queues_since(marks: dict) -> None:
    for model, highest in marks["queues"].items():
        model.objects.filter(pk__gt=highest).delete()


@pytest.fixture(autouse=True)
def _made_deleted(django_db_blocker):
    with django_db_blocker.unblock():
        marks = in_thread(_marks)
    yield
    with django_db_blocker.unblock():
        members_delete(in_thread(_made_since, marks))
        in_thread(_queues_since, marks)
