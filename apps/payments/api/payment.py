"""/api/payment.php (spec §4 "Payment"): POST starts a payment of a credit package with a
payment method and sends the member to the gateway's checkout; GET ?id=<public_id> is
the return page's status poll (loading, pending, completed, failed).

Starting is rate limited per member. The status poll fetches the state from the gateway
itself (payment_sync) when the payment is not final and was not fetched in the last
seconds, so the return page works when the webhook is late or lost."""

from datetime import timedelta

from allauth.core.internal import ratelimit
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.common.api.base import SiteApiView
from apps.common.api.fields import StrictCharField
from apps.common.api.permissions import MemberRequired
from apps.common.api.schema import MEMBER_ONLY
from apps.common.exceptions import ApplicationError
from apps.payments.gateways.base import GatewayError
from apps.payments.methods import PAYMENT_METHODS
from apps.payments.models import FINAL_STATUSES, Payment
from apps.payments.services import payment_payload, payment_start, payment_sync

# Payments a member may start (or repeat orders) in the window: a real buyer needs a few,
# a script trying cards needs many.
PAYMENT_RATE_LIMIT = "10/10m/user"
RATE_LIMIT_ACTION = "payment_start"
# The poll asks the gateway at most this often per payment.
SYNC_INTERVAL = timedelta(seconds=3)


def payment_rate_limit(*, request: HttpRequest, user) -> None:
    """Counts one payment start; raises "rate_limited" (429) past the limit. Shared with
    the repeat-order page."""
    usage = ratelimit.consume(
        request,
        app="payments",
        action=RATE_LIMIT_ACTION,
        config={RATE_LIMIT_ACTION: PAYMENT_RATE_LIMIT},
        user=user,
    )
    if not usage:
        raise ApplicationError(
            "rate_limited",
            _("You have started many payments in a short time. Please wait a few minutes and try again."),
            status_code=429,
        )


def member_payment(*, user, public_id: str) -> Payment | None:
    """The member's own payment with this public id; None for anyone else's or an unknown id."""
    if not public_id or len(public_id) > 24:
        return None
    return Payment.objects.filter(user=user, public_id=public_id).first()


def payment_refresh(*, payment: Payment) -> Payment:
    """The payment as the gateway sees it now, asked at most every SYNC_INTERVAL while it is
    not final. A gateway that does not answer leaves the stored state (the poll retries)."""
    if payment.status in FINAL_STATUSES:
        return payment
    if payment.synced_at is not None and timezone.now() - payment.synced_at < SYNC_INTERVAL:
        return payment
    try:
        return payment_sync(payment=payment)
    except GatewayError:
        return payment


def payment_response(payment: Payment) -> dict:
    """payment_payload plus the texts the screen shows, translated here (plural forms)."""
    payload = payment_payload(payment)
    credits, balance = int(payload.get("credits") or 0), int(payload.get("balance") or 0)
    return {
        **payload,
        "credits_added_text": ngettext("%(count)s credit added", "%(count)s credits added", credits)
        % {"count": credits},
        "balance_text": ngettext("You now have %(count)s credit.", "You now have %(count)s credits.", balance)
        % {"count": balance},
    }


class PaymentApi(SiteApiView):
    permission_classes = [MemberRequired]

    class PaymentStartInput(serializers.Serializer):
        package = serializers.IntegerField(min_value=1)
        # Every method there is; one not offered in the member's country is a 409.
        method = serializers.ChoiceField(choices=sorted(PAYMENT_METHODS))
        discount_code = StrictCharField(max_length=40, required=False, allow_blank=True, default="")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "id",
                {"type": "string", "minLength": 1, "maxLength": 24},
                required=True,
                description="The payment's public id",
            )
        ],
        responses={200: inline_serializer("PaymentOutput", {"payment": serializers.DictField()})},
        auth=MEMBER_ONLY,
        operation_id="payment_retrieve",
    )
    def get(self, request: Request) -> Response:
        user = request.user
        payment = member_payment(user=user, public_id=request.query_params.get("id", "").strip())
        if payment is None:
            raise ApplicationError("payment_not_found", _("This payment could not be found."), status_code=404)
        payment = payment_refresh(payment=payment)
        return Response({"payment": payment_response(payment)})

    @extend_schema(
        request=PaymentStartInput,
        responses={
            201: inline_serializer(
                "PaymentStartOutput", {"payment": serializers.DictField(), "checkout_url": serializers.CharField()}
            )
        },
        auth=MEMBER_ONLY,
        operation_id="payment_create",
    )
    def post(self, request: Request) -> Response:
        user = request.user
        serializer = self.PaymentStartInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        payment_rate_limit(request=request._request, user=user)
        payment = payment_start(
            request=request._request,
            user=user,
            package_id=data["package"],
            method=data["method"],
            discount_code=data["discount_code"].strip().upper(),
        )
        return Response({"payment": payment_response(payment), "checkout_url": payment.checkout_url}, status=201)
