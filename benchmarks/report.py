"""benchmarks/RESULTS.md from the benchmark scripts' own output: `make bench` runs each script through
``report.py run`` and then ``report.py write``; nothing in RESULTS.md is typed by hand.

    python benchmarks/report.py run NAME [--out var/bench] -- COMMAND ...   # run one script, keep its output
    python benchmarks/report.py write [--out var/bench] [--results benchmarks/RESULTS.md]

``run`` runs COMMAND, passes its output through, and keeps in ``OUT/NAME.txt`` what it printed and in
``OUT/NAME.run.json`` the command, when it started and ended, its exit code and the load average before and
after. The scripts write their figures with ``--json OUT/NAME.json`` (benchmarks.common.save_figures).
``write`` makes RESULTS.md from those files: the commit, the machine, the dates and the commands; a table of
issue 12's targets with the figure each script measured (or "not run"); then, per script, what it printed.
The hand-written record of earlier runs, with their analysis, is benchmarks/HISTORY.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "var" / "bench"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
# The scripts `make bench` runs, in its order.
SCRIPTS = ("engine", "lint", "admission", "api", "pages", "pages_validation", "recheck", "conformance")
KEEP_LINES = 150  # of each script's output, in RESULTS.md


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run(name: str, out: Path, command: list[str]) -> int:
    """Run one benchmark script, its output passed through and kept."""
    out.mkdir(parents=True, exist_ok=True)
    record = {"name": name, "command": command, "started_at": now(), "load_before": load_average()}
    began = time.perf_counter()
    with open(out / f"{name}.txt", "w") as kept:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, bufsize=1)
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            kept.write(line)
        code = proc.wait()
    record |= {
        "finished_at": now(),
        "seconds": round(time.perf_counter() - began, 1),
        "exit_code": code,
        "load_after": load_average(),
    }
    (out / f"{name}.run.json").write_text(json.dumps(record, indent=1) + "\n")
    return code


# --------------------------------------------------------------------------------------------------------
# The targets of issue 12, each read from one script's figures


def _get(doc: dict | None, *path, default=None):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return default
        doc = doc[key]
    return doc


def _met(value, limit, below: bool = True) -> str:
    if value is None:
        return "-"
    return "yes" if (value <= limit if below else value >= limit) else "**no**"


def rows_engine(f: dict) -> list[tuple]:
    return [
        (
            "engine, per profile",
            f"median **{f['median_us']} us** (p99 {f['p99_us']} us; CPU median {f['cpu_median_us']} us; "
            f"second pass {f['second_pass_cpu_median_us']} us); {f['profiles']} profiles, {f['rules']} "
            f"rules, {f['releases']} releases; interpreter check {f['python_reference_us']} us",
            "median <= 50 us",
            _met(f["median_us"], 50),
        )
    ]


def rows_lint(f: dict) -> list[tuple]:
    many = _get(f, "manage_lint_many_files", "median_ms")
    cold = _get(f, "manage_lint_many_files_cold", "median_ms")
    return [
        (
            "lint, 100 files",
            f"`manage.py lint` median **{many} ms** (first call {cold} ms); `vllm-profiles-lint` "
            f"{_get(f, 'lint_many_files', 'median_ms')} ms; start-up + 1 file "
            f"{_get(f, 'lint_one_file', 'median_ms')} ms",
            "<= 3 s",
            _met(many if many is not None else _get(f, "lint_many_files", "median_ms"), 3000),
        )
    ]


def rows_admission(f: dict) -> list[tuple]:
    return [
        (
            "admission webhook",
            f"p50 {f['p50_ms']} ms, p99 **{f['p99_ms']} ms** ({f['requests']} requests, "
            f"{f['clients']} client(s))",
            "p99 <= 20 ms",
            _met(f["p99_ms"], 20),
        )
    ]


FLEET = 100_000  # the profiles issue 12's page and re-check targets are set for


def _at_scale(f: dict, met: str) -> str:
    """A target set for 100,000 profiles is not judged on a smaller database."""
    n = f.get("profiles") or 0
    return met if n >= FLEET else f"not judged ({n:,} profiles, the target is for {FLEET:,})"


def rows_pages(f: dict, what: str) -> list[tuple]:
    return [
        (
            what,
            f"slowest median **{f['slowest_median_ms']} ms** ({f['slowest_page']}), {f['profiles']:,} "
            "profiles",
            f"<= {f['target_ms']} ms",
            _at_scale(f, _met(f["slowest_median_ms"], f["target_ms"])),
        )
    ]


def rows_recheck(f: dict) -> list[tuple]:
    rows = []
    limits = {
        "1% become invalid": ("re-check, 1% change", 30),
        "no verdict changes": ("re-check, nothing", 10),
    }
    for name, r in (f.get("rechecks") or {}).items():
        for key, (label, limit) in limits.items():
            if name.endswith(key):
                rows.append(
                    (
                        label,
                        f"median **{r['median_s']} s** ({name})",
                        f"<= {limit} s",
                        _at_scale(f, _met(r["median_s"], limit)),
                    )
                )
        if name.startswith("fleet") and "become invalid" in name:
            rows.append(
                (
                    "fleet release change",
                    f"median **{r['median_s']} s** ({name})",
                    "<= 30 s",
                    _at_scale(f, _met(r["median_s"], 30)),
                )
            )
    for name, r in (f.get("previews") or {}).items():
        rows.append(
            (
                "preview",
                f"median **{r['median_s']} s** ({name})",
                "<= 10 s",
                _at_scale(f, _met(r["median_s"], 10)),
            )
        )
    peaks = f.get("worker_peak_rss_mb")
    if peaks:
        rows.append(
            (
                "worker memory",
                f"peak RSS **{' / '.join(map(str, peaks))} MB**",
                "< 300 MB",
                _at_scale(f, _met(max(peaks), 299)),
            )
        )
    return rows


def rows_conformance(f: dict) -> list[tuple]:
    rows = []
    held = [r for r in f.get("frozen") or [] if r["release"] == "all"]
    for r in held:
        rows.append(
            (
                f"vLLM agreement, **held out** (`{r['file']}`, frozen)",
                f"**{r['agree']}/{r['judged']}** (case, release) pairs; vLLM's message first in "
                f"{r['first']}/{r['first_judged']}",
                "-",
                "-",
            )
        )
    if not held:
        rows.append(
            ("vLLM agreement, held out", "no frozen set yet (benchmarks/conformance/freeze.py)", "-", "-")
        )
    learnt = [r for r in f.get("learnt_from") or [] if r["release"] == "all"]
    agree, judged = sum(r["agree"] for r in learnt), sum(r["judged"] for r in learnt)
    rows.append(
        (
            "vLLM agreement, learnt from (in sample)",
            f"{agree}/{judged} (case, release) pairs over {len(learnt)} case files",
            "-",
            "-",
        )
    )
    for key, label, target in (
        ("warm", "ratio to vLLM warmed up", "-"),
        ("cold", "ratio to vLLM after its import (cold)", ">= 2,000x"),
    ):
        timed = [
            (t["release"], t[key]) for t in f.get("timings") or [] if t.get(key) and t[key].get("engine_ms")
        ]
        if not timed:
            continue
        release, t = max(timed, key=lambda rt: [int(x) for x in rt[0].split(".")])
        engine = t["vllm_ms"] / t["engine_ms"]
        rows.append(
            (
                f"{label}, vLLM {release}",
                f"engine **{engine:,.0f}x** faster, dry run {t['vllm_ms'] / t['product_ms']:,.0f}x (medians "
                f"over the same {t['cases']} cases: vLLM {t['vllm_ms']:.1f} ms measured {t['measured']}, "
                f"engine {t['engine_ms']:.3f} ms)",
                target,
                "-" if target == "-" else _met(engine, 2000, below=False),
            )
        )
    return rows


ROWS = {
    "engine": rows_engine,
    "lint": rows_lint,
    "admission": rows_admission,
    "pages": lambda f: rows_pages(f, "pages"),
    "pages_validation": lambda f: rows_pages(f, "validation pages"),
    "recheck": rows_recheck,
    "conformance": rows_conformance,
}


# --------------------------------------------------------------------------------------------------------
# RESULTS.md


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def machine() -> list[str]:
    cpu, memory = "", 0
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        with open("/proc/meminfo") as f:
            memory = next(int(line.split()[1]) // 1024 // 1024 for line in f if line.startswith("MemTotal:"))
    except (OSError, StopIteration):
        pass
    return [
        f"- Machine: {os.cpu_count()} cores{f' ({cpu})' if cpu else ''}, {memory} GiB memory, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}; PostgreSQL and "
        "Redis on the same machine.",
    ]


def write(out: Path, results: Path) -> str:
    runs = {name: read_json(out / f"{name}.run.json") for name in SCRIPTS}
    figures = {name: read_json(out / f"{name}.json") for name in SCRIPTS}
    ran = [r for r in runs.values() if r]
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    lines = [
        "# Benchmark results",
        "",
        "Generated by `make bench` (`benchmarks/report.py write`) from what each benchmark script printed "
        f"and wrote to `{os.path.relpath(out, ROOT)}/`: do not edit it by hand, run `make bench` (or one "
        "script through `benchmarks/report.py run`, then `report.py write`). The record of earlier runs, "
        "with their analysis, is [HISTORY.md](HISTORY.md).",
        "",
        f"- Commit: `{commit}`" + (" with uncommitted changes" if dirty else ""),
        f"- Date: {min(r['started_at'] for r in ran)} to {max(r['finished_at'] for r in ran)}"
        if ran
        else "- Date: no script has run",
        *machine(),
        "- Load average (1, 5, 15 min) before each script is in its section; figures taken while other work "
        "loads the machine are slower than a quiet host's.",
        "",
        "## Targets (issue 12)",
        "",
        "| what | script | figure | target | met |",
        "|---|---|---|---|---|",
    ]
    for name in SCRIPTS:
        run_record, doc = runs[name], figures[name]
        script = f"`{name}`"
        if run_record is None:
            lines.append(f"| {name} | {script} | not run in this report | | |")
            continue
        if run_record["exit_code"] not in (0, None) and doc is None:
            lines.append(f"| {name} | {script} | exited {run_record['exit_code']}, no figures | | **no** |")
            continue
        rows = ROWS[name](doc.get("figures", doc)) if doc is not None and name in ROWS else []
        if not rows:
            lines.append(f"| {name} | {script} | printed only (below), no figures file | | |")
        for what, figure, target, met in rows:
            lines.append(f"| {what} | {script} | {figure} | {target} | {met} |")
    lines += ["", "## What each script printed", ""]
    for name in SCRIPTS:
        run_record = runs[name]
        if run_record is None:
            continue
        command = " ".join(
            os.path.relpath(a, ROOT) if a.startswith(str(ROOT)) else a for a in run_record["command"]
        ).replace(sys.executable, ".venv/bin/python")
        printed = (out / f"{name}.txt").read_text() if (out / f"{name}.txt").exists() else ""
        shown = [
            line for line in printed.splitlines() if not line.startswith("{")
        ]  # the JSON line: in the file
        if len(shown) > KEEP_LINES:
            shown = [f"... ({len(shown) - KEEP_LINES} lines before)", *shown[-KEEP_LINES:]]
        lines += [
            f"### {name}",
            "",
            f"`{command}`: {run_record['started_at']} to {run_record['finished_at']} "
            f"({run_record['seconds']} s), exit {run_record['exit_code']}, load average "
            f"{' '.join(map(str, run_record['load_before']))} before, "
            f"{' '.join(map(str, run_record['load_after']))} after.",
            "",
            "```",
            *shown,
            "```",
            "",
        ]
    text = "\n".join(lines)
    results.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True)
    r = sub.add_parser("run", help="run one benchmark script and keep its output: run NAME -- COMMAND ...")
    r.add_argument("name", choices=SCRIPTS)
    r.add_argument("--out", type=Path, default=OUT)

    w = sub.add_parser("write", help="write RESULTS.md from the kept output")
    w.add_argument("--out", type=Path, default=OUT)
    w.add_argument("--results", type=Path, default=RESULTS)
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[argv.index("--") + 1 :] if "--" in argv else []
    opts = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if opts.action == "run":
        if not command:
            ap.error("run NAME -- COMMAND: the command is missing")
        return run(opts.name, opts.out, command)
    write(opts.out, opts.results)
    print(f"wrote {opts.results} from {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
