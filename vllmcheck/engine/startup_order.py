"""Where vLLM makes its start-up value checks among the rules' checks (generated: do not edit).

``BEFORE`` maps a start-up value check (``checks.startup_check``: ``argument`` or ``argument.key``) to the id
of the rule before which its finding is reported. vLLM stops at the first problem it meets, so the product's
first error must be the one vLLM names; these places come from vLLM's own first errors on command lines with
two mistakes (benchmarks/conformance/order_from_pairs.py --write, which also writes the rule pack's ORDER). A
check not listed keeps the catalog's place: before every rule.
"""

BEFORE: dict[str, str] = {
    "attention_backend": "async-scheduling-spec-method-0.25",
    "hf_overrides": "spec-num-speculative-tokens-positive",
    "kv_cache_dtype": "dp-external-lb-requires-rank",
    "quantization": "max-model-len-positive",
    "reasoning_parser": "cudagraph-capture-sizes-not-empty",
    "speculative_config": "spec-num-speculative-tokens-positive",
    "speculative_config.method": "numa-bind-lists-require-numa-bind",
}
