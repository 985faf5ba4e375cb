"""GET /api/search.php: member search (issue 4, spec §4 "Search results")."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.profiles.search import search_allowed, search_forbidden_error, search_page, search_params_parse
from apps.tenants.constants import SEARCHABLE_PROFILE_FIELDS

SEARCH_PARAMETERS = ("gender", "country", "region", "min_age", "max_age")


class SearchApi(SiteApiView):
    """One page of profiles matching the filters, newest first, with the count, the
    cursor of the next page (`next`) and, on a short first page, similar results.
    Members always; visitors when the site allows it (spec §6)."""

    @extend_schema(
        parameters=[
            OpenApiParameter(name, str, required=False)
            for name in (
                "gender",
                "country",
                "region",
                "min_age",
                "max_age",
                *SEARCHABLE_PROFILE_FIELDS,
                "page",
                "cursor",
            )
        ],
        responses={200: dict},
        operation_id="search",
    )
    def get(self, request: Request) -> Response:
        django_request = request._request
        if not search_allowed(django_request):
            raise search_forbidden_error()
        site = django_request.site
        search = search_params_parse(site=site, viewer=request.user, params=request.query_params)
        return Response(search_page(site=site, viewer=request.user, search=search))
