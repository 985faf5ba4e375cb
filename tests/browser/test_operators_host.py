"""The operators' host as an operator sees it, in a real browser: the product's name in the
header and the title (not "Django administration"), the staff's sections named apart
(no two "Accounts"), each site's domains with their HTTPS state, and the photo
moderation list with the photos' thumbnails, which load under the admin's CSP and say
what they show."""

import pytest
from django.conf import settings
from django.db import connection
from playwright.sync_api import expect

from apps.moderation.models import PhotoReview
from apps.profiles.models import Photo
from apps.profiles.services.photos import photo_upload
from apps.profiles.tests.helpers import jpeg_upload
from conftest import DESKTOP, on_site
from tests.live import in_thread
from tests.staff import staff_browser_login, staff_delete_committed, staff_member_committed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


@pytest.fixture
def viewport() -> dict:
    return DESKTOP  # the operators' admin is a desktop tool


def admin_url(server, path: str = "") -> str:
    return server.url("admin.localhost", path)


def test_the_admin_says_the_products_name_and_names_its_sections_apart(site_server, page, gay_site):
    superuser = staff_member_committed("superuser")
    try:
        staff_browser_login(page, admin_url(site_server), superuser)
        page.goto(admin_url(site_server, "/admin/"))
        expect(page.locator("#site-name")).to_have_text(settings.PRODUCT_NAME)
        expect(page).to_have_title(f"Operators' admin | {settings.PRODUCT_NAME}")
        assert "Django administration" not in page.content()
        captions = [text.strip() for text in page.locator("#content-main caption").all_text_contents()]
        assert captions.count("Accounts") == 0, captions
        assert "Staff" in captions and "Staff e-mail addresses" in captions, captions
        assert len(captions) == len(set(captions)), captions

        # Each site's domains with their HTTPS state: in the list and on the site's page.
        page.goto(admin_url(site_server, "/admin/tenants/site/"))
        row = page.locator("#result_list tbody tr", has_text=gay_site.name)
        expect(row.get_by_test_id("site-https")).to_have_text("Not seen over HTTPS yet: gay.localhost")
        page.goto(admin_url(site_server, f"/admin/tenants/site/{gay_site.pk}/change/"))
        expect(page.get_by_test_id("domain-https").first).to_have_text(
            "No certificate yet: the first HTTPS request to this domain gets one"
        )
    finally:
        staff_delete_committed(superuser)


def test_the_photo_moderation_list_shows_thumbnails(site_server, page, committed, site):
    nora = committed.member(site, "Nora")

    def upload() -> list[int]:
        try:
            with on_site(site):
                return [
                    photo_upload(site=site, user=nora.user, upload=jpeg_upload(colour=colour)).pk
                    for colour in ((200, 60, 60), (60, 60, 200))
                ]
        finally:
            connection.set_schema_to_public()

    photo_ids = in_thread(upload)
    agent = staff_member_committed("support")
    try:
        staff_browser_login(page, admin_url(site_server), agent)
        page.goto(admin_url(site_server, f"/admin/moderation/photoreview/?q={nora.name}"))
        thumbs = page.get_by_test_id("photo-review-thumb")
        expect(thumbs).to_have_count(2)
        for index in range(2):
            thumb = thumbs.nth(index)
            expect(thumb).to_be_visible()
            thumb.scroll_into_view_if_needed()
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=thumb.element_handle())
            alt = thumb.get_attribute("alt")
            assert alt.startswith("Photo ") and nora.name in alt, alt
        assert {int(thumbs.nth(i).get_attribute("alt").split()[1]) for i in range(2)} == set(photo_ids)
    finally:
        staff_delete_committed(agent)

        def delete() -> None:
            PhotoReview.objects.filter(site=site, photo_id__in=photo_ids).delete()
            with on_site(site):
                Photo.objects.filter(pk__in=photo_ids).delete()
            connection.set_schema_to_public()

        in_thread(delete)
