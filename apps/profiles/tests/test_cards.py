"""Profile cards (apps.profiles.cards): every card shows exactly the facts the site's
`visible_profile_fields` names, the notes when `visible_profile_notes` is on, the
fictional-profile label (`fictional_singular`), the same silhouette without a photo, and
escapes what members and operators typed."""

from datetime import date

import pytest
from django.utils import timezone

from apps.accounts.selectors import age_on
from apps.likes.services import like_create
from apps.profiles.cards import profile_card
from apps.profiles.models import Profile
from apps.profiles.tests.helpers_view import logged_in, member
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db

FULL = {
    "city": "Whitby",
    "region": "GB-ENG",
    "relationship_status": "single",
    "body_type": "curvy",
    "hair_color": "red",
    "interests": ["Travel", "Music", "Cinema", "Art"],
    "about_me": "Hello there, " + "x" * 200,
}


def _set(site: Site, **fields) -> None:
    Site.objects.filter(pk=site.pk).update(**fields)
    for name, value in fields.items():
        setattr(site, name, value)
    site_cache_clear()


def _card(site, profile: Profile) -> dict:
    with on_site(site):
        return profile_card(Profile.objects.select_related("main_photo").get(pk=profile.pk))


def test_a_card_has_the_sites_facts_only(site):
    anna = member(site, "Anna", **FULL)
    _set(site, visible_profile_fields=["age", "city", "body_type", "hair_color", "interests"])
    card = _card(site, anna)
    assert card["age"] == age_on(date(1990, 4, 5), timezone.localdate())
    assert card["facts"] == [
        {"name": "place", "text": "Whitby"},
        {"name": "details", "text": "Curvy · Red"},
        {"name": "interests", "text": "Travel, Music, Cinema…"},
    ]
    assert card["region"] == "" and card["country"] == ""

    _set(site, visible_profile_fields=["region", "country", "relationship_status", "about_me"])
    card = _card(site, anna)
    assert card["age"] is None and card["city"] == ""
    assert [fact["name"] for fact in card["facts"]] == ["place", "details", "about_me"]
    assert card["facts"][0]["text"] == "England, United Kingdom"
    assert card["facts"][1]["text"] == "Single"
    assert card["facts"][2]["text"].startswith("Hello there, xxx") and card["facts"][2]["text"].endswith("…")
    assert len(card["facts"][2]["text"]) <= 90

    _set(site, visible_profile_fields=[])
    card = _card(site, anna)
    assert card["age"] is None and card["facts"] == [] and card["city"] == ""


def test_a_region_named_like_the_city_is_said_once(site):
    hans = member(site, "Hans", city="Groningen", region="NL-GR", country="NL")
    _set(site, visible_profile_fields=["city", "region", "country"])
    assert _card(site, hans)["facts"][0]["text"] == "Groningen, Netherlands"
    _set(site, visible_profile_fields=["region", "country"])
    assert _card(site, hans)["facts"][0]["text"] == "Groningen, Netherlands"


def test_notes_and_the_fictional_label_follow_the_site(site):
    fiction = member(site, "Fiction", is_fictional=True, is_cam=True)
    plain = member(site, "Plain")
    _set(site, fictional_singular="made-up profile", fictional_icon="✪", visible_profile_notes=True)
    card = _card(site, fiction)
    assert card["fictional"] == {"icon": "✪", "label": "made-up profile", "warning": site.fictional_warning}
    assert card["notes"] == [{"kind": "fictional", "text": "made-up profile"}, {"kind": "cam", "text": "Cam"}]
    assert _card(site, plain)["notes"] == [] and _card(site, plain)["fictional"] is None

    _set(site, visible_profile_notes=False)
    card = _card(site, fiction)
    assert card["notes"] == []
    assert card["fictional"]["label"] == "made-up profile"  # the mark stays, labelled


def test_search_api_cards_follow_the_setting(site, client_for):
    me = member(site, "Seeker", gender="male")
    member(site, "Found", **FULL)
    _set(site, visible_profile_fields=["city"])
    client = logged_in(site, client_for, me)
    results = client.get("/api/search.php", {"gender": "female", "country": "GB"}).json()["results"]
    found = next(card for card in results if card["name"] == "Found")
    assert found["age"] is None
    assert found["facts"] == [{"name": "place", "text": "Whitby"}]


def test_likes_cards_show_the_sites_facts_notes_and_silhouette(site, client_for):
    me = member(site, "Me")
    fan = member(site, "A very long member name indeed", is_fictional=True, **FULL)
    with on_site(site):
        like_create(liker=fan.user, profile_id=me.pk)
    _set(site, visible_profile_fields=["age", "body_type"], fictional_singular="story profile")
    html = logged_in(site, client_for, me).get("/likes/received").content.decode()
    age = age_on(date(1990, 4, 5), timezone.localdate())
    assert f'data-testid="like-card-age">, {age}<' in html
    assert 'data-testid="like-card-fact-details">Curvy<' in html
    assert "Whitby" not in html  # the city is not shown on this site
    assert 'data-testid="like-card-note-fictional"' in html and "story profile" in html
    assert 'data-testid="like-card-fictional"' in html
    assert 'class="profile-silhouette card-img-top"' in html and 'aria-label="No photo"' in html

    _set(site, visible_profile_fields=["city"], visible_profile_notes=False)
    html = logged_in(site, client_for, me).get("/likes/received").content.decode()
    assert 'data-testid="like-card-age"' not in html
    assert 'data-testid="like-card-fact-place">Whitby<' in html
    assert "like-card-notes" not in html


def test_operator_and_member_text_is_escaped(site, client_for):
    me = member(site, "Me")
    fan = member(site, "<b>Fan</b>", city="<i>Town</i>", is_fictional=True)
    with on_site(site):
        like_create(liker=fan.user, profile_id=me.pk)
    _set(site, fictional_singular='<img src=x onerror="alert(1)">', visible_profile_fields=["city"])
    client = logged_in(site, client_for, me)
    for path in ("/likes/received", f"/members/{fan.pk}"):
        html = client.get(path).content.decode()
        assert "<b>Fan</b>" not in html and "&lt;b&gt;Fan&lt;/b&gt;" in html
        assert "<img src=x" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<i>Town</i>" not in html


def test_profile_view_shows_notes_and_the_fictional_label(site, client_for):
    fiction = member(site, "Fiction", is_fictional=True, is_resell=True)
    _set(site, member_resell=True, fictional_singular="story profile")
    html = client_for(site).get(f"/members/{fiction.pk}").content.decode()
    assert 'data-testid="profile-note-fictional"' in html
    assert 'data-testid="profile-note-partner"' in html
    assert '<span class="visually-hidden">story profile</span>' in html

    _set(site, visible_profile_notes=False)
    html = client_for(site).get(f"/members/{fiction.pk}").content.decode()
    assert "profile-notes" not in html
    assert 'data-testid="profile-fictional"' in html  # the icon stays, labelled
    assert '<span class="visually-hidden">story profile</span>' in html


def test_profiles_without_a_photo_show_the_silhouette(site, client_for):
    me = member(site, "Me")
    other = member(site, "Other")
    html = logged_in(site, client_for, me).get(f"/members/{other.pk}").content.decode()
    assert 'class="profile-silhouette profile-avatar rounded-circle"' in html
    assert 'width="96" height="96"' in html
    assert 'class="profile-silhouette topbar-avatar rounded-circle"' in html
