"""Verified photos in a real browser: a member asks to be verified from her profile, sees a
drawn pose with its description, sends a selfie (the file input that opens the front
camera on phones) and sees it waiting; a support agent opens the verification queue from
the admin index, sees the selfie, the pose and her photos side by side and verifies her;
she and another member then see the "Verified photos" badge. axe finds nothing on the
member's page nor on the queue. At 1280 px (the admin is a desktop tool)."""

from datetime import timedelta
from io import BytesIO

import pytest
from django.db import connection
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from apps.moderation.models import VerificationReview
from apps.moderation.tests.helpers import upload
from apps.profiles.models import Photo, PhotoStatus
from conftest import DESKTOP, on_site
from tests.browser.helpers import log_in
from tests.browser.test_accessibility import axe_violations, report
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


@pytest.fixture
def viewport() -> dict:
    return DESKTOP


@pytest.fixture
def agent():
    user = in_thread(staff_member, "support")
    yield user

    def delete():
        connection.set_schema_to_public()
        user.delete()

    in_thread(delete)


def _approved_photo(site, profile) -> Photo:
    photo = upload(site, profile)
    with on_site(site):
        Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
    connection.set_schema_to_public()
    return photo


def _selfie() -> dict:
    buffer = BytesIO()
    Image.new("RGB", (640, 480), (30, 90, 160)).save(buffer, format="JPEG")
    return {"name": "selfie.jpg", "mimeType": "image/jpeg", "buffer": buffer.getvalue()}


def _date_back(site, profile_id: int) -> None:
    """The member's request becomes the oldest in the queue, whatever else waits."""
    connection.set_schema_to_public()
    VerificationReview.objects.filter(site=site, profile_id=profile_id).update(
        created=timezone.now() - timedelta(days=365 * 20)
    )


def _cleanup(site, profile_id: int) -> None:
    connection.set_schema_to_public()
    VerificationReview.objects.filter(site=site, profile_id=profile_id).delete()


def test_a_member_is_verified_side_by_side(committed, site, site_server, agent, page, new_context):
    nora, vic = committed.member(site, "Nora"), committed.member(site, "Vic")
    in_thread(_approved_photo, site, nora)
    try:
        # Nora asks from her profile and sends a selfie in the pose drawn for her.
        log_in(page, site_server, nora.user.email)
        page.goto(site_server.url("localhost", "/profile"))
        expect(page.get_by_test_id("verification-status")).to_have_attribute("data-state", "none")
        page.get_by_test_id("verification-ask").click()
        pose = page.get_by_test_id("verify-pose")
        expect(pose).to_be_visible()
        assert pose.evaluate("img => img.complete && img.naturalWidth > 0")
        description = page.get_by_test_id("verify-pose-text").inner_text()
        expect(pose).to_have_attribute("alt", description)
        selfie_input = page.get_by_label("Your selfie")
        expect(selfie_input).to_have_attribute("capture", "user")
        violations = axe_violations(page)
        assert not violations, report(violations)
        selfie_input.set_input_files(_selfie())
        page.get_by_test_id("verify-submit").click()
        expect(page.get_by_test_id("verification-status")).to_have_attribute("data-state", "waiting")
        in_thread(_date_back, site, nora.pk)

        # The agent decides with the selfie, the pose and Nora's photo side by side.
        admin_page = new_context().new_page()
        admin = site_server.url("admin.localhost", "")
        staff_browser_login(admin_page, admin, agent)
        admin_page.get_by_test_id("queue-size-verifications").click()
        admin_page.wait_for_url("**/admin/moderation/verificationreview/queue/")
        expect(admin_page.get_by_test_id("verification-member")).to_contain_text(nora.name)
        for test_id in ("verification-selfie", "verification-pose", "verification-photo"):
            image = admin_page.get_by_test_id(test_id).first
            expect(image).to_be_visible()
            assert image.evaluate("img => img.complete && img.naturalWidth > 0"), test_id
        violations = axe_violations(admin_page)
        assert not violations, report(violations)
        admin_page.get_by_test_id("verification-approve").click()
        expect(admin_page.locator(".messagelist")).to_contain_text(f"{nora.name} is verified.")

        # Nora is told on the next page (the profile page says it in its own words), until
        # she closes the notice; so does another member, on her profile page.
        page.goto(site_server.url("localhost", "/members"))
        told = page.get_by_test_id("verification-decided-alert")
        expect(told).to_have_attribute("data-state", "approved")
        expect(told).to_contain_text("You are verified.")
        violations = axe_violations(page)
        assert not violations, report(violations)
        with page.expect_response("**/api/dismiss.php"):
            page.get_by_test_id("verification-decided-alert-dismiss").click()
        expect(told).to_have_count(0)
        page.goto(site_server.url("localhost", "/profile"))
        expect(page.get_by_test_id("verification-status")).to_have_attribute("data-state", "verified")
        expect(page.get_by_test_id("verification-decided-alert")).to_have_count(0)
        page.goto(site_server.url("localhost", "/members"))
        expect(page.locator("main")).to_be_visible()
        expect(page.get_by_test_id("verification-decided-alert")).to_have_count(0)
        viewer = new_context().new_page()
        log_in(viewer, site_server, vic.user.email)
        viewer.goto(site_server.url("localhost", f"/members/{nora.pk}"))
        expect(viewer.get_by_test_id("profile-note-verified")).to_have_text("Verified photos")
    finally:
        in_thread(_cleanup, site, nora.pk)
