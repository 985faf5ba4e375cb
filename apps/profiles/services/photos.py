"""Members' own photos (spec §5, §9): upload within the limit (3 free, 25 premium), the
main photo, deletion. Uploads go through apps.profiles.images.process_upload."""

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

# Up to accounts: the member (User) whose photos these are; the photo limit reads the account.
from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.profiles.images import image_filename, process_upload
from apps.profiles.models import Photo, PhotoStatus, Profile
from apps.profiles.selectors import FREE_PHOTO_LIMIT, PREMIUM_PHOTO_LIMIT, photo_count, photo_limit
from apps.profiles.signals import photo_deleted, photo_pending
from apps.tenants.models import Site


def photo_limit_message(limit: int) -> str:
    if limit < PREMIUM_PHOTO_LIMIT:
        return _("You can upload up to %(free)s photos. Become a premium member to upload up to %(premium)s.") % {
            "free": FREE_PHOTO_LIMIT,
            "premium": PREMIUM_PHOTO_LIMIT,
        }
    return _("You can upload up to %(max)s photos.") % {"max": limit}


def _photo_limit_error(limit: int) -> ApplicationError:
    message = photo_limit_message(limit)
    # Well-formed, but the member has as many photos as they may: a conflict, not bad input.
    return ApplicationError("photo_limit", message, status_code=409, extra={"fields": {"photo": [message]}})


def _not_found() -> ApplicationError:
    return ApplicationError("not_found", _("This photo does not exist."), status_code=404)


def _profile_for(user: User, *, lock: bool = False) -> Profile:
    queryset = Profile.objects.select_for_update() if lock else Profile.objects
    profile = queryset.filter(user=user).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    return profile


def _own_photo(profile: Profile, photo_id) -> Photo:
    try:
        photo_id = int(photo_id)
    except (TypeError, ValueError):
        raise _not_found() from None
    photo = Photo.objects.filter(pk=photo_id, profile=profile).first()
    if photo is None:
        raise _not_found()
    return photo


def photo_upload(*, site: Site, user: User, upload) -> Photo:
    """Re-encode an uploaded photo and add it to the member's profile, as the main photo
    when there is none yet; `active` at once when the site approves automatically, else
    `pending`. Raises ImageRejected or "photo_limit". The profile row is locked while
    counting, so two uploads at the same moment cannot both pass the limit."""
    if upload is None:
        message = _("Choose a photo to upload.")
        raise ApplicationError("invalid", message, extra={"fields": {"photo": [message]}})
    limit = photo_limit(user)
    if photo_count(_profile_for(user)) >= limit:  # Cheap check before the expensive decoding.
        raise _photo_limit_error(limit)
    processed = process_upload(upload)
    with transaction.atomic():
        profile = _profile_for(user, lock=True)
        if photo_count(profile) >= limit:
            raise _photo_limit_error(limit)
        name = image_filename(processed.extension)
        photo = Photo(profile=profile, status=PhotoStatus.ACTIVE if site.auto_approve_photos else PhotoStatus.PENDING)
        photo.image.save(name, ContentFile(processed.full), save=False)
        photo.thumb.save(name, ContentFile(processed.thumb), save=False)
        photo.width, photo.height = processed.width, processed.height
        files = [photo.image.name, photo.thumb.name]
        try:  # The files exist before the row does: remove them if saving the row fails.
            photo.save()
            if photo.status == PhotoStatus.PENDING:  # into support's queue, in this transaction
                photo_pending.send(sender=Photo, site=site, photo=photo)
            if profile.main_photo_id is None:
                profile.main_photo = photo
                profile.save(update_fields=["main_photo", "updated"])
        except Exception:
            _files_delete(files)
            raise
    return photo


@transaction.atomic
def photo_set_main(*, user: User, photo_id) -> Photo:
    """Make one of the member's own photos (not a rejected one) the main photo. A waiting
    photo chosen while an approved one is main waits as `main_photo_waiting`: others see
    the approved one until support approves it (photo_moderate), never "no photo"."""
    profile = _profile_for(user, lock=True)
    photo = _own_photo(profile, photo_id)
    if photo.status == PhotoStatus.REJECTED:
        raise ApplicationError("photo_rejected", _("A rejected photo cannot be your main photo."), status_code=409)
    main = Photo.objects.filter(pk=profile.main_photo_id).only("status").first() if profile.main_photo_id else None
    if photo.status == PhotoStatus.PENDING and main is not None and main.status == PhotoStatus.ACTIVE:
        profile.main_photo_waiting = photo
    else:
        profile.main_photo, profile.main_photo_waiting = photo, None
    profile.save(update_fields=["main_photo", "main_photo_waiting", "updated"])
    return photo


def _files_delete(names: list[str]) -> None:
    from django.core.files.storage import default_storage

    for name in names:
        if name:
            default_storage.delete(name)


@transaction.atomic
def photo_delete(*, site: Site, user: User, photo_id) -> None:
    """Delete one of the member's own photos and, once committed, its files. When it was
    the main photo, the oldest remaining approved photo (else pending) takes its place."""
    profile = _profile_for(user, lock=True)
    photo = _own_photo(profile, photo_id)
    files = [photo.image.name, photo.thumb.name]
    was_main = profile.main_photo_id == photo.pk
    photo_id = photo.pk
    photo.delete()  # the database forgets it as the waiting main photo too (SET_NULL)
    if profile.main_photo_waiting_id == photo_id:
        profile.main_photo_waiting_id = None
    photo_deleted.send(sender=Photo, site=site, photo_id=photo_id)
    if was_main:
        _main_photo_replace(profile)
    transaction.on_commit(lambda: _files_delete(files))


def _main_photo_replace(profile: Profile) -> None:
    """The oldest remaining approved photo (else pending one) becomes the main photo."""
    remaining = Photo.objects.filter(profile=profile, status__in=[PhotoStatus.ACTIVE, PhotoStatus.PENDING])
    # Approved first ("active" < "pending"), then the oldest.
    profile.main_photo = remaining.order_by("status", "created", "pk").first()
    if profile.main_photo_waiting_id == getattr(profile.main_photo, "pk", None):
        profile.main_photo_waiting = None
    profile.save(update_fields=["main_photo", "main_photo_waiting", "updated"])


def photo_moderate(*, photo_id: int, approve: bool, reason: str = "") -> Photo | None:
    """Support's decision on a photo (apps.moderation.services, inside its transaction,
    in the site's schema): approved, others see it; rejected, only its member sees it,
    with the reason (a PhotoRejectionReason code, translated when shown). An approved
    photo becomes the main photo when the main one is not approved; a rejected main
    photo gives its place to the oldest approved (else pending) one. None when the
    member deleted the photo in the meantime."""
    photo = Photo.objects.select_for_update().filter(pk=photo_id).first()
    if photo is None:
        return None
    profile = Profile.objects.select_for_update(of=("self",)).select_related("main_photo").get(pk=photo.profile_id)
    photo.status = PhotoStatus.ACTIVE if approve else PhotoStatus.REJECTED
    photo.rejection_reason = "" if approve else reason
    photo.decided_at = timezone.now()
    photo.save(update_fields=["status", "rejection_reason", "decided_at"])
    main = profile.main_photo
    chosen = profile.main_photo_waiting_id == photo.pk
    if chosen:  # the member's choice is decided: it becomes main if approved, else is forgotten
        profile.main_photo_waiting = None
    if approve and (chosen or main is None or main.status != PhotoStatus.ACTIVE):
        profile.main_photo = photo
        profile.save(update_fields=["main_photo", "main_photo_waiting", "updated"])
    elif not approve and profile.main_photo_id == photo.pk:
        _main_photo_replace(profile)
    elif chosen:
        profile.save(update_fields=["main_photo_waiting", "updated"])
    return photo
