"""Account pages that render on the server: activation, login and logout, password reset."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts.forms import LoginForm, PasswordResetForm, PasswordResetRequestForm
from apps.accounts.services.auth import member_login, member_logout
from apps.accounts.services.password_reset import (
    member_password_reset,
    password_reset_key_user,
    password_reset_request,
)
from apps.accounts.services.signup import member_confirm_email
from apps.common.exceptions import ApplicationError


def activate(request: HttpRequest) -> HttpResponse:
    """The link in the confirmation e-mail."""
    try:
        member_confirm_email(request=request, key=request.GET.get("key", ""))
    except ApplicationError:
        return redirect("activate-error")
    return redirect("activate-done")


# The activate-done page's overview of members (spec §2): a few of the site's members.
ACTIVATE_DONE_MEMBERS = 8


def activate_done(request: HttpRequest) -> HttpResponse:
    """Spec §2: get premium, search members, sign-up profile and an overview of members:
    the home page's member cards (newest visible profiles of the niche with an approved
    photo, briefly cached; the member's own and blocked ones left out), each linking to
    the profile."""
    from apps.landers.selectors import THUMB_SIDE, home_cards

    cards = home_cards(site=request.site, viewer=request.user)[:ACTIVATE_DONE_MEMBERS]
    context = {
        "members": [{**card, "eager": False} for card in cards],  # below the first screen
        "any_fictional": any(card["fictional"] for card in cards),
        "thumb_side": THUMB_SIDE,
        "member_links": True,
        "signups_open": False,
    }
    return render(request, "accounts/activate_done.html", context)


def activate_error(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/activate_error.html", status=400)


def _safe_next(request: HttpRequest, url: str | None) -> str:
    """Where to go after logging in: a path or URL on this host only, else "/"."""
    allowed = {request.get_host()}
    if url and url_has_allowed_host_and_scheme(url, allowed_hosts=allowed, require_https=request.is_secure()):
        return url
    return "/"


@sensitive_post_parameters("password")
@never_cache
@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("/")
    next_url = _safe_next(request, request.POST.get("next") or request.GET.get("next"))
    form = LoginForm(request.POST or None)
    context = {"email": "", "next": next_url, "error": None}
    status = 200
    if request.method == "POST":
        email = form.data.get("email", "")[:254]
        context["email"] = email.strip()
        try:
            if not form.is_valid():
                raise ApplicationError("login_failed", _("Login failed, please try again"))
            member_login(request=request, email=form.cleaned_data["email"], password=form.cleaned_data["password"])
        except ApplicationError as error:
            context["error"] = error.message
            status = error.status_code
        else:
            return redirect(next_url)
    return render(request, "accounts/login.html", context, status=status)


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    member_logout(request=request)
    return redirect("/")


@never_cache
@require_http_methods(["GET", "POST"])
def password_reset_request_view(request: HttpRequest) -> HttpResponse:
    form = PasswordResetRequestForm(request.POST or None)
    context = {"email": "", "error": None, "sent": request.method == "GET" and "sent" in request.GET}
    status = 200
    if request.method == "POST":
        context["email"] = form.data.get("email", "")[:254].strip()
        try:
            if not form.is_valid():
                raise ApplicationError("email_not_found", _("E-mail address not found"))
            password_reset_request(request=request, email=form.cleaned_data["email"])
        except ApplicationError as error:
            context["error"] = error.message
            status = error.status_code
        else:
            # Redirect, so reloading the confirmation does not send another e-mail.
            return redirect(reverse("reset-password") + "?sent=1")
    return render(request, "accounts/password_reset.html", context, status=status)


@sensitive_post_parameters("password1", "password2")
@never_cache
@require_http_methods(["GET", "POST"])
def password_reset_do_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        key = request.GET.get("key", "")[:200]
        if password_reset_key_user(key) is None:
            return render(request, "accounts/password_reset_do.html", {"link_invalid": True}, status=400)
        return render(request, "accounts/password_reset_do.html", {"key": key})
    form = PasswordResetForm(request.POST)
    key = form.data.get("key", "")[:200]
    try:
        if not form.is_valid():
            raise ApplicationError("reset_link_invalid", _("Link expired or invalid, request a new email"))
        member_password_reset(
            request=request,
            key=form.cleaned_data["key"],
            password1=form.cleaned_data["password1"],
            password2=form.cleaned_data["password2"],
        )
    except ApplicationError as error:
        if error.code == "reset_link_invalid":
            return render(request, "accounts/password_reset_do.html", {"link_invalid": True}, status=400)
        errors = [message for messages_ in error.extra.get("fields", {}).values() for message in messages_]
        context = {"key": key, "errors": errors or [error.message]}
        return render(request, "accounts/password_reset_do.html", context, status=error.status_code)
    messages.success(request, _("Your password has been changed and you are now logged in."))
    return redirect("/")
