from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.tenants.selectors import site_settings

# The settings a client reads first (spec §3 names the rest, all in the same object).
SettingsOutput = inline_serializer(
    "SettingsOutput",
    {
        "name": serializers.CharField(),
        "domain": serializers.CharField(),
        "countries": serializers.ListField(child=serializers.CharField()),
        "languages": serializers.ListField(child=serializers.CharField()),
        "niche": serializers.IntegerField(),
        "min_age": serializers.IntegerField(),
        "message_length": serializers.IntegerField(),
        "search_fields": serializers.ListField(child=serializers.CharField()),
    },
)


class SettingsApi(SiteApiView):
    """The site's settings (spec §3, §7). The caller may name the host it is on;
    only a domain of this same site is echoed back."""

    authentication_classes: list = []

    @extend_schema(
        parameters=[OpenApiParameter("domain", str, required=False)],
        responses={200: SettingsOutput},
        operation_id="settings_retrieve",
    )
    def get(self, request: Request) -> Response:
        site = request._request.site
        wanted = (request.query_params.get("domain") or "").split(":")[0].lower()
        domain = wanted if wanted and site.domains.filter(domain=wanted).exists() else None
        return Response(site_settings(site=site, request=request._request, domain=domain))
