"""Querysets compiled once per process, for the few reads on a hot path (a chat message's
locks, the unread badge counted after every message).

The ORM builds and compiles a queryset anew on every call: for the message request's
locking read (four tables joined, a block check) that was most of the statement's cost,
more than its round trip. A `PreparedQuery` keeps the queryset as the one definition of the
read: `build(**values)` is called once per database with marker integers in place of the
values, compiled, and the SQL kept; every later call runs that SQL with the real values,
and the rows become what the queryset gives (models with their `select_related` objects
and annotations) as the ORM's iterable makes them, from a reader worked out at the first
call (the columns of each model, the populators, the fields' converters). The values may be integers (ids), strings
(keys compared as they are, such as a session key) or aware datetimes, each used at least
once as a parameter of the query, as it is (a lookup that changes its value, such as
`__contains` or `__iexact`, is refused when compiling); a name keeps the type of its first
call. The SQL names no schema, so one compiled statement serves every site (django-tenants
sets the schema on the connection).

`server_cursor()` goes one step further for the hottest statements (a member's session and
account, the search's, a chat message's reads and writes): its parameters are bound by
PostgreSQL, not quoted into the text by psycopg, and (unless `prepare=False`) each
statement is prepared on the connection the first time it runs there and executed by name
afterwards, so PostgreSQL neither parses nor plans it again (the pool keeps the
connections, so a statement is prepared once per connection, not per request). Django's
own cursors bind on the client and prepare nothing (`prepare_threshold` None, for
transaction-mode poolers; the project's PgBouncer runs in session mode, docs/deploy.md). A
prepared statement stays right across sites: PostgreSQL parses it again when the
connection's `search_path` differs from the one it was prepared with, and when a table it
reads changes (DDL, new statistics); psycopg forgets them all at a rollback or DROP/ALTER,
and the server's go with the connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connections
from django.db.backends.postgresql.base import TIMESTAMPTZ_OID, ServerBindingCursor
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.models import QuerySet
from django.db.models.query import ModelIterable, get_related_populators
from psycopg.pq import Format

# Far outside any id, key or date: a parameter equal to one of these is the value of that
# name.
_MARKER_BASE = -(2**62)
_MARKER_TIME = datetime(1, 1, 1, tzinfo=UTC)


def _marker(kind: type, index: int):
    if kind is int:
        return _MARKER_BASE + index
    if kind is str:
        return f"\x00prepared {index}\x00"
    if kind is datetime:
        return _MARKER_TIME + timedelta(microseconds=index)
    raise TypeError(f"a prepared query takes int, str or datetime values, not {kind.__name__}")


# psycopg prepares nothing on a connection whose threshold is None (Django's default); with a
# number, its ORM cursors still never prepare (they bind on the client), and the count is
# never reached by `server_cursor`'s, which prepare at their first run.
_THRESHOLD = 2**31


class _PreparingCursor(ServerBindingCursor):
    """Django's server-binding cursor, every statement prepared (psycopg keeps the last 100
    per connection and deallocates the older ones)."""

    prepare = True

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=self.prepare, binary=binary)

    def _convert_query(self, query, params=None):
        # psycopg keeps the statement it sends as `_query` only when not prepared; Django's
        # query log (DEBUG, assertNumQueries' captured SQL) reads it there.
        converted = self._query = super()._convert_query(query, params)
        return converted


class _BindingCursor(_PreparingCursor):
    """Bound on the server, never prepared: planned for its values every time."""

    prepare = False


def server_cursor(using: str = "default", *, prepare: bool = True):
    """A cursor of the connection `using` (Django's wrapper: the schema set by
    django-tenants, the statements counted and logged as any other) whose parameters
    PostgreSQL binds. The SQL must be valid with server-side binding (`%s` where PostgreSQL
    can infer the type; a cast otherwise).

    `prepare`: each statement is prepared on the connection at its first run and executed
    by name after. After five runs PostgreSQL may keep one generic plan for every value, so
    prepare only statements whose best plan does not depend on the values (a read by a key);
    a search's page or count, whose best plan does (an index read in order and stopped at
    the page's end, or the matches read and sorted), is bound without preparing and
    planned for its values each time."""
    connection = connections[using]
    cursor = connection.cursor()
    raw = connection.connection
    if prepare and raw.prepare_threshold is None:
        raw.prepare_threshold = _THRESHOLD
    bound = (_PreparingCursor if prepare else _BindingCursor)(raw)
    # As Django's create_cursor: the request's time zone for timestamps read.
    if connection.timezone != raw.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT).timezone:
        register_tzloader(connection.timezone, bound)
    cursor.cursor.close()
    cursor.cursor = bound
    return cursor


@dataclass
class _Compiled:
    compiler: object
    sql: str
    params: tuple
    slots: tuple[tuple[int, str], ...]
    kinds: dict[str, type]
    model_rows: bool
    reader: _Reader | None = None  # made at the first objects() call


class _Reader:
    """How the rows of a compiled queryset become its models, worked out once: what
    Django's ModelIterable works out on every call (the columns each model takes, the
    select_related objects' populators, the fields' converters, the annotations)."""

    def __init__(self, compiler, db: str) -> None:
        select, klass_info = compiler.select, compiler.klass_info
        self.db = db
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [column[0].target.attname for column in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, db)
        self.annotations = tuple(compiler.annotation_col_map.items())
        expressions = [column[0] for column in select[0 : compiler.col_count]]
        if compiler.has_composite_fields(expressions):
            raise TypeError("a prepared query reads no composite fields")
        self.converters = tuple(
            (position, tuple(converters), expression)
            for position, (converters, expression) in compiler.get_converters(expressions).items()
        )

    def models(self, rows: list[tuple], connection) -> list:
        found = []
        for row in rows:
            if self.converters:
                row = list(row)
                for position, converters, expression in self.converters:
                    value = row[position]
                    for converter in converters:
                        value = converter(value, expression, connection)
                    row[position] = value
            obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, position in self.annotations:
                setattr(obj, name, row[position])
            found.append(obj)
        return found


class PreparedQuery:
    def __init__(self, build: Callable[..., QuerySet], *, server: bool = False) -> None:
        """`server`: run the statement through `server_cursor` (bound and prepared by
        PostgreSQL), for reads on every member request."""
        self.build = build
        self._cursor = server_cursor if server else (lambda using: connections[using].cursor())
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def _compile(self, kinds: dict[str, type]) -> _Compiled:
        markers = {name: _marker(kind, index) for index, (name, kind) in enumerate(sorted(kinds.items()))}
        queryset = self.build(**markers)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        by_marker = {(type(marker), marker): name for name, marker in markers.items()}
        slots = tuple(
            (index, by_marker[type(value), value])
            for index, value in enumerate(params)
            if type(value) in (int, str, datetime) and (type(value), value) in by_marker
        )
        missing = set(kinds) - {name for _index, name in slots}
        if missing:
            raise ValueError(f"not parameters of the query: {', '.join(sorted(missing))}")
        return _Compiled(
            compiler=compiler,
            sql=sql,
            params=tuple(params),
            slots=slots,
            kinds=dict(kinds),
            model_rows=queryset._iterable_class is ModelIterable,
        )

    def _prepared(self, db: str, values: dict) -> tuple[_Compiled, tuple]:
        compiled = self._compiled.get(db)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(db)
                if compiled is None:
                    kinds = {name: type(value) for name, value in values.items()}
                    compiled = self._compiled[db] = self._compile(kinds)
        if values.keys() != compiled.kinds.keys():
            raise TypeError(f"the values are {', '.join(sorted(compiled.kinds))}")
        for name, value in values.items():
            kind = compiled.kinds[name]
            if type(value) is not kind:
                raise TypeError(f"{name} must be a {kind.__name__}, not {type(value).__name__}")
            if kind is datetime and value.tzinfo is None:
                raise TypeError(f"{name} must be an aware datetime")
        params = list(compiled.params)
        for index, name in compiled.slots:
            params[index] = values[name]
        return compiled, tuple(params)

    def objects(self, *, using: str = "default", **values) -> list:
        """The queryset's models for these values, as `list(build(**values))` gives them."""
        compiled, params = self._prepared(using, values)
        if not compiled.model_rows:
            raise TypeError("objects() is for a queryset of models; use rows()")
        reader = compiled.reader
        if reader is None:
            reader = compiled.reader = _Reader(compiled.compiler, using)
        connection = connections[using]  # this thread's, not the compiling one's
        with self._cursor(using) as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        return reader.models(rows, connection)

    def statement(self, *, using: str = "default", **values) -> tuple[str, tuple]:
        """The kept SQL and its parameters for these values, for a statement that embeds
        the read (as a subquery) in its own round trip."""
        compiled, params = self._prepared(using, values)
        return compiled.sql, params

    def rows(self, *, using: str = "default", **values) -> list[tuple]:
        """The statement's rows for these values, as the database returns them (no field
        conversion: for counts, sums and ids)."""
        compiled, params = self._prepared(using, values)
        with self._cursor(using) as cursor:
            cursor.execute(compiled.sql, params)
            return cursor.fetchall()
