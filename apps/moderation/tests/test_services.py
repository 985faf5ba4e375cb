"""The queues' index in step with the sites' schemas, support's decisions on photos and
complaints (with the audit trail), and the rebuild that repairs the index."""

import pytest
from django.core.management import call_command

from apps.common.exceptions import ApplicationError
from apps.moderation.index import index_rebuild
from apps.moderation.models import ComplaintCase, PhotoDecision, PhotoReview
from apps.moderation.services import complaint_move, photo_decide
from apps.moderation.tests.helpers import complain, person, upload
from apps.profiles.models import Complaint, ComplaintStatus, Photo, PhotoStatus, Profile
from apps.profiles.services.photos import photo_delete
from apps.support.models import AuditEntry
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def agent():
    return staff_member("support")


def _photo(site, pk) -> Photo:
    with on_site(site):
        return Photo.objects.get(pk=pk)


def _profile(site, pk) -> Profile:
    with on_site(site):
        return Profile.objects.select_related("main_photo").get(pk=pk)


# --- The index in step ---------------------------------------------------------------


def test_an_upload_enters_the_queue_in_its_transaction(site):
    anna = person(site)
    photo = upload(site, anna)
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    assert (review.decision, review.profile_id, review.member_id) == ("pending", anna.pk, anna.user_id)
    assert review.member_name == anna.name
    assert review.image == photo.image.name and review.thumb == photo.thumb.name
    assert review.created == photo.created


def test_an_automatically_approved_upload_stays_out_of_the_queue(site):
    site.auto_approve_photos = True
    photo = upload(site, person(site))
    assert photo.status == PhotoStatus.ACTIVE
    assert not PhotoReview.objects.filter(site=site, photo_id=photo.pk).exists()


def test_a_deleted_photo_leaves_the_queue(site):
    anna = person(site)
    photo = upload(site, anna)
    with on_site(site):
        photo_delete(site=site, user=anna.user, photo_id=photo.pk)
    assert not PhotoReview.objects.filter(site=site, photo_id=photo.pk).exists()


def test_a_failed_upload_leaves_no_queue_row(site, monkeypatch):
    anna = person(site)
    from apps.moderation import index

    def fail(**kwargs):
        raise RuntimeError("disk full")

    # The queue's row is written by the receiver of the upload's signal (apps.profiles.signals).
    monkeypatch.setattr(index, "photo_review_open", fail)
    with pytest.raises(RuntimeError):
        upload(site, anna)
    with on_site(site):
        assert not Photo.objects.filter(profile=anna).exists()  # rolled back together
    assert not PhotoReview.objects.filter(site=site, profile_id=anna.pk).exists()


def test_a_complaint_enters_the_queue(site):
    reporter, other = person(site, "Rep"), person(site, "Other")
    complaint = complain(site, reporter, about=other, reason="scam")
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    assert (case.status, case.reason, case.profile_id, case.member_id) == ("open", "scam", other.pk, other.user_id)
    assert case.reporter_id == reporter.user_id and case.member_name == other.name


# --- Photo decisions -----------------------------------------------------------------


def test_approving_shows_the_photo_and_writes_the_audit_trail(site, agent):
    anna = person(site)
    photo = upload(site, anna)
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    decided = photo_decide(review_id=review.pk, actor=agent, decision="approved", reason="nudity", note=" ok ")
    assert (decided.decision, decided.reason, decided.note) == ("approved", "", "ok")
    assert decided.decided_by_id == agent.pk and decided.decided_by_name == agent.username
    stored = _photo(site, photo.pk)
    assert stored.status == PhotoStatus.ACTIVE and stored.decided_at is not None
    entry = AuditEntry.objects.get(action="photo.approve", target=f"photo {photo.pk}", site_id=site.pk)
    assert (entry.actor, entry.site_id, entry.member_id) == (agent.username, site.pk, anna.user_id)
    assert entry.before == {"status": "pending"} and entry.after["status"] == "active"


def test_rejecting_keeps_the_reason_code_and_moves_the_main_photo(site, agent):
    anna = person(site)
    first, second = upload(site, anna), upload(site, anna, colour=(10, 200, 10))
    assert _profile(site, anna.pk).main_photo_id == first.pk
    photo_decide(review_id=PhotoReview.objects.get(photo_id=second.pk, site=site).pk, actor=agent, decision="approved")
    review = PhotoReview.objects.get(site=site, photo_id=first.pk)
    photo_decide(review_id=review.pk, actor=agent, decision="rejected", reason="no_face", note="only a cat")
    stored = _photo(site, first.pk)
    assert (stored.status, stored.rejection_reason) == (PhotoStatus.REJECTED, "no_face")
    # The approved photo took the main place (it did at its approval, the main one was pending).
    assert _profile(site, anna.pk).main_photo_id == second.pk
    entry = AuditEntry.objects.get(action="photo.reject", target=f"photo {first.pk}", site_id=site.pk)
    assert entry.after == {"status": "rejected", "rejection_reason": "no_face"}
    assert entry.reason == "no_face: only a cat"


def test_a_rejected_main_photo_gives_its_place_to_a_waiting_one(site, agent):
    anna = person(site)
    first, second = upload(site, anna), upload(site, anna, colour=(10, 10, 200))
    photo_decide(
        review_id=PhotoReview.objects.get(site=site, photo_id=first.pk).pk,
        actor=agent,
        decision="rejected",
        reason="quality",
    )
    assert _profile(site, anna.pk).main_photo_id == second.pk


@pytest.mark.parametrize(
    ("decision", "reason", "code"),
    [("maybe", "", "invalid_decision"), ("rejected", "", "invalid_reason"), ("rejected", "ugly", "invalid_reason")],
)
def test_bad_decisions_are_refused_before_anything_changes(site, agent, decision, reason, code):
    photo = upload(site, person(site))
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    with pytest.raises(ApplicationError) as error:
        photo_decide(review_id=review.pk, actor=agent, decision=decision, reason=reason)
    assert error.value.code == code and error.value.status_code == 400
    assert _photo(site, photo.pk).status == PhotoStatus.PENDING
    assert not AuditEntry.objects.filter(target=f"photo {photo.pk}", site_id=site.pk).exists()


def test_a_photo_is_decided_once(site, agent):
    photo = upload(site, person(site))
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    photo_decide(review_id=review.pk, actor=agent, decision="approved")
    with pytest.raises(ApplicationError) as error:
        photo_decide(review_id=review.pk, actor=agent, decision="rejected", reason="nudity")
    assert error.value.status_code == 409
    assert _photo(site, photo.pk).status == PhotoStatus.ACTIVE
    assert AuditEntry.objects.filter(target=f"photo {photo.pk}", site_id=site.pk).count() == 1


def test_a_photo_deleted_meanwhile_leaves_the_queue_without_a_decision(site, agent):
    anna = person(site)
    photo = upload(site, anna)
    review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
    with on_site(site):
        Profile.objects.filter(pk=anna.pk).delete()  # the account erased: photos go with it
    assert photo_decide(review_id=review.pk, actor=agent, decision="approved") is None
    assert not PhotoReview.objects.filter(pk=review.pk).exists()
    assert not AuditEntry.objects.filter(target=f"photo {photo.pk}", site_id=site.pk).exists()


def test_an_unknown_review_is_not_found(agent):
    with pytest.raises(ApplicationError) as error:
        photo_decide(review_id=987654321, actor=agent, decision="approved")
    assert error.value.status_code == 404


# --- Complaint states ----------------------------------------------------------------


def _case(site, reporter=None, about=None) -> ComplaintCase:
    complaint = complain(site, reporter, about=about)
    return ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)


def _complaint(site, case) -> Complaint:
    with on_site(site):
        return Complaint.objects.get(pk=case.complaint_id)


def test_a_complaint_goes_open_in_progress_resolved_and_each_step_is_audited(site, agent):
    other = person(site, "Other")
    case = _case(site, person(site, "Rep"), other)
    case = complaint_move(case_id=case.pk, actor=agent, to="in_progress")
    assert (case.status, case.assignee_id, case.assignee_name) == ("in_progress", agent.pk, agent.username)
    case = complaint_move(case_id=case.pk, actor=agent, to="resolved", action="warned", note="Told them off.")
    complaint = _complaint(site, case)
    assert (complaint.status, complaint.action, complaint.action_note) == ("resolved", "warned", "Told them off.")
    assert complaint.assignee_name == agent.username and complaint.handled_at is not None
    assert (case.status, case.action, case.handled_at) == ("resolved", "warned", complaint.handled_at)
    entries = list(
        AuditEntry.objects.filter(action="complaint.status", target=f"complaint {complaint.pk}", site_id=site.pk)
    )
    assert [(e.before["status"], e.after["status"]) for e in reversed(entries)] == [
        ("open", "in_progress"),
        ("in_progress", "resolved"),
    ]
    assert all(entry.member_id == other.user_id and entry.site_id == site.pk for entry in entries)
    # Reopened: in progress again, the action kept for the record until it is resolved anew.
    case = complaint_move(case_id=case.pk, actor=agent, to="in_progress", note="The member wrote again.")
    assert case.status == "in_progress" and case.handled_at is None


@pytest.mark.parametrize(
    ("start", "to", "code", "status"),
    [
        ("open", "open", "invalid_move", 409),
        ("resolved", "resolved", "invalid_move", 409),
        ("resolved", "open", "invalid_move", 409),
        ("open", "closed", "invalid_status", 400),
    ],
)
def test_moves_that_are_not_allowed_are_refused(site, agent, start, to, code, status):
    case = _case(site)
    if start == "resolved":
        complaint_move(case_id=case.pk, actor=agent, to="resolved", action="none")
    with pytest.raises(ApplicationError) as error:
        complaint_move(case_id=case.pk, actor=agent, to=to, action="none")
    assert (error.value.code, error.value.status_code) == (code, status)
    assert _complaint(site, case).status == start


def test_resolving_needs_an_action_and_other_needs_a_note(site, agent):
    case = _case(site)
    for action, note, code in [
        ("", "", "invalid_action"),
        ("banned", "", "invalid_action"),
        ("other", " ", "note_required"),
    ]:
        with pytest.raises(ApplicationError) as error:
            complaint_move(case_id=case.pk, actor=agent, to="resolved", action=action, note=note)
        assert error.value.code == code
    with pytest.raises(ApplicationError) as error:
        complaint_move(case_id=case.pk, actor=agent, to="resolved", action="other", note="x" * 2001)
    assert error.value.code == "invalid_note"
    assert _complaint(site, case).status == ComplaintStatus.OPEN
    assert not AuditEntry.objects.filter(target=f"complaint {case.complaint_id}", site_id=site.pk).exists()


def test_taking_over_a_complaint_in_progress(site, agent):
    other_agent = staff_member("support")
    case = _case(site)
    complaint_move(case_id=case.pk, actor=agent, to="in_progress")
    with pytest.raises(ApplicationError):
        complaint_move(case_id=case.pk, actor=agent, to="in_progress")  # already theirs
    case = complaint_move(case_id=case.pk, actor=other_agent, to="in_progress")
    assert case.assignee_name == other_agent.username
    case = complaint_move(case_id=case.pk, actor=other_agent, to="open")
    assert (case.status, case.assignee_id, case.assignee_name) == ("open", None, "")


# --- Repair ----------------------------------------------------------------------------


def test_the_rebuild_repairs_missing_stale_and_wrong_rows(site, gay_site, agent):
    anna = person(site)
    waiting, decided = upload(site, anna), upload(site, anna, colour=(1, 2, 3))
    photo_decide(
        review_id=PhotoReview.objects.get(site=site, photo_id=decided.pk).pk,
        actor=agent,
        decision="rejected",
        reason="contact",
        note="phone number",
    )
    case = _case(site, about=anna)
    complaint_move(case_id=case.pk, actor=agent, to="in_progress")
    # Break the index: a row lost, one wrong, one stale (its photo is gone), one foreign.
    PhotoReview.objects.filter(site=site, photo_id=waiting.pk).delete()
    PhotoReview.objects.filter(site=site, photo_id=decided.pk).update(decision="pending", reason="")
    PhotoReview.objects.create(
        site=site, photo_id=999999, profile_id=anna.pk, image="x", thumb="x", created=waiting.created
    )
    ComplaintCase.objects.filter(pk=case.pk).update(status="open", assignee_name="")
    other_site_row = upload(gay_site, person(gay_site))

    counts = index_rebuild(site)
    assert counts["photos_added"] == 1 and counts["photos_updated"] == 1 and counts["photos_removed"] == 1
    assert counts["complaints_updated"] == 1
    rows = {row.photo_id: row for row in PhotoReview.objects.filter(site=site, profile_id=anna.pk)}
    assert set(rows) == {waiting.pk, decided.pk}
    assert rows[waiting.pk].decision == PhotoDecision.PENDING
    assert (rows[decided.pk].decision, rows[decided.pk].reason) == ("rejected", "contact")
    assert rows[decided.pk].note == "phone number"  # support's note survives the repair
    case.refresh_from_db()
    assert (case.status, case.assignee_name) == ("in_progress", agent.username)
    assert PhotoReview.objects.filter(site=gay_site, photo_id=other_site_row.pk).exists()
    assert index_rebuild(site) == dict.fromkeys(counts, 0)  # in step now


def test_the_rebuild_command(site, capsys):
    photo = upload(site, person(site))
    PhotoReview.objects.filter(site=site, photo_id=photo.pk).delete()
    call_command("moderation_index_rebuild", "--site", site.schema_name)
    assert PhotoReview.objects.filter(site=site, photo_id=photo.pk).exists()
    assert "Rebuilt the queues of 1 sites" in capsys.readouterr().out


def test_demo_photos_are_approved_and_stay_out_of_the_queue(site, settings, tmp_path):
    from apps.profiles.services.demo import demo_profiles_seed

    made = demo_profiles_seed(site=site, count=3, seed=7)
    assert made == 3
    with on_site(site):
        demo = Photo.objects.filter(profile__user__isnull=True)
        assert demo.exists() and not demo.exclude(status=PhotoStatus.ACTIVE).exists()
        ids = list(demo.values_list("pk", flat=True))
    assert not PhotoReview.objects.filter(site=site, photo_id__in=ids).exists()
    assert index_rebuild(site)["photos_added"] == 0  # approved automatically: never queued


def test_the_support_console_hiding_a_photo_rejects_it_in_the_queue_too(site, agent):
    from apps.moderation.services import photo_hide_by_support

    anna = person(site)
    waiting, shown = upload(site, anna), upload(site, anna, colour=(9, 9, 9))
    photo_decide(review_id=PhotoReview.objects.get(site=site, photo_id=shown.pk).pk, actor=agent, decision="approved")
    for photo in (waiting, shown):
        with on_site(site):
            photo_hide_by_support(photo=_photo(site, photo.pk), actor=agent, site=site, note="reported twice")
        assert _photo(site, photo.pk).status == PhotoStatus.REJECTED
        review = PhotoReview.objects.get(site=site, photo_id=photo.pk)
        assert (review.decision, review.reason, review.note) == ("rejected", "other", "reported twice")
    assert _profile(site, anna.pk).main_photo_id is None
