"""A real Celery worker (a separate process) on the real Redis, a real SMTP server (aiosmtpd), and the
test database shared with the worker (tests here use transaction=True so the worker sees committed rows)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from email import message_from_bytes
from pathlib import Path

import pytest
import redis
from aiosmtpd.controller import Controller
from django.conf import settings
from django.db import connection

from tests.processes import celery_worker_command

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "var" / "test-logs"


class Inbox:
    """Collects every message the SMTP server accepts."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        message = message_from_bytes(envelope.content)
        self.messages.append(
            {"to": list(envelope.rcpt_tos), "subject": message["Subject"], "message": message}
        )
        return "250 OK"

    def bodies(self, recipient: str) -> list[str]:
        out = []
        for item in self.messages:
            if recipient in item["to"]:
                for part in item["message"].walk():
                    if part.get_content_type() == "text/plain":
                        out.append(part.get_payload(decode=True).decode())
        return out


@pytest.fixture
def smtp():
    inbox = Inbox()
    with socket.socket() as probe:  # a free port (aiosmtpd's readiness check cannot use port 0)
        probe.bind(("127.0.0.1", 0))
        inbox.port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=inbox.port)
    controller.start()
    yield inbox
    controller.stop()


@pytest.fixture
def broker():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.flushdb()
    yield settings.CELERY_BROKER_URL
    with contextlib.suppress(redis.exceptions.ConnectionError):
        client.flushdb()


class Workers:
    def __init__(self, smtp_port: int, broker_url: str):
        self.smtp_port = smtp_port
        self.broker_url = broker_url
        self.procs: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        db = connection.settings_dict
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.test_settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "CELERY_BROKER_URL": self.broker_url,
            "EMAIL_URL": f"smtp://127.0.0.1:{self.smtp_port}",
            "SWEEP_INTERVAL": "1",
            "RECHECK_STALL_SECONDS": "3",
            "SITE_URL": "http://profiles.test",
            "VLLM_PROFILES_VAR_DIR": str(ROOT / "var" / "test-worker"),
        }

    def start(self, name: str = "w1", beat: bool = True) -> subprocess.Popen:
        LOGS.mkdir(parents=True, exist_ok=True)
        schedule = ROOT / "var" / "test-worker" / f"beat-{name}" if beat else None
        command = celery_worker_command(name, schedule=schedule)
        (ROOT / "var" / "test-worker").mkdir(parents=True, exist_ok=True)
        log = open(LOGS / f"worker-{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def workers(smtp, broker):
    pool = Workers(smtp.port, broker)
    yield pool
    pool.stop_all()
