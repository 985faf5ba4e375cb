"""Bad input on the operators' host's new endpoints (issue 15): a NUL byte, a multipart
body without its boundary, and ids of another site's member or of nothing answer 4xx,
never 5xx, and change nothing."""

import pytest
from django.utils import timezone

from apps.accounts.tests.helpers_settings import member_create
from apps.moderation.models import ComplaintCase, PhotoReview
from apps.payments.models import Payment, Refund
from apps.profiles.models import Photo, Profile
from apps.profiles.tests.helpers_view import photos_add
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

LYING = b'--boundary\r\nContent-Disposition: form-data; name="reason"\r\n\r\nx'


@pytest.fixture
def support():
    return staff_client(staff_member("support", "agent"))


def post_endpoints(entry_id: int) -> list[str]:
    return [
        f"/admin/support/member/{entry_id}/act/credits/",
        f"/admin/support/member/{entry_id}/act/password_reset/",
        f"/admin/support/member/{entry_id}/act/erase/",
        "/admin/moderation/photoreview/999999/decide/",
        "/admin/moderation/complaintcase/999999/move/",
    ]


def test_a_lying_content_type_and_a_nul_byte_are_4xx(support, site):
    anna = member_create(site)
    entry = MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk)
    before = AuditEntry.objects.count()
    for url in post_endpoints(entry.pk):
        lying = support.generic("POST", url, LYING, content_type="multipart/form-data")
        assert 400 <= lying.status_code < 500, (url, lying.status_code)
        nul = support.post(url, {"reason": "a\x00b", "credits": "5", "decision": "approve", "to": "resolved"})
        assert 400 <= nul.status_code < 500, (url, nul.status_code)
    for url in ("/admin/support/member/?q=a%00b", "/admin/support/auditentry/csv/?q=a%00b"):
        assert 400 <= support.get(url).status_code < 500, url
    assert AuditEntry.objects.count() == before


def test_foreign_and_unknown_ids_are_404(support, site, gay_site):
    # Given Anna on one site, and Bert on another with a real photo and a real payment
    anna = member_create(site)
    bert = member_create(gay_site, email="bert@example.com", name="Bert")
    (bert_photo,) = photos_add(gay_site, _profile(gay_site, bert), 1)
    with on_site(gay_site):
        bert_payment = Payment.objects.create(
            user=bert, package_id=1, credits=20, currency="EUR", list_amount=1495, amount=1495, method="ideal",
            gateway="sandbox", provider_id=f"sbx_bert_{bert.pk}", status="paid", paid_at=timezone.now(),
        )  # fmt: skip
    entry = MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk)
    bert_entry = MemberDirectoryEntry.objects.get(site=gay_site, member_id=bert.pk)
    before = AuditEntry.objects.count()
    # When Bert's ids are used on Anna's page (the entry decides the site: Anna's or nothing)
    assert support.get(f"/admin/support/member/{entry.pk}/photo/{bert_photo.pk}/").status_code == 404
    hide = support.post(
        f"/admin/support/member/{entry.pk}/act/photo_hide/", {"photo": bert_photo.pk, "reason": "Fake photos"}
    )
    refund = support.post(
        f"/admin/support/member/{entry.pk}/act/refund/", {"payment": bert_payment.public_id, "reason": "Unhappy"}
    )
    # Then nothing is found and nothing changes, on either site
    assert (hide.status_code, refund.status_code) == (404, 404)
    with on_site(gay_site):
        assert Photo.objects.get(pk=bert_photo.pk).status == bert_photo.status
        assert not Refund.objects.filter(payment=bert_payment).exists()
    assert AuditEntry.objects.count() == before
    # while on Bert's own page the same ids are his
    own = support.post(
        f"/admin/support/member/{bert_entry.pk}/act/photo_hide/", {"photo": bert_photo.pk, "reason": "Fake photos"}
    )
    assert own.status_code == 302
    with on_site(gay_site):
        assert Photo.objects.get(pk=bert_photo.pk).status == "rejected"
    for url in (
        f"/admin/support/member/{max(entry.pk, bert_entry.pk) + 100000}/change/",
        "/admin/moderation/photoreview/999999/image/thumb/",
        "/admin/moderation/complaintcase/999999/handle/",
    ):
        assert support.get(url).status_code == 404, url
    assert not PhotoReview.objects.filter(pk=999999).exists()
    assert not ComplaintCase.objects.filter(pk=999999).exists()
    for url in ("/admin/support/member/..%2F..%2Fetc/change/", "/admin/support/member//change/"):
        # (Django's admin first redirects an old-style object address to .../change/.)
        assert 400 <= support.get(url, follow=True).status_code < 500, url


def _profile(site, user) -> Profile:
    with on_site(site):
        return Profile.objects.get(user=user)


def test_the_staff_login_refuses_bad_bodies():
    from django.test import Client

    admin = Client(HTTP_HOST="admin.localhost")
    lying = admin.generic("POST", "/admin/login/", LYING, content_type="multipart/form-data")
    assert lying.status_code == 400
    nul = admin.post("/admin/login/", {"username": "a\x00b", "password": "x"})
    assert nul.status_code == 200 and "_auth_user_id" not in admin.session  # the form's error, no login
    # The code and enrolment steps without a password step first go back to the login.
    for url in ("/admin/login/code/", "/admin/login/enrol/"):
        response = admin.generic("POST", url, LYING, content_type="multipart/form-data")
        assert response.status_code == 302 and response.headers["Location"].startswith("/admin/login/")


def test_an_error_on_the_operators_host_is_a_plain_page_without_a_site(support, caplog):
    response = support.get("/admin/support/member/987654/change/")
    assert response.status_code == 404 and b'data-testid="error-page"' in response.content
    assert b'href="/admin/"' in response.content
    assert "Rendering the error page failed" not in caplog.text
