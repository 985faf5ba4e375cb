"""The swipe game (spec §2 swipe-game / landers-tinderswipe, §9 "4 likes per day, with a
wait shown"): GET/POST /api/swipe.php, the page and the lander."""

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.likes.models import Like, LikeSource, SwipePass
from apps.likes.swipe import SWIPE_LIKES_PER_DAY, next_day_start, swipe_like, wait_text
from apps.profiles.models import Block, Profile, ProfileStatus
from apps.profiles.tests.test_search import island_props, make_profile, member_client
from conftest import on_site

pytestmark = pytest.mark.django_db

URL = "/api/swipe.php"


def deck_names(body: dict) -> list[str]:
    return [card["name"] for card in body["deck"]]


@pytest.fixture
def member(site, client_for):
    """A hetero man in GB, logged in: he looks for women."""
    return member_client(site, client_for)


class TestDeck:
    def test_visitors_get_403(self, site, client_for):
        response = client_for(site).get(URL)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "authentication_required"
        response = client_for(site).post(URL, {"profile": 1, "action": "like"}, content_type="application/json")
        assert response.status_code == 403

    def test_newest_first_without_liked_passed_blocked_self_and_other_genders(self, site, member):
        client, own = member
        with on_site(site):
            old = make_profile(name="old")
            liked = make_profile(name="liked")
            passed = make_profile(name="passed")
            blocked = make_profile(name="blocked")
            blocker = make_profile(name="blocker", user=True)
            make_profile(name="man", gender="male")
            make_profile(name="disabled", status=ProfileStatus.DISABLED)
            new = make_profile(name="new")
            Like.objects.create(liker=own.user, profile=liked)
            SwipePass.objects.create(member=own.user, profile=passed)
            Block.objects.create(blocker=own.user, blocked=blocked)
            Block.objects.create(blocker=blocker.user, blocked=own)
        body = client.get(URL).json()
        assert deck_names(body) == [new.name, old.name]
        assert body["likes_left"] == SWIPE_LIKES_PER_DAY
        assert body["next_likes_at"] is None
        card = body["deck"][0]
        assert set(card) >= {"id", "name", "age", "city", "main_image"}

    def test_a_woman_looking_for_women(self, site, client_for):
        client, _ = member_client(site, client_for, gender="female", sexuality="lesbian")
        with on_site(site):
            make_profile(name="woman")
            make_profile(name="man", gender="male")
        assert deck_names(client.get(URL).json()) == ["woman"]

    def test_at_most_ten(self, site, member):
        client, _ = member
        with on_site(site):
            for _ in range(12):
                make_profile()
        assert len(client.get(URL).json()["deck"]) == 10


class TestSwipe:
    def test_four_likes_then_the_limit(self, site, member):
        client, own = member
        with on_site(site):
            profiles = [make_profile() for _ in range(5)]
        lefts = []
        for profile in profiles[:4]:
            response = client.post(URL, {"profile": profile.pk, "action": "like"}, content_type="application/json")
            assert response.status_code == 200, response.content
            lefts.append(response.json()["likes_left"])
            assert response.json()["match"] is False
        assert lefts == [3, 2, 1, 0]
        assert response.json()["next_likes_at"] is not None
        response = client.post(URL, {"profile": profiles[4].pk, "action": "like"}, content_type="application/json")
        assert response.status_code == 429
        error = response.json()["error"]
        assert error["code"] == "swipe_limit"
        assert error["message"].startswith("You have used your 4 likes for today. New likes in ")
        assert " min." in error["message"]
        midnight = datetime.fromisoformat(error["next_likes_at"])
        assert midnight > datetime.now(UTC)
        assert (midnight.hour, midnight.minute, midnight.utcoffset()) == (0, 0, timedelta(0))
        body = client.get(URL).json()
        assert body["likes_left"] == 0
        assert body["next_likes_at"] == error["next_likes_at"]
        with on_site(site):
            assert Like.objects.filter(liker=own.user, source=LikeSource.SWIPE).count() == 4
            assert not Like.objects.filter(liker=own.user, profile=profiles[4]).exists()
        # Passing still works at the limit.
        response = client.post(URL, {"profile": profiles[4].pk, "action": "pass"}, content_type="application/json")
        assert response.status_code == 200
        assert deck_names(client.get(URL).json()) == []

    def test_yesterdays_and_other_likes_do_not_count(self, site, member):
        client, own = member
        with on_site(site):
            profiles = [make_profile() for _ in range(6)]
            for profile in profiles[:4]:
                like = Like.objects.create(liker=own.user, profile=profile, source=LikeSource.SWIPE)
                Like.objects.filter(pk=like.pk).update(created=like.created - timedelta(days=1, minutes=1))
            Like.objects.create(liker=own.user, profile=profiles[4], source=LikeSource.PROFILE)
        assert client.get(URL).json()["likes_left"] == 4

    def test_pass_is_idempotent(self, site, member):
        client, own = member
        with on_site(site):
            profile = make_profile()
        for _ in range(2):
            response = client.post(URL, {"profile": profile.pk, "action": "pass"}, content_type="application/json")
            assert response.status_code == 200
            assert response.json() == {"match": False, "likes_left": 4, "next_likes_at": None}
        with on_site(site):
            assert SwipePass.objects.filter(member=own.user, profile=profile).count() == 1

    def test_errors(self, site, member):
        client, _own = member
        with on_site(site):
            profile = make_profile()
            hidden = make_profile(status=ProfileStatus.DISABLED)
        bad = client.post(URL, {"profile": profile.pk, "action": "superlike"}, content_type="application/json")
        assert bad.status_code == 400
        for action in ("like", "pass"):
            response = client.post(URL, {"profile": hidden.pk, "action": action}, content_type="application/json")
            assert response.status_code == 404
        client.post(URL, {"profile": profile.pk, "action": "like"}, content_type="application/json")
        again = client.post(URL, {"profile": profile.pk, "action": "like"}, content_type="application/json")
        assert again.status_code == 409
        assert again.json()["error"]["code"] == "already_liked"
        assert client.get(URL).json()["likes_left"] == 3

    def test_match_when_the_other_liked_first(self, site, member):
        client, own = member
        with on_site(site):
            other = make_profile(name="other", user=True)
            Like.objects.create(liker=other.user, profile=own)
        response = client.post(URL, {"profile": other.pk, "action": "like"}, content_type="application/json")
        assert response.json()["match"] is True


def test_wait_text():
    now = datetime(2025, 3, 1, 18, 48, 0, tzinfo=UTC)
    assert wait_text(next_day_start(now), now=now) == "5 h 12 min"
    assert wait_text(now + timedelta(minutes=11, seconds=5), now=now) == "12 min"


def test_the_count_is_taken_under_the_row_lock(site, member):
    _, own = member
    with on_site(site):
        profile = make_profile()
        with CaptureQueriesContext(connection) as queries:
            swipe_like(user=own.user, profile_id=profile.pk)
    sqls = [q["sql"] for q in queries.captured_queries]
    lock = next(i for i, sql in enumerate(sqls) if "FOR UPDATE" in sql and "accounts_user" in sql)
    count = next(i for i, sql in enumerate(sqls) if "COUNT(" in sql and "likes_like" in sql)
    insert = next(i for i, sql in enumerate(sqls) if sql.startswith("INSERT") and "likes_like" in sql)
    assert lock < count < insert


@pytest.mark.django_db(transaction=False)
def test_parallel_likes_cannot_exceed_four(site, django_db_blocker):
    """Eight likes at once from committed data in threads of their own: four succeed."""
    tag = uuid.uuid4().hex[:10]

    def run(fn):
        def wrapped(*args):
            try:
                with on_site(site):
                    return fn(*args)
            finally:
                connection.close()

        return wrapped

    def create() -> tuple[int, list[int]]:
        user = User.objects.create_user(f"swiper{tag}", f"swiper{tag}@example.com", "pw-123456789")
        Profile.objects.create(user=user, name=f"swiper{tag}", gender="male", sexuality="hetero", country="GB")
        ids = [
            Profile.objects.create(name=f"t{tag}{i}", gender="female", country="GB", status=ProfileStatus.ACTIVE).pk
            for i in range(8)
        ]
        return user.pk, ids

    def like(user_id: int, profile_id: int) -> str:
        user = User.objects.get(pk=user_id)
        try:
            swipe_like(user=user, profile_id=profile_id)
            return "ok"
        except ApplicationError as exc:
            return exc.code

    def cleanup(user_id: int, ids: list[int]) -> None:
        Profile.objects.filter(pk__in=ids).delete()
        User.objects.filter(pk=user_id).delete()

    with django_db_blocker.unblock():
        with ThreadPoolExecutor(max_workers=1) as pool:
            user_id, ids = pool.submit(run(create)).result()
        try:
            with ThreadPoolExecutor(max_workers=8) as pool:
                results = list(pool.map(run(like), [user_id] * 8, ids))
            assert results.count("ok") == 4
            assert results.count("swipe_limit") == 4
        finally:
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(run(cleanup), user_id, ids).result()


class TestPages:
    def test_the_game_is_for_members(self, site, client_for):
        response = client_for(site).get("/swipe-game")
        assert response.status_code == 302
        assert response["Location"] == "/login?next=%2Fswipe-game"

    def test_the_game_page(self, site, member):
        client, _ = member
        with on_site(site):
            make_profile(name="anna")
        html = client.get("/swipe-game").content.decode()
        props = island_props(html, "SwipeGame")
        assert props["mode"] == "member"
        assert [card["name"] for card in props["deck"]] == ["anna"]
        assert props["likesLeft"] == 4
        assert props["nextLikesAt"] is None
        assert props["apiUrl"] == URL
        assert props["strings"]["matchTitle"] == "It's a match!"
        assert "layout-default" in html

    def test_the_lander_for_visitors(self, site, client_for):
        with on_site(site):
            make_profile(name="demo")
        response = client_for(site).get("/landers/tinderswipe")
        assert response.status_code == 200
        html = response.content.decode()
        props = island_props(html, "SwipeGame")
        assert props["mode"] == "visitor"
        assert "demo" in [card["name"] for card in props["deck"]]
        assert props["signupUrl"] == "/signup?next=/swipe-game"
        assert props["freeSwipes"] == 2
        assert "layout-lander" in html
        assert 'style="' not in html.split("<body", 1)[1]

    def test_members_on_the_lander_go_to_the_game(self, site, member):
        client, _ = member
        response = client.get("/landers/tinderswipe")
        assert response.status_code == 302
        assert response["Location"] == "/swipe-game"
