"""GET /api/discountcode.php (spec §7): check a discount code, or with welcome=true the
member's active discount (time bonus, else welcome discount); GET /api/timebonus.php:
the member's time bonus (spec §4, §9). Members only."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.fields import StrictCharField
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.common.exceptions import ApplicationError
from apps.payments.discounts import (
    active_discount,
    discount_check,
    discount_check_rate_limit,
    discount_payload,
    time_bonus,
    time_bonus_payload,
)
from apps.payments.methods import PAYMENT_METHODS
from apps.payments.selectors import package_offered, payment_country


class DiscountCodeApi(SiteApiView):
    permission_classes = [MemberRequired]

    class DiscountCodeQuery(serializers.Serializer):
        code = StrictCharField(required=False, allow_blank=True, max_length=100, trim_whitespace=True)
        package = serializers.IntegerField(required=False, min_value=1)
        method = serializers.ChoiceField(choices=sorted(PAYMENT_METHODS), required=False)
        welcome = serializers.BooleanField(required=False, default=False)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "code",
                {"type": "string", "maxLength": 100},
                description=(
                    "The code the member typed (any case). Required unless `welcome` is true: "
                    "without it (or blank) the answer is a 400 naming `code` in `error.fields`."
                ),
            ),
            OpenApiParameter(
                "package",
                {"type": "integer", "minimum": 1},
                description="Credit package id: checks the minimum order value.",
            ),
            OpenApiParameter(
                "method",
                {"type": "string", "enum": sorted(PAYMENT_METHODS)},
                description="Payment method: checks the code's payment methods.",
            ),
            OpenApiParameter("welcome", bool, description="true: the member's active (welcome) discount."),
        ],
        responses={
            200: inline_serializer("DiscountCodeOutput", {"discount_code": serializers.DictField(allow_null=True)})
        },
        auth=MEMBER_ONLY,
        operation_id="discountcode_retrieve",
    )
    def get(self, request: Request) -> Response:
        user = request.user
        serializer = self.DiscountCodeQuery(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["welcome"]:
            return Response({"discount_code": discount_payload(active_discount(user))})
        django_request = request._request
        discount_check_rate_limit(request=django_request, user=user)
        site = django_request.site
        country = payment_country(request=django_request, user=user)
        currency = amount = None
        if data.get("package"):
            offered = package_offered(site=site, package_id=data["package"], country=country)
            if offered is None:
                message = _("This credit package is not available.")
                raise ApplicationError(
                    "package_not_found", message, status_code=404, extra={"fields": {"package": [message]}}
                )
            currency, amount = offered.currency, offered.list_amount
        discount = discount_check(
            site=site,
            user=user,
            code=data.get("code", ""),
            country=country,
            currency=currency,
            amount=amount,
            method=data.get("method") or None,
        )
        return Response({"discount_code": discount_payload(discount)})


class TimeBonusApi(SiteApiView):
    permission_classes = [MemberRequired]

    @extend_schema(
        responses={200: inline_serializer("TimeBonusOutput", {"time_bonus": serializers.DictField(allow_null=True)})},
        auth=MEMBER_ONLY,
        operation_id="timebonus_retrieve",
    )
    def get(self, request: Request) -> Response:
        return Response({"time_bonus": time_bonus_payload(time_bonus(request.user))})
