"""What the page benchmarks share: Django on a benchmark database of its own, and bulk verdict rows.

The scripts run as ``python benchmarks/<name>.py``; they put the repository on ``sys.path`` and call
:func:`setup_django` before importing anything of the product.
"""

from __future__ import annotations

import os


def setup_django(url: str) -> None:
    """Settings from the environment as in production (DEBUG off), on the database ``url`` (created if new);
    no broker and no mail server are needed."""
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("CELERY_BROKER_URL", "memory://")
    os.environ.setdefault("EMAIL_URL", "memorymail://")
    _create_database(url)
    import django

    django.setup()


def _create_database(url: str) -> None:
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def verdict_summary(verdict) -> dict:
    """The summary a profile row keeps of its verdict (what ``verdict_record`` copies onto the profile)."""
    return {
        "state": verdict.state,
        "error_count": sum(f.severity == "error" for f in verdict.findings),
        "warning_count": sum(f.severity == "warning" for f in verdict.findings),
    }


def verdict_row(profile, verdict, *, ruleset, release):
    """An unsaved stored verdict of ``profile``, as a re-check would have written it, with what it was checked
    against in ``row.check_row`` (for :func:`verdicts_bulk_create`)."""
    from profiles.models import Verdict, VerdictCheck
    from profiles.services.verdicts import findings_digest

    findings = [f.as_dict() for f in verdict.findings]
    row = Verdict(
        profile=profile,
        **verdict_summary(verdict),
        findings=findings,
        findings_sha256=findings_digest(findings),
        rule_ids=sorted({f.rule for f in verdict.findings if f.is_active}),
        profile_revision=1,
    )
    row.check_row = VerdictCheck(
        verdict=row, ruleset=ruleset, release=release, release_catalog_sha256=release.catalog_sha256
    )
    return row


def verdicts_bulk_create(rows) -> None:
    """Insert :func:`verdict_row` rows and their narrow check rows."""
    from profiles.models import Verdict, VerdictCheck

    rows = list(rows)
    Verdict.objects.bulk_create(rows, batch_size=5000)
    VerdictCheck.objects.bulk_create([row.check_row for row in rows], batch_size=5000)


def save_figures(path: str | None, figures: dict) -> None:
    """``--json PATH``: the figures a script printed, as JSON with the command that printed them and when it
    finished; ``make bench`` writes them to var/bench/ and ``benchmarks/report.py write`` makes RESULTS.md."""
    if not path:
        return
    import json
    import sys
    import time

    doc = {
        "command": " ".join(["benchmarks/" + os.path.basename(sys.argv[0]), *sys.argv[1:]]),
        "finished_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "figures": figures,
    }
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def machine() -> str:
    """The machine a figure was measured on: cores, memory, and the load average when it was taken."""
    cores = os.cpu_count()
    memory = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) // 1024 // 1024
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"machine: {cores} cores, {memory} GiB memory, load average {load}"
