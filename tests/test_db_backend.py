"""Kept PostgreSQL connections with Django's CONN_HEALTH_CHECKS (config/settings.py): a kept connection that a
restart broke is replaced without failing the request, whatever its first statement; a statement that fails on
a healthy connection fails as it is, on that connection."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished, request_started
from django.db import OperationalError, connection

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


def _prepared_statements() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        return cursor.fetchone()[0]


def test_a_statement_sent_repeatedly_is_prepared_on_its_connection(kept_connection):
    """DB_SERVER_SIDE_BINDING and DB_PREPARE_THRESHOLD (psycopg's options, through Django's OPTIONS): once sent
    that many times on a kept connection, a statement is parsed and planned there once, not at every request."""
    from profiles.models import Team

    threshold = connection.settings_dict["OPTIONS"]["prepare_threshold"]
    assert connection.settings_dict["OPTIONS"]["server_side_binding"] is True and threshold
    before = _prepared_statements()
    for number in range(threshold + 1):
        _new_request()
        assert not Team.objects.filter(slug=f"none-{number}").exists()
    assert _prepared_statements() > before


def test_prepared_statements_can_be_turned_off(kept_connection):
    """DB_PREPARE_THRESHOLD=0 (a transaction-pooling PgBouncer older than 1.21): nothing is prepared."""
    from profiles.models import Team

    connection.close()
    options = connection.settings_dict["OPTIONS"]
    kept = options["prepare_threshold"]
    options["prepare_threshold"] = None
    try:
        for number in range(10):
            _new_request()
            assert not Team.objects.filter(slug=f"none-{number}").exists()
        assert _prepared_statements() == 0
    finally:
        options["prepare_threshold"] = kept
        connection.close()
