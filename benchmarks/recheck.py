"""Fleet re-checks and previews at 100,000 profiles, with real Celery workers on Redis and PostgreSQL.

    python benchmarks/recheck.py [--profiles 100000] [--distinct 2000] [--repeat 3] [--workers 2]
                                 [--reload] [--database-url URL] [--broker-url URL] [--only recheck|preview]

The database (``vllm_profiles_bench_recheck`` on the local PostgreSQL, or ``--database-url``) is created,
migrated and filled on first use and reused afterwards (``--reload`` refills it). The fleet is ``--distinct``
configurations (models, context lengths, pinned or fleet-following releases) spread over ``--profiles``
profiles in 20 teams, as organisations keep one configuration per team, region or replica; 1% of the
profiles are serving ones that disable CUDA graphs (``--enforce-eager``) and about 0.7% are fleet-following
collection profiles that replay the sampling mask with speculative decoding, which 0.31.0 refuses.
``--distinct`` equal to ``--profiles`` makes every profile's document different (nothing shared).

``--workers`` worker processes (``celery worker --pool=solo``, as ``scripts/run.sh`` starts them) are started
on ``--broker-url`` and stopped at the end. Each scenario is timed from the call that starts it (publishing a
rule set, moving the fleet's release) to the re-check record being ``done`` with its alerts created, repeated
``--repeat`` times:

- publish a rule set that makes the 1% with --enforce-eager invalid, then one that makes them valid again;
- publish a rule set whose change affects no profile (every verdict is re-checked and none changes);
- move the fleet to 0.31.0 (1% of the fleet-following profiles become invalid) and back;
- ``GET /api/v1/rulesets/{id}/impact/`` and ``GET /api/v1/releases/{v}/preview/`` of the whole fleet: the
  202 answer, then polling until the 200 with the result (the cache is cleared before each run).

Printed: median, min and max seconds per scenario, the verdicts changed and alerts created, each worker's
peak resident memory (VmHWM), and the machine. Targets: 1% change <= 30 s, no change <= 10 s, previews
<= 10 s, workers < 300 MB each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import (  # noqa: E402
    machine,
    save_figures,
    setup_django,
    verdict_row,
    verdict_summary,
    verdicts_bulk_create,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/vllm_profiles_bench_recheck"
DEFAULT_BROKER = "redis://127.0.0.1:6379/4"
TEAMS = 20
FLEET = "0.32.0"
OLD = "0.31.0"
MODELS = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
]
EAGER_RULE = {
    "id": "bench-no-enforce-eager",
    "category": "policy",
    "severity": "error",
    "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
    "when": "has(args.enforce_eager) && args.enforce_eager == true",
    "kinds": ["serving"],
}


# A collection profile 0.32.0 accepts and 0.31.0 refuses (sampling-mask replay with speculative decoding).
SEED = (
    "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
    "--logprobs-mode processed_logprobs "
    '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)


def configuration(i: int, distinct: int, seed: dict) -> tuple[str, str, str, dict, dict]:
    """Profile ``i``'s (kind, pinned version or "" for the fleet, model, engine arguments, environment)."""
    c = i % distinct
    args: dict = {"max_model_len": 2048 + 16 * (c // 6), "max_num_seqs": 64 * (1 + c % 2)}
    version = "" if c % 3 else "0.33.0"
    if i % 100 == 1:
        args["enforce_eager"] = True
    if i % 100 == 2 and not version:
        return "collection", "", seed["model"], {**seed["args"], **args}, seed["env"]
    return "serving", version, MODELS[c % len(MODELS)], args, {}


def load(count: int, distinct: int) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from profiles.models import Profile, ProfileRevision, Team, TeamMembership, VerdictRule
    from profiles.services import parse_arguments
    from profiles.services.verdicts import profile_check
    from validation.models import FleetSettings
    from validation.selectors import release_get, ruleset_current

    User = get_user_model()
    with transaction.atomic():
        Profile.objects.all().delete()
        Team.objects.all().delete()
        User.objects.filter(username__startswith="bench-").delete()
        fleet = release_get(FLEET)
        FleetSettings.objects.update(default_release=fleet)
        staff = User.objects.create_user("bench-staff", "staff@example.com", "pw", is_staff=True)
        owners = [User.objects.create_user(f"bench-owner-{i}", f"o{i}@example.com", "pw") for i in range(50)]
        teams = Team.objects.bulk_create([Team(slug=f"team-{i:02d}", name=f"Team {i}") for i in range(TEAMS)])
        TeamMembership.objects.bulk_create([TeamMembership(team=t, user=staff, role="admin") for t in teams])
        ruleset = ruleset_current()
        seed = parse_arguments(release=fleet, command=SEED)
        checked: dict = {}
        profiles, verdicts = [], []
        for i in range(count):
            kind, version, model, args, env = configuration(i, distinct, seed)
            release = release_get(version) if version else None
            profile = Profile(
                team=teams[i % TEAMS],
                name=f"p-{i:06d}",
                kind=kind,
                owner=owners[i % len(owners)],
                model_name=model,
                vllm_release=release,
                engine_args=args,
                env=env,
            )
            key = (kind, version, model, repr(sorted(args.items())))
            if key not in checked:
                checked[key] = profile_check(profile, fleet=fleet, ruleset=ruleset)
            verdict, used = checked[key]
            for name, value in verdict_summary(verdict).items():
                setattr(profile, name, value)
            profiles.append(profile)
            verdicts.append((verdict, used))
        Profile.objects.bulk_create(profiles, batch_size=5000)
        revisions = [ProfileRevision(profile=p, revision=1, data={}, author=p.owner) for p in profiles]
        ProfileRevision.objects.bulk_create(revisions, batch_size=5000)
        rows, rules = [], []
        for profile, (verdict, used) in zip(profiles, verdicts, strict=True):
            row = verdict_row(profile, verdict, ruleset=ruleset, release=used)
            rows.append(row)
            rules.extend(VerdictRule(profile=profile, rule_id=r) for r in row.rule_ids)
        verdicts_bulk_create(rows)
        VerdictRule.objects.bulk_create(rules, batch_size=5000)
        states = {}
        for verdict, _ in checked.values():
            states[verdict.state] = states.get(verdict.state, 0) + 1
        print(f"  {len(checked)} distinct documents, their states {states}", file=sys.stderr)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


class Workers:
    """``count`` Celery worker processes on the benchmark's database and broker."""

    def __init__(self, count: int, database_url: str, broker_url: str):
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "EMAIL_URL": "dummymail://",
            "VLLM_PROFILES_VAR_DIR": str(ROOT / "var" / "bench-recheck"),
        }
        log_dir = ROOT / "var" / "bench-recheck"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.procs = []
        for n in range(count):
            log = open(log_dir / f"worker-{n}.log", "w")  # noqa: SIM115 - closed with the process
            command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo"]
            command += ["-n", f"bench{n}@%h", "--loglevel=INFO", "--without-gossip", "--without-mingle"]
            self.procs.append(
                subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
            )

    def peak_rss_mb(self) -> list[float]:
        peaks = []
        for proc in self.procs:
            for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) / 1024)
        return peaks

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def wait_done(recheck_id: int, timeout: float = 600) -> None:
    from profiles.models import Recheck

    deadline = time.monotonic() + timeout
    while Recheck.objects.filter(pk=recheck_id).values_list("state", flat=True).first() != "done":
        if time.monotonic() > deadline:
            raise SystemExit(f"re-check {recheck_id} not done after {timeout} s")
        time.sleep(0.05)


def settle(timeout: float = 300) -> None:
    """Wait until the workers have mailed every alert (so the next scenario starts on idle workers)."""
    from profiles.models import Alert

    deadline = time.monotonic() + timeout
    while Alert.objects.filter(state__in=["pending", "sending"]).exists():
        if time.monotonic() > deadline:
            raise SystemExit("alerts still pending")
        time.sleep(0.2)
    time.sleep(1)


def publish(staff, **rule_changes) -> int:
    from validation.selectors import ruleset_current
    from validation.services import rulesets

    draft = rulesets.ruleset_draft_create(actor=staff, based_on=ruleset_current())
    rulesets.rule_save(ruleset=draft, data={**EAGER_RULE, **rule_changes}, actor=staff)
    return rulesets.ruleset_publish(ruleset=draft, actor=staff).pk


def move_fleet(staff, version: str) -> int:
    from validation.selectors import release_get
    from validation.services.fleet import fleet_set_release

    return fleet_set_release(release=release_get(version), actor=staff).pk


def timed(start) -> tuple[float, dict]:
    from profiles.models import Alert, Recheck, VerdictChange

    began = time.perf_counter()
    recheck_id = start()
    wait_done(recheck_id)
    seconds = time.perf_counter() - began
    recheck = Recheck.objects.get(pk=recheck_id)
    facts = {
        "total": recheck.total,
        "changed": VerdictChange.objects.filter(recheck_id=recheck_id).count(),
        "newly_invalid": recheck.newly_invalid,
        "alerts": Alert.objects.filter(recheck_id=recheck_id).count(),
    }
    settle()
    return seconds, facts


def preview_over_api(client, url: str) -> tuple[float, int]:
    from django.core.cache import cache

    cache.clear()
    began = time.perf_counter()
    response = client.get(url)
    first = response.status_code
    while response.status_code == 202:
        time.sleep(0.1)
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return time.perf_counter() - began, first


def report(name: str, runs: list[float], facts: dict | None = None) -> None:
    extra = "  " + " ".join(f"{k}={v}" for k, v in facts.items()) if facts else ""
    print(
        f"{name:44s} median {statistics.median(runs):6.2f} s  min {min(runs):6.2f}  max {max(runs):6.2f}"
        f"  runs {len(runs)}{extra}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profiles", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--only", choices=["recheck", "preview"])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", DEFAULT_BROKER))
    parser.add_argument("--json", metavar="PATH", help="also write the figures there (benchmarks/report.py)")
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    os.environ.setdefault("VLLM_PROFILES_VAR_DIR", str(ROOT / "var" / "bench-recheck"))
    setup_django(args.database_url)

    import redis
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.test import APIClient

    from profiles.models import Profile
    from validation.selectors import fleet_release, ruleset_current

    call_command("migrate", verbosity=0)
    marker = f"fleet v2 {args.profiles}/{args.distinct}"
    loaded = Profile.objects.filter(name="p-000000", team__slug="team-00", description=marker).exists()
    if args.reload or not loaded or Profile.objects.count() != args.profiles:
        began = time.perf_counter()
        print(f"loading {args.profiles} profiles ({args.distinct} configurations) ...", file=sys.stderr)
        load(args.profiles, args.distinct)
        Profile.objects.filter(name="p-000000", team__slug="team-00").update(description=marker)
        print(f"  loaded in {time.perf_counter() - began:.1f} s", file=sys.stderr)
    staff = get_user_model().objects.get(username="bench-staff")
    if fleet_release().version != FLEET:
        move_fleet(staff, FLEET)  # a previous run stopped half-way; its re-check runs on the workers below

    with connection.cursor() as cursor:
        # What autovacuum does between runs in production (earlier runs' updates leave dead rows behind).
        cursor.execute("VACUUM ANALYZE")
    redis.Redis.from_url(args.broker_url).flushdb()
    workers = Workers(args.workers, args.database_url, args.broker_url)
    print(machine(), flush=True)
    print(
        f"{args.profiles} profiles, {args.distinct} configurations, {args.workers} workers, "
        f"rule set {ruleset_current().number}, fleet {fleet_release().version}",
        flush=True,
    )
    figures: dict = {
        "profiles": args.profiles,
        "configurations": args.distinct,
        "workers": args.workers,
        "repeat": args.repeat,
        "rechecks": {},
        "previews": {},
    }
    try:
        time.sleep(3)  # the workers connect
        settle()
        if args.only in (None, "recheck"):
            scenarios = {"publish: 1% become invalid": [], "publish: 1% become valid again": []}
            scenarios |= {
                "publish: no verdict changes": [],
                f"fleet {FLEET} -> {OLD}: 0.7% become invalid": [],
            }
            scenarios[f"fleet {OLD} -> {FLEET}: 0.7% become valid again"] = []
            facts: dict = {}
            steps = [
                (lambda: publish(staff, kinds=["serving"], severity="error")),
                (lambda: publish(staff, kinds=["collection"], severity="error")),
                (lambda: publish(staff, kinds=["collection"], severity="warning")),  # no eager collection
                (lambda: move_fleet(staff, OLD)),
                (lambda: move_fleet(staff, FLEET)),
            ]
            for _ in range(args.repeat):
                for name, step in zip(scenarios, steps, strict=True):
                    seconds, facts[name] = timed(step)
                    scenarios[name].append(seconds)
            for name, runs in scenarios.items():
                report(name, runs, facts[name])
                figures["rechecks"][name] = {
                    "median_s": round(statistics.median(runs), 2),
                    "runs": [round(r, 2) for r in runs],
                }
                figures["rechecks"][name].update(facts[name])
        if args.only in (None, "preview"):
            client = APIClient()
            client.force_authenticate(staff)
            from validation.services import rulesets

            draft = rulesets.ruleset_draft_create(actor=staff, based_on=ruleset_current())
            rulesets.rule_save(ruleset=draft, data={**EAGER_RULE, "kinds": ["serving"]}, actor=staff)
            runs = {"GET rulesets/{id}/impact/ (202, poll, 200)": [], f"GET releases/{OLD}/preview/": []}
            urls = [f"/api/v1/rulesets/{draft.pk}/impact/", f"/api/v1/releases/{OLD}/preview/"]
            first = {}
            for _ in range(args.repeat):
                for name, url in zip(runs, urls, strict=True):
                    seconds, first[name] = preview_over_api(client, url)
                    runs[name].append(seconds)
            draft.delete()
            for name, seconds in runs.items():
                report(name, seconds, {"first answer": first[name]})
                figures["previews"][name] = {
                    "median_s": round(statistics.median(seconds), 2),
                    "runs": [round(s, 2) for s in seconds],
                    "first_answer": first[name],
                }
        peaks = workers.peak_rss_mb()
        print("worker peak RSS (VmHWM): " + ", ".join(f"{p:.0f} MB" for p in peaks), flush=True)
        figures["worker_peak_rss_mb"] = [round(p) for p in peaks]
    finally:
        workers.stop()
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    save_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
