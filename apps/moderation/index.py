"""Keeping the queues' index (apps.moderation.models, public schema) in step with the
sites' schemas. The member-side services call these inside their own transaction, in
the site's schema (the public tables are on the search path there), so a photo or a
complaint and its queue row are committed together or not at all.

`index_rebuild` repairs a site's rows from its schema (the command
`moderation_index_rebuild`)."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Q
from django_tenants.utils import tenant_context

from apps.moderation.models import ComplaintCase, PhotoDecision, PhotoReview, VerificationReview
from apps.profiles.models import Complaint, Photo, PhotoStatus, Verification
from apps.tenants.models import Site


def _decision(photo: Photo) -> str:
    if photo.status == PhotoStatus.ACTIVE:
        return PhotoDecision.APPROVED
    if photo.status == PhotoStatus.REJECTED:
        return PhotoDecision.REJECTED
    return PhotoDecision.PENDING


def photo_decision_values(photo: Photo) -> dict:
    """The queue row's record of the photo's state: waiting, approved or rejected (why, when)."""
    return {
        "decision": _decision(photo),
        "reason": photo.rejection_reason if photo.status == PhotoStatus.REJECTED else "",
        "decided_at": photo.decided_at,
    }


def photo_review_values(photo: Photo) -> dict:
    profile = photo.profile
    return {
        "profile_id": photo.profile_id,
        "member_id": profile.user_id,
        "member_name": profile.name[:150],
        "image": photo.image.name or "",
        "thumb": photo.thumb.name or "",
        "created": photo.created,
        **photo_decision_values(photo),
    }


def photo_review_open(*, site: Site, photo: Photo) -> PhotoReview:
    """A new pending photo enters the moderation queue (call in the upload's transaction)."""
    return PhotoReview.objects.create(site=site, photo_id=photo.pk, **photo_review_values(photo))


def verification_review_open(*, site: Site, verification: Verification) -> VerificationReview:
    """A new verification request enters the verification queue (in its transaction)."""
    profile = verification.profile
    return VerificationReview.objects.create(
        site=site,
        verification_id=verification.pk,
        profile_id=profile.pk,
        member_id=profile.user_id,
        member_name=profile.name[:150],
        pose=verification.pose,
        created=verification.created,
    )


def photo_review_drop(*, site: Site, photo_id: int) -> None:
    """The member deleted the photo: it leaves the queue (and the decided list)."""
    PhotoReview.objects.filter(site=site, photo_id=photo_id).delete()


def _complaint_values(complaint: Complaint) -> dict:
    profile = complaint.profile
    return {
        "created": complaint.created,
        "reason": complaint.reason,
        "status": complaint.status,
        "profile_id": complaint.profile_id,
        "member_id": profile.user_id if profile else None,
        "member_name": profile.name[:150] if profile else "",
        "photo_id": complaint.photo_id,
        "message_id": complaint.message_id,
        "reporter_id": complaint.reporter_id,
        "assignee_id": complaint.assignee_id,
        "assignee_name": complaint.assignee_name,
        "action": complaint.action,
        "action_note": complaint.action_note,
        "handled_at": complaint.handled_at,
    }


def complaint_case_sync(*, site: Site, complaint: Complaint) -> ComplaintCase:
    """The complaint's queue row as the complaint is now (new or changed)."""
    case, _created = ComplaintCase.objects.update_or_create(
        site=site, complaint_id=complaint.pk, defaults=_complaint_values(complaint)
    )
    return case


def index_rebuild(site: Site) -> dict[str, int]:
    """Make the site's queue rows match its schema: a row for every photo that waits or
    was decided by support (photos approved automatically never enter the queue) and for
    every complaint; rows of photos or complaints that are gone are removed. Support's
    notes and the names of who decided are kept where the row existed. Returns counts."""
    with tenant_context(site):
        photos = list(
            Photo.objects.select_related("profile")
            .filter(Q(status=PhotoStatus.PENDING) | Q(decided_at__isnull=False))
            .order_by("pk")
        )
        complaints = list(Complaint.objects.select_related("profile").order_by("pk"))
        photo_rows = {photo.pk: photo_review_values(photo) for photo in photos}
        complaint_rows = {complaint.pk: _complaint_values(complaint) for complaint in complaints}
    connection.set_schema_to_public()
    counts: dict[str, int] = {}
    with transaction.atomic():
        for name, model, key, rows in (
            ("photos", PhotoReview, "photo_id", photo_rows),
            ("complaints", ComplaintCase, "complaint_id", complaint_rows),
        ):
            added, updated, removed = _rows_sync(model, site=site, key=key, rows=rows)
            counts.update({f"{name}_added": added, f"{name}_updated": updated, f"{name}_removed": removed})
    return counts


def _rows_sync(model, *, site: Site, key: str, rows: dict[int, dict]) -> tuple[int, int, int]:
    """Make the site's rows of `model` (one per `key`, an id in the site's schema) hold
    `rows`; fields not in `rows` are left as they are. Returns (added, updated, removed)."""
    existing = {getattr(row, key): row for row in model.objects.select_for_update().filter(site=site)}
    gone = [row.pk for item_id, row in existing.items() if item_id not in rows]
    removed = model.objects.filter(pk__in=gone).delete()[0]
    added = updated = 0
    for item_id, values in rows.items():
        row = existing.get(item_id)
        if row is None:
            model.objects.create(site=site, **{key: item_id}, **values)
            added += 1
        elif any(getattr(row, field) != value for field, value in values.items()):
            model.objects.filter(pk=row.pk).update(**values)
            updated += 1
    return added, updated, removed
