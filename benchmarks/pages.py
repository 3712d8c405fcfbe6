"""Server-side median render time of each profiles page against a PostgreSQL database of 100,000 profiles.

    python benchmarks/pages.py [--profiles 100000] [--repeat 15] [--reload] [--database-url URL]

The database (``vllm_profiles_bench_pages`` on the local PostgreSQL, or ``--database-url``) is created,
migrated and filled on first use and reused afterwards (``--reload`` refills it). Profiles are bulk-inserted
as tests/tasks/test_pipeline.py::bulk_profiles does: a few distinct argument sets (valid, warning, invalid;
pinned and fleet-following), each validated once by the engine, with the verdict stored for every profile.
Pages are fetched in-process with Django's test client as a staff user (who sees every profile) and as a
team member: one warm-up, then ``--repeat`` timed requests; the median, the worst, the query count and the
median CPU time of the request in this process (Django's side; the database's is not in it) are printed,
with the machine's load average. The rule-set page lists every rule of the current rule set (collapsed; a
rule's body loads when its row opens, timed as "rule body"). Target: under 150 ms each.
"""

from __future__ import annotations

import argparse
import os
import statistics
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

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/vllm_profiles_bench_pages"
TARGET_MS = 150
TEAMS = 20
SEED = (
    "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
    "--logprobs-mode processed_logprobs "
    '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)
# (kind, pinned version or "" for the fleet, command): each validated once, stored for many profiles.
VARIANTS = [
    ("serving", "", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"),
    ("serving", "0.32.0", "vllm serve Qwen/Qwen2.5-7B-Instruct -tp 2 --enable-prefix-caching"),
    ("collection", "0.32.0", SEED),
    ("collection", "0.31.0", SEED),  # refused by 0.31.0: stored as an invalid verdict (as after a re-check)
    ("serving", "", "vllm serve mistralai/Mistral-7B-Instruct-v0.3 --enforce-eager --max-num-seqs 64"),
    (
        "collection",
        "",
        SEED.replace(" --speculative-config", " --max-model-len 4096 --x-spec").split(" --x-spec")[0],
    ),
]


def load(count: int) -> None:
    """Replace the benchmark's profiles with ``count`` of them, each a copy of one validated variant."""
    from django.db import connection, transaction

    from profiles.models import Profile, Team

    with transaction.atomic():
        Profile.objects.all().delete()
        Team.objects.all().delete()
        teams, owners = _teams_and_users()
        variants = _validated_variants()
        profiles = _bulk_profiles(count, variants, teams, owners)
        _bulk_verdicts(profiles, variants)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # what autovacuum does in production: index-only counts work


def _teams_and_users():
    """TEAMS teams, 50 owners, a staff user in every team and a member (admin) of the first."""
    from django.contrib.auth import get_user_model

    from profiles.models import Team, TeamMembership

    User = get_user_model()
    User.objects.filter(username__startswith="bench-").delete()
    staff = User.objects.create_user("bench-staff", "staff@example.com", "pw", is_staff=True)
    member = User.objects.create_user("bench-member", "member@example.com", "pw")
    owners = [User.objects.create_user(f"bench-owner-{i}", f"o{i}@example.com", "pw") for i in range(50)]
    teams = Team.objects.bulk_create([Team(slug=f"team-{i:02d}", name=f"Team {i}") for i in range(TEAMS)])
    TeamMembership.objects.bulk_create(
        [TeamMembership(team=teams[0], user=member, role="admin")]
        + [TeamMembership(team=t, user=staff, role="admin") for t in teams]
    )
    return teams, owners


def _validated_variants():
    """Each of VARIANTS as an unsaved profile, with its verdict and the release it was checked on."""
    from profiles.models import Profile
    from profiles.services import parse_arguments
    from profiles.services.verdicts import profile_check
    from validation.selectors import fleet_release, release_get, ruleset_current

    fleet, ruleset = fleet_release(), ruleset_current()
    variants = []
    for kind, version, command in VARIANTS:
        release = release_get(version) if version else fleet
        parsed = parse_arguments(release=release, command=command)
        probe = Profile(kind=kind, model_name=parsed["model"], engine_args=parsed["args"], env=parsed["env"])
        probe.vllm_release = release if version else None
        verdict, used = profile_check(probe, fleet=fleet, ruleset=ruleset)
        variants.append((probe, verdict, used))
        print(f"  variant {kind:10s} {version or 'fleet':6s} -> {verdict.state}", file=sys.stderr)
    return variants


def _bulk_profiles(count: int, variants, teams, owners):
    from profiles.models import Profile, ProfileRevision

    profiles = []
    for i in range(count):
        probe, verdict, _ = variants[i % len(variants)]
        profiles.append(
            Profile(
                team=teams[i % TEAMS],
                name=f"{probe.kind[:4]}-{i:06d}",
                kind=probe.kind,
                owner=owners[i % len(owners)],
                model_name=probe.model_name,
                vllm_release=probe.vllm_release,
                engine_args=probe.engine_args,
                env=probe.env,
                **verdict_summary(verdict),
            )
        )
    Profile.objects.bulk_create(profiles, batch_size=5000)
    ProfileRevision.objects.bulk_create(
        [ProfileRevision(profile=p, revision=1, data={}, author=p.owner) for p in profiles], batch_size=5000
    )
    return profiles


def _bulk_verdicts(profiles, variants) -> None:
    """Each profile's stored verdict (its variant's) and the rule index the list's rule filter reads."""
    from profiles.models import VerdictRule
    from validation.selectors import ruleset_current

    ruleset = ruleset_current()
    rows, rules = [], []
    for i, profile in enumerate(profiles):
        _, verdict, used = variants[i % len(variants)]
        row = verdict_row(profile, verdict, ruleset=ruleset, release=used)
        rows.append(row)
        rules.extend(VerdictRule(profile=profile, rule_id=rule_id) for rule_id in row.rule_ids)
    verdicts_bulk_create(rows)
    VerdictRule.objects.bulk_create(rules, batch_size=5000)


def time_page(
    client, method: str, url: str, data: dict | None, repeat: int
) -> tuple[float, float, int, float]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def fetch():
        response = client.post(url, data) if method == "POST" else client.get(url, data or {}, **headers)
        assert response.status_code in (200, 302), (url, response.status_code)
        return response

    headers = {}
    if data and data.pop("_htmx", False):
        headers = {"headers": {"HX-Request": "true"}}
    fetch()
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fetch()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    with CaptureQueriesContext(connection) as queries:
        fetch()
    return statistics.median(times), max(times), len(queries), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profiles", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--json", metavar="PATH", help="also write the figures there (benchmarks/report.py)")
    args = parser.parse_args()
    setup_django(args.database_url)

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from profiles.models import Profile

    call_command("migrate", verbosity=0)
    if args.reload or Profile.objects.count() != args.profiles:
        started = time.perf_counter()
        print(f"loading {args.profiles} profiles ...", file=sys.stderr)
        load(args.profiles)
        print(f"  loaded in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    from validation.selectors import ruleset_current

    User = get_user_model()
    current = ruleset_current()
    rule_count = current.rules.count()
    ruleset_url = f"/rulesets/{current.number}/"
    mixed = Profile.objects.filter(kind="collection", vllm_release__version="0.32.0").order_by("id").first()
    invalid = Profile.objects.filter(state="invalid").order_by("id").first()
    rule = invalid.verdict.rule_ids[0]
    deep_page = args.profiles // 50 // 2
    pages = [
        ("list (first page)", "GET", "/", None),
        ("list, htmx fragment", "GET", "/", {"_htmx": True, "q": "coll"}),
        (f"list page {deep_page}", "GET", "/", {"page": deep_page}),
        ("list, state=invalid", "GET", "/", {"state": "invalid"}),
        ("list, rule filter", "GET", "/", {"rule": rule}),
        ("list, search", "GET", "/", {"q": "0099"}),
        ("list, kind+team+release", "GET", "/", {"kind": "serving", "team": "team-03", "release": "fleet"}),
        ("list, sort recently updated", "GET", "/", {"sort": "-updated"}),
        ("list, sort most errors", "GET", "/", {"sort": "-errors"}),
        ("profile page", "GET", f"/profiles/{mixed.pk}/", None),
        ("profile page (invalid)", "GET", f"/profiles/{invalid.pk}/", None),
        ("edit form", "GET", f"/profiles/{mixed.pk}/edit/", None),
        ("new profile form", "GET", "/profiles/new/", None),
        ("live validation", "POST", "/profiles/validate/", {"kind": "collection", "source": SEED}),
        ("fix preview", "GET", f"/profiles/{invalid.pk}/fix/{rule}/", None),
        ("split preview", "GET", f"/profiles/{mixed.pk}/split/", None),
        ("profiles by state over time (30 days)", "GET", "/profiles/states/", None),
        # Every rule of the current rule set, collapsed (a rule's body loads when its row opens).
        (f"rule-set page ({rule_count} rules)", "GET", ruleset_url, None),
        ("rule-set page, filtered", "GET", ruleset_url, {"q": "spec", "severity": "error"}),
        ("rule body (a row opened)", "GET", f"{ruleset_url}rules/{rule}/body/", {"_htmx": True}),
    ]
    total = Profile.objects.count()
    print(machine())
    print(f"{total} profiles, {args.repeat} timed requests per page after one warm-up; target {TARGET_MS} ms")
    print(f"{'page':40s} {'user':7s} {'median ms':>10s} {'max ms':>8s} {'queries':>8s} {'CPU ms':>7s}")
    slow, timed_pages = 0, []
    for username, label in (("bench-staff", "staff"), ("bench-member", "member")):
        client = Client()
        client.force_login(User.objects.get(username=username))
        for name, method, url, data in pages:
            if label == "member" and not name.startswith("list"):
                continue
            median, worst, queries, cpu = time_page(client, method, url, dict(data or {}), args.repeat)
            flag = "" if median < TARGET_MS else "  SLOW"
            slow += median >= TARGET_MS
            print(f"{name:40s} {label:7s} {median:10.1f} {worst:8.1f} {queries:8d} {cpu:7.1f}{flag}")
            timed_pages.append(
                {
                    "page": name,
                    "user": label,
                    "median_ms": round(median, 1),
                    "max_ms": round(worst, 1),
                    "queries": queries,
                    "cpu_ms": round(cpu, 1),
                }
            )
    slowest = max(timed_pages, key=lambda p: p["median_ms"])
    save_figures(
        args.json,
        {
            "profiles": total,
            "repeat": args.repeat,
            "target_ms": TARGET_MS,
            "slowest_median_ms": slowest["median_ms"],
            "slowest_page": f"{slowest['page']} ({slowest['user']})",
            "slow_pages": slow,
            "pages": timed_pages,
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
    )
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
