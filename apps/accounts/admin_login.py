"""The operators' admin login, limited like members' (issue 3 item 4): failed attempts
count per username and per address through allauth's rate limit `admin_login_failed`
(settings.ADMIN_LOGIN_RATE_LIMIT)."""

from allauth.core.internal import ratelimit as allauth_ratelimit
from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError

from apps.accounts.services.auth import lockout_error

ADMIN_LOGIN_FAILED = "admin_login_failed"
OPERATOR_BACKEND = "django.contrib.auth.backends.ModelBackend"


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return self.cleaned_data  # the fields report what is missing; nothing was tried
        # As allauth does for members: take one attempt up front, so parallel guesses
        # cannot slip past the limit, and give it back when the login succeeds.
        # allauth.core.ratelimit.consume() answers only yes/no; the usage object with
        # rollback() comes from the module it wraps.
        usage = allauth_ratelimit.consume(
            self.request, app="allauth.account", action=ADMIN_LOGIN_FAILED, key=username.casefold()
        )
        if usage is None:
            raise ValidationError(lockout_error().message, code="too_many_attempts")
        # Operators log in by username with Django's backend only: allauth's backend
        # (members, by e-mail) needs its tables, which exist only in the sites' schemas.
        self.user_cache = ModelBackend().authenticate(self.request, username=username, password=password)
        if self.user_cache is None:
            raise self.get_invalid_login_error()
        self.user_cache.backend = OPERATOR_BACKEND
        self.confirm_login_allowed(self.user_cache)
        usage.rollback()
        return self.cleaned_data


class OperatorAdminSite(AdminSite):
    login_form = ThrottledAdminAuthenticationForm
