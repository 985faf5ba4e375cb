"""The member's own data as a ZIP (issue 3 item 8): `data.json` plus the photo files and
the member's own verification selfies while they are kept.

Other apps add what they hold about the member without this module knowing them:

    from apps.accounts.services.export import export_section

    @export_section
    def chat_messages(user):
        return "messages", [...only the member's own messages...]

Sections run in registration order and a later section replaces an earlier one of the
same name, so the `messages` and `purchases` placeholders below are filled by the chat
and payments apps (apps.payments.export) (register from their AppConfig.ready). Files are registered the same
way with `export_files`: callables(user) -> iterable of (path in the ZIP, storage, name).
Every callable must return only data of the member it is given, and what others sent
that member (the conversations as the member saw them, apps.chat.export)."""

import json
import posixpath
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import IO, Any

from allauth.core import ratelimit
from django.core.files.storage import Storage
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django_countries.fields import Country

from apps.accounts.models import SignupTracking, User
from apps.common.exceptions import ApplicationError
from apps.profiles.models import Photo, Profile, Verification

ExportSection = Callable[[User], tuple[str, Any]]
ExportFiles = Callable[[User], Iterable[tuple[str, Storage, str]]]

EXPORT_SECTIONS: list[ExportSection] = []
EXPORT_FILES: list[ExportFiles] = []
RATE_LIMIT_ACTION = "export_data"
IN_MEMORY_BYTES = 10 * 1024 * 1024


def export_section(func: ExportSection) -> ExportSection:
    EXPORT_SECTIONS.append(func)
    return func


def export_files(func: ExportFiles) -> ExportFiles:
    EXPORT_FILES.append(func)
    return func


def _plain(value: Any) -> Any:
    if isinstance(value, Country):
        return value.code or None
    if isinstance(value, datetime):
        return timezone.localtime(value).isoformat() if timezone.is_aware(value) else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, models.fields.files.FieldFile):
        return value.name or None
    return value


def _fields(instance: models.Model, *, exclude: tuple[str, ...] = ()) -> dict:
    """Every concrete field of the row; a foreign key as its id."""
    return {
        field.name: _plain(getattr(instance, field.attname if field.is_relation else field.name))
        for field in instance._meta.concrete_fields
        if field.name not in exclude
    }


def _photo_path(photo: Photo) -> str:
    return f"photos/{photo.pk}-{posixpath.basename(photo.image.name)}"


@export_section
def account_section(user: User) -> tuple[str, dict]:
    tracking = SignupTracking.objects.filter(user=user).first()
    return "account", {
        "id": user.pk,
        "email": user.email,
        "name": user.username,
        "date_of_birth": _plain(user.date_of_birth),
        "language": user.language,
        "time_zone": user.time_zone or None,
        "country": _plain(user.country),
        "status": user.status,
        "signup_date": _plain(user.date_joined),
        "last_login": _plain(user.last_login),
        "settings": {
            "invisible": user.invisible,
            "email_notifications": list(user.email_notifications),
            "push_notifications": list(user.push_notifications),
            "email_notifications_disabled": user.email_disabled_reason or None,
            "dismissed_alerts": user.dismissals,
        },
        "email_addresses": [
            {"email": address.email, "verified": address.verified, "primary": address.primary}
            for address in user.emailaddress_set.order_by("pk")
        ],
        "push_subscriptions": [
            {"endpoint": subscription.endpoint, "created": _plain(subscription.created)}
            for subscription in user.push_subscriptions.order_by("pk")
        ],
        "tracking": _fields(tracking, exclude=("id", "user")) if tracking else None,
    }


@export_section
def profile_section(user: User) -> tuple[str, dict | None]:
    profile = Profile.objects.filter(user=user).first()
    return "profile", _fields(profile, exclude=("user",)) if profile else None


@export_section
def photos_section(user: User) -> tuple[str, list]:
    return "photos", [
        {
            "id": photo.pk,
            "file": _photo_path(photo),
            "file_name": posixpath.basename(photo.image.name),
            "status": photo.status,
            "width": photo.width,
            "height": photo.height,
            "created": _plain(photo.created),
        }
        for photo in Photo.objects.filter(profile__user=user).order_by("pk")
    ]


def _selfie_path(verification: Verification) -> str:
    return f"verification/{verification.pk}-{posixpath.basename(verification.selfie.name)}"


@export_section
def verifications_section(user: User) -> tuple[str, list]:
    """The member's own verification requests (apps.profiles.services.verification): when,
    the pose, the state and support's reason when not verified. The selfie is referenced
    (and put in the ZIP, `verification_selfies`) only while it is kept: it is deleted once
    verified, and some days after a rejection."""
    return "verifications", [
        {
            "id": verification.pk,
            "created": _plain(verification.created),
            "pose": verification.pose,
            "status": verification.status,
            "status_text": str(verification.get_status_display()),
            "decided_at": _plain(verification.decided_at),
            "rejection_reason": verification.rejection_reason or None,
            "rejection_reason_text": str(verification.get_rejection_reason_display())
            if verification.rejection_reason
            else None,
            "selfie": _selfie_path(verification) if verification.selfie.name else None,
            "selfie_deleted_after": _plain(verification.delete_after),
        }
        for verification in Verification.objects.filter(profile__user=user).order_by("pk")
    ]


@export_section
def messages_section(user: User) -> tuple[str, list]:
    return "messages", []  # replaced by the chat app's section


@export_section
def purchases_section(user: User) -> tuple[str, list]:
    return "purchases", []  # replaced by the payments app's section


@export_files
def photo_files(user: User) -> Iterable[tuple[str, Storage, str]]:
    for photo in Photo.objects.filter(profile__user=user).order_by("pk"):
        if photo.image.name:
            yield _photo_path(photo), photo.image.storage, photo.image.name


@export_files
def verification_selfies(user: User) -> Iterable[tuple[str, Storage, str]]:
    """The member's own selfies still kept (private storage; never anyone else's)."""
    for verification in Verification.objects.filter(profile__user=user).exclude(selfie="").order_by("pk"):
        yield _selfie_path(verification), verification.selfie.storage, verification.selfie.name


def member_export_data(*, user: User) -> dict:
    data: dict[str, Any] = {"exported_at": _plain(timezone.now())}
    for section in EXPORT_SECTIONS:
        name, value = section(user)
        data[name] = value
    return data


def member_export_build(*, user: User) -> IO[bytes]:
    """The ZIP, rewound, in a temporary file (in memory while small)."""
    buffer = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115 - returned open
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        data = member_export_data(user=user)
        archive.writestr("data.json", json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2))
        for producer in EXPORT_FILES:
            for path, storage, name in producer(user):
                try:
                    source = storage.open(name, "rb")
                except FileNotFoundError:
                    continue  # a file lost from storage must not block the export
                # Photos are compressed already: stored as they are.
                with source, archive.open(zipfile.ZipInfo(path, date_time=_zip_time()), "w") as target:
                    shutil.copyfileobj(source, target)
    buffer.seek(0)
    return buffer


def _zip_time() -> tuple[int, int, int, int, int, int]:
    return timezone.now().timetuple()[:6]


def member_export(*, request: HttpRequest, user: User) -> IO[bytes]:
    """The member's export, at most a few times an hour (ACCOUNT_RATE_LIMITS)."""
    if not ratelimit.consume(request, action=RATE_LIMIT_ACTION, user=user):
        raise ApplicationError(
            "rate_limited",
            _("You have downloaded your data several times in the last hour. Please try again later."),
            status_code=429,
        )
    return member_export_build(user=user)
