"""benchmarks/RESULTS.md is written by `make bench` from the scripts' own output (benchmarks/report.py), never
by hand: what a script printed and the figures it wrote reach the report with its command, the commit and the
machine; a script that failed or did not run says so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "benchmarks" / "report.py"

# A stand-in for benchmarks/engine.py: prints its figure and writes it as the real scripts do (--json).
FAKE_ENGINE = """
import sys
sys.path.insert(0, {root!r})
from benchmarks.common import save_figures
figures = {{"median_us": 61.5, "p99_us": 400.0, "cpu_median_us": 60.0, "second_pass_cpu_median_us": 20.0,
            "profiles": 5000, "rules": 350, "releases": 20, "python_reference_us": 9.0}}
print("engine: median 61.5 us per profile")
print('{{"median_us": 61.5}}')
save_figures(sys.argv[1], figures)
"""


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPORT), *args], cwd=ROOT, capture_output=True, text=True)


def test_results_are_written_from_what_the_scripts_printed_and_wrote(tmp_path):
    out, results, script = tmp_path / "bench", tmp_path / "RESULTS.md", tmp_path / "engine.py"
    script.write_text(FAKE_ENGINE.format(root=str(ROOT)))
    engine = report(
        "run", "engine", "--out", str(out), "--", sys.executable, str(script), str(out / "engine.json")
    )
    failed = report("run", "lint", "--out", str(out), "--", sys.executable, "-c", "print('half'); exit(3)")
    written = report("write", "--out", str(out), "--results", str(results))

    assert engine.returncode == 0 and "engine: median 61.5 us per profile" in engine.stdout  # passed through
    assert failed.returncode == 3  # make bench stops where a script fails
    assert written.returncode == 0, written.stderr
    assert json.loads((out / "engine.json").read_text())["figures"]["median_us"] == 61.5
    text = results.read_text()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    assert f"- Commit: `{commit.stdout.strip()}`" in text
    assert "- Machine: " in text and " cores" in text
    # the target table: the figure the script wrote, judged against issue 12's target
    assert "| engine, per profile | `engine` | median **61.5 us** (p99 400.0 us;" in text
    assert "| median <= 50 us | **no** |" in text
    assert "| lint | `lint` | exited 3, no figures | | **no** |" in text
    assert "| recheck | `recheck` | not run in this report | | |" in text
    # each script's section: its command and what it printed (the JSON line stays in the figures file)
    section = text.split("### engine", 1)[1].split("### lint", 1)[0]
    assert f"engine.py {out / 'engine.json'}`: " in section and "exit 0, load average" in section
    assert "engine: median 61.5 us per profile" in section and '{"median_us"' not in section
    assert "half" in text.split("### lint", 1)[1]
