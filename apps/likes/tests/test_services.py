"""Liking and unliking (spec §3 likes / liked_by, §4): matches, every refusal changes
nothing, the new-like flag, and the match modal's unseen likes (auto-like)."""

import pytest

from apps.accounts.models import UserStatus
from apps.common.exceptions import ApplicationError
from apps.likes.models import Like
from apps.likes.selectors import likes_received_qs
from apps.likes.services import like_create, like_delete, like_mark_opened, like_show_next
from apps.profiles.models import Block, ProfileStatus
from apps.profiles.tests.helpers_view import member
from conftest import on_site

pytestmark = pytest.mark.django_db


def _likes() -> set[tuple[int, int, bool]]:
    return set(Like.objects.values_list("liker_id", "profile_id", "is_new"))


def test_like_then_like_back_is_a_match(site):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    with on_site(site):
        like, is_match = like_create(liker=anna.user, profile_id=ben.pk)
        assert (like.liker_id, like.profile_id, like.is_new, like.source, is_match) == (
            anna.user_id,
            ben.pk,
            True,
            "profile",
            False,
        )
        _like, is_match = like_create(liker=ben.user, profile_id=anna.pk, source="swipe")
        assert is_match is True
        assert Like.objects.get(liker=ben.user).source == "swipe"


def test_unlike_removes_the_like(site):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    with on_site(site):
        like_create(liker=anna.user, profile_id=ben.pk)
        like_delete(liker=anna.user, profile_id=ben.pk)
        assert _likes() == set()


@pytest.mark.parametrize(
    ("case", "code", "message", "status"),
    [
        ("twice", "already_liked", "You already like Ben.", 409),
        ("self", "like_self", "You cannot like your own profile.", 409),
        ("unknown", "profile_not_available", "This profile is not available.", 404),
        ("disabled", "profile_not_available", "This profile is not available.", 404),
        ("invisible", "profile_not_available", "This profile is not available.", 404),
        ("deleted", "profile_not_available", "This profile is not available.", 404),
        ("i_blocked", "profile_not_available", "This profile is not available.", 404),
        ("blocked_me", "profile_not_available", "This profile is not available.", 404),
    ],
)
def test_like_errors_change_nothing(site, case, code, message, status):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    disabled = member(site, "Dis", status=ProfileStatus.DISABLED)
    invisible = member(site, "Inv", user_fields={"invisible": True})
    deleted = member(site, "Del", user_fields={"status": UserStatus.DELETED})
    with on_site(site):
        like_create(liker=ben.user, profile_id=anna.pk)
        if case == "twice":
            like_create(liker=anna.user, profile_id=ben.pk)
        if case == "i_blocked":
            Block.objects.create(blocker=anna.user, blocked=ben)
        if case == "blocked_me":
            Block.objects.create(blocker=ben.user, blocked=anna)
        target = {
            "self": anna.pk,
            "unknown": 987654,
            "disabled": disabled.pk,
            "invisible": invisible.pk,
            "deleted": deleted.pk,
        }.get(case, ben.pk)
        before = _likes()
        with pytest.raises(ApplicationError) as raised:
            like_create(liker=anna.user, profile_id=target)
        assert (raised.value.code, str(raised.value.message), raised.value.status_code) == (code, message, status)
        assert _likes() == before


def test_unlike_what_was_never_liked_is_refused(site):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    with on_site(site):
        like_create(liker=ben.user, profile_id=anna.pk)
        before = _likes()
        with pytest.raises(ApplicationError) as raised:
            like_delete(liker=anna.user, profile_id=ben.pk)
        assert (raised.value.code, str(raised.value.message)) == ("not_liked", "You do not like this profile.")
        with pytest.raises(ApplicationError) as raised:
            like_delete(liker=anna.user, profile_id=987654)
        assert raised.value.status_code == 404
        assert _likes() == before


def test_another_sites_profile_is_not_available(two_sites):
    site, gay_site = two_sites
    anna = member(site, "Anna")
    other = member(gay_site, "Other", gender="male")
    with on_site(site):
        with pytest.raises(ApplicationError) as raised:
            like_create(liker=anna.user, profile_id=other.pk)
        assert raised.value.status_code == 404
        assert _likes() == set()


def test_received_likes_are_new_first_then_newest(site):
    me = member(site, "Me")
    first, second, third = member(site, "First"), member(site, "Second"), member(site, "Third")
    with on_site(site):
        for liker in (first, second, third):
            like_create(liker=liker.user, profile_id=me.pk)
        like_mark_opened(viewer=me.user, profile=third)
        order = [like.liker_id for like in likes_received_qs(member=me.user)]
        assert order == [second.user_id, first.user_id, third.user_id]


def test_opening_a_likers_profile_clears_only_its_flag(site):
    me, liker, other = member(site, "Me"), member(site, "Liker"), member(site, "Other")
    with on_site(site):
        like_create(liker=liker.user, profile_id=me.pk)
        like_create(liker=other.user, profile_id=me.pk)
        like_create(liker=me.user, profile_id=liker.pk)
        assert like_mark_opened(viewer=me.user, profile=liker) == 1
        assert like_mark_opened(viewer=me.user, profile=liker) == 0  # idempotent
        assert _likes() == {
            (liker.user_id, me.pk, False),
            (other.user_id, me.pk, True),
            (me.user_id, liker.pk, True),  # the viewer's own like is untouched
        }


def test_auto_like_returns_each_real_unseen_like_once_oldest_first(site):
    me, old, new = member(site, "Me"), member(site, "Old"), member(site, "New")
    with on_site(site):
        assert like_show_next(member=me.user) is None  # never invents a like
        like_create(liker=old.user, profile_id=me.pk)
        like_create(liker=new.user, profile_id=me.pk)
        assert like_show_next(member=me.user) == old
        assert like_show_next(member=me.user) == new
        assert like_show_next(member=me.user) is None
        assert not Like.objects.filter(seen_at__isnull=True).exists()
        assert all(like.is_new for like in Like.objects.all())  # shown is not opened


@pytest.mark.parametrize("case", ["blocked_me", "i_blocked", "disabled", "deleted"])
def test_auto_like_skips_hidden_likers(site, case):
    me, liker = member(site, "Me"), member(site, "Liker")
    with on_site(site):
        like_create(liker=liker.user, profile_id=me.pk)
        if case == "blocked_me":
            Block.objects.create(blocker=liker.user, blocked=me)
        elif case == "i_blocked":
            Block.objects.create(blocker=me.user, blocked=liker)
        elif case == "disabled":
            liker.status = ProfileStatus.DISABLED
            liker.save()
        else:
            liker.user.status = UserStatus.DELETED
            liker.user.save()
        assert like_show_next(member=me.user) is None
        assert Like.objects.get().seen_at is None
