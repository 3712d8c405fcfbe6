"""Which check fires first: vLLM stops at its first problem, so the product's FIRST error must be the one vLLM
reports; the other findings are kept after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MRV2_MESSAGE, SEED_MESSAGE_031
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.lint import build_document, validate
from vllmcheck.engine.parse import parse_command
from vllmcheck.engine.rules import compile_ruleset, load_pack

ROOT = Path(__file__).resolve().parents[2]
# The seed profile without the V2 env: vLLM keeps Model Runner V1 for ngram speculative decoding up to 0.31.0.
SEED_WITHOUT_V2_ENV = (
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask --logprobs-mode processed_logprobs "
    '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)


@pytest.fixture(scope="module")
def ruleset():
    return compile_ruleset(load_pack(ROOT / "vllmcheck" / "rulepacks" / "builtin.yaml"))


def errors(ruleset, command, version, kind="collection"):
    catalog = Catalog.load(ROOT / "vllmcheck" / "catalogs" / f"{version}.json")
    parsed = parse_command(command, catalog=catalog)
    doc = build_document(
        kind=kind, version=version, model_name=parsed.get("model"), args=parsed["args"], env=parsed.get("env")
    )
    verdict = validate(doc, ruleset=ruleset, catalog=catalog)
    return [f for f in verdict.findings if f.severity == "error"]


@pytest.mark.parametrize("version", ["0.29.0", "0.30.0", "0.31.0"])
def test_seed_without_v2_env_first_error_is_the_one_vllm_raises(ruleset, version):
    """vLLM 0.29.0-0.31.0, VllmConfig._verify_sampling_replay_config (vllm/config/vllm.py, 0.31.0 line 1262):

        if not self.use_v2_model_runner:
            raise ValueError("sampling distribution replay requires Model Runner V2")
        if self.speculative_config is not None:
            raise ValueError("sampling distribution replay does not support speculative decoding")

    ngram speculative decoding keeps vLLM on Model Runner V1 when VLLM_USE_V2_MODEL_RUNNER is not set, so both
    checks would fail and vLLM reports the Model Runner V2 one.
    """
    found = errors(ruleset, SEED_WITHOUT_V2_ENV, version)
    assert found[0].message == MRV2_MESSAGE
    assert SEED_MESSAGE_031 in [f.message for f in found[1:]]  # the other finding is kept, after it


def test_with_v2_forced_the_speculative_check_is_first_and_no_v2_feature_error_precedes_it(ruleset):
    """With VLLM_USE_V2_MODEL_RUNNER=1, __post_init__ runs _verify_sampling_replay_config (0.31.0 line 1461)
    before _validate_v2_model_runner (line 2052), so vLLM reports the speculative-decoding message."""
    found = errors(ruleset, "VLLM_USE_V2_MODEL_RUNNER=1 " + SEED_WITHOUT_V2_ENV, "0.31.0")
    assert found[0].message == SEED_MESSAGE_031


def test_command_line_errors_come_before_config_checks(ruleset):
    """argparse refuses an unknown argument before vLLM builds any config."""
    found = errors(ruleset, SEED_WITHOUT_V2_ENV + " --tensor-paralel-size 2", "0.31.0")
    assert found[0].category == "catalog" and found[0].rule == "catalog-unknown-argument"
    assert found[1].message == MRV2_MESSAGE


# vLLM's own first error on command lines with two mistakes (benchmarks/conformance/cases/pairs*.yaml, vLLM's
# verdicts recorded in benchmarks/conformance/vllm_verdicts/): the first line's is the one vLLM names.
RECORDED_FIRST_ERRORS = [
    (
        "0.34.0",
        "VLLM_MARLIN_INPUT_DTYPE=int8 vllm serve meta-llama/Llama-3.1-8B-Instruct "
        '--speculative-config \'{"method": "n-gram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}\'',
        "VLLM_MARLIN_INPUT_DTYPE has been removed.",
        "Unknown speculative method 'n-gram'.",
    ),
    (
        "0.34.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --sse-keep-alive-interval -1 "
        '--speculative-config \'{"method": "lookahead", "num_speculative_tokens": 3}\'',
        "Error: --sse-keep-alive-interval must be a non-negative integer",
        "Unknown speculative method 'lookahead'.",
    ),
    (
        "0.34.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype int4 "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "parallel_drafting": true}\'',
        "Invalid kv_cache_dtype: 'int4'.",
        "parallel_drafting is only supported by the dflash and dspark methods",
    ),
    (
        "0.27.1",
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --reasoning-parser telepathy "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'',
        "Model Runner V2 does not yet support: ngram/ngram_gpu speculative decoding",
        "Reasoning parser 'telepathy' not found.",
    ),
    (
        "0.27.1",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-cudagraph-capture-size 256 "
        "--compilation-config '{\"max_cudagraph_capture_size\": 512}' --quantization int3",
        "Unknown quantization method: int3.",
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size",
    ),
    (
        "0.27.1",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 4 -dcp 3 --speculative-config.num_speculative_tokens 2 "
        "--spec-tokens 3",
        "tp_size=4 must be divisible by dcp_size=3.",
        "--spec-tokens and --speculative-config['num_speculative_tokens'] are mutually exclusive",
    ),
]


@pytest.mark.parametrize(("version", "command", "first", "later"), RECORDED_FIRST_ERRORS)
def test_the_first_error_is_the_one_vllm_names_of_two(ruleset, version, command, first, later):
    """A start-up value check (an unknown speculative method, kv-cache dtype, quantization method or reasoning
    parser) is reported where vLLM makes it, among the rules' checks; a speculative shorthand given both ways
    is reported by its rule, where vLLM builds the speculative config; both other findings are kept."""
    found = [f.message for f in errors(ruleset, command, version, kind="serving")]
    assert found[0].startswith(first), found
    assert any(later in message for message in found[1:]), found
