"""The swipe game in a real browser, at phone and desktop widths: a member with enough
profiles to swipe likes four (keyboard and buttons), then sees the wait and the like
disabled. Members are made in a thread of their own (committed, so the live server sees
them; names are unique)."""

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import date

import pytest
from django.db import connection
from playwright.sync_api import expect

from apps.profiles.models import Profile, ProfileStatus
from conftest import on_site
from tests.browser.helpers import log_in, member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def women(site, count: int) -> list[Profile]:
    tag = uuid.uuid4().hex[:8]

    def create() -> list[Profile]:
        try:
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
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(create).result()


def test_four_likes_then_the_wait(site_server, page, site):
    email, profile = member(site, "Swiper")

    def make_him_a_man() -> None:
        try:
            with on_site(site):
                Profile.objects.filter(pk=profile.pk).update(gender="male", sexuality="hetero")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(make_him_a_man).result()
    women(site, 6)

    log_in(page, site_server, email)
    page.goto(site_server.url("localhost", "/swipe-game"))
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
