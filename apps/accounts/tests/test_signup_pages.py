"""Signup pages (spec §2): /signup, /members/<id>/signup, /complete-signup,
/signup-matches, the signup modal of the layouts, and /sw.js."""

import json
import re
from datetime import date

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.accounts.services.signup_steps import signup_steps_mark_done
from apps.common.islands import ISLAND_STRINGS, island_strings
from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from apps.profiles.selectors import looking_for_genders
from conftest import on_site

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-passphrase-42"


def signup(client, email="anna@example.com", name="Anna"):
    response = client.post(
        "/api/signup.php",
        {"email": email, "name": name, "date_of_birth": "1990-04-05", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content


@pytest.fixture
def member(site, client_for):
    client = client_for(site)
    signup(client)
    return client


def set_profile(site, email="anna@example.com", **fields):
    with on_site(site):
        Profile.objects.filter(user__email=email).update(**fields)


def island_props(html: str, name: str = "Signup") -> list[dict]:
    """The props of every instance of an island on the page."""
    ids = re.findall(rf'<div data-island="{name}" id="([^"]+)"></div>', html)
    props = []
    for element_id in ids:
        match = re.search(rf'<script id="{element_id}-props" type="application/json">(.*?)</script>', html, re.S)
        props.append(json.loads(match.group(1)))
    return props


def make_profiles(site, count, *, gender="female", with_photos=True) -> list[Profile]:
    with on_site(site):
        profiles = []
        for number in range(count):
            profile = Profile.objects.create(
                name=f"Match{number}",
                gender=gender,
                status=ProfileStatus.ACTIVE,
                date_of_birth=date(1995, 1, 1),
                city="Leeds",
            )
            if with_photos and number % 2 == 0:
                photo = Photo.objects.create(
                    profile=profile,
                    image=f"{site.schema_name}/photos/m{profile.pk}.jpg",
                    thumb=f"{site.schema_name}/photos/thumbs/m{profile.pk}.jpg",
                    width=400,
                    height=400,
                    status=PhotoStatus.ACTIVE,
                )
                profile.main_photo = photo
                profile.save(update_fields=["main_photo"])
            profiles.append(profile)
        return profiles


class TestSignupPage:
    def test_visitors_get_the_island_on_the_page(self, site, client_for):
        response = client_for(site).get("/signup")
        assert response.status_code == 200
        [props] = island_props(response.content.decode())  # the page's island, no modal besides
        assert props["mode"] == "page" and props["startStep"] == 0 and props["profile"] is None
        assert props["signupsOpen"] is True
        assert props["urls"]["signup"] == "/api/signup.php"
        assert props["urls"]["photo"] == "/api/signup/photo.php"
        assert props["urls"]["profile"] == "/api/signup/profile.php"
        assert props["urls"]["matches"] == "/signup-matches"
        assert props["urls"]["service"] == "/pages/service"
        assert [c["code"] for c in props["countries"]] == site.country_codes
        assert {"code": "GB-SCT", "name": "Scotland"} in props["regions"]["GB"]
        assert [g["value"] for g in props["genders"]] == ["male", "female"]
        assert [s["value"] for s in props["sexualities"]] == ["hetero", "gay", "lesbian", "bi"]
        assert len(props["months"]) == 12 and props["months"][0] == "January"
        assert props["strings"]["invalidDate"] == "Invalid date of birth."
        assert props["strings"]["dateOfBirthHelp"] == "Enter your date of birth (18+)"

    def test_labels_come_translated(self, site, client_for):
        client = client_for(site)
        client.cookies["dp_lang"] = "fr"
        [props] = island_props(client.get("/signup").content.decode())
        assert props["months"][0] == "janvier"
        assert props["strings"]["invalidDate"] == "Date de naissance invalide."
        assert props["strings"]["stepOf"] == "Étape {step} sur {total}"
        assert {c["code"]: c["name"] for c in props["countries"]}["GB"] == "Royaume-Uni"

    def test_the_sites_minimum_age_is_in_the_text(self, site, client_for):
        site.min_age = 21
        site.save()
        [props] = island_props(client_for(site).get("/signup").content.decode())
        assert props["minAge"] == 21
        assert props["strings"]["dateOfBirthHelp"] == "Enter your date of birth (21+)"

    def test_closed_signups_are_told_to_the_island(self, site, client_for):
        site.signups = "with_trafficsource"
        site.save()
        [props] = island_props(client_for(site).get("/signup").content.decode())
        assert props["signupsOpen"] is False

    def test_members_who_finished_go_home_the_others_complete_their_signup(self, site, member):
        assert member.get("/signup").headers["Location"] == "/complete-signup"
        with on_site(site):
            signup_steps_mark_done(user=User.objects.get(email="anna@example.com"))
        assert member.get("/signup").headers["Location"] == "/"


class TestMemberSignupPage:
    def test_starts_with_a_message_to_an_active_profile(self, site, client_for):
        [profile] = make_profiles(site, 1)
        response = client_for(site).get(f"/members/{profile.pk}/signup")
        assert response.status_code == 200
        [props] = island_props(response.content.decode())
        assert props["profile"] == {
            "id": profile.pk,
            "name": "Match0",
            "photo": f"/media/{site.schema_name}/photos/thumbs/m{profile.pk}.jpg",
        }
        assert props["urls"]["afterLogin"] == f"/members/{profile.pk}"

    def test_a_pending_photo_is_not_shown(self, site, client_for):
        [profile] = make_profiles(site, 1)
        with on_site(site):
            Photo.objects.update(status=PhotoStatus.PENDING)
        [props] = island_props(client_for(site).get(f"/members/{profile.pk}/signup").content.decode())
        assert props["profile"]["photo"] is None

    def test_a_disabled_or_unknown_profile_is_404(self, site, client_for):
        [profile] = make_profiles(site, 1)
        set_profile_status(site, profile, ProfileStatus.DISABLED)
        assert client_for(site).get(f"/members/{profile.pk}/signup").status_code == 404
        assert client_for(site).get("/members/999999/signup").status_code == 404

    def test_a_profile_of_another_site_is_404(self, two_sites, client_for):
        first, second = two_sites
        [profile] = make_profiles(first, 1)
        with on_site(second):
            assert not Profile.objects.filter(pk=profile.pk).exists()
        assert client_for(second).get(f"/members/{profile.pk}/signup").status_code == 404

    def test_members_go_to_the_profile(self, site, member):
        [profile] = make_profiles(site, 1)
        response = member.get(f"/members/{profile.pk}/signup")
        assert response.status_code == 302 and response.headers["Location"] == f"/members/{profile.pk}"


def set_profile_status(site, profile, status):
    with on_site(site):
        Profile.objects.filter(pk=profile.pk).update(status=status)


class TestCompleteSignup:
    def test_visitors_log_in_first(self, site, client_for):
        response = client_for(site).get("/complete-signup")
        assert response.status_code == 302
        assert response.headers["Location"] == "/login?next=%2Fcomplete-signup"

    def test_members_get_the_island_from_step_1_with_their_data(self, site, member):
        set_profile(site, gender="female", city="Leeds")
        response = member.get("/complete-signup")
        assert response.status_code == 200
        [props] = island_props(response.content.decode())
        assert props["startStep"] == 1
        assert props["user"] == {"email": "anna@example.com", "name": "Anna", "confirmed": False}
        assert props["initial"]["gender"] == "female" and props["initial"]["city"] == "Leeds"
        assert b"entry-warning" not in response.content

    def test_members_who_finished_go_home(self, site, member):
        with on_site(site):
            signup_steps_mark_done(user=User.objects.get(email="anna@example.com"))
        assert member.get("/complete-signup").headers["Location"] == "/"


class TestSignupMatches:
    def test_visitors_log_in_first(self, site, client_for):
        response = client_for(site).get("/signup-matches")
        assert response.headers["Location"] == "/login?next=%2Fsignup-matches"

    def test_shows_active_profiles_of_the_gender_the_member_looks_for(self, site, member):
        set_profile(site, gender="male", sexuality="hetero")
        women = make_profiles(site, 2, gender="female")
        make_profiles(site, 1, gender="male")
        set_profile_status(site, women[1], ProfileStatus.DISABLED)
        body = member.get("/signup-matches").content.decode()
        assert body.count('data-testid="signup-match"') == 1
        assert f'href="/members/{women[0].pk}"' in body
        assert "Match0, " in body and "Leeds" in body
        assert "Anna" not in body.split('data-testid="signup-matches"')[1]

    def test_newest_first_12_per_page(self, site, member):
        set_profile(site, gender="female", sexuality="hetero")
        make_profiles(site, 14, gender="male", with_photos=False)
        first = member.get("/signup-matches").content.decode()
        assert first.count('data-testid="signup-match"') == 12
        assert first.index("Match13") < first.index("Match12")
        assert "Page 1 of 2" in first
        second = member.get("/signup-matches?page=2").content.decode()
        assert second.count('data-testid="signup-match"') == 2
        assert "Match0" in second

    def test_a_photo_or_a_placeholder(self, site, member):
        set_profile(site, gender="male", sexuality="hetero")
        with_photo, _without = make_profiles(site, 2)
        body = member.get("/signup-matches").content.decode()
        assert f"/media/{site.schema_name}/photos/thumbs/m{with_photo.pk}.jpg" in body
        assert body.count("signup-match-avatar") == 1

    def test_empty_state(self, site, member):
        response = member.get("/signup-matches")
        assert response.status_code == 200
        assert b'data-testid="signup-matches-empty"' in response.content

    def test_the_member_is_never_suggested(self, site, member):
        set_profile(site, gender="female", sexuality="lesbian", status=ProfileStatus.ACTIVE)
        body = member.get("/signup-matches").content.decode()
        assert 'data-testid="signup-matches-empty"' in body

    def test_a_fixed_number_of_queries_for_1_and_10_profiles(self, site, member, django_assert_num_queries):
        set_profile(site, gender="male", sexuality="hetero")
        make_profiles(site, 1)
        member.get("/signup-matches")  # warm the site lookup
        with CaptureQueriesContext(connection) as one:
            member.get("/signup-matches")
        queries = len(one)
        assert queries <= 20, "\n".join(query["sql"][:200] for query in one.captured_queries)
        with django_assert_num_queries(queries):
            body = member.get("/signup-matches").content.decode()
        assert body.count('data-testid="signup-match"') == 1
        make_profiles(site, 9)
        with django_assert_num_queries(queries):
            body = member.get("/signup-matches").content.decode()
        assert body.count('data-testid="signup-match"') == 10


@pytest.mark.parametrize(
    ("niche", "gender", "sexuality", "expected"),
    [
        (1, "male", "hetero", ["female"]),
        (1, "female", "hetero", ["male"]),
        (1, "male", "gay", ["male"]),
        (1, "female", "lesbian", ["female"]),
        (1, "female", "gay", ["female"]),
        (1, "male", "bi", ["male", "female"]),
        (1, "", "", ["male", "female"]),
        (7, "female", "hetero", ["male"]),
        (7, "", "", ["male"]),
    ],
)
def test_who_a_member_looks_for(site, niche, gender, sexuality, expected):
    site.niche = niche
    assert looking_for_genders(site=site, gender=gender, sexuality=sexuality) == expected


def test_gay_site_suggests_men_to_men(gay_site, client_for):
    client = client_for(gay_site)
    signup(client)
    set_profile(gay_site, gender="male", sexuality="gay")
    make_profiles(gay_site, 1, gender="male")
    make_profiles(gay_site, 1, gender="female")
    body = client.get("/signup-matches").content.decode()
    assert body.count('data-testid="signup-match"') == 1


class TestSignupModal:
    def test_visitors_get_the_modal_on_the_default_layout(self, site, client_for):
        html = client_for(site).get("/").content.decode()
        [props] = island_props(html)
        assert props["mode"] == "modal"
        [cta] = re.findall(r"<a [^>]*data-testid=\"signup-cta\"[^>]*>", html)
        assert " data-signup-modal" in cta and 'href="/signup"' in cta  # a plain link the modal takes over
        assert props["urls"]["afterLogin"] == "/"

    def test_members_do_not(self, site, member):
        assert island_props(member.get("/").content.decode()) == []

    def test_the_empty_layout_carries_it(self, site):
        request = RequestFactory().get("/", HTTP_HOST="localhost")
        request.site = request.tenant = site
        request.user = AnonymousUser()
        request.session = {}
        with on_site(site):
            html = render_to_string("layouts/empty.html", request=request)
        [props] = island_props(html)
        assert props["mode"] == "modal"

    def test_the_island_has_its_strings(self):
        strings = island_strings("Signup")
        assert "Signup" in ISLAND_STRINGS
        assert strings["invalidDate"] == "Invalid date of birth."
        assert strings["dateOfBirthHelp"] == "Enter your date of birth (18+)"
        assert all(isinstance(value, str) and value for value in strings.values())


def test_the_service_worker_is_served_from_the_root(site, client_for):
    response = client_for(site).get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    body = response.content.decode()
    assert "NEW_PUSH_MESSAGE" in body and "NEW_PUSH_CLICK" in body and "notificationclick" in body
