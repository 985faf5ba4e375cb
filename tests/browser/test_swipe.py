"""The swipe game in a real browser, at phone and desktop widths: a member with enough
profiles to swipe likes four (keyboard and buttons), then sees the wait and the like
disabled. Members are made in a thread of their own (committed, so the live server sees
them; names are unique)."""

import uuid
from datetime import date

import pytest
from playwright.sync_api import expect

from apps.profiles.models import Profile, ProfileStatus
from conftest import on_site
from tests.browser.helpers import log_in, member
from tests.live import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def _women_create(site, count: int) -> list[Profile]:
    tag = uuid.uuid4().hex[:8]
    with on_site(site):
        return [
            Profile.objects.create(
                name=f"Swipe{tag}{i}",
                status=ProfileStatus.ACTIVE,
                gender="female",
                country="GB",
                city="Leeds",
                date_of_birth=date(1990, 1, 1),
            )
            for i in range(count)
        ]


def _profiles_delete(site, pks: list[int]) -> None:
    with on_site(site):
        Profile.objects.filter(pk__in=pks).delete()


@pytest.fixture
def women(site):
    """women(count): profiles without a member to swipe, committed for the live server
    and deleted after the test (later tests and files see the site without them: the
    landers' demo profiles are the site's profiles without a member)."""
    made: list[int] = []

    def make(count: int) -> list[Profile]:
        profiles = in_thread(_women_create, site, count)
        made.extend(profile.pk for profile in profiles)
        return profiles

    yield make
    in_thread(_profiles_delete, site, made)


def to_the_game(site_server, page, site, women, prefix: str) -> None:
    """A man looking for women, six of them to swipe, logged in on the swipe game."""
    email, profile = member(site, prefix)

    def make_him_a_man() -> None:
        with on_site(site):
            Profile.objects.filter(pk=profile.pk).update(gender="male", sexuality="hetero")

    in_thread(make_him_a_man)
    women(6)
    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", "/swipe-game"))


def test_four_likes_then_the_wait(site_server, page, site, women):
    to_the_game(site_server, page, site, women, "Swiper")
    game = page.get_by_test_id("swipe-game")
    expect(game.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 4")
    like = page.get_by_test_id("swipe-like")

    first = page.get_by_test_id("swipe-card-name").inner_text()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 3")
    expect(page.get_by_test_id("swipe-card-name")).not_to_have_text(first)
    page.keyboard.press("ArrowLeft")  # a pass costs nothing
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 3")
    for left in (2, 1, 0):
        expect(like).to_be_enabled()
        like.click()
        expect(page.get_by_test_id("swipe-likes-left")).to_have_text(f"Likes left today: {left}")

    expect(page.get_by_test_id("swipe-limit")).to_contain_text("You have used your 4 likes for today. New likes in ")
    expect(page.get_by_test_id("swipe-limit")).to_contain_text(" min.")
    expect(like).to_be_disabled()
    # A reload keeps the limit: it is the server's count.
    page.reload()
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 0")
    expect(page.get_by_test_id("swipe-like")).to_be_disabled()


def _focus_ring(locator) -> str:
    """The focused element's outline as the browser draws it ("none" when there is none)."""
    return locator.evaluate(
        "el => el.matches(':focus-visible') ? getComputedStyle(el).outlineStyle : 'not focus-visible'"
    )


def test_keyboard_only_swipes_with_visible_focus(site_server, page, site, women):
    """Tab reaches pass and like with a visible focus ring, their keys are described for
    screen readers, and the arrow keys pass and like while a button has focus."""
    to_the_game(site_server, page, site, women, "Keys")
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 4")
    pass_button, like = page.get_by_test_id("swipe-pass"), page.get_by_test_id("swipe-like")
    keys = page.get_by_test_id("swipe-keys")
    expect(keys).to_have_text("Keyboard: the left arrow key passes, the right arrow key likes.")
    expect(keys).to_have_class("visually-hidden")
    expect(pass_button).to_have_attribute("aria-describedby", keys.get_attribute("id"))
    expect(like).to_have_attribute("aria-keyshortcuts", "ArrowRight")

    for _ in range(60):  # Tab through the page until the pass button has focus
        page.keyboard.press("Tab")
        if pass_button.evaluate("el => el === document.activeElement"):
            break
    expect(pass_button).to_be_focused()
    assert _focus_ring(pass_button) == "solid"
    page.keyboard.press("Tab")
    expect(like).to_be_focused()
    assert _focus_ring(like) == "solid"

    first = page.get_by_test_id("swipe-card-name").inner_text()
    page.keyboard.press("ArrowLeft")  # a pass, with the like button focused
    expect(page.get_by_test_id("swipe-card-name")).not_to_have_text(first)
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 4")
    expect(page.get_by_test_id("swipe-current")).to_contain_text(page.get_by_test_id("swipe-card-name").inner_text())
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 3")
    page.keyboard.press("Enter")  # the focused like button, which kept focus while sending
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 2")
    expect(like).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 1")
    page.keyboard.press("Enter")  # the last like: the button is disabled, focus goes to pass
    expect(page.get_by_test_id("swipe-likes-left")).to_have_text("Likes left today: 0")
    expect(like).to_be_disabled()
    expect(pass_button).to_be_focused()
