"""CI replays real vLLM's recorded verdicts: a change of the product that makes it disagree with vLLM where it
agreed fails here, naming the case, the release, vLLM's message and the product's.

``benchmarks/conformance/run.py --reuse-vllm --sample N --fail-on-new`` runs the product side only (in-process,
on a migrated SQLite database of its own) against ``vllm_verdicts/<release>.json``: every case of a frozen
hold-out set (frozen.yaml) on each of its releases, plus a fixed sample of the other (case, release) pairs.
vLLM is not needed: the stand-in models' files (config.json, tokenizer, the other *.json) are written by
``standins/make_model.py`` into a temporary directory, from which run.py builds the offline Hugging Face
cache the product resolves the models from, as for a full run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "benchmarks" / "conformance"
RUN_PY = CONFORMANCE / "run.py"
# (case, release) pairs replayed besides the frozen cases: about 10 s of product time on top of the ~8 s of
# migrating the database (the whole recorded set, about 13,600 pairs, takes about 50 s on 2 cores).
SAMPLE = 400


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The stand-in model directories, as setup_env.sh writes them for vLLM (no vLLM needed)."""
    out = tmp_path_factory.mktemp("standin-models")
    subprocess.run(
        [sys.executable, str(CONFORMANCE / "standins" / "make_model.py"), str(out)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """One migrated SQLite database for the module's runs (run.py would migrate a fresh one per run)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('conformance-db') / 'db.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return url


def replay(
    tmp_path: Path, models: Path, database: str, *args: str
) -> tuple[subprocess.CompletedProcess, dict, str]:
    env = {**os.environ, "VLLM_CONF_DIR": str(tmp_path / "conf")}  # the product's answers are cached there
    results, figures = tmp_path / "RESULTS.md", tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "--reuse-vllm", "--fail-on-new", "--models-dir", str(models)]
        + ["--database-url", database]
        + ["--results", str(results), "--json", str(figures), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if not figures.exists():
        pytest.fail(f"run.py exited {done.returncode} without its figures:\n{done.stderr[-4000:]}")
    return done, json.loads(figures.read_text()), results.read_text()


def test_the_product_agrees_with_the_recorded_vllm_verdicts_it_agreed_with(tmp_path, models, database):
    done, figures, results = replay(tmp_path, models, database, "--sample", str(SAMPLE))

    new = [
        line for line in done.stderr.splitlines() if line.startswith("NEW disagreement") or line[:3] == "  "
    ]
    assert done.returncode == 0 and figures["unlisted"] == [], (
        "the product now disagrees with real vLLM where known_disagreements.yaml lists no reason:\n"
        + "\n".join(new[-60:])
    )
    replayed = sum(f["pairs"] for f in figures["learnt_from"] + figures["frozen"] if f["release"] == "all")
    frozen = sum(f["pairs"] for f in figures["frozen"] if f["release"] == "all")
    assert replayed == SAMPLE + frozen
    assert figures["frozen_problems"] == []
    # RESULTS.md's first table is the frozen hold-out, the learnt-from files after it
    assert results.index("## Held out: the frozen sets") < results.index(
        "## Learnt from: every other case file"
    )
    assert results.index("## Learnt from") < results.index("## Per release, every case file together")


def test_a_disagreement_missing_from_known_disagreements_fails_and_is_named(tmp_path, models, database):
    known = yaml.safe_load((CONFORMANCE / "known_disagreements.yaml").read_text())
    del known["disagreements"]["fe-chat-template-missing-file"]  # a disagreement the product really has
    (tmp_path / "known.yaml").write_text(yaml.safe_dump(known))

    done, figures, _ = replay(
        tmp_path,
        models,
        database,
        "--only",
        "^fe-chat-template-missing-file$",
        "--releases",
        "0.34.0",
        "--known",
        str(tmp_path / "known.yaml"),
    )

    assert done.returncode == 1
    assert figures["unlisted"] == [{"id": "fe-chat-template-missing-file", "release": "0.34.0"}]
    assert (
        "NEW disagreement (not in known_disagreements.yaml): case fe-chat-template-missing-file"
        in done.stderr
    )
    assert "  vLLM:    refuse (" in done.stderr and "  product: accept" in done.stderr
