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

from django.db import InterfaceError, OperationalError
from django.db.backends.postgresql import base
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper


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


class DatabaseWrapper(base.DatabaseWrapper):
    check_on_first_statement = False

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
