"""The server-free linter, `manage.py lint` and the API give the same verdict on the same input."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tests.linter.conftest import run_lint

CASES = [
    (
        "0.31.0",
        "collection",
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct "
        "--return-sampling-mask --logprobs-mode processed_logprobs "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'',
    ),
    (
        "0.32.0",
        "collection",
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct "
        "--return-sampling-mask --logprobs-mode processed_logprobs "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'',
    ),
    ("0.33.0", "serving", "vllm serve m --max-num-batched-tokens 128 --max-num-seqs 256"),
    ("0.34.0", "serving", "vllm serve m --tensor-paralel-size 2"),
    ("0.27.1", "serving", "vllm serve m --max-num-partial-prefills 2"),
]


def _ids(findings):
    return sorted((f["rule"], f["severity"], f["message"]) for f in findings)


@pytest.mark.parametrize(("version", "kind", "command"), CASES)
def test_same_findings_from_linter_manage_py_lint_and_api(version, kind, command, api, tmp_path):
    path = tmp_path / "profile.sh"
    path.write_text(command + "\n")
    proc = run_lint("--vllm-version", version, "--kind", kind, "--format", "json", str(path))
    (linted,) = json.loads(proc.stdout)["files"][0]["profiles"]

    out = io.StringIO()
    try:
        call_command("lint", str(path), vllm_version=version, kind=kind, format="json", stdout=out)
        code = 0
    except SystemExit as exc:
        code = exc.code
    managed = json.loads(out.getvalue())

    response = api.post(
        "/api/v1/validate/", {"kind": kind, "vllm_version": version, "command": command}, format="json"
    )
    served = response.json()

    assert _ids(linted["findings"]) == _ids(managed["findings"]) == _ids(served["findings"])
    assert linted["valid"] == managed["valid"] == served["valid"]
    assert proc.returncode == code == (0 if served["valid"] else 1)
