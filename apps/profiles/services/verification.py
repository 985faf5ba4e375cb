"""Verified photos: a member asks to be verified with a selfie in a drawn pose
(apps.profiles.poses); support compares it with the member's approved photos in the
verification queue (apps.moderation) and verifies them (Photo.verified) or not. The
profile carries the "verified" badge while its main photo is a verified one, so the
badge goes by itself when the main photo changes to one not checked.

The selfie is re-encoded like any photo (apps.profiles.images) and kept in the private
storage (Verification.selfie), never served to members; it is deleted once decided, or
VERIFICATION_KEEP_DAYS after a rejection (for an appeal) by `verification_selfies_purge`."""

from __future__ import annotations

from datetime import timedelta

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

# Up to accounts: the member (User) who asks.
from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.profiles.images import image_filename, process_upload
from apps.profiles.models import Photo, PhotoStatus, Profile, Verification, VerificationStatus
from apps.profiles.poses import POSES
from apps.profiles.signals import verification_requested
from apps.tenants.models import Site

VERIFICATION_KEEP_DAYS = 30


def _profile_for(user: User) -> Profile:
    profile = Profile.objects.select_for_update().filter(user=user).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    return profile


def _selfie_error(code: str, message: str, *, status: int = 400) -> ApplicationError:
    return ApplicationError(code, message, status_code=status, extra={"fields": {"selfie": [message]}})


def verification_request(*, site: Site, user: User, pose: str, upload) -> Verification:
    """Ask to be verified with `upload`, a selfie in `pose` (the pose the site showed).
    Needs an approved photo to compare with (409) and no request waiting already (409).
    Raises ImageRejected for what is not an acceptable picture."""
    if pose not in POSES:
        raise _selfie_error("invalid_pose", _("The pose has changed. Please take the selfie again."))
    if upload is None:
        raise _selfie_error("invalid", _("Choose or take a selfie to upload."))
    processed = process_upload(upload)
    with transaction.atomic():
        profile = _profile_for(user)
        if not Photo.objects.filter(profile=profile, status=PhotoStatus.ACTIVE).exists():
            raise _selfie_error(
                "no_approved_photo",
                _("Add a photo of yourself first: support compares your selfie with your approved photos."),
                status=409,
            )
        if Verification.objects.filter(profile=profile, status=VerificationStatus.PENDING).exists():
            raise _selfie_error("verification_waiting", _("Your selfie is already waiting for a decision."), status=409)
        verification = Verification(profile=profile, pose=pose)
        verification.selfie.save(image_filename(processed.extension), ContentFile(processed.full), save=False)
        name = verification.selfie.name
        try:  # the file exists before the row does: remove it if the row is not written
            with transaction.atomic():
                verification.save()
                verification_requested.send(sender=Verification, site=site, verification=verification)
        except IntegrityError:
            _selfie_delete(name)
            raise _selfie_error(
                "verification_waiting", _("Your selfie is already waiting for a decision."), status=409
            ) from None
        except Exception:
            _selfie_delete(name)
            raise
    return verification


def selfie_storage():
    """The private storage the selfies are in (the field's, fixed when models load)."""
    return Verification._meta.get_field("selfie").storage


def _selfie_delete(name: str) -> None:
    if name:
        selfie_storage().delete(name)


def verification_moderate(*, verification_id: int, approve: bool, reason: str = "") -> Verification | None:
    """Support's decision (apps.moderation.services, inside its transaction, in the site's
    schema). Verified: the member's approved photos are marked verified and the selfie is
    deleted once committed. Not verified: the selfie is kept VERIFICATION_KEEP_DAYS for an
    appeal. None when the request is gone (the member's account was erased)."""
    verification = (
        Verification.objects.select_for_update(of=("self",)).select_related("profile").filter(pk=verification_id)
    ).first()
    if verification is None:
        return None
    now = timezone.now()
    verification.status = VerificationStatus.APPROVED if approve else VerificationStatus.REJECTED
    verification.rejection_reason = "" if approve else reason
    verification.decided_at = now
    if approve:
        Photo.objects.filter(profile_id=verification.profile_id, status=PhotoStatus.ACTIVE).update(verified=True)
        name = verification.selfie.name
        verification.selfie = ""
        verification.delete_after = None
        transaction.on_commit(lambda: _selfie_delete(name))
    else:
        verification.delete_after = now + timedelta(days=VERIFICATION_KEEP_DAYS)
    verification.save(update_fields=["status", "rejection_reason", "decided_at", "selfie", "delete_after"])
    return verification


def verification_selfies_purge(*, now=None) -> int:
    """In the current site's schema: delete the selfies kept past `delete_after`.
    Returns how many."""
    now = now or timezone.now()
    due = list(Verification.objects.filter(delete_after__lte=now).exclude(selfie="").values_list("pk", "selfie")[:1000])
    for pk, name in due:
        _selfie_delete(name)
        Verification.objects.filter(pk=pk).update(selfie="", delete_after=None)
    return len(due)


def member_selfies_erase(*, user) -> None:
    """An erased member's selfies (apps.accounts.services.deletion, before the rows go)."""
    names = Verification.objects.filter(profile__user=user).exclude(selfie="").values_list("selfie", flat=True)
    for name in names:
        _selfie_delete(name)
