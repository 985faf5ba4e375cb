"""My profile (spec §2 route "profile", /profile): every profile field of spec §3 and the
member's photos, as server-rendered forms; and /media/<schema>/photos/..., the photo
files for the development and test servers (production serves media from S3/CDN).
Views parse the input, call one service and render."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods
from django_countries import countries

from apps.common.exceptions import ApplicationError
from apps.common.media import media_file_response, media_path_check
from apps.profiles.models import (
    BodyType,
    EyeColor,
    Gender,
    HairColor,
    Photo,
    PhotoStatus,
    Profile,
    RelationshipStatus,
    Sexuality,
    Tattoos,
)
from apps.profiles.poses import POSES, pose_info, pose_random
from apps.profiles.selectors import own_photos, photo_count, photo_limit, verification_state
from apps.profiles.services.photos import photo_delete, photo_limit_message, photo_set_main, photo_upload
from apps.profiles.services.profile import (
    ABOUT_ME_MAX_LENGTH,
    CITY_MAX_LENGTH,
    NAME_MAX_LENGTH,
    PROFILE_FIELDS,
    profile_update,
)
from apps.profiles.services.verification import VERIFICATION_KEEP_DAYS, verification_request
from apps.tenants.selectors import site_regions

_CHOICES = {
    "gender": (gettext_lazy("Gender"), Gender),
    "sexuality": (gettext_lazy("Sexuality"), Sexuality),
    "relationship_status": (gettext_lazy("Relationship status"), RelationshipStatus),
    "body_type": (gettext_lazy("Body type"), BodyType),
    "hair_color": (gettext_lazy("Hair colour"), HairColor),
    "eye_color": (gettext_lazy("Eye colour"), EyeColor),
    "tattoos": (gettext_lazy("Tattoos"), Tattoos),
}


def _stored_values(profile: Profile) -> dict:
    return {
        "name": profile.name,
        "country": profile.country.code if profile.country else "",
        "region": profile.region,
        "city": profile.city,
        "date_of_birth": profile.date_of_birth.isoformat() if profile.date_of_birth else "",
        **{key: getattr(profile, key) for key in _CHOICES},
        "interests": list(profile.interests),
        "about_me": profile.about_me,
    }


def _posted_values(request: HttpRequest) -> dict:
    values = {key: request.POST.get(key, "") for key in PROFILE_FIELDS if key != "interests"}
    values["interests"] = request.POST.getlist("interests")
    return values


def _form_fields(request: HttpRequest, values: dict, errors: dict) -> dict:
    """Everything the template needs per field: its value, options and messages."""
    site = request.site
    country_names = dict(countries)

    def field(key: str, label, **extra) -> dict:
        return {"name": key, "id": f"profile-{key}", "label": label, "value": values.get(key, ""), **extra} | {
            "errors": errors.get(key, [])
        }

    return {
        "name": field("name", _("Name"), maxlength=NAME_MAX_LENGTH),
        "country": field(
            "country",
            _("Country"),
            options=[(code, country_names.get(code, code)) for code in site.country_codes],
        ),
        "region": field(
            "region",
            _("Region"),
            groups=[
                {"label": country_names.get(code, code), "options": site_regions(site, code)}
                for code in site.country_codes
            ],
        ),
        "city": field("city", _("City"), maxlength=CITY_MAX_LENGTH),
        "date_of_birth": field(
            "date_of_birth", _("Date of birth"), help=_("You must be %(min_age)s or older.") % {"min_age": site.min_age}
        ),
        "choices": [field(key, label, options=choices.choices) for key, (label, choices) in _CHOICES.items()],
        "interests": field("interests", _("Interests"), options=list(site.interests)),
        "about_me": field("about_me", _("About me"), maxlength=ABOUT_ME_MAX_LENGTH),
    }


def _context(request: HttpRequest, profile: Profile, *, values: dict, errors: dict, photo_error: str = "") -> dict:
    photos = list(own_photos(profile))
    count = photo_count(profile)
    limit = photo_limit(request.user)
    return {
        "profile": profile,
        # The member's own choice of main photo, also while it waits for approval.
        "main_id": profile.main_photo_waiting_id or profile.main_photo_id,
        "verification": verification_state(profile),
        "form": _form_fields(request, values, errors),
        "form_error": _("Please check the fields marked in red.") if errors else "",
        "photos": photos,
        "pending": PhotoStatus.PENDING,
        "photo_count": count,
        "photo_limit": limit,
        "at_limit": count >= limit,
        "limit_message": photo_limit_message(limit),
        "photo_error": photo_error,
    }


def _profile_or_404(request: HttpRequest) -> Profile:
    profile = Profile.objects.select_related("main_photo").filter(user=request.user).first()
    if profile is None:
        raise Http404(_("You do not have a profile on this site."))
    return profile


def _redirect(anchor: str = "") -> HttpResponse:
    return redirect(reverse("profile") + (f"#{anchor}" if anchor else ""))


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def my_profile(request: HttpRequest) -> HttpResponse:
    """GET shows the form and the photos. POST names its form in `action`: profile,
    photo_upload, photo_main or photo_delete. Errors re-render the page with what was
    typed and each message next to its field (status 400); success redirects back."""
    profile = _profile_or_404(request)
    values, errors, photo_error, status = _stored_values(profile), {}, "", 200
    action = request.POST.get("action", "") if request.method == "POST" else ""
    try:
        if action == "profile":
            values = _posted_values(request)
            profile_update(site=request.site, user=request.user, data=values)
            messages.success(request, _("Your profile has been saved."))
            return _redirect()
        if action == "photo_upload":
            photo = photo_upload(site=request.site, user=request.user, upload=request.FILES.get("photo"))
            if photo.status == PhotoStatus.PENDING:
                messages.success(request, _("Your photo has been uploaded. Others see it once it has been approved."))
            else:
                messages.success(request, _("Your photo has been uploaded."))
            return _redirect("photos")
        if action == "photo_main":
            photo_set_main(user=request.user, photo_id=request.POST.get("photo"))
            messages.success(request, _("Your main photo has been changed."))
            return _redirect("photos")
        if action == "photo_delete":
            photo_delete(site=request.site, user=request.user, photo_id=request.POST.get("photo"))
            messages.success(request, _("Picture deleted."))
            return _redirect("photos")
        if action:
            messages.error(request, _("An error has occurred."))
            return _redirect()
    except ApplicationError as error:
        if error.status_code == 404:
            raise Http404(error.message) from error
        status = error.status_code
        if action == "profile":
            errors = error.extra.get("fields") or {"name": [error.message]}
        else:
            photo_error = error.message
        profile.refresh_from_db()
    context = _context(request, profile, values=values, errors=errors, photo_error=photo_error)
    return render(request, "profiles/my_profile.html", context, status=status)


# The pose the verification page showed, kept for the upload (the member cannot choose it).
SESSION_POSE = "verification_pose"


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def verify_page(request: HttpRequest) -> HttpResponse:
    """/profile/verify: ask to be verified. GET shows a random drawn pose (kept in the
    session until a selfie is sent) and the selfie form; POST sends the selfie in that
    pose. Errors re-render the page with the message (4xx); success redirects back."""
    profile = _profile_or_404(request)
    error, status = "", 200
    if request.method == "POST":
        try:
            verification_request(
                site=request.site,
                user=request.user,
                pose=str(request.session.get(SESSION_POSE) or ""),
                upload=request.FILES.get("selfie"),
            )
        except ApplicationError as failure:
            if failure.status_code == 404:
                raise Http404(failure.message) from failure
            error, status = failure.message, failure.status_code
        else:
            request.session.pop(SESSION_POSE, None)
            messages.success(request, _("Thank you. Your selfie is waiting for a decision."))
            return redirect("profile-verify")
    state = verification_state(profile)
    pose = None
    if state["can_ask"]:
        if request.session.get(SESSION_POSE) not in POSES:
            request.session[SESSION_POSE] = pose_random()
        pose = pose_info(request.session[SESSION_POSE])
    context = {"profile": profile, "state": state, "pose": pose, "error": error, "keep_days": VERIFICATION_KEEP_DAYS}
    return render(request, "profiles/verify.html", context, status=status)


@require_GET
def media_photo(request: HttpRequest, path: str) -> HttpResponse:
    """A photo file of this site (development and test servers; production serves media
    from S3/CDN): only under this site's schema prefix, and only an approved photo or
    one of the requesting member's own."""
    media_path_check(path, "photos")
    photo = Photo.objects.filter(Q(image=path) | Q(thumb=path)).select_related("profile").first()
    if photo is None:
        raise Http404
    own = request.user.is_authenticated and photo.profile.user_id == request.user.pk
    if not photo.is_public and not own:
        raise Http404
    # Approved photos may be cached by anyone; a member's own pending ones only privately.
    cache_control = "public, max-age=86400" if photo.is_public else "private, no-cache"
    return media_file_response(path, cache_control=cache_control)
