"""The operators' admin login: a password, then a second factor (TOTP), under one lockout.

1. /admin/login/: username and password. Failed attempts count per username and per
   address through allauth's rate limit `admin_login_failed` (settings.ADMIN_LOGIN_RATE_LIMIT).
2. /admin/login/code/: the current code of the staff member's authenticator app
   (django-otp's TOTP device, public schema). Wrong codes count toward the same lockout;
   a code is accepted once (the device keeps the last time step used).
   A staff member without a confirmed device enrols one at /admin/login/enrol/, and only
   after following a one-time set-up link (/admin/login/enrol/<token>/, made by
   `manage.py staff_create` or another operator's "Reset the second step":
   apps.accounts.services.staff_enrolment) in the same browser before the password: the
   password alone never sets up a device. The secret is shown as text and as a QR code
   until a code confirms it, and never again afterwards. Without a device and a link the
   staff member is told to ask another operator.

Every admin view needs both steps (OperatorAdminSite.has_permission)."""

from __future__ import annotations

import base64
from urllib.parse import urlencode

import qrcode
import qrcode.image.svg
from allauth.core.internal import ratelimit as allauth_ratelimit
from django import forms
from django.contrib import messages
from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import REDIRECT_FIELD_NAME, logout
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from apps.accounts.services.auth import lockout_error
from apps.accounts.services.staff_enrolment import (
    enrolment_confirm,
    enrolment_link_of,
    enrolment_link_valid,
)
from apps.accounts.staff_otp import staff_is_verified
from apps.common.exceptions import ApplicationError

ADMIN_LOGIN_FAILED = "admin_login_failed"
OPERATOR_BACKEND = "django.contrib.auth.backends.ModelBackend"
DEVICE_NAME = "authenticator"
# The set-up link followed in this browser (its row's id), until the device is set up.
ENROLMENT_LINK_SESSION_KEY = "staff_enrolment_link"


def login_attempt(request: HttpRequest, username: str):
    """Take one attempt of the lockout up front (so parallel guesses cannot slip past
    it); the caller gives it back with `.rollback()` when the attempt succeeds. None:
    locked out. allauth.core.ratelimit.consume() answers only yes/no; the usage object
    with rollback() comes from the module it wraps."""
    return allauth_ratelimit.consume(request, app="allauth.account", action=ADMIN_LOGIN_FAILED, key=username.casefold())


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return self.cleaned_data  # the fields report what is missing; nothing was tried
        usage = login_attempt(self.request, username)
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


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code from your authenticator app"),
        max_length=12,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True, "size": 8}
        ),
    )

    def clean_code(self) -> str:
        code = "".join((self.cleaned_data.get("code") or "").split())
        if not (code.isascii() and code.isdigit() and len(code) == 6):
            raise ValidationError(_("Enter the 6 digits your authenticator app shows."), code="invalid")
        return code


def totp_device(user, *, confirmed: bool = True):
    """The staff member's confirmed device, or (confirmed=False) the one being enrolled."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    return TOTPDevice.objects.filter(user=user, confirmed=confirmed).order_by("pk").first()


def enrolment_device(user):
    """The staff member's unconfirmed device with a new secret (each showing of the
    enrolment page makes a new one, so only the secret last shown can be confirmed)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice, default_key

    device = totp_device(user, confirmed=False)
    if device is None:
        return TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    device.key = default_key()
    device.last_t = -1
    device.save(update_fields=["key", "last_t"])
    return device


def secret_text(device) -> str:
    """The secret as authenticator apps take it when typed: base32, in groups of four."""
    secret = base64.b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(secret[index : index + 4] for index in range(0, len(secret), 4))


def qr_data_uri(text: str) -> str:
    """A QR code of `text` as an SVG data URI (an <img>, allowed by the admin's CSP)."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=8, border=2)
    return "data:image/svg+xml;base64," + base64.b64encode(image.to_string()).decode()


class OperatorAdminSite(AdminSite):
    login_form = ThrottledAdminAuthenticationForm

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and staff_is_verified(request)

    def get_urls(self):
        return [
            path("login/code/", self._step_view(self.code_view), name="staff_code"),
            path("login/enrol/", self._step_view(self.enrol_view), name="staff_enrol"),
            path("login/enrol/<str:token>/", self._step_view(self.link_view), name="staff_enrol_link"),
            path("login/cancel/", self._step_view(self.cancel_view), name="staff_cancel"),
            *super().get_urls(),
        ]

    @staticmethod
    def _step_view(view):
        return never_cache(csrf_protect(view))

    # --- Step 1: the password ---------------------------------------------------------

    def login(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        if request.method == "GET" and self._password_only(request):
            return self._to_second_step(request, self._next(request))
        response = super().login(request, extra_context)
        if request.method == "POST" and response.status_code == 302 and request.user.is_authenticated:
            # The password was right: the code comes next, then the page asked for.
            return self._to_second_step(request, response["Location"])
        return response

    # --- Step 2: the code, or enrolment -----------------------------------------------

    def code_view(self, request: HttpRequest) -> HttpResponse:
        if not self._password_only(request):
            return self._leave_step(request)
        device = totp_device(request.user)
        if device is None:
            return self._to_second_step(request, self._next(request))
        form = CodeForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            verified = self._verify(request, form, device)
            if verified is not None:
                return verified
        return self._step_page(request, "admin/accounts/staff_code.html", form, title=gettext("Second step"))

    def enrol_view(self, request: HttpRequest) -> HttpResponse:
        if not self._password_only(request):
            return self._leave_step(request)
        if totp_device(request.user) is not None:  # enrolled: the secret is never shown again
            return HttpResponseRedirect(self._step_url("staff_code", self._next(request)))
        link = self._followed_link(request)
        if link is None:  # the password alone never sets up a device
            return self._no_second_step(request)
        form = CodeForm(request.POST if request.method == "POST" else None)
        if request.method == "POST":
            device = totp_device(request.user, confirmed=False)
            if device is None:  # no secret was shown: start again
                return HttpResponseRedirect(self._step_url("staff_enrol", self._next(request)))
            if form.is_valid():
                verified = self._verify(request, form, device, enrol_link=link.pk)
                if verified is not None:
                    return verified
        else:
            device = enrolment_device(request.user)
        return self._step_page(
            request,
            "admin/accounts/staff_enrol.html",
            form,
            title=gettext("Set up the second step"),
            secret=secret_text(device),
            qr_code=qr_data_uri(device.config_url),
        )

    def link_view(self, request: HttpRequest, token: str) -> HttpResponse:
        """A set-up link: remembered in this browser's session, then the password step.
        Following it gives nothing by itself; the password and the authenticator's first
        code come after it."""
        try:
            link = enrolment_link_valid(token)
        except ApplicationError as error:
            return self._notice_page(request, error.message, status=error.status_code)
        if request.user.is_authenticated:
            if staff_is_verified(request):  # not across someone else's admin session
                return self._notice_page(
                    request,
                    gettext("You are logged in to the admin. Log out, then open the link again."),
                    status=409,
                )
            logout(request)  # a password-only session of whoever used this browser before
        request.session[ENROLMENT_LINK_SESSION_KEY] = link.pk
        messages.info(request, gettext("Log in with your password, then set up the second step."))
        # The token leaves the address bar (and the Referer) at once.
        return HttpResponseRedirect(
            reverse("admin:login", current_app=self.name) + "?" + urlencode({REDIRECT_FIELD_NAME: self._next(request)})
        )

    def cancel_view(self, request: HttpRequest) -> HttpResponse:
        """ "Log in as someone else" from a step: ends the password-only session (POST).
        The admin's own logout needs both steps, like every admin view."""
        if request.method == "POST" and self._password_only(request):
            logout(request)
        return HttpResponseRedirect(reverse("admin:login", current_app=self.name))

    def _verify(
        self, request: HttpRequest, form: CodeForm, device, *, enrol_link: int | None = None
    ) -> HttpResponse | None:
        """Check the code under the lockout; a redirect when it is right (or the staff
        member is locked out), None with the form's error when it is wrong. With
        `enrol_link` the code confirms a new device and uses the set-up link up."""
        import django_otp

        usage = login_attempt(request, request.user.get_username())
        if usage is None:
            message = lockout_error().message
            logout(request)
            return self._locked_page(request, message)
        code = form.cleaned_data["code"]
        if enrol_link is not None:
            try:
                accepted = enrolment_confirm(user=request.user, link_id=enrol_link, device=device, code=code)
            except ApplicationError as error:  # used up in another browser meanwhile, or expired
                usage.rollback()
                logout(request)
                return self._notice_page(request, error.message, status=error.status_code)
        else:
            with transaction.atomic():
                # Locked, so a code is accepted once even by two requests at the same time.
                device = type(device).objects.select_for_update().get(pk=device.pk)
                accepted = device.verify_token(code)
        if not accepted:
            form.add_error("code", _("This code is not correct. Enter the code your authenticator app shows now."))
            return None
        usage.rollback()
        if enrol_link is not None:
            request.session.pop(ENROLMENT_LINK_SESSION_KEY, None)
            messages.success(request, gettext("The second step is set up. You need a code at every login."))
        request.session.cycle_key()
        django_otp.login(request, device)
        return HttpResponseRedirect(self._next(request))

    # --- Helpers ----------------------------------------------------------------------

    @staticmethod
    def _password_only(request: HttpRequest) -> bool:
        """Logged in with the password (step 1) as active staff, without the code yet."""
        user = request.user
        return user.is_authenticated and user.is_active and user.is_staff and not staff_is_verified(request)

    def _leave_step(self, request: HttpRequest) -> HttpResponse:
        if staff_is_verified(request):
            return HttpResponseRedirect(self._next(request))
        return HttpResponseRedirect(reverse("admin:login", current_app=self.name))

    def _next(self, request: HttpRequest) -> str:
        target = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME) or ""
        if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
            return target
        return reverse("admin:index", current_app=self.name)

    def _step_url(self, name: str, next_url: str) -> str:
        return reverse(f"admin:{name}", current_app=self.name) + "?" + urlencode({REDIRECT_FIELD_NAME: next_url})

    def _to_second_step(self, request: HttpRequest, next_url: str) -> HttpResponse:
        if totp_device(request.user) is not None:
            return HttpResponseRedirect(self._step_url("staff_code", next_url))
        if self._followed_link(request) is not None:
            return HttpResponseRedirect(self._step_url("staff_enrol", next_url))
        return self._no_second_step(request)

    @staticmethod
    def _followed_link(request: HttpRequest):
        """The set-up link followed in this session, when it is the staff member's and
        still valid."""
        return enrolment_link_of(request.user, request.session.get(ENROLMENT_LINK_SESSION_KEY))

    def _no_second_step(self, request: HttpRequest) -> HttpResponse:
        """No device and no set-up link: the password was right, but it opens nothing and
        sets nothing up. The session ends; another operator sends a link."""
        logout(request)
        return self._notice_page(
            request,
            gettext(
                "Your second step is not set up. Ask another operator to reset your second step: "
                "you then get an e-mail with a link to set it up."
            ),
            status=403,
        )

    def _notice_page(self, request: HttpRequest, message: str, *, status: int) -> HttpResponse:
        response = self._page(
            request,
            "admin/accounts/staff_notice.html",
            title=gettext("Log in"),
            notice=message,
            login_url=reverse("admin:login", current_app=self.name),
        )
        response.status_code = status
        return response

    def _page(self, request: HttpRequest, template: str, *, title: str, **extra) -> HttpResponse:
        request.current_app = self.name
        context = {**self.each_context(request), "title": title, "subtitle": None, **extra}
        return TemplateResponse(request, template, context)

    def _step_page(self, request: HttpRequest, template: str, form: CodeForm, *, title: str, **extra) -> HttpResponse:
        extra[REDIRECT_FIELD_NAME] = self._next(request)
        return self._page(
            request,
            template,
            title=title,
            form=form,
            app_path=request.get_full_path(),
            username=request.user.get_username(),
            **extra,
        )

    def _locked_page(self, request: HttpRequest, message: str) -> HttpResponse:
        return self._page(
            request,
            "admin/accounts/staff_locked.html",
            title=gettext("Log in"),
            lockout=message,
            login_url=reverse("admin:login", current_app=self.name),
        )
