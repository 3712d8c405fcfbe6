"""A new row and the rows that point at it, inserted by one SQL statement.

Saving a new profile writes six to seven rows (the profile, its revision, its audit entry, its verdict, the
verdict's check row, its rule index and its history entry). One ``Model.save()`` each costs a compiled
statement and a round trip apiece, plus ``BEGIN`` and ``COMMIT``: most of a save's time. Here they are one
``INSERT`` with data-modifying ``WITH`` queries: the parent first, each child taking the parent's new key
from it (on PostgreSQL; elsewhere, as on the embedded SQLite, one ``save()`` per row). Outside a
transaction the statement is its own transaction (all rows or none, committed as durably as any other);
inside one (``atomic``) it runs in a savepoint, as ``atomic()`` around several saves would. Values are
prepared exactly as ``Model.save()`` prepares them (``pre_save``: ``auto_now`` fields;
``get_db_prep_save``; the field's placeholder), so the rows are those the ORM would have written.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from itertools import groupby
from typing import Any

from django.db import connection, transaction
from django.db.models import Model


class Child:
    """An unsaved row to insert with a parent: ``parent_fields`` are the fields that take the parent's new
    primary key (a foreign key to it, or a text field that names it, such as an audit entry's object id);
    ``returning``: fields read back as the database stored them."""

    __slots__ = ("obj", "parent_fields", "returning")

    def __init__(self, obj: Model, *parent_fields: str, returning: Sequence[str] = ()):
        self.obj = obj
        self.parent_fields = parent_fields
        self.returning = tuple(returning)


def _insert_fields(model) -> list:
    """The columns ``Model.save()`` inserts for a new row of ``model`` whose primary key the database
    assigns, or that is given (a one-to-one primary key)."""
    meta = model._meta
    return [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]


def _values_sql(obj: Model, fields, parent: dict[str, str], params: list) -> str:
    """``(v1, v2, ...)`` of one row: the parent's key where ``parent`` names the field, else its value as
    the ORM prepares it (appended to ``params``)."""
    parts = []
    for field in fields:
        if field.name in parent:
            parts.append(parent[field.name])
            continue
        value = field.get_db_prep_save(field.pre_save(obj, add=True), connection)
        if hasattr(field, "get_placeholder"):
            parts.append(field.get_placeholder(value, None, connection))
        else:
            parts.append("%s")
        params.append(value)
    return "(" + ", ".join(parts) + ")"


def _set_stored(obj: Model, field, value) -> None:
    """Set a field to a value the database returned, converted as a query's result would be."""
    col = field.get_col(type(obj)._meta.db_table)
    for convert in connection.ops.get_db_converters(col) + col.get_db_converters(connection):
        value = convert(value, col, connection)
    setattr(obj, field.attname, value)


def insert_together(parent: Model, children: Sequence[Child], *, returning: Sequence[str] = ()) -> None:
    """Insert ``parent`` (new, its key assigned by the database) and ``children`` in one statement.

    Afterwards every object is saved as ``save()`` leaves it: primary keys set (the children's too), the
    parent's key in each child's ``parent_fields``, ``auto_now`` fields filled in. ``returning`` (here and on
    a child): fields read back as the database stored them (a JSON value as a later read gives it: its key
    order, its numbers), so that the caller can show the rows without reading them again.
    """
    if connection.vendor != "postgresql":
        _insert_one_by_one(parent, children, returning)
        return
    quote = connection.ops.quote_name
    meta = type(parent)._meta
    pk = meta.pk
    fields = _insert_fields(type(parent))
    params: list[Any] = []
    back = [meta.get_field(name) for name in returning]
    ctes = [
        f"p AS (INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES {_values_sql(parent, fields, {}, params)} "
        f"RETURNING {', '.join(quote(f.column) for f in [pk, *back])})"
    ]
    selected = [quote(pk.column), *(quote(f.column) for f in back)]
    key = f"(SELECT {quote(pk.column)} FROM p)"
    read: list[tuple[list[Model], list]] = []  # the rows of each group and the fields read back, in order
    # Consecutive children of one model and shape are one multi-row INSERT, as bulk_create would send them.
    groups = groupby(children, key=lambda c: (type(c.obj), c.parent_fields, c.returning))
    for number, ((model, parent_fields, child_returning), group) in enumerate(groups):
        objs = [c.obj for c in group]
        child_meta = model._meta
        child_fields = _insert_fields(model)
        refs = {name: key for name in parent_fields}
        rows = ", ".join(_values_sql(obj, child_fields, refs, params) for obj in objs)
        name = f"c{number}"
        cte = f"{name} AS (INSERT INTO {quote(child_meta.db_table)} "
        cte += f"({', '.join(quote(f.column) for f in child_fields)}) VALUES {rows}"
        wanted = [child_meta.auto_field] if child_meta.auto_field is not None else []
        wanted += [child_meta.get_field(n) for n in child_returning]
        if wanted:
            cte += f" RETURNING {', '.join(quote(f.column) for f in wanted)}"
            selected += [f"ARRAY(SELECT {quote(f.column)} FROM {name})" for f in wanted]
            read.append((objs, wanted))
        ctes.append(cte + ")")
    sql = f"WITH {', '.join(ctes)} SELECT {', '.join(selected)} FROM p"
    savepoint = transaction.atomic() if connection.in_atomic_block else nullcontext()
    with savepoint, connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = list(cursor.fetchone())
    new_key = row.pop(0)
    setattr(parent, pk.attname, new_key)
    for field in back:
        _set_stored(parent, field, row.pop(0))
    for child in children:
        _point_at(child, new_key)
    for objs, wanted in read:
        for field in wanted:
            for obj, value in zip(objs, row.pop(0), strict=True):
                _set_stored(obj, field, value)
    for obj in [parent, *(c.obj for c in children)]:
        obj._state.adding = False
        obj._state.db = connection.alias


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
