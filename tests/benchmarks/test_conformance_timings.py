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
    assert run.load_vllm_timings("0.34.0", ["a", "b"], run.TIMING_KEY[False])[:2] == (9.5, [110.0, 90.0])
    assert run.load_vllm_timings("0.34.0", ["a", "b"])[:2] == (8.7, [21.0, 30.0])
    assert "import_seconds" not in stored["harness"]  # per run, kept with its times only


def test_results_print_the_ratio_after_import_and_warmed_up(run):
    after = (9.5, 2, 100.0, "2026-12-03 23:00 UTC")
    lines = run.timing_table(
        [
            ("0.34.0", 8.9, 2, 20.0, 2, 0.2, 0.04, "2026-12-03 20:49 UTC", after),
            ("0.33.0", 19.9, 2, 84.0, 2, 0.2, 0.05, "2026-12-03 03:43 UTC", None),
        ],
        ["--reuse-vllm"],
    )
    text = "\n".join(lines)
    assert "| 0.34.0 | 2026-12-03 23:00 UTC | 9.5 | 2 | 100.0 | 0.040 | 2,500 | 0.200 | 500 |" in text
    assert "- product answers 2,500 times faster than vLLM 0.34.0 after its import (500 times faster" in text
    assert "- product answers 1,680 times faster than vLLM 0.33.0 warmed up" in text
    assert "| 0.33.0 | 2026-12-03 03:43 UTC | 19.9 | 2 | 84.0 | 2 | 0.200 | 420 | 0.050 | 1,680 |" in text
