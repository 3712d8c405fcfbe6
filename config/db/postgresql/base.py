"""Django's PostgreSQL backend, with the connection health check folded into the request's first statement.

With ``CONN_HEALTH_CHECKS``, Django sends ``SELECT 1`` before the first statement of every request that
reuses a kept connection, so that a connection broken by a PostgreSQL restart is replaced instead of failing
the request. That is one more round trip per request: a third of an API validation's waits on the
database. Here the request's first statement is the check: when it is a plain read (``SELECT``) outside a
transaction and fails because the connection is broken, the connection is replaced and the read sent again,
once. A read that never reached a live server cannot have changed anything, and a read done twice is still
one read. Any other first statement (a write, a statement inside ``atomic``, a server-side cursor) keeps
Django's check before it. Tested by ``tests/faults/test_postgres_restart.py`` (a restart fails no request)
and ``tests/test_db_backend.py``.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.db.backends.postgresql import base
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from psycopg import adapters
from psycopg.adapt import Loader


def _is_read(sql) -> bool:
    text = sql if isinstance(sql, str) else str(sql)
    return text.lstrip()[:6].upper() == "SELECT"


class _FirstStatementCheck:
    def execute(self, sql, params=None):
        db = self.db
        if not db.check_on_first_statement:
            return super().execute(sql, params)
        db.check_on_first_statement = False
        if db.in_atomic_block or getattr(self.cursor, "name", None) or not _is_read(sql):
            self._check_before()
            return super().execute(sql, params)
        try:
            return super().execute(sql, params)
        except (OperationalError, InterfaceError):
            raw = db.connection
            if raw is not None and not (raw.closed or raw.broken):
                raise  # the statement failed, not the connection
        # The connection was broken before this read reached a server: replace it and read again.
        db.close()
        db.connect()
        self.cursor = db.create_cursor()
        return super().execute(sql, params)

    def executemany(self, sql, param_list):
        if self.db.check_on_first_statement:
            self.db.check_on_first_statement = False
            self._check_before()
        return super().executemany(sql, param_list)

    def _check_before(self):
        """Django's health check, for a first statement that cannot be sent twice."""
        db = self.db
        if db.is_usable():
            return
        db.close()
        if db.in_atomic_block:
            return  # as Django: the transaction is lost, the statement fails and the request with it
        db.connect()
        self.cursor = db.create_cursor(getattr(self.cursor, "name", None))


class CheckedCursorWrapper(_FirstStatementCheck, CursorWrapper):
    pass


class CheckedCursorDebugWrapper(_FirstStatementCheck, CursorDebugWrapper):
    pass


_ONLY_WHEN_ASKED = 2**31  # executions before psycopg prepares a server-binding statement unasked: never


class PreparedCursor(base.ServerBindingCursor):
    """Server-side binding, each statement prepared on the connection the first time it is sent: PostgreSQL
    then parses and plans it once per connection instead of once per request."""

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)

    def close(self):
        """Its results dropped, the cursor kept open for the connection's next prepared statement
        (``DatabaseWrapper.prepared_cursor``): made afresh per statement it was a sixth of an API request's
        authentication. It goes with its connection."""
        self._reset()


# psycopg's own timestamptz loader: its C one where psycopg has its binary part (psycopg[binary]), else the
# pure-Python one Django's loader is built on.
_PSYCOPG_TIMESTAMPTZ_LOADER = adapters.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT)


@cache
def _timestamptz_loader(tz):
    """Django's timestamptz loader for ``tz`` (``psycopg_any.register_tzloader``), parsing with psycopg's own
    loader. Django's subclasses psycopg's pure-Python loader, which parses each value in Python; psycopg's
    C loader cannot be subclassed, so this one holds one and gives its value Django's ``tzinfo``, as
    Django's does (``.replace(tzinfo=tz)``). Four timestamps of an API request's token row took a tenth of
    its authentication. ``timezone`` is read by Django, which registers its own when it differs."""

    class TimestamptzLoader(Loader):
        timezone = tz

        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            self._parse = _PSYCOPG_TIMESTAMPTZ_LOADER(oid, context).load

        def load(self, data):
            return self._parse(data).replace(tzinfo=tz)

    return TimestamptzLoader


class DatabaseOperations(base.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        if isinstance(cursor, PreparedCursor):  # it keeps no client-side text: the SQL with its values
            return self.compose_sql(sql, params)
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    check_on_first_statement = False
    _prepared: PreparedCursor | None = None  # the connection's cursor of prepared statements

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if connection.adapters.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT).timezone == self.timezone:
            connection.adapters.register_loader("timestamptz", _timestamptz_loader(self.timezone))
        if connection.prepare_threshold is None:
            # Django turns psycopg's statement preparation off; on, it prepares only what is sent with
            # prepare=True (``prepared_cursor``): Django's own cursors bind on the client, never prepared.
            connection.prepare_threshold = _ONLY_WHEN_ASKED
        return connection

    def prepared_cursor(self):
        """A cursor for the few fixed statements every request sends (the API token, the reference stamp):
        prepared once per kept connection, which saves PostgreSQL planning them per request (most of their
        cost on the server). ``DB_PREPARED_STATEMENTS=false`` (a transaction-pooling PgBouncer older than
        1.21, which cannot keep prepared statements) gives a plain cursor. Health-checked like any cursor:
        when the first read finds the connection broken, it is sent again on a plain cursor of a new one."""
        if not settings.DB_PREPARED_STATEMENTS:
            return self.cursor()
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            cursor = self._prepared
            if cursor is None or cursor.connection is not self.connection or cursor.closed:
                # One per connection, kept (PreparedCursor.close): a statement is read to its end within
                # the ``with`` block of the cursor that sent it, so no two are ever open at once.
                cursor = self._prepared = PreparedCursor(self.connection)
            tzloader = cursor.adapters.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT)
            if self.timezone != tzloader.timezone:
                base.register_tzloader(self.timezone, cursor)
            return self._prepare_cursor(cursor)

    def close_if_health_check_failed(self):
        if self.pool or self.connection is None or not self.health_check_enabled or self.health_check_done:
            return
        self.health_check_done = True
        self.check_on_first_statement = True

    def connect(self):
        self.check_on_first_statement = False
        super().connect()

    def make_cursor(self, cursor):
        return CheckedCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor):
        return CheckedCursorDebugWrapper(cursor, self)
