"""Speculative decoding checks that read the draft model's config.json (`model.draft.config`): the number of
speculative tokens against the draft's n_predict, and DSpark's dspark_draft_topk against the draft vocabulary.
0.34.0 moved the first two into the speculators' configs (v1/worker/gpu/spec_decode/speculator_config.py), so
each is one rule per file."""

from tools.rulepack.coverage_expr import located
from tools.rulepack.expr import HAS_SPEC, SC, R, sub

D = "model.draft.config"
NST_SET = sub("speculative_config", "num_speculative_tokens")
NST = f"{SC}.num_speculative_tokens"
MODEL = sub("speculative_config", "model")
NP = f"{D}.n_predict"
HAS_NP = f"(has({NP}) && type({NP}) == int)"
NO_NP = f"(!has({NP}) || {NP} == null)"
# methods whose draft checkpoint is loaded and whose token count defaults from the draft's n_predict (DSpark
# takes its block size instead)
DRAFTED = f'({HAS_SPEC} && {MODEL} && derived.spec_method in ["eagle", "eagle3", "mtp", "draft_model"])'
TOPK = (
    f"({sub('speculative_config', 'dspark_draft_topk')} ? {SC}.dspark_draft_topk : "
    f"has({D}.dspark_draft_topk) ? {D}.dspark_draft_topk : null)"
)
DVS = (
    f"(has({D}.draft_vocab_size) && {D}.draft_vocab_size != null && {D}.draft_vocab_size != 0 ? "
    f"{D}.draft_vocab_size : {D}.vocab_size)"
)


def vocab(config):  # ModelConfig.get_vocab_size(): the text config's vocab_size
    return (
        f"(has({config}.text_config) && has({config}.text_config.vocab_size) ? "
        f"{config}.text_config.vocab_size : {config}.vocab_size)"
    )


TARGET_VS, DRAFT_VS = vocab("model.config"), vocab(D)
HETERO = f"({HAS_SPEC} && has({SC}.use_heterogeneous_vocab) && {SC}.use_heterogeneous_vocab == true)"
DIV_TEXT = f"num_speculative_tokens:{{{{ {NST} }}}} must be divisible by n_predict={{{{ {NP} | !r }}}}"
DIV = f"{DRAFTED} && {NST_SET} && {HAS_NP} && {NST} > {NP} && {NST} % {NP} != 0"

RULES = [
    R(
        "spec-num-tokens-required-0.20.0",
        "A speculative model was provided, but neither `speculative_token_tree` nor",
        f"{DRAFTED} && !{NST_SET} && {NO_NP} && !{sub('speculative_config', 'speculative_token_tree')}",
        ["speculative_config"],
        [
            "Set speculative_config.num_speculative_tokens (the draft's config gives no n_predict to "
            "default to)"
        ],
        "SpeculativeConfig.__post_init__ (0.20.x): a draft model whose config.json has no n_predict, with "
        "neither num_speculative_tokens nor a speculative_token_tree.",
        ["speculative-decoding", "model-config"],
        needs=["model.draft.config"],
    ),
    *located(
        "spec-num-tokens-required",
        [("0.21.0", "0.33.0"), ("0.34.0", "0.34.0")],
        "A speculative model was provided, but `num_speculative_tokens` was not provided",
        f"{DRAFTED} && !{NST_SET} && {NO_NP}",
        ["speculative_config"],
        [
            "Set speculative_config.num_speculative_tokens (the draft's config gives no n_predict to "
            "default to)"
        ],
        "SpeculativeConfig (0.34.0: DraftModelSpeculatorConfig.configure): a draft model whose config.json "
        "has no n_predict leaves num_speculative_tokens unset.",
        ["speculative-decoding", "model-config"],
        needs=["model.draft.config"],
    ),
    R(
        "spec-num-tokens-divisible-n-predict-0.20.0",
        "{self.num_speculative_tokens} must be divisible by n_predict=",
        DIV,
        ["speculative_config"],
        ["Use a num_speculative_tokens that is at most, or a multiple of, the draft's n_predict"],
        "SpeculativeConfig.__post_init__: MTP modules are reused, so more tokens than the draft's n_predict "
        "must be a multiple of it.",
        ["speculative-decoding", "model-config"],
        range=["0.20.0", "0.33.0"],
        needs=["model.draft.config"],
        msg_text="num_speculative_tokens:{self.num_speculative_tokens} must be divisible by {n_predict=}",
        message_template=DIV_TEXT,
    ),
    R(
        "spec-num-tokens-divisible-n-predict",
        "{spec.num_speculative_tokens} must be divisible by n_predict=",
        DIV,
        ["speculative_config"],
        ["Use a num_speculative_tokens that is at most, or a multiple of, the draft's n_predict"],
        "DraftModelSpeculatorConfig.resolve_num_speculative_tokens (0.34.0).",
        ["speculative-decoding", "model-config"],
        range=["0.34.0", None],
        needs=["model.draft.config"],
        msg_text="num_speculative_tokens:{spec.num_speculative_tokens} must be divisible by {n_predict=}",
        message_template=DIV_TEXT,
    ),
    R(
        "spec-draft-vocab-size-mismatch",
        "Target and draft model should have the same vocabulary size.",
        f'{HAS_SPEC} && {MODEL} && derived.spec_method == "draft_model" && !{HETERO} && '
        f"{TARGET_VS} != {DRAFT_VS}",
        ["speculative_config"],
        [
            "Use a draft model with the target's tokenizer (same vocabulary size)",
            "Use a speculative method without a separate draft model (ngram, or the target's MTP layers)",
        ],
        "SpeculativeConfig.verify_equal_vocab_size_if_draft_model: a separate draft model ('draft_model') "
        "must share the target's vocabulary (ModelConfig.get_vocab_size(), the text config's vocab_size).",
        ["speculative-decoding", "model-config"],
        needs=["model.config", "model.draft.config"],
        values={"target_vocab_size": TARGET_VS, "draft_vocab_size": DRAFT_VS},
    ),
    *located(
        "spec-dspark-draft-topk-range",
        [("0.28.0", "0.33.0"), ("0.34.0", "0.34.0")],
        "dspark_draft_topk must be between 1 and the draft vocabulary size",
        f'{HAS_SPEC} && {MODEL} && derived.spec_method == "dspark" && {TOPK} != null && '
        f"({TOPK} < 1 || {TOPK} > {DVS})",
        ["speculative_config"],
        ["Give dspark_draft_topk between 1 and the draft's vocabulary size"],
        "SpeculativeConfig.__post_init__ (0.34.0: DSparkSpeculatorConfig.apply_options; method 'dspark'): "
        "the value from speculative_config, else from the draft's config.json, against its draft_vocab_size "
        "(or vocab_size).",
        ["speculative-decoding", "dspark", "model-config"],
        needs=["model.draft.config"],
        values={"draft_vocab_size": DVS},
    ),
]

EAGLE_DRAFT = {
    "name": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
    "architecture": "EagleLlamaForCausalLM",
    "config": {"vocab_size": 128256},
}
MTP_DRAFT = dict(EAGLE_DRAFT, config={"vocab_size": 128256, "n_predict": 2})
DSPARK_DRAFT = {"name": "org/dspark", "architecture": "Qwen3DSparkModel", "config": {"vocab_size": 32000}}


def with_draft(spec, draft):
    return {"args": {"speculative_config": spec}, "model": dict(LLAMA, draft=draft)}


LLAMA = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256},
}
EAGLE = {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}
NEEDS = (with_draft(EAGLE, EAGLE_DRAFT), with_draft(dict(EAGLE, num_speculative_tokens=3), EAGLE_DRAFT))
DIVS = (
    with_draft(dict(EAGLE, num_speculative_tokens=3), MTP_DRAFT),
    with_draft(dict(EAGLE, num_speculative_tokens=4), MTP_DRAFT),
)
DSP = {"method": "dspark", "model": "org/dspark", "num_speculative_tokens": 8}

TOPK_CASE = (
    with_draft(dict(DSP, dspark_draft_topk=64000), DSPARK_DRAFT),
    with_draft(dict(DSP, dspark_draft_topk=64), DSPARK_DRAFT),
)

LLAMA_1B = {
    "name": "meta-llama/Llama-3.2-1B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"model_type": "llama", "vocab_size": 128256},
}
QWEN_DRAFT = {
    "name": "Qwen/Qwen3-0.6B",
    "architecture": "Qwen3ForCausalLM",
    "config": {"model_type": "qwen3", "vocab_size": 151936},
}
DRAFT_MODEL = {"method": "draft_model", "num_speculative_tokens": 4}
VOCAB_CASE = (
    with_draft(dict(DRAFT_MODEL, model="Qwen/Qwen3-0.6B"), QWEN_DRAFT),
    with_draft(dict(DRAFT_MODEL, model="meta-llama/Llama-3.2-1B-Instruct"), LLAMA_1B),
)

CASES = {
    "spec-draft-vocab-size-mismatch": VOCAB_CASE,
    "spec-num-tokens-required-0.20.0": NEEDS,
    "spec-num-tokens-required-0.21.0": NEEDS,
    "spec-num-tokens-required": NEEDS,
    "spec-num-tokens-divisible-n-predict-0.20.0": DIVS,
    "spec-num-tokens-divisible-n-predict": DIVS,
    "spec-dspark-draft-topk-range-0.28.0": TOPK_CASE,
    "spec-dspark-draft-topk-range": TOPK_CASE,
}
