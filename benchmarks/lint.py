"""How long users wait for the linters: `vllm-profiles-lint` start-up plus one file, and 100 files in one call
of `vllm-profiles-lint` and of `manage.py lint` (Django and the rule set loaded once for all of them).

Each figure is a real process started as a user or CI would start it, timed from outside (as hyperfine does):
one warm-up run, then ``--runs`` timed runs; the median, mean, spread, min and max are printed. The
project's modules are byte-compiled first, as ``pip install`` does (this environment may set
PYTHONDONTWRITEBYTECODE, which a user's install does not have). The linter's first run with a pack compiles
it in full and keeps it in the user's cache; that cold run is timed and printed on its own. The model's
config.json is read from the local Hugging Face cache only (HF_HUB_OFFLINE=1), so no figure waits for the
network. `manage.py lint` runs on a database of its own (``--database-url``), migrated on first use, and a
Django cache of its own: its first call compiles and plans the rule set and keeps it there (timed and printed
on its own), the later calls load it. Each figure also gives the process's CPU time (user + system), which
depends far less than the wall time on the other jobs of a shared machine.

Run: `python benchmarks/lint.py [--runs 10] [--files 100]`.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import save_figures  # noqa: E402

BIN = Path(sys.executable).parent
RELEASES = ("0.28.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")
ONE_FILE = (
    "# vllm-version: 0.33.0\n"
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --return-sampling-mask\n"
)
FLAGS = [
    "--tensor-parallel-size 2",
    "--max-num-seqs 128",
    "--enforce-eager",
    "--return-sampling-mask --logprobs-mode processed_logprobs",
    "--return-sampling-mask",
    "--kv-cache-dtype fp8",
    "--max-model-len 8192",
    "--gpu-memory-utilization 0.9",
    "--tensor-paralel-size 2",
    """--speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'""",
]


def timed(command: list[str], env: dict[str, str], runs: int, *, warmup: int = 1) -> dict:
    for _ in range(warmup):
        subprocess.run(command, env=env, cwd=ROOT, capture_output=True, check=False)
    times, cpu, codes = [], [], set()
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, check=False)
        times.append((time.perf_counter() - start) * 1e3)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
        codes.add(proc.returncode)
        if proc.returncode not in (0, 1):
            sys.exit(f"{' '.join(command)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return {
        "median_ms": round(statistics.median(times), 1),
        "mean_ms": round(statistics.fmean(times), 1),
        "stdev_ms": round(statistics.stdev(times), 1) if len(times) > 1 else 0.0,
        "min_ms": round(min(times), 1),
        "max_ms": round(max(times), 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
        "runs": runs,
        "exit_codes": sorted(codes),
    }


def show(label: str, figures: dict) -> None:
    print(
        f"{label}: median {figures['median_ms']} ms (mean {figures['mean_ms']} ± {figures['stdev_ms']} ms, "
        f"min {figures['min_ms']}, max {figures['max_ms']}, {figures['runs']} runs, "
        f"exit {figures['exit_codes']}; CPU time (user + system) median {figures['cpu_median_ms']} ms)"
    )


def write_files(directory: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(count):
        release = rng.choice(RELEASES)
        flags = " ".join(rng.sample(FLAGS, k=rng.randint(1, 4)))
        text = f"# vllm-version: {release}\nvllm serve meta-llama/Llama-3.1-8B-Instruct {flags}\n"
        (directory / f"profile-{i:03d}.sh").write_text(text)


def migrate(env: dict[str, str]) -> None:
    import psycopg

    base, name = env["DATABASE_URL"].rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/vllm_profiles_bench_lint"
    )
    parser.add_argument("--skip-manage", action="store_true", help="only the server-free linter")
    parser.add_argument("--json", metavar="PATH", help="also write the figures there (benchmarks/report.py)")
    options = parser.parse_args()

    for package in ("vllmcheck", "validation", "profiles", "hub", "sources", "config"):
        compileall.compile_dir(ROOT / package, quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HF_HUB_OFFLINE"] = "1"
    lint = str(BIN / "vllm-profiles-lint")
    result: dict = {"cores": os.cpu_count()}

    with tempfile.TemporaryDirectory(prefix="bench-lint-") as tmp:
        work = Path(tmp)
        one = work / "serve.sh"
        one.write_text(ONE_FILE)
        many = work / "profiles"
        many.mkdir()
        write_files(many, options.files, options.seed)

        cold_env = {**env, "XDG_CACHE_HOME": str(work / "cold-cache")}
        result["lint_one_file_cold"] = timed([lint, str(one)], cold_env, 1, warmup=0)
        show("vllm-profiles-lint, 1 file, first run (empty cache)", result["lint_one_file_cold"])
        warm_env = {**env, "XDG_CACHE_HOME": str(work / "cache")}
        result["lint_one_file"] = timed([lint, str(one)], warm_env, options.runs)
        show("vllm-profiles-lint start-up + 1 file", result["lint_one_file"])
        result["lint_many_files"] = timed([lint, str(many)], warm_env, max(3, options.runs // 3))
        show(f"vllm-profiles-lint, {options.files} files in one call", result["lint_many_files"])

        if not options.skip_manage:
            manage_env = {
                **env,
                # its own cache: the first call compiles and plans the rule set, the later ones load it
                "CACHE_URL": f"filecache://{work / 'django-cache'}",
                "DATABASE_URL": options.database_url,
                "CELERY_BROKER_URL": env.get("CELERY_BROKER_URL", "memory://"),
                "EMAIL_URL": "memorymail://",
                "DEBUG": "false",
            }
            migrate(manage_env)
            command = [sys.executable, "manage.py", "lint", str(many)]
            result["manage_lint_many_files_cold"] = timed(command, manage_env, 1, warmup=0)
            show(
                f"manage.py lint, {options.files} files, first call (empty cache: compiles and plans)",
                result["manage_lint_many_files_cold"],
            )
            result["manage_lint_many_files"] = timed(command, manage_env, max(3, options.runs // 3))
            show(f"manage.py lint, {options.files} files in one call", result["manage_lint_many_files"])
            result["manage_lint_one_file"] = timed(
                [sys.executable, "manage.py", "lint", str(one)], manage_env, max(3, options.runs // 3)
            )
            show("manage.py lint, 1 file", result["manage_lint_one_file"])
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average {result['load_average']} on {result['cores']} cores")
    print(json.dumps(result))
    save_figures(options.json, result)


if __name__ == "__main__":
    main()
