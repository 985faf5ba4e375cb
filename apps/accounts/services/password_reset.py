"""Resetting a forgotten password by e-mail (spec §5, §8), on allauth's rate limit and
Django's password reset tokens."""

from allauth.account.adapter import get_adapter
from allauth.account.utils import url_str_to_user_pk, user_pk_to_url_str
from allauth.core import ratelimit
from django.contrib.auth import login
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.accounts.mail import mail_send_later
from apps.accounts.models import User, UserStatus
from apps.accounts.selectors import user_by_email
from apps.common.exceptions import ApplicationError

AUTH_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"


class SitePasswordResetTokenGenerator(PasswordResetTokenGenerator):
    """Django's token (password hash, last login, e-mail, 3-day PASSWORD_RESET_TIMEOUT),
    also bound to the site's schema: member ids repeat across sites. Setting the password
    or logging in changes the hash, so a key works once."""

    key_salt = "apps.accounts.services.password_reset.SitePasswordResetTokenGenerator"

    def _make_hash_value(self, user, timestamp) -> str:
        return f"{super()._make_hash_value(user, timestamp)}{connection.schema_name}"


token_generator = SitePasswordResetTokenGenerator()


def _link_invalid() -> ApplicationError:
    return ApplicationError("reset_link_invalid", _("Link expired or invalid, request a new email"))


def password_reset_key_make(user: User) -> str:
    return f"{user_pk_to_url_str(user)}-{token_generator.make_token(user)}"


def password_reset_key_user(key: str) -> User | None:
    """The member a reset key (`<uidb36>-<token>`) belongs to on this site, or None when
    the key is forged, expired, used or of another site."""
    uidb36, _sep, token = (key or "").partition("-")
    if not uidb36 or not token:
        return None
    try:
        pk = url_str_to_user_pk(uidb36)
    except (ValueError, ValidationError):
        return None
    user = User.objects.filter(pk=pk).exclude(status=UserStatus.DELETED).first()
    if user is None or not token_generator.check_token(user, token):
        return None
    return user


def password_reset_request(*, request: HttpRequest, email: str) -> User:
    """Send the reset link to a member of this site, at most PASSWORD_RESET_DAILY_LIMIT
    times a day per address (and 20 requests a minute per IP, unknown addresses included)."""
    email = (email or "").strip()
    if not ratelimit.consume(request, action="reset_password", key=email.lower()):
        raise ApplicationError(
            "rate_limited", _("Too many password reset emails sent, please try again tomorrow."), status_code=429
        )
    user = user_by_email(email) if email else None
    if user is None or user.status == UserStatus.DELETED:
        raise ApplicationError("email_not_found", _("E-mail address not found"))
    url = request.build_absolute_uri(reverse("reset-password-do") + f"?key={password_reset_key_make(user)}")
    mail_send_later(
        template_prefix="account/email/password_reset_key",
        email=user.email,
        context={"user": user, "password_reset_url": url},
    )
    return user


@transaction.atomic
def member_password_reset(*, request: HttpRequest, key: str, password1: str, password2: str) -> User:
    """Set the new password from a reset link and log the member in. The key is checked
    again under a row lock, so two submissions of one link cannot both succeed."""
    user = password_reset_key_user(key)
    if user is None:
        raise _link_invalid()
    user = User.objects.select_for_update().get(pk=user.pk)
    if not token_generator.check_token(user, key.partition("-")[2]):
        raise _link_invalid()
    if password1 != password2:
        raise ApplicationError(
            "passwords_differ",
            _("The entered passwords are not the same."),
            extra={"fields": {"password2": [_("The entered passwords are not the same.")]}},
        )
    try:
        validate_password(password1, user=user)
    except ValidationError as error:
        raise ApplicationError(
            "invalid", " ".join(error.messages), extra={"fields": {"password1": list(error.messages)}}
        ) from error
    user.set_password(password1)
    user.save(update_fields=["password"])
    # A forgotten password is often why the login got locked: the link proves the owner.
    get_adapter(request)._delete_login_attempts_cached_email(request, email=user.email)
    login(request, user, backend=AUTH_BACKEND)
    return user
