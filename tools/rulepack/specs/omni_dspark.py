"""The standalone Qwen3-Omni DSpark draft checkpoint contract (speculative.py `_validate_qwen3_omni_dspark`,
0.29.0 - 0.34.0): with method 'dspark' on a Qwen3-Omni target, the draft model's config.json must match the
target thinker's text config. vLLM checks one thing after another and stops at the first problem, so each rule
here holds only when every earlier check passes (PASSED[:i]), and reads the draft's config
(`model.draft.config`) and the target's thinker text config (`model.config.thinker_config.text_config`).

Only profiles that set num_speculative_tokens are judged: vLLM defaults it from the draft in some releases."""

from tools.rulepack.expr import HAS_SPEC, IDX, SC, R, named, sub

D = "model.draft.config"
T = "model.config.thinker_config.text_config"
TARGETS = '["Qwen3OmniMoeForConditionalGeneration", "Qwen3OmniMoeThinkerForConditionalGeneration"]'
OMNI = (
    f"(model.architecture in {TARGETS} || (has(model.config.model_type) && model.config.model_type == "
    f'"qwen3_omni_moe") || (has(model.config.architectures) && model.config.architectures.exists(a, a in '
    f"{TARGETS})))"
)
NST = f"{SC}.num_speculative_tokens"
PRE = named(
    "omni_dspark_validated",
    f'{HAS_SPEC} && derived.spec_method == "dspark" && '
    f"{sub('speculative_config', 'num_speculative_tokens')} && "
    f"!{sub('speculative_config', 'dspark_draft_topk')} && "
    f"!{sub('speculative_config', 'draft_lm_head_quantization')} && {OMNI} && "
    f"has(model.config.thinker_config) && has({T}) && !has({D}.dspark_draft_topk)",
    "vLLM runs _validate_qwen3_omni_dspark (speculative.py, 0.29.0-0.34.0): method 'dspark' with "
    "num_speculative_tokens set (no dspark_draft_topk or draft_lm_head_quantization) on a Qwen3-Omni target "
    "(model_type qwen3_omni_moe or a Qwen3OmniMoe architecture) whose thinker_config has a text_config, "
    "the draft's config.json (model.draft.config) without dspark_draft_topk.",
)


def val(cfg, name):  # getattr(cfg, name, None)
    return f"(has({cfg}.{name}) ? {cfg}.{name} : null)"


def nested(cfg, section, name):  # _get_nested_config_value
    return (
        f"(has({cfg}.{section}) && type({cfg}.{section}) == map && has({cfg}.{section}.{name}) ? "
        f"{cfg}.{section}.{name} : null)"
    )


def dspark_value(name):  # _get_qwen3_dspark_value: dflash_config, then eagle_config, then the top level
    a, b = nested(D, "dflash_config", name), nested(D, "eagle_config", name)
    return named(
        f"omni_dspark_draft_{name}",
        f"({a} != null ? {a} : {b} != null ? {b} : {val(D, name)})",
        f"The draft config's {name} as _get_qwen3_dspark_value reads it: from dflash_config, else from "
        "eagle_config, else from the top level; null where none has it.",
    )


def pos_int(x):
    return f"(type({x}) == int && {x} > 0)"


BS1 = dspark_value("block_size")
BLOCK = named(
    "omni_dspark_block_size",
    f"({BS1} != null ? {BS1} : {dspark_value('dspark_block_size')})",
    "The draft's trained block size for Qwen3-Omni DSpark: block_size, else dspark_block_size (each read "
    "as _get_qwen3_dspark_value reads it).",
)
HID = f"{T}.hidden_size"


def head_dim(cfg):  # _get_attention_head_dim
    hs, nh = val(cfg, "hidden_size"), val(cfg, "num_attention_heads")
    computed = (
        f"(type({hs}) == int && type({nh}) == int && {nh} > 0 && {hs} % {nh} == 0 ? {hs} / {nh} : null)"
    )
    return f"({val(cfg, 'head_dim')} != null ? {val(cfg, 'head_dim')} : {computed})"


def attention(cfg, who):
    nah = val(cfg, "num_attention_heads")
    values = {
        "num_attention_heads": nah,
        "num_key_value_heads": f"(has({cfg}.num_key_value_heads) ? {cfg}.num_key_value_heads : {nah})",
        "head_dim": head_dim(cfg),
    }
    return {
        n: named(
            f"omni_dspark_{who}_{n}",
            expr,
            f"The {n} of the {'target thinker text config' if who == 'target' else 'draft config'} as "
            "_validate_qwen3_omni_dspark reads it (num_key_value_heads defaults to num_attention_heads; "
            "head_dim to hidden_size / num_attention_heads when that divides); null where it is not given.",
        )
        for n, expr in values.items()
    }


TA, DA = attention(T, "target"), attention(D, "draft")
NAMES = list(TA)
ATT_OK = [f"({pos_int(TA[n])} && {DA[n]} == {TA[n]})" for n in NAMES]


def att_first(name, what, bad):
    """Per attribute (in vLLM's order), whether its check `bad(n)` is the first to fail, the earlier all
    passing: one derived value each (`omni_dspark_<name>_<attribute>`)."""
    return [
        named(
            f"omni_dspark_{name}_{n}",
            " && ".join([*ATT_OK[:i], bad(n)]),
            f"The {n} is the first attention attribute that {what} (_validate_qwen3_omni_dspark checks "
            f"{', '.join(NAMES)} in this order; each must be a positive int in the target and the draft's "
            "must equal it).",
        )
        for i, n in enumerate(NAMES)
    ]


T_BAD = att_first("target_invalid", "is not a positive int in the target", lambda n: f"!{pos_int(TA[n])}")
D_BAD = att_first(
    "draft_mismatch", "the draft gives differently", lambda n: f"{pos_int(TA[n])} && {DA[n]} != {TA[n]}"
)


def pick(conds, values):  # CEL of the value belonging to the first condition that holds
    out = "null"
    for c, v in reversed(list(zip(conds, values, strict=True))):
        out = f"(({c}) ? {v} : {out})"
    return out


TL1 = nested(D, "dflash_config", "target_layer_ids")
TL2 = val(D, "dspark_target_layer_ids")
LAYERS = named(
    "omni_dspark_target_layer_ids",
    f"({TL1} != null ? {TL1} : {TL2} != null ? {TL2} : {val(D, 'target_layer_ids')})",
    "The draft's target_layer_ids for Qwen3-Omni DSpark: dflash_config.target_layer_ids, else "
    "dspark_target_layer_ids, else target_layer_ids; null where none is given.",
)
NLAYERS = f"{T}.num_hidden_layers"
VOCAB_IN = val(D, "vocab_size")
VOCAB_OUT = named(
    "omni_dspark_draft_output_vocab_size",
    f"({val(D, 'draft_vocab_size')} != null ? {val(D, 'draft_vocab_size')} : {VOCAB_IN})",
    "The draft's output vocabulary size: draft_vocab_size, else vocab_size (null where neither is given).",
)
# The draft's mask/noise token id: the first of dflash_config.mask_token_id and these keys that is not null,
# one derived value per fallback (each reads the previous one twice).
NOISE = nested(D, "dflash_config", "mask_token_id")
_NOISE_KEYS = ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id")
for _i, _n in enumerate(_NOISE_KEYS):
    _last = _i == len(_NOISE_KEYS) - 1
    NOISE = named(
        "omni_dspark_noise_token_id" if _last else f"omni_dspark_noise_token_id_{_i + 1}",
        f"({NOISE} != null ? {NOISE} : {val(D, _n)})",
        "The draft's mask/noise token id: the first of dflash_config.mask_token_id, "
        + ", ".join(_NOISE_KEYS[: _i + 1])
        + " that the draft config gives (not null)"
        + (
            "." if _last else f"; the later fallbacks ({', '.join(_NOISE_KEYS[_i + 1 :])}) are read after it."
        ),
    )


def rope_has_mrope(key):
    return f"(has({D}.{key}) && type({D}.{key}) == map && has({D}.{key}.mrope_section))"


# (id, vLLM's message, the check's failure, values, solution, fields from the draft's config)
STEPS = [
    (
        "omni-dspark-draft-architecture",
        "Qwen3-Omni DSpark requires a standalone draft checkpoint with architectures=",
        f'!(has({D}.architectures) && "Qwen3OmniDSparkModel" in {D}.architectures)',
        {"_QWEN3_OMNI_DSPARK_ARCHITECTURE": '"Qwen3OmniDSparkModel"'},
        "Convert the Qwen3DSparkModel checkpoint to a standalone Qwen3OmniDSparkModel draft",
    ),
    (
        "omni-dspark-block-size",
        "Qwen3-Omni DSpark requires a positive integer block_size in the draft config.",
        f"!{pos_int(BLOCK)}",
        {},
        "Use a draft checkpoint whose config gives block_size (or dspark_block_size)",
    ),
    (
        "omni-dspark-num-tokens-block-size",
        "Qwen3-Omni DSpark requires num_speculative_tokens to match the trained block_size",
        f"{NST} != {BLOCK}",
        {"block_size": BLOCK, "num_speculative_tokens": NST},
        "Set speculative_config.num_speculative_tokens to the draft's block_size",
    ),
    (
        "omni-dspark-target-hidden-size",
        "Qwen3-Omni DSpark draft target_hidden_size must match the target text hidden size",
        f"!(has({HID}) && {val(D, 'target_hidden_size')} == {HID})",
        {"target_hidden_size": HID, "draft_target_hidden_size": val(D, "target_hidden_size")},
        "Use the DSpark draft trained for this target (its target_hidden_size is the thinker's hidden_size)",
    ),
    (
        "omni-dspark-hidden-size",
        "Qwen3-Omni DSpark draft hidden_size must match the target thinker hidden size",
        f"{val(D, 'hidden_size')} != {HID}",
        {"target_hidden_size": HID, "draft_hidden_size": val(D, "hidden_size")},
        "Use the DSpark draft trained for this target",
    ),
    (
        "omni-dspark-target-attention-value",
        "Qwen3-Omni DSpark requires a positive integer {name} in the target thinker text_config",
        " || ".join(f"({c})" for c in T_BAD),
        {"name": pick(T_BAD, [f'"{n}"' for n in NAMES]), "target_value": pick(T_BAD, [TA[n] for n in NAMES])},
        "Check the target's thinker_config.text_config (num_attention_heads, num_key_value_heads, head_dim)",
    ),
    (
        "omni-dspark-draft-attention-value",
        "Qwen3-Omni DSpark draft {name} must match the target thinker value",
        " || ".join(f"({c})" for c in D_BAD),
        {
            "name": pick(D_BAD, [f'"{n}"' for n in NAMES]),
            "target_value": pick(D_BAD, [TA[n] for n in NAMES]),
            "draft_value": pick(D_BAD, [DA[n] for n in NAMES]),
        },
        "Use the DSpark draft trained for this target (same attention heads, KV heads and head size)",
    ),
    (
        "omni-dspark-target-layer-ids-list",
        "Qwen3-Omni DSpark requires a non-empty target_layer_ids list in the draft config.",
        f"!(type({LAYERS}) == list && size({LAYERS}) > 0)",
        {},
        "Use a draft checkpoint whose config lists target_layer_ids",
    ),
    (
        "omni-dspark-target-layer-ids-int",
        "Qwen3-Omni DSpark target_layer_ids must contain only integers.",
        f"{LAYERS}.exists(x, type(x) != int)",
        {},
        "Give target_layer_ids as integers",
    ),
    (
        "omni-dspark-target-layer-ids-increasing",
        "Qwen3-Omni DSpark target_layer_ids must be unique and strictly increasing.",
        f"{IDX}.exists(i, i < size({LAYERS}) && {LAYERS}[i - 1] >= {LAYERS}[i])",
        {},
        "List target_layer_ids in strictly increasing order",
    ),
    (
        "omni-dspark-target-layer-ids-range",
        "Qwen3-Omni DSpark target_layer_ids must be zero-based text-layer indices in",
        f"has({NLAYERS}) && ({LAYERS}[0] < 0 || {LAYERS}[size({LAYERS}) - 1] >= {NLAYERS})",
        {"target_num_layers - 1": f"{NLAYERS} - 1", "target_layer_ids": LAYERS},
        "Use target_layer_ids between 0 and the thinker's num_hidden_layers - 1",
    ),
    (
        "omni-dspark-aux-hidden-state",
        "Qwen3-Omni DSpark requires use_aux_hidden_state=true because Omni conditioning",
        f"{dspark_value('use_aux_hidden_state')} != true",
        {},
        "Use a draft checkpoint trained with use_aux_hidden_state=true",
    ),
    (
        "omni-dspark-markov-rank",
        "Qwen3-Omni DSpark requires a positive integer markov_rank in the draft config.",
        f"!{pos_int(val(D, 'markov_rank'))}",
        {},
        "Use a draft checkpoint whose config gives a positive markov_rank",
    ),
    (
        "omni-dspark-markov-head-type",
        "Qwen3-Omni DSpark currently requires markov_head_type='vanilla'",
        f'{val(D, "markov_head_type")} != "vanilla"',
        {"markov_head_type": val(D, "markov_head_type")},
        "Use a draft checkpoint with markov_head_type 'vanilla'",
    ),
    (
        "omni-dspark-anchor",
        "Qwen3-Omni DSpark requires sample_from_anchor=true and dspark_bonus_anchor=false.",
        f"(has({D}.sample_from_anchor) && {D}.sample_from_anchor != true) || "
        f"(has({D}.dspark_bonus_anchor) && {D}.dspark_bonus_anchor != false)",
        {},
        "Use a draft checkpoint with sample_from_anchor true and dspark_bonus_anchor false",
    ),
    (
        "omni-dspark-input-vocab",
        "Qwen3-Omni DSpark input vocab_size must be a positive integer",
        f"!{pos_int(VOCAB_IN)}",
        {"draft_input_vocab_size": VOCAB_IN},
        "Use a draft checkpoint whose config gives vocab_size",
    ),
    (
        "omni-dspark-draft-vocab",
        "Qwen3-Omni DSpark draft_vocab_size must be a positive integer no larger than target vocab_size",
        f"has({T}.vocab_size) && !({pos_int(VOCAB_OUT)} && {VOCAB_OUT} <= {T}.vocab_size)",
        {"target_vocab_size": f"{T}.vocab_size", "draft_output_vocab_size": VOCAB_OUT},
        "Use a draft whose draft_vocab_size is at most the target's vocab_size",
    ),
    (
        "omni-dspark-noise-token",
        "Qwen3-Omni DSpark requires a valid mask/noise token id within the draft input vocabulary",
        f"!(type({NOISE}) == int && {NOISE} >= 0 && {NOISE} < {VOCAB_IN})",
        {"draft_input_vocab_size - 1": f"{VOCAB_IN} - 1"},
        "Use a draft checkpoint whose mask_token_id lies inside its vocabulary",
    ),
    (
        "omni-dspark-no-mrope",
        "Qwen3-Omni DSpark draft checkpoints must use logical 1-D RoPE and must not define mrope_section.",
        f"{val(D, 'mrope_section')} != null || {rope_has_mrope('rope_parameters')} || "
        f"{rope_has_mrope('rope_scaling')}",
        {},
        "Use a draft checkpoint without mrope_section",
    ),
]

# Each rule holds when every earlier check passes: the checks up to each one, named in turn
# (`omni_dspark_passes_<check>`), so a rule's condition is the previous checks' name and its own failure.
PASSES = [PRE]
for _rid, _msg, _fail, _v, _s in STEPS[:-1]:
    _check = _rid.removeprefix("omni-dspark-")
    PASSES.append(
        named(
            f"omni_dspark_passes_{_check.replace('-', '_')}",
            f"{PASSES[-1]} && !({_fail})",
            f"_validate_qwen3_omni_dspark runs and its checks up to and including {_check} (rule {_rid}) "
            "pass.",
        )
    )

RULES = [
    R(
        rid,
        msg,
        f"{PASSES[i]} && ({fail})",
        ["speculative_config"],
        [solution, "Use another speculative method for this model"],
        "speculative.py _validate_qwen3_omni_dspark (called for method 'dspark' on a Qwen3-Omni target, "
        "model_type qwen3_omni_moe or a Qwen3OmniMoe architecture), read from the draft model's config.json "
        "and the target's thinker_config.text_config; vLLM stops at the first failing check, in this order.",
        ["speculative-decoding", "dspark", "model-config"],
        needs=["model.config", "model.draft.config"],
        **({"values": values} if values else {}),
    )
    for i, (rid, msg, fail, values, solution) in enumerate(STEPS)
]

TARGET = {
    "name": "Qwen/Qwen3-Omni-30B-A3B-Instruct",
    "architecture": "Qwen3OmniMoeForConditionalGeneration",
    "config": {
        "model_type": "qwen3_omni_moe",
        "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
        "thinker_config": {
            "text_config": {
                "hidden_size": 2048,
                "num_attention_heads": 32,
                "num_key_value_heads": 4,
                "head_dim": 128,
                "num_hidden_layers": 48,
                "vocab_size": 152064,
            }
        },
    },
}
GOOD_DRAFT = {
    "architectures": ["Qwen3OmniDSparkModel"],
    "block_size": 8,
    "target_hidden_size": 2048,
    "hidden_size": 2048,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "target_layer_ids": [1, 23, 45],
    "use_aux_hidden_state": True,
    "markov_rank": 4,
    "markov_head_type": "vanilla",
    "vocab_size": 152064,
    "mask_token_id": 151669,
}
SPEC = {"method": "dspark", "model": "org/qwen3-omni-dspark", "num_speculative_tokens": 8}


def case(**draft_changes):
    draft = {k: v for k, v in GOOD_DRAFT.items() if k not in draft_changes or draft_changes[k] is not None}
    draft.update({k: v for k, v in draft_changes.items() if v is not None})
    model = dict(
        TARGET, draft={"name": SPEC["model"], "architecture": "Qwen3OmniDSparkModel", "config": draft}
    )
    return {"args": {"speculative_config": SPEC}, "model": model}


def spec_case(**spec_changes):
    out = case()
    out["args"] = {"speculative_config": dict(SPEC, **spec_changes)}
    return out


GOOD = case()
CASES = {
    "omni-dspark-draft-architecture": (case(architectures=["Qwen3DSparkModel"]), GOOD),
    "omni-dspark-block-size": (case(block_size=None), GOOD),
    "omni-dspark-num-tokens-block-size": (spec_case(num_speculative_tokens=4), GOOD),
    "omni-dspark-target-hidden-size": (case(target_hidden_size=4096), GOOD),
    "omni-dspark-hidden-size": (case(hidden_size=1024), GOOD),
    "omni-dspark-target-attention-value": (
        dict(
            case(),
            model=dict(
                case()["model"],
                config={
                    **TARGET["config"],
                    "thinker_config": {
                        "text_config": {
                            **TARGET["config"]["thinker_config"]["text_config"],
                            "num_key_value_heads": 0,
                        }
                    },
                },
            ),
        ),
        GOOD,
    ),
    "omni-dspark-draft-attention-value": (case(num_key_value_heads=8), GOOD),
    "omni-dspark-target-layer-ids-list": (case(target_layer_ids=[]), GOOD),
    "omni-dspark-target-layer-ids-int": (case(target_layer_ids=[1, "23"]), GOOD),
    "omni-dspark-target-layer-ids-increasing": (case(target_layer_ids=[1, 23, 23]), GOOD),
    "omni-dspark-target-layer-ids-range": (case(target_layer_ids=[1, 23, 48]), GOOD),
    "omni-dspark-aux-hidden-state": (case(use_aux_hidden_state=False), GOOD),
    "omni-dspark-markov-rank": (case(markov_rank=0), GOOD),
    "omni-dspark-markov-head-type": (case(markov_head_type="gated"), GOOD),
    "omni-dspark-anchor": (case(dspark_bonus_anchor=True), GOOD),
    "omni-dspark-input-vocab": (case(vocab_size=None), GOOD),
    "omni-dspark-draft-vocab": (case(draft_vocab_size=200000), GOOD),
    "omni-dspark-noise-token": (case(mask_token_id=152064), GOOD),
    "omni-dspark-no-mrope": (case(rope_scaling={"mrope_section": [16, 24, 24]}), GOOD),
}
