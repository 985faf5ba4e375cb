"""GET /api/search.php: member search (issue 4, spec §4 "Search results")."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.profiles.api.answers import ProfileCardOutput
from apps.profiles.search import search_allowed, search_forbidden_error, search_page, search_params_parse
from apps.tenants.constants import SEARCHABLE_PROFILE_FIELDS

SEARCH_PARAMETERS = ("gender", "country", "region", "min_age", "max_age")

SearchOutput = inline_serializer(
    "SearchOutput",
    {
        "results": ProfileCardOutput(many=True),
        "page": serializers.IntegerField(),
        "num_results": serializers.IntegerField(help_text="Exact up to 1,000; 1,000 when num_results_capped."),
        "num_results_capped": serializers.BooleanField(help_text="More than 1,000 matches (not all counted)."),
        "has_more": serializers.BooleanField(),
        "next": serializers.CharField(allow_null=True),
        "similar": ProfileCardOutput(many=True),
        "num_similar": serializers.IntegerField(help_text="Exact up to 1,000; 1,000 when num_similar_capped."),
        "num_similar_capped": serializers.BooleanField(help_text="More than 1,000 similar profiles."),
        "filters": serializers.DictField(),
    },
)
# What OpenAPI cannot state between parameters: the server answers 400 (invalid_search,
# the parameter named in `error.fields`) for exactly these, and for nothing else that the
# parameters' own schemas allow.
SEARCH_RULES = (
    "`region` must be a region of `country` (without `country`: of the country the search "
    "defaults to, `filters.country` of the answer); `min_age` must not be above `max_age` "
    "(either one absent: its default, the site's minimum age or 99); `cursor` is the `next` "
    "of an earlier answer, and one the server does not know (any other text, or expired) "
    "asks the client to search again. A request breaking one is a 400 naming `region`, "
    "`max_age` or `cursor` in `error.fields`."
)


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
        responses={200: SearchOutput},
        description=SEARCH_RULES,
        operation_id="search",
    )
    def get(self, request: Request) -> Response:
        django_request = request._request
        if not search_allowed(django_request):
            raise search_forbidden_error()
        site = django_request.site
        search = search_params_parse(site=site, viewer=request.user, params=request.query_params)
        return Response(search_page(site=site, viewer=request.user, search=search))
