"""The profile page's block and unblock forms (the no-JavaScript way; the page's buttons
are these forms; the page itself composes several apps: apps.pages.views_profile), and
/complaints (spec §2). Views parse the input, call one selector or service and render."""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

# Up to accounts: the complaint form shows errors the way the settings' forms do.
from apps.accounts.forms_settings import errors_to_form
from apps.common.exceptions import ApplicationError
from apps.profiles.forms import ComplaintForm
from apps.profiles.services.blocks import block_create, block_delete
from apps.profiles.services.complaints import COMPLAINT_MAX_LENGTH, complaint_create, complaint_subject


def _login_url(request: HttpRequest, next_path: str | None = None) -> str:
    return f"{reverse('login')}?{urlencode({'next': next_path or request.get_full_path()})}"


def _block_action(request: HttpRequest, id: int, action) -> HttpResponse:
    profile_path = reverse("members-id", args=[id])
    if not request.user.is_authenticated:
        return redirect(_login_url(request, profile_path))
    try:
        action(user=request.user, profile_id=id)
    except ApplicationError as error:
        if error.status_code == 404:
            return redirect("index")
        messages.error(request, error.message)
    return redirect(profile_path)


@require_POST
def block_view(request: HttpRequest, id: int) -> HttpResponse:
    return _block_action(request, id, block_create)


@require_POST
def unblock_view(request: HttpRequest, id: int) -> HttpResponse:
    return _block_action(request, id, block_delete)


@require_http_methods(["GET", "HEAD", "POST"])
def complaints_view(request: HttpRequest) -> HttpResponse:
    member = request.user if request.user.is_authenticated else None
    status = 200
    if request.method == "POST":
        form = ComplaintForm(request.POST)
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                complaint_create(
                    request=request,
                    reporter=request.user,
                    reason=data["reason"],
                    text=data["text"],
                    email=data["email"],
                    profile_id=data["profile"],
                    photo_id=data["photo"],
                    message_id=data["message"],
                )
            except ApplicationError as error:
                errors_to_form(form, error)
                status = error.status_code
            else:
                return render(request, "profiles/complaint_done.html")
    else:
        form = ComplaintForm(initial={"email": member.email if member else ""})
    # What the complaint names: the link's query (?profile=, ?photo=, ?message=), then the form's hidden fields.
    named = request.POST if request.method == "POST" else request.GET
    subject = complaint_subject(
        reporter=request.user,
        profile_id=named.get("profile"),
        photo_id=named.get("photo"),
        message_id=named.get("message"),
    )
    context = {
        "form": form,
        "about": subject.about,
        "about_photo": subject.photo,
        "about_message": subject.message,
        "member": member,
        "text_max_length": COMPLAINT_MAX_LENGTH,
    }
    return render(request, "profiles/complaints.html", context, status=status)
