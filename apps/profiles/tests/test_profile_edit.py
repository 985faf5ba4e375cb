"""My profile page (/profile, issue 4 item 2): every field of spec §3 with its message
next to the field, nothing typed lost, a success message; and the profile photo alert
(spec §4) with its dismissal."""

from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from apps.profiles.models import Photo, PhotoStatus, Profile
from apps.profiles.tests.helpers import jpeg_upload, logged_in, member_create
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site

pytestmark = pytest.mark.django_db

URL = "/profile"
LIMIT = "You can upload up to 3 photos. Become a premium member to upload up to 25."
VALID = {
    "action": "profile",
    "name": "Annabel",
    "country": "GB",
    "region": "GB-SCT",
    "city": "Edinburgh",
    "date_of_birth": "1991-06-07",
    "gender": "female",
    "sexuality": "bi",
    "relationship_status": "single",
    "body_type": "athletic",
    "hair_color": "red",
    "eye_color": "green",
    "tattoos": "some",
    "interests": ["Travel", "Music"],
    "about_me": "I like long walks.",
}


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def anna(site):
    with on_site(site):
        site.interests = ["Music", "Travel", "Cooking"]
        site.save(update_fields=["interests"])
    return member_create(site)


@pytest.fixture
def client(site, client_for, anna):
    return logged_in(site, client_for, anna)


def post(client, **changes):
    data = {**VALID, **changes}
    return client.post(URL, {key: value for key, value in data.items() if value is not None})


def field_error(response, field: str) -> str:
    html = response.content.decode()
    marker = f'data-testid="error-profile-{field}"'
    assert marker in html, f"no message for {field}"
    start = html.index(marker)
    return html[html.index("<div>", start) + 5 : html.index("</div>", start)]


def test_visitors_are_sent_to_login(site, client_for):
    response = client_for(site).get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=/profile")


def test_page_shows_the_stored_profile(client):
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="my-profile"' in html
    assert 'value="Anna"' in html
    assert 'value="London"' in html
    assert 'value="Music"' in html and 'value="Cooking"' in html
    assert '<option value="GB-SCT">Scotland</option>' in html
    assert "You have no photos yet." in html


def test_saving_every_field(site, client, anna):
    response = post(client)
    assert response.status_code == 302
    assert response["Location"] == URL
    page = client.get(URL).content.decode()
    assert "Your profile has been saved." in page
    with on_site(site):
        profile = Profile.objects.get(user=anna)
        user = get_user_model().objects.get(pk=anna.pk)
        assert profile.name == user.username == "Annabel"
        assert profile.date_of_birth == user.date_of_birth == date(1991, 6, 7)
        assert (profile.country.code, profile.region, profile.city) == ("GB", "GB-SCT", "Edinburgh")
        assert (profile.gender, profile.sexuality, profile.relationship_status) == ("female", "bi", "single")
        assert (profile.body_type, profile.hair_color, profile.eye_color, profile.tattoos) == (
            "athletic",
            "red",
            "green",
            "some",
        )
        assert profile.interests == ["Music", "Travel"]  # The site's order.
        assert profile.about_me == "I like long walks."
    assert MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk).name == "Annabel"


def test_blank_optional_fields_clear_them(site, client, anna):
    response = post(client, region="", city="", gender="", interests=None, about_me="")
    assert response.status_code == 302
    with on_site(site):
        profile = Profile.objects.get(user=anna)
        assert (profile.region, profile.city, profile.gender, profile.interests, profile.about_me) == (
            "",
            "",
            "",
            [],
            "",
        )


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"name": ""}, "name", "Enter a name"),
        ({"name": "@anna"}, "name", "Username may not start with @"),
        ({"name": "ANNA@example.com"}, "name", "Username may not be the same as your e-mail address"),
        ({"name": "x" * 31}, "name", "A name can have at most 30 characters."),
        ({"name": "bob"}, "name", "This name is already taken."),
        ({"country": "DE"}, "country", "Choose one of the countries of this site."),
        ({"region": "NL-FL"}, "region", "Choose a region of the selected country."),
        ({"country": "", "region": "GB-SCT"}, "region", "Choose a country first."),
        ({"city": "x" * 121}, "city", "A city name can have at most 120 characters."),
        ({"date_of_birth": ""}, "date_of_birth", "Enter your date of birth (18+)"),
        ({"date_of_birth": "2020-01-01"}, "date_of_birth", "Enter your date of birth (18+)"),
        ({"date_of_birth": "1990-02-31"}, "date_of_birth", "Invalid date of birth."),
        ({"date_of_birth": "2999-01-01"}, "date_of_birth", "Invalid date of birth."),
        ({"gender": "robot"}, "gender", "Choose your gender."),
        ({"sexuality": "x"}, "sexuality", "Choose your sexuality."),
        ({"relationship_status": "x"}, "relationship_status", "Choose a relationship status from the list."),
        ({"body_type": "x"}, "body_type", "Choose a body type from the list."),
        ({"hair_color": "x"}, "hair_color", "Choose a hair colour from the list."),
        ({"eye_color": "x"}, "eye_color", "Choose an eye colour from the list."),
        ({"tattoos": "x"}, "tattoos", "Choose an answer about tattoos from the list."),
        ({"interests": ["Music", "Knitting"]}, "interests", "Choose interests from the list."),
        ({"about_me": "x" * 2001}, "about_me", "Your text can have at most 2000 characters."),
    ],
)
def test_each_error_is_shown_next_to_its_field_and_nothing_typed_is_lost(site, client, anna, changes, field, message):
    member_create(site, email="bob@example.com", name="Bob")
    response = post(client, **{"city": "Glasgow", "about_me": "Typed text", **changes})
    assert response.status_code == 400
    assert field_error(response, field) == message
    html = response.content.decode()
    assert "Please check the fields marked in red." in html
    # What was typed is still in the form.
    if "city" not in changes:
        assert 'value="Glasgow"' in html
    if "about_me" not in changes:
        assert ">Typed text</textarea>" in html
    if "name" not in changes:
        assert 'value="Annabel"' in html
    # Nothing was saved.
    with on_site(site):
        assert Profile.objects.get(user=anna).city == "London"


def test_minimum_age_is_the_sites(site, client):
    with on_site(site):
        site.min_age = 21
        site.save(update_fields=["min_age"])
    today = timezone.localdate()
    response = post(client, date_of_birth=date(today.year - 20, 1, 1).isoformat())
    assert field_error(response, "date_of_birth") == "Enter your date of birth (21+)"


def test_a_new_country_drops_the_old_region(site, client, anna):
    with on_site(site):
        Profile.objects.filter(user=anna).update(region="GB-SCT")
    response = client.post(URL, {**{k: v for k, v in VALID.items() if k != "region"}, "country": "FR"})
    assert response.status_code == 302
    with on_site(site):
        assert Profile.objects.get(user=anna).region == ""


# --- Photos on the page ----------------------------------------------------------------


def upload(client, **kwargs):
    return client.post(URL, {"action": "photo_upload", "photo": jpeg_upload(**kwargs)})


def test_upload_main_delete_through_the_page(site, client, anna, django_capture_on_commit_callbacks):
    assert upload(client).status_code == 302
    page = client.get(URL).content.decode()
    assert "Your photo has been uploaded. Others see it once it has been approved." in page
    assert "Waiting for approval" in page
    assert 'data-testid="photo-main"' in page
    upload(client)
    with on_site(site):
        first, second = Photo.objects.filter(profile__user=anna).order_by("pk")
        assert Profile.objects.get(user=anna).main_photo_id == first.pk
    assert f'src="{second.thumb.url}"' in client.get(URL).content.decode()

    response = client.post(URL, {"action": "photo_main", "photo": second.pk})
    assert response.status_code == 302
    assert "Your main photo has been changed." in client.get(URL).content.decode()
    with on_site(site):
        assert Profile.objects.get(user=anna).main_photo_id == second.pk

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"action": "photo_delete", "photo": second.pk})
    assert response.status_code == 302
    assert "Picture deleted." in client.get(URL).content.decode()
    with on_site(site):
        assert list(Photo.objects.filter(profile__user=anna).values_list("pk", flat=True)) == [first.pk]


def test_active_photo_shows_its_status(site, client, anna):
    site.auto_approve_photos = True
    with on_site(site):
        site.save(update_fields=["auto_approve_photos"])
    upload(client)
    page = client.get(URL).content.decode()
    assert 'data-status="active"' in page
    assert "Waiting for approval" not in page


def test_limit_message_on_the_page(client):
    for _ in range(3):
        assert upload(client).status_code == 302
    page = client.get(URL).content.decode()
    assert LIMIT in page
    assert 'data-testid="photo-input"' not in page
    response = upload(client)  # Posted anyway: the member's state forbids it.
    assert response.status_code == 409
    assert LIMIT in response.content.decode()


def test_rejected_upload_shows_its_message(client):
    response = upload(client, width=120, height=120)
    assert response.status_code == 400
    assert "This picture is too small. It must be at least 200 pixels wide and high." in response.content.decode()
    response = client.post(URL, {"action": "photo_upload"})
    assert "Choose a photo to upload." in response.content.decode()


def test_another_members_photo_is_404_on_the_page(site, client_for, client):
    bob = member_create(site, email="bob@example.com", name="Bob")
    bob_client = logged_in(site, client_for, bob)
    upload(bob_client)
    with on_site(site):
        photo = Photo.objects.get(profile__user=bob)
    assert client.post(URL, {"action": "photo_main", "photo": photo.pk}).status_code == 404
    assert client.post(URL, {"action": "photo_delete", "photo": photo.pk}).status_code == 404


# --- Profile photo alert (spec §4) -----------------------------------------------------

ALERT = 'data-testid="profile-photo-alert"'


def test_alert_for_members_without_a_photo_until_dismissed(site, client, anna):
    page = client.get("/notifications").content.decode()
    assert ALERT in page
    assert 'href="/profile#photos"' in page
    assert 'data-dismiss-alert="profile_photo"' in page
    assert ALERT not in client.get(URL).content.decode()  # Not on the page where photos are added.

    response = client.post("/api/dismiss.php", {"alert": "profile_photo"}, content_type="application/json")
    assert response.status_code == 200
    with on_site(site):
        stored = get_user_model().objects.get(pk=anna.pk).dismissals["profile_photo"]
    assert response.json() == {"alert": "profile_photo", "dismissed_at": stored}
    assert ALERT not in client.get("/notifications").content.decode()


@pytest.mark.parametrize(
    ("status", "shown"), [(PhotoStatus.PENDING, False), (PhotoStatus.ACTIVE, False), (PhotoStatus.REJECTED, True)]
)
def test_alert_depends_on_the_photos(site, client, anna, status, shown):
    upload(client)
    with on_site(site):
        Photo.objects.filter(profile__user=anna).update(status=status)
    assert (ALERT in client.get("/notifications").content.decode()) is shown


def test_no_alert_for_visitors(site, client_for):
    assert ALERT not in client_for(site).get("/login").content.decode()


def test_dismiss_validates_the_alert_name(client):
    for name in ("enable_push", "disabled_notifications"):
        assert client.post("/api/dismiss.php", {"alert": name}, content_type="application/json").status_code == 200
    response = client.post("/api/dismiss.php", {"alert": "signup_steps"}, content_type="application/json")
    assert response.status_code == 400
    assert "alert" in response.json()["error"]["fields"]


def test_dismiss_needs_login(site, client_for):
    response = client_for(site).post("/api/dismiss.php", {"alert": "profile_photo"}, content_type="application/json")
    assert response.status_code == 403
