"""Searching members in a real browser, at phone and desktop widths (issue 4 item 4):
the count, Load more appending cards, Clear resetting results and counts. The member
signs up through the site's API; the profiles found are made through the ORM with
unique names and removed afterwards, in a thread of their own: its connection is outside
the test's transaction, so the live server sees them."""

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from playwright.sync_api import expect

from apps.profiles.models import Profile, ProfileStatus
from apps.profiles.search import COUNT_LIMIT
from conftest import on_site
from tests.browser.helpers import enter, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]

AGE = 97  # Nobody else in the test database is this old in Belgium.
MANY_AGE = 96  # Nor this.


def committed(site, work):
    """Run `work()` in the site's schema on a connection of its own (committed)."""

    def run():
        try:
            with on_site(site):
                return work()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def women_in_belgium(site, *, count: int, age: int, prefix: str) -> Iterator[list[Profile]]:
    """`count` women of `age` in Gent, committed in one statement (the last is the newest),
    and deleted again after the test."""
    tag = uuid.uuid4().hex[:8]
    today = timezone.localdate()
    born = today.replace(year=today.year - age) - timedelta(days=30)
    profiles = committed(
        site,
        lambda: Profile.objects.bulk_create(
            Profile(
                name=f"{prefix}{tag}-{number:04d}",
                gender="female",
                country="BE",
                city="Gent",
                date_of_birth=born,
                status=ProfileStatus.ACTIVE,
            )
            for number in range(count)
        ),
    )
    yield profiles
    committed(site, lambda: Profile.objects.filter(pk__in=[profile.pk for profile in profiles]).delete())


@pytest.fixture
def belgians(site):
    yield from women_in_belgium(site, count=30, age=AGE, prefix="S")


@pytest.fixture
def many_belgians(site):
    """More Belgians of one age than a count reads (COUNT_LIMIT)."""
    yield from women_in_belgium(site, count=COUNT_LIMIT + 1, age=MANY_AGE, prefix="M")


def open_filters(page) -> None:
    """Phones fold the form behind the Filters button; from md up it is always shown."""
    toggle = page.get_by_test_id("search-filters-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false":
        toggle.click()
    expect(page.get_by_test_id("search-filters")).to_be_visible()


def test_search_count_load_more_and_clear(site_server, page, site, belgians):
    enter(page, site_server.url("localhost", "/login"))
    email, _ = sign_up(page, site_server)
    committed(
        site, lambda: Profile.objects.filter(user__email=email).update(gender="male", sexuality="hetero", country="GB")
    )

    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("search")).to_be_visible()
    open_filters(page)
    page.get_by_label("Looking for").select_option("female")
    page.get_by_label("Country").select_option("BE")
    page.get_by_label("From age").select_option(str(AGE))
    page.get_by_label("To age").select_option(str(AGE))
    page.get_by_test_id("search-submit").click()

    expect(page.get_by_test_id("search-count")).to_have_text("30 members found")
    cards = page.get_by_test_id("search-results").get_by_test_id("search-card")
    expect(cards).to_have_count(24)
    expect(cards.first).to_contain_text(belgians[-1].name)
    assert f"min_age={AGE}" in page.url and "country=BE" in page.url

    page.get_by_test_id("search-load-more").click()
    expect(cards).to_have_count(30)
    expect(cards.last).to_contain_text(belgians[0].name)
    expect(page.get_by_test_id("search-load-more")).to_have_count(0)
    expect(page.get_by_test_id("search-count")).to_have_text("30 members found")

    # A reload keeps the filters (the server renders the first page again).
    page.reload()
    expect(page.get_by_test_id("search-count")).to_have_text("30 members found")
    expect(page.get_by_label("Country")).to_have_value("BE")
    expect(cards).to_have_count(24)

    open_filters(page)
    page.get_by_test_id("search-clear").click()
    expect(page.get_by_test_id("search-card")).to_have_count(0)
    expect(page.get_by_test_id("search-count")).to_have_count(0)
    expect(page.get_by_test_id("search-cleared")).to_be_visible()
    expect(page.get_by_label("From age")).to_have_value(str(site.min_age))
    assert "?" not in page.url

    # Cards lead to the profile.
    page.get_by_label("Country").select_option("BE")
    page.get_by_label("From age").select_option(str(AGE))
    page.get_by_test_id("search-submit").click()
    expect(cards).to_have_count(24)
    assert cards.first.get_attribute("href") == f"/members/{belgians[-1].pk}"


@pytest.mark.parametrize("viewport", ["phone", "desktop"], indirect=True)
def test_past_a_thousand_the_count_says_so(site_server, page, site, many_belgians, viewport):
    enter(page, site_server.url("localhost", "/login"))
    sign_up(page, site_server)
    page.goto(site_server.url("localhost", f"/members?gender=female&country=BE&min_age={MANY_AGE}&max_age={MANY_AGE}"))
    expect(page.get_by_test_id("search-count")).to_have_text("1,000+ members found")
    cards = page.get_by_test_id("search-results").get_by_test_id("search-card")
    expect(cards).to_have_count(24)
    page.get_by_test_id("search-load-more").click()
    expect(cards).to_have_count(48)
    expect(page.get_by_test_id("search-count")).to_have_text("1,000+ members found")


def test_match_finder_steps_to_results(site_server, page, site, belgians):
    enter(page, site_server.url("localhost", "/login"))
    email, _ = sign_up(page, site_server)
    committed(
        site, lambda: Profile.objects.filter(user__email=email).update(gender="male", sexuality="hetero", country="BE")
    )
    page.goto(site_server.url("localhost", "/match-finder"))
    expect(page.get_by_test_id("match-finder-title")).to_have_text("Who are you looking for?")
    expect(page.get_by_label("Looking for")).to_have_value("female")  # from the profile
    page.get_by_test_id("match-finder-next").click()
    page.get_by_label("From age").select_option(str(AGE))
    page.get_by_test_id("match-finder-next").click()
    expect(page.get_by_label("Country")).to_have_value("BE")
    page.get_by_test_id("match-finder-next").click()
    page.get_by_test_id("match-finder-next").click()  # the site's search fields: any
    expect(page.get_by_test_id("search-count")).to_have_text("30 members found")
    expect(page.get_by_test_id("search-card")).to_have_count(24)


@pytest.mark.parametrize("viewport", ["phone"], indirect=True)
def test_phones_show_the_results_first_with_the_filters_folded(site_server, page, site, belgians, viewport):
    enter(page, site_server.url("localhost", "/login"))
    email, _ = sign_up(page, site_server)
    committed(
        site, lambda: Profile.objects.filter(user__email=email).update(gender="male", sexuality="hetero", country="GB")
    )
    page.goto(site_server.url("localhost", f"/members?gender=female&country=BE&min_age={AGE}&max_age={AGE}"))
    toggle = page.get_by_test_id("search-filters-toggle")
    form = page.get_by_test_id("search-filters")
    cards = page.get_by_test_id("search-results").get_by_test_id("search-card")
    expect(cards).to_have_count(24)
    # The results on the first screen, under the button; the form folded.
    expect(toggle).to_be_visible()
    expect(form).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert toggle.get_attribute("aria-controls") == form.get_attribute("id")
    expect(page.get_by_test_id("search-filters-summary")).to_have_text(f"Woman · {AGE}–{AGE} · Belgium")
    box = toggle.bounding_box()
    assert box["height"] >= 44 and box["width"] >= viewport["width"] - 48, box
    # Right under the button and the count (the form takes no room).
    assert cards.first.bounding_box()["y"] < box["y"] + box["height"] + 90

    # Keyboard: Enter opens it in place, the fields follow the button, Space folds it.
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(form).to_be_visible()
    assert form.bounding_box()["y"] >= box["y"] + box["height"]
    page.keyboard.press("Tab")
    expect(page.get_by_label("Looking for")).to_be_focused()
    toggle.focus()
    page.keyboard.press("Space")
    expect(form).to_be_hidden()

    # A search from the open form folds it and keeps the focus on the button.
    toggle.click()
    page.get_by_label("To age").select_option(str(AGE))
    page.get_by_label("Country").select_option("GB")
    expect(page.get_by_test_id("search-filters-summary")).to_have_text(f"Woman · {AGE}–{AGE} · United Kingdom")
    page.get_by_test_id("search-submit").click()
    expect(form).to_be_hidden()
    expect(toggle).to_be_focused()
    expect(page.get_by_test_id("search-empty")).to_be_visible()


@pytest.mark.parametrize("viewport", ["desktop"], indirect=True)
def test_desktop_keeps_the_form_shown(site_server, page, site, viewport):
    enter(page, site_server.url("localhost", "/login"))
    sign_up(page, site_server)
    page.goto(site_server.url("localhost", "/members"))
    expect(page.get_by_test_id("search-filters")).to_be_visible()
    expect(page.get_by_test_id("search-filters-toggle")).to_be_hidden()
