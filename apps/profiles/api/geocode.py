"""GET /api/geocode.php?lat=..&lon=.. (spec §7): the country, region and town of a
point, found offline (apps.profiles.geocoding). Visitors may ask too (the signup's
location step); it is rate limited per address. The coordinates are neither stored
nor logged: only the caller stores the town it is given."""

import math

from allauth.core.internal import ratelimit
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.exceptions import ApplicationError
from apps.profiles.geocoding import reverse_geocode

RATE_LIMIT_ACTION = "geocode"


class GeocodeApi(SiteApiView):
    class GeocodeQuery(serializers.Serializer):
        lat = serializers.FloatField(min_value=-90, max_value=90)
        lon = serializers.FloatField(min_value=-180, max_value=180)

    Output = inline_serializer(
        "GeocodeOutput",
        {"country": serializers.CharField(), "region": serializers.CharField(), "city": serializers.CharField()},
    )

    @extend_schema(
        parameters=[
            OpenApiParameter("lat", {"type": "number", "minimum": -90, "maximum": 90}, required=True),
            OpenApiParameter("lon", {"type": "number", "minimum": -180, "maximum": 180}, required=True),
        ],
        responses={200: Output},
        operation_id="geocode_retrieve",
    )
    def get(self, request: Request) -> Response:
        serializer = self.GeocodeQuery(data=request.query_params)
        if not serializer.is_valid() or not all(math.isfinite(value) for value in serializer.validated_data.values()):
            raise ApplicationError(
                "invalid_coordinates",
                _("This location is not valid. Latitude must be between -90 and 90, longitude between -180 and 180."),
            )
        # allauth's public consume() lets every GET through; the internal one can count
        # GETs too (limit_get). The rate is ACCOUNT_RATE_LIMITS["geocode"].
        usage = ratelimit.consume(request._request, app="allauth.account", action=RATE_LIMIT_ACTION, limit_get=True)
        if not usage:
            raise ApplicationError(
                "rate_limited", _("Too many location requests. Please try again in a minute."), status_code=429
            )
        place = reverse_geocode(lat=serializer.validated_data["lat"], lon=serializer.validated_data["lon"])
        if place is None:
            raise ApplicationError("no_place", _("No town was found near this location."), status_code=404)
        return Response(place.as_dict())
