"""Checks of the model's dtype against its model type (`_check_valid_dtype`), of --device-ids
(EngineArgs._resolve_device_ids) and of the draft model's tensor parallel size
(SpeculativeConfig._verify_and_get_draft_tp)."""

from tools.rulepack.expr import HAS_SPEC, IDX, SC, R, sub

HALF = '(has(args.dtype) && type(args.dtype) == string && args.dtype.matches("^(?i)(half|float16)$"))'
REASON = "Numerical instability. Please use bfloat16 or float32 instead."
MT = "model.config.model_type"
IDS = "args.device_ids"
HAS_IDS = f"(has({IDS}) && type({IDS}) == list && size({IDS}) > 0)"
SAME = f"{IDS}.filter(x, type(x) == type({IDS}[j]) && x == {IDS}[j])"
DUP = f"{IDX}.exists(j, j < size({IDS}) && {SAME}.size() > 1)"
ANY_STR = f"{IDS}.exists(x, type(x) == string)"
ALL_INT = f"{IDS}.all(x, type(x) == int)"
CVD = "env.CUDA_VISIBLE_DEVICES"
HAS_CVD = f'(has({CVD}) && {CVD} != "")'


def visible_at(i):  # index i is one of the comma-separated entries of CUDA_VISIBLE_DEVICES
    return f'{CVD}.matches("^([^,]*,){{" + string({i}) + "}}")'


OUT = f"{IDS}.filter(i, type(i) == int && i >= 0 && !{visible_at('i')})"
DTP = f"{SC}.draft_tensor_parallel_size"
# SpeculativeConfig verifies the draft's TP for methods that load a draft model
NO_DRAFT = '["ngram", "ngram_gpu", "suffix", "custom_class", "extract_hidden_states"]'


def fp16_rule(rid, types, rng, narrowed):
    return R(
        rid,
        "does not support float16. Reason: {reason}",
        f"{HALF} && has({MT}) && {MT} in [{', '.join(repr(t).replace(chr(39), chr(34)) for t in types)}]",
        ["dtype"],
        ["Use --dtype bfloat16 (or float32, or auto)"],
        "ModelConfig: _get_and_verify_dtype -> _check_valid_dtype refuses float16 for model types known to "
        f"be numerically unstable in it ({', '.join(types)} in these releases; model_type from config.json).",
        ["dtype", "model-config"],
        range=rng,
        narrowed=narrowed,
        needs=["model.config"],
        values={"model_type": MT, "reason": f'"{REASON}"'},
        fix={"set": {"dtype": "bfloat16"}},
    )


RULES = [
    fp16_rule(
        "float16-unstable-model-type-0.20.0",
        ["gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"],
        ["0.20.0", "0.26.0"],
        "0.27.0 drops plamo2 from the model types refused in float16",
    ),
    fp16_rule(
        "float16-unstable-model-type",
        ["gemma2", "gemma3", "gemma3_text", "glm4"],
        ["0.27.0", None],
        "0.26.0 and earlier also refuse plamo2 (the older rule)",
    ),
    R(
        "device-ids-duplicates",
        "--device-ids must not contain duplicates: {ids}",
        f"{HAS_IDS} && {DUP}",
        ["device_ids"],
        ["List each device once in --device-ids"],
        "EngineArgs._resolve_device_ids.",
        ["devices"],
        values={"ids": IDS},
    ),
    R(
        "device-ids-mixed",
        "--device-ids must not mix integer IDs and UUIDs",
        f"{HAS_IDS} && !{DUP} && {ANY_STR} && {IDS}.exists(x, type(x) != string)",
        ["device_ids"],
        ["Give --device-ids as indices only, or as UUIDs only"],
        "EngineArgs._resolve_device_ids (all-UUID lists are resolved; a mix is refused).",
        ["devices"],
    ),
    R(
        "device-ids-out-of-range",
        "is out of range for {current_platform.device_control_env_var}",
        f"{HAS_IDS} && !{DUP} && {ALL_INT} && {HAS_CVD} && size({OUT}) > 0",
        ["device_ids", "env.CUDA_VISIBLE_DEVICES"],
        ["Give --device-ids as indices into CUDA_VISIBLE_DEVICES (0 .. its number of entries - 1)"],
        "EngineArgs._resolve_device_ids: with CUDA_VISIBLE_DEVICES set, --device-ids are indices into it "
        "(the variable vLLM reads on NVIDIA and ROCm GPUs).",
        ["devices", "environment"],
        values={
            "i": f"{OUT}[0]",
            "current_platform.device_control_env_var": '"CUDA_VISIBLE_DEVICES"',
            "cvd": CVD,
            "len(cvd_ids)": f'size({CVD}.split(","))',
        },
    ),
    R(
        "offline-dp-dense-model",
        "Offline data parallel mode is not supported/useful for dense models.",
        '(has(env.VLLM_DP_SIZE) && env.VLLM_DP_SIZE.matches("^[0-9]+$") && int(env.VLLM_DP_SIZE) > 1) && '
        "!(has(args.data_parallel_size) && args.data_parallel_size != null && "
        "args.data_parallel_size > 1) && "
        "!(has(args.data_parallel_size_local) && args.data_parallel_size_local == 0) && "
        "derived.model_is_moe == false",
        ["env.VLLM_DP_SIZE", "data_parallel_size"],
        ["Unset VLLM_DP_SIZE and give --data-parallel-size for online data parallelism", "Use an MoE model"],
        "ParallelConfig.__post_init__: without --data-parallel-size > 1, the data-parallel size comes from "
        "VLLM_DP_SIZE (the offline SPMD mode), which only MoE models may use.",
        ["data-parallel", "environment", "model-config"],
        needs=["model.config"],
    ),
    R(
        "ray-backend-not-installed",
        "Failed to import Ray: {ray_import_err}.",
        'has(args.distributed_executor_backend) && args.distributed_executor_backend == "ray"',
        ["distributed_executor_backend"],
        [
            "Install Ray on every node of the deployment (pip install ray), or use an image that has it",
            "Use the multiprocessing backend (--distributed-executor-backend mp, with --nnodes for several "
            "nodes)",
        ],
        "ParallelConfig._verify_args: the Ray backend needs the ray package, which a default `pip install "
        "vllm` does not install (it is neither a requirement nor an extra of the wheel). The product assumes "
        "a default install, as vLLM's own image has it; with Ray installed on the serving hosts this finding "
        "can be waived.",
        ["parallelism", "ray", "installation"],
        msg_text="Failed to import Ray: {ray_import_err}.Please install Ray with `pip install ray`.",
        values={"ray_import_err": "\"No module named 'ray'\""},
        fix={"set": {"distributed_executor_backend": "mp"}},
    ),
    R(
        "spec-draft-tp-one-or-target",
        "cannot be other value than 1 or target model tensor_parallel_size",
        f"{HAS_SPEC} && {sub('speculative_config', 'model')} && "
        f"{sub('speculative_config', 'num_speculative_tokens')} && !(derived.spec_method in {NO_DRAFT}) && "
        f"{sub('speculative_config', 'draft_tensor_parallel_size')} && {DTP} != 1 && "
        f"{DTP} != effective.tensor_parallel_size",
        ["speculative_config", "tensor_parallel_size"],
        ["Set speculative_config.draft_tensor_parallel_size to 1 or to --tensor-parallel-size"],
        "SpeculativeConfig._verify_and_get_draft_tp, for methods that load a draft model.",
        ["speculative-decoding", "parallelism"],
        msg_text="{speculative_draft_tensor_parallel_size=} cannot be other value than 1 or target model "
        "tensor_parallel_size",
        message_template=f"speculative_draft_tensor_parallel_size={{{{ {DTP} | !r }}}} cannot be other value "
        "than 1 or target model tensor_parallel_size",
        fix={"unset": ["speculative_config.draft_tensor_parallel_size"]},
    ),
]

RAY_CASE = (
    {"distributed_executor_backend": "ray", "tensor_parallel_size": 2},
    {"distributed_executor_backend": "mp", "tensor_parallel_size": 2},
)

GEMMA2 = {
    "name": "google/gemma-2-9b-it",
    "architecture": "Gemma2ForCausalLM",
    "config": {"model_type": "gemma2", "num_attention_heads": 16},
}
EAGLE = {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}

CASES = {
    "ray-backend-not-installed": RAY_CASE,
    "offline-dp-dense-model": (
        {"args": {}, "env": {"VLLM_DP_SIZE": "2"}},
        {"args": {}, "env": {"VLLM_DP_SIZE": "1"}},
    ),
    "float16-unstable-model-type-0.20.0": (
        {"args": {"dtype": "half"}, "model": dict(GEMMA2, config={"model_type": "plamo2"})},
        {"args": {"dtype": "bfloat16"}, "model": GEMMA2},
    ),
    "float16-unstable-model-type": (
        {"args": {"dtype": "float16"}, "model": GEMMA2},
        {"args": {"dtype": "bfloat16"}, "model": GEMMA2},
    ),
    "device-ids-duplicates": ({"device_ids": [0, 1, 1]}, {"device_ids": [0, 1]}),
    "device-ids-mixed": (
        {"device_ids": [0, "GPU-5f0e5d2c-0000-0000-0000-000000000000"]},
        {"device_ids": ["GPU-5f0e5d2c-0000-0000-0000-000000000000"]},
    ),
    "device-ids-out-of-range": (
        {"args": {"device_ids": [0, 2]}, "env": {"CUDA_VISIBLE_DEVICES": "4,5"}},
        {"args": {"device_ids": [0, 1]}, "env": {"CUDA_VISIBLE_DEVICES": "4,5"}},
    ),
    "spec-draft-tp-one-or-target": (
        {"tensor_parallel_size": 4, "speculative_config": dict(EAGLE, draft_tensor_parallel_size=2)},
        {"tensor_parallel_size": 4, "speculative_config": dict(EAGLE, draft_tensor_parallel_size=4)},
    ),
}
