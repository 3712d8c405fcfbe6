"""Real servers that the fault tests start, stop, restart and kill: a private PostgreSQL cluster, a private
Redis, an aiosmtpd SMTP server, gunicorn (the web process) and Celery workers with beat.

Nothing here touches the machine's shared PostgreSQL (5432) or Redis (6379): every server runs on a free port of
its own, in a temporary directory, and is stopped when the tests end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
from email import message_from_bytes
from pathlib import Path

import psycopg
import requests
from aiosmtpd.controller import Controller

from tests.processes import celery_worker_command, wait_for

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "var" / "test-logs" / "faults"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---- PostgreSQL ----------------------------------------------------------------------------------------


class Postgres:
    """A PostgreSQL cluster of its own (initdb refuses root, so it runs as the ``postgres`` user then)."""

    def __init__(self, base: Path):
        self.dir = base / "pgdata"
        self.socket_dir = base / "pgsock"
        self.port = free_port()
        self.log = LOGS / "postgres.log"
        self.as_user = None
        if os.geteuid() == 0:
            self.as_user = pwd.getpwnam("postgres")
        for path in (base, self.socket_dir):
            path.mkdir(parents=True, exist_ok=True)
            if self.as_user:
                os.chown(path, self.as_user.pw_uid, self.as_user.pw_gid)
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log.touch()
        if self.as_user:
            os.chown(self.log, self.as_user.pw_uid, self.as_user.pw_gid)

    def own(self, path: Path) -> None:
        if self.as_user:
            subprocess.run(
                ["chown", "-R", f"{self.as_user.pw_uid}:{self.as_user.pw_gid}", str(path)], check=True
            )

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess:
        def demote():
            if self.as_user:
                os.setgid(self.as_user.pw_gid)
                os.setuid(self.as_user.pw_uid)

        return subprocess.run(
            list(command), preexec_fn=demote, capture_output=True, text=True, check=check, cwd="/"
        )

    def init(self) -> None:
        self._run("initdb", "-D", str(self.dir), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.start()

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=100"
        )
        self._run("pg_ctl", "-D", str(self.dir), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.dir), "-m", mode, "-w", "stop", check=False)

    def running(self) -> bool:
        return self._run("pg_ctl", "-D", str(self.dir), "status", check=False).returncode == 0

    def restart(self) -> None:
        """Stop (closing every client's connection, as a crash or a failover would) and start again."""
        self.stop("immediate")
        self.start()

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres", **kwargs) -> psycopg.Connection:
        kwargs.setdefault("autocommit", True)
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database, **kwargs)

    def sql(self, database: str, query: str, params=()) -> list[tuple]:
        with self.connect(database) as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def clone(self, template: str, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            # FILE_COPY: PostgreSQL 15's default WAL_LOG copy lets the copy's sequences go back after a crash
            # (an immediate stop), handing out ids that already exist.
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')

    def drop(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ---- Redis ---------------------------------------------------------------------------------------------


class Redis:
    """A redis-server of its own; stopping it loses its data (no persistence), as a crashed broker would."""

    def __init__(self, name: str):
        self.port = free_port()
        self.name = name
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(LOGS / f"redis-{self.name}.log", "a")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(self.ping, timeout=10, interval=0.05, what="redis-server")

    def ping(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
        return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def flushall(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"FLUSHALL\r\n")
            assert s.recv(16).startswith(b"+OK")

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"


# ---- SMTP ----------------------------------------------------------------------------------------------


class Smtp:
    """aiosmtpd on a fixed port, so that it can be stopped and started again where the workers expect it."""

    def __init__(self):
        self.port = free_port()
        self.messages: list[dict] = []
        self.controller: Controller | None = None
        self.hold = False  # while set, a message's DATA is not answered (the sender waits for "250 OK")
        self.holding = 0

    async def handle_DATA(self, server, session, envelope):
        while self.hold:
            self.holding += 1
            await asyncio.sleep(0.05)
        message = message_from_bytes(envelope.content)
        self.messages.append(
            {"to": list(envelope.rcpt_tos), "subject": message["Subject"], "message": message}
        )
        return "250 OK"

    def start(self) -> None:
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def recipients(self) -> list[str]:
        return sorted(to for m in self.messages for to in m["to"])

    def bodies(self) -> list[str]:
        out = []
        for item in self.messages:
            for part in item["message"].walk():
                if part.get_content_type() == "text/plain":
                    out.append(part.get_payload(decode=True).decode())
        return out


# ---- the product's processes ---------------------------------------------------------------------------


class Processes:
    """gunicorn and Celery workers of one test, on that test's database, Redis and SMTP."""

    def __init__(self, name: str, env: dict[str, str], workdir: Path):
        self.name = name
        self.env = env
        self.workdir = workdir
        self.procs: list[subprocess.Popen] = []
        self.labels: dict[int, str] = {}
        self.web_url = ""

    def _spawn(self, label: str, command: list[str]) -> subprocess.Popen:
        log = open(LOGS / f"{self.name}-{label}.log", "a")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        self.labels[proc.pid] = label
        return proc

    def label_of(self, proc: subprocess.Popen) -> str:
        return self.labels[proc.pid]

    def web(self) -> subprocess.Popen:
        port = free_port()
        self.web_url = f"http://127.0.0.1:{port}"
        proc = self._spawn(
            "web",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                "1",
                "--threads",
                "4",
                "--timeout",
                "60",
            ],
        )
        wait_for(lambda: _answers(self.web_url + "/healthz"), timeout=60, what="gunicorn to answer")
        return proc

    def worker(self, label: str = "w1", beat: bool = True) -> subprocess.Popen:
        schedule = self.workdir / f"beat-{label}" if beat else None
        command = celery_worker_command(label, schedule=schedule, heartbeat=False)
        return self._spawn(label, command)

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        """The end of the tests: nothing left to finish, so everything is killed at once."""
        for proc in self.procs:
            if proc.poll() is None:
                self.kill(proc)


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def base_env(workdir: Path) -> dict[str, str]:
    hf_home = workdir / "hf-home"
    hf_home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "PYTEST", "DJANGO_ALLOW"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "SECRET_KEY": "faults-" + "x" * 50,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SITE_URL": "http://profiles.test",
            "VLLM_PROFILES_VAR_DIR": str(workdir / "var"),
            "HF_HUB_OFFLINE": "1",
            "HF_HOME": str(hf_home),
            # Fault tests shrink the clocks: a stalled re-check is revived after 3 s, beat sweeps every second.
            "SWEEP_INTERVAL": "1",
            "RECHECK_STALL_SECONDS": "3",
            "RECHECK_BATCH_SIZE": "50",
            "ALERT_CLAIM_TIMEOUT_SECONDS": "5",
            "EMAIL_TIMEOUT": "10",
            "PYTHONUNBUFFERED": "1",
            "WEB_ACCESS_LOG": "-",
        }
    )
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def run_module(env: dict[str, str], module: str, timeout: float = 300) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode:
        raise RuntimeError(f"{module} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
