"""Support's decisions in the queues: approve or reject a photo, take, resolve or reopen
a complaint. Each one changes the site's schema (the truth) and the queue's row in one
transaction and announces it (apps.moderation.signals.moderation_decided) for the
staff audit trail, which records it in that transaction (apps.support)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tenants.utils import tenant_context

from apps.common.exceptions import ApplicationError
from apps.moderation.index import complaint_case_sync, photo_decision_values, photo_review_values
from apps.moderation.models import ComplaintCase, PhotoDecision, PhotoReview, VerificationReview
from apps.moderation.signals import moderation_decided
from apps.notifications.outbox import notice_event
from apps.profiles.models import (
    Complaint,
    ComplaintAction,
    ComplaintReason,
    ComplaintStatus,
    PhotoRejectionReason,
    PhotoStatus,
    VerificationRejectionReason,
)
from apps.profiles.services.photos import photo_moderate
from apps.profiles.services.verification import verification_moderate

NOTE_MAX_LENGTH = 2000

# The moves a complaint may make; anything else is refused.
COMPLAINT_TRANSITIONS = {
    ComplaintStatus.OPEN: {ComplaintStatus.IN_PROGRESS, ComplaintStatus.RESOLVED},
    ComplaintStatus.IN_PROGRESS: {ComplaintStatus.OPEN, ComplaintStatus.RESOLVED, ComplaintStatus.IN_PROGRESS},
    ComplaintStatus.RESOLVED: {ComplaintStatus.IN_PROGRESS},
}


def _note(note: str | None) -> str:
    note = (note or "").strip()
    if len(note) > NOTE_MAX_LENGTH:
        message = _("The note may be at most %(max)s characters long.") % {"max": NOTE_MAX_LENGTH}
        raise ApplicationError("invalid_note", message, extra={"fields": {"note": [message]}})
    if "\x00" in note:
        message = _("The note contains characters that are not allowed.")
        raise ApplicationError("invalid_note", message, extra={"fields": {"note": [message]}})
    return note


def _status_label(status: str) -> str:
    return str(ComplaintStatus(status).label).lower() if status in ComplaintStatus.values else status


def _staff_name(actor) -> str:
    return actor.get_username()[:150] if actor is not None else "system"


def _photo_rejected_notice(photo) -> None:
    """The member hears that `photo` (just rejected, in the site's schema) was not
    approved, by e-mail and push as their "photo_decisions" preferences say (the reason
    and the fix are read in their language when sent: apps.notifications.content); the
    site itself shows it in the warnings area (apps.profiles photo_rejected_alert)."""
    from apps.accounts.models import User

    user = User.objects.filter(profile__pk=photo.profile_id).first()
    notice_event(user=user, kind="photo_decisions", item={"ph": photo.pk, "r": photo.rejection_reason})


def _verification_decided_notice(verification) -> None:
    """The member hears support's decision on their verification request (just decided,
    in the site's schema): by e-mail and push under their "photo_decisions" preferences,
    like a rejected photo (apps.notifications.content reads the decision, the reason and
    how to retry in their language when sent); the site shows it in the warnings area
    (apps.profiles verification_decided_alert)."""
    from apps.accounts.models import User

    user = User.objects.filter(profile__pk=verification.profile_id).first()
    notice_event(user=user, kind="photo_decisions", item={"v": verification.pk, "s": verification.status})


def _decided_values(photo, *, actor, note: str) -> dict:
    """The queue row's fields once support decided `photo` (photo_moderate): its state,
    support's note and who decided."""
    return {
        **photo_decision_values(photo),
        "note": note,
        "decided_by_id": getattr(actor, "pk", None),
        "decided_by_name": _staff_name(actor),
    }


def _decision_checked(decision: str, reason: str, reasons, choose_message: str) -> str:
    """The reason a decision keeps: one of `reasons` to reject, none to approve; anything
    else is refused with the field it is about."""
    if decision not in (PhotoDecision.APPROVED, PhotoDecision.REJECTED):
        raise ApplicationError("invalid_decision", choose_message, extra={"fields": {"decision": [choose_message]}})
    if decision == PhotoDecision.APPROVED:
        return ""
    if reason not in reasons:
        message = _("Choose a reason for the rejection.")
        raise ApplicationError("invalid_reason", message, extra={"fields": {"reason": [message]}})
    return reason


def _review_locked(model, review_id: int, not_found: str, decided: str):
    """The queue row `review_id` of `model`, locked until the transaction ends; 404 when it
    left the queue, 409 when someone decided it already (`decided` names who)."""
    review = model.objects.select_for_update(of=("self",)).select_related("site").filter(pk=review_id).first()
    if review is None:
        raise ApplicationError("not_found", not_found, status_code=404)
    if review.decision != PhotoDecision.PENDING:
        message = decided % {"decision": review.get_decision_display(), "name": review.decided_by_name or "-"}
        raise ApplicationError("already_decided", message, status_code=409)
    return review


def _decision_announce(review, actor, kind: str, target_id: int, status: str, reason: str, note: str) -> None:
    """Tell the audit trail (support listens to moderation_decided) what `review` (decided
    and saved) says."""
    moderation_decided.send(
        sender=type(review),
        actor=actor,
        action=f"{kind}.approve" if review.decision == PhotoDecision.APPROVED else f"{kind}.reject",
        site=review.site,
        member_id=review.member_id,
        target=f"{kind} {target_id}",
        before={"status": "pending"},
        after={"status": status, "rejection_reason": reason},
        reason=": ".join(part for part in (reason, note) if part),
    )


def photo_decide(*, review_id: int, actor, decision: str, reason: str = "", note: str = "") -> PhotoReview | None:
    """Approve or reject a waiting photo. `reason` (a PhotoRejectionReason code) is
    required to reject; `note` is for support (the audit trail), never shown to the
    member. Returns the decided row, or None when the member deleted the photo in the
    meantime (its row leaves the queue). A photo decided already is refused (409)."""
    reason = _decision_checked(
        decision, reason, PhotoRejectionReason.values, _("Choose to approve or to reject the photo.")
    )
    note = _note(note)
    with transaction.atomic():
        review = _review_locked(
            PhotoReview,
            review_id,
            _("This photo is not in the queue."),
            _("This photo has been decided already (%(decision)s by %(name)s)."),
        )
        site = review.site
        with tenant_context(site):
            photo = photo_moderate(photo_id=review.photo_id, approve=decision == PhotoDecision.APPROVED, reason=reason)
            if photo is not None and photo.status == PhotoStatus.REJECTED:
                _photo_rejected_notice(photo)
        if photo is None:
            review.delete()
            return None
        values = _decided_values(photo, actor=actor, note=note)
        for field, value in values.items():
            setattr(review, field, value)
        review.save(update_fields=list(values))
        _decision_announce(review, actor, "photo", review.photo_id, photo.status, reason, note)
    return review


def verification_decide(
    *, review_id: int, actor, decision: str, reason: str = "", note: str = ""
) -> VerificationReview | None:
    """Verify a member (their approved photos match the selfie in the pose asked for) or
    not, with a reason (VerificationRejectionReason) the member sees. Returns the decided
    row, or None when the request is gone (it leaves the queue). A request decided
    already is refused (409)."""
    reason = _decision_checked(
        decision, reason, VerificationRejectionReason.values, _("Choose to verify the member or not.")
    )
    note = _note(note)
    with transaction.atomic():
        review = _review_locked(
            VerificationReview,
            review_id,
            _("This request is not in the queue."),
            _("This request has been decided already (%(decision)s by %(name)s)."),
        )
        site = review.site
        with tenant_context(site):
            verification = verification_moderate(
                verification_id=review.verification_id, approve=decision == PhotoDecision.APPROVED, reason=reason
            )
            if verification is not None:
                _verification_decided_notice(verification)
        if verification is None:
            review.delete()
            return None
        review.decision, review.reason, review.note = decision, reason, note
        review.decided_at = verification.decided_at
        review.decided_by_id, review.decided_by_name = getattr(actor, "pk", None), _staff_name(actor)
        review.save(update_fields=["decision", "reason", "note", "decided_at", "decided_by_id", "decided_by_name"])
        _decision_announce(review, actor, "verification", review.verification_id, verification.status, reason, note)
    return review


def _complaint_state(complaint: Complaint) -> dict:
    return {
        "status": complaint.status,
        "assignee": complaint.assignee_name,
        "action": complaint.action,
        "action_note": complaint.action_note,
    }


def complaint_move(*, case_id: int, actor, to: str, action: str = "", note: str = "") -> ComplaintCase:
    """Move a complaint: take it (open -> in progress, assigned to the actor; an agent
    may also take over one in progress), give it back (in progress -> open), resolve it
    with the action taken (open or in progress -> resolved; "other" needs a note) or
    reopen it (resolved -> in progress). Other moves are refused (409)."""
    if to not in ComplaintStatus.values:
        message = _("Choose what to do with the complaint.")
        raise ApplicationError("invalid_status", message, extra={"fields": {"status": [message]}})
    note = _note(note)
    if to == ComplaintStatus.RESOLVED:
        if action not in ComplaintAction.values:
            message = _("Choose the action taken.")
            raise ApplicationError("invalid_action", message, extra={"fields": {"action": [message]}})
        if action == ComplaintAction.OTHER and not note:
            message = _("Describe the action taken in the note.")
            raise ApplicationError("note_required", message, extra={"fields": {"note": [message]}})
    with transaction.atomic():
        case = ComplaintCase.objects.select_for_update(of=("self",)).select_related("site").filter(pk=case_id).first()
        if case is None:
            raise ApplicationError("not_found", _("This complaint does not exist."), status_code=404)
        site = case.site
        with tenant_context(site):
            complaint = Complaint.objects.select_for_update(of=("self",)).select_related("profile")
            complaint = complaint.filter(pk=case.complaint_id).first()
            if complaint is None:
                raise ApplicationError("not_found", _("This complaint does not exist."), status_code=404)
            current = complaint.status
            if to not in COMPLAINT_TRANSITIONS.get(current, set()) or (
                current == to and complaint.assignee_id == getattr(actor, "pk", None)
            ):
                raise ApplicationError(
                    "invalid_move",
                    _("A complaint that is %(current)s cannot become %(next)s.")
                    % {"current": _status_label(current), "next": _status_label(to)},
                    status_code=409,
                )
            before = _complaint_state(complaint)
            complaint.status = to
            if to == ComplaintStatus.IN_PROGRESS:
                complaint.assignee_id, complaint.assignee_name = getattr(actor, "pk", None), _staff_name(actor)
                complaint.handled_at = None
            elif to == ComplaintStatus.OPEN:
                complaint.assignee_id, complaint.assignee_name = None, ""
            else:
                if not complaint.assignee_name:
                    complaint.assignee_id, complaint.assignee_name = getattr(actor, "pk", None), _staff_name(actor)
                complaint.action, complaint.action_note = action, note
                complaint.handled_at = timezone.now()
            complaint.save(
                update_fields=["status", "assignee_id", "assignee_name", "action", "action_note", "handled_at"]
            )
            after = _complaint_state(complaint)
            member_id = complaint.profile.user_id if complaint.profile else None
        case = complaint_case_sync(site=site, complaint=complaint)
        moderation_decided.send(
            sender=ComplaintCase,
            actor=actor,
            action="complaint.status",
            site=site,
            member_id=member_id,
            target=f"complaint {complaint.pk}",
            before=before,
            after=after,
            reason=note,
        )
    return case


def photo_hide_by_support(*, photo, actor, site, note: str = "", reason: str = PhotoRejectionReason.OTHER) -> None:
    """The support console's "hide a photo" (apps.support.services), called in the site's
    schema inside that action's transaction: the photo is rejected (its member sees it
    with the reason), the main photo moves on, and the queue's row says so (a waiting
    photo leaves the queue). The caller writes the audit row."""
    decided = photo_moderate(photo_id=photo.pk, approve=False, reason=reason)
    if decided is None:
        return
    _photo_rejected_notice(decided)
    values = _decided_values(decided, actor=actor, note=(note or "")[:NOTE_MAX_LENGTH])
    if not PhotoReview.objects.filter(site=site, photo_id=decided.pk).update(**values):
        PhotoReview.objects.create(site=site, photo_id=decided.pk, **{**photo_review_values(decided), **values})


def held_message_decide(*, case_id: int, actor, deliver: bool, note: str = "") -> ComplaintCase:
    """Support decides a first message the site held for review (a complaint of reason
    "held_message"): deliver it (and what its sender wrote after it) to the recipient, or
    reject it, which gives the sender back the exact credits each message cost
    (apps.chat.services). The complaint is resolved with that action; one audit row for
    the decision and one for the complaint, in one transaction. A decided message or a
    resolved complaint is refused (409)."""
    from apps.chat.services import held_message_reject, held_message_release

    note = _note(note)
    with transaction.atomic():
        case = ComplaintCase.objects.select_for_update(of=("self",)).select_related("site").filter(pk=case_id).first()
        if case is None:
            raise ApplicationError("not_found", _("This complaint does not exist."), status_code=404)
        if case.reason != ComplaintReason.HELD_MESSAGE or not case.message_id:
            raise ApplicationError("not_held", _("This complaint holds no message."), status_code=409)
        if case.status == ComplaintStatus.RESOLVED:
            raise ApplicationError(
                "complaint_resolved", _("This complaint is resolved: reopen it first."), status_code=409
            )
        with tenant_context(case.site):
            if deliver:
                count = held_message_release(message_id=case.message_id)
            else:
                count = held_message_reject(message_id=case.message_id, staff_name=_staff_name(actor))
        if (deliver and not count) or (not deliver and count is None):
            raise ApplicationError("already_decided", _("This message is no longer held for review."), status_code=409)
        moderation_decided.send(
            sender=ComplaintCase,
            actor=actor,
            action="message.release" if deliver else "message.reject",
            site=case.site,
            member_id=case.member_id,
            target=f"message {case.message_id}",
            before={"review": "held"},
            after={"review": "approved", "messages": count}
            if deliver
            else {"review": "rejected", "credits_returned": count},
            reason=note,
        )
        return complaint_move(
            case_id=case.pk,
            actor=actor,
            to=ComplaintStatus.RESOLVED,
            action=ComplaintAction.MESSAGE_RELEASED if deliver else ComplaintAction.MESSAGE_REJECTED,
            note=note,
        )
