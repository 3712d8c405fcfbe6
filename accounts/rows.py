"""One row by a statement written once: the reads every API request makes (its token, a team by slug).

The ORM compiles a query anew for each call, which for these per-request reads was a large share of a
request's CPU; here the statement is built once from the models' metadata by its caller, sent on a cursor
that PostgreSQL prepares once per connection where the backend can (``prepared_cursor`` of config/db), and
its values converted as the ORM would convert them (SQLite's timestamps made aware, booleans, JSON)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

Converter = tuple[int, Callable[..., Any], Any]  # (column index, the backend's converter, the column)


def prepared_cursor(connection):
    """A cursor whose statements PostgreSQL prepares once per connection (the backend of config/db); any
    other backend's plain cursor."""
    return getattr(connection, "prepared_cursor", connection.cursor)()


def converters_of(fields: Iterable[Any], *, using: str = DEFAULT_DB_ALIAS) -> list[Converter]:
    """The backend's converters of the values of ``fields``, selected in that order."""
    connection = connections[using]
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(field.model._meta.db_table)
        for convert in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
            converters.append((index, convert, column))
    return converters


def read_row(
    sql: str, params: Sequence[Any], converters: Iterable[Converter], *, using: str = DEFAULT_DB_ALIAS
) -> list[Any] | None:
    """The first row ``sql`` returns, its values converted, or None."""
    connection = connections[using]
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for index, convert, column in converters:
        values[index] = convert(values[index], column, connection)
    return values
