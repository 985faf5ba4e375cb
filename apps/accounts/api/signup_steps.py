"""Signup steps 1 to 4 for the signup island: /api/signup/profile.php (location,
personal info, about me) and /api/signup/photo.php (the photo step)."""

from django.middleware.csrf import get_token
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.services.signup_steps import PROFILE_STEP_FIELDS, signup_photo_add, signup_profile_update
from apps.common.api.base import SiteApiView
from apps.common.api.fields import StrictBooleanField, StrictCharField
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.common.exceptions import ApplicationError
from apps.profiles.models import Photo, Profile
from apps.profiles.selectors import photo_count, photo_limit


def profile_step_payload(profile: Profile) -> dict:
    return {
        "id": profile.pk,
        "gender": profile.gender,
        "sexuality": profile.sexuality,
        "country": profile.country.code if profile.country else "",
        "region": profile.region,
        "city": profile.city,
        "about_me": profile.about_me,
        "main_photo": profile.main_photo.thumb.url if profile.main_photo else None,
    }


def photo_payload(photo: Photo) -> dict:
    return {
        "id": photo.pk,
        "status": photo.status,
        "thumb_url": photo.thumb.url,
        "url": photo.image.url,
        "width": photo.width,
        "height": photo.height,
    }


_StepProfile = inline_serializer(
    "SignupStepProfile",
    {
        "id": serializers.IntegerField(),
        "gender": serializers.CharField(),
        "sexuality": serializers.CharField(),
        "country": serializers.CharField(),
        "region": serializers.CharField(),
        "city": serializers.CharField(),
        "about_me": serializers.CharField(),
        "main_photo": serializers.CharField(allow_null=True),
    },
)
_ProfileOutput = inline_serializer(
    "SignupProfileOutput", {"profile": _StepProfile, "csrf_token": serializers.CharField()}
)
_Photo = inline_serializer(
    "SignupPhoto",
    {
        "id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "thumb_url": serializers.CharField(),
        "url": serializers.CharField(),
        "width": serializers.IntegerField(allow_null=True),
        "height": serializers.IntegerField(allow_null=True),
    },
)
_PhotoOutput = inline_serializer(
    "SignupPhotoOutput",
    {
        "photo": _Photo,
        "main": serializers.BooleanField(),
        "photo_count": serializers.IntegerField(),
        "photo_limit": serializers.IntegerField(),
    },
)


def photo_request(*, required: dict | None = None) -> dict:
    """A multipart body with the file field "photo" (one of PHOTO_TYPES) and `required`'s
    other fields."""
    properties = {**(required or {}), "photo": {"type": "string", "format": "binary"}}
    # The file's content types are added by apps.profiles.api.schema.site_choices.
    return {"multipart/form-data": {"type": "object", "properties": properties, "required": sorted(properties)}}


# What OpenAPI cannot state between the fields: the server answers 400 naming `region`
# in `error.fields` for exactly this, and for nothing else the fields' schemas allow.
REGION_RULE = (
    "`region` must be a region of `country`, or, without `country` in the body, of the "
    "profile's country (a profile without a country takes no region); a request breaking "
    "this is a 400 naming `region` in `error.fields`. A new `country` without `region` "
    "clears a region of another country."
)


class SignupProfileApi(SiteApiView):
    """GET: the member's step fields (and the CSRF token, which logging in at step 0
    rotated). PATCH or POST: store the fields sent; `done: true` marks the steps as
    gone through."""

    permission_classes = [MemberRequired]

    class SignupProfileInput(serializers.Serializer):
        # The site's genders, sexualities, countries and regions are their enums
        # (apps.profiles.api.schema.site_choices); "" clears a field.
        gender = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        sexuality = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        country = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        region = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        # Their lengths are the service's (translated messages) and the schema's maxLength.
        city = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        about_me = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
        done = StrictBooleanField(required=False, default=False)

        def validate_country(self, value: str) -> str:
            # The codes exactly as the schema's enum spells them: the service would take
            # "nl" for "NL", so a client sending it would only work by luck.
            if value and value not in self.context["site"].country_codes:
                raise serializers.ValidationError(_("Choose one of the countries of this site."))
            return value

        def validate_region(self, value: str) -> str:
            if value != value.upper():
                raise serializers.ValidationError(_("Choose a region of the selected country."))
            return value

    @extend_schema(responses={200: _ProfileOutput}, auth=MEMBER_ONLY, operation_id="signup_profile_retrieve")
    def get(self, request: Request) -> Response:
        profile = Profile.objects.select_related("main_photo").filter(user=request.user).first()
        if profile is None:
            raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
        return Response({"profile": profile_step_payload(profile), "csrf_token": get_token(request._request)})

    @extend_schema(
        request=SignupProfileInput,
        responses={200: _ProfileOutput},
        description=REGION_RULE,
        operation_id="signup_profile_update",
    )
    def patch(self, request: Request) -> Response:
        return self._update(request)

    @extend_schema(
        request=SignupProfileInput,
        responses={200: _ProfileOutput},
        description=REGION_RULE,
        operation_id="signup_profile_create",
    )
    def post(self, request: Request) -> Response:
        return self._update(request)

    def _update(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ApplicationError("invalid", _("An error has occurred."))
        serializer = self.SignupProfileInput(data=request.data, context={"site": request._request.site})
        serializer.is_valid(raise_exception=True)
        data = {key: value for key, value in serializer.validated_data.items() if key in PROFILE_STEP_FIELDS}
        profile = signup_profile_update(
            site=request._request.site,
            user=request.user,
            data=data,
            done=serializer.validated_data.get("done", False),
        )
        return Response({"profile": profile_step_payload(profile), "csrf_token": get_token(request._request)})


class SignupPhotoApi(SiteApiView):
    """POST multipart, file field "photo": add a photo to the member's profile."""

    permission_classes = [MemberRequired]
    # A file comes only in a multipart body; any other content type is a 415.
    parser_classes = [MultiPartParser]

    @extend_schema(request=photo_request(), responses={201: _PhotoOutput}, operation_id="signup_photo_create")
    def post(self, request: Request) -> Response:
        upload = request.FILES.get("photo")
        if upload is None:
            message = _("Choose a photo to upload.")
            raise ApplicationError("invalid", message, extra={"fields": {"photo": [message]}})
        photo = signup_photo_add(site=request._request.site, user=request.user, upload=upload)
        profile = photo.profile
        return Response(
            {
                "photo": photo_payload(photo),
                "main": profile.main_photo_id == photo.pk,
                "photo_count": photo_count(profile),
                "photo_limit": photo_limit(request.user),
            },
            status=201,
        )
