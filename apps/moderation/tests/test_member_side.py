"""What members see of moderation: a waiting photo only its member sees (badge), never
others, in any list; a rejected one its member sees with the reason in their language;
an approved one everyone sees. And what a complaint may name: only a photo others may
see and only a message of the reporter's own conversations."""

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.html import escape

from apps.chat.tests.helpers import credits_give, send
from apps.moderation.models import ComplaintCase, PhotoReview
from apps.moderation.services import photo_decide
from apps.moderation.tests.helpers import person, upload
from apps.profiles.models import Complaint, PhotoRejectionReason, PhotoStatus
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


def _decide(site, photo, decision, reason=""):
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    return photo_decide(review_id=review.pk, actor=staff_member("support"), decision=decision, reason=reason)


def _seen_by_others(site, client_for, profile, photo) -> dict[str, bool]:
    """Where another member (and a visitor) might meet the photo."""
    viewer = logged_in(site, client_for, person(site, "Viewer"))
    page = viewer.get(f"/members/{profile.pk}").content.decode()
    search = viewer.get("/api/search.php?gender=female&country=GB&per_page=100").json()
    cards = {card["id"]: card for card in search["results"]}
    card = cards.get(profile.pk)
    return {
        "profile page": photo.thumb.url in page or photo.image.url in page,
        "share preview": f'content="http://localhost{photo.image.url}"' in page,
        "search card": bool(card and card["main_image"] and photo.thumb.url in card["main_image"]["thumb_filename"]),
        "file for a member": viewer.get(photo.thumb.url).status_code == 200,
        "file for a visitor": client_for(site).get(photo.image.url).status_code == 200,
    }


def test_a_waiting_photo_is_seen_by_its_member_only(site, client_for):
    anna = person(site)
    photo = upload(site, anna)
    assert _seen_by_others(site, client_for, anna, photo) == dict.fromkeys(
        ["profile page", "share preview", "search card", "file for a member", "file for a visitor"], False
    )
    own = logged_in(site, client_for, anna)
    html = own.get("/profile").content.decode()
    assert f'data-photo-id="{photo.pk}" data-status="pending"' in html
    assert "Waiting for approval" in html and 'data-testid="photo-pending-note"' in html
    assert own.get(photo.thumb.url).status_code == 200


def test_an_approved_photo_is_seen_by_everyone(site, client_for):
    anna = person(site)
    photo = upload(site, anna)
    _decide(site, photo, "approved")
    seen = _seen_by_others(site, client_for, anna, photo)
    assert all(seen.values()), seen


def test_a_rejected_photo_shows_its_member_the_reason_in_their_language(site, client_for):
    anna = person(site)
    photo = upload(site, anna)
    _decide(site, photo, "rejected", PhotoRejectionReason.NO_FACE)
    assert not any(_seen_by_others(site, client_for, anna, photo).values())
    own = logged_in(site, client_for, anna)
    own.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = own.get("/profile").content.decode()
    with translation.override("fr"):
        reason, rejected = str(PhotoRejectionReason.NO_FACE.label), str(PhotoStatus.REJECTED.label)
    assert rejected == "Refusé"
    assert reason.startswith("Votre visage")  # the French catalogue, not the English text
    assert f'data-testid="photo-status">{escape(rejected)}<' in html
    assert f'data-testid="photo-rejection-reason">{escape(reason)}<' in html
    answer = own.get("/api/photos.php").json()
    (payload,) = answer["photos"]
    assert (payload["status"], payload["rejection_reason"]) == ("rejected", "no_face")
    assert payload["rejection_reason_label"] == reason
    # The member may delete it; it leaves the decided list too.
    own.post("/profile", {"action": "photo_delete", "photo": photo.pk})
    assert not PhotoReview.objects.filter(site=site, photo_id=photo.pk).exists()


def test_the_main_photo_others_see_is_never_a_waiting_one(site, client_for):
    anna = person(site)
    first = upload(site, anna)
    second = upload(site, anna, colour=(1, 200, 1))
    _decide(site, second, "approved")  # the pending main photo gives way to the approved one
    viewer = logged_in(site, client_for, person(site, "Viewer"))
    search = viewer.get("/api/search.php?gender=female&country=GB&per_page=100").json()
    card = next(card for card in search["results"] if card["id"] == anna.pk)
    assert second.thumb.url in card["main_image"]["thumb_filename"]
    assert first.thumb.url not in viewer.get(f"/members/{anna.pk}").content.decode()


# --- What a complaint may name ---------------------------------------------------------------


def _chat(site):
    rita, sam = person(site, "Rita"), person(site, "Sam")
    credits_give(site, sam.user, 50)
    credits_give(site, rita.user, 50)
    _conversation, from_sam = send(site, sam, rita, text="You are <b>ugly</b>")
    _conversation, from_rita = send(site, rita, sam, text="Stop it")
    return rita, sam, from_sam, from_rita


def _post(client, **data):
    return client.post("/complaints", {"reason": "harassment", "text": "Insults", "email": "", **data})


def test_a_member_reports_a_message_of_their_conversation(site, client_for):
    rita, sam, from_sam, _from_rita = _chat(site)
    client = logged_in(site, client_for, rita)
    page = client.get(f"/complaints?message={from_sam.pk}").content.decode()
    assert 'data-testid="complaint-about-message"' in page
    assert "You are &lt;b&gt;ugly&lt;/b&gt;" in page and "<b>ugly</b>" not in page
    assert f"About: {sam.name}" in page
    response = _post(client, message=from_sam.pk)
    assert response.status_code == 200
    with on_site(site):
        complaint = Complaint.objects.get(reporter=rita.user)
    assert (complaint.message_id, complaint.profile_id) == (from_sam.pk, sam.pk)
    assert ComplaintCase.objects.get(site=site, complaint_id=complaint.pk).message_id == from_sam.pk


@pytest.mark.parametrize("case", ["own message", "not a participant", "unknown", "other profile", "visitor"])
def test_a_message_the_reporter_may_not_name_is_400(site, client_for, case):
    rita, _sam, from_sam, from_rita = _chat(site)
    outsider = person(site, "Out")
    client = {
        "own message": lambda: logged_in(site, client_for, rita),
        "not a participant": lambda: logged_in(site, client_for, outsider),
        "unknown": lambda: logged_in(site, client_for, rita),
        "other profile": lambda: logged_in(site, client_for, rita),
        "visitor": lambda: client_for(site),
    }[case]()
    data = {
        "own message": {"message": from_rita.pk},
        "not a participant": {"message": from_sam.pk},
        "unknown": {"message": 2**40},
        "other profile": {"message": from_sam.pk, "profile": outsider.pk},
        "visitor": {"message": from_sam.pk, "email": "v@example.com"},
    }[case]
    response = _post(client, **data)
    assert response.status_code == 400
    assert "This message could not be found." in response.content.decode()
    assert "ugly" not in response.content.decode()  # nothing of the message leaks
    with on_site(site):
        assert not Complaint.objects.exists()


def test_a_photo_named_must_be_one_others_may_see(site, client_for):
    rita, anna = person(site, "Rita"), person(site)
    waiting, shown = upload(site, anna), upload(site, anna, colour=(3, 3, 3))
    _decide(site, shown, "approved")
    client = logged_in(site, client_for, rita)
    for photo_id in (waiting.pk, 2**40, "x1"):
        response = _post(client, profile=anna.pk, photo=photo_id)
        assert response.status_code == 400
    assert "This photo could not be found." in _post(client, profile=anna.pk, photo=waiting.pk).content.decode()
    page = client.get(f"/complaints?profile={anna.pk}&photo={shown.pk}").content.decode()
    assert 'data-testid="complaint-about-photo"' in page
    assert _post(client, profile=anna.pk, photo=shown.pk).status_code == 200
    with on_site(site):
        assert Complaint.objects.get(reporter=rita.user).photo_id == shown.pk
    # The profile page offers to report each photo.
    assert (
        f'href="/complaints?profile={anna.pk}&amp;photo={shown.pk}"'
        in client.get(f"/members/{anna.pk}").content.decode()
    )
