"""A new row and the rows that point at it, inserted by one SQL statement.

Saving a new profile writes six to seven rows (the profile, its revision, its audit entry, its verdict, the
verdict's check row, its rule index and its history entry). One ``Model.save()`` each costs a compiled
statement and a round trip apiece, plus ``BEGIN`` and ``COMMIT``: most of a save's time. Here they are one
``INSERT`` with data-modifying ``WITH`` queries: the parent first, each child taking the parent's new key
from it (on PostgreSQL; elsewhere, as on the embedded SQLite, one ``save()`` per row). Outside a
transaction the statement is its own transaction (all rows or none, committed as durably as any other);
inside one (``atomic``) it runs in a savepoint, as ``atomic()`` around several saves would. Values are
prepared as ``Model.save()`` prepares them (``pre_save``: ``auto_now`` fields; ``get_prep_value``; a JSON
field dumped with ``json.dumps``), so the rows are those the ORM would have written.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from contextlib import nullcontext
from functools import cache
from itertools import groupby

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import (
    BooleanField,
    CharField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    TextField,
)

from accounts.rows import prepared_cursor


class Child:
    """An unsaved row to insert with a parent: ``parent_fields`` are the fields that take the parent's new
    primary key (a foreign key to it, or a text field that names it, such as an audit entry's object id);
    ``returning``: fields read back as the database stored them."""

    __slots__ = ("obj", "parent_fields", "returning")

    def __init__(self, obj: Model, *parent_fields: str, returning: Sequence[str] = ()):
        self.obj = obj
        self.parent_fields = parent_fields
        self.returning = tuple(returning)


@cache
def _insert_fields(model) -> list:
    """The columns ``Model.save()`` inserts for a new row of ``model`` whose primary key the database
    assigns, or that is given (a one-to-one primary key)."""
    meta = model._meta
    return [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]


# The column types whose values this module sends as JSON (what the rows it inserts have); a model with any
# other is inserted one row at a time.
JSON_SENDABLE = {
    "AutoField",
    "BigAutoField",
    "BigIntegerField",
    "BooleanField",
    "CharField",
    "DateTimeField",
    "ForeignKey",
    "GenericIPAddressField",
    "IntegerField",
    "JSONField",
    "OneToOneField",
    "PositiveIntegerField",
    "SlugField",
    "TextField",
}


@cache
def _sendable(model) -> bool:
    return all(
        f.get_internal_type() in JSON_SENDABLE and getattr(f, "encoder", None) is None
        for f in _insert_fields(model)
    )


# ``get_prep_value`` implementations that give back a value of these exact types unchanged (a text field's
# ``str``, an integer's ``int``, a boolean's ``bool``, the base ``Field``'s anything but a lazy string): for
# such a value the call is skipped, which was half the cost of a new row's columns.
_PREP_KEEPS = {
    Field.get_prep_value: frozenset({str, int, float, bool, dict, list}),
    CharField.get_prep_value: frozenset({str}),
    TextField.get_prep_value: frozenset({str}),
    IntegerField.get_prep_value: frozenset({int}),
    BooleanField.get_prep_value: frozenset({bool}),
}


def _prep_keeps(field) -> frozenset:
    """The exact types of value ``field.get_prep_value`` returns unchanged (a foreign key: its target's)."""
    target = field.target_field if isinstance(field, ForeignKey) else field
    if target is not field and type(field).get_prep_value is not ForeignKey.get_prep_value:
        return frozenset()
    return _PREP_KEEPS.get(type(target).get_prep_value, frozenset())


@cache
def _preparers(model) -> list[tuple]:
    """Per column of :func:`_insert_fields`: (field name, attribute, column, its ``pre_save`` or None where
    that is Django's plain read of the attribute, ``get_prep_value``, the types of value that leaves as they
    are, whether its value is a timestamp to write in ISO 8601)."""
    return [
        (
            f.name,
            f.attname,
            f.column,
            None if type(f).pre_save is Field.pre_save else f.pre_save,
            f.get_prep_value,
            _prep_keeps(f),
            not isinstance(f, JSONField),
        )
        for f in _insert_fields(model)
    ]


def _row(obj: Model, skip: Sequence[str]) -> dict:
    """One row as a JSON object of its columns, each value as ``Model.save()`` prepares it (``pre_save``:
    ``auto_now`` fields; ``get_prep_value``, which gives None for None in every type of ``JSON_SENDABLE``),
    a JSON field's value as itself (Django dumps it with ``json.dumps``, as the statement's parameter is
    dumped), a timestamp in ISO 8601 with its offset; ``skip``: the columns the parent's key fills in."""
    row = {}
    for name, attname, column, pre_save, prep, keeps, scalar in _preparers(type(obj)):
        if name in skip:
            continue
        value = getattr(obj, attname) if pre_save is None else pre_save(obj, True)
        if value is not None and type(value) not in keeps:
            value = prep(value)
            if scalar and isinstance(value, datetime.date | datetime.time):
                value = value.isoformat()
        row[column] = value
    return row


class RowChanged(Exception):
    """The row a guarded insert relies on is no longer as it was read: nothing was inserted."""


@cache
def _statement(
    parent_model, returning: tuple[str, ...], groups: tuple, guard_model=None
) -> tuple[str, list, list]:
    """The statement for a parent and groups of children (model, parent fields, returning), written once per
    shape: each row's values are one JSON parameter (``jsonb_populate_record``, which turns each value into
    its column's type as an ``INSERT`` of that value would), so the statement's text is the same from one
    save to the next and its parameters few. ``guard_model``: the parent is inserted only while a row of that
    model (its key the second parameter) is still the one read (its ``to_jsonb`` image the third), and with it
    the children, which take the parent's key. Returns it with the fields read back: the parent's, then per
    group."""
    quote = connection.ops.quote_name
    meta = parent_model._meta
    pk = meta.pk
    table = quote(meta.db_table)
    columns = ", ".join(quote(f.column) for f in _insert_fields(parent_model))
    back = [meta.get_field(name) for name in returning]
    guard = ""
    if guard_model is not None:
        guard_meta = guard_model._meta
        guard = (
            f"WHERE (SELECT to_jsonb(g) FROM {quote(guard_meta.db_table)} g "  # nosec B608  # names from model metadata (quote_name), values are %s parameters
            f"WHERE g.{quote(guard_meta.pk.column)} = %s) = %s::jsonb "
        )
    ctes = [
        f"p AS (INSERT INTO {table} ({columns}) SELECT {columns} "  # nosec B608  # names from model metadata (quote_name), values are %s parameters
        f"FROM jsonb_populate_record(NULL::{table}, %s::jsonb) {guard}"
        f"RETURNING {', '.join(quote(f.column) for f in [pk, *back])})"
    ]
    selected = [quote(pk.column), *(quote(f.column) for f in back)]
    read = []
    for number, (model, parent_fields, child_returning) in enumerate(groups):
        child_meta = model._meta
        child_table = quote(child_meta.db_table)
        fields = _insert_fields(model)
        values = [
            f"p.{quote(pk.column)}" if f.name in parent_fields else f"r.{quote(f.column)}" for f in fields
        ]
        name = f"c{number}"
        cte = (
            f"{name} AS (INSERT INTO {child_table} ({', '.join(quote(f.column) for f in fields)}) "  # nosec B608  # names from model metadata (quote_name), values are %s parameters
            f"SELECT {', '.join(values)} FROM p, jsonb_populate_recordset(NULL::{child_table}, %s::jsonb) r"
        )
        wanted = [child_meta.auto_field] if child_meta.auto_field is not None else []
        wanted += [child_meta.get_field(n) for n in child_returning]
        if wanted:
            cte += f" RETURNING {', '.join(quote(f.column) for f in wanted)}"
            selected += [f"ARRAY(SELECT {quote(f.column)} FROM {name})" for f in wanted]  # nosec B608  # names from model metadata (quote_name), values are %s parameters
        read.append(wanted)
        ctes.append(cte + ")")
    return f"WITH {', '.join(ctes)} SELECT {', '.join(selected)} FROM p", back, read  # nosec B608  # names from model metadata (quote_name), values are %s parameters


# The rows' JSON parameters, written without spaces after the separators and without the check for circular
# containers (a value read from a request or a row cannot contain itself; one that did would fail either
# way): PostgreSQL parses the same values from them, so the rows stored are the same, and they cost less to
# write (these dumps were 0.37 M of a save's 6.5 M instructions), to send and to parse.
_ENCODER = json.JSONEncoder(check_circular=False, separators=(",", ":"))


def _c_dumps():
    """``_ENCODER.encode`` for the rows' values (dicts, lists, texts, numbers, booleans, None): the standard
    library's C encoder, made once with the encoder's settings and called directly. ``JSONEncoder.encode``
    makes a new one at every call (through ``iterencode``), which with its two Python calls was a sixth of
    the cost of the six parameters of a save. The C encoder keeps no state between calls without the
    circular check (``markers`` None), so one serves every thread. None where the C encoder is missing."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    e = _ENCODER
    encode = make(
        None,
        e.default,
        json.encoder.encode_basestring_ascii,
        e.indent,
        e.key_separator,
        e.item_separator,
        e.sort_keys,
        e.skipkeys,
        e.allow_nan,
    )

    def dumps(value) -> str:
        return "".join(encode(value, 0))

    return dumps


_dumps = _c_dumps() or _ENCODER.encode


@cache
def _converters(field) -> tuple:
    """The column of ``field`` and the backend's and the field's converters of a value read from it."""
    col = field.get_col(field.model._meta.db_table)
    return col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)


def _set_stored(obj: Model, field, value, conn) -> None:
    """Set a field to a value the database returned, converted as a query's result would be."""
    col, converters = _converters(field)
    for convert in converters:
        value = convert(value, col, conn)
    setattr(obj, field.attname, value)


def insert_together(
    parent: Model,
    children: Sequence[Child],
    *,
    returning: Sequence[str] = (),
    guard: tuple[Model, str] | None = None,
) -> None:
    """Insert ``parent`` (new, its key assigned by the database) and ``children`` in one statement.

    Afterwards every object is saved as ``save()`` leaves it: primary keys set (the children's too), the
    parent's key in each child's ``parent_fields``, ``auto_now`` fields filled in. ``returning`` (here and on
    a child): fields read back as the database stored them (a JSON value as a later read gives it: its key
    order, its numbers), so that the caller can show the rows without reading them again. ``guard``: a row
    and its image as PostgreSQL's ``to_jsonb`` gave it when it was read (PostgreSQL only): the rows are
    inserted only if it is still that, else nothing is and :class:`RowChanged` is raised.
    """
    conn = connections[DEFAULT_DB_ALIAS]
    models = {type(parent), *(type(c.obj) for c in children)}
    if conn.vendor != "postgresql" or not all(_sendable(m) for m in models):
        if guard is not None:
            raise ValueError("a guarded insert needs PostgreSQL and rows it can send as JSON")
        _insert_one_by_one(parent, children, returning)
        return
    # Consecutive children of one model and shape are one multi-row INSERT, as bulk_create would send them.
    groups = [
        (shape, [c.obj for c in group])
        for shape, group in groupby(children, key=lambda c: (type(c.obj), c.parent_fields, c.returning))
    ]
    shapes = tuple(shape for shape, _ in groups)
    sql, back, read = _statement(type(parent), tuple(returning), shapes, type(guard[0]) if guard else None)
    params = [_dumps(_row(parent, ()))]
    if guard is not None:
        params += [guard[0].pk, guard[1]]
    for (_, parent_fields, _), objs in groups:
        params.append(_dumps([_row(obj, parent_fields) for obj in objs]))
    savepoint = transaction.atomic() if conn.in_atomic_block else nullcontext()
    # Prepared where the backend can (config/db: once per kept connection, per shape of rows): PostgreSQL
    # then parses and plans the statement once, not at every save.
    with savepoint, prepared_cursor(conn) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:  # the guard's row changed: the parent was not inserted, nor were its children
        raise RowChanged
    row = list(row)
    new_key = row.pop(0)
    setattr(parent, type(parent)._meta.pk.attname, new_key)
    for field in back:
        _set_stored(parent, field, row.pop(0), conn)
    for child in children:
        _point_at(child, new_key)
    for (_, objs), wanted in zip(groups, read, strict=True):
        for field in wanted:
            for obj, value in zip(objs, row.pop(0), strict=True):
                _set_stored(obj, field, value, conn)
    for obj in [parent, *(c.obj for c in children)]:
        obj._state.adding = False
        obj._state.db = conn.alias


def _point_at(child: Child, key) -> None:
    for name in child.parent_fields:
        field = type(child.obj)._meta.get_field(name)
        setattr(child.obj, field.attname, key if field.is_relation else field.to_python(key))


def _insert_one_by_one(parent: Model, children: Sequence[Child], returning: Sequence[str]) -> None:
    """The same rows on a database without ``INSERT`` inside ``WITH`` (the embedded SQLite of ``make run``):
    one ``save()`` each in one transaction, then the ``returning`` fields read back."""
    with transaction.atomic():
        parent.save(force_insert=True)
        for child in children:
            _point_at(child, parent.pk)
            child.obj.save(force_insert=True)
        for obj, names in [(parent, returning), *((c.obj, c.returning) for c in children)]:
            if names:
                stored = type(obj)._base_manager.filter(pk=obj.pk).values_list(*names).get()
                for name, value in zip(names, stored, strict=True):
                    setattr(obj, type(obj)._meta.get_field(name).attname, value)
