"""Logging in and out (spec §4 Login, §8 messages), on django-allauth's
authentication and its `login_failed` rate limit."""

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.contrib.auth import login, logout
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext as _

from apps.accounts.models import User, UserStatus
from apps.common.exceptions import ApplicationError

AUTH_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"


def lockout_error() -> ApplicationError:
    return ApplicationError(
        "too_many_attempts",
        _("Too many incorrect attempts, account blocked for %(minutes)s min.")
        % {"minutes": settings.LOGIN_LOCKOUT_MINUTES},
        status_code=429,
    )


def member_login(*, request: HttpRequest, email: str, password: str) -> User:
    """Check the credentials under allauth's lockout and log the member in."""
    email = (email or "").strip()
    try:
        user = get_adapter(request).authenticate(request, email=email, password=password or "")
    except ValidationError as error:
        raise lockout_error() from error
    if user is None:
        raise ApplicationError("login_failed", _("Login failed, please try again"), status_code=400)
    if user.status == UserStatus.DELETED:
        raise ApplicationError(
            "account_deleted",
            _(
                "Your account is being deleted. Reactivate it with the link in our e-mail, "
                "or ask customer service for help."
            ),
            status_code=403,
        )
    login(request, user, backend=AUTH_BACKEND)
    return user


def member_logout(*, request: HttpRequest) -> None:
    logout(request)


def member_logout_everywhere(*, request: HttpRequest) -> int:
    """Log out on all devices: this session and every other session of the member end,
    and every open live connection of the member closes (apps.chat.events). Returns how
    many other sessions were ended."""
    from apps.accounts.services.deletion import member_sessions_end

    user_id = request.user.pk
    logout(request)
    return member_sessions_end(user_id=user_id)
