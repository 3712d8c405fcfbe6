"""The conformance harness keeps vLLM's time per configuration two ways (after its import only, and warmed
up): a run of one way must not lose the other's times, and RESULTS.md must print both ratios."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

RUN_PY = Path(__file__).resolve().parents[2] / "benchmarks" / "conformance" / "run.py"


@pytest.fixture
def run(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("conformance_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "VERDICT_DIR", str(tmp_path))
    return module


def vllm_doc(ms: dict[str, float], import_s: float) -> dict:
    return {
        "vllm_version": "0.34.0",
        "harness": {"isolation": "fork per case", "import_seconds": import_s},
        "verdicts": [{"id": i, "ok": True} for i in ms],
        "raw_verdicts": [{"id": i, "elapsed_ms": t} for i, t in ms.items()],
    }


def test_each_way_of_timing_vllm_keeps_the_others_times(run, tmp_path):
    run.save_vllm("0.34.0", vllm_doc({"a": 20.0, "b": 30.0}, 8.9))
    run.save_vllm("0.34.0", vllm_doc({"a": 110.0, "b": 90.0}, 9.5), run.TIMING_KEY[False])
    run.save_vllm("0.34.0", vllm_doc({"a": 21.0}, 8.7))  # a partial warm run re-times only its case

    stored = json.loads((tmp_path / "0.34.0.json").read_text())
    assert stored["timings"]["elapsed_ms"] == {"a": 21.0, "b": 30.0}
    assert stored["timings_after_import"]["elapsed_ms"] == {"a": 110.0, "b": 90.0}
    assert run.load_vllm_timings("0.34.0", run.TIMING_KEY[False])[:2] == (9.5, {"a": 110.0, "b": 90.0})
    assert run.load_vllm_timings("0.34.0")[:2] == (8.7, {"a": 21.0, "b": 30.0})
    assert "import_seconds" not in stored["harness"]  # per run, kept with its times only


def test_both_sides_medians_are_taken_over_the_same_cases(run):
    # vLLM was timed on a, b, c (c from an older run of a case no longer run); the product on a, b, d
    vllm = {"a": 10.0, "b": 30.0, "c": 1000.0}
    product = {"a": 0.1, "b": 0.3, "d": 0.001}
    engine = {"a": 0.01, "b": 0.03, "d": 0.0001}

    t = run.same_case_medians(["a", "b", "d"], vllm, product, engine, 8.0, "then")
    assert t == {
        "cases": 2,
        "vllm_ms": 20.0,
        "product_ms": 0.2,
        "engine_ms": 0.02,
        "import_s": 8.0,
        "measured": "then",
    }
    assert run.same_case_medians(["d"], vllm, product, engine, 8.0, "then") is None


def test_results_print_the_warm_ratio_first_then_the_cold_one_over_the_same_cases(run):
    warm = {
        "cases": 2,
        "vllm_ms": 20.0,
        "product_ms": 0.2,
        "engine_ms": 0.04,
        "import_s": 8.9,
        "measured": "w",
    }
    cold = {
        "cases": 2,
        "vllm_ms": 100.0,
        "product_ms": 0.2,
        "engine_ms": 0.04,
        "import_s": 9.5,
        "measured": "c",
    }
    text = "\n".join(
        run.timing_table(
            [
                {"release": "0.34.0", "warm": warm, "cold": cold},
                {"release": "0.33.0", "warm": {**warm, "vllm_ms": 84.0, "engine_ms": 0.05}, "cold": None},
                {"release": "0.32.0", "warm": None, "cold": None},
            ],
            ["--reuse-vllm"],
        )
    )
    assert "**both taken over the same case ids**" in text
    assert text.index("### vLLM warmed up") < text.index("### vLLM after its import only (cold)")
    assert "| 0.34.0 | w | 8.9 | 2 | 20.0 | 0.200 | 100 | 0.040 | 500 |" in text
    assert "| 0.34.0 | c | 9.5 | 2 | 100.0 | 0.200 | 500 | 0.040 | 2,500 |" in text
    assert "| 0.33.0 | w | 8.9 | 2 | 84.0 | 0.200 | 420 | 0.050 | 1,680 |" in text
    assert "- vLLM 0.34.0 warmed up: the engine answers 500 times faster, the whole dry run 100 times" in text
    assert "- vLLM 0.34.0 after its import only (cold): the engine answers 2,500 times faster" in text
    assert "No vLLM time per case is recorded for 0.32.0" in text


def record(case_id, file, release, agree="yes", first=None, unlisted=False):
    return {
        "id": case_id,
        "file": file,
        "release": release,
        "agree": agree,
        "first": first,
        "unlisted": unlisted,
    }


def test_results_report_the_frozen_sets_first_and_apart_from_the_learnt_from_files(run):
    records = [
        record("rw-1", "realworld.yaml", "0.34.0", first=True),
        record("rw-2", "realworld.yaml", "0.34.0", agree="no", unlisted=True),
        record("rw-1", "realworld.yaml", "0.33.0", first=False),
        record("eng-1", "engine.yaml", "0.34.0"),
    ]
    manifest = {
        "realworld": {"file": "cases/realworld.yaml", "commit": "0123456789abcdef", "frozen_on": "today"}
    }

    frozen = "\n".join(run.frozen_section(records, manifest, [], []))
    learnt = "\n".join(run.learnt_section(records, {"realworld.yaml"}))

    assert frozen.startswith("## Held out: the frozen sets, never learnt from")
    assert (
        "| `realworld.yaml` | `0123456789` (today) | 0.33.0 | 1 | 1/1 (100.0%) | 0/1 (0.0%) | 0 |" in frozen
    )
    assert (
        "| `realworld.yaml` | `0123456789` (today) | 0.34.0 | 2 | 1/2 (50.0%) | 1/1 (100.0%) | 1 |" in frozen
    )
    assert "| **all releases** | 2 | 2/3 (66.7%) | 1/2 (50.0%) | 1 |" in frozen
    assert learnt.startswith("## Learnt from: every other case file")
    assert "realworld" not in learnt.split("| case file (learnt from)")[1]
    assert "| `engine.yaml` | 0.34.0 | 1 | 1 | 1/1 (100.0%) | - | 0 |" in learnt

    changed = "\n".join(
        run.frozen_section(records, manifest, ["realworld: cases/realworld.yaml changed"], [])
    )
    assert "**These sets are not held out any more**" in changed
    assert "No set is frozen yet" in "\n".join(run.frozen_section(records, {}, [], []))


def test_the_replayed_slice_is_every_frozen_case_and_a_fixed_sample_of_the_others(run):
    cases = [
        {"id": "rw-1", "file": "realworld.yaml", "releases": ["0.33.0", "0.34.0"]},
        *({"id": f"eng-{i}", "file": "engine.yaml", "releases": ["0.33.0", "0.34.0"]} for i in range(50)),
    ]
    chosen = run.sample_pairs(cases, {"0.33.0", "0.34.0"}, 10, {"realworld.yaml"})
    assert {("rw-1", "0.33.0"), ("rw-1", "0.34.0")} <= chosen
    assert len(chosen) == 12
    assert run.sample_pairs(list(reversed(cases)), {"0.33.0", "0.34.0"}, 10, {"realworld.yaml"}) == chosen
    assert run.sample_pairs(cases, {"0.34.0"}, 10, {"realworld.yaml"}) <= {(c["id"], "0.34.0") for c in cases}
