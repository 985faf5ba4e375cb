"""The SMS provider's delivery receipts: POST /hooks/sms/twilio/<schema> on the operators'
host (config/urls_public.py), the address apps.payments.sms.sms_status_url gives Twilio
with each message. docs/operators.md says how an operator sets it up.

Twilio posts the message's status as a form (MessageSid, MessageStatus, ErrorCode...)
signed with the auth token of the account that sent it: `X-Twilio-Signature` is the
base64 HMAC-SHA1 of the address and the sorted parameters (the SDK's RequestValidator).
The address is the one we gave Twilio, not the one the request arrived at, so a proxy in
front changes nothing. A wrong signature is 403; a body that is not a form, too large, or
without a well-formed message id or a known status is 400/413/415; a message no request
of the site sent is 404. Receipts may repeat and arrive out of order: recording one is
idempotent (apps.payments.directdebit.directdebit_sms_receipt)."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_tenants.utils import get_public_schema_name, schema_context

from apps.common.exceptions import error_body
from apps.payments.directdebit import SMS_RECEIPT_STATES, directdebit_sms_receipt
from apps.payments.sms import sms_status_url, twilio_auth_token
from apps.tenants.models import Site

SIGNATURE_HEADER = "X-Twilio-Signature"
MAX_BODY = 16 * 1024  # a status callback is a few hundred bytes
MESSAGE_SID = re.compile(r"(SM|MM)[0-9a-f]{32}")
ERROR_CODE = re.compile(r"[0-9]{1,6}")


def _error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


def _not_found() -> JsonResponse:
    return _error("not_found", _("This page could not be found"), 404)


@csrf_exempt  # the provider calls it; the signature authenticates
@require_POST
def twilio_status(request: HttpRequest, schema: str) -> HttpResponse:
    from twilio.request_validator import RequestValidator

    site = Site.objects.filter(schema_name=schema).exclude(schema_name=get_public_schema_name()).first()
    token = twilio_auth_token(site) if site is not None else ""
    if not token:
        return _not_found()
    body = request.body
    if len(body) > MAX_BODY:
        return _error("too_large", _("The request is too large."), 413)
    if request.content_type != "application/x-www-form-urlencoded":
        message = _("The request must be a form (application/x-www-form-urlencoded).")
        return _error("unsupported_media_type", message, 415)
    try:
        params = QueryDict(body.decode("utf-8"))
    except UnicodeDecodeError:
        return _error("invalid", _("The request is not valid UTF-8."), 400)
    url = sms_status_url(site)
    signature = request.headers.get(SIGNATURE_HEADER, "")
    if not url or not signature.isascii() or not RequestValidator(token).validate(url, params, signature):
        return _error("invalid_signature", _("The signature is missing or wrong."), 403)
    message_id = params.get("MessageSid", "")
    status = params.get("MessageStatus", "")
    error_code = params.get("ErrorCode", "")
    if not MESSAGE_SID.fullmatch(message_id) or status not in SMS_RECEIPT_STATES:
        return _error("invalid", _("The request names no message or no known status."), 400)
    if error_code and not ERROR_CODE.fullmatch(error_code):
        error_code = ""
    with schema_context(site.schema_name):
        if not directdebit_sms_receipt(site_id=site.pk, message_id=message_id, status=status, error_code=error_code):
            return _not_found()
    return HttpResponse(status=204)
