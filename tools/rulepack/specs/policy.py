"""The organisation's policies (category policy): not vLLM checks."""

from tools.rulepack.expr import HAS_SPEC
from tools.rulepack.profiles import NGRAM, RSM_ARGS

RULES = [
    dict(
        id="policy-collection-nothing-replayable",
        category="policy",
        severity="warning",
        message=(
            "collection profile returns neither sampling masks nor processed logprobs, "
            "so it collects nothing replayable"
        ),
        when=(
            'kind == "collection" && !(has(effective.return_sampling_mask) && '
            "effective.return_sampling_mask == true) "
            '&& effective.logprobs_mode != "processed_logprobs"'
        ),
        kinds=["collection"],
        fields=["return_sampling_mask", "logprobs_mode"],
        solutions=[
            "Add --return-sampling-mask --logprobs-mode processed_logprobs (vLLM 0.28.0 or later)",
            "At least add --logprobs-mode processed_logprobs",
            "If the profile is not for data collection, make it a serving profile",
        ],
        example_fix=(
            "# before\nvllm serve model\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy: a data-collection deployment exists to record replayable sampling data: "
            "sampling masks (return_sampling_mask, vLLM 0.28.0+) or logprobs normalized over the sampled "
            "nucleus (logprobs_mode=processed_logprobs). vLLM's default raw_logprobs are neither."
        ),
        fix={"set": {"logprobs_mode": "processed_logprobs"}},
        tags=["policy", "sampling", "collection"],
    ),
    dict(
        id="policy-serving-returns-sampling-mask",
        category="policy",
        severity="warning",
        message=(
            "serving profile returns sampling masks: production traffic pays for collection; "
            "split collection into its own profile"
        ),
        when='kind == "serving" && effective.return_sampling_mask == true',
        versions=">=0.28.0",
        kinds=["serving"],
        fields=["return_sampling_mask"],
        solutions=[
            "Remove --return-sampling-mask from the serving profile",
            "Create a separate collection profile (kind: collection) that returns sampling masks",
        ],
        example_fix=(
            "# serving profile\nvllm serve model\n# collection profile\n"
            "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --return-sampling-mask "
            "--logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy: returning sampling masks forces Model Runner V2, processed logprobs and no "
            "custom logits processors, and adds per-token output; serving instances should not carry "
            "collection overhead. Split serving and collection into separate deployment profiles."
        ),
        fix={"unset": ["return_sampling_mask"]},
        tags=["policy", "sampling", "serving"],
    ),
    dict(
        id="policy-collection-no-speculative",
        category="policy",
        severity="warning",
        message=(
            "collection profile uses speculative decoding; keep data-collection instances free of "
            "speculative decoding"
        ),
        when=f'kind == "collection" && {HAS_SPEC}',
        kinds=["collection"],
        fields=["speculative_config"],
        solutions=[
            "Remove --speculative-config from the collection profile",
            "Use a separate serving profile for speculative decoding",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3}\'\n'
            "# after\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy, from the prevention advice of vLLM's sampling-replay error record: keep "
            "data-collection (mask-returning) instances free of speculative decoding, even on releases "
            "(0.32.0+) where vLLM accepts it with fixed verification boundaries."
        ),
        fix={"unset": ["speculative_config"]},
        tags=["policy", "speculative-decoding", "collection"],
    ),
]

CASES = {
    "policy-collection-nothing-replayable": (
        dict(args={}, kind="collection"),
        dict(args={"logprobs_mode": "processed_logprobs"}, kind="collection"),
    ),
    "policy-serving-returns-sampling-mask": (
        dict(args=RSM_ARGS, kind="serving", env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        dict(args={"logprobs_mode": "processed_logprobs"}, kind="serving"),
    ),
    "policy-collection-no-speculative": (
        dict(args={"speculative_config": NGRAM}, kind="collection"),
        dict(args={}, kind="collection"),
    ),
}
