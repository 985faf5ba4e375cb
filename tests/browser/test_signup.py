"""Signing up through the signup modal of the landing page, in a real browser, at phone
and desktop widths (spec §2 signup modal, §4 Signup, §5)."""

import uuid

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User, UserStatus
from apps.profiles.models import ProfileStatus
from conftest import on_site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

PASSWORD = "a-Long-passphrase-42"


def test_signup_from_the_landing_page_modal_to_the_confirm_step(site_server, page, site):
    token = uuid.uuid4().hex[:10]
    email = f"member-{token}@example.com"
    name = f"Member{token[:8]}"

    page.goto(site_server.url("localhost"))
    page.get_by_test_id("entry-warning-enter").click()
    page.get_by_test_id("signup-cta").click()

    modal = page.get_by_test_id("signup-modal")
    expect(modal).to_be_visible()
    expect(page).to_have_url(site_server.url("localhost", "/"))  # the modal, not the /signup page
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Create your free account")
    expect(modal.get_by_test_id("signup-step-title")).to_be_focused()

    # A bad value: the server's message shows under the field, nothing typed is lost.
    modal.get_by_label("E-mail address").fill("not-an-email")
    modal.get_by_label("Name").fill(name)
    modal.get_by_test_id("signup-dob-day").select_option("5")
    modal.get_by_test_id("signup-dob-month").select_option("4")
    modal.get_by_test_id("signup-dob-year").select_option("1990")
    modal.get_by_label("Password", exact=True).fill(PASSWORD)
    modal.get_by_test_id("signup-submit").click()
    expect(modal.get_by_test_id("signup-email-feedback")).to_have_text("Invalid email")
    expect(modal.get_by_label("E-mail address")).to_have_class("form-control is-invalid")
    expect(modal.get_by_label("Name")).to_have_value(name)
    expect(modal.get_by_label("Password", exact=True)).to_have_value(PASSWORD)

    # Valid values: the account exists and the modal can no longer be closed.
    modal.get_by_label("E-mail address").fill(email)
    expect(modal.get_by_test_id("signup-email-feedback")).to_have_count(0)
    modal.get_by_test_id("signup-submit").click()
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Add a profile photo")
    expect(modal.get_by_test_id("signup-modal-close")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(modal).to_be_visible()

    # 1: no photo.
    modal.get_by_test_id("signup-skip").click()

    # 2: location.
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Where do you live?")
    modal.get_by_label("Country").select_option("GB")
    modal.get_by_label("Region").select_option("GB-SCT")
    modal.get_by_label("City").fill("Glasgow")
    modal.get_by_test_id("signup-save").click()

    # 3: personal info.
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Tell us about yourself")
    modal.locator("label", has_text="Woman").click()
    modal.locator("label", has_text="Bisexual").click()
    modal.get_by_test_id("signup-save").click()

    # 4: about me.
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("About me")
    modal.get_by_test_id("signup-about").fill("I like long walks and good coffee.")
    modal.get_by_test_id("signup-save").click()

    # Push: the demo sites use the deployment's VAPID key (settings.VAPID_PUBLIC_KEY), and
    # Chromium can do push: the step is offered; "Skip" goes on to the final step.
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Never miss a message")
    expect(modal.get_by_test_id("signup-push-enable")).to_be_visible()
    modal.get_by_test_id("signup-skip").click()
    expect(modal.get_by_test_id("signup-step-title")).to_have_text("Confirm your e-mail address")
    expect(modal.get_by_test_id("signup-confirm-body")).to_contain_text(email)
    expect(modal.get_by_test_id("signup-continue")).to_have_attribute("href", "/signup-matches")

    with on_site(site):
        member = User.objects.select_related("profile").get(email=email)
        assert member.status == UserStatus.NOT_CONFIRMED
        profile = member.profile
        assert profile.status == ProfileStatus.DISABLED
        assert (profile.country.code, profile.region, profile.city) == ("GB", "GB-SCT", "Glasgow")
        assert (profile.gender, profile.sexuality) == ("female", "bi")
        assert profile.about_me == "I like long walks and good coffee."
        assert "signup_steps" in member.dismissals

    modal.get_by_test_id("signup-continue").click()
    expect(page).to_have_url(site_server.url("localhost", "/signup-matches"))
    expect(page.get_by_test_id("signup-matches")).to_be_visible()


@pytest.mark.parametrize(
    ("domain", "language", "toggle_name"),
    [("localhost", "fr", "Afficher le mot de passe"), ("gay.localhost", "de", "Passwort anzeigen")],
)
def test_the_password_field_keeps_its_width_in_long_languages(site_server, page, domain, language, toggle_name):
    """The show-password toggle is an icon button named by its text ("Afficher le mot de
    passe" beside the field squeezed it to 135 px at 390 px): the field keeps its width."""
    from django.conf import settings

    url = site_server.url(domain, "/signup")
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": url}])
    page.goto(url)
    page.get_by_test_id("entry-warning-enter").click()
    expect(page.locator("html")).to_have_attribute("lang", language)
    toggle = page.get_by_role("button", name=toggle_name, exact=True)
    expect(toggle).to_be_visible()
    password = page.get_by_test_id("signup-password")
    field = password.locator("xpath=ancestor::div[contains(@class, 'mb-3')][1]").bounding_box()
    input_box, toggle_box = password.bounding_box(), toggle.bounding_box()
    assert input_box["width"] >= field["width"] - 60, (input_box, field)
    assert toggle_box["width"] <= 60
    toggle.click()
    expect(password).to_have_attribute("type", "text")
    expect(page.get_by_role("button", name=toggle_name, exact=True)).to_have_attribute("aria-pressed", "true")
