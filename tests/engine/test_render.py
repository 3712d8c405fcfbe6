"""Rendering profiles back to ``vllm serve`` forms, and parse(render(d)) == d (vllmcheck.engine.render)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.parse import parse_any, parse_command, parse_config_yaml, parse_json
from vllmcheck.engine.render import RenderError, render_command, render_json, render_yaml
from vllmcheck.engine.types import ParseError

from .test_parse import CATALOG, OLD_CATALOG, REAL_CATALOG_PATH, SEED, SEED_ARGS

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def core(doc):
    return {"model": doc["model"], "args": doc["args"], "env": doc["env"]}


# ----------------------------------------------------------------------------------------- strategies

# Any text but lone surrogates (not encodable, so never in a real file or request).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
# A value that vLLM reads as a value when it stands alone in a config file (no leading '-').
YAML_TEXT = TEXT.filter(lambda s: not s.startswith("-"))
ENV_NAME = st.builds(str.__add__, st.sampled_from("AB_Z"), st.text(alphabet="AZ09_", max_size=6))
ENV = st.dictionaries(ENV_NAME, TEXT, max_size=3)
MODEL = st.one_of(st.none(), TEXT.filter(bool))
NAME = st.builds(str.__add__, st.sampled_from("abmcnsz"), st.text(alphabet="abnoz09_", max_size=8)).filter(
    lambda n: n not in ("model", "help", "config") and not n.startswith("served_model")
)
FLOATS = st.floats(allow_nan=False)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | FLOATS | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)
JSON_OBJECT = st.dictionaries(TEXT, JSON, max_size=4)


def _not_none_spelling(s):
    return s not in ("", "None")


def _yaml_safe(value):
    """vLLM reads a config value that starts with '-' (a negative number too) as an option or dotted key."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value >= 0 and math.copysign(1.0, value) > 0
    return not (isinstance(value, str) and value.startswith("-"))


def catalog_values(yaml: bool):
    """One strategy per fixture argument: the values vLLM can be given in that form."""
    text = YAML_TEXT if yaml else TEXT
    nonneg_float = FLOATS.filter(lambda f: f >= 0 and math.copysign(1.0, f) > 0)
    safe_item = text.filter(lambda s: not s.startswith("-") and _not_none_spelling(s))
    return {
        "tensor_parallel_size": st.integers(),
        "pipeline_parallel_size": st.integers(min_value=-5, max_value=5),
        "data_parallel_rank": st.none() | st.integers(),
        "enforce_eager": st.booleans(),
        "return_sampling_mask": st.booleans(),
        "enable_prefix_caching": st.booleans(),
        "disable_log_stats": st.just(True),
        "max_model_len": st.none() | st.integers(min_value=-1),
        "max_num_batched_tokens": st.none() | st.integers(),
        "gpu_memory_utilization": nonneg_float if yaml else FLOATS,
        "dtype": text,
        "logprobs_mode": st.sampled_from(["processed_logits", "processed_logprobs", "raw_logprobs"]),
        "quantization": st.none() | text.filter(_not_none_spelling),
        "moe_backend": st.text(alphabet="az09_", max_size=8),
        "optimization_level": st.sampled_from(["0", "1", "2", "3", "decode"]),
        "speculative_config": st.none() | JSON_OBJECT,
        "compilation_config": JSON.filter(_yaml_safe) if yaml else JSON,
        "hf_overrides": JSON_OBJECT | text.filter(lambda s: not s.strip().startswith("{")),
        "middleware": st.lists(safe_item, min_size=1, max_size=1 if yaml else 3),
        "served_model_name": st.lists(st.none() | safe_item, min_size=1, max_size=3),
        "cudagraph_capture_sizes": st.lists(st.integers(), min_size=1, max_size=4),
        "auto_tune": st.just(True) | text,
    }


CLI_VALUES = catalog_values(yaml=False)
YAML_VALUES = catalog_values(yaml=True)


@st.composite
def catalog_docs(draw, yaml=False):
    values = YAML_VALUES if yaml else CLI_VALUES
    names = draw(st.lists(st.sampled_from(sorted(values)), unique=True, max_size=8))
    args = {name: draw(values[name]) for name in names}
    # Arguments the catalog does not know are kept and typed heuristically.
    unknown = draw(st.dictionaries(NAME.map(lambda n: "zz_" + n), JSON, max_size=2))
    if yaml:
        unknown = {k: v for k, v in unknown.items() if _yaml_safe(v)}
    args.update(unknown)
    model = draw(YAML_TEXT.filter(bool) if yaml else MODEL)
    if model is None:
        args.pop("served_model_name", None)
    return {"model": {"name": model}, "args": args, "env": draw(ENV)}


@st.composite
def heuristic_docs(draw, yaml=False):
    value = JSON
    if yaml:
        value = JSON.filter(lambda v: v != [])
    args = draw(st.dictionaries(NAME, value, max_size=6))
    model = draw(YAML_TEXT.filter(bool) if yaml else MODEL)
    return {"model": {"name": model}, "args": args, "env": draw(ENV)}


# ------------------------------------------------------------------------------------------ round trips


@SETTINGS
@given(catalog_docs())
def test_command_round_trip_with_a_catalog(doc):
    text = render_command(doc, catalog=CATALOG)
    assert core(parse_command(text, catalog=CATALOG)) == doc
    assert core(parse_any(text, catalog=CATALOG)) == doc


@SETTINGS
@given(heuristic_docs())
def test_command_round_trip_without_a_catalog(doc):
    assert core(parse_command(render_command(doc))) == doc


@SETTINGS
@given(catalog_docs(yaml=True))
def test_yaml_round_trip_with_a_catalog(doc):
    text = render_yaml(doc, catalog=CATALOG)
    assert core(parse_config_yaml(text, catalog=CATALOG)) == doc
    assert core(parse_any(text, catalog=CATALOG)) == doc


@SETTINGS
@given(heuristic_docs(yaml=True))
def test_yaml_round_trip_without_a_catalog(doc):
    assert core(parse_config_yaml(render_yaml(doc))) == doc


@settings(SETTINGS, max_examples=50)
@given(catalog_docs())
def test_json_round_trip(doc):
    assert core(parse_json(render_json(doc), catalog=CATALOG)) == doc


# ------------------------------------------------------------------------------------------- layout


def test_seed_renders_like_a_hand_written_command():
    doc = parse_command(SEED, catalog=CATALOG)
    assert render_command(doc, catalog=CATALOG) == (
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct \\\n"
        "  --return-sampling-mask \\\n"
        "  --logprobs-mode processed_logprobs \\\n"
        '  --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'\n'
    )
    assert render_yaml(doc, catalog=CATALOG) == (
        "# env: VLLM_USE_V2_MODEL_RUNNER=1\n"
        "model: meta-llama/Llama-3.1-8B-Instruct\n"
        "return-sampling-mask: true\n"
        "logprobs-mode: processed_logprobs\n"
        "speculative-config:\n"
        "  method: ngram\n"
        "  num_speculative_tokens: 3\n"
        "  prompt_lookup_max: 4\n"
    )
    assert core(parse_config_yaml(render_yaml(doc, catalog=CATALOG), catalog=CATALOG))["args"] == SEED_ARGS


def test_values_that_look_like_options_use_equals():
    doc = {
        "model": {"name": "m"},
        "args": {"max_model_len": -1, "dtype": "-x", "gpu_memory_utilization": -0.5},
    }
    text = render_command(doc, catalog=CATALOG)
    assert "--max-model-len -1" in text
    assert "--dtype=-x" in text
    assert "--gpu-memory-utilization=-0.5" in text
    assert parse_command(text, catalog=CATALOG)["args"] == doc["args"]


def test_env_values_a_comment_line_cannot_hold():
    doc = {"model": {"name": "m"}, "args": {}, "env": {"A": "two\nlines", "B": "x y", "C": ""}}
    text = render_yaml(doc)
    assert text.splitlines()[:3] == ['# env-json: {"A": "two\\nlines"}', "# env: B='x y'", "# env: C=''"]
    assert parse_config_yaml(text)["env"] == doc["env"]
    assert parse_config_yaml(render_yaml({"model": None, "env": {"A": "1"}}))["env"] == {"A": "1"}


def test_store_true_false_is_left_out():
    doc = {"model": {"name": "m"}, "args": {"disable_log_stats": False}}
    assert "--disable-log-stats" not in render_command(doc, catalog=CATALOG)
    assert "disable-log-stats" not in render_yaml(doc, catalog=CATALOG)


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ({"model": {"name": "m"}, "args": {"cudagraph_capture_sizes": []}}, "at least one value"),
        ({"model": {"name": "m"}, "args": {"served_model_name": ["-a"]}}, "read as an option"),
        ({"model": {"name": "m"}, "args": {"tensor_parallel_size": "four"}}, "not a int value"),
        ({"model": {"name": "m"}, "args": {"tensor_parallel_size": None}}, "not optional"),
        ({"model": {"name": "m"}, "args": {"quantization": "None"}}, "as None"),
        ({"model": {"name": "m"}, "args": {"hf_overrides": "{x}"}}, "JSON object or a plain string"),
        ({"model": {"name": "m"}, "args": {"tensor-parallel-size": 1}}, "snake_case"),
        ({"model": {"name": "m"}, "args": {"model": "x"}}, "model.name"),
        ({"model": {"name": None}, "args": {"served_model_name": ["a"]}}, "positional"),
        ({"model": {"name": "m"}, "args": {"tensor": 1}}, "another argument"),
        ({"model": {"name": "m"}, "env": {"1A": "x"}}, "environment variable name"),
    ],
)
def test_render_errors(doc, match):
    with pytest.raises(RenderError, match=match):
        render_command(doc, catalog=CATALOG)


@pytest.mark.parametrize(
    ("doc", "match", "catalog"),
    [
        ({"model": {"name": "m"}, "args": {"gpu_memory_utilization": -0.5}}, "read as an option", CATALOG),
        ({"model": {"name": "m"}, "args": {"middleware": ["a", "b"]}}, "only once", CATALOG),
        ({"model": {"name": "m"}, "args": {"enforce_eager": False}}, "vLLM ignores", OLD_CATALOG),
        ({"model": {"name": "m"}, "args": {"x": []}}, "empty list", None),
        ({"model": {"name": "-m"}, "args": {}}, "model", CATALOG),
    ],
)
def test_yaml_render_errors(doc, match, catalog):
    with pytest.raises(RenderError, match=match):
        render_yaml(doc, catalog=catalog)


def test_yaml_false_round_trips_from_0_28():
    doc = {"model": {"name": "m"}, "args": {"enforce_eager": False}, "env": {}}
    assert core(parse_config_yaml(render_yaml(doc, catalog=CATALOG), catalog=CATALOG)) == doc


def test_a_rendered_command_is_valid_shell():
    doc = {"model": {"name": "it's"}, "args": {"dtype": "a b'c\"$x"}, "env": {"A": "$HOME"}}
    text = render_command(doc, catalog=CATALOG)
    assert "'$HOME'" in text
    assert core(parse_command(text, catalog=CATALOG)) == doc
    with pytest.raises(ParseError):
        parse_command(text.replace("'\"'\"'", "'"), catalog=CATALOG)


# ------------------------------------------------------------------------------------- real catalogs

CATALOG_DIR = REAL_CATALOG_PATH.parent
# The oldest release (it drops 'key: false' in config files), the seed's, and the newest (with 0.33's
# --enable-x/--disable-x pairs).
REAL_VERSIONS = ["0.20.0", "0.31.0", "0.34.0"]


def _samples(spec):
    if spec.optional_value:
        return [True, "abc"]
    if spec.type == "bool":
        return [True, False] if spec.negative_flags else [True]
    if spec.type == "list":
        item = {"int": 3, "float": 0.5, "json": "x"}.get(spec.item_type or "str", "abc")
        return [[item]] if spec.repeatable else [[item, item]]
    return {
        "int": [7, -1],
        "float": [0.5],
        "str": ["abc_d"],
        "json": [{"a": {"b": [1, 2.5, None]}}, "x" if spec.json_or_str else [1]],
    }[spec.type]


@pytest.mark.parametrize("version", REAL_VERSIONS)
def test_every_argument_of_a_real_catalog_round_trips(version):
    catalog = Catalog.load(CATALOG_DIR / f"{version}.json")  # a shipped catalog: missing is a failure
    checked = 0
    for spec in catalog.arguments:
        if spec.name in ("model", "config", "spec_method", "spec_model", "spec_tokens"):
            continue  # the model slot, the config file, and the shorthands folded into speculative_config
        for value in _samples(spec):
            doc = {"model": {"name": "m"}, "args": {spec.name: value}, "env": {"A": "1"}}
            parsed = parse_command(render_command(doc, catalog=catalog), catalog=catalog)
            assert (core(parsed), parsed["unknown"]) == (doc, []), spec.name
            try:
                text = render_yaml(doc, catalog=catalog)
            except RenderError:
                assert value is False and version < "0.28.0", spec.name  # vLLM < 0.28 drops 'key: false'
                continue
            parsed = parse_config_yaml(text, catalog=catalog)
            assert (core(parsed), parsed["unknown"]) == (doc, []), spec.name
            checked += 1
    assert checked > 200


def test_enable_disable_pairs_of_0_33():
    catalog = Catalog.load(CATALOG_DIR / "0.33.0.json")
    for flag in ("--disable-auto-tool-choice", "--no-enable-auto-tool-choice"):
        assert parse_command(f"vllm serve m {flag}", catalog=catalog)["args"] == {
            "enable_auto_tool_choice": False
        }
    doc = {"model": {"name": "m"}, "args": {"enable_auto_tool_choice": False}}
    assert "--disable-auto-tool-choice" in render_command(doc, catalog=catalog)
