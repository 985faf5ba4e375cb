"""A member learns what happened to their photo: a rejected photo becomes a notice (by
e-mail and push under the member's "photo_decisions" preferences, and on the site until
dismissed) with the reason in the member's language and a link to their photos; and a
waiting photo chosen as main photo leaves the previous approved one in front of others
until it is approved, never "no photo"."""

import pytest
from django.conf import settings
from django.core import mail
from django.utils import translation
from django.utils.html import escape

from apps.accounts.models import User
from apps.moderation.models import PhotoReview
from apps.moderation.services import photo_decide
from apps.moderation.tests.helpers import person, upload
from apps.notifications.models import Notice
from apps.profiles.models import PhotoRejectionReason, Profile, photo_fix_hint
from apps.profiles.services.photos import photo_delete, photo_set_main
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _commits(django_capture_on_commit_callbacks):
    global _on_commit
    _on_commit = django_capture_on_commit_callbacks


def _decide(site, photo, decision, reason=""):
    """Support decides from the operators' host (the public schema); the notice's task is
    queued once the decision commits, as in production."""
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    with _on_commit(execute=True):
        return photo_decide(review_id=review.pk, actor=staff_member("support"), decision=decision, reason=reason)


def _mails_to(profile) -> list:
    return [message for message in mail.outbox if profile.user.email in message.to]


def test_a_member_learns_what_happened_to_their_photo(site, client_for):
    anna = person(site)
    with on_site(site):
        User.objects.filter(pk=anna.user_id).update(language="fr")
    photo = upload(site, anna)
    mail.outbox.clear()
    _decide(site, photo, "rejected", PhotoRejectionReason.NO_FACE)
    with translation.override("fr"):
        reason = str(PhotoRejectionReason.NO_FACE.label)
        hint = photo_fix_hint(PhotoRejectionReason.NO_FACE)
    assert reason != "Your face cannot be seen" and hint != photo_fix_hint(PhotoRejectionReason.NO_FACE)  # French
    (message,) = _mails_to(anna)
    body = message.body
    assert reason in body and hint in body
    assert "/profile#photos" in body
    with on_site(site):
        (notice,) = Notice.objects.filter(user_id=anna.user_id, kind="photo_decisions")
    assert notice.state == "sent" and notice.items[0]["ph"] == photo.pk

    # On the site too, in the member's language, until dismissed.
    own = logged_in(site, client_for, anna)
    own.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    page = own.get("/members").content.decode()
    assert 'data-testid="photo-rejected-alert"' in page
    assert escape(reason) in page and escape(hint) in page and 'href="/profile#photos"' in page
    assert own.post("/api/dismiss.php", {"alert": "photo_rejected"}, content_type="application/json").status_code == 200
    assert 'data-testid="photo-rejected-alert"' not in own.get("/members").content.decode()
    # The next rejection brings it back.
    second = upload(site, anna, colour=(10, 10, 200))
    _decide(site, second, "rejected", PhotoRejectionReason.QUALITY)
    assert 'data-testid="photo-rejected-alert"' in own.get("/members").content.decode()


def test_an_approved_photo_makes_no_notice(site, client_for):
    anna = person(site)
    photo = upload(site, anna)
    mail.outbox.clear()
    _decide(site, photo, "approved")
    assert _mails_to(anna) == []
    with on_site(site):
        assert not Notice.objects.filter(user_id=anna.user_id, kind="photo_decisions").exists()
    page = logged_in(site, client_for, anna).get("/members").content.decode()
    assert 'data-testid="photo-rejected-alert"' not in page


def test_a_member_who_turned_photo_notices_off_gets_no_mail(site):
    anna = person(site)
    with on_site(site):
        user = User.objects.get(pk=anna.user_id)
        user.email_notifications = [kind for kind in user.email_notifications if kind != "photo_decisions"]
        user.save(update_fields=["email_notifications"])
    photo = upload(site, anna)
    mail.outbox.clear()
    _decide(site, photo, "rejected", PhotoRejectionReason.QUALITY)
    assert _mails_to(anna) == []


def test_a_photo_deleted_before_the_notice_is_sent_is_not_told(site, settings):
    settings.NOTICE_DELAY_EMAIL = 60  # the notice waits; the member deletes the photo first
    anna = person(site)
    photo = upload(site, anna)
    mail.outbox.clear()
    _decide(site, photo, "rejected", PhotoRejectionReason.QUALITY)
    with on_site(site):
        photo_delete(site=site, user=anna.user, photo_id=photo.pk)
        from apps.notifications import sending

        (notice,) = Notice.objects.filter(user_id=anna.user_id, kind="photo_decisions")
        Notice.objects.filter(pk=notice.pk).update(due_at=notice.created)
        sending.notice_send(notice.pk)
        notice.refresh_from_db()
    assert notice.state == "skipped" and _mails_to(anna) == []


def _seen_main(site, client_for, profile) -> str:
    viewer = logged_in(site, client_for, person(site, "Viewer"))
    search = viewer.get("/api/search.php?gender=female&country=GB&per_page=100").json()
    card = next(card for card in search["results"] if card["id"] == profile.pk)
    return (card["main_image"] or {}).get("thumb_filename") or ""


def test_a_waiting_main_photo_leaves_the_approved_one_in_front_of_others(site, client_for):
    anna = person(site)
    first = upload(site, anna)
    _decide(site, first, "approved")
    second = upload(site, anna, colour=(1, 200, 1))
    own = logged_in(site, client_for, anna)
    assert own.post("/profile", {"action": "photo_main", "photo": second.pk}).status_code in (200, 302)
    # The member sees their choice; others still see the approved photo, never "no photo".
    assert own.get("/api/photos.php").json()["main_photo"] == second.pk
    page = own.get("/profile").content.decode()
    assert 'data-testid="photo-main-waiting"' in page
    assert first.thumb.url in _seen_main(site, client_for, anna)
    # Approved: it becomes the main photo for everyone.
    _decide(site, second, "approved")
    assert second.thumb.url in _seen_main(site, client_for, anna)
    with on_site(site):
        assert Profile.objects.get(pk=anna.pk).main_photo_waiting_id is None


def test_a_rejected_waiting_main_photo_leaves_the_approved_one(site, client_for):
    anna = person(site)
    first = upload(site, anna)
    _decide(site, first, "approved")
    second = upload(site, anna, colour=(1, 200, 1))
    with on_site(site):
        photo_set_main(user=anna.user, photo_id=second.pk)
    _decide(site, second, "rejected", PhotoRejectionReason.QUALITY)
    assert first.thumb.url in _seen_main(site, client_for, anna)
    with on_site(site):
        profile = Profile.objects.get(pk=anna.pk)
    assert (profile.main_photo_id, profile.main_photo_waiting_id) == (first.pk, None)
    assert logged_in(site, client_for, anna).get("/api/photos.php").json()["main_photo"] == first.pk


def test_deleting_the_waiting_main_photo_keeps_the_approved_one(site, client_for):
    anna = person(site)
    first = upload(site, anna)
    _decide(site, first, "approved")
    second = upload(site, anna, colour=(1, 200, 1))
    with on_site(site):
        photo_set_main(user=anna.user, photo_id=second.pk)
        photo_delete(site=site, user=anna.user, photo_id=second.pk)
        profile = Profile.objects.get(pk=anna.pk)
    assert (profile.main_photo_id, profile.main_photo_waiting_id) == (first.pk, None)
