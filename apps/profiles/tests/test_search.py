"""Member search (issue 4 item 4): GET /api/search.php and the /members page."""

from __future__ import annotations

import itertools
import json
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User, UserStatus
from apps.profiles.cards import CARD_FIELDS
from apps.profiles.models import Block, Photo, PhotoStatus, Profile, ProfileStatus
from apps.profiles.search import (
    COUNT_CAP,
    COUNT_LIMIT,
    PAGE_SIZE,
    _listed,
    _viewer_hidden,
    page_sql,
    search_params_parse,
)
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db

URL = "/api/search.php"
_names = itertools.count(1)


def born(age: int):
    """A date of birth that makes someone `age` today (well inside the year)."""
    today = timezone.localdate()
    return today.replace(year=today.year - age) - timedelta(days=100)


def make_profile(*, name: str | None = None, user: bool = False, age: int = 30, **fields) -> Profile:
    """A profile in the current schema; active, a woman in GB, 30 unless told."""
    number = next(_names)
    name = name or f"p{number}"
    values = {"gender": "female", "country": "GB", "status": ProfileStatus.ACTIVE, "date_of_birth": born(age)}
    values.update(fields)
    owner = (
        User.objects.create_user(f"{name}-{number}", f"{name}-{number}@example.com", "pw-123456789") if user else None
    )
    return Profile.objects.create(user=owner, name=name, **values)


def add_photo(profile: Profile, status: str = PhotoStatus.ACTIVE) -> None:
    """A main photo without a file (dimensions given, so nothing is read)."""
    profile.main_photo = Photo.objects.create(
        profile=profile, image="photos/a.jpg", thumb="photos/thumbs/a.jpg", width=400, height=400, status=status
    )
    profile.save(update_fields=["main_photo"])


def member_client(site: Site, client_for, **fields):
    """A logged-in member with a profile (hetero man in GB unless told)."""
    with on_site(site):
        values = {"gender": "male", "sexuality": "hetero", "country": "GB"}
        values.update(fields)
        profile = make_profile(name="searcher", user=True, **values)
        client = client_for(site)
        client.force_login(profile.user)
    return client, profile


def names(body: dict, key: str = "results") -> list[str]:
    return [card["name"] for card in body[key]]


def set_site(site: Site, **fields) -> None:
    Site.objects.filter(pk=site.pk).update(**fields)
    site_cache_clear()


@pytest.fixture
def member(site, client_for):
    return member_client(site, client_for)


class TestFilters:
    def test_gender_country_region_and_ages(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="match", region="GB-SCT", age=30)
            make_profile(name="man", gender="male", region="GB-SCT")
            make_profile(name="other-region", region="GB-ENG")
            make_profile(name="too-old", region="GB-SCT", age=50)
            make_profile(name="american", country="US")
        body = client.get(URL, {"gender": "female", "region": "GB-SCT", "min_age": 25, "max_age": 35}).json()
        assert names(body) == ["match"]
        assert body["num_results"] == 1
        assert body["num_results_text"] == "1 member found"
        assert body["filters"] == {
            "gender": "female",
            "country": "GB",
            "region": "GB-SCT",
            "min_age": 25,
            "max_age": 35,
        }
        body = client.get(URL, {"country": "US"}).json()
        assert names(body) == ["american"]

    def test_the_sites_search_fields_only(self, site, member):
        client, _ = member
        set_site(site, search_fields=["body_type", "interests"])
        with on_site(site):
            make_profile(name="slim", body_type="slim", hair_color="red", interests=["Travel", "Music"])
            make_profile(name="curvy", body_type="curvy", hair_color="red", interests=["Travel"])
        assert names(client.get(URL, {"body_type": "slim"}).json()) == ["slim"]
        assert names(client.get(URL, {"interests": "Music"}).json()) == ["slim"]
        assert names(client.get(URL, {"interests": ["Travel"]}).json()) == ["curvy", "slim"]
        # Not one of this site's search fields: ignored, even with a bad value.
        assert names(client.get(URL, {"hair_color": "green", "tattoos": "nonsense"}).json()) == ["curvy", "slim"]

    def test_card_shape_with_an_approved_photo_only(self, site, member):
        client, _ = member
        with on_site(site):
            shown = make_profile(name="photo", city="Leeds", region="GB-ENG", is_fictional=True)
            add_photo(shown)
            waiting = make_profile(name="waiting")
            add_photo(waiting, PhotoStatus.PENDING)
        cards = {card["name"]: card for card in client.get(URL).json()["results"]}
        assert cards["photo"] == {
            "id": shown.pk,
            "name": "photo",
            "age": 30,
            "city": "Leeds",
            "region": "GB-ENG",
            "country": "GB",
            "facts": [{"name": "place", "text": "Leeds, England, United Kingdom"}],
            "notes": [{"kind": "fictional", "text": site.fictional_singular}],
            "fictional": {
                "icon": site.fictional_icon,
                "label": site.fictional_singular,
                "warning": site.fictional_warning,
            },
            "main_image": {
                "thumb_filename": cards["photo"]["main_image"]["thumb_filename"],
                "match_filename": cards["photo"]["main_image"]["match_filename"],
            },
            "is_fictional": True,
            "is_cam": False,
        }
        assert cards["photo"]["main_image"]["thumb_filename"].endswith("photos/thumbs/a.jpg")
        # The match modal's picture is the photo itself (docs/decisions.md, "The match modal's photo").
        assert cards["photo"]["main_image"]["match_filename"].endswith("photos/a.jpg")
        assert "thumbs" not in cards["photo"]["main_image"]["match_filename"]
        assert cards["waiting"]["main_image"] is None


class TestDefaults:
    def test_a_hetero_woman_on_the_general_site_sees_men_of_her_country(self, site, client_for):
        client, _ = member_client(site, client_for, gender="female", sexuality="hetero", country="US")
        with on_site(site):
            make_profile(name="us-man", gender="male", country="US")
            make_profile(name="us-woman", gender="female", country="US")
            make_profile(name="gb-man", gender="male", country="GB")
        body = client.get(URL).json()
        assert names(body) == ["us-man"]
        assert body["filters"]["gender"] == "male"
        assert body["filters"]["country"] == "US"
        assert (body["filters"]["min_age"], body["filters"]["max_age"]) == (site.min_age, 99)

    def test_a_country_the_site_lacks_falls_back_to_the_first(self, site, client_for):
        client, _ = member_client(site, client_for, country="DE")
        assert client.get(URL).json()["filters"]["country"] == site.country_codes[0]

    def test_the_gay_site_shows_men_to_men(self, gay_site, client_for):
        client, _ = member_client(gay_site, client_for, gender="male", sexuality="hetero", country="NL")
        with on_site(gay_site):
            make_profile(name="nl-man", gender="male", country="NL")
            make_profile(name="nl-woman", gender="female", country="NL")
        body = client.get(URL).json()
        assert names(body) == ["nl-man"]
        assert body["filters"]["gender"] == "male"
        # Women are not a choice there.
        response = client.get(URL, {"gender": "female"})
        assert response.status_code == 400

    def test_visitors_see_every_gender_in_the_first_country(self, site, client_for):
        set_site(site, logged_out_search=True)
        with on_site(site):
            make_profile(name="woman", gender="female", country="GB")
            make_profile(name="man", gender="male", country="GB")
            make_profile(name="american", gender="male", country="US")
        body = client_for(site).get(URL).json()
        assert sorted(names(body)) == ["man", "woman"]
        assert body["filters"]["gender"] == "all"
        assert body["filters"]["country"] == "GB"


class TestExclusions:
    def test_hidden_blocked_disabled_deleted_and_self_never_show(self, site, client_for):
        client, me = member_client(site, client_for, gender="female", sexuality="bi")
        with on_site(site):
            make_profile(name="shown", user=True)
            invisible = make_profile(name="invisible", user=True)
            User.objects.filter(pk=invisible.user_id).update(invisible=True)
            deleted = make_profile(name="deleted", user=True)
            User.objects.filter(pk=deleted.user_id).update(status=UserStatus.DELETED)
            make_profile(name="disabled", status=ProfileStatus.DISABLED)
            blocked = make_profile(name="blocked", user=True)
            Block.objects.create(blocker=me.user, blocked=blocked)
            blocker = make_profile(name="blocker", user=True)
            Block.objects.create(blocker=blocker.user, blocked=me)
        body = client.get(URL, {"gender": "all"}).json()
        assert names(body) == ["shown"]
        assert body["num_results"] == 1

    def test_another_sites_profiles_never_show(self, site, gay_site, client_for):
        client, _ = member_client(site, client_for)
        with on_site(gay_site):
            make_profile(name="elsewhere", country="GB")
        with on_site(site):
            make_profile(name="here")
        body = client.get(URL).json()
        assert names(body) == ["here"]
        assert body["num_results"] == 1
        assert body["num_similar"] == 0


class TestVisitors:
    def test_refused_when_the_site_does_not_allow_it(self, site, client_for):
        set_site(site, logged_out_search=False, logged_out_search_trafficsource=False)
        response = client_for(site).get(URL)
        assert response.status_code == 403
        assert response.json()["error"] == {
            "code": "authentication_required",
            "message": "Log in or sign up to search members.",
        }

    def test_allowed_for_everyone(self, site, client_for):
        set_site(site, logged_out_search=True, logged_out_search_trafficsource=False)
        assert client_for(site).get(URL).status_code == 200

    def test_trafficsource_visitors_need_a_tracking_network(self, site, client_for):
        set_site(site, logged_out_search=False, logged_out_search_trafficsource=True)
        client = client_for(site)
        assert client.get(URL).status_code == 403
        assert client.get("/members").context["allowed"] is False
        # The tracking middleware keeps ?network=... in the session.
        assert client.get("/", {"network": "adnet"}).status_code == 302
        assert client.get(URL).status_code == 200
        assert client.get("/members").context["allowed"] is True

    def test_members_may_always_search(self, site, member):
        set_site(site, logged_out_search=False, logged_out_search_trafficsource=False)
        client, _ = member
        assert client.get(URL).status_code == 200


class TestValidation:
    @pytest.mark.parametrize(
        ("params", "field", "message"),
        [
            ({"min_age": "17"}, "min_age", "Choose an age from 18 to 99."),
            ({"max_age": "100"}, "max_age", "Choose an age from 18 to 99."),
            ({"min_age": "abc"}, "min_age", "Choose an age from 18 to 99."),
            ({"min_age": "40", "max_age": "30"}, "max_age", "The maximum age cannot be lower than the minimum age."),
            (
                {"relationship_status": "engaged"},
                "relationship_status",
                "This is not a valid choice for relationship status.",
            ),
            ({"gender": "robot"}, "gender", "This is not a valid choice for gender."),
            ({"country": "DE"}, "country", "This country is not available on this site."),
            ({"country": "GB", "region": "US-AL"}, "region", "This region does not belong to the chosen country."),
            ({"page": "0"}, "page", "Choose a page from 1 to 500."),
            ({"cursor": "not-a-cursor"}, "cursor", "This list has changed. Please search again."),
        ],
    )
    def test_a_clear_message_per_bad_parameter(self, site, member, params, field, message):
        client, _ = member
        response = client.get(URL, params)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_search"
        assert error["message"] == message
        assert error["fields"] == {field: [message]}


class TestPagination:
    def test_pages_continue_without_overlap_and_the_cursor_agrees(self, site, member):
        client, _ = member
        with on_site(site):
            for _ in range(30):
                make_profile()
        first = client.get(URL).json()
        assert len(first["results"]) == PAGE_SIZE
        assert first["has_more"] is True
        assert first["num_results"] == 30
        assert first["similar"] == [] and first["num_similar"] == 0
        second = client.get(URL, {"page": 2}).json()
        assert len(second["results"]) == 6
        assert second["has_more"] is False and second["next"] is None
        ids = [card["id"] for card in first["results"] + second["results"]]
        assert len(set(ids)) == 30
        with on_site(site):
            newest_first = list(
                Profile.objects.exclude(name="searcher").order_by("-created", "-id").values_list("id", flat=True)
            )
        assert ids == newest_first
        by_cursor = client.get(URL, {"cursor": first["next"], "page": 2}).json()
        assert by_cursor["results"] == second["results"]
        assert by_cursor["num_results"] == 30

    def test_walking_by_page_number_uses_the_cached_cursors(self, site, member):
        client, _ = member
        with on_site(site):
            for _ in range(50):
                make_profile()
        pages = [client.get(URL, {"page": number}).json() for number in (1, 2, 3)]
        ids = [card["id"] for page in pages for card in page["results"]]
        assert len(ids) == len(set(ids)) == 50
        # A client's cursor with a wrong page number does not change what page 2 is.
        client.get(URL, {"cursor": pages[1]["next"], "page": 1})
        assert client.get(URL, {"page": 2}).json()["results"] == pages[1]["results"]

    def test_a_page_without_a_cached_cursor_uses_an_offset(self, site, member):
        from django.core.cache import caches

        from apps.common.cache import volatile_alias

        client, _ = member
        with on_site(site):
            for _ in range(26):
                make_profile()
        first = client.get(URL).json()
        caches[volatile_alias()].clear()
        second = client.get(URL, {"page": 2}).json()
        assert len(second["results"]) == 2
        assert not {card["id"] for card in second["results"]} & {card["id"] for card in first["results"]}

    def test_profiles_with_the_same_time_keep_a_stable_order(self, site, member):
        client, _ = member
        with on_site(site):
            profiles = [make_profile() for _ in range(30)]
            Profile.objects.filter(pk__in=[p.pk for p in profiles]).update(created=timezone.now())
        first = client.get(URL).json()
        second = client.get(URL, {"cursor": first["next"]}).json()
        ids = [card["id"] for card in first["results"] + second["results"]]
        assert ids == sorted((p.pk for p in profiles), reverse=True)


class TestSimilar:
    def test_dropping_the_region_first(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="scot", region="GB-SCT")
            for index in range(3):
                make_profile(name=f"english{index}", region="GB-ENG")
        body = client.get(URL, {"region": "GB-SCT"}).json()
        assert names(body) == ["scot"]
        assert body["num_results"] == 1
        assert sorted(names(body, "similar")) == ["english0", "english1", "english2"]
        assert body["num_similar"] == 3
        assert body["num_similar_text"] == "3 similar members"

    def test_similar_results_and_their_count_leave_out_blocks_both_ways(self, site, client_for):
        client, me = member_client(site, client_for)
        with on_site(site):
            make_profile(name="scot", region="GB-SCT")
            make_profile(name="english", region="GB-ENG", user=True)
            blocked = make_profile(name="blocked", region="GB-ENG", user=True)
            Block.objects.create(blocker=me.user, blocked=blocked)
            blocker = make_profile(name="blocker", region="GB-ENG", user=True)
            Block.objects.create(blocker=blocker.user, blocked=me)
        body = client.get(URL, {"region": "GB-SCT"}).json()
        assert names(body) == ["scot"]
        assert names(body, "similar") == ["english"]
        assert body["num_similar"] == 1

    def test_wider_ages_then_any_country(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="exact", age=30)
            make_profile(name="older", age=38)
            make_profile(name="far-older", age=45)
            make_profile(name="french", country="FR", age=30)
        body = client.get(URL, {"min_age": 28, "max_age": 33}).json()
        assert names(body) == ["exact"]
        # Ages 23-38 are not enough to fill a page, so every country of the site follows.
        assert sorted(names(body, "similar")) == ["french", "older"]
        assert body["num_similar"] == 2

    def test_none_on_later_pages_or_full_pages(self, site, member):
        client, _ = member
        with on_site(site):
            for _ in range(PAGE_SIZE):
                make_profile(region="GB-SCT")
            make_profile(name="english", region="GB-ENG")
        body = client.get(URL, {"region": "GB-SCT"}).json()
        assert body["similar"] == [] and body["num_similar"] == 0


class TestCount:
    def test_the_count_is_cached_per_site_and_filters(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile()
        assert client.get(URL).json()["num_results"] == 1
        with on_site(site):
            make_profile()
        body = client.get(URL).json()
        assert len(body["results"]) == 2
        assert body["num_results"] == 1  # cached for 60 s
        assert client.get(URL, {"min_age": 20}).json()["num_results"] == 2  # other filters

    def test_search_keys_made_of_request_data_live_in_the_evictable_cache(self, site, member, settings):
        """Filters, pages and cursors come from the request: their entries go to the cache
        that evicts (CACHE_URL), never to the broker's Redis, and search fails open."""
        from django.core.cache import caches

        from apps.common.cache import VOLATILE, volatile_reset

        assert VOLATILE in settings.CACHES
        client, _ = member
        with on_site(site):
            for _ in range(25):
                make_profile()
        for min_age in (18, 19, 20):
            client.get(URL, {"min_age": min_age})
        default = caches["default"]._cache.get_client(write=False)
        volatile = caches[VOLATILE]._cache.get_client(write=False)
        assert not list(default.scan_iter(match="*search-*"))
        assert len(list(volatile.scan_iter(match="*search-count*"))) == 3
        settings.CACHES = {
            **settings.CACHES,
            VOLATILE: {**settings.CACHES[VOLATILE], "LOCATION": "redis://127.0.0.1:1/0"},
        }
        try:
            body = client.get(URL, {"min_age": 21}).json()
            assert len(body["results"]) == 24 and body["num_results"] == 25
        finally:
            volatile_reset()

    def test_the_cached_count_leaves_out_what_this_member_may_not_see(self, site, client_for):
        set_site(site, logged_out_search=True)
        client, me = member_client(site, client_for, gender="female", sexuality="bi")
        with on_site(site):
            make_profile(name="a", user=True)
            blocked = make_profile(name="b", user=True)
            Block.objects.create(blocker=me.user, blocked=blocked)
        assert client_for(site).get(URL, {"gender": "all"}).json()["num_results"] == 3  # a visitor: also "searcher"
        assert client.get(URL, {"gender": "all"}).json()["num_results"] == 1


def many_profiles(count: int, **fields) -> list[Profile]:
    """`count` active women of 30 in GB, inserted at once."""
    values = {"gender": "female", "country": "GB", "status": ProfileStatus.ACTIVE, "date_of_birth": born(30)}
    values.update(fields)
    return Profile.objects.bulk_create(Profile(name=f"m{next(_names)}", **values) for _ in range(count))


class TestCountCap:
    """Counts are exact up to COUNT_CAP and read COUNT_LIMIT matches at most: past the cap
    the answer says "1,000+" (an exact count read every match, 40 to 90 ms at 1,000,000
    profiles)."""

    def test_past_the_cap_the_count_says_so_in_every_language(self, site, client_for):
        set_site(site, logged_out_search=True, languages=["en", "de"])
        with on_site(site):
            many_profiles(COUNT_LIMIT + 5)
        visitor = client_for(site)
        with CaptureQueriesContext(connection) as captured:
            body = visitor.get(URL, {"gender": "female"}).json()
        assert body["num_results"] == COUNT_CAP and body["num_results_capped"] is True
        assert body["num_results_text"] == "1,000+ members found"
        assert body["has_more"] is True and len(body["results"]) == PAGE_SIZE
        counts = [query["sql"] for query in captured if "COUNT(*)" in query["sql"]]
        assert len(counts) == 1 and "LIMIT" in counts[0]  # the matches are not all read
        statements = [query["sql"] for query in captured]
        count_at = statements.index(counts[0])
        assert statements[count_at - 1] == "SET LOCAL max_parallel_workers_per_gather = 0"  # one process reads it
        visitor.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
        assert visitor.get(URL, {"gender": "female"}).json()["num_results_text"] == "1.000+ Mitglieder gefunden"

    def test_exact_up_to_the_cap(self, site, client_for):
        set_site(site, logged_out_search=True)
        with on_site(site):
            many_profiles(COUNT_CAP)
        body = client_for(site).get(URL, {"gender": "female"}).json()
        assert body["num_results"] == COUNT_CAP and body["num_results_capped"] is False
        assert body["num_results_text"] == "1,000 members found"

    def test_a_member_past_the_cap_by_one_who_blocked_one_gets_the_exact_count(self, site, client_for):
        client, me = member_client(site, client_for)
        with on_site(site):
            profiles = many_profiles(COUNT_CAP + 1)
            Block.objects.create(blocker=me.user, blocked=profiles[0])
        body = client.get(URL).json()
        assert body["num_results"] == COUNT_CAP and body["num_results_capped"] is False

    def test_a_member_whose_blocks_bring_a_limited_count_under_the_cap(self, site, client_for):
        """Every visitor's count reached the limit: this member's own matches are counted."""
        set_site(site, logged_out_search=True)
        client, me = member_client(site, client_for)
        hidden = COUNT_LIMIT + 1 - COUNT_CAP
        with on_site(site):
            profiles = many_profiles(COUNT_LIMIT + 1)
            Block.objects.bulk_create(Block(blocker=me.user, blocked=profile) for profile in profiles[:hidden])
        assert client_for(site).get(URL).json()["num_results_capped"] is True
        body = client.get(URL).json()
        assert body["num_results"] == COUNT_CAP and body["num_results_capped"] is False
        assert body["num_results_text"] == "1,000 members found"

    def test_a_member_among_her_own_matches_past_the_limit_costs_one_probe(self, site, client_for):
        """Her own profile is among every visitor's count at the limit: it is subtracted
        (still "1,000+"), and her matches are not counted again."""
        client, _ = member_client(site, client_for, gender="female", sexuality="lesbian")
        with on_site(site):
            many_profiles(COUNT_LIMIT)
        with CaptureQueriesContext(connection) as captured:
            body = client.get(URL, {"gender": "female"}).json()
        assert body["num_results"] == COUNT_CAP and body["num_results_capped"] is True
        counts = [query["sql"] for query in captured if "COUNT(*)" in query["sql"]]
        assert len(counts) == 2  # every visitor's (limited) and the probe of what she cannot see
        assert sum("LIMIT" in sql for sql in counts) == 1

    def test_similar_results_past_the_cap(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="scot", region="GB-SCT")
            many_profiles(COUNT_LIMIT, region="GB-ENG")
        body = client.get(URL, {"region": "GB-SCT"}).json()
        assert names(body) == ["scot"] and body["num_results"] == 1 and body["num_results_capped"] is False
        assert len(body["similar"]) == PAGE_SIZE
        assert body["num_similar"] == COUNT_CAP and body["num_similar_capped"] is True
        assert body["num_similar_text"] == "1,000+ similar members"


class TestQueryCount:
    def _queries(self, client, params) -> int:
        client.get(URL, params)  # warm the site lookup
        with CaptureQueriesContext(connection) as captured:
            response = client.get(URL, params)
        assert response.status_code == 200
        return len(captured)

    @pytest.mark.parametrize("count", [5, 20])
    def test_fixed_with_similar_results(self, site, member, django_assert_num_queries, count):
        client, _ = member
        with on_site(site):
            for index in range(count):
                profile = make_profile(region="GB-ENG" if index % 2 else "GB-SCT", user=True)
                add_photo(profile)
        client.get(URL, {"region": "GB-SCT"})
        # Session, user, own profile with the block list, page, the similar page without
        # the region and with any country (the counts themselves are cached by the first
        # call; a man looking for women without blocks needs no count correction);
        # django-tenants sets the search path once, at the start of the request
        # (TENANT_LIMIT_SET_CALLS).
        with django_assert_num_queries(1 + 6):
            body = client.get(URL, {"region": "GB-SCT"}).json()
        assert len(body["results"]) + len(body["similar"]) == count

    @pytest.mark.parametrize("count", [30, 60])
    def test_fixed_with_full_pages(self, site, member, django_assert_num_queries, count):
        client, _ = member
        with on_site(site):
            for _ in range(count):
                make_profile(user=True)
        client.get(URL)
        # Session, user, own profile with the block list, page.
        with django_assert_num_queries(1 + 4):
            body = client.get(URL, {"page": 2}).json()
        assert len(body["results"]) == min(PAGE_SIZE, count - PAGE_SIZE)

    def test_a_count_correction_when_the_own_profile_could_match(self, site, client_for, django_assert_num_queries):
        """A woman looking for women: her own profile is among the visitors' count, so her
        count needs its correction query (and leaves her out)."""
        client, _ = member_client(site, client_for, gender="female", sexuality="lesbian")
        with on_site(site):
            for _ in range(30):
                make_profile(user=True)
        client.get(URL, {"gender": "female"})
        with django_assert_num_queries(1 + 5):
            body = client.get(URL, {"gender": "female", "page": 2}).json()
        assert body["num_results"] == 30


def loaded(instance) -> dict:
    """What a model instance holds: its values and the state of a loaded row."""
    values = {name: value for name, value in instance.__dict__.items() if name != "_state"}
    return {**values, "_adding": instance._state.adding, "_db": instance._state.db}


class TestRowsAsTheOrmMakesThem:
    """The page's profiles and the member's own are made from the rows directly (not
    through the ORM's __init__): they must hold what the ORM's would."""

    def test_a_page_of_profiles_and_their_photos(self, site, client_for):
        _client, me = member_client(site, client_for)
        with on_site(site):
            shown = make_profile(name="photo", city="Leeds", region="GB-ENG", interests=["Music"], about_me="Hi")
            add_photo(shown)
            make_profile(name="plain", is_fictional=True)
            make_profile(name="cam", is_cam=True, tattoos="some")
            search = search_params_parse(site=site, viewer=me.user, params={"gender": "all"})
            made = _listed(*page_sql(search.filters, hidden=search.hidden))
            orm = list(
                Profile.objects.filter(pk__in=[profile.pk for profile in made])
                .select_related("main_photo")
                .only(*CARD_FIELDS)
                .order_by("-created", "-pk")
            )
        assert [profile.name for profile in made] == ["cam", "plain", "photo"]
        assert [loaded(profile) for profile in made] == [loaded(profile) for profile in orm]
        # `created` is read as a number and made again: the same instant in the same zone.
        assert [(profile.created, profile.created.tzinfo) for profile in made] == [
            (profile.created, profile.created.tzinfo) for profile in orm
        ]
        assert loaded(made[2].main_photo) == loaded(orm[2].main_photo)
        assert made[0].country.code == "GB" and made[2].main_photo.width == 400

    def test_the_members_own_profile(self, site, client_for):
        _client, me = member_client(site, client_for, region="GB-SCT", interests=["Travel"])
        with on_site(site):
            user = User.objects.get(pk=me.user_id)
            _viewer_hidden(user)
            assert loaded(user.profile) == loaded(Profile.objects.get(pk=me.pk))

    def test_through_the_orm_when_a_receiver_listens(self, site, client_for):
        _client, me = member_client(site, client_for)
        made = []

        def receiver(sender, instance, **kwargs):
            made.append(instance)

        post_init.connect(receiver, sender=Profile)
        try:
            with on_site(site):
                make_profile(name="seen")
                made.clear()
                search = search_params_parse(site=site, viewer=me.user, params={"gender": "all"})
                profiles = _listed(*page_sql(search.filters, hidden=search.hidden))
        finally:
            post_init.disconnect(receiver, sender=Profile)
        assert [profile.name for profile in profiles] == ["seen"]
        assert profiles[0] in made

    def test_through_the_orm_when_the_model_has_its_own_from_db(self, site, client_for, monkeypatch):
        _client, me = member_client(site, client_for)
        made = []
        original = Profile.from_db.__func__

        def from_db(cls, db, field_names, values):
            instance = original(cls, db, field_names, values)
            made.append(instance)
            return instance

        monkeypatch.setattr(Profile, "from_db", classmethod(from_db))
        with on_site(site):
            make_profile(name="own")
            search = search_params_parse(site=site, viewer=me.user, params={"gender": "all"})
            profiles = _listed(*page_sql(search.filters, hidden=search.hidden))
        assert [profile.name for profile in profiles] == ["own"]
        assert profiles[0] in made


# --- The page ------------------------------------------------------------------------


def island_props(html: str, name: str) -> dict:
    element_id = re.search(rf'<div data-island="{name}" id="([^"]+)"></div>', html).group(1)
    match = re.search(rf'<script id="{element_id}-props" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


class TestPage:
    def test_first_page_in_the_props_and_the_noscript_list(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="anna", region="GB-SCT")
            make_profile(name="bea", region="GB-ENG")
        html = client.get("/members", {"region": "GB-SCT"}).content.decode()
        props = island_props(html, "Search")
        assert names(props["initial"]) == ["anna"]
        assert names(props["initial"], "similar") == ["bea"]
        assert props["filters"]["region"] == "GB-SCT"
        assert props["defaults"]["region"] == ""
        assert props["apiUrl"] == URL
        assert props["options"]["regions"]["GB"][0]["code"].startswith("GB-")
        assert [field["name"] for field in props["options"]["fields"]] == [*site.search_fields, "verified"]
        assert props["strings"]["loadMore"] == "Load more"
        assert "<noscript>" in html and 'href="/members/' in html

    def test_bad_parameters_show_the_message_and_the_defaults(self, site, member):
        client, _ = member
        props = island_props(client.get("/members", {"min_age": "5"}).content.decode(), "Search")
        assert props["error"] == "Choose an age from 18 to 99."
        assert props["filters"]["min_age"] == site.min_age

    def test_visitors_not_allowed_get_a_login_prompt(self, site, client_for):
        set_site(site, logged_out_search=False, logged_out_search_trafficsource=False)
        html = client_for(site).get("/members").content.decode()
        assert 'data-testid="search-login-prompt"' in html
        assert 'data-island="Search"' not in html
        assert "Log in or sign up to search members." in html


class TestVisitorPages:
    """A visitor's page is shared by visitors for VISITOR_PAGE_TTL seconds; a member's is
    always made afresh."""

    def test_the_second_visitor_gets_the_same_page_without_a_query(self, site, client_for, django_assert_num_queries):
        set_site(site, logged_out_search=True)
        with on_site(site):
            make_profile(name="first")
        first = client_for(site).get(URL).json()
        with on_site(site):
            make_profile(name="newer")  # within the page's lifetime: not yet shown to visitors
        another_visitor = client_for(site)
        with django_assert_num_queries(0):
            again = another_visitor.get(URL).json()
        assert again == first
        assert names(again) == ["first"]

    def test_members_see_at_once_what_visitors_see_after_a_while(self, site, member, client_for):
        set_site(site, logged_out_search=True)
        client, _ = member
        with on_site(site):
            make_profile(name="first")
        client_for(site).get(URL, {"gender": "female"})
        with on_site(site):
            make_profile(name="newer")
        assert names(client.get(URL, {"gender": "female"}).json()) == ["newer", "first"]
        assert names(client_for(site).get(URL, {"gender": "female"}).json()) == ["first"]

    def test_pages_are_kept_per_language_filters_page_and_site(self, site, gay_site, client_for):
        set_site(site, logged_out_search=True, languages=["en", "fr"])
        set_site(gay_site, logged_out_search=True)
        with on_site(site):
            make_profile(name="woman", gender="female")
            make_profile(name="man", gender="male")
        with on_site(gay_site):
            make_profile(name="gay-site-man", gender="male", country=Site.objects.get(pk=gay_site.pk).country_codes[0])
        visitor = client_for(site)
        assert names(visitor.get(URL, {"gender": "female"}).json()) == ["woman"]
        assert names(visitor.get(URL, {"gender": "male"}).json()) == ["man"]
        english = visitor.get(URL, {"gender": "female"}).json()["num_results_text"]
        visitor.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        french = visitor.get(URL, {"gender": "female"}).json()["num_results_text"]
        assert english == "1 member found" and french != english
        assert names(client_for(gay_site).get(URL, {"gender": "male"}).json()) == ["gay-site-man"]
