"""Two database roles: the owner runs the migrations and owns the public schema's tables
(among them the audit trail and its triggers); the serving role, which every web
process, worker and beat logs in as, reads and writes rows and creates the schemas of new
sites, but can neither alter the owner's tables nor their triggers (docs/deploy.md,
"Database roles"; docs/security.md, "Audit trail").

`DATABASE_URL` names the serving role, `DATABASE_OWNER_URL` the owner (the same role
when it is not set: one role, as before, and no protection of the trail beyond its
triggers). The serving role's name for the grants is `DATABASE_SERVING_ROLE`."""

from __future__ import annotations

from contextlib import contextmanager

from django.conf import settings
from django.db import connection
from psycopg import sql

# What the serving role may do with the owner's tables and sequences, and in the schemas:
# rows only. Single tables take privileges away again (the audit trail: SELECT, INSERT).
TABLE_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE, REFERENCES"
SEQUENCE_PRIVILEGES = "USAGE, SELECT, UPDATE"
_CREDENTIALS = ("USER", "PASSWORD", "HOST", "PORT")


def serving_role() -> str:
    return settings.DATABASE_SERVING_ROLE or ""


def serving_role_separate(cursor) -> bool:
    """Whether the serving role is another role than the one connected (the owner)."""
    role = serving_role()
    if not role:
        return False
    cursor.execute("SELECT current_user <> %s", [role])
    return cursor.fetchone()[0]


def serving_role_grant(cursor, *, schemas: list[str]) -> None:
    """Let the serving role work with the rows of the owner's tables in `schemas` (those
    that exist), create new sites' schemas in the database, and use whatever the owner
    creates later (default privileges: a later migration's tables, the template schema).
    Run as the owner; grants are idempotent."""
    role = sql.Identifier(serving_role())
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [serving_role()])
    if cursor.fetchone() is None:
        raise RuntimeError(
            f"The serving database role {serving_role()!r} does not exist: create it before migrating "
            "(docs/deploy.md, Database roles)."
        )
    statements = [
        sql.SQL("GRANT CONNECT, TEMPORARY, CREATE ON DATABASE {} TO {}").format(
            sql.Identifier(connection.settings_dict["NAME"]), role
        ),
        sql.SQL("ALTER DEFAULT PRIVILEGES GRANT USAGE ON SCHEMAS TO {}").format(role),
        sql.SQL("ALTER DEFAULT PRIVILEGES GRANT {} ON TABLES TO {}").format(sql.SQL(TABLE_PRIVILEGES), role),
        sql.SQL("ALTER DEFAULT PRIVILEGES GRANT {} ON SEQUENCES TO {}").format(sql.SQL(SEQUENCE_PRIVILEGES), role),
    ]
    cursor.execute("SELECT nspname FROM pg_namespace WHERE nspname = ANY(%s)", [schemas])
    for (schema,) in cursor.fetchall():
        name = sql.Identifier(schema)
        statements += [
            sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(name, role),
            sql.SQL("GRANT {} ON ALL TABLES IN SCHEMA {} TO {}").format(sql.SQL(TABLE_PRIVILEGES), name, role),
            sql.SQL("GRANT {} ON ALL SEQUENCES IN SCHEMA {} TO {}").format(sql.SQL(SEQUENCE_PRIVILEGES), name, role),
        ]
    for statement in statements:
        cursor.execute(statement)


@contextmanager
def owner_connection():
    """Run the block on the default connection logged in as the owner
    (`DATABASE_OWNER_URL`): migrations create and alter the tables the serving role may
    not. The serving role's connection comes back afterwards. The database name stays
    the connection's own (the test database in tests)."""
    owner = settings.DATABASE_OWNER
    with connection_as({key: owner.get(key) for key in _CREDENTIALS}):
        yield


@contextmanager
def connection_as(credentials: dict):
    """The default connection (of every thread: they share its settings) logged in with
    `credentials` (USER, PASSWORD, HOST, PORT) for the block, then as before."""
    current = connection.settings_dict
    wanted = {key: credentials.get(key) or "" for key in _CREDENTIALS}
    saved = {key: current.get(key) or "" for key in _CREDENTIALS}
    if wanted == saved:
        yield
        return
    _reconnect()
    current.update(wanted)
    try:
        yield
    finally:
        _reconnect()
        current.update(saved)


def _reconnect() -> None:
    # A pool (settings.base) keeps connections of the role it was opened with.
    connection.close()
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        connection.close_pool()


def serving_role_create(cursor, *, role: str, password: str) -> None:
    """Make the serving role on the database server (the tests' and `make run`'s; a
    deployment makes it with its database, deploy/compose.yaml): it logs in and is
    nothing more. Safe when it exists, also when two processes make it at once."""
    name, secret = sql.Identifier(role), sql.Literal(password)
    attributes = sql.SQL("LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD {}").format(
        secret
    )
    cursor.execute(
        sql.SQL(
            "DO $$BEGIN CREATE ROLE {name} {attributes}; "
            "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END$$"
        ).format(name=name, attributes=attributes)
    )
    cursor.execute(sql.SQL("ALTER ROLE {name} {attributes}").format(name=name, attributes=attributes))
