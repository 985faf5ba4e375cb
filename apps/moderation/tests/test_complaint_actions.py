"""Acting on a complaint from the queue: the complaint's page offers the support console's
actions (hide the reported photo, disable the profile, erase the account), each with its
reason and audit row, and resolves the complaint with the action taken."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse as django_reverse

from apps.accounts.models import User
from apps.accounts.services.directory import directory_sync
from apps.moderation.models import ComplaintCase
from apps.moderation.tests.helpers import complain, person, upload
from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db


def reverse(name: str, args=None) -> str:
    return django_reverse(name, args=args, urlconf="config.urls_public")


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def support():
    return staff_client(staff_member("support"))


def _case(site, *, with_photo: bool = True):
    """Anna (with an approved photo) is reported by Rep; returns (anna, photo, case)."""
    anna = person(site)
    photo = upload(site, anna) if with_photo else None
    with on_site(site):
        if photo is not None:
            Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
        directory_sync(user=anna.user)
    complaint = complain(site, person(site, "Rep"), about=anna, photo_id=photo.pk if photo else None)
    return anna, photo, ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)


def _act(client, case, action, reason="Fake photos from a magazine"):
    return client.post(reverse("admin:moderation_complaintcase_act", args=[case.pk, action]), {"reason": reason})


def _handle(client, case) -> str:
    return client.get(reverse("admin:moderation_complaintcase_handle", args=[case.pk])).content.decode()


def test_acting_on_a_complaint_hides_the_photo_and_resolves_it(site, support):
    anna, photo, case = _case(site)
    html = _handle(support, case)
    for action in ("photo_hide", "profile_disable", "erase"):
        assert f'data-testid="complaint-act-{action}"' in html
    response = _act(support, case, "photo_hide")
    assert response.status_code == 302
    with on_site(site):
        assert Photo.objects.get(pk=photo.pk).status == PhotoStatus.REJECTED
    case.refresh_from_db()
    assert (case.status, case.action, case.action_note) == ("resolved", "photo_hidden", "Fake photos from a magazine")
    rows = list(AuditEntry.objects.filter(site_id=site.pk, member_id=anna.user_id).order_by("pk"))
    assert [row.action for row in rows] == ["photo.hide", "complaint.status"]
    assert rows[0].reason == "Fake photos from a magazine" and rows[0].target == f"photo {photo.pk}"
    # Resolved: no actions are offered until it is reopened, and a post is refused.
    assert 'data-testid="complaint-act-' not in _handle(support, case)
    again = _act(support, case, "profile_disable")
    assert again.status_code == 409 and "reopen it first" in again.content.decode()
    with on_site(site):
        assert Profile.objects.get(pk=anna.pk).status == ProfileStatus.ACTIVE


def test_acting_on_a_complaint_disables_the_profile(site, support):
    anna, _photo, case = _case(site, with_photo=False)
    html = _handle(support, case)
    assert 'data-testid="complaint-act-photo_hide"' not in html  # it names no photo
    assert _act(support, case, "profile_disable", "Scammer, asked three members for money").status_code == 302
    with on_site(site):
        assert Profile.objects.get(pk=anna.pk).status == ProfileStatus.DISABLED
    case.refresh_from_db()
    assert (case.status, case.action) == ("resolved", "profile_disabled")
    actions = AuditEntry.objects.filter(site_id=site.pk, member_id=anna.user_id).values_list("action", flat=True)
    assert sorted(actions) == ["complaint.status", "member.profile_disable"]


def test_erasing_from_a_complaint_needs_the_export_first(site, support):
    anna, _photo, case = _case(site, with_photo=False)
    assert 'data-testid="complaint-export-link"' in _handle(support, case)
    refused = _act(support, case, "erase", "Under age, confirmed by ID")
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Download the member&#x27;s data export first." in html and "Under age, confirmed by ID" in html
    case.refresh_from_db()
    assert case.status == "open"
    with on_site(site):
        assert User.objects.filter(pk=anna.user_id).exists()
    entry = MemberDirectoryEntry.objects.get(site=site, member_id=anna.user_id)
    export = support.post(reverse("admin:support_member_act", args=[entry.pk, "export"]), {"reason": "Before erasing"})
    assert export.status_code == 200
    assert _act(support, case, "erase", "Under age, confirmed by ID").status_code == 302
    with on_site(site):
        assert not User.objects.filter(pk=anna.user_id).exists()
    case.refresh_from_db()
    assert (case.status, case.action) == ("resolved", "account_erased")
    assert AuditEntry.objects.filter(site_id=site.pk, member_id=anna.user_id, action="member.erase").count() == 1


@pytest.mark.parametrize(
    ("reason", "status"),
    [("", 400), ("abc", 400), ("x" * 1001, 400), ("bad\x00reason", 400)],
)
def test_bad_input_changes_nothing(site, support, reason, status):
    anna, photo, case = _case(site)
    response = _act(support, case, "photo_hide", reason)
    assert response.status_code == status
    assert 'data-testid="complaint-act-error"' in response.content.decode()
    with on_site(site):
        assert Photo.objects.get(pk=photo.pk).status == PhotoStatus.ACTIVE
    case.refresh_from_db()
    assert case.status == "open"
    assert not AuditEntry.objects.filter(site_id=site.pk, member_id=anna.user_id).exists()


def test_unknown_action_unknown_case_and_get(site, support):
    _anna, _photo, case = _case(site)
    assert _act(support, case, "refund").status_code == 404
    missing = reverse("admin:moderation_complaintcase_act", args=[987654321, "photo_hide"])
    assert support.post(missing, {"reason": "long enough"}).status_code == 404
    url = reverse("admin:moderation_complaintcase_act", args=[case.pk, "photo_hide"])
    assert support.get(url).status_code == 405


def test_staff_who_may_not_act_on_members_are_refused(site):
    anna, photo, case = _case(site)
    # Deciding complaints without the console's member actions.
    moderator = staff_member("operators")
    moderator.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="moderation", codename__endswith="complaintcase")
    )
    client = staff_client(moderator)
    assert 'data-testid="complaint-act-' not in _handle(client, case)
    assert _act(client, case, "photo_hide").status_code == 403
    with on_site(site):
        assert Photo.objects.get(pk=photo.pk).status == PhotoStatus.ACTIVE
    assert not AuditEntry.objects.filter(site_id=site.pk, member_id=anna.user_id).exists()
