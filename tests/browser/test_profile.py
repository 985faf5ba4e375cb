"""My profile in a real browser, at phone and desktop widths (issue 4 item 2): a bad
value shows its message next to the field and keeps what was typed, saving works,
photos up to the limit (with the limit message), main photo, deletion."""

import uuid

import pytest
from PIL import Image
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.chat.tests.helpers import credits_give
from apps.profiles.models import Photo
from conftest import on_site
from tests.browser.helpers import enter, goto_past_the_match_modal, log_in, member, sign_up
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

LIMIT = "You can upload up to 3 photos. Become a premium member to upload up to 25."


def jpegs(tmp_path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        path = tmp_path / f"photo-{i}.jpg"
        Image.new("RGB", (480, 360), (40 * i, 120, 200 - 40 * i)).save(path, format="JPEG")
        paths.append(str(path))
    return paths


def test_edit_profile_and_manage_photos(site_server, page, site, tmp_path):
    enter(page, site_server.url("localhost", "/login"))
    email, _name = sign_up(page, site_server)

    # The photo alert links to /profile.
    page.goto(site_server.url("localhost", "/notifications"))
    expect(page.get_by_test_id("profile-photo-alert")).to_be_visible()
    page.get_by_test_id("profile-photo-alert-link").click()
    expect(page.get_by_test_id("my-profile")).to_be_visible()

    # A bad value: its message next to the field, what was typed kept.
    page.locator("#profile-city").fill("Glasgow")
    page.locator("#profile-name").fill("@nobody")
    page.locator("#profile-region").select_option("GB-SCT")
    page.locator("#profile-relationship_status").select_option("single")
    page.get_by_text("Music", exact=True).click()
    page.get_by_test_id("profile-save").click()
    expect(page.get_by_test_id("error-profile-name")).to_have_text("Username may not start with @")
    expect(page.locator("#profile-name")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#profile-city")).to_have_value("Glasgow")
    expect(page.locator("#profile-region")).to_have_value("GB-SCT")

    # Corrected and saved.
    new_name = "N" + uuid.uuid4().hex[:10]
    page.locator("#profile-name").fill(new_name)
    page.locator("#profile-about_me").fill("Hello from the browser.")
    page.get_by_test_id("profile-save").click()
    expect(page.get_by_test_id("flash-message")).to_contain_text("Your profile has been saved.")
    expect(page.locator("#profile-name")).to_have_value(new_name)
    with on_site(site):
        user = User.objects.get(email=email)
        assert user.username == new_name
        assert (user.profile.city, user.profile.region, user.profile.about_me) == (
            "Glasgow",
            "GB-SCT",
            "Hello from the browser.",
        )
        assert "Music" in user.profile.interests

    # Photos up to the limit, then the limit message.
    for index, path in enumerate(jpegs(tmp_path, 3)):
        page.get_by_test_id("photo-input").set_input_files(path)
        page.get_by_test_id("photo-upload").click()
        expect(page.get_by_test_id("photo")).to_have_count(index + 1)
    expect(page.get_by_test_id("photo-limit")).to_have_text(LIMIT)
    expect(page.get_by_test_id("photo-input")).to_have_count(0)
    expect(page.get_by_test_id("photo-status").first).to_have_text("Waiting for approval")
    # The thumbnails are served (the owner sees their pending photos).
    first_img = page.get_by_test_id("photo").first.locator("img")
    expect(first_img).to_be_visible()
    # (waited for: the picture may still be loading when it becomes visible)
    page.wait_for_function("img => img.complete && img.naturalWidth === 400", arg=first_img.element_handle())

    # Main photo: the second one.
    second = page.get_by_test_id("photo").nth(1)
    second_id = second.get_attribute("data-photo-id")
    second.get_by_test_id("photo-make-main").click()
    expect(page.locator(f'[data-photo-id="{second_id}"]').get_by_test_id("photo-main")).to_be_visible()
    with on_site(site):
        assert User.objects.get(email=email).profile.main_photo_id == int(second_id)

    # Delete the first one.
    first_id = page.get_by_test_id("photo").first.get_attribute("data-photo-id")
    page.get_by_test_id("photo").first.get_by_test_id("photo-delete").click()
    expect(page.get_by_test_id("flash-message")).to_contain_text("Picture deleted.")
    expect(page.get_by_test_id("photo")).to_have_count(2)
    expect(page.get_by_test_id("photo-input")).to_have_count(1)
    with on_site(site):
        assert not Photo.objects.filter(pk=int(first_id)).exists()

    # With a photo the alert is gone.
    page.goto(site_server.url("localhost", "/notifications"))
    expect(page.get_by_test_id("settings")).to_be_visible()
    expect(page.get_by_test_id("profile-photo-alert")).to_have_count(0)


def test_dismissing_the_photo_alert(site_server, page, site):
    enter(page, site_server.url("localhost", "/login"))
    email, _name = sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/notifications"))
    page.get_by_test_id("profile-photo-alert-dismiss").click()
    expect(page.get_by_test_id("profile-photo-alert")).to_have_count(0)
    with on_site(site):
        for _ in range(50):
            if "profile_photo" in User.objects.get(email=email).dismissals:
                break
            page.wait_for_timeout(100)
        assert "profile_photo" in User.objects.get(email=email).dismissals
    page.reload()
    expect(page.get_by_test_id("settings")).to_be_visible()
    expect(page.get_by_test_id("profile-photo-alert")).to_have_count(0)


def test_send_a_gift_from_the_profile(site_server, page, site, new_context):
    """The profile's gift button: visitors get the login message; a member with enough
    credits picks a gift (a picture named by the gift) and sends it, which lands in the
    conversation; without enough credits the way leads to the credits page."""
    a_email, a = member(site, "Giver")
    _b_email, b = member(site, "Gifted")
    in_thread(credits_give, site, a.user, site.gift_credits)

    visitor = new_context().new_page()
    enter(visitor, site_server.url("localhost", f"/members/{b.pk}"))
    visitor.get_by_test_id("profile-gift").click()
    expect(visitor.get_by_test_id("login-needed-gift")).to_be_visible()
    expect(visitor.get_by_test_id("login-needed-gift")).to_contain_text("Log in or sign up to send a gift.")

    log_in(page, site_server, a_email)
    goto_past_the_match_modal(page, site_server.url("localhost", f"/members/{b.pk}"))
    page.get_by_test_id("profile-gift").click()
    dialog = page.get_by_test_id("profile-gifts")
    expect(dialog).to_be_visible()
    rose = dialog.get_by_role("button", name="Rose")
    expect(rose.locator("img")).to_have_attribute("alt", "Rose")
    expect(rose.locator("img")).to_have_js_property("naturalWidth", 64)  # the SVG file loaded
    rose.click()
    expect(page.get_by_test_id("profile-gift-outcome")).to_contain_text(f"is on its way to {b.name}")
    expect(page.get_by_test_id("profile-gift-outcome")).to_be_focused()
    page.get_by_test_id("profile-gift-chat").click()
    gift = page.get_by_test_id("message-gift")
    expect(gift.get_by_role("img", name="Rose")).to_be_visible()
    expect(page.get_by_test_id("chat-credits-count")).to_have_text("0")

    # No credits left: the button leads to the credits page.
    page.goto(site_server.url("localhost", f"/members/{b.pk}"))
    page.get_by_test_id("profile-gift").click()
    expect(page.get_by_test_id("profile-gift-outcome")).to_contain_text("You do not have enough credits")
    page.get_by_test_id("profile-gift-credits").click()
    expect(page).to_have_url(site_server.url("localhost", "/credits"))


def _photos(site, user, count: int, approved: bool = False) -> None:
    """`count` photos uploaded by `user`; `approved`: moderated, so others see them too."""
    from apps.profiles.models import PhotoStatus
    from apps.profiles.services.photos import photo_upload
    from apps.profiles.tests.helpers import jpeg_upload

    with on_site(site):
        for i in range(count):
            photo = photo_upload(site=site, user=user, upload=jpeg_upload(colour=(60 * i, 90, 160), name=f"p{i}.jpg"))
            if approved:
                Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)


def test_photo_viewer_by_keyboard(site_server, page, site):
    """The profile's photos open in a dialog; the arrow keys move between them, Escape
    closes it and focus goes back to the photo that opened it."""
    email, owner = member(site, "Album")
    in_thread(_photos, site, owner.user, 3)
    log_in(page, site_server, email)
    goto_past_the_match_modal(page, site_server.url("localhost", f"/members/{owner.pk}"))
    photos = page.get_by_test_id("profile-photos").locator("a[data-photo-viewer-item]")
    expect(photos).to_have_count(3)
    photos.nth(1).focus()
    page.keyboard.press("Enter")
    viewer = page.get_by_test_id("photo-viewer")
    expect(viewer).to_be_visible()
    expect(page.get_by_test_id("photo-viewer-close")).to_be_focused()
    expect(page.get_by_test_id("photo-viewer-status")).to_have_text("Photo 2 of 3")
    image = page.get_by_test_id("photo-viewer-image")
    second = image.get_attribute("src")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("photo-viewer-status")).to_have_text("Photo 3 of 3")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("photo-viewer-status")).to_have_text("Photo 1 of 3")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("photo-viewer-status")).to_have_text("Photo 2 of 3")
    expect(image).to_have_attribute("src", second)
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("el => el.naturalWidth") > 0
    # Tab stays inside the dialog (the page behind is inert).
    for _ in range(4):
        page.keyboard.press("Tab")
        assert viewer.evaluate("el => el.contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(viewer).to_be_hidden()
    expect(photos.nth(1)).to_be_focused()


LOGIN_NEEDED = {  # key: (the button, the dialog's own text, spec §2 profile page)
    "message": ("profile-message", "Log in or sign up to send a message."),
    "like": ("profile-like", "Log in or sign up to like this profile."),
    "gift": ("profile-gift", "Log in or sign up to send a gift."),
    "photos": ("profile-photos-login", "Log in or sign up to see more photos."),
}


def test_every_modal_uses_the_one_dialog_login_needed(site_server, page, site):
    """A visitor's profile actions (message, like, gift, more photos) each open the one
    Dialog with its own text, by keyboard and by click: focus moves into it, Tab stays
    inside, Escape or the close button closes it and focus goes back to the button that
    opened it."""
    _email, profile = member(site, "Keyboard")
    in_thread(_photos, site, profile.user, 2, approved=True)  # one shown to visitors, one behind the lock
    enter(page, site_server.url("localhost", f"/members/{profile.pk}"))
    expect(page.locator('[data-island="LoginNeeded"][data-island-mounted]')).to_have_count(1)
    for key, (button_id, text) in LOGIN_NEEDED.items():
        button = page.get_by_test_id(button_id)
        dialog = page.get_by_test_id(f"login-needed-{key}")

        # By keyboard: Enter opens it, Escape closes it.
        button.focus()
        page.keyboard.press("Enter")
        expect(dialog).to_be_visible()
        expect(dialog).to_have_js_property("open", True)
        expect(dialog).to_have_accessible_name(text)
        expect(dialog.get_by_role("heading")).to_have_text(text)
        expect(page.get_by_test_id("login-needed-close")).to_be_focused()
        for _ in range(4):  # close button, login, signup, and round again
            page.keyboard.press("Tab")
            assert dialog.evaluate("(el) => el.contains(document.activeElement)")
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)
        expect(button).to_be_focused()

        # By click: the close button closes it.
        button.click()
        expect(dialog).to_be_visible()
        expect(page.get_by_test_id("login-needed-close")).to_be_focused()
        page.get_by_test_id("login-needed-close").click()
        expect(dialog).to_have_count(0)
        expect(button).to_be_focused()
    # No Bootstrap modal is left on the page.
    assert page.locator(".modal").count() == 0
