"""Writing the audit trail. Callers pass what changed; nothing here decides policy."""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

from apps.support.models import AuditEntry

SECRET = "(secret)"


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
