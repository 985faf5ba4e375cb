"""The verification queue in the operators' admin: the selfie beside the pose asked for and
the member's approved photos, decided side by side; the selfie served to staff with the
queue's permission only; foreign and unknown ids 404, bad input 400, nothing half-written;
every decision in the audit trail."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse as django_reverse
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.moderation.models import VerificationReview
from apps.moderation.tests.helpers import person, upload
from apps.profiles.models import Photo, PhotoStatus, Profile, Verification, VerificationStatus
from apps.profiles.services.verification import verification_request
from apps.profiles.tests.helpers import jpeg_upload
from apps.support.models import AuditEntry
from conftest import on_site
from tests.staff import ADMIN_HOST, staff_client, staff_member

pytestmark = pytest.mark.django_db

QUEUE = "admin:moderation_verificationreview_queue"


def reverse(name: str, args=None) -> str:
    return django_reverse(name, args=args, urlconf="config.urls_public")


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def support():
    return staff_client(staff_member("support"))


def _asking(site, name="Anna") -> tuple[Profile, Photo, VerificationReview]:
    """A member with an approved photo who sent a selfie; the row dated back so that it is
    the oldest in the queue."""
    profile = person(site, name)
    photo = upload(site, profile)
    with on_site(site):
        Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
        verification = verification_request(
            site=site, user=profile.user, pose="peace", upload=jpeg_upload(colour=(5, 5, 5))
        )
    review = VerificationReview.objects.get(site=site, verification_id=verification.pk)
    VerificationReview.objects.filter(pk=review.pk).update(created=timezone.now() - timedelta(days=3650))
    return profile, photo, review


def test_a_moderator_decides_side_by_side(site, support, django_capture_on_commit_callbacks):
    anna, photo, review = _asking(site)
    page = support.get(reverse(QUEUE))
    html = page.content.decode()
    assert page.status_code == 200 and f'data-review-id="{review.pk}"' in html
    selfie_url = reverse("admin:moderation_verificationreview_selfie", args=[review.pk])
    photo_url = reverse("admin:moderation_verificationreview_photo", args=[review.pk, photo.pk])
    assert selfie_url in html and photo_url in html and "profiles/poses/peace.svg" in html
    selfie = support.get(selfie_url)
    assert selfie.status_code == 200 and "no-store" in selfie["Cache-Control"]
    assert b"".join(selfie.streaming_content)[:3] == b"\xff\xd8\xff"  # the re-encoded JPEG
    assert support.get(photo_url).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = support.post(
            reverse("admin:moderation_verificationreview_decide", args=[review.pk]), {"decision": "approved"}
        )
    assert response.status_code == 302
    review.refresh_from_db()
    assert review.decision == "approved" and review.decided_by_name
    with on_site(site):
        assert Verification.objects.get(pk=review.verification_id).status == VerificationStatus.APPROVED
        assert Photo.objects.get(pk=photo.pk).verified
    assert AuditEntry.objects.filter(action="verification.approve", member_id=anna.user_id).count() == 1
    # Decided: the selfie is gone, for staff too; deciding again is refused.
    assert support.get(selfie_url).status_code == 404
    again = support.post(
        reverse("admin:moderation_verificationreview_decide", args=[review.pk]), {"decision": "approved"}
    )
    decisions = AuditEntry.objects.filter(action__startswith="verification.", site_id=site.pk, member_id=anna.user_id)
    assert again.status_code == 302 and decisions.count() == 1


def test_a_refusal_needs_a_reason_and_keeps_the_selfie(site, support):
    _anna, _photo, review = _asking(site)
    decide = reverse("admin:moderation_verificationreview_decide", args=[review.pk])
    for data in ({"decision": "rejected"}, {"decision": "rejected", "reason": "nope"}, {"decision": "maybe"},
                 {"decision": "rejected", "reason": "pose", "note": "a\x00b"}):  # fmt: skip
        response = support.post(decide, data)
        assert response.status_code == 400, data
        review.refresh_from_db()
        assert review.decision == "pending"
    assert support.post(decide, {"decision": "rejected", "reason": "different"}).status_code == 302
    with on_site(site):
        verification = Verification.objects.get(pk=review.verification_id)
    assert verification.status == VerificationStatus.REJECTED and verification.selfie.name
    assert support.get(reverse("admin:moderation_verificationreview_selfie", args=[review.pk])).status_code == 200


def test_foreign_and_unknown_ids_are_404(site, support):
    _anna, _photo, review = _asking(site)
    ben = person(site, "Ben")
    bens_photo = upload(site, ben)
    with on_site(site):
        Photo.objects.filter(pk=bens_photo.pk).update(status=PhotoStatus.ACTIVE)
    # Another member's photo through this request's address.
    assert (
        support.get(reverse("admin:moderation_verificationreview_photo", args=[review.pk, bens_photo.pk])).status_code
        == 404
    )
    for url in (
        reverse("admin:moderation_verificationreview_selfie", args=[987654321]),
        reverse("admin:moderation_verificationreview_photo", args=[987654321, bens_photo.pk]),
    ):
        assert support.get(url).status_code == 404
    decide = reverse("admin:moderation_verificationreview_decide", args=[987654321])
    assert support.post(decide, {"decision": "approved"}).status_code == 404
    assert support.get(decide).status_code == 405


def test_the_selfie_is_for_staff_with_the_queue_permission_only(site, client_for):
    _anna, _photo, review = _asking(site)
    selfie = reverse("admin:moderation_verificationreview_selfie", args=[review.pk])
    operator = staff_client(staff_member("operators"))
    assert operator.get(selfie).status_code == 403
    assert operator.get(reverse(QUEUE)).status_code == 403
    response = Client(HTTP_HOST=ADMIN_HOST).get(selfie)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert client_for(site).get(selfie).status_code == 404  # not on a site's host
    viewer = staff_member("operators")
    with schema_context("public"):  # staff live in the public schema
        viewer.user_permissions.add(Permission.objects.get(codename="view_verificationreview"))
    client = staff_client(viewer)
    page = client.get(reverse(QUEUE)).content.decode()
    assert 'data-testid="verification-approve"' not in page
    assert client.get(selfie).status_code == 200
    decide = reverse("admin:moderation_verificationreview_decide", args=[review.pk])
    assert client.post(decide, {"decision": "approved"}).status_code == 403


def test_a_request_whose_member_is_gone_leaves_the_queue(site, support):
    anna, _photo, review = _asking(site)
    with on_site(site):
        Profile.objects.filter(pk=anna.pk).delete()
    page = support.get(reverse(QUEUE)).content.decode()
    assert f'data-review-id="{review.pk}"' not in page
    assert not VerificationReview.objects.filter(pk=review.pk).exists()


def test_the_admin_index_shows_the_queue_size(site, support):
    _asking(site)
    html = support.get(reverse("admin:index")).content.decode()
    assert 'data-testid="queue-size-verifications"' in html
