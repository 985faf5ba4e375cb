"""Profile calls: the site's interests, regions and company info (spec §7, public and
cacheable), the member's own photos and the dismissible alerts."""

from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.parsers import SafeJSONParser
from apps.common.api.permissions import MemberRequired
from apps.common.exceptions import ApplicationError
from apps.profiles.models import Photo, PhotoStatus, Profile
from apps.profiles.selectors import own_photos, photo_count, photo_limit
from apps.profiles.services.alerts import DISMISSIBLE_ALERTS, alert_dismiss
from apps.profiles.services.photos import photo_delete, photo_set_main, photo_upload
from apps.tenants.selectors import company_info, site_regions

# The site's own data changes rarely (an operator's edit in the admin).
PUBLIC_MAX_AGE = 3600

InterestsOutput = inline_serializer(
    "InterestsOutput", {"interests": serializers.ListField(child=serializers.CharField())}
)
_Region = inline_serializer("Region", {"code": serializers.CharField(), "name": serializers.CharField()}, many=True)
RegionsOutput = inline_serializer(
    "RegionsOutput",
    # Per country code of the site (only the one asked for with ?country=).
    {"regions": serializers.DictField(child=_Region)},
)
CompanyInfoOutput = inline_serializer("CompanyInfoOutput", {"company": serializers.DictField(allow_null=True)})
DismissOutput = inline_serializer(
    "DismissOutput", {"alert": serializers.CharField(), "dismissed_at": serializers.CharField()}
)


def _cacheable(data: dict) -> Response:
    response = Response(data)
    patch_cache_control(response, public=True, max_age=PUBLIC_MAX_AGE)
    return response


class _PublicApi(SiteApiView):
    # No session, no user: the answer is the same for every visitor of the site.
    authentication_classes: list = []
    permission_classes: list = []


class InterestsApi(_PublicApi):
    """GET /api/interests.php: the interests members of this site can choose."""

    @extend_schema(responses={200: InterestsOutput}, operation_id="interests_list")
    def get(self, request: Request) -> Response:
        return _cacheable({"interests": list(request._request.site.interests)})


class RegionsApi(_PublicApi):
    """GET /api/regions.php: {"regions": {country: [{code, name}]}} for the site's
    countries, or only for ?country=XX when it is one of them."""

    @extend_schema(
        parameters=[OpenApiParameter("country", str, required=False)],
        responses={200: RegionsOutput},
        operation_id="regions_list",
    )
    def get(self, request: Request) -> Response:
        codes = request._request.site.country_codes
        wanted = (request.query_params.get("country") or "").strip().upper()
        if wanted:
            if wanted not in codes:
                message = _("Choose one of the countries of this site.")
                raise ApplicationError("invalid_country", message, extra={"fields": {"country": [message]}})
            codes = [wanted]
        site = request._request.site
        return _cacheable({"regions": {code: site_regions(site, code) for code in codes}})


class CompanyInfoApi(_PublicApi):
    """GET /api/companyinfo.php: the company behind the site (spec §3 "Company info")."""

    @extend_schema(responses={200: CompanyInfoOutput}, operation_id="companyinfo_retrieve")
    def get(self, request: Request) -> Response:
        return _cacheable({"company": company_info(request._request.site.company)})


def own_photo_payload(photo: Photo, *, main_id: int | None) -> dict:
    return {
        "id": photo.pk,
        "status": photo.status,
        "status_label": str(photo.get_status_display()),
        # Why support rejected it, in the member's language ("" unless rejected).
        "rejection_reason": photo.rejection_reason if photo.status == PhotoStatus.REJECTED else "",
        "rejection_reason_label": (
            str(photo.get_rejection_reason_display())
            if photo.status == PhotoStatus.REJECTED and photo.rejection_reason
            else ""
        ),
        "main": photo.pk == main_id,
        "thumb_url": photo.thumb.url,
        "url": photo.image.url,
        "width": photo.width,
        "height": photo.height,
    }


def _photos_answer(request: Request, *, status: int = 200, **extra) -> Response:
    profile = Profile.objects.filter(user=request.user).first()
    if profile is None:
        raise ApplicationError("no_profile", _("You do not have a profile on this site."), status_code=404)
    # The member's own choice shows as main, also while it waits for approval.
    main_id = profile.main_photo_waiting_id or profile.main_photo_id
    photos = [own_photo_payload(photo, main_id=main_id) for photo in own_photos(profile)]
    return Response(
        {
            **extra,
            "photos": photos,
            "main_photo": main_id,
            "photo_count": photo_count(profile),
            "photo_limit": photo_limit(request.user),
        },
        status=status,
    )


_OwnPhotos = inline_serializer(
    "OwnPhoto",
    {
        "id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "status_label": serializers.CharField(),
        "rejection_reason": serializers.CharField(),
        "rejection_reason_label": serializers.CharField(),
        "main": serializers.BooleanField(),
        "thumb_url": serializers.CharField(),
        "url": serializers.CharField(),
        "width": serializers.IntegerField(allow_null=True),
        "height": serializers.IntegerField(allow_null=True),
    },
    many=True,
)
PhotosOutput = inline_serializer(
    "PhotosOutput",
    {
        "photos": _OwnPhotos,
        "main_photo": serializers.IntegerField(allow_null=True),
        "photo_count": serializers.IntegerField(),
        "photo_limit": serializers.IntegerField(),
        "photo": serializers.IntegerField(required=False),
        "message": serializers.CharField(required=False),
    },
)


class PhotosApi(SiteApiView):
    """The member's own photos. GET: the list. POST multipart "photo": upload.
    POST ?main=<id>: make it the main photo. DELETE {"photo": id}: delete it. Another
    member's photo is 404."""

    permission_classes = [MemberRequired]
    # Uploads are multipart; the delete's {"photo": id} is JSON.
    parser_classes = [MultiPartParser, SafeJSONParser]

    class PhotoDeleteInput(serializers.Serializer):
        photo = serializers.IntegerField(min_value=1)

    @extend_schema(responses={200: PhotosOutput}, operation_id="photos_list")
    def get(self, request: Request) -> Response:
        return _photos_answer(request)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "main",
                {"type": "integer", "minimum": 1},
                required=False,
                description="Make this photo the main one; the body is then not read.",
            )
        ],
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"photo": {"type": "string", "format": "binary"}},
                "required": ["photo"],
            }
        },
        responses={200: PhotosOutput, 201: PhotosOutput},
        operation_id="photos_create",
    )
    def post(self, request: Request) -> Response:
        site = request._request.site
        if "main" in request.query_params:
            photo = photo_set_main(user=request.user, photo_id=request.query_params["main"])
            return _photos_answer(request, photo=photo.pk)
        photo = photo_upload(site=site, user=request.user, upload=request.FILES.get("photo"))
        return _photos_answer(request, status=201, photo=photo.pk)

    @extend_schema(request=PhotoDeleteInput, responses={200: PhotosOutput}, operation_id="photos_delete")
    def delete(self, request: Request) -> Response:
        serializer = self.PhotoDeleteInput(data=request.data if isinstance(request.data, dict) else {})
        serializer.is_valid(raise_exception=True)
        photo_delete(site=request._request.site, user=request.user, photo_id=serializer.validated_data["photo"])
        return _photos_answer(request, message=_("Picture deleted."))


class DismissApi(SiteApiView):
    """POST {"alert": name}: the member dismissed a dismissible alert (spec §4)."""

    permission_classes = [MemberRequired]

    class DismissInput(serializers.Serializer):
        alert = serializers.ChoiceField(choices=DISMISSIBLE_ALERTS)

    @extend_schema(request=DismissInput, responses={200: DismissOutput}, operation_id="dismiss_create")
    def post(self, request: Request) -> Response:
        serializer = self.DismissInput(data=request.data if isinstance(request.data, dict) else {})
        serializer.is_valid(raise_exception=True)
        alert = serializer.validated_data["alert"]
        return Response({"alert": alert, "dismissed_at": alert_dismiss(user=request.user, alert=alert)})
