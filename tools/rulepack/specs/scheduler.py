"""SchedulerConfig, the model's maximum length, LoRAConfig."""

from tools.rulepack.expr import (
    GEMMA3_SLIDING_WINDOW_CAPS,
    LEN_KEYS_OTHER,
    SLIDING_WINDOW_CAPS,
    ST_MAX_LEN,
    TOKENIZER_CAPS_LEN,
    WHISPER_LEN_KEY,
    A,
    R,
    cel_str,
)

# ---------------------------------------------------------------- max_model_len above the derived maximum
# _get_and_verify_max_len (vllm/config/model.py): derived.model_max_len (document.py, built in expr.py) is the
# length vLLM derives from config.json, 0.0 where a profile cannot repeat the derivation.
_DERIVED_LEN = "derived.model_max_len"
_KNOWN_LEN = f"{_DERIVED_LEN} > 0.0"
# The max_model_len SchedulerConfig sees: the user's, or (unset, or -1 = auto-fit) int(derived) as vLLM
# sets it.
_USER_LEN = f"({A('max_model_len')} && type(args.max_model_len) == int && args.max_model_len != -1)"
# A Mamba config.json has no length key at all: vLLM then assumes 2048 (_get_and_verify_max_len's default, the
# same in 0.20.0-0.34.0) when the user gives no max_model_len (real vLLM: max_model_len (2048) for
# state-spaces/mamba-2.8b-hf), and takes any length the user gives.
_NO_LEN_KEY = (
    'has(model.config) && has(model.config.model_type) && model.config.model_type == "mamba" && '
    "!has(model.config.text_config) && "
    + " && ".join(f"!has(model.config.{k})" for k in ["max_position_embeddings", *LEN_KEYS_OTHER])
)
_EFFECTIVE_LEN = f"({_USER_LEN} ? args.max_model_len : ({_NO_LEN_KEY}) ? 2048 : int({_DERIVED_LEN}))"

# Python's str() of the derived float: 32768.0 (CEL's string() of a double drops an integral value's ".0").
# Before 0.30.0 the length stays a Python int when the RoPE config's factor is an int and its type is not
# su/longrope/llama3 (e.g. DeepSeek-V3's YaRN: 4096 * 40 = 163840): vLLM then prints no ".0".
_RS = "model.config.rope_scaling"
_ROPE_TYPE = f'(has({_RS}.rope_type) ? {_RS}.rope_type : (has({_RS}.type) ? {_RS}.type : "default"))'
_INT_LEN = (
    f"(vllm.minor < 30 && has({_RS}) && {_RS} != null && type({_RS}) == map && has({_RS}.factor) && "
    f'type({_RS}.factor) == int && !({_ROPE_TYPE} in ["su", "longrope", "llama3"]))'
)
# Gemma 3's sliding window is not multiplied by anything: vLLM prints the int (sliding_window=1024).
# A sentence-transformers max_seq_length is printed as the int it is (max_position_embeddings=256).
_PY_FLOAT = (
    f"({_INT_LEN} || {GEMMA3_SLIDING_WINDOW_CAPS} || ({ST_MAX_LEN}) || ({TOKENIZER_CAPS_LEN}) ? "
    f"string(int({_DERIVED_LEN})) : "
    f'({_DERIVED_LEN} == double(int({_DERIVED_LEN})) ? string(int({_DERIVED_LEN})) + ".0" : '
    f"string({_DERIVED_LEN})))"
)

# The text vLLM formats into {msg} and {warning} (the same in 0.20.0-0.34.0): the derived length's key is
# max_position_embeddings (also for YaRN before 0.30.0), or sliding_window when --disable-sliding-window
# lowered the length to it, a float (an int in the case above), and the config has no model_max_length.
_LEN_KEY = (
    f'({SLIDING_WINDOW_CAPS} || {GEMMA3_SLIDING_WINDOW_CAPS} ? "sliding_window" : '
    f'({WHISPER_LEN_KEY}) ? "max_target_positions" : "max_position_embeddings")'
)
LONG_LEN_MSG = (
    '"User-specified max_model_len (" + string(args.max_model_len) + ") is greater than the derived '
    'max_model_len (" + ' + _LEN_KEY + ' + "=" + ' + _PY_FLOAT + " + "
    '" or model_max_length=None in model\'s config.json)."'
)
LONG_LEN_WARNING = (
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position "
    "encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute "
    "position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds "
    "error."
)

RULES = [
    R(
        "max-batched-tokens-ge-max-num-seqs",
        "must be greater than or equal to max_num_seqs ({self.max_num_seqs}).",
        (
            f"{A('max_num_batched_tokens')} && {A('max_num_seqs')} && args.max_num_batched_tokens < "
            f"args.max_num_seqs"
        ),
        ["max_num_batched_tokens", "max_num_seqs"],
        ["Raise --max-num-batched-tokens to at least --max-num-seqs", "Lower --max-num-seqs"],
        "Every scheduled sequence needs at least one token of the batch budget.",
        ["scheduler"],
        values={
            "self.max_num_batched_tokens": "effective.max_num_batched_tokens",
            "self.max_num_seqs": "effective.max_num_seqs",
        },
    ),
    R(
        "max-num-active-seqs-le-max-num-seqs",
        "max_num_active_seqs ({self.max_num_active_seqs}) cannot be greater",
        f"{A('max_num_active_seqs')} && {A('max_num_seqs')} && args.max_num_active_seqs > args.max_num_seqs",
        ["max_num_active_seqs", "max_num_seqs"],
        ["Lower --max-num-active-seqs to at most --max-num-seqs"],
        "SchedulerConfig (explicitly set max_num_seqs only; its default depends on the hardware).",
        ["scheduler"],
        values={
            "self.max_num_active_seqs": "effective.max_num_active_seqs",
            "self.max_num_seqs": "effective.max_num_seqs",
        },
    ),
    R(
        "partial-prefills-require-chunked-prefill",
        "Chunked prefill must be enabled to set max_num_partial_prefills > 1.",
        f"{A('max_num_partial_prefills')} && args.max_num_partial_prefills > 1 && "
        "has(args.enable_chunked_prefill) && args.enable_chunked_prefill == false",
        ["max_num_partial_prefills", "enable_chunked_prefill"],
        ["Enable chunked prefill", "Set --max-num-partial-prefills 1"],
        (
            "Concurrent partial prefills are a chunked-prefill feature (explicitly disabled chunked prefill "
            "only)."
        ),
        ["scheduler"],
    ),
    R(
        "max-cpu-loras-ge-max-loras",
        "max_cpu_loras ({self.max_cpu_loras}) must be >= max_loras",
        (
            f"(has(args.enable_lora) && args.enable_lora == true) && {A('max_cpu_loras')} && "
            f"args.max_cpu_loras < effective.max_loras"
        ),
        ["max_cpu_loras", "max_loras"],
        ["Raise --max-cpu-loras to at least --max-loras"],
        "LoRAConfig: the CPU LoRA cache must hold every GPU-resident adapter.",
        ["lora"],
        values={"self.max_cpu_loras": "args.max_cpu_loras", "self.max_loras": "effective.max_loras"},
    ),
    R(
        "max-batched-tokens-below-max-model-len",
        "is smaller than max_model_len ({max_model_len}).",
        f"{A('max_num_batched_tokens')} && has(args.enable_chunked_prefill) && "
        f"args.enable_chunked_prefill == false && ({_USER_LEN} || {_KNOWN_LEN} || ({_NO_LEN_KEY})) && "
        f"args.max_num_batched_tokens < {_EFFECTIVE_LEN}",
        ["max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"],
        [
            "Raise --max-num-batched-tokens to at least --max-model-len",
            "Enable chunked prefill",
            "Lower --max-model-len",
        ],
        (
            "Without chunked prefill a prompt must fit in one batch (max_model_len: the user's, or the "
            "length vLLM derives from config.json, the pack's derived model_max_len, when the profile can "
            "repeat the derivation)."
        ),
        ["scheduler"],
        values={
            "self.max_num_batched_tokens": "effective.max_num_batched_tokens",
            "max_model_len": _EFFECTIVE_LEN,
        },
    ),
    R(
        "long-prefill-threshold-gt-max-model-len",
        "long_prefill_token_threshold ({self.long_prefill_token_threshold})",
        f"{A('long_prefill_token_threshold')} && {A('max_model_len')} && "
        "args.long_prefill_token_threshold > args.max_model_len",
        ["long_prefill_token_threshold", "max_model_len"],
        ["Lower --long-prefill-token-threshold to at most --max-model-len"],
        "SchedulerConfig (checked here for an explicit max_model_len).",
        ["scheduler"],
        range=["0.27.0", None],
        narrowed="0.20.0-0.26.0 check it only with max_num_partial_prefills > 1, which EngineArgs refuses "
        "first (Concurrent Partial Prefill is not supported): unreachable there",
        values={
            "self.long_prefill_token_threshold": "effective.long_prefill_token_threshold",
            "max_model_len": "effective.max_model_len",
        },
    ),
    R(
        "max-model-len-above-derived",
        "{msg} To allow overriding this maximum",
        (
            f"{_USER_LEN} && "
            "!(has(env.VLLM_ALLOW_LONG_MAX_MODEL_LEN) && "
            'env.VLLM_ALLOW_LONG_MAX_MODEL_LEN.matches("^\\\\s*(1|(?i:true))\\\\s*$")) && '
            f"{_KNOWN_LEN} && double(args.max_model_len) > {_DERIVED_LEN}"
        ),
        ["max_model_len", "model", "env.VLLM_ALLOW_LONG_MAX_MODEL_LEN"],
        [
            "Lower --max-model-len to the model's max_position_embeddings or less",
            "Set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only if the model really handles longer contexts",
        ],
        (
            "ModelConfig.get_and_verify_max_len: a user max_model_len above the length derived from "
            "config.json (the smallest of max_position_embeddings and the other length keys, times the RoPE "
            "scaling factor) is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is 1/true. vLLM's text is "
            "'User-specified max_model_len (...) is greater than the derived max_model_len (...)' "
            "followed by this sentence and a caution. Checked where the product can repeat the "
            "derivation (the pack's derived model_max_len: llama/mistral/mixtral/qwen2/qwen2_moe/qwen3/"
            "qwen3_moe/jamba/deepseek_v2/deepseek_v3/gemma2/phi3/gpt_oss/granitemoehybrid/qwen2_5_vl configs "
            "with max_position_embeddings and no other length key; with --disable-sliding-window, the "
            "sliding window when smaller); a sentence-transformers config in the checkpoint "
            "(max_seq_length) would override the length and is not visible to a profile."
        ),
        ["scheduler", "model"],
        needs=["model.config"],
        fix={"unset": ["max_model_len"]},
        values={"msg": LONG_LEN_MSG, "warning": cel_str(LONG_LEN_WARNING)},
    ),
]

_LLAMA31 = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192},
    },
}
RULES += [
    R(
        "max-model-len-positive",
        "max_model_len must be a positive integer, got",
        (
            f"{A('max_model_len')} && type(args.max_model_len) == int && args.max_model_len < 1 && "
            "args.max_model_len != -1"
        ),
        ["max_model_len"],
        [
            "Give --max-model-len a positive number of tokens",
            "Leave it unset (or -1) for the model's maximum",
        ],
        (
            "ModelConfig's validator after __post_init__: max_model_len must be a positive int (-1 and "
            "unset mean the length derived from the model). 0.20.0-0.22.1 raise the same text only for a "
            "value that is not an int."
        ),
        ["scheduler"],
        range=["0.23.0", None],
        narrowed="0.20.0-0.22.1 raise this text only when max_model_len is not an int; 0 or -5 pass there",
        fix={"unset": ["max_model_len"]},
        values={"type(self.max_model_len).__name__": '"int"', "self.max_model_len": "args.max_model_len"},
    ),
]

# 0.20.0-0.22.1 let --max-model-len 0 through ModelConfig (its bound is ge=-1; the positive-int check comes in
# 0.23.0); EngineArgs._set_default_max_num_seqs_and_batched_tokens_args then caps a defaulted
# max_num_batched_tokens at max_num_seqs * max_model_len = 0, and a defaulted max_num_seqs at that 0, and
# SchedulerConfig's pydantic bounds (ge=1) refuse them: one error per field, in field order
_GE1 = "Input should be greater than or equal to 1"
_SEQS_LINE = f'{A("max_num_seqs")} ? "" : {cel_str(chr(10) + "max_num_seqs: " + _GE1)}'
RULES += [
    R(
        "max-model-len-zero-scheduler-0.20.0",
        f"max_num_batched_tokens: {_GE1}",
        f"{A('max_model_len')} && type(args.max_model_len) == int && args.max_model_len == 0 && "
        f"!{A('max_num_batched_tokens')}",
        ["max_model_len", "max_num_batched_tokens", "max_num_seqs"],
        [
            "Give --max-model-len a positive number of tokens",
            "Leave it unset (or -1) for the model's maximum",
        ],
        (
            "EngineArgs.create_engine_config: --max-model-len 0 passes ModelConfig before 0.23.0; the "
            "default max_num_batched_tokens is then capped at max_num_seqs * max_model_len = 0 (and a "
            "default max_num_seqs at that 0), which SchedulerConfig's pydantic bounds refuse."
        ),
        ["scheduler"],
        range=[None, "0.22.1"],
        narrowed="from 0.23.0 ModelConfig refuses max_model_len 0 first ('must be a positive integer')",
        fix={"unset": ["max_model_len"]},
        message_template=f"max_num_batched_tokens: {_GE1}{{{{ {_SEQS_LINE} }}}}",
    ),
]

CASES = {
    "max-model-len-positive": ({"max_model_len": 0}, {"max_model_len": 2048}),
    "max-model-len-zero-scheduler-0.20.0": ({"max_model_len": 0}, {"max_model_len": 2048}),
    "max-batched-tokens-ge-max-num-seqs": (
        {"max_num_batched_tokens": 128, "max_num_seqs": 256},
        {"max_num_batched_tokens": 8192, "max_num_seqs": 256},
    ),
    "max-num-active-seqs-le-max-num-seqs": (
        {"max_num_active_seqs": 512, "max_num_seqs": 256},
        {"max_num_active_seqs": 128, "max_num_seqs": 256},
    ),
    "partial-prefills-require-chunked-prefill": (
        {"max_num_partial_prefills": 2, "enable_chunked_prefill": False},
        {"max_num_partial_prefills": 2, "enable_chunked_prefill": True},
    ),
    "max-cpu-loras-ge-max-loras": (
        {"enable_lora": True, "max_loras": 4, "max_cpu_loras": 2},
        {"enable_lora": True, "max_loras": 4, "max_cpu_loras": 8},
    ),
    "max-batched-tokens-below-max-model-len": (
        {"max_num_batched_tokens": 4096, "max_model_len": 8192, "enable_chunked_prefill": False},
        {"max_num_batched_tokens": 4096, "max_model_len": 8192, "enable_chunked_prefill": True},
    ),
    "long-prefill-threshold-gt-max-model-len": (
        {"long_prefill_token_threshold": 16384, "max_model_len": 8192},
        {"long_prefill_token_threshold": 2048, "max_model_len": 8192},
    ),
    "max-model-len-above-derived": (
        dict(args={"max_model_len": 200000}, model=_LLAMA31),
        dict(args={"max_model_len": 131072}, model=_LLAMA31),
    ),
}
