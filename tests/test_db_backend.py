"""The PostgreSQL backend's health check (config/db/postgresql): a kept connection that a restart broke is
replaced without failing the request, and a healthy one costs no `SELECT 1` round trip before each request."""

from __future__ import annotations

import tempfile

import pytest
from django.core.signals import request_finished, request_started
from django.db import DataError, OperationalError, connection, connections

pytestmark = pytest.mark.django_db(transaction=True)


def _new_request():
    """What Django does between two requests of a thread that keeps its connection."""
    request_finished.send(sender=None)
    request_started.send(sender=None)


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _kill(pid: int) -> None:
    """Terminate a server process as a PostgreSQL restart does, from a connection of its own."""
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        dbname=settings["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.fixture
def kept_connection(settings):
    connection.close()
    old = connection.settings_dict["CONN_MAX_AGE"], connection.settings_dict["CONN_HEALTH_CHECKS"]
    connection.settings_dict["CONN_MAX_AGE"] = 600
    connection.settings_dict["CONN_HEALTH_CHECKS"] = True
    _new_request()
    yield connection
    connection.settings_dict["CONN_MAX_AGE"], connection.settings_dict["CONN_HEALTH_CHECKS"] = old
    connection.close()


def test_a_read_on_a_connection_broken_between_requests_is_answered(kept_connection):
    pid = _backend_pid()
    _new_request()
    _kill(pid)
    _new_request()
    assert _backend_pid() != pid  # the request's first read went to a new connection, and did not fail


def test_a_write_on_a_connection_broken_between_requests_is_answered(kept_connection):
    from profiles.models import Team

    pid = _backend_pid()
    _new_request()
    _kill(pid)
    _new_request()
    Team.objects.create(slug="after-restart", name="After a restart")  # first statement: an INSERT
    assert Team.objects.filter(slug="after-restart").count() == 1
    assert _backend_pid() != pid


def test_a_failing_read_on_a_healthy_connection_is_not_sent_again(kept_connection):
    pid = _backend_pid()
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 50")
    _new_request()
    with pytest.raises(OperationalError, match="statement timeout"), connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(0.5)")  # canceled: the statement's failure, not the connection's
    _new_request()
    assert _backend_pid() == pid


def _sent(statement) -> list[tuple[str, str]]:
    """The frontend messages (Query, Parse, Bind, ...) that running ``statement()`` puts on the wire, each
    with the rest of its trace line (a Query's text)."""
    with tempfile.TemporaryFile() as trace:
        raw = connections["default"].connection
        raw.pgconn.trace(trace.fileno())
        try:
            statement()
        finally:
            raw.pgconn.untrace()
        trace.seek(0)
        lines = [line.split("\t") for line in trace.read().decode().splitlines() if "\tF\t" in line]
        return [(fields[3], "\t".join(fields[4:])) for fields in lines]


def test_a_healthy_kept_connection_sends_only_the_request_s_own_statements(kept_connection):
    _backend_pid()
    _new_request()
    sent = [text for message, text in _sent(_backend_pid) if message == "Query"]
    assert len(sent) == 1, sent
    assert "pg_backend_pid" in sent[0]
    assert "SELECT 1" not in "".join(sent)


def _prepared_read():
    with connection.prepared_cursor() as cursor:
        cursor.execute("SELECT %s::int + 1", [41])
        assert cursor.fetchone() == (42,)


def test_a_prepared_statement_is_parsed_once_per_connection(kept_connection):
    _backend_pid()
    _new_request()
    first = [message for message, _ in _sent(_prepared_read)]
    _new_request()
    again = [message for message, _ in _sent(_prepared_read)]
    assert "Parse" in first, first  # planned by PostgreSQL once ...
    assert "Parse" not in again and "Bind" in again, again  # ... then only bound and executed


def test_a_prepared_read_on_a_connection_broken_between_requests_is_answered(kept_connection):
    pid = _backend_pid()
    _new_request()
    _prepared_read()
    _new_request()
    _kill(pid)
    _new_request()
    _prepared_read()  # the request's first read found the connection broken: sent again on a new one
    assert _backend_pid() != pid
    _new_request()
    _prepared_read()  # and prepared again on the new connection


def test_prepared_statements_can_be_turned_off(kept_connection, settings):
    settings.DB_PREPARED_STATEMENTS = False
    _backend_pid()
    _new_request()
    assert "Parse" not in [message for message, _ in _sent(_prepared_read)]


def test_one_cursor_of_prepared_statements_per_connection(kept_connection):
    """Kept from request to request on the same connection, each statement's rows its own (a read that
    failed leaves nothing behind for the next), and a new one on a new connection."""
    with connection.prepared_cursor() as first:
        first.execute("SELECT %s::int + 1", [1])
        assert first.fetchone() == (2,)
    _new_request()
    with connection.prepared_cursor() as again:
        assert again.cursor is first.cursor
        assert again.pgresult is None  # the last statement's rows went with its block
        again.execute("SELECT %s::text", ["two"])
        assert again.fetchall() == [("two",)]
    with pytest.raises(DataError), connection.prepared_cursor() as failing:
        failing.execute("SELECT %s::int / 0", [1])
    with connection.prepared_cursor() as after:
        after.execute("SELECT %s::int * 3", [3])
        assert after.fetchall() == [(9,)]
    pid = _backend_pid()
    _new_request()
    _kill(pid)
    _new_request()
    _prepared_read()  # on a new connection, after the health check replaced the broken one
    with connection.prepared_cursor() as renewed:
        assert renewed.cursor is not first.cursor and renewed.cursor.connection is connection.connection
