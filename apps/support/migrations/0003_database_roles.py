"""The trail belongs to the owner role; the serving role may only add and read rows.

The triggers of 0001 stop UPDATE, DELETE and TRUNCATE, but a role that owns the table
can disable or drop them (or set session_replication_role, as a superuser). So the
processes serve as another role (apps.common.database_roles): here it gets the rows of
every table, and of the trail only SELECT and INSERT. Only the owner can alter the
table, its triggers or its functions.

One change stays possible, narrowly: when a member is erased, support_audit_redact()
(SECURITY DEFINER, so it runs as the owner) replaces the member's e-mail address in the
member's earlier rows with its keyed hash and records that it did."""

from django.conf import settings
from django.db import migrations
from psycopg import sql

from apps.common.database_roles import serving_role, serving_role_grant, serving_role_separate

# The trigger lets exactly one UPDATE through: one made inside support_audit_redact(),
# which sets the flag and runs as the table's owner (a role that sets the flag itself
# is not the owner), and which changes no column but the texts and snapshots.
APPEND_ONLY_BUT_REDACTION = """
CREATE OR REPLACE FUNCTION support_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF current_setting('support.audit_redacting', true) = 'on'
           AND pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER')
           AND (NEW.id, NEW.created, NEW.actor_id, NEW.actor, NEW.site_id, NEW.site_name, NEW.member_id, NEW.action)
               IS NOT DISTINCT FROM
               (OLD.id, OLD.created, OLD.actor_id, OLD.actor, OLD.site_id, OLD.site_name, OLD.member_id, OLD.action)
        THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'the audit trail is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE FUNCTION support_audit_redact(p_site_id bigint, p_member_id bigint, p_email text, p_hash text)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    quoted text;
    pattern text;
    json_pattern text;
    changed integer;
BEGIN
    IF p_site_id IS NULL OR p_member_id IS NULL THEN
        RAISE EXCEPTION 'a site and a member are needed' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_email IS NULL OR length(p_email) NOT BETWEEN 3 AND 254 OR p_email !~ '^[^@[:space:]]+@[^@[:space:]]+$' THEN
        RAISE EXCEPTION 'not an e-mail address' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_hash IS NULL OR p_hash !~ '^email-hmac:[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'not an e-mail hash' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The address as it is written in text and inside the JSON snapshots, every
    -- character that is not a letter or digit escaped, found in any case.
    quoted := to_jsonb(p_email)::text;
    pattern := regexp_replace(p_email, '([^[:alnum:]])', '\\\\\\1', 'g');
    json_pattern := regexp_replace(substr(quoted, 2, length(quoted) - 2), '([^[:alnum:]])', '\\\\\\1', 'g');
    PERFORM set_config('support.audit_redacting', 'on', true);
    UPDATE public.support_auditentry SET
        target = regexp_replace(target, pattern, p_hash, 'gi'),
        reason = regexp_replace(reason, pattern, p_hash, 'gi'),
        before = regexp_replace(before::text, json_pattern, p_hash, 'gi')::jsonb,
        after = regexp_replace(after::text, json_pattern, p_hash, 'gi')::jsonb
    WHERE site_id = p_site_id AND member_id = p_member_id
      AND (target ~* pattern OR reason ~* pattern OR before::text ~* json_pattern OR after::text ~* json_pattern);
    GET DIAGNOSTICS changed = ROW_COUNT;
    PERFORM set_config('support.audit_redacting', 'off', true);
    IF changed > 0 THEN
        INSERT INTO public.support_auditentry
            (created, actor_id, actor, site_id, site_name, member_id, action, target, before, after, reason)
        VALUES (now(), NULL, 'system', p_site_id, '', p_member_id, 'audit.redact', p_hash, NULL,
                jsonb_build_object('rows', changed), 'e-mail address of an erased member replaced by its hash');
    END IF;
    RETURN changed;
END
$$;
REVOKE ALL ON FUNCTION support_audit_redact(bigint, bigint, text, text) FROM PUBLIC;
"""
APPEND_ONLY = """
DROP FUNCTION support_audit_redact(bigint, bigint, text, text);
CREATE OR REPLACE FUNCTION support_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit trail is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
"""


def grant(apps, schema_editor) -> None:
    """The serving role's rights: rows of every table (now and later), new schemas, and
    of the trail reading and adding only. Nothing to do when one role does everything."""
    with schema_editor.connection.cursor() as cursor:
        if not serving_role_separate(cursor):
            return
        cursor.execute("SELECT schema_name FROM tenants_site")
        schemas = ["public", settings.TENANT_BASE_SCHEMA, *(row[0] for row in cursor.fetchall())]
        serving_role_grant(cursor, schemas=schemas)
        role = sql.Identifier(serving_role())
        for statement in (
            # Before PostgreSQL 15 everyone may create objects in public.
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            "REVOKE ALL ON TABLE support_auditentry FROM {role}",
            "GRANT SELECT, INSERT ON TABLE support_auditentry TO {role}",
            "REVOKE ALL ON SEQUENCE support_auditentry_id_seq FROM {role}",
            "GRANT EXECUTE ON FUNCTION support_audit_redact(bigint, bigint, text, text) TO {role}",
        ):
            cursor.execute(sql.SQL(statement).format(role=role))


class Migration(migrations.Migration):
    dependencies = [
        ("support", "0002_member"),
        ("tenants", "0007_campaign"),
    ]

    operations = [
        migrations.RunSQL(APPEND_ONLY_BUT_REDACTION, APPEND_ONLY),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
