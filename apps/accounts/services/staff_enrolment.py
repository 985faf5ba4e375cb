"""Setting up the second step of a staff member of the operators' admin, by one-time link.

A password alone never sets up an authenticator: whoever learnt a new staff member's
password (or a password after a reset) would otherwise put their own phone in. The
set-up needs a link made on the server, by `manage.py staff_create` (printed to whoever
runs it) or by another operator's "Reset the second step" in the admin (mailed to the
staff member):

- the link carries 32 random bytes; only their SHA-256 is stored (StaffEnrolmentLink);
- it is valid for STAFF_ENROLMENT_LINK_HOURS (24 h) and works once: confirming the
  authenticator's first code uses it up, under a row lock, so two browsers with the same
  link cannot both set up a device;
- a newer link for the same staff member replaces the older one, and setting up a device
  ends every link of that staff member;
- making a link and setting up a device are recorded in the audit trail (who, whom, when)
  through `apps.accounts.signals.staff_second_step`, inside the same transaction.

The login views (apps.accounts.admin_login) read a followed link from the session."""

from __future__ import annotations

import datetime
import hashlib
import re
import secrets

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tenants.utils import schema_context

from apps.accounts.mail import mail_send_later
from apps.accounts.models import StaffEnrolmentLink, User
from apps.accounts.signals import staff_second_step
from apps.common.exceptions import ApplicationError

LINK_VALIDITY = datetime.timedelta(hours=24)
# secrets.token_urlsafe(32): 43 characters of the URL-safe base64 alphabet. Anything else
# in the address is refused before it reaches the database.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")

# Why a link was made (the audit row's reason).
CAUSE_CREATED = "staff member created"
CAUSE_RESET = "second step reset"
CAUSE_DEMO = "demo operator of make run"


def token_hash(token: str) -> str:
    """SHA-256 of a link's token: 256 random bits need no slow hash."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def enrolment_path(token: str) -> str:
    # The admin is in the operators' host's URLs only, also when no request is around.
    return reverse("admin:staff_enrol_link", kwargs={"token": token}, urlconf=settings.PUBLIC_SCHEMA_URLCONF)


def admin_base_url() -> str:
    """The operators' host as links made without a request name it: the public schema's
    primary domain with SITE_URL_SCHEME and SITE_URL_PORT."""
    from apps.tenants.models import Domain

    with schema_context(settings.PUBLIC_SCHEMA_NAME):
        domain = (
            Domain.objects.filter(tenant__schema_name=settings.PUBLIC_SCHEMA_NAME)
            .order_by("-is_primary", "pk")
            .values_list("domain", flat=True)
            .first()
        )
    port = f":{settings.SITE_URL_PORT}" if settings.SITE_URL_PORT else ""
    return f"{settings.SITE_URL_SCHEME}://{domain or 'localhost'}{port}"


def enrolment_link_make(*, user: User, by: User | None, cause: str) -> str:
    """A new set-up link for `user` (a staff member); returns its token, which is shown
    or mailed once and kept nowhere. Earlier links of `user` stop working."""
    if not user.is_staff:
        raise ValueError("set-up links are for staff members only")
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic():
        StaffEnrolmentLink.objects.filter(user=user).delete()
        link = StaffEnrolmentLink.objects.create(
            user=user,
            token_hash=token_hash(token),
            made_by=by.get_username() if by is not None else "system",
            created=now,
            expires=now + LINK_VALIDITY,
        )
        staff_second_step.send(
            sender=StaffEnrolmentLink, user=user, by=by, event="link_made", cause=cause, expires=link.expires
        )
    return token


def second_step_restart(*, user: User, by: User | None, cause: str) -> str:
    """Delete `user`'s devices (their open sessions lose their verification) and make a
    set-up link; returns its token. `by` None: a command run on the server."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        return enrolment_link_make(user=user, by=by, cause=cause)


def second_step_reset(*, user: User, by: User, base_url: str) -> None:
    """Another operator's "Reset the second step": `user`'s devices are deleted (their
    open sessions lose their verification) and a set-up link is mailed to them. Nobody
    resets their own second step: a session that could would let a stolen password and
    a stolen session cookie together replace the real owner's phone."""
    if by.pk == user.pk:
        raise ApplicationError(
            "own_second_step", _("You cannot reset your own second step. Ask another operator."), status_code=403
        )
    if not user.email:
        raise ApplicationError(
            "no_email",
            _("%(username)s has no e-mail address for the set-up link. Add one first.")
            % {"username": user.get_username()},
        )
    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic():
        token = second_step_restart(user=user, by=by, cause=CAUSE_RESET)
        mail_send_later(
            template_prefix="admin/accounts/email/staff_enrolment",
            email=user.email,
            context={
                "user": user,
                "by": by.get_username(),
                "link": base_url.rstrip("/") + enrolment_path(token),
                "hours": int(LINK_VALIDITY.total_seconds() // 3600),
            },
        )


def enrolment_link_valid(token: str) -> StaffEnrolmentLink:
    """The link of `token` while it can set up a device; otherwise ApplicationError with
    the reason in the staff member's words (not known, used, expired)."""
    link = None
    if TOKEN_SHAPE.fullmatch(token or ""):
        with schema_context(settings.PUBLIC_SCHEMA_NAME):
            link = StaffEnrolmentLink.objects.select_related("user").filter(token_hash=token_hash(token)).first()
    if link is None or not (link.user.is_active and link.user.is_staff):
        raise ApplicationError(
            "link_invalid",
            _("This link to set up the second step is not valid. Ask another operator for a new one."),
            status_code=404,
        )
    if link.used_at is not None:
        raise ApplicationError(
            "link_used",
            _("This link to set up the second step has already been used. Ask another operator for a new one."),
            status_code=410,
        )
    if link.expires <= timezone.now():
        raise ApplicationError(
            "link_expired",
            _("This link to set up the second step has expired. Ask another operator for a new one."),
            status_code=410,
        )
    return link


def enrolment_link_of(user: User, link_id) -> StaffEnrolmentLink | None:
    """The link followed in this session (its id), when it is `user`'s and still valid."""
    if not isinstance(link_id, int):
        return None
    with schema_context(settings.PUBLIC_SCHEMA_NAME):
        return StaffEnrolmentLink.objects.filter(
            pk=link_id, user=user, used_at__isnull=True, expires__gt=timezone.now()
        ).first()


def enrolment_confirm(*, user: User, link_id: int, device, code: str) -> bool:
    """Confirm `device` with the authenticator's first `code` and use the link up, in one
    transaction under row locks (a code and a link work once, even for two requests at
    the same time). False when the code is wrong; ApplicationError when the link stopped
    working meanwhile (used in another browser, replaced, expired)."""
    with schema_context(settings.PUBLIC_SCHEMA_NAME), transaction.atomic():
        link = (
            StaffEnrolmentLink.objects.select_for_update()
            .filter(pk=link_id, user=user, used_at__isnull=True, expires__gt=timezone.now())
            .first()
        )
        if link is None:
            raise ApplicationError(
                "link_invalid",
                _("This link to set up the second step is not valid. Ask another operator for a new one."),
                status_code=404,
            )
        device = type(device).objects.select_for_update().get(pk=device.pk)
        if not device.verify_token(code):
            return False
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        type(device).objects.filter(user=user).exclude(pk=device.pk).delete()
        link.used_at = timezone.now()
        link.save(update_fields=["used_at"])
        # Any other link of this staff member ends with the set-up.
        StaffEnrolmentLink.objects.filter(user=user, used_at__isnull=True).delete()
        staff_second_step.send(
            sender=StaffEnrolmentLink, user=user, by=user, event="enrolled", cause=link.made_by, expires=link.expires
        )
    return True
