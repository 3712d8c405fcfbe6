"""Sampling-distribution and trace replay (VllmConfig._verify_sampling_replay_config and
_verify_trace_replay_config)."""

from tools.rulepack.expr import ADAPTIVE, HAS_SPEC, LOGITS_PROCS, RSM
from tools.rulepack.profiles import ADAPT, LLAMA, NGRAM, RSM_ARGS, m

RULES = [
    dict(
        id="sampling-replay-requires-mrv2",
        msg="sampling distribution replay requires Model Runner V2",
        when=f"{RSM} && !derived.use_v2_model_runner",
        fields=["return_sampling_mask", "env.VLLM_USE_V2_MODEL_RUNNER", "speculative_config"],
        needs=["model.architecture", "model.config"],
        solutions=[
            "Set VLLM_USE_V2_MODEL_RUNNER=1 in the deployment's environment",
            (
                "Remove whatever keeps vLLM on the V1 model runner (e.g. ngram/suffix/medusa speculative "
                "decoding, dual batch overlap, stock torch.compile, sequence parallelism)"
            ),
            "Disable return_sampling_mask if the instance does not collect replay data",
        ],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=0 vllm serve model --return-sampling-mask \\\n"
            "  --logprobs-mode processed_logprobs\n# after\n"
            "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --return-sampling-mask \\\n"
            "  --logprobs-mode processed_logprobs"
        ),
        docs=(
            "First check of VllmConfig._verify_sampling_replay_config (called from "
            "VllmConfig.__post_init__): returning sampling masks is implemented only by Model Runner V2. "
            "Without VLLM_USE_V2_MODEL_RUNNER, vLLM picks V1 whenever the configuration has a feature V2 "
            "does not support yet (see the derived value use_v2_model_runner), so the same flags can be "
            "accepted on one release and refused on another. Removed in 0.34.0, which has a single GPU "
            "model runner."
        ),
        tags=["sampling", "model-runner-v2"],
    ),
    dict(
        id="sampling-replay-no-speculative",
        msg="sampling distribution replay does not support speculative decoding",
        when=f"{RSM} && {HAS_SPEC}",
        fields=["return_sampling_mask", "speculative_config"],
        solutions=[
            (
                "Remove speculative decoding (drop --speculative-config) from the instance that returns "
                "sampling masks"
            ),
            (
                "Run two deployments: a speculative one for serving and a non-speculative V2 one for mask "
                "collection"
            ),
            "Upgrade to vLLM 0.32.0 or later, where only adaptive verification is refused",
            "If you only need logprobs, not the mask, disable return_sampling_mask and use "
            "logprobs_mode='processed_logprobs' instead",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask \\\n"
            '  --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3}\'\n'
            "# after\nvllm serve model --return-sampling-mask"
        ),
        docs=(
            "When return_sampling_mask is enabled, VllmConfig also rejects any speculative decoding "
            "configuration: sampling-distribution replay assumes a single forward's softmax/nucleus "
            "distribution, while speculative decoding samples through draft/target accept-reject, so the "
            "returned mask would not correspond to a replayable per-token distribution. Checked after the "
            "Model Runner V2 check: where the speculative method keeps vLLM on V1 (e.g. ngram in 0.31.0 "
            "without VLLM_USE_V2_MODEL_RUNNER=1) vLLM raises the V2 message first."
        ),
        fix={"unset": ["speculative_config"]},
        tags=["sampling", "speculative-decoding"],
    ),
    dict(
        id="sampling-replay-adaptive-verification",
        msg="sampling distribution replay with speculative decoding requires fixed verification boundaries",
        when=f"{RSM} && {ADAPTIVE}",
        fields=["return_sampling_mask", "speculative_config"],
        solutions=[
            "Disable adaptive verification: remove enable_adaptive_verification from --speculative-config",
            "Remove speculative decoding from the instance that returns sampling masks",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "dspark", "num_speculative_tokens": 7, '
            '"enable_adaptive_verification": true}\'\n# after\n'
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "dspark", "num_speculative_tokens": 7}\''
        ),
        docs=(
            "From 0.32.0 sampling-distribution replay works with speculative decoding, as long as the "
            "verification boundaries are fixed: adaptive verification trims the verified batch on the GPU, "
            "so the returned masks would not line up with replayable positions."
        ),
        tags=["sampling", "speculative-decoding"],
    ),
    dict(
        id="sampling-replay-no-diffusion",
        msg="sampling distribution replay does not support diffusion models",
        when=f"{RSM} && derived.is_diffusion",
        fields=["return_sampling_mask", "model"],
        needs=["model.config"],
        solutions=[
            "Disable return_sampling_mask for discrete-diffusion (dLLM) models",
            "Collect replay data with an autoregressive model",
        ],
        example_fix=(
            "# before\nvllm serve diffusion-model --return-sampling-mask\n# after\nvllm serve diffusion-model"
        ),
        docs=(
            "Discrete diffusion models (HF config with canvas_length) decode a canvas of positions per step; "
            "there is no single per-token sampling distribution to replay. Needs the model's config.json to "
            "verify."
        ),
        fix={"unset": ["return_sampling_mask"]},
        tags=["sampling", "diffusion"],
    ),
    dict(
        id="sampling-replay-no-custom-logits-processors",
        msg="sampling distribution replay does not support custom logits processors",
        when=f"{RSM} && {LOGITS_PROCS}",
        fields=["return_sampling_mask", "logits_processors"],
        solutions=[
            "Remove --logits-processors from the instance that returns sampling masks",
            "Run the custom logits processors on a separate serving deployment",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            "  --logits-processors my_pkg.MyProcessor\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Custom logits processors change the distribution in ways the replay cannot reproduce, so vLLM "
            "refuses them together with return_sampling_mask."
        ),
        fix={"unset": ["logits_processors"]},
        tags=["sampling", "logits-processors"],
    ),
    dict(
        id="sampling-replay-requires-processed-logprobs",
        msg="sampling distribution replay requires logprobs_mode='processed_logprobs'",
        when=f'{RSM} && effective.logprobs_mode != "processed_logprobs"',
        fields=["return_sampling_mask", "logprobs_mode"],
        solutions=[
            "Add --logprobs-mode processed_logprobs",
            "Disable return_sampling_mask if raw logprobs are what you need",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "logprobs_mode defaults to raw_logprobs, so --return-sampling-mask alone is refused: the "
            "returned logprobs must be normalized over the same nucleus as the sampling mask."
        ),
        fix={"set": {"logprobs_mode": "processed_logprobs"}},
        tags=["sampling", "logprobs"],
    ),
    dict(
        id="trace-replay-requires-mrv2",
        msg="trace replay requires Model Runner V2",
        when="effective.enable_trace_replay == true && !derived.use_v2_model_runner",
        fields=["enable_trace_replay", "env.VLLM_USE_V2_MODEL_RUNNER"],
        needs=["model.architecture", "model.config"],
        solutions=[
            "Set VLLM_USE_V2_MODEL_RUNNER=1 in the deployment's environment",
            "Remove whatever keeps vLLM on the V1 model runner",
            "Disable --enable-trace-replay",
        ],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=0 vllm serve model --enable-trace-replay\n"
            "# after\nVLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --enable-trace-replay"
        ),
        docs=(
            "VllmConfig._verify_trace_replay_config: trace replay is implemented only by Model Runner V2. "
            "Removed in 0.34.0."
        ),
        tags=["trace-replay", "model-runner-v2"],
    ),
]

CASES = {
    "sampling-replay-requires-mrv2": (
        dict(args=RSM_ARGS, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args=RSM_ARGS, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "sampling-replay-no-speculative": (
        dict(args=m(RSM_ARGS, {"speculative_config": NGRAM}), env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        dict(args=RSM_ARGS, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "sampling-replay-adaptive-verification": (
        m(RSM_ARGS, ADAPT),
        m(RSM_ARGS, {"speculative_config": {"method": "dspark", "num_speculative_tokens": 7}}),
    ),
    "sampling-replay-no-diffusion": (
        dict(
            args=RSM_ARGS,
            model={"name": "dllm", "architecture": "LLaDAModelLM", "config": {"canvas_length": 256}},
        ),
        dict(args=RSM_ARGS, model=LLAMA),
    ),
    "sampling-replay-no-custom-logits-processors": (
        m(RSM_ARGS, {"logits_processors": ["my_pkg.MyProcessor"]}),
        m(RSM_ARGS, {"logits_processors": []}),
    ),
    "sampling-replay-requires-processed-logprobs": ({"return_sampling_mask": True}, RSM_ARGS),
    "trace-replay-requires-mrv2": (
        dict(args={"enable_trace_replay": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args={"enable_trace_replay": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
}
