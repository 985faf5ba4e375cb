"""The support queues' index (public schema): one row per photo waiting for (or given) a
decision and one per complaint, across all sites, so support lists a queue per site or
across sites, oldest first, with one query instead of visiting every site's schema.

The sites' schemas hold the truth (apps.profiles Photo and Complaint); these rows are
written in the same transaction as the upload, the complaint and every decision
(apps.moderation.index, apps.moderation.services), and `moderation_index_rebuild`
repairs them from the schemas. Staff members are named by id and name, as in the audit
trail, never by foreign key."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.profiles.models import (
    ComplaintAction,
    ComplaintReason,
    ComplaintStatus,
    PhotoRejectionReason,
    VerificationRejectionReason,
)
from apps.tenants.models import Site


class PhotoDecision(models.TextChoices):
    PENDING = "pending", _("Waiting for approval")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class PhotoReview(models.Model):
    """A member's photo in the moderation queue. Permissions: view (see the queue and the
    photos), change (approve or reject)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+", verbose_name=_("site"))
    photo_id = models.BigIntegerField(_("photo id"))
    profile_id = models.BigIntegerField(_("profile id"))
    member_id = models.BigIntegerField(_("member id"), null=True, blank=True)
    member_name = models.CharField(_("member"), max_length=150, blank=True)
    image = models.CharField(_("image file"), max_length=300)
    thumb = models.CharField(_("thumbnail file"), max_length=300)
    created = models.DateTimeField(_("uploaded"))
    decision = models.CharField(
        _("decision"), max_length=10, choices=PhotoDecision.choices, default=PhotoDecision.PENDING
    )
    reason = models.CharField(_("reason"), max_length=20, choices=PhotoRejectionReason.choices, blank=True)
    note = models.TextField(_("note"), max_length=2000, blank=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    decided_by_id = models.BigIntegerField(_("decided by (staff id)"), null=True, blank=True)
    decided_by_name = models.CharField(_("decided by"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("photo review")
        verbose_name_plural = _("photo moderation")
        ordering = ["created", "pk"]
        constraints = [models.UniqueConstraint(fields=["site", "photo_id"], name="unique_photo_review")]
        indexes = [
            # The queue, across sites and per site, oldest first; and its size.
            models.Index(fields=["created", "id"], name="photoreview_queue_idx", condition=Q(decision="pending")),
            models.Index(
                fields=["site", "created", "id"], name="photoreview_site_queue_idx", condition=Q(decision="pending")
            ),
        ]

    def __str__(self) -> str:
        return _("Photo %(photo)s of %(member)s") % {"photo": self.photo_id, "member": self.member_name}


class ComplaintCase(models.Model):
    """A member's complaint in the complaints queue. Permissions: view (see the queue and
    what a complaint names, including the named message), change (take, resolve, reopen)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+", verbose_name=_("site"))
    complaint_id = models.BigIntegerField(_("complaint id"))
    created = models.DateTimeField(_("received"))
    reason = models.CharField(_("reason"), max_length=20, choices=ComplaintReason.choices)
    status = models.CharField(_("status"), max_length=12, choices=ComplaintStatus.choices, default=ComplaintStatus.OPEN)
    # What the complaint is about (ids in the site's schema) and who sent it.
    profile_id = models.BigIntegerField(_("profile id"), null=True, blank=True)
    member_id = models.BigIntegerField(_("member id"), null=True, blank=True)
    member_name = models.CharField(_("about"), max_length=150, blank=True)
    photo_id = models.BigIntegerField(_("photo id"), null=True, blank=True)
    message_id = models.BigIntegerField(_("message id"), null=True, blank=True)
    reporter_id = models.BigIntegerField(_("reporter id"), null=True, blank=True)
    # Its handling.
    assignee_id = models.BigIntegerField(_("assigned to (staff id)"), null=True, blank=True)
    assignee_name = models.CharField(_("assigned to"), max_length=150, blank=True)
    action = models.CharField(_("action taken"), max_length=20, choices=ComplaintAction.choices, blank=True)
    action_note = models.TextField(_("note"), max_length=2000, blank=True)
    handled_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("complaint")
        verbose_name_plural = _("complaints queue")
        ordering = ["created", "pk"]
        constraints = [models.UniqueConstraint(fields=["site", "complaint_id"], name="unique_complaint_case")]
        indexes = [
            models.Index(fields=["status", "created", "id"], name="complaintcase_queue_idx"),
            models.Index(fields=["site", "status", "created", "id"], name="complaintcase_site_queue_idx"),
        ]

    def __str__(self) -> str:
        return _("Complaint %(id)s: %(reason)s") % {"id": self.complaint_id, "reason": self.get_reason_display()}


class VerificationReview(models.Model):
    """A member's verification selfie in the verification queue, decided side by side
    with the member's approved photos. The selfie itself stays in the site's private
    storage (apps.profiles Verification); this row names it by id. Permissions: view (see
    the queue, the selfie and the photos), change (verify or refuse)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+", verbose_name=_("site"))
    verification_id = models.BigIntegerField(_("verification id"))
    profile_id = models.BigIntegerField(_("profile id"))
    member_id = models.BigIntegerField(_("member id"), null=True, blank=True)
    member_name = models.CharField(_("member"), max_length=150, blank=True)
    pose = models.CharField(_("pose"), max_length=30)
    created = models.DateTimeField(_("asked"))
    decision = models.CharField(
        _("decision"), max_length=10, choices=PhotoDecision.choices, default=PhotoDecision.PENDING
    )
    reason = models.CharField(_("reason"), max_length=20, choices=VerificationRejectionReason.choices, blank=True)
    note = models.TextField(_("note"), max_length=2000, blank=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    decided_by_id = models.BigIntegerField(_("decided by (staff id)"), null=True, blank=True)
    decided_by_name = models.CharField(_("decided by"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("verification review")
        verbose_name_plural = _("photo verification")
        ordering = ["created", "pk"]
        constraints = [models.UniqueConstraint(fields=["site", "verification_id"], name="unique_verification_review")]
        indexes = [
            models.Index(fields=["created", "id"], name="verification_queue_idx", condition=Q(decision="pending")),
        ]

    def __str__(self) -> str:
        return _("Verification %(id)s of %(member)s") % {"id": self.verification_id, "member": self.member_name}
