"""Reads for the queues: the photo queue (across sites or per site, oldest first), the
queue sizes on the admin index, and one complaint with what it names. Lists come from
the public-schema index; a site's schema is entered only for the item on screen."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, QuerySet
from django_tenants.utils import tenant_context

from apps.chat.models import Message, MessageKind
from apps.moderation.models import ComplaintCase, PhotoDecision, PhotoReview, VerificationReview
from apps.profiles.models import Complaint, ComplaintStatus, Photo, PhotoStatus, Profile, Verification
from apps.tenants.models import MemberDirectoryEntry

# Messages shown before and after the one a complaint names.
MESSAGES_AROUND = 3
QUEUE_STRIP = 30
# The member's approved photos shown beside a verification selfie.
VERIFICATION_PHOTOS_SHOWN = 8


def photo_queue(*, site_id: int | None = None) -> QuerySet[PhotoReview]:
    """Waiting photos, oldest first (the partial indexes of PhotoReview)."""
    queryset = PhotoReview.objects.filter(decision=PhotoDecision.PENDING)
    if site_id:
        queryset = queryset.filter(site_id=site_id)
    return queryset.select_related("site").order_by("created", "pk")


def photo_queue_sites() -> list[dict]:
    """Sites with waiting photos and how many, for the queue's site filter."""
    return list(
        PhotoReview.objects.filter(decision=PhotoDecision.PENDING)
        .values("site_id", "site__name")
        .annotate(count=Count("id"))
        .order_by("site__name")
    )


def queue_sizes() -> dict[str, int]:
    """Waiting photos, verification requests and unresolved complaints across all sites:
    index-only counts."""
    return {
        "photos": PhotoReview.objects.filter(decision=PhotoDecision.PENDING).count(),
        "verifications": VerificationReview.objects.filter(decision=PhotoDecision.PENDING).count(),
        "complaints": ComplaintCase.objects.filter(
            status__in=[ComplaintStatus.OPEN, ComplaintStatus.IN_PROGRESS]
        ).count(),
    }


def photo_still_waiting(review: PhotoReview) -> bool:
    """Whether the photo still exists in its site's schema (a member may have deleted it
    or their account since it entered the queue)."""
    with tenant_context(review.site):
        return Photo.objects.filter(pk=review.photo_id).exists()


def directory_entry_id(*, site_id: int, member_id: int | None) -> int | None:
    """The member directory entry of a site's member, for a link to support's member page."""
    if member_id is None:
        return None
    return (
        MemberDirectoryEntry.objects.filter(site_id=site_id, member_id=member_id).values_list("pk", flat=True).first()
    )


@dataclass
class ContextMessage:
    message: Message
    sender_name: str
    named: bool
    summary: str


@dataclass
class ComplaintView:
    case: ComplaintCase
    complaint: Complaint | None
    profile: Profile | None = None
    photo: Photo | None = None
    messages: list[ContextMessage] = field(default_factory=list)
    reporter_name: str = ""
    reporter_email: str = ""


def _summary(message: Message) -> str:
    if message.kind == MessageKind.TEXT:
        return message.text
    if message.kind == MessageKind.GIFT:
        return f"{message.gift_emoji} {message.gift_name}".strip()
    return message.text


def complaint_view(case: ComplaintCase) -> ComplaintView:
    """The complaint with what it names, read in its site's schema: the profile, the
    photo and, only when the complaint names a message, that message with the few
    messages around it in its conversation. No other way leads support to a message."""
    with tenant_context(case.site):
        complaint = (
            Complaint.objects.select_related("profile__main_photo", "profile__user", "photo", "reporter__profile")
            .filter(pk=case.complaint_id)
            .first()
        )
        view = ComplaintView(case=case, complaint=complaint)
        if complaint is None:
            return view
        view.profile = complaint.profile
        view.photo = complaint.photo
        if complaint.reporter is not None:
            reporter_profile = getattr(complaint.reporter, "profile", None)
            view.reporter_name = reporter_profile.name if reporter_profile else complaint.reporter.get_username()
        view.reporter_email = complaint.email
        if complaint.message_id:
            messages = Message.objects.select_related("sender_profile")
            named = messages.filter(pk=complaint.message_id).first()
            if named is not None:
                around = messages.filter(conversation_id=named.conversation_id)
                before = list(around.filter(pk__lt=named.pk).order_by("-pk")[:MESSAGES_AROUND])[::-1]
                after = list(around.filter(pk__gt=named.pk).order_by("pk")[:MESSAGES_AROUND])
                view.messages = [
                    ContextMessage(
                        message=item,
                        sender_name=item.sender_profile.name,
                        named=item.pk == named.pk,
                        summary=_summary(item),
                    )
                    for item in [*before, named, *after]
                ]
    return view


def complaint_image_path(case: ComplaintCase, *, kind: str) -> str | None:
    """The stored file support may see for a complaint: the photo it names ("photo") or
    the complained-about profile's main photo ("profile"), as thumbnails."""
    with tenant_context(case.site):
        complaint = Complaint.objects.filter(pk=case.complaint_id).select_related("photo", "profile__main_photo")
        complaint = complaint.first()
        if complaint is None:
            return None
        photo = complaint.photo if kind == "photo" else (complaint.profile.main_photo if complaint.profile else None)
        return photo.thumb.name if photo is not None and photo.thumb else None


def verification_queue():
    """Verification requests waiting, oldest first, across sites."""
    return (
        VerificationReview.objects.filter(decision=PhotoDecision.PENDING)
        .select_related("site")
        .order_by("created", "pk")
    )


def verification_compare(review: VerificationReview) -> dict | None:
    """What support compares in the site's schema: the selfie's file name and the member's
    approved photos (id, thumbnail and image file names), or None when the request or its
    selfie is gone."""
    with tenant_context(review.site):
        verification = Verification.objects.filter(pk=review.verification_id).first()
        if verification is None or not verification.selfie:
            return None
        photos = list(
            Photo.objects.filter(profile_id=review.profile_id, status=PhotoStatus.ACTIVE)
            .order_by("created", "pk")
            .values("pk", "thumb", "image")[:VERIFICATION_PHOTOS_SHOWN]
        )
        return {"selfie": verification.selfie.name, "photos": photos}


def verification_photo_path(review: VerificationReview, photo_id: int) -> str:
    """The image file of one of the member's approved photos, "" when `photo_id` is not
    one of them (another member's photo, a waiting or rejected one)."""
    with tenant_context(review.site):
        photo = Photo.objects.filter(pk=photo_id, profile_id=review.profile_id, status=PhotoStatus.ACTIVE).first()
        return photo.image.name if photo is not None else ""
