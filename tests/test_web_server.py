"""The web server as `make run` and the image start it (`gunicorn config.wsgi`, reading gunicorn.conf.py):
with several workers each listens on its own SO_REUSEPORT socket, so that the kernel spreads connections
between them (on one shared socket, keep-alive clients that connect at once can all land on one worker);
with one worker the arbiter keeps the one socket, so that a restarting worker's connections wait."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening_sockets(port: int) -> int:
    """How many sockets listen on ``port`` (``/proc/net/tcp``: state 0A is LISTEN)."""
    found = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if state == "0A" and int(local.split(":")[1], 16) == port:
            found += 1
    return found


def _server_env(tmp_path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",  # /healthz reads no database
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }


def _start(tmp_path, port: int, *flags: str, **env: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", *flags]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env={**_server_env(tmp_path), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_listening(server: subprocess.Popen, port: int, sockets: int = 1) -> None:
    deadline = time.monotonic() + 60
    while _listening_sockets(port) < sockets:
        assert server.poll() is None, server.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "gunicorn did not listen within 60 s"
        time.sleep(0.2)


def _stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=30)


@pytest.mark.parametrize(("workers", "sockets"), [(2, 2), (1, 1)])
def test_each_worker_listens_on_its_own_socket(tmp_path, workers, sockets):
    port = _free_port()
    server = _start(tmp_path, port, "-w", str(workers))
    try:
        _wait_listening(server, port, sockets)
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json() == {"status": "ok"}
        time.sleep(0.5)  # every worker is up: none opens a socket more
        assert _listening_sockets(port) == sockets
    finally:
        _stop(server)


def test_the_log_names_the_address_it_listens_at(tmp_path):
    """With a socket per worker the arbiter has none, and gunicorn's own line said ``Listening at:  (PID)``:
    the address is written in, so `make run` shows where to go."""
    port = _free_port()
    server = _start(tmp_path, port, "-w", "2")
    try:
        _wait_listening(server, port, 2)
    finally:
        _stop(server)
    log = server.stderr.read().decode()
    assert f"Listening at: http://127.0.0.1:{port} (" in log, log[-2000:]


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _read_response(stream) -> bytes:
    """One HTTP/1.1 response read from a socket's file: its head, then its body (chunked or of a length)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = stream.readline()
        assert line, "the server closed the connection"
        head += line
    fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:] if b": " in line)
    if fields.get(b"Transfer-Encoding") == b"chunked":
        body = b""
        while size := int(stream.readline(), 16):
            body += stream.read(size + 2)[:-2]
        stream.readline()
        return head + body
    return head + stream.read(int(fields[b"Content-Length"]))


@pytest.fixture
def one_thread_server(tmp_path):
    """One worker (gunicorn's gthread) with one thread."""
    port = _free_port()
    server = _start(tmp_path, port, "-w", "1", "--threads", "1")
    try:
        _wait_listening(server, port)
        requests.get(f"http://127.0.0.1:{port}/healthz", timeout=30)  # the worker is up
        yield port
    finally:
        _stop(server)


def test_requests_one_after_another_on_a_kept_alive_connection(one_thread_server):
    """Sent at once after each answer, sent after a pause (the connection waits in the worker's poller
    meanwhile), and two sent together in one packet: each is answered, in order, on the same connection."""
    with socket.create_connection(("127.0.0.1", one_thread_server), timeout=10) as client:
        stream = client.makefile("rb")
        for pause in (0, 0, 0, 1.3, 0, 0, 1.2, 0):
            time.sleep(pause)
            client.sendall(HEALTHZ)
            response = _read_response(stream)
            assert response.startswith(b"HTTP/1.1 200"), response[:200]
            assert response.endswith(b'{"status": "ok"}')
        client.sendall(HEALTHZ + HEALTHZ)
        assert _read_response(stream).startswith(b"HTTP/1.1 200")
        assert _read_response(stream).startswith(b"HTTP/1.1 200")
