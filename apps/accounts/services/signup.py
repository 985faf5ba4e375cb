"""Signing up and confirming the e-mail address (spec §4 Signup, §5)."""

from collections.abc import Callable

from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.core import ratelimit
from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from apps.accounts.models import SignupMessage, SignupTracking, User, UserStatus
from apps.accounts.selectors import signup_allowed, user_by_email
from apps.accounts.services.directory import directory_sync
from apps.accounts.services.tokens import member_token_read
from apps.accounts.tracking import signup_tracking_from_request
from apps.common.exceptions import ApplicationError
from apps.common.locale import request_country

# Up to the notifications' consent: a new member starts with the default notice types.
from apps.notifications.consent import default_notification_types
from apps.profiles.models import Profile, ProfileStatus
from apps.profiles.services.profile import date_of_birth_clean, name_error
from apps.tenants.selectors import selected_country

AUTH_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"

# --- Confirmation hooks ---------------------------------------------------------------

MemberConfirmedHook = Callable[[User], None]
_member_confirmed_hooks: list[MemberConfirmedHook] = []


def member_confirmed_register(hook: MemberConfirmedHook) -> MemberConfirmedHook:
    """Let another app act when a member who never confirmed the e-mail address confirms
    it and becomes active (apps.credits grants the signup credits). Call from
    AppConfig.ready(); usable as a decorator. Hooks run inside the confirming transaction,
    once per confirmation, and must be idempotent (a member may be confirmed again after
    an e-mail change)."""
    if hook not in _member_confirmed_hooks:
        _member_confirmed_hooks.append(hook)
    return hook


def member_confirmed_unregister(hook: MemberConfirmedHook) -> None:
    if hook in _member_confirmed_hooks:
        _member_confirmed_hooks.remove(hook)


def member_confirmed_notify(user: User) -> None:
    """Run the hooks for a member who has just become active by confirming."""
    for hook in list(_member_confirmed_hooks):
        hook(user)


def signup_validate(*, request: HttpRequest, email: str, name: str, date_of_birth, password: str) -> dict:
    """Every rule of spec §5 with its message; returns the cleaned values or raises
    ApplicationError("invalid") whose `fields` maps each field to its messages."""
    site = request.site
    errors: dict[str, list[str]] = {}
    email = (email or "").strip()
    name = (name or "").strip()
    try:
        validate_email(email)
    except ValidationError:
        errors.setdefault("email", []).append(_("Invalid email"))
    message = name_error(name, email=email)
    if message:
        errors.setdefault("name", []).append(message)
    born, message = date_of_birth_clean(date_of_birth, min_age=site.min_age)
    if message:
        errors.setdefault("date_of_birth", []).append(message)
    try:
        validate_password(password or "", user=User(username=name, email=email))
    except ValidationError as error:
        errors.setdefault("password", []).extend(error.messages)
    if errors:
        raise ApplicationError("invalid", _("Please check the fields marked in red."), extra={"fields": errors})
    return {"email": email, "name": name, "date_of_birth": born, "password": password}


def _existing_account_error(user: User) -> ApplicationError:
    if user.status == UserStatus.DELETED:
        return ApplicationError(
            "account_deleted",
            _(
                "This e-mail address belongs to an account that is being deleted. "
                "Reactivate it with the link in our e-mail, or ask customer service for help."
            ),
            status_code=409,
        )
    return ApplicationError(
        "account_exists",
        _("This email address already owns an account on this website.") + " " + _("Please log in."),
        status_code=409,
    )


@transaction.atomic
def member_signup(
    *,
    request: HttpRequest,
    email: str,
    name: str,
    date_of_birth,
    password: str,
    signup_message: str = "",
    profile_id: int | None = None,
) -> User:
    """Create the account, its disabled profile and its tracking row, send the
    confirmation e-mail and log the member in (not confirmed yet)."""
    if not signup_allowed(request=request):
        raise ApplicationError("signups_closed", _("Signing up is not possible right now."), status_code=403)
    existing = user_by_email(email or "")
    if existing is not None:
        raise _existing_account_error(existing)
    if not ratelimit.consume(request, action="signup"):
        raise ApplicationError("rate_limited", _("An error occured, please try again later."), status_code=429)
    data = signup_validate(request=request, email=email, name=name, date_of_birth=date_of_birth, password=password)
    site = request.site
    country = selected_country(site, request_country(request))
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=data["name"],
                email=data["email"],
                password=data["password"],
                date_of_birth=data["date_of_birth"],
                language=translation.get_language() or "en",
                country=country,
                status=UserStatus.NOT_CONFIRMED,
                # Marketing types only with consent where the law asks for it.
                email_notifications=default_notification_types(country),
                push_notifications=default_notification_types(country),
            )
    except IntegrityError as error:
        existing = user_by_email(data["email"])
        raise (
            _existing_account_error(existing)
            if existing
            else ApplicationError(
                "invalid",
                _("This name is already taken."),
                extra={"fields": {"name": [_("This name is already taken.")]}},
            )
        ) from error
    Profile.objects.create(
        user=user, name=user.username, date_of_birth=user.date_of_birth, country=country, status=ProfileStatus.DISABLED
    )
    SignupTracking.objects.create(user=user, **signup_tracking_from_request(request))
    text = (signup_message or "").strip()
    # Only an active profile can receive the first message; anything else is dropped.
    if text and profile_id and Profile.objects.filter(pk=profile_id, status=ProfileStatus.ACTIVE).exists():
        SignupMessage.objects.create(user=user, profile_id=profile_id, text=text[: site.message_length])
    address = EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=False)
    address.send_confirmation(request, signup=True)
    directory_sync(user=user)
    login(request, user, backend=AUTH_BACKEND)
    return user


@transaction.atomic
def member_confirm_email(*, request: HttpRequest, key: str) -> User:
    """Confirm the address the link was sent to; the profile becomes visible."""
    payload = member_token_read(
        purpose="activate", token=key, max_age=settings.ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS * 24 * 3600
    )
    address = (
        EmailAddress.objects.filter(pk=payload.get("a"), user_id=payload["m"], email__iexact=payload.get("e", ""))
        .select_related("user")
        .first()
        if payload
        else None
    )
    if address is None:
        raise ApplicationError("activation_failed", _("Activation failed"))
    user = User.objects.select_for_update().get(pk=address.user_id)
    if address.email.casefold() != user.email.casefold():
        raise ApplicationError("activation_failed", _("Activation failed"))
    EmailConfirmationHMAC(address).confirm(request)
    if user.status == UserStatus.NOT_CONFIRMED:
        user.status = UserStatus.ACTIVE
        user.save(update_fields=["status"])
        Profile.objects.filter(user=user).update(status=ProfileStatus.ACTIVE)
        directory_sync(user=user)
        member_confirmed_notify(user)
    return user


def member_resend_confirmation(*, request: HttpRequest, user: User) -> None:
    address = EmailAddress.objects.filter(user=user, email__iexact=user.email).first()
    if address is None or address.verified:
        return
    if not ratelimit.consume(request, action="confirm_email", key=user.email.lower()):
        raise ApplicationError(
            "rate_limited", _("We have just sent you an e-mail. Please wait a few minutes."), status_code=429
        )
    address.send_confirmation(request)
