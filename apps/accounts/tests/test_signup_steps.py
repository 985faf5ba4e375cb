"""Signup steps 1-4 (spec §4 Signup, §5, §9): /api/signup/profile.php and
/api/signup/photo.php."""

import io

import pytest
from django.conf import settings
from PIL import Image

from apps.accounts.models import User
from apps.accounts.services.signup_steps import SIGNUP_STEPS_DONE
from apps.profiles.models import Photo, PhotoStatus, Profile
from conftest import on_site

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-passphrase-42"
PROFILE_URL = "/api/signup/profile.php"
PHOTO_URL = "/api/signup/photo.php"
LIMIT_MESSAGE = "You can upload up to 3 photos. Become a premium member to upload up to 25."


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


def signup(client, email="anna@example.com", name="Anna"):
    response = client.post(
        "/api/signup.php",
        {"email": email, "name": name, "date_of_birth": "1990-04-05", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return response.json()["user"]


@pytest.fixture
def member(site, client_for):
    client = client_for(site)
    signup(client)
    return client


def patch(client, data):
    return client.patch(PROFILE_URL, data, content_type="application/json")


def fields_of(response) -> dict:
    return response.json()["error"].get("fields", {})


def jpeg(width=640, height=480, colour=(200, 80, 120)) -> io.BytesIO:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="JPEG", quality=90)
    buffer.seek(0)
    buffer.name = "me.jpg"
    return buffer


def profile_of(site, email="anna@example.com") -> Profile:
    with on_site(site):
        return Profile.objects.select_related("main_photo", "user").get(user__email=email)


class TestLoginRequired:
    @pytest.mark.parametrize(
        ("method", "path"),
        [("get", PROFILE_URL), ("patch", PROFILE_URL), ("post", PROFILE_URL), ("post", PHOTO_URL)],
    )
    def test_visitors_get_403_authentication_required(self, site, client_for, method, path):
        response = getattr(client_for(site), method)(path, {}, content_type="application/json")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "authentication_required"

    def test_csrf_is_checked_for_members(self, site, client_for):
        client = client_for(site, enforce_csrf_checks=True)
        client.get("/")  # the CSRF cookie
        token = client.cookies[settings.CSRF_COOKIE_NAME].value
        response = client.post(
            "/api/signup.php",
            {"email": "anna@example.com", "name": "Anna", "date_of_birth": "1990-04-05", "password": PASSWORD},
            content_type="application/json",
            HTTP_X_CSRFTOKEN=token,
        )
        assert response.status_code == 201
        # Logging in rotated the token: the old one no longer works...
        assert patch_with_token(client, token).status_code == 403
        # ...and GET /api/signup/profile.php hands the island the new one.
        fresh = client.get(PROFILE_URL).json()["csrf_token"]
        assert patch_with_token(client, fresh).status_code == 200


def patch_with_token(client, token):
    return client.patch(PROFILE_URL, {"city": "Leeds"}, content_type="application/json", HTTP_X_CSRFTOKEN=token)


class TestProfileStep:
    def test_get_returns_the_step_fields(self, site, member):
        body = member.get(PROFILE_URL).json()
        assert body["profile"]["country"] == site.country_codes[0]  # no GeoIP header: the site's first
        assert set(body["profile"]) >= {"gender", "sexuality", "country", "region", "city", "about_me"}
        assert body["csrf_token"]

    def test_patch_stores_the_location(self, site, member):
        response = patch(member, {"country": "FR", "region": "FR-BRE", "city": " Rennes "})
        assert response.status_code == 200, response.content
        assert response.json()["profile"].items() >= {"country": "FR", "region": "FR-BRE", "city": "Rennes"}.items()
        profile = profile_of(site)
        assert (profile.country.code, profile.region, profile.city) == ("FR", "FR-BRE", "Rennes")

    def test_post_works_like_patch(self, site, member):
        response = member.post(PROFILE_URL, {"gender": "female", "sexuality": "bi"}, content_type="application/json")
        assert response.status_code == 200
        profile = profile_of(site)
        assert (profile.gender, profile.sexuality) == ("female", "bi")

    def test_only_the_fields_sent_change(self, site, member):
        patch(member, {"gender": "male", "city": "Leeds"})
        patch(member, {"about_me": "Hello there"})
        profile = profile_of(site)
        assert (profile.gender, profile.city, profile.about_me) == ("male", "Leeds", "Hello there")

    @pytest.mark.parametrize(
        ("data", "field", "message"),
        [
            ({"gender": "robot"}, "gender", "Choose your gender."),
            ({"sexuality": "other"}, "sexuality", "Choose your sexuality."),
            ({"country": "DE"}, "country", "Choose one of the countries of this site."),
            ({"country": "ZZ"}, "country", "Choose one of the countries of this site."),
            ({"country": "GB", "region": "FR-BRE"}, "region", "Choose a region of the selected country."),
            ({"country": "GB", "region": "GB-XXX"}, "region", "Choose a region of the selected country."),
            ({"city": "x" * 121}, "city", "A city name can have at most 120 characters."),
            ({"about_me": "x" * 2001}, "about_me", "Your text can have at most 2000 characters."),
            ({"city": ["Leeds"]}, "city", None),
        ],
    )
    def test_each_field_has_its_message(self, site, member, data, field, message):
        response = patch(member, data)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid"
        if message:
            assert fields_of(response)[field] == [message]
        else:
            assert field in fields_of(response)
        profile = profile_of(site)
        assert (profile.gender, profile.city, profile.region) == ("", "", "")

    def test_the_limits_themselves_are_allowed(self, site, member):
        assert patch(member, {"city": "x" * 120, "about_me": "y" * 2000}).status_code == 200

    def test_a_region_must_belong_to_the_country_already_stored(self, site, member):
        patch(member, {"country": "US"})
        assert fields_of(patch(member, {"region": "GB-SCT"}))["region"] == ["Choose a region of the selected country."]
        # The code as the schema's enum spells it, like the country's.
        assert fields_of(patch(member, {"region": "us-ny"}))["region"] == ["Choose a region of the selected country."]
        assert patch(member, {"region": "US-NY"}).status_code == 200
        assert profile_of(site).region == "US-NY"

    def test_a_new_country_drops_a_region_of_the_old_one(self, site, member):
        patch(member, {"country": "GB", "region": "GB-SCT"})
        patch(member, {"country": "IE"})
        profile = profile_of(site)
        assert (profile.country.code, profile.region) == ("IE", "")

    def test_blank_values_clear_fields(self, site, member):
        patch(member, {"gender": "male", "region": "GB-ENG", "city": "Leeds"})
        assert patch(member, {"gender": "", "region": "", "city": ""}).status_code == 200
        profile = profile_of(site)
        assert (profile.gender, profile.region, profile.city) == ("", "", "")

    def test_done_records_that_the_steps_were_gone_through(self, site, member):
        assert member.get("/complete-signup").status_code == 200
        assert patch(member, {"done": True}).status_code == 200
        with on_site(site):
            assert SIGNUP_STEPS_DONE in User.objects.get(email="anna@example.com").dismissals
        assert member.get("/complete-signup").headers["Location"] == "/"

    def test_the_steps_of_one_site_do_not_reach_another(self, two_sites, client_for):
        first, second = two_sites
        client = client_for(first)
        signup(client)
        other = client_for(second)
        other.cookies = client.cookies
        assert patch(other, {"city": "Leeds"}).status_code == 403


class TestPhotoStep:
    def test_a_real_jpeg_becomes_the_main_photo_waiting_for_approval(self, site, member):
        response = member.post(PHOTO_URL, {"photo": jpeg()})
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["photo"]["status"] == "pending"
        assert body["main"] is True and body["photo_count"] == 1 and body["photo_limit"] == 3
        assert body["photo"]["thumb_url"].startswith(f"/media/{site.schema_name}/photos/thumbs/")
        profile = profile_of(site)
        with on_site(site):
            photo = Photo.objects.get(profile=profile)
            assert profile.main_photo_id == photo.pk
            assert (photo.width, photo.height) == (640, 480)
            with photo.thumb.open("rb") as thumb:
                assert Image.open(thumb).size == (400, 400)
            assert photo.image.name.endswith(".jpg") and "me.jpg" not in photo.image.name

    def test_sites_that_approve_photos_automatically(self, site, member):
        site.auto_approve_photos = True
        site.save()
        response = member.post(PHOTO_URL, {"photo": jpeg()})
        assert response.json()["photo"]["status"] == PhotoStatus.ACTIVE

    def test_the_second_photo_is_not_the_main_one(self, site, member):
        first = member.post(PHOTO_URL, {"photo": jpeg()}).json()
        second = member.post(PHOTO_URL, {"photo": jpeg(colour=(10, 20, 30))}).json()
        assert second["main"] is False and second["photo_count"] == 2
        assert profile_of(site).main_photo_id == first["photo"]["id"]

    def test_a_file_that_is_not_a_picture_is_rejected(self, site, member):
        fake = io.BytesIO(b"<?php echo 'hi'; ?>" * 50)
        fake.name = "me.jpg"
        response = member.post(PHOTO_URL, {"photo": fake})
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "not_an_image"
        assert error["message"] == "This file is not a picture. Upload a JPEG, PNG or WebP photo."
        with on_site(site):
            assert not Photo.objects.exists()

    def test_a_tiny_picture_is_rejected_with_its_message(self, site, member):
        response = member.post(PHOTO_URL, {"photo": jpeg(50, 50)})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "too_small"

    def test_no_file(self, site, member):
        response = member.post(PHOTO_URL, {})
        assert response.status_code == 400
        assert fields_of(response)["photo"] == ["Choose a photo to upload."]

    def test_free_members_may_have_3_photos(self, site, member):
        for _ in range(3):
            assert member.post(PHOTO_URL, {"photo": jpeg()}).status_code == 201
        response = member.post(PHOTO_URL, {"photo": jpeg()})
        assert response.status_code == 409
        error = response.json()["error"]
        assert error["code"] == "photo_limit"
        assert error["message"] == LIMIT_MESSAGE
        assert error["fields"]["photo"] == [LIMIT_MESSAGE]
        with on_site(site):
            assert Photo.objects.count() == 3

    def test_rejected_photos_do_not_count(self, site, member):
        for _ in range(3):
            member.post(PHOTO_URL, {"photo": jpeg()})
        with on_site(site):
            Photo.objects.filter(pk=Photo.objects.first().pk).update(status=PhotoStatus.REJECTED)
        assert member.post(PHOTO_URL, {"photo": jpeg()}).status_code == 201
