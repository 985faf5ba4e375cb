"""Download my data: a ZIP with data.json and the member's photos, nobody else's."""

import io
import json
import zipfile

import pytest

from apps.accounts.services import export
from apps.accounts.tests.helpers_settings import jpeg, logged_in, member_create, photo_add, push_add

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def anna(site):
    member = member_create(site, invisible=True, email_notifications=["like", "news"])
    photo_add(site, member, name="anna-beach")
    photo_add(site, member, name="anna-city", status="pending")
    push_add(site, member)
    return member


@pytest.fixture
def bob(site):
    member = member_create(site, email="bob@example.com", name="Bob")
    photo_add(site, member, name="bob-secret")
    return member


def download(client):
    return client.post("/notifications/export")


def archive_of(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


class TestExport:
    def test_visitors_are_sent_to_the_login(self, site, client_for):
        response = download(client_for(site))
        assert response.status_code == 302 and response.headers["Location"].startswith("/login?next=")

    def test_only_post_with_csrf(self, site, client_for, anna):
        client = logged_in(site, client_for, anna)
        assert client.get("/notifications/export").status_code == 405
        strict = client_for(site, enforce_csrf_checks=True)
        strict.cookies = client.cookies
        assert download(strict).status_code == 403

    def test_the_zip_has_the_members_data_and_photos_and_nothing_of_others(self, site, client_for, anna, bob):
        response = download(logged_in(site, client_for, anna))
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        assert response["Content-Disposition"].startswith('attachment; filename="heartline-my-data-')
        archive = archive_of(response)
        data = json.loads(archive.read("data.json"))

        account = data["account"]
        assert (account["email"], account["name"], account["date_of_birth"]) == (
            "anna@example.com",
            "Anna",
            "1990-04-05",
        )
        assert (account["language"], account["country"]) == ("en", "GB")
        assert account["signup_date"]
        assert account["settings"]["invisible"] is True
        assert account["settings"]["email_notifications"] == ["like", "news"]
        assert account["tracking"]["network"] == "net-Anna"
        assert len(account["push_subscriptions"]) == 1
        assert data["profile"]["name"] == "Anna" and data["profile"]["about_me"] == "About Anna"
        assert data["profile"]["city"] == "London" and "status" in data["profile"]
        assert sorted((photo["file_name"], photo["status"]) for photo in data["photos"]) == [
            ("anna-beach.jpg", "active"),
            ("anna-city.jpg", "pending"),
        ]
        assert data["messages"] == [] and data["purchases"] == []

        photo_files = sorted(name for name in archive.namelist() if name.startswith("photos/"))
        assert photo_files == sorted(photo["file"] for photo in data["photos"])
        assert archive.read(photo_files[0]) == jpeg()
        everything = b"".join(archive.read(name) for name in archive.namelist() if name.endswith(".json"))
        assert b"bob" not in everything.lower() and b"Bob" not in everything  # no conversation with Bob here
        assert not any("bob" in name for name in archive.namelist())

    def test_other_apps_fill_their_sections(self, site, client_for, anna, bob, monkeypatch):
        def messages_of(user):
            return "messages", [{"to": "Somebody", "text": f"hello from {user.username}"}]

        monkeypatch.setattr(export, "EXPORT_SECTIONS", [*export.EXPORT_SECTIONS, messages_of])
        data = json.loads(archive_of(download(logged_in(site, client_for, anna))).read("data.json"))
        assert data["messages"] == [{"to": "Somebody", "text": "hello from Anna"}]

    def test_data_export_holds_conversations_as_the_member_saw_them_and_devices(self, site, client_for, bob):
        from apps.chat.models import Participant
        from apps.chat.tests.helpers import credits_give, send
        from apps.profiles.models import Profile
        from conftest import on_site

        anna = member_create(site)  # visible (the fixture's Anna is invisible: nobody could write to her)
        push_add(site, anna)
        carl = member_create(site, email="carl@example.com", name="Carl")
        with on_site(site):
            annas, bobs, carls = (Profile.objects.get(user=user) for user in (anna, bob, carl))
        for user in (anna, bob, carl):
            credits_give(site, user, 10)
        conversation, _old = send(site, bobs, annas, "Before Anna cleared the chat")
        with on_site(site):
            Participant.objects.filter(user=anna, conversation=conversation).update(cleared_up_to=_old.pk)
        send(site, annas, bobs, "Hi Bob")
        send(site, bobs, annas, "Hi Anna, Bob here")
        send(site, carls, bobs, "Carl to Bob only")

        data = json.loads(archive_of(download(logged_in(site, client_for, anna))).read("data.json"))
        [chat] = data["conversations"]
        assert chat["conversation"] == conversation.pk and chat["with"] == {"profile": bobs.pk, "name": "Bob"}
        assert [(message["from"], message["text"]) for message in chat["messages"]] == [
            ("me", "Hi Bob"),
            ("them", "Hi Anna, Bob here"),
        ]
        everything = json.dumps(data)
        assert "Carl to Bob only" not in everything and "Before Anna cleared" not in everything
        # The registered devices (push subscriptions), with where they receive pushes.
        [device] = data["account"]["push_subscriptions"]
        assert device["endpoint"].startswith("https://") and device["created"]

    def test_a_few_downloads_an_hour(self, site, client_for, anna):
        client = logged_in(site, client_for, anna)
        for _attempt in range(5):
            assert download(client).status_code == 200
        response = download(client)
        assert response.status_code == 302 and response.headers["Location"] == "/notifications#export-message"
        assert (
            "You have downloaded your data several times in the last hour."
            in client.get("/notifications").content.decode()
        )


def test_the_export_holds_the_members_own_verification_requests_and_kept_selfie_only(site, client_for, anna, bob):
    """Date, state and support's reason of each of the member's requests; their own selfie
    while it is kept (a file in the ZIP, like their photos), none once deleted, and
    nothing of another member's requests."""
    from apps.profiles.models import Photo, PhotoStatus, VerificationRejectionReason
    from apps.profiles.services.verification import verification_moderate, verification_request
    from apps.profiles.tests.helpers import jpeg_upload
    from conftest import on_site

    with on_site(site):
        Photo.objects.filter(profile__user__in=[anna, bob]).update(status=PhotoStatus.ACTIVE)
        verified = verification_request(site=site, user=anna, pose="peace", upload=jpeg_upload(colour=(1, 2, 3)))
        verification_moderate(verification_id=verified.pk, approve=True)  # its selfie is deleted (on commit)
        verified.refresh_from_db()
        rejected = verification_request(site=site, user=anna, pose="touch_ear", upload=jpeg_upload(colour=(4, 5, 6)))
        verification_moderate(verification_id=rejected.pk, approve=False, reason=VerificationRejectionReason.QUALITY)
        rejected.refresh_from_db()
        others = verification_request(site=site, user=bob, pose="peace", upload=jpeg_upload(colour=(7, 8, 9)))
    assert verified.selfie.name == "" and rejected.selfie.name  # kept for an appeal

    archive = archive_of(download(logged_in(site, client_for, anna)))
    data = json.loads(archive.read("data.json"))
    first, second = data["verifications"]
    assert (first["id"], first["status"], first["selfie"], first["rejection_reason"]) == (
        verified.pk,
        "approved",
        None,
        None,
    )
    assert first["created"] and first["decided_at"]
    assert (second["id"], second["status"], second["rejection_reason"]) == (rejected.pk, "rejected", "quality")
    assert second["rejection_reason_text"] == "The selfie is too blurry or dark" and second["decided_at"]
    assert second["selfie"].startswith(f"verification/{rejected.pk}-")
    selfies = [name for name in archive.namelist() if name.startswith("verification/")]
    assert selfies == [second["selfie"]]
    assert archive.read(second["selfie"])[:3] == b"\xff\xd8\xff"  # the kept JPEG itself
    assert others.pk not in {request["id"] for request in data["verifications"]}
    assert not any(str(others.pk) in name.split("/")[-1].split("-")[0] for name in selfies)
