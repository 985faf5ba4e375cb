"""Account settings (spec §2 "settings", §4 e-mail notifications, §5 e-mail change):
changing the e-mail address and the password, invisible mode, notification
preferences, and the remedies for e-mail notifications that were switched off."""

from urllib.parse import urlencode

from allauth.account.models import EmailAddress
from allauth.core import ratelimit
from django.conf import settings
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.mail import mail_send_later
from apps.accounts.models import NOTIFICATION_TYPE_NAMES, EmailDisabledReason, User, UserStatus
from apps.accounts.services.directory import directory_sync
from apps.accounts.services.signup import member_confirmed_notify
from apps.accounts.services.tokens import member_token_make, member_token_read
from apps.common.exceptions import ApplicationError
from apps.profiles.models import Profile, ProfileStatus

EMAIL_MAX_LENGTH = 254
MAIL_CHANGE = "mail-change"
MAIL_CHECK = "mail-check"
UNSUBSCRIBE = "unsubscribe"


def _invalid(fields: dict[str, list[str]]) -> ApplicationError:
    return ApplicationError("invalid", _("Please check the fields marked in red."), extra={"fields": fields})


def link_invalid_error() -> ApplicationError:
    return ApplicationError("link_invalid", _("Link expired or invalid, request a new email"))


def _email_taken_error() -> ApplicationError:
    return ApplicationError("email_taken", _("This email address already owns an account on this website."))


def _email_link_max_age() -> int:
    return settings.ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS * 24 * 60 * 60


def _absolute(request: HttpRequest, route: str, **query) -> str:
    return request.build_absolute_uri(reverse(route) + "?" + urlencode(query))


def _email_taken(email: str, *, by_other_than: User) -> bool:
    return User.objects.filter(email__iexact=email).exclude(pk=by_other_than.pk).exists()


def _member_confirmed(user: User) -> list[str]:
    """The member proved the address is theirs: a member who never confirmed becomes
    active, as with the activation link (and the confirmation hooks run, e.g. the signup
    credits). Call inside the transaction that saves the user. Returns the changed fields
    (not saved)."""
    if user.status != UserStatus.NOT_CONFIRMED:
        return []
    user.status = UserStatus.ACTIVE
    Profile.objects.filter(user=user).update(status=ProfileStatus.ACTIVE)
    member_confirmed_notify(user)
    return ["status"]


# --- E-mail address -----------------------------------------------------------------


def email_change_request(*, request: HttpRequest, user: User, new_email: str, password: str) -> EmailAddress:
    """Check the new address and the password, keep the address as a pending (unverified)
    allauth address and mail a confirmation link to it. Nothing changes until the link
    is opened; a newer request makes the links of older ones useless."""
    if not ratelimit.consume(request, action="manage_email"):
        raise ApplicationError(
            "rate_limited", _("Too many attempts. Please wait a minute and try again."), status_code=429
        )
    new_email = (new_email or "").strip()
    errors: dict[str, list[str]] = {}
    try:
        if len(new_email) > EMAIL_MAX_LENGTH:
            raise ValidationError("too long")
        validate_email(new_email)
    except ValidationError:
        errors["new_email"] = [_("New email adress is invalid.")]
    password_ok = user.check_password(password or "")
    if not password_ok:
        errors["password"] = [_("Please check your password.")]
    elif "new_email" not in errors:
        # Whether an address has an account is told only to who knows the password.
        if new_email.casefold() == user.email.casefold():
            errors["new_email"] = [_("This is already your e-mail address.")]
        elif _email_taken(new_email, by_other_than=user):
            errors["new_email"] = [_("This email address already owns an account on this website.")]
    if errors:
        raise _invalid(errors)
    with transaction.atomic():
        EmailAddress.objects.filter(user=user).exclude(email__iexact=user.email).delete()
        address = EmailAddress.objects.create(user=user, email=new_email, primary=False, verified=False)
    token = member_token_make(purpose=MAIL_CHANGE, member_id=user.pk, a=address.pk, e=address.email)
    mail_send_later(
        template_prefix="account/email/email_change",
        email=address.email,
        context={"user": user, "new_email": address.email, "link": _absolute(request, "mail-change-do", key=token)},
    )
    return address


@transaction.atomic
def email_change_confirm(*, key: str) -> User:
    """Open the link of `email_change_request`: the pending address becomes the
    member's address. The link works once: afterwards the address is verified."""
    payload = member_token_read(purpose=MAIL_CHANGE, token=key, max_age=_email_link_max_age())
    if payload is None:
        raise link_invalid_error()
    user = User.objects.select_for_update().filter(pk=payload["m"]).first()
    if user is None or user.status == UserStatus.DELETED:
        raise link_invalid_error()
    address = EmailAddress.objects.filter(pk=payload.get("a"), user=user, verified=False).first()
    if address is None or address.email != payload.get("e"):
        raise link_invalid_error()
    if _email_taken(address.email, by_other_than=user):
        raise _email_taken_error()
    EmailAddress.objects.filter(user=user).exclude(pk=address.pk).delete()
    user.email = address.email
    changed = ["email", *_member_confirmed(user)]
    if user.email_disabled_reason == EmailDisabledReason.BOUNCE:
        # The bounce was for the old address.
        user.email_disabled_reason = ""
        user.email_disabled_at = None
        changed += ["email_disabled_reason", "email_disabled_at"]
    try:
        with transaction.atomic():
            address.verified = True
            address.primary = True
            address.save(update_fields=["verified", "primary"])
            user.save(update_fields=changed)
    except IntegrityError as error:  # another member took the address meanwhile
        raise _email_taken_error() from error
    directory_sync(user=user)
    return user


def email_check_request(*, request: HttpRequest, user: User) -> None:
    """Remedy for a bounce: mail a link to the current address; opening it shows that
    mail arrives there again."""
    if not ratelimit.consume(request, action="confirm_email", key=user.email.lower()):
        raise ApplicationError(
            "rate_limited", _("We have just sent you an e-mail. Please wait a few minutes."), status_code=429
        )
    token = member_token_make(purpose=MAIL_CHECK, member_id=user.pk, e=user.email)
    mail_send_later(
        template_prefix="account/email/email_check",
        email=user.email,
        context={"user": user, "link": _absolute(request, "mail-check-do", key=token)},
    )


@transaction.atomic
def email_check_confirm(*, key: str) -> User:
    """Open the link of `email_check_request`. Idempotent: the link only proves that
    mail reaches the address it was sent to, which stays true."""
    payload = member_token_read(purpose=MAIL_CHECK, token=key, max_age=_email_link_max_age())
    if payload is None:
        raise link_invalid_error()
    user = User.objects.select_for_update().filter(pk=payload["m"]).first()
    if user is None or user.status == UserStatus.DELETED or user.email.casefold() != str(payload.get("e")).casefold():
        raise link_invalid_error()
    changed = _member_confirmed(user)
    if user.email_disabled_reason == EmailDisabledReason.BOUNCE:
        user.email_disabled_reason = ""
        user.email_disabled_at = None
        changed += ["email_disabled_reason", "email_disabled_at"]
    if changed:
        user.save(update_fields=changed)
        directory_sync(user=user)
    EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=False).update(verified=True)
    return user


# --- Password -----------------------------------------------------------------------


def password_change(
    *, request: HttpRequest, user: User, old_password: str, new_password1: str, new_password2: str
) -> None:
    """Change the password; the member stays logged in here and every other session
    of the member ends (Django checks the password hash stored in each session)."""
    if not ratelimit.consume(request, action="change_password"):
        raise ApplicationError(
            "rate_limited",
            _("Too many attempts to change your password. Please wait a minute and try again."),
            status_code=429,
        )
    errors: dict[str, list[str]] = {}
    if not user.check_password(old_password or ""):
        errors["old_password"] = [_("Please check your old password.")]
    if (new_password1 or "") != (new_password2 or ""):
        errors["new_password2"] = [_("The entered passwords are not the same.")]
    else:
        try:
            validate_password(new_password1 or "", user=user)
        except ValidationError as error:
            errors["new_password1"] = list(error.messages)
    if errors:
        raise _invalid(errors)
    user.set_password(new_password1)
    user.save(update_fields=["password"])
    update_session_auth_hash(request, user)


# --- Visibility and notifications ----------------------------------------------------


def invisible_set(*, user: User, invisible: bool) -> None:
    """Invisible members do not appear in search (the search reads `User.invisible`)."""
    if user.invisible != invisible:
        user.invisible = invisible
        user.save(update_fields=["invisible"])


def notification_preferences_set(*, user: User, email_types: list[str], push_types: list[str]) -> None:
    """Store the notification types the member wants per channel; unknown names are
    dropped and the stored order is that of spec §3. Choosing again ends an unsubscribe
    (a bounce or a complaint has its own remedy)."""
    user.email_notifications = [name for name in NOTIFICATION_TYPE_NAMES if name in set(email_types)]
    user.push_notifications = [name for name in NOTIFICATION_TYPE_NAMES if name in set(push_types)]
    fields = ["email_notifications", "push_notifications"]
    if user.email_disabled_reason == EmailDisabledReason.UNSUBSCRIBE:
        user.email_disabled_reason = ""
        user.email_disabled_at = None
        fields += ["email_disabled_reason", "email_disabled_at"]
    user.save(update_fields=fields)


def email_notifications_resume(*, user: User) -> None:
    """Remedy for a spam complaint or an unsubscribe: the member asks for e-mail again.
    A member who had unsubscribed from everything gets the default types back. A bounce
    needs a working address instead (`email_check_request`, a new address)."""
    # Up to the notifications' consent: a member asking for e-mail again gets the default types back.
    from apps.notifications.consent import default_notification_types

    if user.email_disabled_reason == EmailDisabledReason.BOUNCE:
        raise ApplicationError(
            "bounce", _("First check your e-mail address: our e-mails to it could not be delivered.")
        )
    if user.email_disabled_reason:
        user.email_disabled_reason = ""
        user.email_disabled_at = None
        fields = ["email_disabled_reason", "email_disabled_at"]
        if not user.email_notifications:
            user.email_notifications = default_notification_types(user.country.code if user.country else "")
            fields.append("email_notifications")
        user.save(update_fields=fields)


def unsubscribe_token(*, user_id: int, kind: str = "") -> str:
    """The signed token of the one-click unsubscribe link for the member's e-mails of
    `kind` (a notification type), or of all of them. It does not expire: an old e-mail's
    link must keep working."""
    extra = {"k": kind} if kind else {}
    return member_token_make(purpose=UNSUBSCRIBE, member_id=user_id, **extra)


def unsubscribe_url(*, request: HttpRequest, user: User, kind: str = "") -> str:
    return _absolute(request, "unsubscribe", token=unsubscribe_token(user_id=user.pk, kind=kind))


def _unsubscribe_payload(token: str) -> tuple[User, str]:
    payload = member_token_read(purpose=UNSUBSCRIBE, token=token)
    user = User.objects.filter(pk=payload["m"]).first() if payload else None
    kind = payload.get("k", "") if payload else ""
    if user is None or (kind and kind not in NOTIFICATION_TYPE_NAMES):
        raise link_invalid_error()
    return user, kind


def unsubscribe_member(*, token: str) -> User:
    """The member an unsubscribe link is for (read only); `user.unsubscribe_kind` is the
    type the link stops ("" for all e-mails)."""
    user, kind = _unsubscribe_payload(token)
    user.unsubscribe_kind = kind
    return user


@transaction.atomic
def email_unsubscribe(*, token: str) -> User:
    """Stop e-mails of the link's type (or all notification e-mails) without logging in,
    and record the reason "unsubscribe". Idempotent; a reason already set (spam
    complaint, bounce) is kept because its remedy is the one that applies."""
    # Up to the notifications' models: an unsubscribe skips the e-mail notices still waiting.
    from apps.notifications.models import Channel, Notice, NoticeState

    user, kind = _unsubscribe_payload(token)
    user = User.objects.select_for_update().get(pk=user.pk)
    user.unsubscribe_kind = kind
    kinds = [kind] if kind else list(NOTIFICATION_TYPE_NAMES)
    user.email_notifications = [name for name in user.email_notifications if name not in kinds]
    fields = ["email_notifications"]
    if not user.email_disabled_reason:
        user.email_disabled_reason = EmailDisabledReason.UNSUBSCRIBE
        user.email_disabled_at = timezone.now()
        fields += ["email_disabled_reason", "email_disabled_at"]
    user.save(update_fields=fields)
    Notice.objects.filter(user=user, channel=Channel.EMAIL, state=NoticeState.PENDING, kind__in=kinds).update(
        state=NoticeState.SKIPPED, result="unsubscribed"
    )
    return user


def member_language_set(*, user: User, language: str, languages) -> bool:
    """Keeps the interface language the member chose (spec §7 PUT /api/user.php
    {language}; the language menu too): e-mails and pushes are written in it from then on.
    False, and nothing changes, for a language the site does not offer."""
    if language not in languages:
        return False
    if user.language != language:
        user.language = language
        user.save(update_fields=["language"])
    return True
