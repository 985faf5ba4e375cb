"""Querysets compiled once per process, for the few reads on a hot path (a chat message's
locks, the unread badge counted after every message).

The ORM builds and compiles a queryset anew on every call: for the message request's
locking read (four tables joined, a block check) that was most of the statement's cost,
more than its round trip. A `PreparedQuery` keeps the queryset as the one definition of the
read: `build(**values)` is called once per database with marker integers in place of the
values, compiled, and the SQL kept; every later call runs that SQL with the real values,
and the rows become what the queryset gives (models with their `select_related` objects
and annotations) through the ORM's own iterable. The values must be integers (ids), each
used at least once as a parameter of the query. The SQL names no schema, so one compiled
statement serves every site (django-tenants sets the schema on the connection)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import ModelIterable

# Far outside any id: a parameter equal to one of these is the value of that name.
_MARKER_BASE = -(2**62)


@dataclass(frozen=True)
class _Compiled:
    compiler: object
    sql: str
    params: tuple
    slots: tuple[tuple[int, str], ...]
    model_rows: bool


class _Run:
    """What ModelIterable reads of a queryset, around the kept compiler."""

    def __init__(self, compiler, db: str) -> None:
        self.query = self
        self.db = db
        self._compiler = compiler
        self._known_related_objects: dict = {}

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        return self._compiler


class PreparedQuery:
    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def _compile(self, names: tuple[str, ...]) -> _Compiled:
        markers = {name: _MARKER_BASE + index for index, name in enumerate(names)}
        queryset = self.build(**markers)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        by_marker = {marker: name for name, marker in markers.items()}
        slots = tuple(
            (index, by_marker[value]) for index, value in enumerate(params) if type(value) is int and value in by_marker
        )
        missing = set(names) - {name for _index, name in slots}
        if missing:
            raise ValueError(f"not parameters of the query: {', '.join(sorted(missing))}")
        return _Compiled(
            compiler=compiler,
            sql=sql,
            params=tuple(params),
            slots=slots,
            model_rows=queryset._iterable_class is ModelIterable,
        )

    def _prepared(self, db: str, values: dict) -> tuple[_Compiled, tuple]:
        compiled = self._compiled.get(db)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(db)
                if compiled is None:
                    compiled = self._compiled[db] = self._compile(tuple(sorted(values)))
        params = list(compiled.params)
        for index, name in compiled.slots:
            value = values[name]
            if type(value) is not int:
                raise TypeError(f"{name} must be an int, not {type(value).__name__}")
            params[index] = value
        return compiled, tuple(params)

    def objects(self, *, using: str = "default", **values) -> list:
        """The queryset's models for these values, as `list(build(**values))` gives them."""
        compiled, params = self._prepared(using, values)
        if not compiled.model_rows:
            raise TypeError("objects() is for a queryset of models; use rows()")
        compiler = copy.copy(compiled.compiler)
        compiler.connection = connections[using]  # this thread's, not the compiling one's
        compiler.as_sql = lambda *args, **kwargs: (compiled.sql, params)
        return list(ModelIterable(_Run(compiler, using)))

    def rows(self, *, using: str = "default", **values) -> list[tuple]:
        """The statement's rows for these values, as the database returns them (no field
        conversion: for counts, sums and ids)."""
        compiled, params = self._prepared(using, values)
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            return cursor.fetchall()
