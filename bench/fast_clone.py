"""A bench-only fast copy of the template schema, for filling the database with sites.

django-tenants' clone_schema() (pg-clone-schema, PL/pgSQL) reads catalog views such
as pg_indexes for every table it copies, so each clone takes longer the more schemas
the database already has: creating 1,000 sites one by one with it takes far longer
than a benchmark may (bench_landing measures and reports how much).

To reach --sites anyway, the landing benchmark creates the bulk of its sites with
site_create as the application does, except that its schema step (django-tenants'
clone_schema() and then `migrate_schemas --fake`) is replaced by
`FastTemplateCopy`: the template's DDL is taken once with pg_dump --schema-only,
and each new schema is that DDL with the schema name replaced, plus the template's
rows (migrations, content types, permissions) and sequence positions. The rest
(validation, the Site row, the Domain row) is the application's.
`schema_signature` lets the benchmark check that such a schema is the same as the
template (tables, columns, indexes, constraints, sequences, row counts).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import BenchError, connect_kwargs

_SKIPPED_STATEMENT = re.compile(
    r"^(SET\s|SELECT\s+pg_catalog\.set_config\(|COMMENT ON SCHEMA\s)"
    # attribute options (some servers add their own, e.g. pg_attver); a clone keeps none
    r"|^ALTER TABLE ONLY \S+ ALTER COLUMN \S+ SET \(",
    re.IGNORECASE,
)


def pg_dump_binary(server_major: int) -> str:
    """A pg_dump at least as new as the server: pgserver's, then the one on PATH."""
    candidates = []
    spec = importlib.util.find_spec("pgserver")  # found, not imported: importing it warns
    if spec and spec.origin:
        candidates.append(str(Path(spec.origin).parent / "pginstall" / "bin" / "pg_dump"))
    for found in (shutil.which("pg_dump"), *sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_dump"), reverse=True)):
        if found:
            candidates.append(str(found))
    for candidate in candidates:
        if not os.access(candidate, os.X_OK):
            continue
        version = subprocess.run([candidate, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"(\d+)(?:\.\d+)?", version)
        if match and int(match.group(1)) >= server_major:
            return candidate
    raise BenchError(f"no pg_dump of version >= {server_major} found (tried {', '.join(candidates) or 'none'})")


def _statements(script: str) -> list[str]:
    """Splits pg_dump's plain output into statements (one per `;` at a line end)."""
    if "$$" in script or "\nCOPY " in script:
        raise BenchError("the template schema has functions or data in its DDL dump; the fast copy cannot split it")
    statements, current = [], []
    for line in script.splitlines():
        if not current and (not line.strip() or line.startswith("--") or line.startswith("\\")):
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            statements.append("\n".join(current))
            current = []
    if current:
        raise BenchError("pg_dump's output ended inside a statement")
    return statements


class FastTemplateCopy:
    def __init__(self, template: str, database_url: str) -> None:
        from django.db import connection

        self.template = template
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", template):
            raise BenchError(f"template schema name {template!r} would be quoted by pg_dump")
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version_num")
            server_major = int(cursor.fetchone()[0]) // 10000
            cursor.execute(
                "SELECT c.relname FROM pg_class c WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') "
                "ORDER BY c.relname",
                [template],
            )
            tables = [row[0] for row in cursor.fetchall()]
            self.tables_with_rows = []
            for table in tables:
                cursor.execute(f'SELECT EXISTS (SELECT 1 FROM "{template}"."{table}")')
                if cursor.fetchone()[0]:
                    self.tables_with_rows.append(table)
            cursor.execute(
                "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = %s AND last_value IS NOT NULL",
                [template],
            )
            self.sequences = cursor.fetchall()

        params = connect_kwargs(database_url)
        env = dict(os.environ)
        for key, variable in (("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER"), ("password", "PGPASSWORD")):
            if key in params:
                env[variable] = str(params[key])
        dumped = subprocess.run(
            [pg_dump_binary(server_major), "--schema-only", "--no-owner", "--no-privileges",
             f"--schema={template}", params["dbname"]],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        if dumped.returncode != 0:
            raise BenchError(f"pg_dump of {template} failed: {dumped.stderr.strip()[-500:]}")
        kept = [s for s in _statements(dumped.stdout) if not _SKIPPED_STATEMENT.match(s.strip())]
        create = f"CREATE SCHEMA {template};"
        if create not in kept:
            raise BenchError(f"pg_dump's output has no {create!r}")
        self.ddl = "\n".join(kept)
        self._name = re.compile(rf"(?<![\w\"]){re.escape(template)}(?=[.;])")

    def sql_for(self, schema: str) -> str:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", schema):
            raise BenchError(f"schema name {schema!r} needs quoting; the fast copy does not handle it")
        parts = [self._name.sub(schema, self.ddl)]
        for table in self.tables_with_rows:
            parts.append(
                f'INSERT INTO "{schema}"."{table}" OVERRIDING SYSTEM VALUE SELECT * FROM "{self.template}"."{table}";'
            )
        for sequence, last_value in self.sequences:
            parts.append(f'SELECT setval(\'"{schema}"."{sequence}"\', {int(last_value)}, true);')
        return "\n".join(parts)

    def copy(self, schema: str) -> None:
        from django.db import connection
        from django_tenants.utils import schema_exists

        if schema_exists(schema, case_sensitive=False):
            raise BenchError(f"schema {schema} already exists")
        with connection.cursor() as cursor:
            cursor.execute(self.sql_for(schema))


@contextmanager
def fast_schema_creation(copier: FastTemplateCopy) -> Iterator[None]:
    """site_create with the schema step of django-tenants (clone_schema(), then
    `migrate_schemas --fake`) replaced by the fast copy. The copy already holds the
    template's django_migrations, content types and permissions, which is all that
    the fake migration run would record; schema_signature checks the outcome."""
    from unittest import mock

    from django.db import connection
    from django_tenants.utils import schema_exists

    from apps.tenants.models import Site

    def create_schema(self, check_if_exists=False, sync_schema=True, verbosity=1):
        if check_if_exists and schema_exists(self.schema_name):
            return False
        connection.set_schema_to_public()
        copier.copy(self.schema_name)
        connection.set_schema_to_public()
        return True

    with mock.patch.object(Site, "create_schema", create_schema):
        yield


def schema_signature(schema: str) -> dict:
    """What a schema holds, with its own name replaced by `$`: tables and columns,
    indexes, constraints, sequences and the number of rows of each table."""
    from django.db import connection

    def normalise(value):
        return value.replace(f'"{schema}".', "$.").replace(f"{schema}.", "$.") if isinstance(value, str) else value

    queries = {
        "columns": """
            SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
                   pg_get_expr(d.adbin, d.adrelid)
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0
              AND NOT a.attisdropped""",
        "indexes": """
            SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE i.relnamespace = %s::regnamespace""",
        "constraints": """
            SELECT con.conname, c.relname, pg_get_constraintdef(con.oid), con.condeferrable, con.condeferred
            FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
            WHERE con.connamespace = %s::regnamespace""",
        "sequences": """
            SELECT sequencename, data_type::text, increment_by, last_value FROM pg_sequences WHERE schemaname = %s""",
    }
    signature: dict = {}
    with connection.cursor() as cursor:
        for key, query in queries.items():
            cursor.execute(query, [schema])
            signature[key] = sorted(tuple(normalise(value) for value in row) for row in cursor.fetchall())
        rows = {}
        for table in sorted({row[0] for row in signature["columns"]}):
            cursor.execute(f'SELECT count(*) FROM "{schema}"."{table}"')
            rows[table] = cursor.fetchone()[0]
        signature["rows"] = sorted(rows.items())
    return signature


def signature_differences(expected: dict, actual: dict) -> list[str]:
    """What `actual` lacks and has in addition, per kind of object, with examples."""
    differences = []
    for key in expected:
        missing = sorted(set(expected[key]) - set(actual[key]))
        extra = sorted(set(actual[key]) - set(expected[key]))
        if missing:
            differences.append(f"{len(missing)} {key} missing, e.g. {missing[:2]}")
        if extra:
            differences.append(f"{len(extra)} {key} not in the template, e.g. {extra[:2]}")
    return differences
