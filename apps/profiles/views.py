"""Profile pages (spec §2): the profile view (/members/<id>, /likes/m/<id>), its block
and unblock forms (the no-JavaScript way; the page's buttons are these forms), and
/complaints. Views parse the input, call one selector or service and render."""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

# Up to accounts and chat: the profile page shares the settings' form errors and shows the gift button.
from apps.accounts.forms_settings import errors_to_form
from apps.chat.views import profile_gift_props
from apps.common.exceptions import ApplicationError
from apps.common.storage import cdn_url

# Up to likes: the profile page shows the like between the two and marks a received like opened.
from apps.likes.selectors import like_state
from apps.likes.services import like_mark_opened
from apps.profiles.cards import fictional_label, profile_notes
from apps.profiles.forms import ComplaintForm
from apps.profiles.selectors import public_thumb_url
from apps.profiles.selectors_view import (
    BlockedByOwner,
    profile_age,
    profile_details,
    profile_location,
    profile_page,
)
from apps.profiles.services.blocks import block_create, block_delete
from apps.profiles.services.complaints import COMPLAINT_MAX_LENGTH, complaint_create, complaint_subject


def _url(name: str, fallback: str, *args) -> str:
    """A route's path; the fallback while a route of spec §2 is still being built."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return fallback


def _login_url(request: HttpRequest, next_path: str | None = None) -> str:
    return f"{_url('login', '/login')}?{urlencode({'next': next_path or request.get_full_path()})}"


def _og_image(request: HttpRequest, profile) -> str | None:
    """The share preview's picture: the main photo only when it is approved."""
    photo = profile.main_photo
    if photo is None or not photo.is_public or not photo.image:
        return None
    return request.build_absolute_uri(cdn_url(photo.image.url))


def _header_thumb(page) -> str | None:
    """The owner sees their own main photo even while it waits for approval."""
    photo = page.profile.main_photo
    if page.own and photo is not None and photo.thumb:
        return photo.thumb.url
    return public_thumb_url(page.profile)


def _like_state(request: HttpRequest, page) -> dict:
    """Whether the viewer likes the profile and whether it is a match. Opening a liker's
    profile clears that like's new flag (spec §4)."""
    if page.own or page.blocked or not request.user.is_authenticated:
        return {"liked": False, "match": False}
    state = like_state(viewer=request.user, profile=page.profile)
    if state["liked_by_new"]:
        like_mark_opened(viewer=request.user, profile=page.profile)
    return {"liked": state["liked"], "match": state["liked"] and state["liked_by"]}


@require_http_methods(["GET", "HEAD"])
def profile_view(request: HttpRequest, id: int) -> HttpResponse:
    site = request.site
    try:
        page = profile_page(viewer=request.user, site=site, profile_id=id)
    except BlockedByOwner as blocked:
        message = _("You're blocked by %(name)s. You do not have access to this page.") % {"name": blocked.name}
        return render(request, "errors/error.html", {"status": 403, "message": message}, status=403)
    profile = page.profile
    like = _like_state(request, page)
    shown = site.visible_profile_fields
    profile_path = _url("members-id", f"/members/{profile.pk}", profile.pk)
    context = {
        "page": page,
        "profile": profile,
        "thumb": _header_thumb(page),
        "age": profile_age(profile) if "age" in shown else None,
        "location": profile_location(site=site, profile=profile),
        "fictional": fictional_label(profile, site),
        "notes": profile_notes(profile, site),
        "details": profile_details(site=site, profile=profile),
        "interests": profile.interests if "interests" in shown else [],
        "about_me": profile.about_me if "about_me" in shown else "",
        "related": [
            {
                "id": other.pk,
                "name": other.name,
                "thumb": public_thumb_url(other),
                "fictional": fictional_label(other, site),
            }
            for other in page.related
        ],
        "locked_range": range(page.locked),
        "like": like,
        "og_image": _og_image(request, profile),
        "og_url": request.build_absolute_uri(profile_path),
        "urls": {
            "edit": _url("profile", "/profile"),
            "premium": _url("premium", "/premium"),
            "chat": _url("members-id-chat", f"/members/{profile.pk}/chat", profile.pk),
            "block": reverse("members-id-block", args=[profile.pk]),
            "like": _url("members-id-like", f"/members/{profile.pk}/like", profile.pk),
            "unlike": _url("members-id-unlike", f"/members/{profile.pk}/unlike", profile.pk),
            "unblock": reverse("members-id-unblock", args=[profile.pk]),
            "complaint": f"{reverse('complaints')}?{urlencode({'profile': profile.pk})}",
            "login": _login_url(request, profile_path),
            "signup": _url("members-id-signup", f"/members/{profile.pk}/signup", profile.pk),
        },
    }
    if request.user.is_authenticated and not page.own and not page.blocked:
        context["gift_props"] = profile_gift_props(request, profile)
    return render(request, "profiles/profile_view.html", context)


def _block_action(request: HttpRequest, id: int, action) -> HttpResponse:
    profile_path = _url("members-id", f"/members/{id}", id)
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
