"""`vllm-profiles-lint --hardware gpu=L4`: the memory verdict in the text and JSON reports."""

from __future__ import annotations

import json

from tests.engine.test_memory import LLAMA_8B

from .conftest import run_lint


def test_llama_8b_refused_on_an_l4_and_started_on_an_h100(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_8B))
    (tmp_path / "serve.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct\n")
    common = ["--vllm-version", "0.34.0", "--model-config", str(tmp_path / "config.json")]
    l4 = run_lint(
        *common,
        "--hardware",
        "gpu=L4",
        "--hardware",
        "gpus_per_node=1",
        "--format",
        "json",
        str(tmp_path / "serve.sh"),
    )
    assert l4.returncode == 1, l4.stderr
    (profile,) = json.loads(l4.stdout)["files"][0]["profiles"]
    refused = [f for f in profile["findings"] if f["rule"] == "memory-refused"]
    assert refused and refused[0]["message"].startswith(
        "To serve at least one request with the model's max seq len (131072)"
    )
    assert "the estimated maximum model length is" in refused[0]["message"]
    memory = profile["memory"]
    assert memory["verdict"] == "refuses" and memory["gib"]["total"] == 22.03
    assert memory["kv_tokens_low"] <= memory["kv_tokens"] <= memory["kv_tokens_high"]

    h100 = run_lint(
        *common, "--hardware", "gpu=H100-80GB", "--hardware", "gpus_per_node=1", str(tmp_path / "serve.sh")
    )
    assert h100.returncode == 0, h100.stdout + h100.stderr
    assert "memory-kv-cache: predicted GPU KV cache size:" in h100.stdout
