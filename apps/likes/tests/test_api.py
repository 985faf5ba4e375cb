"""/api/likes.php and /api/auto-like.php (spec §7): the contract the islands use."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.likes.models import Like
from apps.likes.services import like_create
from apps.profiles.models import Block
from apps.profiles.tests.helpers_view import logged_in, member, photos_add
from conftest import on_site

pytestmark = pytest.mark.django_db


def _call(client, method: str, profile_id):
    return getattr(client, method)(
        "/api/likes.php", data=json.dumps({"profile": profile_id}), content_type="application/json"
    )


def _likes(site) -> set[tuple[int, int]]:
    with on_site(site):
        return set(Like.objects.values_list("liker_id", "profile_id"))


def test_like_like_back_and_unlike(site, client_for):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    answer = _call(logged_in(site, client_for, anna), "post", ben.pk)
    assert answer.status_code == 200
    body = answer.json()
    assert (body["like"], body["match"], body["profile"]["id"], body["profile"]["name"]) == (True, False, ben.pk, "Ben")

    ben_client = logged_in(site, client_for, ben)
    assert _call(ben_client, "post", anna.pk).json()["match"] is True
    answer = _call(ben_client, "delete", anna.pk)
    assert (answer.status_code, answer.json()) == (200, {"like": False})
    assert _likes(site) == {(anna.user_id, ben.pk)}


@pytest.mark.parametrize(
    ("case", "status", "code", "message"),
    [
        ("twice", 409, "already_liked", "You already like Ben."),
        ("self", 409, "like_self", "You cannot like your own profile."),
        ("unknown", 404, "profile_not_available", "This profile is not available."),
        ("blocked", 404, "profile_not_available", "This profile is not available."),
        ("unlike_not_liked", 409, "not_liked", "You do not like this profile."),
        ("visitor", 403, "authentication_required", "Log in or sign up to like this profile."),
    ],
)
def test_errors_change_nothing(site, client_for, case, status, code, message):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    client = client_for(site) if case == "visitor" else logged_in(site, client_for, anna)
    with on_site(site):
        like_create(liker=ben.user, profile_id=anna.pk)
        if case == "twice":
            like_create(liker=anna.user, profile_id=ben.pk)
        if case == "blocked":
            Block.objects.create(blocker=ben.user, blocked=anna)
    before = _likes(site)
    target = {"self": anna.pk, "unknown": 987654}.get(case, ben.pk)
    answer = _call(client, "delete" if case == "unlike_not_liked" else "post", target)
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code
    assert answer.json()["error"]["message"] == message
    assert _likes(site) == before


def test_another_sites_id_is_404(two_sites, client_for):
    site, gay_site = two_sites
    anna = member(site, "Anna")
    other = member(gay_site, "Other", gender="male")
    answer = _call(logged_in(site, client_for, anna), "post", other.pk)
    assert answer.status_code == 404
    assert _likes(site) == set()


def test_the_lists(site, client_for):
    me, fan, old_fan, crush, match = (member(site, name) for name in ("Me", "Fan", "OldFan", "Crush", "Match"))
    with on_site(site):
        like_create(liker=old_fan.user, profile_id=me.pk)
        like_create(liker=fan.user, profile_id=me.pk)
        like_create(liker=match.user, profile_id=me.pk)
        Like.objects.filter(liker=match.user).update(is_new=False)
        like_create(liker=me.user, profile_id=crush.pk)
        like_create(liker=me.user, profile_id=match.pk)
    body = logged_in(site, client_for, me).get("/api/likes.php").json()
    assert [card["id"] for card in body["profiles"]] == [match.pk, crush.pk]
    assert [(item["id"], item["like_new"], item["profile"]["id"]) for item in body["liked_by"]] == [
        (fan.pk, True, fan.pk),
        (old_fan.pk, True, old_fan.pk),
        (match.pk, False, match.pk),
    ]
    assert [card["id"] for card in body["matches"]] == [match.pk]
    assert body["num_new"] == 2


def test_lists_need_a_login(site, client_for):
    for path in ("/api/likes.php", "/api/auto-like.php"):
        answer = client_for(site).get(path)
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "authentication_required"


def _likes_both_ways(site, me, n: int) -> None:
    for i in range(n):
        other = member(site, f"Other{n}x{i}")
        photos_add(site, other, 2)
        with on_site(site):
            like_create(liker=me.user, profile_id=other.pk)
            like_create(liker=other.user, profile_id=me.pk)


def test_list_query_count_is_fixed(site, client_for, django_assert_num_queries):
    me, many = member(site, "Me"), member(site, "Many")
    _likes_both_ways(site, me, 1)
    _likes_both_ways(site, many, 10)
    client = logged_in(site, client_for, me)
    client.get("/api/likes.php")  # warm the site lookup
    with CaptureQueriesContext(connection) as context:
        assert len(client.get("/api/likes.php").json()["matches"]) == 1
    baseline = len(context.captured_queries)
    many_client = logged_in(site, client_for, many)
    many_client.get("/api/likes.php")
    with django_assert_num_queries(baseline):
        assert len(many_client.get("/api/likes.php").json()["matches"]) == 10


def test_auto_like_shows_a_real_like_once(site, client_for):
    me, fan, hidden = member(site, "Me"), member(site, "Fan"), member(site, "Hidden")
    client = logged_in(site, client_for, me)
    assert client.get("/api/auto-like.php").json() == {"profile": None}
    with on_site(site):
        like_create(liker=hidden.user, profile_id=me.pk)
        Block.objects.create(blocker=hidden.user, blocked=me)
        like_create(liker=fan.user, profile_id=me.pk)
    body = client.get("/api/auto-like.php").json()
    assert body["profile"]["id"] == fan.pk
    assert client.get("/api/auto-like.php").json() == {"profile": None}
    assert _likes(site) == {(hidden.user_id, me.pk), (fan.user_id, me.pk)}  # nothing invented
