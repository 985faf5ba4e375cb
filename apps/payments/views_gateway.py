"""The gateways' side of the site: the payment webhook, and the sandbox gateway's hosted
checkout page (a stand-in for the provider's own checkout).

The webhook trusts nothing it is sent but the payment id: the state is fetched from the
gateway itself (payment_sync_by_provider_id). It answers 200 for an id we do not know
(nothing is revealed) and 503 when the gateway did not answer, so the provider retries."""

import logging
import re

from allauth.core.internal import ratelimit
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from apps.common.exceptions import error_body
from apps.payments.formatting import money_format
from apps.payments.gateways import sandbox
from apps.payments.gateways.base import GatewayError, GatewayTimeout
from apps.payments.gateways.registry import sandbox_allowed
from apps.payments.gateways.sandbox import sandbox_chargeback, sandbox_checkout_decide, sandbox_payment_get
from apps.payments.methods import method_label
from apps.payments.models import Payment
from apps.payments.services import payment_sync_by_provider_id

logger = logging.getLogger(__name__)

SANDBOX = sandbox.NAME

# Providers call from a few addresses; a busy site gets many calls a minute from each.
WEBHOOK_RATE_LIMIT = "600/m/ip"
WEBHOOK_RATE_ACTION = "payment_webhook"
PROVIDER_ID_MAX_LENGTH = 100
# Mollie's ids (tr_..., chb_...) and the sandbox's (tr_sbx_...): letters, digits, "_" and "-".
PROVIDER_ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{1,{PROVIDER_ID_MAX_LENGTH}}}")


def _gateway_of(provider_id: str) -> str:
    return SANDBOX if provider_id.startswith(sandbox.PAYMENT_PREFIX) else "mollie"


@csrf_exempt  # the provider calls it; it only makes us fetch the state ourselves
@require_POST
def payment_webhook(request: HttpRequest) -> HttpResponse:
    usage = ratelimit.consume(
        request, app="payments", action=WEBHOOK_RATE_ACTION, config={WEBHOOK_RATE_ACTION: WEBHOOK_RATE_LIMIT}
    )
    if not usage:
        return JsonResponse(
            error_body("rate_limited", _("Too many attempts. Please wait a minute and try again.")), status=429
        )
    try:
        provider_id = request.POST.get("id", "").strip()
    except MultiPartParserError:
        provider_id = ""
    if not PROVIDER_ID_PATTERN.fullmatch(provider_id):
        return JsonResponse(error_body("invalid", _("This payment could not be found.")), status=400)
    try:
        payment_sync_by_provider_id(gateway=_gateway_of(provider_id), provider_id=provider_id)
    except GatewayTimeout:
        logger.warning("webhook %s: the gateway did not answer; the provider retries", provider_id)
        return HttpResponse(status=503)
    except GatewayError as error:
        logger.warning("webhook %s: the gateway refused the fetch (%s)", provider_id, error)
        return HttpResponse(status=502)
    return HttpResponse(status=200)


# --- The sandbox's hosted checkout ------------------------------------------------------


def _sandbox_row(request: HttpRequest, provider_id: str):
    """The sandbox payment in this site's schema; 404 unless the site uses the sandbox and
    the deployment takes test payments."""
    if request.site.payment_gateway != SANDBOX or not sandbox_allowed():
        raise Http404
    row = sandbox_payment_get(provider_id)
    if row is None or row.sequence == "recurring":
        raise Http404
    return row


@never_cache
@require_http_methods(["GET", "POST"])
def sandbox_checkout(request: HttpRequest, provider_id: str) -> HttpResponse:
    row = _sandbox_row(request, provider_id)
    error = ""
    notice = ""
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "chargeback":
                row = sandbox_chargeback(provider_id=row.id)
                notice = _("The chargeback was sent to the site.")
            else:
                row = sandbox_checkout_decide(provider_id=row.id, action=action)
                # As a provider does: back to the site, which shows the payment's state.
                return HttpResponseRedirect(row.redirect_url)
        except GatewayError:
            row = sandbox_payment_get(row.id)
            error = _("This test payment cannot be changed that way any more.")
    payment = Payment.objects.filter(gateway=SANDBOX, provider_id=row.id).only("credits").first()
    context = {
        "row": row,
        "amount": money_format(row.amount, row.currency),
        "method": method_label(row.method),
        "credits": payment.credits if payment is not None else None,
        "deciding": row.status in sandbox.CHECKOUT_OPEN_STATUSES,
        "first": row.sequence == "first",
        "can_charge_back": row.status == "paid" and row.amount_refunded + row.amount_charged_back < row.amount,
        "error": error,
        "notice": notice,
    }
    return render(request, "payments/sandbox_checkout.html", context, status=409 if error else 200)
