"""Signup steps 1 to 4 for the signup island: /api/signup/profile.php (location,
personal info, about me) and /api/signup/photo.php (the photo step)."""

from django.middleware.csrf import get_token
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiTypes, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.services.signup_steps import PROFILE_STEP_FIELDS, signup_photo_add, signup_profile_update
from apps.common.api.base import SiteApiView
from apps.common.api.parsers import SafeJSONParser
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


_ProfileOutput = inline_serializer(
    "SignupProfileOutput",
    {"profile": serializers.DictField(), "csrf_token": serializers.CharField()},
)


class SignupProfileApi(SiteApiView):
    """GET: the member's step fields (and the CSRF token, which logging in at step 0
    rotated). PATCH or POST: store the fields sent; `done: true` marks the steps as
    gone through."""

    permission_classes = [IsAuthenticated]

    class SignupProfileInput(serializers.Serializer):
        gender = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        sexuality = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        country = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        region = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        city = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        about_me = serializers.CharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)
        done = serializers.BooleanField(required=False, default=False)

    @extend_schema(responses={200: _ProfileOutput}, operation_id="signup_profile_retrieve")
    def get(self, request: Request) -> Response:
        profile = Profile.objects.select_related("main_photo").filter(user=request.user).first()
        if profile is None:
            raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
        return Response({"profile": profile_step_payload(profile), "csrf_token": get_token(request._request)})

    @extend_schema(request=SignupProfileInput, responses={200: _ProfileOutput}, operation_id="signup_profile_update")
    def patch(self, request: Request) -> Response:
        return self._update(request)

    @extend_schema(request=SignupProfileInput, responses={200: _ProfileOutput}, operation_id="signup_profile_create")
    def post(self, request: Request) -> Response:
        return self._update(request)

    def _update(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ApplicationError("invalid", _("An error has occurred."))
        serializer = self.SignupProfileInput(data=request.data)
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

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser, SafeJSONParser]

    @extend_schema(
        request={
            "multipart/form-data": {"type": "object", "properties": {"photo": {"type": "string", "format": "binary"}}}
        },
        responses={201: OpenApiTypes.OBJECT},
        operation_id="signup_photo_create",
    )
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
