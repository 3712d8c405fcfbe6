"""Catalog checks on the committed catalogs and on small synthetic ones (no database)."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.checks import (
    HistoryIndex,
    catalog_index,
    check_catalog,
    did_you_mean,
    history_index,
    osa_distance,
    value_problem,
)

CATALOGS = Path(__file__).resolve().parents[2] / "vllmcheck" / "catalogs"


@cache
def catalog(version: str) -> Catalog:
    return Catalog.load(CATALOGS / f"{version}.json")


@cache
def history() -> HistoryIndex:
    return HistoryIndex({p.stem: catalog(p.stem) for p in CATALOGS.glob("*.json")})


def rules(findings) -> list[str]:
    return [f.rule for f in findings]


def arg(name: str, **extra) -> dict:
    return {"name": name, "flags": ["--" + name.replace("_", "-")], "type": "str", "help": "", **extra}


def synthetic(version: str, arguments: list[dict], config_classes: dict | None = None) -> Catalog:
    return Catalog.from_dict(
        {"version": version, "arguments": arguments, "config_classes": config_classes or {}}
    )


# ---- did-you-mean


def test_typo_gets_the_flag_it_meant():
    c = catalog("0.33.0")
    assert did_you_mean("--tensor-paralel-size", c) == "--tensor-parallel-size"
    assert did_you_mean("--gpu-memroy-utilization", c) == "--gpu-memory-utilization"
    assert did_you_mean("--enable-prefx-caching", c) == "--enable-prefix-caching"
    assert did_you_mean("--tp", c) == "-tp"
    assert did_you_mean("--completely-unrelated-flag", c) is None


def test_osa_distance_with_a_limit_agrees_with_the_full_distance():
    rnd = random.Random(7)
    words = list(catalog_index(catalog("0.33.0")).options.words)
    assert osa_distance("ab", "ba") == 1 and osa_distance("kitten", "sitting") == 3
    for _ in range(1000):
        a, b = rnd.choice(words), rnd.choice(words)
        if rnd.random() < 0.5:
            b = _mutate(a, rnd, rnd.randint(1, 4))
        for limit in (0, 1, 2, 3):
            assert osa_distance(a, b, limit) == min(osa_distance(a, b), limit + 1), (a, b, limit)


_ALPHABET = "abcdefghijklmnopqrstuvwxyz-_0123456789"


def _mutate(word: str, rnd: random.Random, edits: int, kind: int | None = None) -> str:
    for _ in range(edits):
        op = rnd.randrange(4) if kind is None else kind
        i = rnd.randrange(len(word)) if word else 0
        if op == 0 and len(word) > 1:
            word = word[:i] + word[i + 1 :]
        elif op == 1:
            word = word[:i] + rnd.choice(_ALPHABET) + word[i:]
        elif op == 2 and word:
            word = word[:i] + rnd.choice(_ALPHABET) + word[i + 1 :]
        elif len(word) > 1:
            i = min(i, len(word) - 2)
            word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word


def test_did_you_mean_never_misses_what_brute_force_finds():
    """Every option string of 0.33.0, mutated by one edit (each kind in turn) and every third one by two or
    three edits: the indexed search returns exactly what measuring every option string returns."""
    options = catalog_index(catalog("0.33.0")).options
    rnd = random.Random(2024)
    queries = []
    for i, word in enumerate(options.words):
        queries.append(_mutate(word, rnd, 1, i % 4))
        if i % 3 == 0:
            queries.append(_mutate(word, rnd, 2 + i % 2))
    fast = [options.nearest(q) for q in queries]
    slow = [options.nearest_brute_force(q) for q in queries]
    misses = [(q, f, s) for q, f, s in zip(queries, fast, slow, strict=True) if f != s]
    assert not misses, misses[:10]
    assert sum(s is not None for s in slow) > len(options.words) * 0.9


def test_brute_force_with_full_distances_agrees_on_a_sample():
    options = catalog_index(catalog("0.33.0")).options
    rnd = random.Random(5)
    for word in rnd.sample(options.words, 8):
        query = _mutate(word, rnd, 2)
        assert options.nearest(query) == options.nearest_brute_force(query, full=True)


# ---- unknown, removed, deprecated


def test_unknown_argument_suggests_and_offers_a_fix():
    [finding] = check_catalog({"tensor_paralel_size": 2}, catalog("0.33.0"), history=history())
    assert finding.rule == "catalog-unknown-argument" and finding.severity == "error"
    assert "did you mean --tensor-parallel-size?" in finding.message
    assert finding.fix == {"unset": ["tensor_paralel_size"], "set": {"tensor_parallel_size": 2}}


def test_removed_argument_names_the_release_that_removed_it():
    findings = check_catalog(
        {"max_num_partial_prefills": 2, "calculate_kv_scales": True}, catalog("0.33.0"), history=history()
    )
    assert rules(findings) == ["catalog-removed-argument"] * 2
    first, second = (f.message for f in findings)
    assert "--max-num-partial-prefills was removed in vLLM 0.27.0 (last present in 0.26.0)" in first
    assert "--calculate-kv-scales was removed in vLLM 0.28.0 (last present in 0.27.1)" in second
    assert any("will be removed in v0.19" in s for s in findings[1].solutions)


def test_renamed_argument_names_its_replacement():
    [finding] = check_catalog(
        {"enable_mamba_fine_grained_prefix_cache": True}, catalog("0.33.0"), history=history()
    )
    assert finding.rule == "catalog-removed-argument"
    assert "removed in vLLM 0.31.0" in finding.message
    assert "use --enable-mamba-shared-prefix-checkpoint instead" in finding.message
    assert finding.fix == {
        "unset": ["enable_mamba_fine_grained_prefix_cache"],
        "set": {"enable_mamba_shared_prefix_checkpoint": True},
    }


def test_replacement_from_the_deprecation_text_of_the_last_release_that_had_it():
    old = synthetic(
        "1.0.0",
        [
            arg("old_flag", deprecated=True, deprecation="--old-flag is deprecated; use --new-flag instead."),
            arg("new_flag"),
            arg("other"),
        ],
    )
    mid = synthetic("1.1.0", [arg("new_flag"), arg("other")])
    new = synthetic("1.2.0", [arg("new_flag"), arg("other")])
    hist = HistoryIndex({"1.0.0": old, "1.1.0": mid, "1.2.0": new})
    [finding] = check_catalog({"old_flag": "x"}, new, history=hist)
    assert "removed in vLLM 1.1.0 (last present in 1.0.0)" in finding.message
    assert "use --new-flag instead" in finding.message
    assert finding.fix == {"unset": ["old_flag"], "set": {"new_flag": "x"}}
    # A help sentence that merely mentions another option is no replacement.
    old2 = synthetic("1.0.0", [arg("gone", help="Only with `other` set."), arg("other")])
    hist2 = HistoryIndex({"1.0.0": old2, "1.2.0": new})
    [finding] = check_catalog({"gone": "x"}, new, history=hist2)
    assert "instead" not in finding.message and finding.fix == {"unset": ["gone"]}


def test_argument_of_a_later_release_says_when_it_arrives():
    [finding] = check_catalog({"watchdog_config": {}}, catalog("0.32.0"), history=history())
    assert finding.rule == "catalog-unknown-argument"
    assert "added in vLLM 0.33.0" in finding.message and "did you mean" not in finding.message


def test_top_level_field_of_a_json_argument_is_pointed_there():
    [finding] = check_catalog({"num_speculative_tokens": 3}, catalog("0.33.0"), history=history())
    assert "--speculative-config.num_speculative_tokens" in finding.message


def test_deprecated_argument_warns_with_vllms_text():
    [finding] = check_catalog({"log_config_file": "x.json"}, catalog("0.33.0"))
    assert finding.rule == "catalog-deprecated-argument" and finding.severity == "warning"
    assert finding.message == (
        "--log-config-file is deprecated and will be removed in v0.33.0. "
        "Use --logging-config.pylogging_config_file instead."
    )


def test_history_index_is_built_once_per_set_of_catalogs():
    catalogs = {v: catalog(v) for v in ("0.26.0", "0.27.0", "0.33.0")}
    assert history_index(catalogs) is history_index(dict(catalogs))
    assert history_index(history()) is history()


# ---- values


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"tensor_parallel_size": 2}, []),
        ({"tensor_parallel_size": "2"}, ["catalog-invalid-value"]),
        ({"tensor_parallel_size": 0}, ["catalog-invalid-value"]),  # bounds ge 1
        ({"gpu_memory_utilization": 1.5}, ["catalog-invalid-value"]),
        ({"gpu_memory_utilization": 1}, []),  # int is a float
        ({"max_model_len": "auto"}, []),  # special value
        ({"max_model_len": -1}, []),
        ({"max_model_len": "32k"}, []),  # human-readable int
        ({"enforce_eager": "yes"}, ["catalog-invalid-value"]),
        ({"kv_cache_dtype": "fp9"}, ["catalog-invalid-value"]),  # not a choice: CacheConfig checks the set
        ({"kv_cache_dtype": "fp8_e4m3"}, []),
        ({"tool_strict_level": None}, []),  # None among the choices
        ({"dcp_comm_backend": "a2b"}, ["catalog-invalid-value"]),
        ({"collect_detailed_traces": ["model", "worker"]}, []),
        ({"collect_detailed_traces": ["model", "gpu"]}, ["catalog-invalid-value"]),
        ({"numa_bind_nodes": [0, "x"]}, ["catalog-invalid-value"]),
        ({"speculative_config": None}, []),  # nullable
        ({"speculative_config": [1]}, ["catalog-invalid-value"]),
        ({"speculative_config": '{"method": "ngram"}'}, []),
        ({"hf_overrides": {"anything": 1}}, []),  # free-form JSON
    ],
)
def test_values(args, expected):
    assert rules(check_catalog(args, catalog("0.33.0"))) == expected


def test_invalid_choice_lists_the_choices():
    problem = value_problem(catalog("0.33.0").by_name["dcp_comm_backend"], "a2b")
    assert problem == "argument --dcp-comm-backend: invalid choice: 'a2b' (choose from 'a2a', 'ag_rs')"


# ---- keys of JSON-valued arguments


def test_config_keys_are_checked_against_the_config_class():
    c = catalog("0.33.0")
    findings = check_catalog(
        {
            "speculative_config": {"method": "ngramm", "num_speculative_tokenz": 3, "prompt_lookup_max": 4},
            "compilation_config": {
                "mode": 3,
                "pass_config": {"fuse_norm_quantt": True, "fuse_norm_quant": "x"},
            },
        },
        c,
    )
    by_rule = {(f.rule, f.message) for f in findings}
    assert (
        "catalog-unknown-config-key",
        next(m for r, m in by_rule if "num_speculative_tokenz" in m),
    ) in by_rule
    messages = [f.message for f in findings]
    assert any("did you mean 'num_speculative_tokens'" in m for m in messages)
    assert any(
        m.startswith("argument --speculative-config.method: invalid choice: 'ngramm'") for m in messages
    )
    nested = next(f for f in findings if "fuse_norm_quantt" in f.message)
    assert nested.message.startswith("--compilation-config.pass_config: PassConfig has no field")
    assert "did you mean 'fuse_norm_quant'?" in nested.message
    bad_bool = next(f for f in findings if "pass_config.fuse_norm_quant:" in f.message)
    assert bad_bool.rule == "catalog-invalid-config-value"
    assert len(findings) == 4


def test_config_keys_follow_pydantic_lax_coercion():
    c = catalog("0.33.0")
    ok = {"num_speculative_tokens": "3", "prompt_lookup_max": 4.0, "method": "ngram"}
    assert check_catalog({"speculative_config": ok}, c) == []
    assert (
        check_catalog({"compilation_config": {"compile_sizes": [1, 2, "cudagraph_capture_sizes"]}}, c) == []
    )
    assert rules(check_catalog({"speculative_config": {"num_speculative_tokens": 2.5}}, c)) == [
        "catalog-invalid-config-value"
    ]


def test_quantization_specs_take_the_names_vllm_takes_and_refuse_the_others_in_its_words():
    """QuantizationConfigArgs' linear/moe specs take an object or a name (an online shorthand or a
    quantization key), which their validator turns into a spec; QuantSpec's keys take names only."""

    def problems(version: str, config: dict, quantization: str = "online") -> list[str]:
        args = {"quantization": quantization, "quantization_config": config}
        return [f.message for f in check_catalog(args, catalog(version))]

    for version in ("0.28.0", "0.29.0", "0.30.0", "0.34.0"):
        assert problems(version, {"moe": "mxfp4"}, "mxfp4") == [], version
        assert problems(version, {"moe": {"weight": "mxfp4"}}, "mxfp4") == [], version
        assert problems(version, {"moe": "int8_per_channel_weight_only", "linear": "fp8_per_token"}) == []
        assert problems(version, {"linear": {"weight": None, "activation": "fp8_per_token"}}) == []
    # mxfp4 is a shorthand from 0.28.0; before, a quantization key name only (which the specs take too)
    assert problems("0.24.0", {"moe": "mxfp4", "linear": {"weight": "mxfp4"}}) == []
    names = (
        "['fp8_per_block_dynamic', 'fp8_per_block_static', 'fp8_per_channel_static', "
        "'fp8_per_tensor_dynamic', 'fp8_per_tensor_static', 'fp8_per_token', 'int8_per_channel_static', "
        "'mxfp4', 'mxfp8']"
    )
    assert problems("0.28.0", {"moe": {"weight": "mxfp9"}}) == [
        "argument --quantization-config.moe.weight: Value error, unknown quantization name 'mxfp9'; "
        f"expected one of {names}"
    ]
    assert problems("0.28.0", {"moe": "fp9"}) == [
        f"argument --quantization-config.moe: Value error, unknown quantization name 'fp9'; expected one of {names}"
    ]
    assert problems("0.28.0", {"linear": "int8_per_channel_weight_only"}) == [
        "argument --quantization-config.linear: Value error, online shorthand 'int8_per_channel_weight_only' "
        "does not define a linear spec"
    ]
    assert problems("0.34.0", {"moe": "mxfp4_hadamard32", "linear": "mxfp4_hadamard32"}) == [
        "argument --quantization-config.moe: Value error, online shorthand 'mxfp4_hadamard32' does not define "
        "a moe spec"
    ]
    # a key is a name: vLLM's validator refuses an object (QuantKey is not built from JSON)
    assert problems("0.28.0", {"moe": {"weight": {"dtype": "fp8"}}}) == [
        "argument --quantization-config.moe.weight: invalid str value: {'dtype': 'fp8'}"
    ]
    assert rules(check_catalog({"quantization_config": {"moe": 4}}, catalog("0.28.0"))) == [
        "catalog-invalid-config-value"
    ]


def test_quantization_targets_take_what_vllm_takes_and_refuse_the_rest_in_its_words():
    """From 0.30.0 QuantizationConfigArgs.targets (typed dict[str, str]) has a field_validator that refuses a
    non-object and any value but an online shorthand name; 0.34.0 also takes a spec object. Messages as
    real vLLM 0.34.0 printed them for these values (pydantic's "Value error, ..." part)."""

    def problems(version: str, targets) -> list[str]:
        return [
            f.message for f in check_catalog({"quantization_config": {"targets": targets}}, catalog(version))
        ]

    for version in ("0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0"):
        assert problems(version, {"re:.*mlp.*": "fp8_per_tensor"}) == [], version
        assert problems(version, None) == [], version
        assert problems(version, {}) == [], version
        assert problems(version, "fp8_per_tensor") == [
            "argument --quantization-config.targets: targets must be a dict, got str"
        ], version
        assert problems(version, ["fp8_per_tensor"]) == [
            "argument --quantization-config.targets: targets must be a dict, got list"
        ], version
    names = (
        "['fp8_per_block', 'fp8_per_channel', 'fp8_per_tensor', 'int8_per_channel_weight_only', 'lut_b_moe', "
        "'mxfp4', 'mxfp4_hadamard32', 'mxfp8', 'nvfp4_per_token']"
    )
    assert problems("0.34.0", {"re:.*mlp.*": "fp9"}) == [
        "argument --quantization-config.targets: Value error, targets[re:.*mlp.*] = fp9 is not a valid online "
        f"shorthand name; expected one of {names}"
    ]
    assert problems("0.34.0", {"model.layers.0.mlp.down_proj": 4}) == [
        "argument --quantization-config.targets: Value error, targets[model.layers.0.mlp.down_proj] must be an "
        "online shorthand name or a quantization spec, got int"
    ]
    assert problems("0.34.0", {"re:.*mlp.*": {"weight": "mxfp4"}}) == []
    # 0.34.0 builds an object target as a QuantSpec, whose keys take quantization names only
    assert problems("0.34.0", {"re:.*mlp.*": {"weight": "mxfp9"}}) == [
        "argument --quantization-config.targets.re:.*mlp.*.weight: Value error, unknown quantization name "
        "'mxfp9'; expected one of ['fp8_per_block_dynamic', 'fp8_per_block_static', 'fp8_per_channel_static', "
        "'fp8_per_tensor_dynamic', 'fp8_per_tensor_static', 'fp8_per_token', 'int4_per_group_32', "
        "'int8_per_channel_static', 'int8_per_group_32', 'lut_b', 'mxfp4', 'mxfp8', 'nvfp4_per_token']"
    ]
    assert rules(
        check_catalog({"quantization_config": {"targets": {"x": {"wieght": "mxfp4"}}}}, catalog("0.34.0"))
    ) == ["catalog-unknown-config-key"]
    # before 0.34.0 a target is a shorthand name only: any other value is shown in the same message
    old_names = (
        "['fp8_per_block', 'fp8_per_channel', 'fp8_per_tensor', 'int8_per_channel_weight_only', 'mxfp4', "
        "'mxfp8', 'nvfp4_per_token']"
    )
    assert problems("0.30.0", {"lm_head": 4, "x": "mxfp4"}) == [
        "argument --quantization-config.targets: Value error, targets[lm_head] = 4 is not a valid online "
        f"shorthand name; expected one of {old_names}"
    ]
    assert problems("0.30.0", {"lm_head": {"weight": "mxfp4"}}) == [
        "argument --quantization-config.targets: Value error, targets[lm_head] = {'weight': 'mxfp4'} is not a "
        f"valid online shorthand name; expected one of {old_names}"
    ]
    assert problems("0.30.0", {"lm_head": False})[0].startswith(
        "argument --quantization-config.targets: Value error, targets[lm_head] = False is not"
    )
    assert problems("0.30.0", {"lm_head": "lut_b_moe"})[0].startswith(
        "argument --quantization-config.targets: Value error, targets[lm_head] = lut_b_moe is not"
    )
    # the field itself arrived in 0.30.0
    assert problems("0.29.0", "fp8_per_tensor") == [
        "--quantization-config: QuantizationConfigArgs has no field 'targets' in vLLM 0.29.0"
    ]


# ---- one replacement detection, one version order, one "active finding" test


def test_replacement_named_by_a_short_flag_or_key_path_is_found_by_check_and_diff_alike():
    from vllmcheck.engine.diff import renamed_arguments

    old = synthetic(
        "0.9.0",
        [
            arg("level", deprecated=True, deprecation="Deprecated: pass -O instead."),
            arg("cc_mode", deprecated=True, deprecation="Use --compilation-config.mode instead."),
        ],
    )
    new = synthetic(
        "0.10.0",
        [
            {**arg("optimization_level"), "flags": ["--optimization-level", "-O"]},
            {**arg("compilation_config"), "type": "json"},
        ],
    )
    assert renamed_arguments(old, new) == {"level": "optimization_level", "cc_mode": "compilation_config"}
    # 0.10.0 sorts after 0.9.0 (a release order, not a string order): the removal is found.
    found = {
        f.fields[0]: f.message
        for f in check_catalog(
            {"level": "1", "cc_mode": "x"}, new, history=HistoryIndex({"0.9.0": old, "0.10.0": new})
        )
    }
    assert found["level"].endswith("use -O instead")
    assert found["cc_mode"].endswith("use --compilation-config.mode instead")


def test_active_findings_are_unwaived_errors_and_warnings():
    from vllmcheck.engine.types import Finding, Verdict, parse_version

    def finding(severity, waived=False):
        return Finding(rule="r", severity=severity, category="vllm", message="m", waived=waived)

    assert [finding(s).is_active for s in ("error", "warning", "info")] == [True, True, False]
    assert not finding("error", waived=True).is_active
    assert Finding.active_in(finding("warning").as_dict()) and not Finding.active_in(
        finding("info").as_dict()
    )
    assert Verdict("0.33.0", 1, (finding("error", waived=True), finding("warning"))).state == "warning"
    assert Verdict("0.33.0", 1, (finding("error", waived=True),)).valid
    assert parse_version("0.34.0") > parse_version("0.9.1") and parse_version("latest") is None


# ---- value sets: vLLM's own message for a value outside the set it checks at start-up


def only(findings):
    assert len(findings) == 1, [f.message for f in findings]
    return findings[0]


def test_unknown_speculative_method_on_0_34_0_in_vllms_words():
    finding = only(check_catalog({"speculative_config": {"method": "eagle9"}}, catalog("0.34.0")))
    assert finding.rule == "catalog-invalid-config-value" and finding.fields == ("speculative_config",)
    assert finding.message.startswith("Unknown speculative method 'eagle9'. Built-in methods: ['")
    assert "'eagle3'" in finding.message and finding.message.endswith("; registered custom methods: [].")
    assert check_catalog({"speculative_config": {"method": "eagle3", "model": "m"}}, catalog("0.34.0")) == []


def test_kv_cache_dtype_check_moved_from_argparse_into_the_config_in_0_33_0():
    new = only(check_catalog({"kv_cache_dtype": "fp9"}, catalog("0.33.0")))
    assert new.message.startswith("Invalid kv_cache_dtype: 'fp9'. Valid values are: ['auto', 'float16', ")
    old = only(check_catalog({"kv_cache_dtype": "fp9"}, catalog("0.32.0")))
    assert old.message.startswith("argument --kv-cache-dtype: invalid choice: 'fp9' (choose from ")
    assert check_catalog({"kv_cache_dtype": "fp8_e4m3"}, catalog("0.33.0")) == []


def test_plain_string_where_the_config_takes_a_dict_or_a_callable():
    # --hf-overrides keeps a non-JSON value as a string; ModelConfig's `dict[str, Any] | Callable` refuses it
    for version in ("0.20.0", "0.27.1", "0.34.0"):
        finding = only(check_catalog({"hf_overrides": "max_position_embeddings=65536"}, catalog(version)))
        assert finding.message == "hf_overrides.dict[str,any]: Input should be a valid dictionary"
        assert check_catalog({"hf_overrides": {"max_position_embeddings": 65536}}, catalog(version)) == []
    # a field that takes a string as well keeps it
    assert check_catalog({"pt_load_map_location": "cuda:0"}, catalog("0.34.0")) == []


def test_registries_checked_at_start_up_on_0_34_0():
    c = catalog("0.34.0")
    quant = only(check_catalog({"quantization": "awq9"}, c))
    assert quant.message.startswith("Unknown quantization method: awq9. Must be one of ['awq', ")
    assert check_catalog({"quantization": "fp8"}, c) == []
    # the tool-call parser is checked only with --enable-auto-tool-choice, as vLLM does
    assert check_catalog({"tool_call_parser": "nope"}, c) == []
    tool = only(check_catalog({"tool_call_parser": "nope", "enable_auto_tool_choice": True}, c))
    assert tool.message.startswith("invalid tool call parser: nope (chose from { ")
    assert "hermes" in tool.message
    reasoning = only(check_catalog({"reasoning_parser": "nope"}, c))
    assert reasoning.message.startswith("Reasoning parser 'nope' not found. Available parsers: beam, ")
    assert check_catalog({"reasoning_parser": "deepseek_r1"}, c) == []
    backend = only(check_catalog({"attention_backend": "flash"}, c))
    assert backend.message.startswith("Unknown attention backend: 'flash'. Valid options are: FLASH_ATTN, ")
    assert check_catalog({"attention_backend": "flash_attn"}, c) == []  # vLLM upper-cases it
    assert check_catalog({"attention_backend": "auto"}, c) == []


def test_enum_keys_inside_compilation_config():
    c = catalog("0.34.0")
    mode = only(check_catalog({"compilation_config": {"mode": "fast"}}, c))
    assert mode.message == (
        "Invalid compilation mode: fast. Valid modes are: NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, "
        "VLLM_COMPILE"
    )
    for good in ({"mode": "vllm_compile"}, {"mode": 3}, {"cudagraph_mode": "full_and_piecewise"}):
        assert check_catalog({"compilation_config": good}, c) == [], good
    cudagraph = only(check_catalog({"compilation_config": {"cudagraph_mode": "sometimes"}}, c))
    assert "'sometimes'" in cudagraph.message and "FULL_AND_PIECEWISE" in cudagraph.message


def test_optimization_level_takes_the_enum_values_not_their_names():
    c = catalog("0.34.0")
    for good in ("2", 3):
        assert check_catalog({"optimization_level": good}, c) == [], good
    for bad in ("O2", "9"):
        assert only(check_catalog({"optimization_level": bad}, c)).message == (
            "--optimization-level: Input should be 0, 1, 2 or 3"
        )


def test_no_message_keeps_a_placeholder():
    c = catalog("0.34.0")
    bad = {
        "speculative_config": {"method": "x"},
        "kv_cache_dtype": "x",
        "quantization": "x",
        "reasoning_parser": "x",
        "attention_backend": "x",
        "compilation_config": {"mode": "x"},
    }
    for finding in check_catalog(bad, c):
        assert "{" not in finding.message.replace("{ ", ""), finding.message


def test_rules_read_the_release_value_sets_as_values():
    from vllmcheck.engine.rules import compile_ruleset

    pack = {
        "pack": "t",
        "rules": [
            {
                "id": "spec-method-unknown",
                "category": "policy",
                "severity": "warning",
                "message": "not a built-in speculative method",
                "when": "has(args.speculative_config) && has(args.speculative_config.method)"
                " && !(args.speculative_config.method in values.speculative_methods)",
            }
        ],
    }
    ruleset = compile_ruleset(pack)

    def doc(method):
        return {
            "kind": "serving",
            "vllm": {"version": "0.34.0"},
            "args": {"speculative_config": {"method": method}},
        }

    assert [f.rule for f in ruleset.evaluate(doc("x"), catalog=catalog("0.34.0")).findings] == [
        "spec-method-unknown"
    ]
    assert ruleset.evaluate(doc("eagle3"), catalog=catalog("0.34.0")).findings == ()


def test_a_rule_and_a_value_check_quoting_the_same_refusal_give_one_finding():
    from vllmcheck.engine.lint import build_document, validate
    from vllmcheck.engine.rules import compile_ruleset

    args = {"kv_cache_dtype": "fp9"}
    said = only(check_catalog(args, catalog("0.33.0"))).message
    rule = {"id": "kv-dtype", "category": "vllm", "severity": "error", "message": said}
    ruleset = compile_ruleset({"pack": "t", "rules": [{**rule, "when": 'args.kv_cache_dtype == "fp9"'}]})
    doc = build_document(kind="serving", version="0.33.0", model_name="m", args=args)
    findings = validate(doc, ruleset=ruleset, catalog=catalog("0.33.0")).findings
    assert [(f.rule, f.message) for f in findings] == [("kv-dtype", said)]


def test_a_finding_built_fast_is_the_finding_its_constructor_builds():
    # The catalog checks and the rules build their findings with ``new_finding`` (the frozen dataclass's
    # __init__ cost a catalog check that finds something twice as much): the same finding in every way a
    # caller can see, and the same errors for a field it lacks or does not have.
    import pickle

    from vllmcheck.engine.types import Finding, new_finding

    values = {
        "rule": "catalog-invalid-value",
        "severity": "error",
        "category": "catalog",
        "message": "argument --dtype: invalid choice: 'x'",
        "fields": ("dtype",),
        "fix": {"unset": ["dtype"]},
    }
    fast, plain = new_finding(**values), Finding(**values)
    assert fast == plain and repr(fast) == repr(plain)
    assert fast.as_dict() == plain.as_dict() and list(fast.__dict__) == list(plain.__dict__)
    assert pickle.loads(pickle.dumps(fast)) == plain
    with pytest.raises(AttributeError):
        fast.message = "changed"  # frozen like any other
    with pytest.raises(TypeError, match="message"):
        new_finding(**{k: v for k, v in values.items() if k != "message"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        new_finding(**values, nope=1)


def test_quantization_marlin_is_a_claim_of_an_awq_or_gptq_checkpoint_not_an_unknown_method():
    """vLLM checks --quantization against its methods only after a method claimed the checkpoint: awq_marlin /
    auto_awq (gptq_marlin / auto_gptq) take "marlin" for an AWQ (GPTQ) checkpoint; for any other it is an
    unknown method, as the catalog says."""
    from vllmcheck.engine.lint import validate
    from vllmcheck.engine.rules import compile_ruleset, load_pack

    pack = Path(__file__).resolve().parents[2] / "vllmcheck" / "rulepacks" / "builtin.yaml"
    ruleset = compile_ruleset(load_pack(pack.read_text()), version_id=1)

    def errors(quant_method: str | None) -> list[str]:
        config = {"model_type": "qwen2", "num_attention_heads": 28}
        if quant_method:
            config["quantization_config"] = {"quant_method": quant_method, "bits": 4, "group_size": 128}
        doc = {
            "kind": "serving",
            "vllm": {"version": "0.34.0"},
            "model": {
                "name": "Qwen/Qwen2.5-7B-Instruct-AWQ",
                "architecture": "Qwen2ForCausalLM",
                "config": config,
            },
            "args": {"quantization": "marlin"},
            "env": {},
            "hardware": {},
        }
        verdict = validate(doc, ruleset=ruleset, catalog=catalog("0.34.0"))
        return [f.rule for f in verdict.findings if f.severity == "error"]

    assert errors("awq") == []
    assert errors("gptq") == []
    assert errors(None) == ["catalog-invalid-value"]
