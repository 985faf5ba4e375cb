"""The member's own photos (spec §5, §9; issue 4 item 2): upload within the limit,
main photo, deletion, statuses, visibility to others, the photo files, the API."""

from functools import partial
from pathlib import Path
from unittest import mock

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.profiles import images
from apps.profiles.models import Photo, PhotoStatus, Profile
from apps.profiles.selectors import photos_visible_to
from apps.profiles.services import photos as photo_services
from apps.profiles.services.photos import photo_delete, photo_set_main, photo_upload
from apps.profiles.tests.helpers import jpeg_upload, logged_in, member_create
from conftest import on_site

pytestmark = pytest.mark.django_db

PHOTOS_URL = "/api/photos.php"
FREE_LIMIT = "You can upload up to 3 photos. Become a premium member to upload up to 25."
PREMIUM_LIMIT = "You can upload up to 25 photos."


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def anna(site):
    return member_create(site)


@pytest.fixture
def bob(site):
    return member_create(site, email="bob@example.com", name="Bob")


def upload(site, user, **kwargs) -> Photo:
    with on_site(site):
        return photo_upload(site=site, user=user, upload=jpeg_upload(**kwargs))


def api_upload(client, **kwargs):
    return client.post(PHOTOS_URL, {"photo": jpeg_upload(**kwargs)})


# --- Services --------------------------------------------------------------------


def test_first_upload_is_pending_and_becomes_the_main_photo(site, anna):
    photo = upload(site, anna)
    second = upload(site, anna)
    with on_site(site):
        profile = Profile.objects.get(user=anna)
        assert photo.status == second.status == PhotoStatus.PENDING
        assert profile.main_photo_id == photo.pk
        assert photo.image.name.startswith(f"{site.schema_name}/photos/")
        assert photo.thumb.name.startswith(f"{site.schema_name}/photos/thumbs/")
        assert default_storage.exists(photo.image.name) and default_storage.exists(photo.thumb.name)


def test_upload_is_active_when_the_site_approves_automatically(site, anna):
    site.auto_approve_photos = True
    assert upload(site, anna).status == PhotoStatus.ACTIVE


def test_free_member_may_have_three_photos(site, anna):
    for _ in range(3):
        upload(site, anna)
    with pytest.raises(ApplicationError) as error:
        upload(site, anna)
    assert error.value.code == "photo_limit"
    assert error.value.message == FREE_LIMIT
    with on_site(site):
        assert Photo.objects.filter(profile__user=anna).count() == 3


def test_premium_member_may_have_twenty_five_photos(site, anna):
    anna.paid_user = True
    with on_site(site):
        profile = Profile.objects.get(user=anna)
        Photo.objects.bulk_create(
            Photo(profile=profile, image=f"x{i}.jpg", thumb=f"t{i}.jpg", width=1, height=1, status=PhotoStatus.ACTIVE)
            for i in range(24)
        )
    upload(site, anna)
    with pytest.raises(ApplicationError) as error:
        upload(site, anna)
    assert error.value.message == PREMIUM_LIMIT


def test_rejected_photos_do_not_count(site, anna):
    for _ in range(3):
        upload(site, anna)
    with on_site(site):
        Photo.objects.filter(profile__user=anna).update(status=PhotoStatus.REJECTED)
    fourth = upload(site, anna)  # a free member's limit is 3: the rejected ones left room
    with on_site(site):
        kept = Photo.objects.filter(profile__user=anna).exclude(status=PhotoStatus.REJECTED)
        assert list(kept.values_list("pk", flat=True)) == [fourth.pk]
        assert Photo.objects.filter(profile__user=anna, status=PhotoStatus.REJECTED).count() == 3


def test_two_uploads_at_once_cannot_pass_the_limit(site, anna):
    """Both pass the cheap check before decoding; the count under the profile lock stops
    the one that comes second (here: another upload finishes while this one decodes)."""
    upload(site, anna)
    upload(site, anna)
    real_process = images.process_upload
    raced = []

    def process_and_race(file_obj, **kwargs):
        if not raced:
            raced.append(True)
            photo_upload(site=site, user=anna, upload=jpeg_upload())  # The parallel upload.
        return real_process(file_obj, **kwargs)

    with on_site(site), mock.patch.object(photo_services, "process_upload", side_effect=process_and_race):
        with pytest.raises(ApplicationError) as error:
            photo_upload(site=site, user=anna, upload=jpeg_upload())
        assert error.value.code == "photo_limit"
        assert Photo.objects.filter(profile__user=anna).count() == 3


def test_the_count_is_taken_under_a_lock_on_the_profile(site, anna):
    with on_site(site), mock.patch.object(photo_services, "_profile_for", wraps=photo_services._profile_for) as spy:
        photo_upload(site=site, user=anna, upload=jpeg_upload())
    assert [call.kwargs.get("lock", False) for call in spy.call_args_list] == [False, True]


def test_rejected_image_raises_its_message(site, anna):
    with on_site(site), pytest.raises(images.ImageRejected) as error:
        photo_upload(site=site, user=anna, upload=jpeg_upload(width=100, height=100))
    assert error.value.code == "too_small"
    assert "at least 200 pixels" in error.value.message


def test_main_photo_can_be_changed(site, anna):
    first, second = upload(site, anna), upload(site, anna)
    with on_site(site):
        photo_set_main(user=anna, photo_id=second.pk)
        assert Profile.objects.get(user=anna).main_photo_id == second.pk
    assert first.pk != second.pk


def test_delete_removes_the_row_and_the_files(site, anna, django_capture_on_commit_callbacks):
    photo = upload(site, anna)
    with on_site(site):
        assert default_storage.exists(photo.image.name)
        with django_capture_on_commit_callbacks(execute=True):
            photo_delete(site=site, user=anna, photo_id=photo.pk)
        assert not Photo.objects.filter(pk=photo.pk).exists()
        assert not default_storage.exists(photo.image.name)
        assert not default_storage.exists(photo.thumb.name)
        assert Profile.objects.get(user=anna).main_photo_id is None


def test_deleting_the_main_photo_makes_an_approved_one_main(site, anna, django_capture_on_commit_callbacks):
    main, pending, active = upload(site, anna), upload(site, anna), upload(site, anna)
    with on_site(site):
        Photo.objects.filter(pk=active.pk).update(status=PhotoStatus.ACTIVE)
        with django_capture_on_commit_callbacks(execute=True):
            photo_delete(site=site, user=anna, photo_id=main.pk)
        assert Profile.objects.get(user=anna).main_photo_id == active.pk
    assert pending.pk


def test_another_members_photo_is_not_found(site, anna, bob):
    photo = upload(site, bob)
    with on_site(site):
        for call in (photo_set_main, partial(photo_delete, site=site)):
            with pytest.raises(ApplicationError) as error:
                call(user=anna, photo_id=photo.pk)
            assert error.value.status_code == 404
        assert Photo.objects.filter(pk=photo.pk).exists()


# --- Visibility ---------------------------------------------------------------------


def test_owner_sees_all_own_photos_others_only_approved(site, anna, bob):
    pending, active = upload(site, anna), upload(site, anna)
    with on_site(site):
        Photo.objects.filter(pk=active.pk).update(status=PhotoStatus.ACTIVE)
        profile = Profile.objects.get(user=anna)
        assert list(photos_visible_to(anna, profile).values_list("pk", flat=True)) == [pending.pk, active.pk]
        assert list(photos_visible_to(bob, profile).values_list("pk", flat=True)) == [active.pk]
        from django.contrib.auth.models import AnonymousUser

        assert list(photos_visible_to(AnonymousUser(), profile).values_list("pk", flat=True)) == [active.pk]


def test_photo_files_are_served_to_others_only_when_approved(site, client_for, anna, bob):
    pending, active = upload(site, anna), upload(site, anna)
    with on_site(site):
        Photo.objects.filter(pk=active.pk).update(status=PhotoStatus.ACTIVE)
    owner, other, visitor = logged_in(site, client_for, anna), logged_in(site, client_for, bob), client_for(site)
    for client in (owner, other, visitor):
        response = client.get(active.thumb.url)
        assert response.status_code == 200
        assert response["Content-Type"] == "image/jpeg"
        assert b"".join(response.streaming_content)[:3] == b"\xff\xd8\xff"
    assert owner.get(pending.thumb.url).status_code == 200
    assert owner.get(pending.image.url).status_code == 200
    assert other.get(pending.thumb.url).status_code == 404
    assert visitor.get(pending.image.url).status_code == 404


def test_photo_files_of_another_site_are_not_served(two_sites, client_for):
    site, gay_site = two_sites
    site.auto_approve_photos = True
    anna = member_create(site)
    photo = upload(site, anna)
    assert photo.status == PhotoStatus.ACTIVE
    assert client_for(site).get(photo.thumb.url).status_code == 200
    assert client_for(gay_site).get(photo.thumb.url).status_code == 404
    # Not a photo row, or a path outside the photos: never served.
    assert client_for(site).get(f"/media/{site.schema_name}/photos/nothing.jpg").status_code == 404
    assert client_for(site).get(f"/media/{site.schema_name}/photos/../photos/x.jpg").status_code == 404


# --- API --------------------------------------------------------------------------


def test_api_upload_list_main_and_delete(site, client_for, anna, django_capture_on_commit_callbacks):
    client = logged_in(site, client_for, anna)
    first = api_upload(client)
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["photo_count"] == 1 and body["photo_limit"] == 3
    assert body["photos"][0]["status"] == "pending"
    assert body["photos"][0]["status_label"] == "Waiting for approval"
    assert body["photos"][0]["main"] is True
    second = api_upload(client).json()["photo"]

    response = client.post(f"{PHOTOS_URL}?main={second}")
    assert response.status_code == 200
    assert response.json()["main_photo"] == second

    with on_site(site):
        stored = Photo.objects.get(pk=second)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(PHOTOS_URL, {"photo": second}, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["message"] == "Picture deleted."
    assert [photo["id"] for photo in response.json()["photos"]] == [body["photo"]]
    assert response.json()["main_photo"] == body["photo"]
    with on_site(site):
        assert not default_storage.exists(stored.image.name)
    assert client.get(PHOTOS_URL).json()["photo_count"] == 1


def test_api_limit_message(site, client_for, anna):
    client = logged_in(site, client_for, anna)
    for _ in range(3):
        assert api_upload(client).status_code == 201
    response = api_upload(client)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "photo_limit"
    assert response.json()["error"]["message"] == FREE_LIMIT


def test_a_member_who_bought_credits_gets_twenty_five_photos(site, client_for, anna):
    """Premium is `paid_user`, set for good by the first purchase (apps.payments): the API,
    the profile page and the upload limit all follow the stored flag."""
    client = logged_in(site, client_for, anna)
    assert client.get(PHOTOS_URL).json()["photo_limit"] == 3
    with on_site(site):
        User.objects.filter(pk=anna.pk).update(paid_user=True, premium_since=timezone.now())
    assert client.get(PHOTOS_URL).json()["photo_limit"] == 25
    assert 'data-testid="photo-count">(0/25)<' in client.get("/profile").content.decode()
    for _ in range(4):
        assert api_upload(client).status_code == 201
    assert client.get(PHOTOS_URL).json()["photo_count"] == 4


def test_api_shows_image_rejected_messages(site, client_for, anna):
    client = logged_in(site, client_for, anna)
    with Path(__file__).open("rb") as not_a_picture:
        response = client.post(PHOTOS_URL, {"photo": not_a_picture})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "not_an_image",
        "message": "This file is not a picture. Upload a JPEG, PNG or WebP photo.",
    }
    response = client.post(PHOTOS_URL, {})
    assert response.json()["error"]["fields"] == {"photo": ["Choose a photo to upload."]}


def test_api_another_members_photo_is_404(site, client_for, anna, bob):
    photo = upload(site, bob)
    client = logged_in(site, client_for, anna)
    assert client.post(f"{PHOTOS_URL}?main={photo.pk}").status_code == 404
    assert client.post(f"{PHOTOS_URL}?main=nonsense").status_code == 404
    assert client.delete(PHOTOS_URL, {"photo": photo.pk}, content_type="application/json").status_code == 404
    with on_site(site):
        assert Photo.objects.filter(pk=photo.pk).exists()


def test_api_photo_id_of_another_site_is_404(two_sites, client_for):
    site, gay_site = two_sites
    anna = member_create(site)
    photo = upload(site, anna)
    gay_anna = member_create(gay_site, email="anna@example.com", name="Anna")
    client = logged_in(gay_site, client_for, gay_anna)
    with on_site(gay_site):
        assert not Photo.objects.filter(pk=photo.pk).exists()
    assert client.post(f"{PHOTOS_URL}?main={photo.pk}").status_code == 404
    assert client.delete(PHOTOS_URL, {"photo": photo.pk}, content_type="application/json").status_code == 404
    with on_site(site):
        assert Photo.objects.filter(pk=photo.pk).exists()


def test_api_needs_login(site, client_for):
    response = client_for(site).get(PHOTOS_URL)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "authentication_required"
