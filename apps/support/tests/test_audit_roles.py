"""The audit trail cannot be rewritten by the application itself: the processes serve as a
database role that may read and add rows of the trail and nothing more; the owner role
that ran the migrations owns the table, its triggers and its functions. Erasing a member
replaces the member's e-mail address in the trail with a keyed hash, rows kept."""

import hashlib
import hmac

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from psycopg import errors

from apps.accounts.tests.helpers_settings import member_create
from apps.support.audit import audit_record, email_hash
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

APPEND_ONLY_TRIGGERS = ("support_auditentry_no_update_delete", "support_auditentry_no_truncate")


def connect(credentials: dict) -> psycopg.Connection:
    """A connection of its own (autocommit) to the test database with these credentials."""
    params = connection.settings_dict
    return psycopg.connect(
        host=credentials.get("HOST") or None,
        port=credentials.get("PORT") or None,
        user=credentials["USER"],
        password=credentials.get("PASSWORD") or None,
        dbname=params["NAME"],
        autocommit=True,
    )


@pytest.fixture
def serving():
    """The role every connection of the tests logs in as, as the processes of a deployment."""
    with connect(connection.settings_dict) as conn:
        yield conn


@pytest.fixture
def owner():
    with connect(settings.DATABASE_OWNER) as conn:
        yield conn


def one(conn, query: str, params=None):
    return conn.execute(query, params).fetchone()[0]


def test_the_audit_trail_cannot_be_rewritten_by_the_application_itself(serving):
    # Given the serving role, which may add a row and read it
    assert one(serving, "SELECT current_user") == settings.DATABASE_SERVING_ROLE
    entry_id = one(
        serving,
        "INSERT INTO support_auditentry (created, actor, site_name, action, target, reason) "
        "VALUES (now(), 'system', '', 'test.rewrite', '', 'kept for ever') RETURNING id",
    )
    assert one(serving, "SELECT reason FROM support_auditentry WHERE id = %s", [entry_id]) == "kept for ever"
    # When it tries every way to change, remove or unprotect the row
    attempts = [
        f"UPDATE support_auditentry SET reason = 'rewritten' WHERE id = {entry_id}",
        f"DELETE FROM support_auditentry WHERE id = {entry_id}",
        "TRUNCATE support_auditentry",
        "ALTER TABLE support_auditentry DISABLE TRIGGER ALL",
        "ALTER TABLE support_auditentry DISABLE TRIGGER support_auditentry_no_update_delete",
        "ALTER TABLE support_auditentry DISABLE TRIGGER USER",
        "DROP TRIGGER support_auditentry_no_update_delete ON support_auditentry",
        "DROP TRIGGER support_auditentry_no_truncate ON support_auditentry",
        "ALTER TABLE support_auditentry DROP COLUMN reason",
        "ALTER TABLE support_auditentry RENAME TO support_auditentry_old",
        "ALTER TABLE support_auditentry OWNER TO CURRENT_USER",
        "DROP TABLE support_auditentry",
        "SET session_replication_role = replica",
        "DROP FUNCTION support_audit_append_only() CASCADE",
        "CREATE OR REPLACE FUNCTION support_audit_append_only() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN NEW; END $$",
        "CREATE FUNCTION public.audit_helper() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
        f"SET ROLE {connection.ops.quote_name(settings.DATABASE_OWNER['USER'])}",
        "ALTER SEQUENCE support_auditentry_id_seq RESTART WITH 1",
    ]
    for statement in attempts:
        try:
            serving.execute(statement)
        except errors.InsufficientPrivilege:
            continue
        pytest.fail(f"the serving role could run: {statement}")
    # (A GRANT of what it lacks is a warning that granted nothing.)
    serving.execute("GRANT UPDATE, DELETE ON support_auditentry TO CURRENT_USER")
    assert one(serving, "SELECT has_table_privilege('support_auditentry', 'UPDATE, DELETE')") is False
    # The redaction's flag set by the serving role itself opens nothing
    with pytest.raises(errors.InsufficientPrivilege), serving.transaction():
        serving.execute("SELECT set_config('support.audit_redacting', 'on', true)")
        serving.execute(f"UPDATE support_auditentry SET reason = 'rewritten' WHERE id = {entry_id}")
    # Then the row and its protection are as they were
    assert one(serving, "SELECT reason FROM support_auditentry WHERE id = %s", [entry_id]) == "kept for ever"
    assert one(serving, "SHOW session_replication_role") == "origin"
    enabled = serving.execute(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = 'support_auditentry'::regclass AND tgenabled = 'O' "
        "ORDER BY tgname"
    ).fetchall()
    assert tuple(name for (name,) in enabled) == tuple(sorted(APPEND_ONLY_TRIGGERS))


def test_the_serving_role_reads_and_adds_to_the_trail_and_owns_nothing_public(serving):
    role = settings.DATABASE_SERVING_ROLE
    assert one(serving, "SELECT rolsuper OR rolcreaterole OR rolcreatedb FROM pg_roles WHERE rolname = %s", [role]) is (
        False
    )
    owner = one(
        serving, "SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = 'support_auditentry'"
    )
    assert owner == settings.DATABASE_OWNER["USER"] != role
    privileges = {
        privilege: one(serving, "SELECT has_table_privilege(%s, 'public.support_auditentry', %s)", [role, privilege])
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER", "REFERENCES")
    }
    assert privileges == {
        "SELECT": True,
        "INSERT": True,
        "UPDATE": False,
        "DELETE": False,
        "TRUNCATE": False,
        "TRIGGER": False,
        "REFERENCES": False,
    }
    owned = one(
        serving,
        "SELECT count(*) FROM pg_class WHERE relowner = %s::regrole "
        "AND relnamespace IN (%s::regnamespace, %s::regnamespace)",
        [role, "public", settings.TENANT_BASE_SCHEMA],
    )
    assert owned == 0
    # ...while the rows of other public tables stay its to write
    assert one(serving, "SELECT has_table_privilege(%s, 'public.tenants_site', 'UPDATE')", [role]) is True


def test_the_owner_is_refused_by_the_triggers_too(owner):
    entry_id = one(
        owner,
        "INSERT INTO support_auditentry (created, actor, site_name, action, target, reason) "
        "VALUES (now(), 'system', '', 'test.owner', '', 'kept for ever') RETURNING id",
    )
    for statement in (
        f"UPDATE support_auditentry SET reason = 'rewritten' WHERE id = {entry_id}",
        f"DELETE FROM support_auditentry WHERE id = {entry_id}",
        "TRUNCATE support_auditentry",
    ):
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            owner.execute(statement)
    assert one(owner, "SELECT reason FROM support_auditentry WHERE id = %s", [entry_id]) == "kept for ever"


def test_the_redaction_function_replaces_nothing_but_an_address_with_a_hash(serving, site):
    entry = audit_record(actor=None, action="test.redact", site=site, member_id=777001, target="credits 100")
    function = "SELECT support_audit_redact(%s, %s, %s, %s)"
    for email, replacement in (
        ("credits 100", email_hash("credits 100")),  # not an address
        ("anna@example.com", "rewritten"),  # not a hash
        ("anna@example.com", "email-hmac:" + "g" * 64),
        (None, email_hash("anna@example.com")),
    ):
        with pytest.raises(errors.InvalidParameterValue):
            serving.execute(function, [site.pk, 777001, email, replacement])
    with pytest.raises(errors.InvalidParameterValue):
        serving.execute(function, [None, None, "anna@example.com", email_hash("anna@example.com")])
    entry.refresh_from_db()
    assert entry.target == "credits 100"


def test_erasing_a_member_replaces_their_email_in_the_trail_with_a_keyed_hash(site, gay_site, on_commit_at_once):
    # Given a member whose address is in rows of the trail, in text and in snapshots
    anna = member_create(site, email="Anna.Erased+x@example.com")
    other = member_create(gay_site, email="anna.erased+x@example.com", name="Other")
    entry = MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk)
    support = staff_client(staff_member("support", "agent"))
    for action, target, before, reason in (
        ("member.activation_resend", "Anna.Erased+x@example.com", None, "Mail went to spam"),
        ("member.email_change", "", {"email": "Anna.Erased+x@example.com", "credits": 3}, "Asked by phone"),
        ("member.note", "", None, "She wrote from ANNA.ERASED+X@EXAMPLE.COM about a refund"),
    ):
        audit_record(
            actor=None, action=action, site=site, member_id=anna.pk, target=target, before=before, reason=reason
        )
    audit_record(actor=None, action="member.note", site=gay_site, member_id=other.pk, target=other.email)
    rows_before = {row.pk: row for row in AuditEntry.objects.filter(site_id=site.pk, member_id=anna.pk)}
    # When support erases the account (after its export)
    assert support.post(f"/admin/support/member/{entry.pk}/act/export/", {"reason": "GDPR request"}).status_code == 200
    response = support.post(f"/admin/support/member/{entry.pk}/act/erase/", {"reason": "GDPR request"})
    assert response.status_code == 302
    # Then every row is still there, with the hash where the address was
    expected = (
        "email-hmac:"
        + hmac.new(settings.AUDIT_HASH_KEY.encode(), b"anna.erased+x@example.com", hashlib.sha256).hexdigest()
    )
    rows = {row.pk: row for row in AuditEntry.objects.filter(site_id=site.pk, member_id=anna.pk)}
    assert set(rows_before) < set(rows)
    for pk, row in rows.items():
        text = f"{row.target} {row.reason} {row.before} {row.after}".lower()
        assert "anna.erased" not in text, row.action
        if pk in rows_before:
            assert (row.created, row.action, row.actor) == (rows_before[pk].created, rows_before[pk].action, "system")
    resend, change, note = (rows[pk] for pk in sorted(rows_before))
    assert resend.target == expected
    assert change.before == {"email": expected, "credits": 3}
    assert note.reason == f"She wrote from {expected} about a refund"
    redaction = [row for row in rows.values() if row.action == "audit.redact"]
    assert len(redaction) == 1 and redaction[0].after == {"rows": 3} and redaction[0].target == expected
    # and another member's row with the same address on another site is untouched
    assert AuditEntry.objects.get(site_id=gay_site.pk, member_id=other.pk).target == "anna.erased+x@example.com"


def test_a_process_that_could_rewrite_the_trail_does_not_start(settings, serving, owner):
    """`check --database default` (deploy/run.sh, before every production process) passes as
    the serving role; the same question asked as the owner finds the rewriter."""
    from django.core import checks

    from apps.support.checks import trail_rewriter

    def errors_found() -> list[str]:
        return [message.id for message in checks.run_checks(databases=["default"], tags=[checks.Tags.database])]

    assert errors_found() == []
    assert trail_rewriter(serving.cursor()) is None
    role, table_owner = trail_rewriter(owner.cursor())
    assert role == table_owner == settings.DATABASE_OWNER["USER"]
