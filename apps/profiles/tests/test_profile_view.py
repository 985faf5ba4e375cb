"""The profile view (spec §2 members-id / likes-m-id, §3 Profile, §6 roles)."""

import json
import re
from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import UserStatus
from apps.accounts.selectors import age_on
from apps.profiles import selectors_view
from apps.profiles.models import Block, PhotoStatus, ProfileStatus
from apps.profiles.tests.helpers_view import logged_in, member, photos_add
from conftest import on_site

pytestmark = pytest.mark.django_db


def _login_needed_props(html: str) -> dict:
    match = re.search(r'<script id="island-LoginNeeded-\d+-props" type="application/json">(.*?)</script>', html)
    return json.loads(match.group(1))


def _html(response) -> str:
    return response.content.decode()


def test_members_and_likes_routes_show_the_same_profile(site, client_for):
    anna = member(site, "Anna")
    for path in (f"/members/{anna.pk}", f"/likes/m/{anna.pk}"):
        response = client_for(site).get(path)
        assert response.status_code == 200
        assert 'data-testid="profile-name"' in _html(response)
        assert "Anna" in _html(response)


@pytest.mark.parametrize("case", ["disabled", "invisible", "deleted", "unknown"])
def test_profiles_others_may_not_see_are_404(site, client_for, case):
    viewer = member(site, "Viewer")
    if case == "disabled":
        target = member(site, "Hidden", status=ProfileStatus.DISABLED).pk
    elif case == "invisible":
        target = member(site, "Hidden", user_fields={"invisible": True}).pk
    elif case == "deleted":
        target = member(site, "Hidden", user_fields={"status": UserStatus.DELETED}).pk
    else:
        target = 987654
    for client in (client_for(site), logged_in(site, client_for, viewer)):
        response = client.get(f"/members/{target}")
        assert response.status_code == 404
        assert "This page could not be found" in _html(response)


def test_another_sites_profile_is_404(two_sites, client_for):
    site, gay_site = two_sites
    other = member(gay_site, "Elsewhere", gender="male", id=987001)
    assert client_for(gay_site).get(f"/members/{other.pk}").status_code == 200
    response = client_for(site).get(f"/members/{other.pk}")
    assert response.status_code == 404
    assert "Elsewhere" not in _html(response)


def test_own_profile_shows_with_an_edit_link_even_when_disabled(site, client_for):
    me = member(site, "Me", status=ProfileStatus.DISABLED)
    response = logged_in(site, client_for, me).get(f"/members/{me.pk}")
    assert response.status_code == 200
    html = _html(response)
    assert 'data-testid="profile-edit"' in html
    assert 'href="/profile"' in html
    assert 'data-testid="profile-block"' not in html


def test_blocked_member_gets_403_with_the_blockers_name(site, client_for):
    owner = member(site, "Owner")
    pest = member(site, "Pest")
    with on_site(site):
        Block.objects.create(blocker=owner.user, blocked=pest)
    response = logged_in(site, client_for, pest).get(f"/members/{owner.pk}")
    assert response.status_code == 403
    assert "You&#x27;re blocked by Owner. You do not have access to this page." in _html(response)


def test_header_age_location_and_fields_follow_the_site(site, client_for):
    anna = member(
        site,
        "Anna",
        date_of_birth=date(2000, 1, 1),
        region="GB-ENG",
        city="Leeds",
        relationship_status="single",
        body_type="curvy",
        hair_color="red",
        interests=["Travel", "Music"],
        about_me="Hello there",
    )
    with on_site(site):
        site.visible_profile_fields = ["age", "city", "country", "body_type", "hair_color", "interests"]
        site.save()
    html = _html(client_for(site).get(f"/members/{anna.pk}"))
    age = age_on(date(2000, 1, 1), timezone.localdate())
    assert f'data-testid="profile-age">{age}<' in html
    assert 'data-testid="profile-location">Leeds, United Kingdom<' in html  # no region
    assert 'data-testid="profile-field-body_type">Curvy<' in html
    assert 'data-testid="profile-field-hair_color">Red<' in html
    assert "profile-field-relationship_status" not in html
    assert "Travel" in html and "Music" in html
    assert "Hello there" not in html  # about_me not listed

    with on_site(site):
        site.visible_profile_fields = ["region", "relationship_status", "about_me"]
        site.save()
    html = _html(client_for(site).get(f"/members/{anna.pk}"))
    assert 'data-testid="profile-age"' not in html
    assert 'data-testid="profile-location">England<' in html
    assert 'data-testid="profile-field-relationship_status">Single<' in html
    assert "Hello there" in html
    assert "profile-interests" not in html


def test_about_me_is_text_with_line_breaks(site, client_for):
    anna = member(site, "Anna", about_me='<script>alert("x")</script>\nsecond line')
    html = _html(client_for(site).get(f"/members/{anna.pk}"))
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;<br>second line" in html


def test_fictional_cam_and_resell_markers(site, client_for):
    fiction = member(site, "Fiction", is_fictional=True, is_cam=True)
    resell = member(site, "Resold", is_resell=True)
    html = _html(client_for(site).get(f"/members/{fiction.pk}"))
    assert f'data-testid="profile-fictional"><span aria-hidden="true">{site.fictional_icon}</span>' in html
    assert site.fictional_warning in html
    assert 'data-testid="profile-note-cam"' in html
    plain = member(site, "Plain")
    html = _html(client_for(site).get(f"/members/{plain.pk}"))
    assert 'data-testid="profile-fictional"' not in html and "profile-note-cam" not in html

    assert client_for(site).get(f"/members/{resell.pk}").status_code == 404
    with on_site(site):
        site.member_resell = True
        site.save()
    response = client_for(site).get(f"/members/{resell.pk}")
    assert response.status_code == 200
    assert 'data-testid="profile-note-partner"' in _html(response)


def test_photo_count_and_lock_for_visitors_and_free_members(site, client_for):
    anna = member(site, "Anna")
    photos = photos_add(site, anna, 3)
    photos_add(site, anna, 1, status=PhotoStatus.PENDING, main=False)
    viewer = member(site, "Viewer")
    visitor_html = _html(client_for(site).get(f"/members/{anna.pk}"))
    assert "3 photos" in visitor_html
    assert visitor_html.count('data-testid="profile-photo"') == 1
    assert visitor_html.count('data-testid="profile-photo-locked"') == 2
    assert photos[0].thumb.name in visitor_html
    assert photos[1].thumb.name not in visitor_html and photos[2].thumb.name not in visitor_html
    assert "Log in or sign up to see more photos." in visitor_html

    free_html = _html(logged_in(site, client_for, viewer).get(f"/members/{anna.pk}"))
    assert free_html.count('data-testid="profile-photo-locked"') == 2
    assert "Become premium to see all photos" in free_html
    assert 'href="/premium"' in free_html


def test_premium_members_see_every_photo(site, client_for, monkeypatch):
    monkeypatch.setattr(selectors_view, "member_is_premium", lambda user: True)
    anna = member(site, "Anna")
    photos = photos_add(site, anna, 3)
    viewer = member(site, "Viewer")
    html = _html(logged_in(site, client_for, viewer).get(f"/members/{anna.pk}"))
    assert html.count('data-testid="profile-photo"') == 3
    assert "profile-photo-locked" not in html
    assert "Become premium" not in html
    assert all(photo.thumb.name in html for photo in photos)


def test_a_member_who_bought_credits_sees_every_photo(site, client_for):
    """No stand-in: the viewer's stored `paid_user` (set by the first purchase) is what
    opens the photos."""
    anna = member(site, "Anna")
    photos = photos_add(site, anna, 3)
    viewer = member(site, "Viewer", user_fields={"paid_user": True, "premium_since": timezone.now()})
    html = _html(logged_in(site, client_for, viewer).get(f"/members/{anna.pk}"))
    assert html.count('data-testid="profile-photo"') == 3
    assert "profile-photo-locked" not in html and "Become premium" not in html
    assert all(photo.thumb.name in html for photo in photos)
    assert selectors_view.member_is_premium(viewer.user) is True
    assert selectors_view.member_is_premium(member(site, "Free").user) is False


def test_one_photo_is_singular(site, client_for):
    anna = member(site, "Anna")
    photos_add(site, anna, 1)
    assert "1 photo<" in _html(client_for(site).get(f"/members/{anna.pk}"))


def test_owner_sees_own_pending_photos(site, client_for):
    me = member(site, "Me")
    photos_add(site, me, 2, status=PhotoStatus.PENDING)
    html = _html(logged_in(site, client_for, me).get(f"/members/{me.pk}"))
    assert html.count('data-testid="profile-photo"') == 2
    assert "Waiting for approval" in html


def test_og_image_only_for_an_active_main_photo(site, client_for):
    active = member(site, "Active")
    (photo,) = photos_add(site, active, 1)
    pending = member(site, "Pending")
    photos_add(site, pending, 1, status=PhotoStatus.PENDING)
    none = member(site, "None")
    html = _html(client_for(site).get(f"/members/{active.pk}"))
    assert '<meta property="og:image" content="http://localhost/' in html
    assert photo.image.name in html
    assert '<meta property="og:title" content="Active, ' in html
    for profile in (pending, none):
        html = _html(client_for(site).get(f"/members/{profile.pk}"))
        assert "og:image" not in html
        assert '<meta property="og:title"' in html


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("message", "Log in or sign up to send a message."),
        ("like", "Log in or sign up to like this profile."),
        ("photos", "Log in or sign up to see more photos."),
        ("gift", "Log in or sign up to send a gift."),
    ],
)
def test_visitors_get_a_login_message_per_action(site, client_for, key, message):
    anna = member(site, "Anna")
    html = _html(client_for(site).get(f"/members/{anna.pk}"))
    if key != "photos":  # that button only shows with locked photos
        assert f'data-login-needed="{key}"' in html
    props = _login_needed_props(html)
    assert props["texts"][key] == message
    assert props["loginUrl"] == f"/login?next=%2Fmembers%2F{anna.pk}"
    assert props["signupUrl"] == f"/members/{anna.pk}/signup"


def test_members_get_the_action_buttons_and_report_link(site, client_for):
    anna = member(site, "Anna")
    viewer = member(site, "Viewer")
    html = _html(logged_in(site, client_for, viewer).get(f"/members/{anna.pk}"))
    assert f'href="/members/{anna.pk}/chat"' in html
    for key in ("like", "block"):
        assert f'data-testid="profile-{key}"' in html
    assert 'data-island="ProfileGift"' in html  # the gift button (islands/ProfileGift)
    assert f'href="/complaints?profile={anna.pk}"' in html
    assert "login-needed" not in html and 'data-island="LoginNeeded"' not in html


def test_related_profiles_same_gender_and_country_up_to_six(site, client_for):
    anna = member(site, "Anna")
    for i in range(7):
        member(site, f"Similar{i}")
    member(site, "OtherGender", gender="male")
    member(site, "OtherCountry", country="NL")
    blocked = member(site, "BlockedOne")
    viewer = member(site, "Viewer")
    with on_site(site):
        Block.objects.create(blocker=viewer.user, blocked=blocked)
    html = _html(logged_in(site, client_for, viewer).get(f"/members/{anna.pk}"))
    assert html.count('data-testid="profile-related-item"') == 6
    assert "OtherGender" not in html and "OtherCountry" not in html and "BlockedOne" not in html


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as context:
        assert client.get(path).status_code == 200
    return len(context.captured_queries)


def test_query_count_is_fixed(site, client_for, django_assert_num_queries):
    few = member(site, "Few", interests=["Travel"])
    photos_add(site, few, 1)
    many = member(site, "Many", interests=["Travel", "Music", "Art", "Cinema"])
    photos_add(site, many, 10)
    viewer = member(site, "Viewer")
    client = logged_in(site, client_for, viewer)
    client.get(f"/members/{few.pk}")  # warm caches (site lookup)
    baseline = _queries(client, f"/members/{few.pk}")
    for i in range(6):
        photos_add(site, member(site, f"Rel{i}"), 2)
    with django_assert_num_queries(baseline):
        client.get(f"/members/{many.pk}")
    visitor = client_for(site)
    visitor.get(f"/members/{few.pk}")
    visitor_baseline = _queries(visitor, f"/members/{few.pk}")
    with django_assert_num_queries(visitor_baseline):
        visitor.get(f"/members/{many.pk}")


def test_gift_button_for_members_and_the_login_message_for_visitors(site, client_for):
    anna = member(site, "Anna")
    me = member(site, "Giver", user_fields={"credits": 2})
    html = _html(logged_in(site, client_for, me).get(f"/members/{anna.pk}"))
    assert 'data-island="ProfileGift"' in html
    assert 'disabled data-testid="profile-gift"' not in html
    props = json.loads(
        re.search(r'<script id="island-ProfileGift-\d+-props" type="application/json">(.*?)</script>', html).group(1)
    )
    assert props["profileId"] == anna.pk and props["profileName"] == "Anna"
    assert props["credits"] == 2 and props["cost"] == site.gift_credits
    assert props["urls"]["gifts"] == "/api/gifts.php" and props["urls"]["credits"] == "/credits"
    assert props["strings"]["sendGift"] == "Send a gift"

    visitor = _html(client_for(site).get(f"/members/{anna.pk}"))
    assert 'data-island="ProfileGift"' not in visitor
    assert 'data-login-needed="gift" data-testid="profile-gift"' in visitor
    assert "Log in or sign up to send a gift." in visitor

    own = _html(logged_in(site, client_for, me).get(f"/members/{me.pk}"))
    assert 'data-island="ProfileGift"' not in own


def test_photos_open_in_the_keyboard_photo_viewer(site, client_for):
    anna = member(site, "Anna")
    photos_add(site, anna, 1)
    html = _html(client_for(site).get(f"/members/{anna.pk}"))
    assert 'data-photo-viewer-item data-width="400" data-height="400" aria-haspopup="dialog"' in html
    assert '<dialog class="photo-viewer" aria-labelledby="photo-viewer-title" data-photo-viewer' in html
    assert 'data-count-text="Photo {n} of {count}"' in html
    assert 'aria-keyshortcuts="ArrowLeft"' in html and 'aria-keyshortcuts="ArrowRight"' in html
    plain = member(site, "Plain")
    assert "data-photo-viewer" not in _html(client_for(site).get(f"/members/{plain.pk}"))
