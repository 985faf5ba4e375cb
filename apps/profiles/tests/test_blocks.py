"""Blocking and unblocking (spec §2 profile view, §6 Blocked user): the API
(/api/block.php), the page's forms, and what a block hides."""

import json

import pytest

from apps.profiles.models import Block, ProfileStatus
from apps.profiles.tests.helpers_view import logged_in, member
from apps.profiles.visibility import profiles_visible_to
from conftest import on_site

pytestmark = pytest.mark.django_db


def _api(client, method: str, profile_id):
    call = getattr(client, method)
    return call("/api/block.php", data=json.dumps({"profile": profile_id}), content_type="application/json")


def _blocks(site) -> list[tuple[int, int]]:
    with on_site(site):
        return list(Block.objects.values_list("blocker_id", "blocked_id"))


def test_block_then_unblock_through_the_api(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = logged_in(site, client_for, me)
    response = _api(client, "post", other.pk)
    assert response.status_code == 200
    assert response.json() == {"profile": other.pk, "blocked": True}
    assert _blocks(site) == [(me.user_id, other.pk)]
    with on_site(site):
        assert other.pk not in set(profiles_visible_to(me.user).values_list("pk", flat=True))
        assert me.pk not in set(profiles_visible_to(other.user).values_list("pk", flat=True))

    response = _api(client, "delete", other.pk)
    assert response.status_code == 200
    assert response.json() == {"profile": other.pk, "blocked": False}
    assert _blocks(site) == []


@pytest.mark.parametrize(
    ("case", "status", "code", "message"),
    [
        ("self", 409, "block_self", "You cannot block yourself."),
        ("unknown", 404, "profile_not_found", "This profile could not be found."),
        ("disabled", 404, "profile_not_found", "This profile could not be found."),
        ("twice", 409, "already_blocked", "You have already blocked this profile."),
    ],
)
def test_block_errors_change_nothing(site, client_for, case, status, code, message):
    me, other = member(site, "Me"), member(site, "Other")
    hidden = member(site, "Hidden", status=ProfileStatus.DISABLED)
    client = logged_in(site, client_for, me)
    if case == "twice":
        _api(client, "post", other.pk)
    before = _blocks(site)
    target = {"self": me.pk, "unknown": 987654, "disabled": hidden.pk, "twice": other.pk}[case]
    response = _api(client, "post", target)
    assert response.status_code == status
    assert response.json() == {"error": {"code": code, "message": message}}
    assert _blocks(site) == before


def test_blocking_another_sites_profile_is_not_found(two_sites, client_for):
    site, gay_site = two_sites
    me = member(site, "Me")
    other = member(gay_site, "Elsewhere", gender="male", id=987002)
    response = _api(logged_in(site, client_for, me), "post", other.pk)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "profile_not_found"
    assert _blocks(site) == [] and _blocks(gay_site) == []


@pytest.mark.parametrize(
    ("case", "status", "code", "message"),
    [
        ("not_blocked", 409, "not_blocked", "You have not blocked this profile."),
        ("unknown", 404, "profile_not_found", "This profile could not be found."),
    ],
)
def test_unblock_errors_change_nothing(site, client_for, case, status, code, message):
    me, other, third = member(site, "Me"), member(site, "Other"), member(site, "Third")
    with on_site(site):
        Block.objects.create(blocker=me.user, blocked=third)
    before = _blocks(site)
    target = other.pk if case == "not_blocked" else 987654
    response = _api(logged_in(site, client_for, me), "delete", target)
    assert response.status_code == status
    assert response.json() == {"error": {"code": code, "message": message}}
    assert _blocks(site) == before


def test_visitors_cannot_block(site, client_for):
    other = member(site, "Other")
    client = client_for(site, enforce_csrf_checks=False)
    response = _api(client, "post", other.pk)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "authentication_required"
    assert _blocks(site) == []


def test_invalid_input_is_refused(site, client_for):
    me = member(site, "Me")
    response = _api(logged_in(site, client_for, me), "post", "abc")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_the_api_checks_csrf(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = client_for(site, enforce_csrf_checks=True)
    with on_site(site):
        client.force_login(me.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    response = _api(client, "post", other.pk)
    assert response.status_code == 403
    assert _blocks(site) == []


def test_block_and_unblock_forms_on_the_page(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = logged_in(site, client_for, me)
    response = client.post(f"/members/{other.pk}/block")
    assert response.status_code == 302
    assert response["Location"] == f"/members/{other.pk}"
    assert _blocks(site) == [(me.user_id, other.pk)]

    html = client.get(f"/members/{other.pk}").content.decode()
    assert 'data-testid="profile-blocked"' in html
    assert "You have blocked Other." in html
    assert f'action="/members/{other.pk}/unblock"' in html
    assert 'data-testid="profile-actions"' not in html

    # The blocked member no longer sees the blocker's profile.
    response = logged_in(site, client_for, other).get(f"/members/{me.pk}")
    assert response.status_code == 403
    assert "You&#x27;re blocked by Me. You do not have access to this page." in response.content.decode()

    # Blocking twice through the form: the error shows on the page, nothing changes.
    response = client.post(f"/members/{other.pk}/block", follow=True)
    assert "You have already blocked this profile." in response.content.decode()
    assert _blocks(site) == [(me.user_id, other.pk)]

    response = client.post(f"/members/{other.pk}/unblock")
    assert response.status_code == 302
    assert _blocks(site) == []
    html = client.get(f"/members/{other.pk}").content.decode()
    assert "profile-blocked" not in html and 'data-testid="profile-block"' in html


def test_forms_send_visitors_to_login(site, client_for):
    other = member(site, "Other")
    response = client_for(site).post(f"/members/{other.pk}/block")
    assert response.status_code == 302
    assert response["Location"] == f"/login?next=%2Fmembers%2F{other.pk}"
    assert _blocks(site) == []


def test_forms_need_post(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    assert logged_in(site, client_for, me).get(f"/members/{other.pk}/block").status_code == 405
    assert _blocks(site) == []
