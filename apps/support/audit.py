"""Writing the audit trail. Callers pass what changed; nothing here decides policy."""

from __future__ import annotations

import datetime
import decimal
import hashlib
import hmac
import re
import uuid
from typing import Any

from django.conf import settings
from django.db import connection

from apps.support.models import AuditEntry

SECRET = "(secret)"
# The shape support_audit_redact() (migration 0003) accepts; anything else it refuses.
EMAIL_SHAPE = re.compile(r"[^@\s]+@[^@\s]+")


def jsonable(value: Any) -> Any:
    """Values of a model snapshot as JSON (dates as ISO text, decimals as text)."""
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def audit_record(
    *,
    actor,
    action: str,
    site=None,
    member_id: int | None = None,
    target: str = "",
    before: dict | None = None,
    after: dict | None = None,
    reason: str = "",
) -> AuditEntry:
    """One row of the trail. `actor` is the staff user (or None for the system), `site`
    a Site or None for actions outside any site."""
    return AuditEntry.objects.create(
        actor_id=getattr(actor, "pk", None),
        actor=actor.get_username() if actor is not None else "system",
        site_id=getattr(site, "pk", None),
        site_name=getattr(site, "name", "")[:100],
        member_id=member_id,
        action=action[:60],
        target=str(target)[:200],
        before=jsonable(before) if before is not None else None,
        after=jsonable(after) if after is not None else None,
        reason=reason,
    )


def email_hash(email: str) -> str:
    """The keyed hash that stands for an erased member's e-mail address in the trail: the
    same address (in any case) gives the same hash, so support can still answer "what
    happened to the account of this address?" when asked with it, and the hash alone
    gives the address away to no one without AUDIT_HASH_KEY."""
    key = settings.AUDIT_HASH_KEY.encode()
    return "email-hmac:" + hmac.new(key, email.strip().lower().encode(), hashlib.sha256).hexdigest()


def audit_email_redact(*, site_id: int, member_id: int, emails) -> int:
    """Replace the member's e-mail addresses in the member's rows of the trail with their
    hashes; returns how many rows changed. The serving role cannot UPDATE the trail: the
    database function does it as the owner and records a row of its own."""
    changed = 0
    with connection.cursor() as cursor:
        for email in sorted({email.strip() for email in emails if email and email.strip()}):
            if not (3 <= len(email) <= 254 and EMAIL_SHAPE.fullmatch(email)):
                continue
            cursor.execute(
                "SELECT public.support_audit_redact(%s, %s, %s, %s)", [site_id, member_id, email, email_hash(email)]
            )
            changed += cursor.fetchone()[0]
    return changed


def member_audit_redact(*, site, user) -> int:
    """Registered with the member erasure (apps.accounts.services.deletion): every address
    the member had, the account's and allauth's."""
    from allauth.account.models import EmailAddress

    emails = [user.email, *EmailAddress.objects.filter(user=user).values_list("email", flat=True)]
    return audit_email_redact(site_id=site.pk, member_id=user.pk, emails=emails)
