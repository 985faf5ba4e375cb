"""The serving role must not be able to rewrite the audit trail (docs/security.md, "Audit
trail"): a deployment whose processes log in as the table's owner, or as a superuser, has
nothing but triggers between the application and the trail, and the owner may drop those.
`manage.py check --database default` reports it; deploy/run.sh runs that check before a
production process starts, so such a deployment stops instead of serving."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.db import DatabaseError, connections

AUDIT_TABLE = "support_auditentry"


def trail_rewriter(cursor) -> tuple[str, str] | None:
    """(the connected role, the trail's owner) when the connected role is a superuser or
    the owner (or a member of it), else None; None too before the table exists."""
    cursor.execute(
        "SELECT r.rolsuper OR pg_has_role(current_user, t.tableowner, 'MEMBER'), current_user, t.tableowner "
        "FROM pg_roles r, pg_tables t "
        "WHERE r.rolname = current_user AND t.schemaname = 'public' AND t.tablename = %s",
        [AUDIT_TABLE],
    )
    row = cursor.fetchone()
    return (row[1], row[2]) if row and row[0] else None


@checks.register(checks.Tags.database)
def serving_role_cannot_rewrite_the_trail(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    if not databases or "default" not in databases or settings.DATABASE_SINGLE_ROLE_ALLOWED:
        return []
    try:
        with connections["default"].cursor() as cursor:
            found = trail_rewriter(cursor)
    except DatabaseError as error:
        return [checks.Error(f"The database could not be asked who owns the audit trail: {error}", id="support.E002")]
    if found is None:
        return []
    role, owner = found
    return [
        checks.Error(
            f"The processes log in as {role!r}, which owns (or is a superuser over) the audit trail of {owner!r}: "
            "it could rewrite the trail.",
            hint="Serve as a role that is not the owner (DATABASE_URL) and migrate as the owner (DATABASE_OWNER_URL), "
            "docs/deploy.md 'Database roles'; or set DATABASE_SINGLE_ROLE_ALLOWED=1 for a deployment that accepts it.",
            id="support.E001",
        )
    ]
