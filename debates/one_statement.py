"""Several writes in one statement: one round trip, atomic without a transaction block.

A debate's runner stores what each call returned as one statement made of data-modifying
`WITH` parts (update the call's row, insert the statement or challenge it made, close the
round, and whatever else should ride along). The SQL of each part comes from Django's own
compilers, so every model field (and any field added later) is written as the ORM writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, partial
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, models
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.models.constants import OnConflict
from django.db.models.sql import InsertQuery
from django.db.models.sql.compiler import SQLInsertCompiler
from psycopg._queries import PostgresQuery, _query2pg_nocache


class Refused(Exception):
    """A statement stopped by its `refuse_unless` check: none of its parts' writes were kept."""


# The SQLSTATE `onetrip_refuse` raises (migration 0018).
REFUSED = "OT001"


def refuse_unless(condition: str, message: str) -> tuple[str, list[Any]]:
    """An SQL expression for a statement's final select (with its params): true when
    `condition` (SQL, which may read the parts) holds; otherwise it stops the statement, none
    of its writes are kept, and `execute` raises `Refused(message)`."""
    return f"(CASE WHEN {condition} THEN true ELSE onetrip_refuse(%s::text) END)", [message]


@dataclass(frozen=True)
class Part:
    """One `WITH name AS (sql)` part of a statement."""

    name: str
    sql: str
    params: Sequence[Any] = field(default_factory=tuple)


# The SQL of each shape of insert (model, columns, options, rows), compiled once per process.
_compiled: dict[tuple, str] = {}


def insert(
    name: str,
    objs: Sequence[models.Model],
    *,
    returning: Iterable[str] = ("id",),
    unique_fields: Iterable[str] = (),
    update_fields: Iterable[str] = (),
    update_where: str = "",
    ignore_conflicts: bool = False,
) -> Part:
    """INSERT `objs` (one model) as `bulk_create` would, returning `returning` for every row
    written. `unique_fields` with `update_fields` make it an upsert (ON CONFLICT DO UPDATE,
    only where the existing row matches `update_where` if given: SQL on the table's name);
    `ignore_conflicts` skips rows that conflict.

    Django's compiler writes the SQL of each shape once; the values of later inserts of that
    shape are prepared field by field as the compiler prepares them (`pre_save`, then
    `get_db_prep_save`), which the first insert of each shape checks against the compiler's."""
    model = type(objs[0])
    fields = insert_fields(objs)
    options = (tuple(returning), tuple(unique_fields), tuple(update_fields), update_where)
    shape = (model, tuple(f.attname for f in fields), options, ignore_conflicts, len(objs))
    sql = _compiled.get(shape)
    if sql is not None:
        return Part(name, sql, _values(fields, objs))
    sql, params = _compile(model, fields, objs, *options, ignore_conflicts=ignore_conflicts)
    if not any(f.has_db_default() for f in fields) and _same(params, _values(fields, objs)):
        _compiled[shape] = sql
    return Part(name, sql, params)


def insert_fields(objs: Sequence[models.Model]) -> list[models.Field]:
    """The fields an insert of `objs` writes, as `bulk_create` picks them (the primary key only
    when it is set)."""
    return [
        f
        for f in type(objs[0])._meta.concrete_fields
        if not f.generated and not (f.primary_key and getattr(objs[0], f.attname) is None)
    ]


def _values(fields, objs) -> list[Any]:
    """The rows' values, row after row, as the compiler sends them for VALUES."""
    db = connections[DEFAULT_DB_ALIAS]  # the thread's own, looked up once (not per value)
    return [f.get_db_prep_save(f.pre_save(obj, True), db) for obj in objs for f in fields]


def _same(compiled: list[Any], prepared: list[Any]) -> bool:
    """The same values, but for the times `pre_save` sets (auto_now) on each call."""
    return len(compiled) == len(prepared) and all(
        _same(a, b)
        if isinstance(a, list) and isinstance(b, list)
        else a == b or repr(a) == repr(b) or isinstance(a, datetime) and isinstance(b, datetime)
        for a, b in zip(compiled, prepared, strict=True)
    )


def _compile(
    model, fields, objs, returning, unique_fields, update_fields, update_where, *, ignore_conflicts
) -> tuple[str, list[Any]]:
    opts = model._meta
    unique = [opts.get_field(n) for n in unique_fields]
    update = [opts.get_field(n) for n in update_fields]
    query = InsertQuery(
        model,
        on_conflict=(
            OnConflict.UPDATE if update else OnConflict.IGNORE if ignore_conflicts else None
        ),
        update_fields=update or None,
        unique_fields=unique or None,
    )
    query.insert_values(fields, objs)
    compiler = query.get_compiler(connection=connection)
    # Several rows as VALUES, a placeholder per value, not as one array per column (UNNEST,
    # which PostgreSQL's compiler prefers to spare the planner): these statements are planned
    # once (prepared), and the arrays would be written out value by value in Python on every
    # run instead of by the driver's own dumpers.
    compiler.assemble_as_sql = partial(SQLInsertCompiler.assemble_as_sql, compiler)
    compiler.returning_fields = [opts.get_field(n) for n in returning]
    [(sql, params)] = compiler.as_sql()
    if update_where:
        head, returning_sql = sql.rsplit(" RETURNING ", 1)
        sql = f"{head} WHERE {update_where} RETURNING {returning_sql}"
    return sql, list(params)


def update(
    name: str,
    model: type[models.Model],
    pk,
    values: dict[str, Any],
    *,
    raw: dict[str, tuple[str, Sequence[Any]]] | None = None,
    where: tuple[str, Sequence[Any]] | None = None,
    returning: str = "",
) -> Part:
    """UPDATE one row of `model` by primary key, setting `values` (field name -> value) and
    `raw` (field name -> (SQL, params): an expression, which may read earlier parts), only
    where `where` (SQL on the table's name, params) also holds, returning `returning` (SQL)."""
    opts = model._meta
    db = connections[DEFAULT_DB_ALIAS]  # the thread's own, looked up once (not per value)
    quote = db.ops.quote_name
    sets, params = [], []
    for attname, value in values.items():
        f = opts.get_field(attname)
        sets.append(f"{quote(f.column)} = %s")
        params.append(f.get_db_prep_save(value, db))
    for attname, (expression, expression_params) in (raw or {}).items():
        sets.append(f"{quote(opts.get_field(attname).column)} = {expression}")
        params.extend(expression_params)
    params.append(opts.pk.get_db_prep_save(pk, db))
    table = quote(opts.db_table)
    pk_column = quote(opts.pk.column)
    sql = f"UPDATE {table} SET {', '.join(sets)} WHERE {pk_column} = %s"
    if where is not None:
        sql += f" AND ({where[0]})"
        params.extend(where[1])
    if returning:
        sql += f" RETURNING {returning}"
    return Part(name, sql, params)


class _ShapeQuery(PostgresQuery):
    """psycopg turns a statement's `%s` placeholders into `$1, $2 ...` by parsing its text on
    every run when the text is longer than 4096 characters (it caches only shorter ones, which
    an ORM's one-off statements rarely repeat); the statements here are long, and come in a few
    shapes repeated all day, so each shape is parsed once per process (`_converted`)."""

    def convert(self, query, vars) -> None:
        self.query, self._want_formats, self._order, self._parts = _converted(
            self._ensure_bytes(query), self._tx.encoding
        )
        self.dump(vars)


_converted = lru_cache(maxsize=1024)(_query2pg_nocache)


@lru_cache(maxsize=64)
def _cursor_class(factory: type) -> type:
    """The cursor of a statement on a connection whose cursors are `factory`: that class when it
    binds on the server (so the statement has its span when traces are on: the instrumented
    connection's class, `config.tracing`), else Django's server-binding cursor; reading the
    statement's query shape from the cache (`_ShapeQuery`)."""
    base = factory if issubclass(factory, ServerBindingCursor) else ServerBindingCursor
    return type("StatementCursor", (base,), {"_query_cls": _ShapeQuery})


def execute(parts: Sequence[Part], select: str, params: Sequence[Any] = ()) -> list[tuple]:
    """Run `parts` as one statement ending in `select` (with `params`; it may read the parts'
    RETURNING rows by name, and sees the tables as they were before the statement); returns
    its rows. Every part runs, whether `select` reads it or not; a `refuse_unless` check that
    fails raises `Refused`, and then none of them has written anything."""
    sql = select
    if parts:
        sql = "WITH " + ", ".join(f"{p.name} AS ({p.sql})" for p in parts) + " " + select
    params = [value for p in parts for value in p.params] + list(params)
    connection.ensure_connection()
    raw = connection.connection
    threshold = raw.prepare_threshold  # the connection's own (DEBATE_PREPARED_STATEMENTS)
    with connection._prepare_cursor(_cursor_class(raw.cursor_factory)(raw)) as cursor:
        if settings.DEBATE_PREPARED_STATEMENTS:
            # Prepared on its first run on this connection, and planned once there while the
            # debate's run holds its lock (`runs.lifecycle.advisory_lock`).
            raw.prepare_threshold = 0
        try:
            cursor.execute(sql, params)
        except DatabaseError as exc:
            cause = exc.__cause__
            if getattr(cause, "sqlstate", None) == REFUSED:
                raise Refused(cause.diag.message_primary) from exc
            raise
        finally:
            raw.prepare_threshold = threshold
        return cursor.fetchall()
