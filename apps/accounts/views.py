"""Account pages that render on the server."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from apps.accounts.services.signup import member_confirm_email
from apps.common.exceptions import ApplicationError


def activate(request: HttpRequest) -> HttpResponse:
    """The link in the confirmation e-mail."""
    try:
        member_confirm_email(request=request, key=request.GET.get("key", ""))
    except ApplicationError:
        return redirect("activate-error")
    return redirect("activate-done")


def activate_done(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/activate_done.html")


def activate_error(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/activate_error.html", status=400)
