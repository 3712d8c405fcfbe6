"""Checks that read what the model's checkpoint holds beside config.json (the hub resolves these facts with
the config, vllmcheck/modelhub.py): ``model.files``, the names of the checkpoint folder's ``*.json`` files,
and ``model.tokens``, whether the tokenizer holds each of a few probed tokens. A profile whose facts are not
known (a pasted config.json, --hf-config-path, another --tokenizer, a model not resolved) says "could not
verify"."""

from tools.rulepack.expr import A, R, arg_true

MC = "model.config"
_TC = f"{MC}.text_config"


def _set(expr):
    return f"(has({expr}) && {expr} != null)"


# ------------------------------------------------------------------ a quantization method's config file
# weight_utils.get_quant_config (VllmConfig._get_quantization_config, every release 0.20.0-0.34.0): without
# a quantization_config in config.json (nor in its text_config, nor a compression_config), without
# hf_overrides' quantization_config_file / quantization_config_dict_json and without online quantization
# arguments (--quantization-config), a method whose get_config_filenames() is not empty globs the checkpoint
# folder's *.json files and refuses when none ends with one of those names. The methods checked here and
# their names per release (get_quantization_config's class for the name, its get_config_filenames(); real
# vLLM 0.20.0, 0.27.1 and 0.34.0 refuse each for an unquantized Llama-3.1-8B-Instruct): awq (AWQConfig,
# 0.24.0+ AutoAWQConfig) quant_config.json / quantize_config.json; gptq (GPTQConfig, 0.22.0+
# AutoGPTQConfig), gptq_marlin (GPTQMarlinConfig, 0.22.0+ AutoGPTQConfig), auto_gptq (0.22.0+), moe_wna16
# quantize_config.json; awq_marlin (AWQMarlinConfig) quantize_config.json, from 0.24.0 AutoAWQConfig's two
# names; auto_awq (0.24.0+) both; modelopt hf_quant_config.json; inc quantization_config.json. (method, file
# names, first minor, last minor)
_QUANT_FILES = [
    ("awq", ["quant_config.json", "quantize_config.json"], 20, 34),
    ("gptq", ["quantize_config.json"], 20, 34),
    ("gptq_marlin", ["quantize_config.json"], 20, 34),
    ("auto_gptq", ["quantize_config.json"], 22, 34),
    ("moe_wna16", ["quantize_config.json"], 20, 34),
    ("awq_marlin", ["quantize_config.json"], 20, 23),
    ("awq_marlin", ["quantize_config.json", "quant_config.json"], 24, 34),
    ("auto_awq", ["quantize_config.json", "quant_config.json"], 24, 34),
    ("modelopt", ["hf_quant_config.json"], 20, 34),
    ("inc", ["quantization_config.json"], 20, 34),
]
QUANT_FILES = {m: names for m, names, _, _ in _QUANT_FILES}
_OVERRIDES = "args.hf_overrides"
_FILE_OVERRIDE = (
    f"({_set(_OVERRIDES)} && type({_OVERRIDES}) == map && "
    f'("quantization_config_file" in {_OVERRIDES} || "quantization_config_dict_json" in {_OVERRIDES}))'
)
_CKPT_QUANT = (
    f"({_set(MC + '.quantization_config')} || "
    f"({_set(_TC)} && type({_TC}) == map && {_set(_TC + '.quantization_config')}) || "
    f"{_set(MC + '.compression_config')})"
)
_HAS_FILE = " || ".join(
    f'(args.quantization == "{method}" && vllm.minor >= {first} && vllm.minor <= {last} && '
    "model.files.exists(f, " + " || ".join(f'f.endsWith("{name}")' for name in names) + "))"
    for method, names, first, last in _QUANT_FILES
)
_CHECKED = " || ".join(
    f'(args.quantization == "{method}" && vllm.minor >= {first} && vllm.minor <= {last})'
    for method, _, first, last in _QUANT_FILES
)
# vLLM reads another folder than the one resolved (--download-dir, ModelScope): the facts do not apply.
_OTHER_FOLDER = (
    f"{A('download_dir')} || (has(env.VLLM_USE_MODELSCOPE) && "
    'env.VLLM_USE_MODELSCOPE.matches("^\\\\s*(1|(?i:true))\\\\s*$"))'
)
QUANT_FILE_MISSING = (
    f"{A('quantization')} && ({_CHECKED}) && !{A('quantization_config')} && "
    f"!({_OTHER_FOLDER}) && !{_FILE_OVERRIDE} && !{_CKPT_QUANT} && !({_HAS_FILE})"
)

# ------------------------------------------------------------------ a reasoning parser's think tokens
# ReasoningConfig.initialize_token_ids (VllmConfig.__post_init__, every release 0.20.0-0.34.0, whenever
# --reasoning-parser is given: EngineArgs._set_default_reasoning_config_args) builds the parser with the
# tokenizer; the parsers derived from BaseThinkingReasoningParser look their start and end tokens up in the
# tokenizer's vocabulary (added tokens included) and raise when either is missing. The registry names whose
# class is such a parser (its tokens literal, no __init__ before the base's), per release, read from each
# release's vllm/reasoning/__init__.py: (name, class, start, end, first minor, last minor).
THINKING_PARSERS = [
    ("deepseek_r1", "DeepSeekR1ReasoningParser", "<think>", "</think>", 20, 34),
    ("ernie45", "Ernie45ReasoningParser", "<think>", "</think>", 20, 34),
    ("gemma4", "Gemma4ReasoningParser", "<|channel>", "<channel|>", 20, 23),
    ("hy_v3", "HYV3ReasoningParser", "<think>", "</think>", 20, 24),
    ("mimo", "Qwen3ReasoningParser", "<think>", "</think>", 20, 23),
    ("minimax_m2", "MiniMaxM2ReasoningParser", "<think>", "</think>", 20, 23),
    ("minimax_m3", "MiniMaxM3ReasoningParser", "<mm:think>", "</mm:think>", 24, 34),
    ("nemotron_v3", "NemotronV3ReasoningParser", "<think>", "</think>", 20, 23),
    ("qwen3", "Qwen3ReasoningParser", "<think>", "</think>", 20, 23),
    ("seed_oss", "SeedOSSReasoningParser", "<seed:think>", "</seed:think>", 20, 24),
    ("step3p5", "Step3p5ReasoningParser", "<think>", "</think>", 20, 31),
    ("step5", "DeepSeekR1ReasoningParser", "<think>", "</think>", 33, 34),
]


def _parser_is(name, first, last):
    return f'(args.reasoning_parser == "{name}" && vllm.minor >= {first} && vllm.minor <= {last})'


_MISSING = " || ".join(
    f'({_parser_is(name, a, b)} && (!model.tokens["{start}"] || !model.tokens["{end}"]))'
    for name, _, start, end, a, b in THINKING_PARSERS
)
_KNOWN_PARSER = " || ".join(_parser_is(name, a, b) for name, _, _, _, a, b in THINKING_PARSERS)
# The tokenizer vLLM loads is another than the resolved one's files: a Mistral tokenizer (tekken,
# sentencepiece), or none at all (--skip-tokenizer-init, where vLLM refuses with another message).
_TOKENIZER_AS_READ = (
    f"!{arg_true('skip_tokenizer_init')} && "
    f'!({A("tokenizer_mode")} && !(args.tokenizer_mode in ["auto", "hf", "slow"]))'
)
THINK_TOKENS_MISSING = f"{A('reasoning_parser')} && ({_KNOWN_PARSER}) && {_TOKENIZER_AS_READ} && ({_MISSING})"
PARSER_CLASS = (
    "".join(f'{_parser_is(name, a, b)} ? "{cls}" : ' for name, cls, _, _, a, b in THINKING_PARSERS)
    + '"ReasoningParser"'
)

RULES = [
    R(
        "reasoning-parser-needs-tokenizer",
        "The model tokenizer must be passed to the ReasoningParser constructor during construction.",
        f"{A('reasoning_parser')} && ({_KNOWN_PARSER}) && {arg_true('skip_tokenizer_init')}",
        ["reasoning_parser", "skip_tokenizer_init"],
        ["Drop --skip-tokenizer-init: the reasoning parser needs the tokenizer", "Drop --reasoning-parser"],
        (
            "ReasoningConfig.initialize_token_ids builds the --reasoning-parser with the tokenizer, which "
            "--skip-tokenizer-init leaves out (None); a parser of the <think>...</think> kind refuses it."
        ),
        ["reasoning"],
        fix={"unset": ["skip_tokenizer_init"]},
    ),
    R(
        "quantization-config-file-missing",
        "Cannot find the config file for",
        QUANT_FILE_MISSING,
        ["quantization", "model"],
        [
            "Remove --quantization for an unquantized checkpoint (or serve the checkpoint quantized with "
            "that method)",
            "Use an online method that needs no file (e.g. --quantization fp8)",
        ],
        (
            "weight_utils.get_quant_config: a quantization method named with --quantization reads its "
            "settings from config.json's quantization_config or, failing that, from a file of the checkpoint "
            "(awq: quant_config.json or quantize_config.json; gptq, gptq_marlin, auto_gptq, moe_wna16: "
            "quantize_config.json; awq_marlin, auto_awq; modelopt: hf_quant_config.json; inc: "
            "quantization_config.json); an unquantized "
            "checkpoint has neither. Checked from the checkpoint's *.json names the hub resolved with "
            "config.json (the local directory, the cached snapshot offline, the repository's files online)."
        ),
        ["quantization", "model"],
        needs=["model.config", "model.files"],
        fix={"unset": ["quantization"]},
        values={"model_config.quantization": "args.quantization"},
    ),
    R(
        "reasoning-parser-think-tokens-missing",
        "reasoning parser could not locate think start/end tokens in the tokenizer!",
        THINK_TOKENS_MISSING,
        ["reasoning_parser", "model", "tokenizer"],
        [
            "Use the reasoning parser made for this model's family (or none)",
            "Serve a model whose tokenizer has the parser's think tokens",
        ],
        (
            "ReasoningConfig.initialize_token_ids builds the --reasoning-parser with the tokenizer at "
            "start-up; a parser of the <think>...</think> kind (deepseek_r1, qwen3 before 0.24.0, ...) "
            "looks its start and end tokens up in the tokenizer's vocabulary and refuses a tokenizer that "
            "lacks them (e.g. deepseek_r1 on a Llama model). Checked from the tokens the hub found in the "
            "model's tokenizer files (tokenizer.json, vocab.json, the added tokens)."
        ),
        ["reasoning", "model"],
        needs=["model.tokens"],
        fix={"unset": ["reasoning_parser"]},
        values={"self.__class__.__name__": PARSER_CLASS},
    ),
]

_LLAMA = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 8},
    "files": ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"],
    "tokens": {"<think>": False, "</think>": False},
}
_LLAMA_AWQ = {**_LLAMA, "files": [*_LLAMA["files"], "quant_config.json"]}
_DSR1 = {
    "name": "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
    "architecture": "LlamaForCausalLM",
    "config": {"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 8},
    "files": ["config.json", "tokenizer.json", "tokenizer_config.json"],
    "tokens": {"<think>": True, "</think>": True},
}

CASES = {
    "reasoning-parser-needs-tokenizer": (
        {"reasoning_parser": "deepseek_r1", "skip_tokenizer_init": True},
        {"reasoning_parser": "deepseek_r1"},
    ),
    "quantization-config-file-missing": (
        {"model": _LLAMA, "args": {"quantization": "awq"}},
        {"model": _LLAMA_AWQ, "args": {"quantization": "awq"}},
    ),
    "reasoning-parser-think-tokens-missing": (
        {"model": _LLAMA, "args": {"reasoning_parser": "deepseek_r1"}},
        {"model": _DSR1, "args": {"reasoning_parser": "deepseek_r1"}},
    ),
}
