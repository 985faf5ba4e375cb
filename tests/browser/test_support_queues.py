"""A support agent works through the queues in a real browser (issue 15): logs in with
password and TOTP, sees the queue sizes on the admin index, approves one photo and
rejects another with a reason using only the keyboard, takes a complaint and resolves it
with the action taken; the member, whose language is French, then sees the approved
photo and the rejected one with its reason in French. At 1280 px (the operators' admin
is a desktop tool)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone, translation
from playwright.sync_api import expect

from apps.accounts.services.directory import directory_sync
from apps.moderation.models import ComplaintCase, PhotoReview
from apps.moderation.tests.helpers import complain
from apps.profiles.models import Complaint, Photo, PhotoRejectionReason, PhotoStatus
from apps.profiles.services.photos import photo_upload
from apps.profiles.tests.helpers import jpeg_upload
from apps.support.models import AuditEntry
from conftest import DESKTOP, on_site
from tests.browser.helpers import log_in
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


def _prepare(site, nora, rita):
    """Nora (French) uploads two photos and Rita reports her; all dated far back, so they
    are the oldest in the queues whatever else waits."""
    with on_site(site):
        nora.user.language = "fr"
        nora.user.save(update_fields=["language"])
        photos = [
            photo_upload(site=site, user=nora.user, upload=jpeg_upload(colour=c))
            for c in ((200, 60, 60), (60, 60, 200))
        ]
        directory_sync(user=nora.user)
    complaint = complain(site, rita, about=nora, reason="fake", text="Her photos are from a magazine.")
    connection.set_schema_to_public()
    long_ago = timezone.now() - timedelta(days=365 * 20)
    for offset, photo in enumerate(photos):
        PhotoReview.objects.filter(site=site, photo_id=photo.pk).update(created=long_ago + timedelta(minutes=offset))
    ComplaintCase.objects.filter(site=site, complaint_id=complaint.pk).update(created=long_ago)
    return photos, complaint


def _cleanup(site, photo_ids, complaint_id):
    connection.set_schema_to_public()
    PhotoReview.objects.filter(site=site, photo_id__in=photo_ids).delete()
    ComplaintCase.objects.filter(site=site, complaint_id=complaint_id).delete()


def test_an_agent_works_through_the_queues_with_the_keyboard(committed, site, site_server, agent, page, new_context):
    nora, rita = committed.member(site, "Nora"), committed.member(site, "Rita")
    (first, second), complaint = in_thread(_prepare, site, nora, rita)
    try:
        admin = site_server.url("admin.localhost", "")
        staff_browser_login(page, admin, agent)
        expect(page.get_by_test_id("queue-sizes")).to_be_visible()
        page.get_by_test_id("queue-size-photos").click()
        page.wait_for_url("**/admin/moderation/photoreview/queue/")
        # One site only: the filter submits itself (static JS).
        page.locator("#queue-site").select_option(str(site.pk))
        page.wait_for_url(f"**/queue/?site={site.pk}")
        item = page.get_by_test_id("queue-item")
        expect(item).to_have_attribute("data-photo-id", str(first.pk))
        expect(page.get_by_test_id("queue-member")).to_contain_text(nora.name)
        expect(page.locator(".queue-shortcuts")).to_contain_text("approve")
        assert page.get_by_test_id("queue-photo").evaluate("img => img.complete && img.naturalWidth > 0")

        # J and K move along the queue; A approves; the next photo follows.
        page.keyboard.press("j")
        expect(item).not_to_have_attribute("data-photo-id", str(first.pk))
        page.keyboard.press("k")
        expect(item).to_have_attribute("data-photo-id", str(first.pk))
        page.keyboard.press("a")
        expect(page.locator(".messagelist")).to_contain_text(f"Photo {first.pk} approved.")
        expect(item).to_have_attribute("data-photo-id", str(second.pk))

        # R without a reason asks for one; 2 chooses "Your face cannot be seen"; R rejects.
        page.keyboard.press("r")
        expect(page.locator("#queue-reject-hint")).to_contain_text("Choose a reason first")
        page.locator("body").focus()
        page.keyboard.press("2")
        expect(page.locator('input[name="reason"][value="no_face"]')).to_be_checked()
        page.keyboard.press("r")
        expect(page.locator(".messagelist")).to_contain_text(f"Photo {second.pk} rejected: Your face cannot be seen.")

        def stored():
            with on_site(site):
                return {
                    photo.pk: (photo.status, photo.rejection_reason) for photo in Photo.objects.filter(profile=nora)
                }

        assert in_thread(stored) == {first.pk: ("active", ""), second.pk: ("rejected", "no_face")}

        # The complaints queue: take the complaint, resolve it with the action taken.
        page.goto(f"{admin}/admin/moderation/complaintcase/?site__id__exact={site.pk}")
        page.get_by_role("link", name=f"Complaint {complaint.pk}", exact=True).click()
        expect(page.get_by_test_id("complaint-text")).to_have_text("Her photos are from a magazine.")
        expect(page.get_by_test_id("complaint-profile")).to_contain_text(nora.name)
        page.get_by_test_id("complaint-take").click()
        expect(page.get_by_test_id("complaint-status")).to_have_text("In progress")
        expect(page.get_by_test_id("complaint-assignee")).to_have_text(agent.username)
        form = page.get_by_test_id("complaint-resolve-form")
        form.get_by_label("Action taken").select_option("warned")
        form.get_by_label("Note").fill("Asked her to use her own photos.")
        form.get_by_test_id("complaint-resolve").click()
        expect(page.locator(".messagelist")).to_contain_text(f"Complaint {complaint.pk} is now resolved.")

        def handled():
            with on_site(site):
                row = Complaint.objects.get(pk=complaint.pk)
            connection.set_schema_to_public()
            actions = set(
                AuditEntry.objects.filter(actor=agent.username, site_id=site.pk).values_list("action", flat=True)
            )
            return row.status, row.action, row.action_note, row.assignee_name, actions

        assert in_thread(handled) == (
            "resolved",
            "warned",
            "Asked her to use her own photos.",
            agent.username,
            {"photo.approve", "photo.reject", "complaint.status"},
        )

        # Nora, in French, sees the outcome on her photo manager.
        context = new_context()
        member_page = context.new_page()
        context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "fr", "url": site_server.url()}])
        log_in(member_page, site_server, nora.user.email)
        member_page.goto(site_server.url("localhost", "/profile"))
        with translation.override("fr"):
            rejected, active = str(PhotoStatus.REJECTED.label), str(PhotoStatus.ACTIVE.label)
            reason = str(PhotoRejectionReason.NO_FACE.label)
        assert rejected == "Refusé"
        rejected_card = member_page.locator(f'[data-photo-id="{second.pk}"]')
        expect(rejected_card.get_by_test_id("photo-status")).to_have_text(rejected)
        expect(rejected_card.get_by_test_id("photo-rejection-reason")).to_have_text(reason)
        expect(rejected_card.get_by_test_id("photo-delete")).to_be_visible()
        expect(member_page.locator(f'[data-photo-id="{first.pk}"]').get_by_test_id("photo-status")).to_have_text(active)
    finally:
        in_thread(_cleanup, site, [first.pk, second.pk], complaint.pk)
