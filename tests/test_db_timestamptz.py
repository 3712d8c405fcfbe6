"""Timestamps read from PostgreSQL (config/db/postgresql: psycopg's own parser under Django's time zone): the
same values, time zone object included, and the same errors as Django's own loader, for every form of
timestamptz PostgreSQL sends."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import register_tzloader
from psycopg import adapt

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend")

VALUES = [
    "now()",
    "'2024-01-02 03:04:05.123456+05'",
    "'2024-01-02 03:04:05-09:30'",
    "'2024-06-30 23:59:59.999999+14'",
    "'0001-01-01 00:00:00+00'",
    "'9999-12-31 23:59:59.999999+00'",
    "'1969-12-31 23:59:59.5+00'",
    "'1900-01-01 00:00:00+00:19:32'",
    "'2000-02-29 12:00:00+01'",
    "'infinity'",
    "'-infinity'",
    "'0044-03-15 12:00:00+00 BC'",
]


def _loaded(loader, data: bytes):
    try:
        return loader.load(data)
    except Exception as exc:  # the error is compared too
        return type(exc), str(exc)


@pytest.mark.django_db
@pytest.mark.parametrize("session_zone", ["UTC", "Asia/Kolkata", "America/St_Johns"])
def test_the_same_values_as_djangos_loader(session_zone):
    connection.ensure_connection()
    ours_class = connection.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT)
    djangos = adapt.AdaptersMap(connection.connection.adapters)
    register_tzloader(connection.timezone, djangos)
    djangos_class = djangos.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT)
    assert ours_class is not djangos_class and ours_class.timezone == djangos_class.timezone
    raw = connection.connection
    with raw.cursor() as cursor:
        cursor.execute(f"SET TIME ZONE '{session_zone}'")
        try:
            texts = [cursor.execute(f"SELECT ({v})::timestamptz::text").fetchone()[0] for v in VALUES]
            ours, theirs = ours_class(base.TIMESTAMPTZ_OID, raw), djangos_class(base.TIMESTAMPTZ_OID, raw)
            for text in texts:
                data = text.encode()
                mine, expected = _loaded(ours, data), _loaded(theirs, data)
                assert mine == expected, text
                if isinstance(mine, datetime.datetime):
                    assert mine.tzinfo is expected.tzinfo, text
        finally:
            cursor.execute("SET TIME ZONE 'UTC'")
