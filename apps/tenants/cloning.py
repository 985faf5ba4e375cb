"""A new site's schema as an exact, fast copy of the template schema.

Why not django-tenants' own clone (`TENANT_BASE_SCHEMA` + `clone_schema()`):

- it is slow at scale: the PL/pgSQL function reads catalog views such as `pg_indexes`
  for every object it copies, so each clone takes longer the more schemas the
  database holds (0.3 s per site with 1 site, 0.7 to 3 s with 1,000: slower than
  replaying every migration);
- it is not exact: Django's named unique constraints come out under PostgreSQL's
  default names and integer sequences as bigint, so a later migration that names
  such a constraint would fail on cloned sites only.

Instead the template's definition is taken once per template state with
`pg_dump --schema-only` (PostgreSQL's own, exact rendering of every table, column,
identity, default, index, constraint and sequence) and kept in the public schema
(`SchemaTemplate`, keyed by a fingerprint of the template's applied migrations).
A clone executes that DDL with the template's name replaced, copies the template's
rows (so the copy says every migration is applied: no `migrate_schemas --fake`)
and gives each sequence the template's position, in the caller's transaction. No
statement depends on how many schemas exist, so a clone costs the same with 1 site
as with thousands.

`schema_signature` describes a schema without its name, to check that a clone (or
a migrated schema) is the same as the template.
"""

from __future__ import annotations

import functools
import graphlib
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.utils.translation import gettext_lazy as _

# Schema names that need no quoting (keywords aside), so pg_dump writes the
# template's bare and it can be replaced without parsing SQL; a new schema's name is
# quoted anyway, and nothing in such a name can end a string or an identifier.
SCHEMA_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")
SCHEMA_NAME_MAX_LENGTH = 63  # PostgreSQL's NAMEDATALEN - 1

PG_DUMP_TIMEOUT = 120  # seconds
# pg_dump waits this long for a lock on a template table (e.g. a migration running
# on the template in a transaction that has not committed), then fails.
PG_DUMP_LOCK_WAIT = "30s"


class CloneError(RuntimeError):
    """The template could not be captured or copied."""


# The model lives with the cloning that alone reads and writes it, so this module needs
# nothing from apps.tenants.models, which calls it to create a site's schema (the model
# is registered when models.py imports this module).
class SchemaTemplate(models.Model):
    """The template schema's DDL as pg_dump wrote it, captured once per state of the
    template (its applied migrations), so creating a site does not have to read the
    template's definition from the catalog (apps.tenants.cloning)."""

    fingerprint = models.CharField(_("fingerprint"), max_length=64, unique=True)
    ddl = models.TextField(_("DDL"))
    row_tables = ArrayField(
        models.CharField(max_length=63),
        default=list,
        verbose_name=_("tables whose rows are copied"),
        help_text=_("Every table of the template, referenced tables first."),
    )
    sequences = models.JSONField(_("sequences"), default=dict, help_text=_("Name: last value at the capture."))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("schema template")
        verbose_name_plural = _("schema templates")

    def __str__(self) -> str:
        return f"{self.fingerprint[:12]} ({self.created:%Y-%m-%d %H:%M})"


# --- Schema names ----------------------------------------------------------------------


def schema_name_is_valid(name: str) -> bool:
    return (
        bool(SCHEMA_NAME_RE.fullmatch(name or ""))
        and len(name) <= SCHEMA_NAME_MAX_LENGTH
        and not name.startswith("pg_")
    )


def schema_name_check(name: str) -> None:
    """Lowercase letters, digits and underscores, not starting with a digit or `pg_`,
    at most 63 characters: such a name is used bare in SQL without quoting rules."""
    if not schema_name_is_valid(name):
        raise ValidationError(
            _(
                "A schema name uses lowercase letters, digits and underscores, does not start with a digit "
                "or pg_, and has at most 63 characters."
            ),
            code="invalid_schema_name",
        )


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --- Capturing the template ------------------------------------------------------------


def template_name() -> str:
    return settings.TENANT_BASE_SCHEMA


def template_fingerprint(template: str | None = None) -> str:
    """A hash of the template's name and applied migrations: the template only changes
    through migrations, so equal fingerprints mean equal DDL."""
    template = template or template_name()
    schema_name_check(template)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT app, name FROM {_ident(template)}.django_migrations ORDER BY app, name")  # noqa: S608 - checked name
        rows = cursor.fetchall()
    digest = hashlib.sha256(template.encode())
    for app, name in rows:
        digest.update(f"\n{app}\t{name}".encode())
    return digest.hexdigest()


@functools.cache
def pg_dump_binary(server_major: int) -> str:
    """A pg_dump at least as new as the server (an older one refuses to dump it):
    pgserver's bundled one (a runtime requirement, so always there), then the one on
    PATH, then Debian's /usr/lib/postgresql/<version>/bin, newest first."""
    candidates = []
    spec = importlib.util.find_spec("pgserver")  # located, not imported: importing it warns
    if spec and spec.origin:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin" / "pg_dump")
    on_path = shutil.which("pg_dump")
    if on_path:
        candidates.append(Path(on_path))
    debian = [path for path in Path("/usr/lib/postgresql").glob("*/bin/pg_dump") if path.parent.parent.name.isdigit()]
    candidates += sorted(debian, key=lambda path: int(path.parent.parent.name), reverse=True)
    for candidate in candidates:
        if not os.access(candidate, os.X_OK):
            continue
        try:
            version = subprocess.run([str(candidate), "--version"], capture_output=True, text=True, timeout=10).stdout  # noqa: S603
        except (OSError, subprocess.SubprocessError):
            continue
        match = re.search(r"(\d+)(?:\.\d+)?", version)
        if match and int(match.group(1)) >= server_major:
            return str(candidate)
    tried = ", ".join(str(candidate) for candidate in candidates) or "none"
    raise CloneError(f"no pg_dump of version {server_major} or newer found (tried {tried})")


def _libpq_environment() -> dict[str, str]:
    """The connection of the default database as libpq environment variables, so the
    password never appears on a command line (HOST may be a Unix socket directory)."""
    params = connection.settings_dict
    env = dict(os.environ)
    for key, variable in (
        ("HOST", "PGHOST"),
        ("PORT", "PGPORT"),
        ("USER", "PGUSER"),
        ("PASSWORD", "PGPASSWORD"),
        ("NAME", "PGDATABASE"),
    ):
        if params.get(key):
            env[variable] = str(params[key])
    options = params.get("OPTIONS") or {}
    for key, variable in (
        ("sslmode", "PGSSLMODE"),
        ("sslrootcert", "PGSSLROOTCERT"),
        ("sslcert", "PGSSLCERT"),
        ("sslkey", "PGSSLKEY"),
        ("service", "PGSERVICE"),
        ("passfile", "PGPASSFILE"),
    ):
        if options.get(key):
            env[variable] = str(options[key])
    env["PGAPPNAME"] = "schema-template-capture"
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    return env


def template_ddl_dump(template: str) -> str:
    """The template's DDL as pg_dump writes it (plain format, no owners, no grants)."""
    schema_name_check(template)
    binary = pg_dump_binary(connection.pg_version // 10000)
    args = [
        binary, "--schema-only", "--no-owner", "--no-privileges", f"--lock-wait-timeout={PG_DUMP_LOCK_WAIT}",
        f"--schema={template}",
    ]  # fmt: skip
    try:
        dumped = subprocess.run(  # noqa: S603 - fixed arguments, a checked schema name
            args, capture_output=True, text=True, env=_libpq_environment(), timeout=PG_DUMP_TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        raise CloneError(f"pg_dump of {template} took more than {PG_DUMP_TIMEOUT} s") from exc
    if dumped.returncode != 0:
        raise CloneError(f"pg_dump of {template} failed: {dumped.stderr.strip()[-1000:]}")
    return dumped.stdout


# One lexeme of pg_dump's output that may hold a `;` that does not end a statement,
# or a `;` that does. Strings, quoted identifiers and dollar-quoted bodies are
# skipped whole; a psql meta-command (`\restrict ...` in recent pg_dump releases)
# is a line of its own.
_LEXEME = re.compile(
    r"""
      (?P<comment> --[^\n]* | /\*.*?\*/ )
    | (?P<meta> ^\\[^\n]* )
    | (?P<quoted> (?<![\w$])[Ee]'(?:[^'\\]|\\.|'')*' | '(?:[^']|'')*' | "(?:[^"]|"")*" )
    | (?P<dollar> (?<![\w$])\$(?P<tag>[A-Za-z_]\w*|)\$ .*? \$(?P=tag)\$ )
    | (?P<end> ; )
    """,
    re.DOTALL | re.MULTILINE | re.VERBOSE,
)
_LEADING_COMMENTS = re.compile(r"\A(?:\s+|--[^\n]*)*")


def ddl_statements(script: str) -> list[str]:
    """pg_dump's plain output split into statements, each ending with `;`, without
    comments before them and without psql meta-commands."""
    statements: list[str] = []
    start = 0
    for match in _LEXEME.finditer(script):
        if match.lastgroup == "meta":
            if _LEADING_COMMENTS.sub("", script[start : match.start()]):
                raise CloneError(f"pg_dump's output has a psql command inside a statement: {match.group()!r}")
            start = match.end()
        elif match.lastgroup == "end":
            statement = _LEADING_COMMENTS.sub("", script[start : match.end()])
            if statement != ";":
                statements.append(statement)
            start = match.end()
    if _LEADING_COMMENTS.sub("", script[start:]):
        raise CloneError("pg_dump's output ended inside a statement")
    return statements


# Statements that set up pg_dump's own session (its search_path would stay in
# force on the caller's connection); a clone runs with the caller's settings.
_SESSION_STATEMENT = re.compile(r"\A(?:SET\s|SELECT\s+pg_catalog\.set_config\()", re.IGNORECASE)
# Column options as `ALTER TABLE ONLY t ALTER COLUMN c SET (option=value, ...)`.
_COLUMN_OPTIONS = re.compile(r"\A(ALTER TABLE ONLY \S+ ALTER COLUMN \S+ SET \()(.*)(\);)\Z", re.DOTALL)
# Some PostgreSQL builds stamp every column with a server-maintained option
# `pg_attver` and their pg_dump writes it out; the server sets its own on a new
# column, so a copy must not carry the template's.
_SERVER_COLUMN_OPTION = re.compile(r"\Apg_attver=")


def _without_server_options(statement: str) -> str | None:
    match = _COLUMN_OPTIONS.match(statement)
    if not match:
        return statement
    options = [option.strip() for option in match.group(2).split(",")]
    kept = [option for option in options if not _SERVER_COLUMN_OPTION.match(option)]
    if not kept:
        return None
    return f"{match.group(1)}{', '.join(kept)}{match.group(3)}"


def template_ddl(template: str, script: str) -> str:
    """The DDL a clone executes: pg_dump's statements without its session settings,
    starting with `CREATE SCHEMA <template>;`."""
    kept = []
    for statement in ddl_statements(script):
        if _SESSION_STATEMENT.match(statement):
            continue
        statement = _without_server_options(statement)
        if statement is not None:
            kept.append(statement)
    if not kept or kept[0] != f"CREATE SCHEMA {template};":
        raise CloneError(f"pg_dump's output for {template} does not start with CREATE SCHEMA {template}")
    return "\n".join(kept)


def _template_tables(template: str) -> list[str]:
    """The template's tables, those referenced by a foreign key before the tables that
    reference them: their rows can be copied in that order even under constraints
    that are not deferred (Django's are, so a cycle is copied in name order)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace AND relkind IN ('r', 'p') "
            "AND NOT relispartition ORDER BY relname",
            [template],
        )
        tables = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT src.relname, dst.relname FROM pg_constraint con "
            "JOIN pg_class src ON src.oid = con.conrelid JOIN pg_class dst ON dst.oid = con.confrelid "
            "WHERE con.contype = 'f' AND src.relnamespace = %s::regnamespace "
            "AND dst.relnamespace = %s::regnamespace AND src.oid <> dst.oid",
            [template, template],
        )
        references = cursor.fetchall()
        cursor.execute(
            "SELECT DISTINCT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relnamespace = %s::regnamespace AND a.attgenerated <> '' AND NOT a.attisdropped",
            [template],
        )
        generated = [row[0] for row in cursor.fetchall()]
    if generated:
        # INSERT ... SELECT * cannot write a generated column; a clone would need the
        # column lists of these tables.
        raise CloneError(f"template tables with generated columns cannot be cloned yet: {', '.join(generated)}")
    sorter = graphlib.TopologicalSorter({table: set() for table in tables})
    for table, referenced in references:
        sorter.add(table, referenced)
    try:
        order = list(sorter.static_order())
    except graphlib.CycleError:
        return tables
    return order


def _template_sequences(template: str) -> dict[str, int | None]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = %s ORDER BY sequencename",
            [template],
        )
        return dict(cursor.fetchall())


def schema_template_capture(template: str | None = None) -> SchemaTemplate:
    """Dump the template's DDL and store it under the template's current fingerprint
    (or return the row another process stored first). The template must be
    committed: pg_dump reads it in a session of its own."""
    template = template or template_name()
    fingerprint = template_fingerprint(template)
    ddl = template_ddl(template, template_ddl_dump(template))
    snapshot, _created = SchemaTemplate.objects.get_or_create(
        fingerprint=fingerprint,
        defaults={
            "ddl": ddl,
            "row_tables": _template_tables(template),
            "sequences": _template_sequences(template),
        },
    )
    return snapshot


def schema_template_current(template: str | None = None) -> SchemaTemplate:
    """The stored capture of the template as it is now; captured if there is none
    (the first site after a deploy that skipped `template_schema_migrate`)."""
    template = template or template_name()
    snapshot = SchemaTemplate.objects.filter(fingerprint=template_fingerprint(template)).first()
    return snapshot or schema_template_capture(template)


def schema_template_refresh(template: str | None = None) -> SchemaTemplate:
    """After the template was migrated: capture it if its fingerprint changed, and
    forget captures of earlier states (nothing clones from them any more)."""
    template = template or template_name()
    snapshot = schema_template_current(template)
    SchemaTemplate.objects.exclude(pk=snapshot.pk).delete()
    return snapshot


# --- Cloning ---------------------------------------------------------------------------


def _template_name_pattern(template: str) -> re.Pattern:
    # pg_dump qualifies every object of the template with its bare name (it needs no
    # quotes): `site_template.table`, `'site_template.seq'::regclass`, and the
    # schema itself in `CREATE SCHEMA site_template;`.
    return re.compile(rf"(?<![\w\"$]){re.escape(template)}(?=[.;])")


def schema_clone_sql(snapshot: SchemaTemplate, template: str, schema_name: str) -> str:
    """The SQL that makes `schema_name` a copy of the template: the captured DDL with
    the schema renamed, the template's rows as they are now (a table may have gained
    rows since the capture) and each sequence at the template's current position."""
    target = _ident(schema_name)
    source = _ident(template)
    parts = [_template_name_pattern(template).sub(lambda _match: target, snapshot.ddl)]
    for table in snapshot.row_tables:
        parts.append(
            f"INSERT INTO {target}.{_ident(table)} OVERRIDING SYSTEM VALUE SELECT * FROM {source}.{_ident(table)};"  # noqa: S608 - quoted names
        )
    for sequence in snapshot.sequences:
        parts.append(
            f"SELECT pg_catalog.setval({_literal(f'{target}.{_ident(sequence)}')}, last_value, is_called) "  # noqa: S608
            f"FROM {source}.{_ident(sequence)};"
        )
    return "\n".join(parts)


def schema_clone(*, schema_name: str, template: str | None = None) -> None:
    """Create schema `schema_name` as an exact copy of the template, in the caller's
    transaction (in a savepoint: on an error nothing of it remains and the caller's
    transaction can go on). The schema must not exist yet."""
    template = template or template_name()
    schema_name_check(schema_name)
    schema_name_check(template)
    if schema_name in (template, settings.PUBLIC_SCHEMA_NAME):
        raise ValidationError(_("A site cannot use the schema %(name)s."), params={"name": schema_name})
    snapshot = schema_template_current(template)
    sql = schema_clone_sql(snapshot, template, schema_name)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)


# --- Comparing schemas -----------------------------------------------------------------

_SIGNATURE_QUERIES = {
    "relations": """
        SELECT relname, relkind::text, relpersistence::text FROM pg_class WHERE relnamespace = %s::regnamespace""",
    "columns": """
        SELECT c.relname, a.attname, row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum),
               format_type(a.atttypid, a.atttypmod), a.attnotnull,
               a.attidentity::text, a.attgenerated::text, coll.collname, pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        LEFT JOIN pg_collation coll ON coll.oid = a.attcollation AND a.attcollation <> 0
        WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0
          AND NOT a.attisdropped""",
    "indexes": """
        SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE i.relnamespace = %s::regnamespace""",
    "constraints": """
        SELECT con.conname, c.relname, pg_get_constraintdef(con.oid), con.condeferrable, con.condeferred
        FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
        WHERE con.connamespace = %s::regnamespace""",
    "sequences": """
        SELECT sequencename, data_type::text, start_value, min_value, max_value, increment_by, cycle, cache_size,
               last_value
        FROM pg_sequences WHERE schemaname = %s""",
    "triggers": """
        SELECT t.tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = %s::regnamespace AND NOT t.tgisinternal""",
}


def schema_signature(schema: str) -> dict[str, list[tuple]]:
    """What a schema holds, with its own name replaced by `$`: relations, columns (position
    among the table's columns, type, nullability, identity, collation, default), indexes and constraints (names and
    definitions), sequences (type, bounds, position), triggers, and each table's
    number of rows. Two schemas with equal signatures are interchangeable for Django
    and for any later migration."""
    own_name = re.compile(rf"(?<![\w$])(?:\"{re.escape(schema)}\"|{re.escape(schema)})\.")

    def normalise(value):
        return own_name.sub("$.", value) if isinstance(value, str) else value

    signature: dict[str, list[tuple]] = {}
    with connection.cursor() as cursor:
        for key, query in _SIGNATURE_QUERIES.items():
            cursor.execute(query, [schema])
            signature[key] = sorted((tuple(normalise(value) for value in row) for row in cursor.fetchall()), key=repr)
        rows = []
        for table in sorted({row[0] for row in signature["relations"] if row[1] in ("r", "p")}):
            cursor.execute(f"SELECT count(*) FROM {_ident(schema)}.{_ident(table)}")  # noqa: S608 - quoted names
            rows.append((table, cursor.fetchone()[0]))
        signature["rows"] = rows
    return signature


def signature_differences(expected: dict, actual: dict) -> list[str]:
    """What `actual` lacks and has in addition, per kind of object, with examples."""
    differences = []
    for key in expected:
        missing = sorted(set(expected[key]) - set(actual.get(key, [])), key=repr)
        extra = sorted(set(actual.get(key, [])) - set(expected[key]), key=repr)
        if missing:
            differences.append(f"{len(missing)} {key} missing, e.g. {missing[:2]}")
        if extra:
            differences.append(f"{len(extra)} {key} not in the template, e.g. {extra[:2]}")
    return differences
