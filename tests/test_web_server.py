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


@pytest.mark.parametrize(("workers", "sockets"), [(2, 2), (1, 1)])
def test_each_worker_listens_on_its_own_socket(tmp_path, workers, sockets):
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",  # /healthz reads no database
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _listening_sockets(port) < sockets:
            assert server.poll() is None, server.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "gunicorn did not listen within 60 s"
            time.sleep(0.2)
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json() == {"status": "ok"}
        time.sleep(0.5)  # every worker is up: none opens a socket more
        assert _listening_sockets(port) == sockets
    finally:
        server.terminate()
        server.wait(timeout=30)
