"""Checks found by the conformance harness (benchmarks/conformance/, real vLLM on stand-in models): vLLM
refuses the profile because of what the model's checkpoint says (its config.json's quantization_config)."""

from tools.rulepack.expr import A, R, q

_QC = "model.config.quantization_config"
# The checkpoint is FP8-quantized (DeepSeek-V3/R1, Qwen3 *-FP8, ...): config.json's
# quantization_config.quant_method.
_FP8_CKPT = f'(has({_QC}) && type({_QC}) == map && has({_QC}.quant_method) && {_QC}.quant_method == "fp8")'
# --quantization methods none of whose override_quantization_method() claims an FP8 checkpoint: awq and gptq
# have none; awq_marlin and gptq_marlin (0.20-0.23: is_awq/gptq_marlin_compatible, quant_method awq/gptq),
# auto_awq and auto_gptq (0.24+: quant_method awq/gptq) and moe_wna16 (is_moe_wna16_compatible: gptq/awq)
# claim only AWQ/GPTQ checkpoints; modelopt, modelopt_fp4, modelopt_mxfp8 and modelopt_mixed
# (_extract_modelopt_quant_algo: quant_method modelopt*) only ModelOpt checkpoints. Naming any of them for an
# FP8 checkpoint is the same mismatch (real vLLM 0.20.0 and 0.34.0 refuse each; a release whose --quantization
# choices lack a name refuses it at parsing first).
_NO_OVERRIDE = (
    '["awq", "gptq", "awq_marlin", "gptq_marlin", "auto_awq", "auto_gptq", "moe_wna16", '
    '"modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed"]'
)
# AWQ, GPTQ and compressed-tensors checkpoints (their quant_method): the --quantization names that claim
# such a checkpoint (the checkpoint's own name, or an override_quantization_method() that returns a name for
# it given that user_quant), per release: awq_marlin (0.20-0.23: user None/marlin/awq_marlin), auto_awq
# (0.24+: None/awq/awq_marlin/auto_awq/marlin), gptq_marlin (0.20-0.21: None/marlin/gptq_marlin), auto_gptq
# (0.22+: None/gptq/gptq_marlin/auto_gptq/marlin), moe_wna16 (4/8-bit AWQ/GPTQ when named), humming
# (whenever named), gguf (0.20-0.23 only: gguf.py's override, whenever named). inc claims auto-round
# checkpoints only, the modelopt family ModelOpt ones only, mxfp4 gpt-oss's, cpu_awq AWQ ones on a CPU
# platform only. Any other name is refused with the mismatch (real vLLM 0.20.0, 0.27.1 and 0.34.0: awq
# checkpoint with gptq, gptq_marlin, fp8 or compressed-tensors, and gguf from 0.24; auto_awq / auto_gptq
# before they exist as overrides; gptq checkpoint with awq, awq_marlin, fp8 or bitsandbytes; compressed-
# tensors with fp8, awq, modelopt, gguf from 0.24). A name some release lacks is refused at parsing there
# first.
_CLAIMED_BY = {
    "awq": ["awq", "awq_marlin", "marlin", "moe_wna16", "humming"],
    "gptq": ["gptq", "gptq_marlin", "marlin", "moe_wna16", "humming"],
    "compressed-tensors": ["compressed-tensors", "humming"],
}
_CLAIMED_BY_CEL = "{" + ", ".join(f'"{k}": {q(v)}' for k, v in _CLAIMED_BY.items()) + "}"
_WNA_CKPT = (
    f"(has({_QC}) && type({_QC}) == map && has({_QC}.quant_method) && "
    f"{_QC}.quant_method in {q(list(_CLAIMED_BY))})"
)
_CLAIMED = (
    f"(args.quantization in {_CLAIMED_BY_CEL}[{_QC}.quant_method] || "
    f'(vllm.minor <= 23 && args.quantization == "gguf") || '
    f'(vllm.minor >= 24 && {_QC}.quant_method == "awq" && args.quantization == "auto_awq") || '
    f'(vllm.minor >= 22 && {_QC}.quant_method == "gptq" && args.quantization == "auto_gptq"))'
)
_WNA_MISMATCH = f"({_WNA_CKPT} && !{_CLAIMED})"
# The activation dtypes Fp8Config.get_supported_act_dtypes() accepts: [torch.bfloat16, torch.half].
_Q_FP8 = f'({A("quantization")} && args.quantization == "fp8")'
_FP8_ON = f"({_FP8_CKPT} && (!{A('quantization')} || {_Q_FP8})) || {_Q_FP8}"
_FP32 = f'{A("dtype")} && args.dtype in ["float32", "float"]'
# --quantization awq (0.20.0-0.23.0) / gptq (0.20.0-0.21.0) named for a checkpoint of that method: no override
# claims it (awq_marlin and gptq_marlin only for user None/marlin/*_marlin), so AWQConfig / GPTQConfig is
# used, whose get_supported_act_dtypes() is [torch.half]. From 0.24.0 (awq) and 0.22.0 (gptq) auto_awq /
# auto_gptq claim the checkpoint for that name too and accept bfloat16 (real vLLM 0.27.1 and 0.34.0 accept).
_HALF_ONLY = (
    f'(vllm.minor <= 23 && {_QC}.quant_method == "awq" && args.quantization == "awq") || '
    f'(vllm.minor <= 21 && {_QC}.quant_method == "gptq" && args.quantization == "gptq")'
)
_NOT_HALF = f'{A("dtype")} && args.dtype in ["bfloat16", "float32", "float"]'
_FP8_MSG_COND = f"({_FP32} && ({_FP8_ON}))"
# --dtype float32 on an AWQ (0.24.0+) / GPTQ (0.22.0+) checkpoint that auto_awq / auto_gptq claims (no
# --quantization, or a name they take): their activation dtypes are [torch.float16, torch.bfloat16] (real vLLM
# 0.27.1 and 0.34.0: "torch.float32 is not supported for quantization method auto_awq").
_AUTO_METHOD = (
    f'(vllm.minor >= 24 && {_QC}.quant_method == "awq" && (!{A("quantization")} || '
    f'args.quantization in ["awq", "awq_marlin", "auto_awq", "marlin"])) ? "auto_awq" : '
    f'(vllm.minor >= 22 && {_QC}.quant_method == "gptq" && (!{A("quantization")} || '
    f'args.quantization in ["gptq", "gptq_marlin", "auto_gptq", "marlin"])) ? "auto_gptq" : ""'
)
_AUTO_FP32 = f'({_FP32} && {_WNA_CKPT} && ({_AUTO_METHOD}) != "")'

# ModelConfig._verify_quantization (0.20.0-0.34.0): a method in DEPRECATED_QUANTIZATION_METHODS (fbgemm_fp8 in
# every release; tpu_int8 and fp_quant, listed in some, are not modelled: the CUDA platform's own check comes
# first) is refused unless --allow-deprecated-quantization, whether named with --quantization or read from the
# checkpoint's quantization_config (e.g. meta-llama/Llama-3.1-405B-Instruct-FP8). vLLM passes the method as a
# second argument of ValueError instead of formatting it, so the text users see is the tuple's repr (real vLLM
# 0.20.0, 0.27.1 and 0.34.0).
_DEPRECATED_METHOD = (
    f'(({A("quantization")} && args.quantization == "fbgemm_fp8") || (!{A("quantization")} && '
    f"has(model.config) && has({_QC}) && type({_QC}) == map && has({_QC}.quant_method) && "
    f'{_QC}.quant_method == "fbgemm_fp8"))'
)

RULES = [
    R(
        "quantization-vs-checkpoint-method",
        "does not match the quantization method specified in the `quantization` argument",
        f"{A('quantization')} && ((args.quantization in {_NO_OVERRIDE} && {_FP8_CKPT}) || {_WNA_MISMATCH})",
        ["quantization", "model"],
        [
            "Remove --quantization: vLLM reads the method from the checkpoint's config.json",
            "Serve a checkpoint quantized with the method you name",
        ],
        (
            "ModelConfig._verify_quantization: the checkpoint's quantization_config.quant_method "
            "(config.json) must equal --quantization unless a method claims the checkpoint "
            "(override_quantization_method: awq_marlin/gptq_marlin/auto_* for AWQ/GPTQ checkpoints, gguf, "
            "humming, moe_wna16 when asked for). "
            "Checked here for an FP8 checkpoint and --quantization awq or gptq, which no method overrides, "
            "and for AWQ, GPTQ and compressed-tensors checkpoints and a method that claims none of them; a "
            "separate quant_config.json in the checkpoint is not visible to a profile."
        ),
        ["quantization", "model"],
        needs=["model.config"],
        fix={"unset": ["quantization"]},
        message_template=(
            "Quantization method specified in the model config ({{ " + _QC + ".quant_method }}) does not "
            "match the quantization method specified in the `quantization` argument "
            "({{ args.quantization }})."
        ),
    ),
    R(
        "quantization-method-deprecated",
        "is deprecated and will be removed in future versions of vLLM. To bypass",
        f"{_DEPRECATED_METHOD} && !(has(args.allow_deprecated_quantization) && "
        "args.allow_deprecated_quantization == true)",
        ["quantization", "allow_deprecated_quantization", "model"],
        [
            "Add --allow-deprecated-quantization (the method still works, with a warning)",
            "Serve a checkpoint quantized with a supported method (e.g. FP8 via compressed-tensors)",
        ],
        (
            "ModelConfig._verify_quantization: a deprecated quantization method (fbgemm_fp8), named with "
            "--quantization or read from the checkpoint's quantization_config, needs "
            "--allow-deprecated-quantization."
        ),
        ["quantization", "model"],
        fix={"set": {"allow_deprecated_quantization": True}},
        message_template=(
            "('The quantization method %s is deprecated and will be removed in future versions of vLLM. To "
            "bypass, set `--allow-deprecated-quantization`.', 'fbgemm_fp8')"
        ),
    ),
    R(
        "quantization-fp8-activation-dtype",
        "is not supported for quantization method",
        (
            f"({_FP32} && ({_FP8_ON})) || ({_NOT_HALF} && {A('quantization')} && {_WNA_CKPT} && "
            f"({_HALF_ONLY})) || {_AUTO_FP32}"
        ),
        ["dtype", "quantization", "model"],
        [
            "Use --dtype bfloat16 (or float16, or auto) with FP8 quantization",
            "With --quantization awq/gptq on an AWQ/GPTQ checkpoint: use --dtype float16, or drop "
            "--quantization (vLLM then picks the Marlin kernels, which take bfloat16)",
        ],
        (
            "VllmConfig._get_quantization_config: the model's dtype must be one of the quantization method's "
            "activation dtypes; FP8 (an FP8 checkpoint's quant_method, or --quantization fp8) supports "
            "bfloat16 and float16, so --dtype float32 is refused; --quantization awq (before 0.24.0) or gptq "
            "(before 0.22.0) on a checkpoint of that method forces AWQConfig / GPTQConfig, which support "
            "float16 only; auto_awq (0.24.0+) / auto_gptq (0.22.0+), which claim such checkpoints, float16 "
            "and bfloat16. Other methods' dtypes are not modelled."
        ),
        ["quantization", "model"],
        needs=["model.config"],
        fix={"set": {"dtype": "bfloat16"}},
        message_template=(
            "{{ " + _FP8_MSG_COND + ' ? "torch.float32 is not supported for quantization method fp8. '
            'Supported dtypes: [torch.bfloat16, torch.float16]" : ' + _AUTO_FP32 + ' ? "torch.float32 is not '
            'supported for quantization method " + (' + _AUTO_METHOD + ') + ". Supported dtypes: '
            '[torch.float16, torch.bfloat16]" : '
            '((args.dtype == "bfloat16" ? "torch.bfloat16" : "torch.float32") + '
            '" is not supported for quantization method " + args.quantization + '
            '". Supported dtypes: [torch.float16]") }}'
        ),
    ),
]

_DSV3 = {
    "name": "deepseek-ai/DeepSeek-V3",
    "architecture": "DeepseekV3ForCausalLM",
    "config": {
        "model_type": "deepseek_v3",
        "num_attention_heads": 128,
        "quantization_config": {
            "activation_scheme": "dynamic",
            "fmt": "e4m3",
            "quant_method": "fp8",
            "weight_block_size": [128, 128],
        },
    },
}

_LLAMA_405B_FP8 = {
    "name": "meta-llama/Llama-3.1-405B-Instruct-FP8",
    "architecture": "LlamaForCausalLM",
    "config": {
        "model_type": "llama",
        "num_attention_heads": 128,
        "quantization_config": {
            "activation_scale_ub": 1200.0,
            "modules_to_not_convert": [],
            "quant_method": "fbgemm_fp8",
        },
    },
}

CASES = {
    "quantization-method-deprecated": (
        {"model": _LLAMA_405B_FP8, "args": {"tensor_parallel_size": 8}},
        {
            "model": _LLAMA_405B_FP8,
            "args": {"tensor_parallel_size": 8, "allow_deprecated_quantization": True},
        },
    ),
    "quantization-vs-checkpoint-method": (
        {"model": _DSV3, "args": {"quantization": "awq", "tensor_parallel_size": 8}},
        {"model": _DSV3, "args": {"quantization": "fp8", "tensor_parallel_size": 8}},
    ),
    "quantization-fp8-activation-dtype": (
        {"model": _DSV3, "args": {"dtype": "float32", "tensor_parallel_size": 8}},
        {"model": _DSV3, "args": {"dtype": "bfloat16", "tensor_parallel_size": 8}},
    ),
}
