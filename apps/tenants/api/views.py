from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.tenants.selectors import site_settings


class SettingsApi(SiteApiView):
    """The site's settings (spec §3, §7). The caller may name the host it is on;
    only a domain of this same site is echoed back."""

    authentication_classes: list = []

    @extend_schema(
        parameters=[OpenApiParameter("domain", str, required=False)],
        responses={200: dict},
        operation_id="settings_retrieve",
    )
    def get(self, request: Request) -> Response:
        site = request._request.site
        wanted = (request.query_params.get("domain") or "").split(":")[0].lower()
        domain = wanted if wanted and site.domains.filter(domain=wanted).exists() else None
        return Response(site_settings(site=site, request=request._request, domain=domain))
