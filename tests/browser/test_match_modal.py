"""The match modal's photo in Debian's Chromium on a 2x screen (a phone's and a desktop's
width): the member who liked shows in the large circle with the picture meant for it
(main_image.match_filename, docs/decisions.md "The match modal's photo"), sharp (at least
two image pixels per CSS pixel) and round without being stretched."""

import pytest
from playwright.sync_api import expect

from apps.likes.services import like_create
from apps.profiles.models import PhotoStatus
from apps.profiles.services.photos import photo_upload
from apps.profiles.tests.helpers import jpeg_upload
from conftest import csp_violations, on_site
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def test_the_match_modal_shows_the_liker_sharp_and_unstretched(site, site_server, chromium, viewport):
    a_email, a = member(site, "Liked")
    _b_email, b = member(site, "Liker")

    def liker_with_photo_likes() -> str:
        with on_site(site):
            # Landscape, as most phone photos are: the circle crops it, never squeezes it.
            photo = photo_upload(site=site, user=b.user, upload=jpeg_upload(width=1200, height=800))
            type(photo).objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
            like_create(liker=b.user, profile_id=a.pk)
            return photo.image.url

    image_url = in_thread(liker_with_photo_likes)

    context = chromium.new_context(viewport=viewport, device_scale_factor=2, locale="en-US")
    violations = csp_violations(context)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        log_in(page, site_server, a_email)

        modal = page.get_by_test_id("match-modal")
        expect(modal).to_be_visible()
        expect(page.get_by_test_id("match-modal-name")).to_contain_text(b.name)
        img = page.get_by_test_id("match-modal-img")
        expect(img).to_have_attribute("src", image_url)
        page.wait_for_function(
            "() => { const i = document.querySelector('[data-testid=match-modal-img]');"
            " return i && i.complete && i.naturalWidth > 0; }"
        )
        shown = img.evaluate(
            """(i) => ({
                width: i.clientWidth, height: i.clientHeight,
                naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
                fit: getComputedStyle(i).objectFit, radius: getComputedStyle(i).borderTopLeftRadius,
                dpr: window.devicePixelRatio,
            })"""
        )
        assert shown["dpr"] == 2
        assert shown["width"] == shown["height"] > 180  # a large circle
        assert shown["fit"] == "cover"  # cropped to the circle, not stretched
        assert shown["radius"] != "0px"
        # Sharp on the 2x screen: at least two of the picture's pixels per CSS pixel across
        # its shorter side (the 400 px thumbnail is not on a phone, where the circle is some 250 px wide).
        assert min(shown["naturalWidth"], shown["naturalHeight"]) >= 2 * shown["width"]
        assert not errors, errors
    finally:
        context.close()
    assert not violations, f"CSP violations: {violations}"
