"""A member learns support's decision on their verification request: verified, or not
with the reason and how to take the next selfie, by e-mail and push under their
"photo_decisions" preferences (in their language) and on the site until dismissed, like a
rejected photo (test_photo_outcome.py). A member who asked again before the notice went
out hears nothing about the old decision."""

import pytest
from django.conf import settings
from django.core import mail
from django.utils import translation
from django.utils.html import escape

from apps.accounts.models import User
from apps.moderation.models import VerificationReview
from apps.moderation.services import verification_decide
from apps.moderation.tests.helpers import person, upload
from apps.notifications.models import Notice
from apps.profiles.models import Photo, PhotoStatus, VerificationRejectionReason, verification_fix_hint
from apps.profiles.services.verification import verification_request
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db

ALERT = 'data-testid="verification-decided-alert"'


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _language_kept():
    """The member's French pages leave French active in this thread: the tests after these
    get the language they started with."""
    language = translation.get_language()
    yield
    translation.activate(language)


def _asking(site, language: str = "en"):
    """A member with an approved photo who sent a selfie."""
    profile = person(site)
    photo = upload(site, profile)
    with on_site(site):
        Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
        User.objects.filter(pk=profile.user_id).update(language=language)
        verification_request(site=site, user=profile.user, pose="peace", upload=jpeg_upload(colour=(5, 5, 5)))
    return profile


def _decide(site, profile, decision, capture, reason=""):
    """Support decides from the operators' host; the notice's task runs once it commits."""
    review = VerificationReview.objects.get(site=site, profile_id=profile.pk, decision="pending")
    with capture(execute=True):
        return verification_decide(review_id=review.pk, actor=staff_member("support"), decision=decision, reason=reason)


def _mails_to(profile) -> list:
    return [message for message in mail.outbox if profile.user.email in message.to]


def test_a_verified_member_hears_it_by_mail_and_on_the_site(site, client_for, django_capture_on_commit_callbacks):
    anna = _asking(site)
    mail.outbox.clear()
    _decide(site, anna, "approved", django_capture_on_commit_callbacks)
    (message,) = _mails_to(anna)
    assert "You are verified" in message.subject
    assert "Support checked your photos against a selfie." in message.body
    assert "/profile#verification" in message.body
    with on_site(site):
        (notice,) = Notice.objects.filter(user_id=anna.user_id, kind="photo_decisions", channel="email")
    assert notice.state == "sent" and notice.items[0]["s"] == "approved"

    own = logged_in(site, client_for, anna)
    page = own.get("/members").content.decode()
    assert ALERT in page and 'data-state="approved"' in page and 'href="/profile#verification"' in page
    # Not where the verification's state is shown anyway.
    assert ALERT not in own.get("/profile").content.decode()
    dismissed = own.post("/api/dismiss.php", {"alert": "verification_decided"}, content_type="application/json")
    assert dismissed.status_code == 200
    assert ALERT not in own.get("/members").content.decode()


def test_a_member_not_verified_hears_the_reason_and_how_to_retry_in_their_language(
    site, client_for, django_capture_on_commit_callbacks
):
    anna = _asking(site, language="fr")
    mail.outbox.clear()
    _decide(site, anna, "rejected", django_capture_on_commit_callbacks, VerificationRejectionReason.QUALITY)
    with translation.override("fr"):
        reason = str(VerificationRejectionReason.QUALITY.label)
        hint = verification_fix_hint(VerificationRejectionReason.QUALITY)
        title = translation.gettext("You were not verified")
    assert hint != verification_fix_hint(VerificationRejectionReason.QUALITY)  # French, not English
    (message,) = _mails_to(anna)
    assert title in message.subject and reason in message.body and hint in message.body
    assert "/profile/verify" in message.body

    own = logged_in(site, client_for, anna)
    own.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    page = own.get("/members").content.decode()
    assert ALERT in page and 'data-state="rejected"' in page
    assert escape(reason) in page and escape(hint) in page and 'href="/profile/verify"' in page
    own.post("/api/dismiss.php", {"alert": "verification_decided"}, content_type="application/json")
    assert ALERT not in own.get("/members").content.decode()
    # The next decision brings it back.
    with on_site(site):
        verification_request(site=site, user=anna.user, pose="thumbs_up", upload=jpeg_upload(colour=(9, 9, 9)))
    assert ALERT not in own.get("/members").content.decode()  # waiting: nothing decided yet
    _decide(site, anna, "approved", django_capture_on_commit_callbacks)
    assert 'data-state="approved"' in own.get("/members").content.decode()


def test_a_member_who_turned_photo_notices_off_gets_no_mail(site, django_capture_on_commit_callbacks):
    anna = _asking(site)
    with on_site(site):
        user = User.objects.get(pk=anna.user_id)
        user.email_notifications = [kind for kind in user.email_notifications if kind != "photo_decisions"]
        user.save(update_fields=["email_notifications"])
    mail.outbox.clear()
    _decide(site, anna, "rejected", django_capture_on_commit_callbacks, VerificationRejectionReason.POSE)
    assert _mails_to(anna) == []


def test_a_member_who_asked_again_before_the_notice_went_out_is_not_told_the_old_decision(
    site, settings, django_capture_on_commit_callbacks
):
    settings.NOTICE_DELAY_EMAIL = 60  # the notice waits; the member sends a new selfie first
    anna = _asking(site)
    mail.outbox.clear()
    _decide(site, anna, "rejected", django_capture_on_commit_callbacks, VerificationRejectionReason.FACE)
    with on_site(site):
        verification_request(site=site, user=anna.user, pose="thumbs_up", upload=jpeg_upload(colour=(9, 9, 9)))
        from apps.notifications import sending

        (notice,) = Notice.objects.filter(user_id=anna.user_id, kind="photo_decisions", channel="email")
        Notice.objects.filter(pk=notice.pk).update(due_at=notice.created)
        sending.notice_send(notice.pk)
        notice.refresh_from_db()
    assert notice.state == "skipped" and _mails_to(anna) == []
