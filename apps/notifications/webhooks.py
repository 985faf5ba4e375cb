"""The mail provider's bounce and complaint webhook: POST /hooks/mail on the operators'
host, one for the whole deployment (docs/notifications.md says how to point an ESP at it).

The body is JSON, {"events": [{"type": "bounce" | "spam_complaint", "email": "...",
"message_id": "<notice.<schema>.<id>@host>", "bounce_type": "hard" | "soft"}]}, signed
with the shared secret MAIL_WEBHOOK_SECRET: header `X-Mail-Signature: t=<unix time>,
v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. A signature older than five minutes, or one
seen before (kept in Redis for those five minutes), is refused: a replayed request
changes nothing. The message id names the site's schema and the notice, so the event
lands on the member of the right site even when the address has accounts on several.
A hard bounce or a complaint records its reason on the member (spec §4) and stops every
further notification mail to the address; a soft bounce is only counted on the notice."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_tenants.utils import get_public_schema_name, schema_context

from apps.accounts.models import MAIL_STOPPED_BY
from apps.common.exceptions import error_body

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Mail-Signature"
SIGNATURE_TOLERANCE = 5 * 60
MAX_BODY = 256 * 1024
MAX_EVENTS = 500
MESSAGE_ID = re.compile(r"<?notice\.(?P<schema>[a-z_][a-z0-9_]{0,62})\.(?P<id>[0-9]{1,18})@[^>\s]{1,255}>?")
EVENT_TYPES = MAIL_STOPPED_BY  # the event types are the reasons they record


def signature_make(body: bytes, *, secret: str, timestamp: int | None = None) -> str:
    """The header value for `body` (used by the tests and by anyone writing an adapter)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _signature_ok(header: str, body: bytes, secret: str) -> tuple[bool, str]:
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    timestamp, given = parts.get("t", ""), parts.get("v1", "")
    if not timestamp.isdigit() or not given or abs(time.time() - int(timestamp)) > SIGNATURE_TOLERANCE:
        return False, ""
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    # compare_digest refuses str with non-ASCII characters (TypeError): compare bytes, so a
    # signature such as "v1=é" is a wrong signature (403) like any other.
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "surrogateescape")), given


def _error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


def _record(event: dict) -> bool:
    """Apply one event; True when it found a notice of a site."""
    from apps.accounts.models import User
    from apps.notifications.models import Channel, Notice, NoticeState
    from apps.tenants.models import Site

    match = MESSAGE_ID.fullmatch(str(event.get("message_id") or "").strip())
    kind = event.get("type")
    if not match or kind not in EVENT_TYPES:
        return False
    site = Site.objects.filter(schema_name=match["schema"]).exclude(schema_name=get_public_schema_name()).first()
    if site is None:
        return False
    hard = kind == "spam_complaint" or event.get("bounce_type", "hard") != "soft"
    with schema_context(site.schema_name), transaction.atomic():
        notice = Notice.objects.filter(pk=int(match["id"]), channel=Channel.EMAIL).first()
        if notice is None:
            return False
        Notice.objects.filter(pk=notice.pk).update(delivery=kind if hard else "soft_bounce")
        if not hard:
            return True
        address = str(event.get("email") or notice.email)
        user = User.objects.select_for_update().filter(pk=notice.user_id).first()
        if user is None or (address and user.email.casefold() != address.casefold()):
            return True  # the member has another address by now: this one no longer matters
        if user.email_disabled_reason != "spam_complaint":  # a complaint outranks a bounce
            user.email_disabled_reason = kind
            user.email_disabled_at = timezone.now()
            user.save(update_fields=["email_disabled_reason", "email_disabled_at"])
        Notice.objects.filter(user=user, channel=Channel.EMAIL, state=NoticeState.PENDING).exclude(
            kind="account"
        ).update(state=NoticeState.SKIPPED, result=f"e-mail stopped: {kind}")
    return True


@csrf_exempt  # the mail provider calls it; the signature authenticates
@require_POST
def mail_events(request: HttpRequest) -> JsonResponse:
    secret = settings.MAIL_WEBHOOK_SECRET
    if not secret:
        return _error("not_found", _("This page could not be found"), 404)
    body = request.body
    if len(body) > MAX_BODY:
        return _error("too_large", _("The request is too large."), 413)
    ok, digest = _signature_ok(request.headers.get(SIGNATURE_HEADER, ""), body, secret)
    if not ok:
        return _error("invalid_signature", _("The signature is missing, wrong or too old."), 403)
    if not cache.add(f"mail-webhook:{digest}", 1, SIGNATURE_TOLERANCE * 2):
        return _error("replayed", _("This request was received before."), 409)
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _error("invalid", _("The request body is not valid JSON."), 400)
    events = data.get("events") if isinstance(data, dict) else None
    if not isinstance(events, list) or len(events) > MAX_EVENTS or not all(isinstance(e, dict) for e in events):
        return _error("invalid", _("Send a list of events."), 400)
    recorded = 0
    for event in events:
        try:
            recorded += _record(event)
        except Exception:  # one bad event must not lose the others; the log tells
            logger.exception("mail event not recorded: %r", event)
    return JsonResponse({"received": len(events), "recorded": recorded})
