"""Fixtures of the fault tests: one private PostgreSQL cluster per session with a migrated, seeded template
database; per test a copy of it, a private Redis, an SMTP server, gunicorn and Celery workers (with beat), all
real processes that the tests stop, restart and kill. See servers.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

from tests.examples import EAGER_RULE
from tests.processes import wait_for

from . import servers

# The migrated, seeded template cluster is cached here, keyed by the code that builds it (template_key).
CACHE = Path(
    os.environ.get("VLLM_PROFILES_FAULTS_CACHE", Path.home() / ".cache" / "vllm-profiles" / "faults")
)
TEMPLATE = "faults_template"
DATABASE = "faults"


def template_key() -> str:
    """A digest of everything the template database depends on: the product's code, migrations, catalogs and
    rule packs, the seed, the servers' settings and PostgreSQL's version."""
    digest = hashlib.sha256(subprocess.run(["initdb", "--version"], capture_output=True).stdout)
    for package in ("accounts", "config", "hub", "profiles", "sources", "validation", "vllmcheck"):
        for path in sorted((servers.ROOT / package).rglob("*")):
            if path.suffix in (".py", ".json", ".yaml") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(servers.ROOT)).encode() + b"\0" + path.read_bytes())
    for path in (
        Path(__file__).parent / "seed.py",
        Path(__file__).parent / "servers.py",
        servers.ROOT / "tests" / "bulk.py",
        servers.ROOT / "tests" / "processes.py",
    ):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


class Stack:
    """The servers and processes the fault tests share: a private PostgreSQL cluster (its template database
    migrated and seeded once), a private Redis, an SMTP server, gunicorn and a Celery worker with beat.

    Each test gets a fresh copy of the template under the same database name (the processes reconnect to it),
    an emptied broker and inbox, and every server and process running again, whatever the previous test
    stopped or killed."""

    def __init__(self, base: Path):
        self.base = base
        self.tests = 0
        self.pg = servers.Postgres(base)
        self.seed = self._template()
        self.pg.clone(TEMPLATE, DATABASE)
        self.redis = servers.Redis("faults")
        self.redis.start()
        self.smtp = servers.Smtp()
        self.smtp.start()
        self.env = servers.base_env(base / "run")
        self.env.update(
            DATABASE_URL=self.pg.url(DATABASE),
            CELERY_BROKER_URL=self.redis.url(0),
            CACHE_URL=self.redis.url(1),
            EMAIL_URL=f"smtp://127.0.0.1:{self.smtp.port}",
        )
        self.procs = servers.Processes("faults", self.env, base / "run")
        # Two workers share the re-checks, as in production; the worker tests kill the second one.
        self.main_worker = self.procs.worker("w0")
        self.second_worker = self.procs.worker("w1", beat=False)
        self.web = self.procs.web()
        self.wait_workers_ready()
        self.staff = self._session(self.seed["staff_key"])
        self.editor = self._session(self.seed["editor_key"])

    def _template(self) -> dict:
        """The migrated and seeded template database, from the cache when the code that builds it is
        unchanged (its data directory is copied), else built (migrate, seed) and cached; returns the seed."""
        cache = CACHE / template_key()
        if (cache / "seed.json").exists():
            shutil.copytree(cache / "pgdata", self.pg.dir, symlinks=True)
            self.pg.own(self.pg.dir)
            self.pg.start()
            return json.loads((cache / "seed.json").read_text())
        self.pg.init()
        with self.pg.connect() as conn:
            conn.execute(f'CREATE DATABASE "{TEMPLATE}"')
        env = servers.base_env(self.base / "seed")
        env.update(
            DATABASE_URL=self.pg.url(TEMPLATE),
            CELERY_BROKER_URL="memory://",
            CACHE_URL="locmemcache://",
            EMAIL_URL="consolemail://",
        )
        servers.manage(env, "migrate", "--no-input")
        seed = servers.run_module(env, "tests.faults.seed")
        self.pg.stop("fast")
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=CACHE, prefix=".partial-"))
        shutil.copytree(self.pg.dir, partial / "pgdata", symlinks=True)
        (partial / "seed.json").write_text(json.dumps(seed))
        for stale in CACHE.iterdir():  # one template is kept: the current code's
            if stale.name != cache.name and not stale.name.startswith("."):
                shutil.rmtree(stale, ignore_errors=True)
        try:
            partial.rename(cache)
        except OSError:  # another run cached it first
            shutil.rmtree(partial, ignore_errors=True)
        self.pg.start()
        return seed

    def wait_workers_ready(self) -> None:
        for proc in (self.main_worker, self.second_worker):
            log = servers.LOGS / f"faults-{self.procs.label_of(proc)}.log"
            wait_for(lambda log=log: " ready." in log.read_text(), timeout=90, what=f"worker {log.name}")

    def reset(self) -> None:
        """A fresh database, broker and inbox, with every server and process up."""
        if not self.pg.running():
            self.pg.start()
        if not self.redis.ping():
            self.redis.start()
        self.pg.clone(TEMPLATE, DATABASE)
        # Each test's re-checks get ids of their own: a retry a worker still holds from the previous test
        # (a digest's countdown) then names no re-check of this one.
        self.tests += 1
        self.sql(f"ALTER SEQUENCE validation_recheck_id_seq RESTART WITH {self.tests * 1000}")
        self.redis.flushall()
        if self.smtp.controller is None:
            self.smtp.start()
        self.smtp.messages.clear()
        self.smtp.hold, self.smtp.holding = False, 0
        if self.web.poll() is not None:
            self.web = self.procs.web()
        self.supervise()

    def supervise(self) -> None:
        """Start again a worker that exited, as Kubernetes or docker-compose's restart policy would."""
        started = False
        if self.main_worker.poll() is not None:
            self.main_worker, started = self.procs.worker(f"w{len(self.procs.procs)}"), True
        if self.second_worker.poll() is not None:
            self.second_worker, started = self.procs.worker(f"w{len(self.procs.procs)}", beat=False), True
        if started:
            self.wait_workers_ready()

    def stop_extra_workers(self) -> None:
        for proc in self.procs.procs:
            if proc not in (self.web, self.main_worker, self.second_worker) and proc.poll() is None:
                self.procs.kill(proc)

    def _session(self, key: str) -> requests.Session:
        session = requests.Session()
        session.headers["Authorization"] = f"Token {key}"
        return session

    def url(self, path: str) -> str:
        return self.procs.web_url + path

    def sql(self, query: str, params=()) -> list[tuple]:
        return self.pg.sql(DATABASE, query, params)

    def one(self, query: str, params=()):
        return self.sql(query, params)[0][0]

    def hold_back(self, count: int = 50):
        """Hold ``count`` verdicts with a lock that the re-check's batches skip (``SKIP LOCKED``) but that lets
        a publish mark them, so that a re-check started now cannot finish before the connection returned is
        closed (or cut by a PostgreSQL restart): a fault is then surely injected "in the middle"."""
        conn = self.pg.connect(DATABASE, autocommit=False)
        conn.execute(
            "SELECT profile_id FROM validation_verdictcheck ORDER BY profile_id DESC LIMIT %s FOR KEY SHARE",
            (count,),
        ).fetchall()
        return conn

    def recheck(self, recheck_id: int) -> dict:
        response = self.staff.get(self.url(f"/api/v1/rechecks/{recheck_id}/"), timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    def wait_recheck(self, recheck_id: int, timeout: float = 60) -> dict:
        return wait_for(
            lambda: (body := self.recheck(recheck_id))["state"] == "done" and body,
            timeout=timeout,
            what=f"re-check {recheck_id} to finish",
        )

    def publish_eager_rule(self) -> int:
        """Staff publish a rule set that makes the seed's ``--enforce-eager`` profiles invalid (202)."""
        draft = self.staff.post(self.url("/api/v1/rulesets/"), json={}, timeout=30)
        assert draft.status_code == 201, draft.text
        draft_id = draft.json()["id"]
        rule = self.staff.post(self.url(f"/api/v1/rulesets/{draft_id}/rules/"), json=EAGER_RULE, timeout=30)
        assert rule.status_code == 200, rule.text
        published = self.staff.post(self.url(f"/api/v1/rulesets/{draft_id}/publish/"), timeout=30)
        assert published.status_code == 202, published.text
        return published.json()["recheck"]

    def reads(self, rounds: int = 3) -> list[int]:
        """Statuses of the API's reads, each on a new connection (so that every web thread answers some)."""
        headers = {**self.editor.headers, "Connection": "close"}
        statuses = []
        for _ in range(rounds):
            for path in (
                "/api/v1/profiles/?page_size=5",
                "/api/v1/profiles/?q=svc-0004",
                "/api/v1/teams/",
                "/api/v1/rulesets/",
                "/api/v1/fleet/",
            ):
                statuses.append(requests.get(self.url(path), headers=headers, timeout=30).status_code)
        return statuses

    def save(self, name: str, command: str) -> requests.Response:
        """The editor saves a serving profile through the API."""
        body = {"team": "ml", "name": name, "kind": "serving", "command": command}
        return self.editor.post(self.url("/api/v1/profiles/"), json=body, timeout=60)

    def close(self) -> None:
        self.procs.stop_all()
        self.redis.stop()
        self.smtp.stop()
        self.pg.stop("immediate")


@pytest.fixture(scope="session")
def _faults_stack():
    base = Path(tempfile.mkdtemp(prefix="vllm-profiles-faults-"))
    built = None
    try:
        built = Stack(base)
        yield built
    finally:
        if built is not None:
            built.close()
        servers.remove(base)


@pytest.fixture
def stack(_faults_stack):
    _faults_stack.reset()
    yield _faults_stack
    _faults_stack.stop_extra_workers()


def assert_each_profile_checked_once_and_alerted_once(stack: Stack, recheck: dict, added: int = 0) -> None:
    """The end state every fault must reach: the re-check counted every profile once, every profile's verdict
    is current, each newly invalid profile has one history entry and one alert per owner, mailed once.
    ``added``: valid profiles the test saved before publishing."""
    seed = stack.seed
    total = seed["profiles"] + added
    assert (recheck["total"], recheck["done"], recheck["newly_invalid"]) == (total, total, seed["broken"]), (
        recheck
    )
    assert stack.one("SELECT count(*) FROM validation_verdictcheck WHERE pending_recheck_id IS NOT NULL") == 0
    current = stack.one("SELECT max(id) FROM validation_ruleset WHERE status = 'published'")
    checked = (
        "SELECT count(*) FROM validation_verdict v LEFT JOIN validation_verdictcheck c USING (profile_id)"
    )
    assert stack.one(f"{checked} WHERE c.ruleset_id IS DISTINCT FROM %s", (current,)) == 0
    changes = stack.sql(
        "SELECT profile_id, count(*) FROM validation_verdictchange WHERE cause = 'ruleset' GROUP BY profile_id"
    )
    assert len(changes) == seed["broken"] and {n for _, n in changes} == {1}
    assert stack.one("SELECT count(*) FROM validation_alert") == seed["broken"]
    wait_for(
        lambda: stack.one("SELECT count(*) FROM validation_alert WHERE state = 'sent'") == seed["broken"],
        timeout=60,
        what="every alert to be sent",
    )
    # One digest per owner; together they name each newly invalid profile once: none lost, none twice.
    assert stack.smtp.recipients() == sorted(seed["broken_by_owner"]), stack.smtp.recipients()
    mailed = [name for body in stack.smtp.bodies() for name in re.findall(r"^== ml/(svc-\d+) ", body, re.M)]
    assert sorted(mailed) == seed["broken_names"]
