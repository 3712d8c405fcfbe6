"""One row by a statement written once: the reads every API request makes (its token, a team by slug); and
unsaved rows built without Django's keyword loop (``unsaved``), for the rows every save builds.

The ORM compiles a query anew for each call, which for these per-request reads was a large share of a
request's CPU; here the statement is built once from the models' metadata by its caller, sent on a cursor
that PostgreSQL prepares once per connection where the backend can (``prepared_cursor`` of config/db), and
its values converted as the ORM would convert them (SQLite's timestamps made aware, booleans, JSON)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DEFERRED, Field, ForeignKey, Model
from django.db.models.base import ModelState
from django.db.models.fields import return_None
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

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


_CONSTANT, _CALL = 1, 2


def _default(field) -> tuple[int, Any]:
    """How a column not given gets its value, as ``field.get_default()`` gives it: a constant (no default:
    ``""`` or None; a default that is not callable, shared by every instance as Django shares it), or the
    call itself (a callable default such as ``dict`` or ``timezone.now``, a foreign key's default object)."""
    own = type(field).get_default
    base = field._get_default  # Django's cached choice of how to make the default
    if own is Field.get_default or (own is ForeignKey.get_default and not field.has_default()):
        if base is str:
            return _CONSTANT, ""
        if base is return_None:
            return _CONSTANT, None
        if own is Field.get_default and field.has_default() and not callable(field.default):
            return _CONSTANT, field.default
    return _CALL, field.get_default


_UNSET = object()  # a column of the template whose default is made per row


@cache
def _template(
    model,
) -> tuple[list[Any], tuple[tuple[int, Callable[[], Any]], ...], dict[str, tuple[int, bool]]]:
    """For ``model``: a value per concrete column (the constant defaults; ``DEFERRED`` for a generated column;
    ``_UNSET`` where the default is made per row), the calls that make those, and each column's position by
    attname, and a relation's also by name (with whether it is that name)."""
    values: list[Any] = []
    calls = []
    where: dict[str, tuple[int, bool]] = {}
    for i, field in enumerate(model._meta.concrete_fields):
        if getattr(field, "generated", False):
            values.append(DEFERRED)
            continue
        how, default = _default(field)
        if how == _CONSTANT:
            values.append(default)
        else:
            values.append(_UNSET)
            calls.append((i, default))
        where[field.attname] = (i, False)
        if field.is_relation:
            where[field.name] = (i, True)
    return values, tuple(calls), where


@cache
def _plain_columns(model) -> tuple[str, ...] | None:
    """The attnames of ``model``'s concrete columns, in order, when Django's ``Model.__init__`` (not
    overridden) would only store each given value in the instance's ``__dict__``: every column's class
    attribute is Django's ``DeferredAttribute`` (no ``__set__``), or a foreign key's, whose ``__set__`` on a
    new instance (nothing cached) only stores it. None otherwise (then ``Model.__init__`` builds it)."""
    if model.__init__ is not Model.__init__:
        return None
    names = []
    for field in model._meta.concrete_fields:
        if type(getattr(model, field.attname, None)) not in (DeferredAttribute, ForeignKeyDeferredAttribute):
            return None
        names.append(field.attname)
    return tuple(names)


def _instance(model, args: list):
    """``model(*args)`` with one value per concrete column (``DEFERRED``: not set), as ``Model.__init__``
    builds it: its signals sent, its state new, each value stored (see :func:`_plain_columns`), written out:
    Django's loop sets them one ``setattr`` at a time (with a Python ``__set__`` for each foreign key)."""
    names = _plain_columns(model)
    if names is None:
        return model(*args)
    obj = object.__new__(model)
    pre_init.send(sender=model, args=tuple(args), kwargs={})
    obj._state = ModelState()
    obj.__dict__.update(
        [(name, value) for name, value in zip(names, args, strict=True) if value is not DEFERRED]
    )
    post_init.send(sender=model, instance=obj)
    return obj


def unsaved(model, /, **values: Any):
    """``model(**values)``: the same unsaved instance, built as Django builds a row it reads (a value per
    column, positional) with the defaults of the columns not given filled in here. Django's keyword path
    raises and catches a ``KeyError`` for each column not given (two for a foreign key), which was most of
    the cost of the rows a save builds. A related object given by name is set afterwards through its
    descriptor, as Django sets it; anything else (a property) goes through Django's own keyword path."""
    template, calls, where = _template(model)
    args = template.copy()
    related = []
    for key, value in values.items():
        place = where.get(key)
        if place is None:
            return model(**values)
        i, by_name = place
        if by_name:
            args[i] = DEFERRED
            related.append((key, value))
        else:
            args[i] = value
    for i, default in calls:
        if args[i] is _UNSET:  # not given: its default, made for this row as Django makes it
            args[i] = default()
    obj = _instance(model, args)
    for name, value in related:
        setattr(obj, name, value)
    return obj
