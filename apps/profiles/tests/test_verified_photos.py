"""Verified photos: a member asks to be verified with a selfie in a random drawn pose;
the selfie is kept privately (never served to members, out of others' exports), enters
the verification queue beside the member's photos and is deleted after the decision
(kept 30 days after a rejection, then purged by the beat task). Verified members carry a
"verified" badge on cards and profile, which goes when the main photo changes to one not
checked; search and the swipe game can be limited to verified members."""

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.services.export import member_export_build
from apps.moderation.models import VerificationReview
from apps.moderation.services import verification_decide
from apps.moderation.tests.helpers import person, upload
from apps.profiles.models import Photo, PhotoStatus, Profile, Verification, VerificationStatus
from apps.profiles.poses import POSES
from apps.profiles.services.photos import photo_set_main
from apps.profiles.services.verification import selfie_storage, verification_selfies_purge
from apps.profiles.tasks import verification_selfies_purge as purge_task
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db

SEARCH = "/api/search.php?gender=female&country=GB&per_page=100"


@pytest.fixture(autouse=True)
def _files_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


def _selfie_file(name: str) -> Path:
    """Where the private storage keeps a selfie: outside the public media."""
    return Path(selfie_storage().path(name))


def _approved(site, profile, colour=(200, 80, 120)) -> Photo:
    photo = upload(site, profile, colour=colour)
    with on_site(site):
        Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
        Profile.objects.filter(pk=profile.pk, main_photo__isnull=True).update(main_photo=photo)
        photo.refresh_from_db()
    return photo


def _ask(client, upload=None):
    page = client.get("/profile/verify")
    assert page.status_code == 200
    return client.post("/profile/verify", {"selfie": upload if upload is not None else jpeg_upload(colour=(9, 9, 9))})


def _decide(site, profile, decision, reason=""):
    review = VerificationReview.objects.get(site=site, profile_id=profile.pk, decision="pending")
    return verification_decide(review_id=review.pk, actor=staff_member("support"), decision=decision, reason=reason)


def _card(client, profile, params=""):
    results = client.get(SEARCH + params).json()["results"]
    return next((card for card in results if card["id"] == profile.pk), None)


def _verified_note(card) -> bool:
    return any(note["kind"] == "verified" for note in card["notes"])


def test_verified_photos(site, client_for, settings, django_capture_on_commit_callbacks):
    anna = person(site)
    photo = _approved(site, anna)
    own = logged_in(site, client_for, anna)
    page = own.get("/profile/verify").content.decode()
    # A random drawn pose with its description as the drawing's text alternative.
    pose = page.split('data-pose="')[1].split('"')[0]
    assert pose in POSES and f'alt="{POSES[pose]}"' in page
    assert 'accept="image/*" capture="user"' in page
    assert own.post("/profile/verify", {"selfie": jpeg_upload(colour=(9, 9, 9))}).status_code == 302
    with on_site(site):
        verification = Verification.objects.get(profile=anna)
    assert (verification.status, verification.pose) == (VerificationStatus.PENDING, pose)
    selfie = _selfie_file(verification.selfie.name)
    assert selfie.is_file() and not selfie.is_relative_to(settings.MEDIA_ROOT)
    assert selfie.is_relative_to(settings.PRIVATE_MEDIA_ROOT)
    assert 'data-state="waiting"' in own.get("/profile/verify").content.decode()
    # Never served to members: no media route reaches the private storage.
    assert own.get(f"/media/{verification.selfie.name}").status_code == 404
    review = VerificationReview.objects.get(site=site, verification_id=verification.pk)
    assert (review.pose, review.member_id, review.decision) == (pose, anna.user_id, "pending")

    viewer = logged_in(site, client_for, person(site, "Viewer", gender="male", sexuality="hetero"))
    other = person(site, "Other")
    _approved(site, other, colour=(50, 50, 50))
    assert not _verified_note(_card(viewer, anna))

    with django_capture_on_commit_callbacks(execute=True):  # the file goes once the decision commits
        _decide(site, anna, "approved")
    with on_site(site):
        verification.refresh_from_db()
        photo.refresh_from_db()
    assert verification.status == VerificationStatus.APPROVED and photo.verified
    assert verification.selfie.name == "" and not selfie.exists()  # deleted after the decision
    # The badge, in words, on the card and on the profile.
    card = _card(viewer, anna)
    assert _verified_note(card)
    assert next(note for note in card["notes"] if note["kind"] == "verified")["text"] == "Verified photos"
    profile_page = viewer.get(f"/members/{anna.pk}").content.decode()
    assert 'data-testid="profile-note-verified"' in profile_page and "Verified photos" in profile_page
    # Search and the swipe game limited to verified members.
    assert _card(viewer, anna, "&verified=1") is not None
    assert _card(viewer, other, "&verified=1") is None and _card(viewer, other) is not None
    assert viewer.get(SEARCH + "&verified=1").json()["filters"]["verified"] == "1"
    deck = {card["id"] for card in viewer.get("/api/swipe.php?verified=1").json()["deck"]}
    assert anna.pk in deck and other.pk not in deck
    assert other.pk in {card["id"] for card in viewer.get("/api/swipe.php").json()["deck"]}
    game = viewer.get("/swipe-game?verified=1").content.decode()
    assert 'data-testid="swipe-verified-off"' in game and "/api/swipe.php?verified=1" in game


def test_the_badge_goes_when_the_main_photo_changes_to_one_not_checked(site, client_for):
    anna = person(site)
    _approved(site, anna)
    _ask(logged_in(site, client_for, anna))
    _decide(site, anna, "approved")
    viewer = logged_in(site, client_for, person(site, "Viewer"))
    assert _verified_note(_card(viewer, anna))
    newer = _approved(site, anna, colour=(1, 200, 1))
    assert not newer.verified
    with on_site(site):
        photo_set_main(user=anna.user, photo_id=newer.pk)
    assert not _verified_note(_card(viewer, anna))
    assert _card(viewer, anna, "&verified=1") is None
    own = logged_in(site, client_for, anna).get("/profile").content.decode()
    assert 'data-state="changed"' in own and 'data-testid="verification-ask"' in own


def test_a_rejected_selfie_is_kept_30_days_then_purged(site, client_for):
    anna = person(site)
    _approved(site, anna)
    own = logged_in(site, client_for, anna)
    _ask(own)
    _decide(site, anna, "rejected", "pose")
    with on_site(site):
        verification = Verification.objects.get(profile=anna)
    selfie = _selfie_file(verification.selfie.name)
    assert verification.status == VerificationStatus.REJECTED and selfie.is_file()
    assert timedelta(days=29) < verification.delete_after - timezone.now() <= timedelta(days=30)
    page = own.get("/profile/verify").content.decode()
    assert 'data-state="rejected"' in page and "does not show the pose asked for" in page
    assert 'data-testid="verify-form"' in page  # may try again
    with on_site(site):
        assert verification_selfies_purge() == 0 and selfie.is_file()
        assert verification_selfies_purge(now=timezone.now() + timedelta(days=31)) == 1
        verification.refresh_from_db()
    assert not selfie.exists() and verification.selfie.name == ""
    # The beat entry runs the task on every site.
    entry = django_settings.CELERY_BEAT_SCHEDULE["profiles-verification-selfies-purge"]
    assert entry["task"] == purge_task.name
    assert purge_task.apply().get() == 0


def test_selfies_stay_out_of_exports_of_others(site, client_for):
    """Another member's export never holds a selfie; the member's own holds theirs only
    while it is kept (their own data), never as part of anyone else's."""
    anna, ben = person(site), person(site, "Ben")
    _approved(site, anna)
    _ask(logged_in(site, client_for, anna))
    with on_site(site):
        name = Path(Verification.objects.get(profile=anna).selfie.name).name.encode()
        assert name not in member_export_build(user=ben.user).read()
        assert name in member_export_build(user=anna.user).read()


class TestBadInput:
    def test_not_an_image_is_400_and_nothing_is_written(self, site, client_for):
        anna = person(site)
        _approved(site, anna)
        own = logged_in(site, client_for, anna)
        root = Path(selfie_storage().location)
        before = set(root.rglob("*")) if root.exists() else set()
        fake = io.BytesIO(b"<html>not a picture</html>")
        fake.name = "me.jpg"  # a name and type that lie
        response = _ask(own, fake)
        assert response.status_code == 400 and 'data-testid="verify-error"' in response.content.decode()
        with on_site(site):
            assert not Verification.objects.filter(profile=anna).exists()
        assert not VerificationReview.objects.filter(site=site, profile_id=anna.pk).exists()
        assert (set(root.rglob("*")) if root.exists() else set()) == before

    def test_a_nul_byte_and_a_missing_file_are_400(self, site, client_for):
        anna = person(site)
        _approved(site, anna)
        own = logged_in(site, client_for, anna)
        own.get("/profile/verify")
        assert own.post("/profile/verify", {}).status_code == 400
        nul = io.BytesIO(b"\x00" * 64)
        nul.name = "a\x00.jpg"
        assert own.post("/profile/verify", {"selfie": nul}).status_code == 400

    def test_a_huge_upload_is_400(self, site, client_for, settings):
        anna = person(site)
        _approved(site, anna)
        own = logged_in(site, client_for, anna)
        huge = io.BytesIO(b"\xff\xd8\xff" + b"0" * (10 * 1024 * 1024 + 10))
        huge.name = "huge.jpg"
        response = _ask(own, huge)
        assert 400 <= response.status_code < 500

    def test_without_an_approved_photo_or_twice_is_409(self, site, client_for):
        anna = person(site)
        own = logged_in(site, client_for, anna)
        page = own.get("/profile/verify").content.decode()
        assert 'data-testid="verify-form"' not in page and 'data-testid="verification-needs-photo"' in page
        assert own.post("/profile/verify", {"selfie": jpeg_upload()}).status_code == 400  # no pose shown: start again
        _approved(site, anna)
        assert _ask(own).status_code == 302
        response = own.post("/profile/verify", {"selfie": jpeg_upload()})
        assert response.status_code in (400, 409)
        with on_site(site):
            assert Verification.objects.filter(profile=anna).count() == 1

    def test_bad_filter_values_are_400_in_the_error_shape(self, site, client_for):
        viewer = logged_in(site, client_for, person(site, "Viewer"))
        for url in (SEARCH + "&verified=yes", "/api/swipe.php?verified=%00"):
            response = viewer.get(url)
            assert response.status_code == 400, url
            assert response.json()["error"]["message"]
        assert viewer.get("/swipe-game?verified=2").status_code == 400

    def test_a_visitor_is_sent_to_log_in(self, site, client_for):
        response = client_for(site).get("/profile/verify")
        assert response.status_code == 302 and "/profile/verify" not in response["Location"].split("?")[0]


def test_the_verified_filter_keeps_search_query_counts(site, client_for):
    viewer = logged_in(site, client_for, person(site, "Viewer"))
    for index in range(3):
        _approved(site, person(site, f"P{index}"), colour=(index * 40, 10, 10))

    def queries(url: str) -> int:
        viewer.get(url)
        with CaptureQueriesContext(connection) as captured:
            assert viewer.get(url).status_code == 200
        return len(captured)

    assert queries(SEARCH + "&verified=1") == queries(SEARCH)
