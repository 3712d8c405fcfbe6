"""Parsing profiles exactly as ``vllm serve`` reads them (vllmcheck.engine.parse)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.parse import (
    detect_format,
    human_readable_int,
    parse_any,
    parse_command,
    parse_config_yaml,
    parse_json,
)
from vllmcheck.engine.shell import split_commands, split_words
from vllmcheck.engine.types import ParseError


def _bool(name, *, negatable=True, extra_negative=()):
    flag = "--" + name.replace("_", "-")
    negative = (["--no-" + flag[2:]] if negatable else []) + list(extra_negative)
    return {"name": name, "flags": [flag], "type": "bool", "negatable": negatable, "negative_flags": negative}


# A small catalog with one argument of each kind the parser must handle.
FIXTURE = {
    "version": "0.31.0",
    "parser": {"O_alias": "optimization_level"},
    "arguments": [
        {"name": "model", "flags": ["--model"], "type": "str"},
        {
            "name": "tensor_parallel_size",
            "flags": ["--tensor-parallel-size", "-tp"],
            "type": "int",
            "default": 1,
        },
        {"name": "pipeline_parallel_size", "flags": ["--pipeline-parallel-size", "-pp"], "type": "int"},
        {
            "name": "data_parallel_rank",
            "flags": ["--data-parallel-rank", "-dpn"],
            "type": "int",
            "nullable": True,
        },
        {"name": "data_parallel_rpc_port", "flags": ["--data-parallel-rpc-port", "-dpp"], "type": "int"},
        _bool("enforce_eager"),
        _bool("return_sampling_mask"),
        _bool("enable_prefix_caching"),
        _bool("disable_log_stats", negatable=False),  # store_true
        {
            "name": "max_model_len",
            "flags": ["--max-model-len"],
            "type": "int",
            "human_readable_int": True,
            "nullable": True,
        },
        {
            "name": "max_num_batched_tokens",
            "flags": ["--max-num-batched-tokens"],
            "type": "int",
            "human_readable_int": True,
            "nullable": True,
        },
        {"name": "gpu_memory_utilization", "flags": ["--gpu-memory-utilization"], "type": "float"},
        {"name": "dtype", "flags": ["--dtype"], "type": "str", "choices": ["auto", "bfloat16", "float16"]},
        {
            "name": "logprobs_mode",
            "flags": ["--logprobs-mode"],
            "type": "str",
            "choices": ["processed_logits", "processed_logprobs", "raw_logits", "raw_logprobs"],
        },
        {"name": "quantization", "flags": ["--quantization", "-q"], "type": "str", "nullable": True},
        {"name": "moe_backend", "flags": ["--moe-backend"], "type": "str"},
        {"name": "optimization_level", "flags": ["--optimization-level"], "type": "str"},
        {
            "name": "speculative_config",
            "flags": ["--speculative-config", "-sc"],
            "type": "json",
            "config_class": "SpeculativeConfig",
            "nullable": True,
        },
        {
            "name": "compilation_config",
            "flags": ["--compilation-config", "-cc"],
            "type": "json",
            "config_class": "CompilationConfig",
        },
        {"name": "hf_overrides", "flags": ["--hf-overrides"], "type": "json", "json_or_str": True},
        {
            "name": "middleware",
            "flags": ["--middleware"],
            "type": "list",
            "item_type": "str",
            "repeatable": True,
        },
        {
            "name": "served_model_name",
            "flags": ["--served-model-name"],
            "type": "list",
            "item_type": "str",
            "nullable": True,
        },
        {
            "name": "cudagraph_capture_sizes",
            "flags": ["--cudagraph-capture-sizes"],
            "type": "list",
            "item_type": "int",
        },
        {"name": "auto_tune", "flags": ["--auto-tune"], "type": "str", "optional_value": True, "const": True},
        {"name": "spec_method", "flags": ["--spec-method"], "type": "str", "nullable": True},
        {"name": "spec_model", "flags": ["--spec-model"], "type": "str", "nullable": True},
        {"name": "spec_tokens", "flags": ["--spec-tokens"], "type": "int", "nullable": True},
    ],
}
CATALOG = Catalog.from_dict(FIXTURE)
OLD_CATALOG = Catalog.from_dict({**FIXTURE, "version": "0.27.1"})
REAL_CATALOG_PATH = Path(__file__).resolve().parents[2] / "vllmcheck" / "catalogs" / "0.31.0.json"

SEED = (
    "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
    "--logprobs-mode processed_logprobs --speculative-config "
    '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)
SEED_ARGS = {
    "return_sampling_mask": True,
    "logprobs_mode": "processed_logprobs",
    "speculative_config": {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
}


def args_of(text, catalog=CATALOG):
    return parse_command(text, catalog=catalog)["args"]


def error_of(fn, text, catalog=CATALOG) -> ParseError:
    with pytest.raises(ParseError) as info:
        fn(text, catalog=catalog)
    return info.value


# ------------------------------------------------------------------------------------- command lines


@pytest.mark.parametrize("catalog", [CATALOG, None], ids=["catalog", "no-catalog"])
def test_seed_command(catalog):
    doc = parse_command(SEED, catalog=catalog)
    assert doc["model"] == {"name": "meta-llama/Llama-3.1-8B-Instruct"}
    assert doc["args"] == SEED_ARGS
    assert doc["env"] == {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert doc["unknown"] == []


def test_continuations_comments_env_and_prefixes():
    text = """# launch script
env HF_HOME=/data/hf VLLM_LOGGING_LEVEL='DEBUG' \\
  vllm serve meta-llama/Llama-3.1-8B-Instruct \\
    --tensor-parallel-size 4 \\
    --enforce-eager   # no graphs
"""
    doc = parse_command(text, catalog=CATALOG)
    assert doc["env"] == {"HF_HOME": "/data/hf", "VLLM_LOGGING_LEVEL": "DEBUG"}
    assert doc["args"] == {"tensor_parallel_size": 4, "enforce_eager": True}
    api = parse_command("python3 -m vllm.entrypoints.openai.api_server --model m -tp 2", catalog=CATALOG)
    assert api["model"]["name"] == "m" and api["args"] == {"tensor_parallel_size": 2}
    cli = parse_command("python -m vllm.entrypoints.cli.main serve m --enforce-eager", catalog=CATALOG)
    assert cli["model"]["name"] == "m" and cli["args"] == {"enforce_eager": True}
    assert parse_command("/opt/venv/bin/vllm serve m", catalog=CATALOG)["model"]["name"] == "m"
    assert parse_command("m -tp 2", catalog=CATALOG)["args"] == {"tensor_parallel_size": 2}
    exported = parse_command("export A=1\nB=2 vllm serve m", catalog=CATALOG)
    assert exported["env"] == {"A": "1", "B": "2"}


@pytest.mark.parametrize(
    "flags",
    [
        "--tensor-parallel-size 4",
        "--tensor-parallel-size=4",
        "--tensor_parallel_size 4",
        "-tp 4",
        "-tp=4",
        "--tensor-par 4",  # argparse accepts an unambiguous prefix
    ],
)
def test_spellings_of_one_flag(flags):
    assert args_of(f"vllm serve m {flags}") == {"tensor_parallel_size": 4}


@pytest.mark.parametrize("flags", ["-O3", "-O 3", "-O=3", "--optimization-level 3"])
def test_optimization_level_spellings(flags):
    assert args_of(f"vllm serve m {flags}") == {"optimization_level": "3"}
    assert args_of(f"vllm serve m {flags}", catalog=None) == {"optimization_level": 3}


def test_O_alias_from_the_catalog():
    old = Catalog.from_dict({**FIXTURE, "parser": {"O_alias": "compilation_config"}})
    assert args_of("vllm serve m -O3", catalog=old) == {"compilation_config": 3}


def test_dotted_keys_merge_into_one_json_per_root():
    doc = parse_command(
        "vllm serve m -cc.mode=3 -cc.pass_config.enable_sp true -cc.sizes+ 1,2 -cc.sizes+=4 "
        "--speculative-config.method ngram --speculative_config.num_speculative_tokens 3 "
        "-cc.max_bytes 80g",
        catalog=CATALOG,
    )
    assert doc["args"] == {
        "compilation_config": {
            "mode": 3,
            "pass_config": {"enable_sp": True},
            "sizes": ["1", "2", "4"],
            "max_bytes": 80_000_000_000,
        },
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 3},
    }


def test_dotted_keys_win_over_an_explicit_json_for_the_same_root():
    # vLLM appends the merged JSON after all other arguments, so argparse keeps it (last one wins).
    doc = parse_command("vllm serve m -cc '{\"a\": 1}' -cc.mode 3", catalog=CATALOG)
    assert doc["args"] == {"compilation_config": {"mode": 3}}
    assert any("more than once" in n["message"] for n in doc["notes"])


def test_duplicate_dotted_keys_are_noted():
    doc = parse_command("vllm serve m -cc.mode 1 -cc.mode 3", catalog=CATALOG)
    assert doc["args"] == {"compilation_config": {"mode": 3}}
    assert "duplicate key -cc.mode" in doc["notes"][0]["message"]


def test_model_flag_is_moved_to_the_positional_slot():
    assert parse_command("vllm serve -tp 2 --model m", catalog=CATALOG)["model"]["name"] == "m"
    assert parse_command("vllm serve --model=m -tp 2", catalog=CATALOG)["model"]["name"] == "m"
    assert parse_command("vllm serve -tp 2", catalog=CATALOG)["model"]["name"] is None
    error = error_of(parse_command, "vllm serve --model m other")
    assert error.where == "token 4 'other'"
    assert "already given as 'm'" in error.detail


def test_bools_lists_and_optional_values():
    assert args_of("vllm serve m --no-enforce-eager --disable-log-stats") == {
        "enforce_eager": False,
        "disable_log_stats": True,
    }
    assert args_of("vllm serve m --served-model-name a b --cudagraph-capture-sizes 1 2 -4") == {
        "served_model_name": ["a", "b"],
        "cudagraph_capture_sizes": [1, 2, -4],
    }
    assert args_of("vllm serve m --served-model-name=a") == {"served_model_name": ["a"]}
    assert args_of("vllm serve m --auto-tune") == {"auto_tune": True}
    assert args_of("vllm serve m --auto-tune fast") == {"auto_tune": "fast"}
    assert args_of("vllm serve m --auto-tune --enforce-eager") == {"auto_tune": True, "enforce_eager": True}
    assert args_of("vllm serve m --auto-tune=") == {"auto_tune": ""}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8k", 8000),
        ("8K", 8192),
        ("25.6k", 25600),
        ("131072", 131072),
        ("auto", -1),
        ("-1", -1),
        ("None", None),
    ],
)
def test_human_readable_ints(value, expected):
    assert args_of(f"vllm serve m --max-model-len {value}") == {"max_model_len": expected}


def test_human_readable_int_function_matches_vllm():
    assert human_readable_int("1m") == 1_000_000
    assert human_readable_int("2G") == 2 * 2**30
    with pytest.raises(ValueError, match="Decimals are not allowed"):
        human_readable_int("1.5K")


def test_types_nullable_and_normalised_values():
    assert args_of("vllm serve m -q None --gpu-memory-utilization 0.85") == {
        "quantization": None,
        "gpu_memory_utilization": 0.85,
    }
    assert args_of("vllm serve m -q ''") == {"quantization": None}
    assert args_of("vllm serve m --moe-backend FlashInfer-CUTLASS") == {"moe_backend": "flashinfer_cutlass"}
    # dict | str arguments (union_dict_and_str) keep a plain string unless it looks like {...}.
    assert args_of("vllm serve m --hf-overrides plain") == {"hf_overrides": "plain"}
    assert args_of("vllm serve m --hf-overrides 3") == {"hf_overrides": "3"}
    assert args_of("vllm serve m --hf-overrides '{\"a\": 1}'") == {"hf_overrides": {"a": 1}}
    # action="append" accumulates one value per occurrence.
    assert args_of("vllm serve m --middleware a.B --middleware c") == {"middleware": ["a.B", "c"]}
    # dataclass-typed JSON expands bare human-readable numbers; plain json.loads ones do not.
    assert args_of("vllm serve m -cc '{\"size\": 2k}'") == {"compilation_config": {"size": 2000}}
    assert args_of("vllm serve m --max-num-batched-tokens 16k") == {"max_num_batched_tokens": 16000}
    assert args_of("vllm serve m --gpu-memory-utilization=-0.5") == {"gpu_memory_utilization": -0.5}


def test_speculative_shorthands_fill_the_config():
    assert args_of("vllm serve m --spec-method ngram --spec-tokens 3") == {
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}
    }
    assert args_of('vllm serve m -sc \'{"method": "eagle"}\' --spec-model x/y') == {
        "speculative_config": {"method": "eagle", "model": "x/y"}
    }


def test_a_shorthand_given_both_ways_stays_as_given():
    """vLLM refuses it while building the speculative config, after the checks before that: the rule
    spec-shorthand-conflict reports it in that order, so the parser leaves both as the user gave them."""
    assert args_of("vllm serve m --speculative-config.num_speculative_tokens 2 --spec-tokens 3") == {
        "speculative_config": {"num_speculative_tokens": 2},
        "spec_tokens": 3,
    }
    assert args_of('vllm serve m --spec-method ngram -sc \'{"method": "ngram"}\' --spec-tokens 4') == {
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 4},
        "spec_method": "ngram",
    }


def test_unknown_flags_are_kept_and_listed():
    doc = parse_command("vllm serve m --tensor-paralel-size 4 --enable-magic -tp 2", catalog=CATALOG)
    assert doc["args"] == {"tensor_paralel_size": 4, "enable_magic": True, "tensor_parallel_size": 2}
    assert doc["unknown"] == [
        {"flag": "--tensor-paralel-size", "name": "tensor_paralel_size", "token": 3},
        {"flag": "--enable-magic", "name": "enable_magic", "token": 5},
    ]


def test_shorthands_of_an_older_release_are_unknown():
    old = Catalog.from_dict(
        {**FIXTURE, "arguments": [a for a in FIXTURE["arguments"] if not a["name"].startswith("spec_")]}
    )
    doc = parse_command("vllm serve m --spec-method ngram", catalog=old)
    assert doc["args"] == {"spec_method": "ngram"}
    assert doc["unknown"][0]["flag"] == "--spec-method"


def test_heuristics_without_a_catalog():
    doc = parse_command(
        "vllm serve m -tp 4 --no-enable-prefix-caching --trust-remote-code --max-model-len 8k "
        "--served-model-name a b --port=8000 --hf-overrides '{\"a\": [1]}'",
        catalog=None,
    )
    assert doc["args"] == {
        "tensor_parallel_size": 4,
        "enable_prefix_caching": False,
        "trust_remote_code": True,
        "max_model_len": "8k",
        "served_model_name": ["a", "b"],
        "port": 8000,
        "hf_overrides": {"a": [1]},
    }
    assert doc["unknown"] == []


# ------------------------------------------------------------------------------------------- errors


def test_error_unbalanced_quotes_names_the_token():
    error = error_of(parse_command, 'vllm serve m --speculative-config \'{"method": 1}')
    assert error.where == "token 4 ''{\"method\": 1}'"  # the raw text, from the opening quote
    assert "unbalanced quotes" in error.detail
    assert error.position == 34


def test_error_invalid_json_names_the_token_and_the_json_error():
    error = error_of(parse_command, "vllm serve m -tp 2 --speculative-config '{\"method\": ngram}'")
    assert error.where == "token 5 '--speculative-config'"
    assert "invalid JSON: Expecting value: line 1 column 12" in error.detail
    short = error_of(parse_command, "vllm serve m -sc '[1, '")
    assert short.where == "token 3 '-sc'"
    # A dotted value that is not JSON stays a string, as in vLLM.
    assert args_of("vllm serve m -sc.x '{'") == {"speculative_config": {"x": "{"}}


@pytest.mark.parametrize(
    ("text", "where", "detail"),
    [
        (
            "vllm serve m --enforce-eager=yes",
            "token 3 '--enforce-eager=yes'",
            "ignored explicit argument 'yes'",
        ),
        ("vllm serve m -tp", "token 3 '-tp'", "expected one argument"),
        ("vllm serve m -tp --enforce-eager", "token 3 '-tp'", "expected one argument"),
        (
            "vllm serve m --served-model-name",
            "token 3 '--served-model-name'",
            "expected at least one argument",
        ),
        ("vllm serve m -tp abc", "token 3 '-tp'", "invalid int value: 'abc'"),
        ("vllm serve m -sc ngram", "token 3 '-sc'", "invalid JSON: Expecting value"),
        ("vllm serve m -sc '{\"n\": 2k}'", "token 3 '-sc'", "invalid JSON"),
        ("vllm serve m --middleware a b", "token 5 'b'", "unrecognized argument 'b'"),
        ("vllm serve m --max-model-len 1.5K", "token 3 '--max-model-len'", "Decimals are not allowed"),
        ("vllm serve m --gpu-memory-utilization x", "token 3 '--gpu-memory-utilization'", "invalid float"),
        ("vllm serve m --data-parallel-r 1", "token 3 '--data-parallel-r'", "ambiguous option"),
        ("vllm serve m --enforce-eager true", "token 4 'true'", "--enforce-eager takes no value"),
        ("vllm serve --served-model-name x m", "token 2 '--served-model-name'", "first positional argument"),
        ("vllm serve m --config a.json", "token 4 'a.json'", "yaml/yml type. json supplied"),
        ("vllm serve m --config a.yaml --config b.yaml", "token 5 '--config'", "More than one config file"),
        ("vllm chat m", "token 0 'vllm'", "only `vllm serve`"),
        ("vllm serve m --gpu-memory-utilization -0.5", "token 4 '-0.5'", "dotted"),
    ],
)
def test_command_errors_name_the_token(text, where, detail):
    error = error_of(parse_command, text)
    assert error.where == where
    assert detail in error.detail
    assert where in str(error)


def test_a_config_file_on_the_command_line_is_kept_as_an_argument():
    doc = parse_command("vllm serve m --config serve.yaml -tp 2", catalog=CATALOG)
    assert doc["args"] == {"config": "serve.yaml", "tensor_parallel_size": 2}
    assert "not read" in doc["notes"][0]["message"]


# ------------------------------------------------------------------------------------------ shell words


_WORD_CHARS = st.text(alphabet=st.sampled_from(list("ab -=.{}\"'\\$:,#\t") + ["é"]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=10), max_size=6))
def test_shell_words_read_back_what_shlex_quote_writes(words):
    text = " ".join(shlex.quote(w) for w in words)
    assert [w for w, _ in split_words(text)] == words


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -{}\"'\\")), max_size=20))
def test_shell_words_agree_with_shlex(text):
    try:
        expected = shlex.split(text)
    except ValueError as exc:
        if "No closing quotation" in str(exc):
            with pytest.raises(ParseError, match="unbalanced quotes"):
                split_words(text)
        return
    assert [w for w, _ in split_words(text)] == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -;&|\n\t")), max_size=24))
def test_script_commands_agree_with_shlex_punctuation_mode(text):
    """The sh -c splitter (one splitter with the command lines') cuts commands where shlex's punctuation mode
    does: at every run of ``;``, ``&`` and ``|``; newlines are blanks."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    expected: list[list[str]] = [[]]
    for token in lexer:
        if set(token) <= set(";&|"):
            expected.append([])
        else:
            expected[-1].append(token)
    assert split_commands(text) == expected


def test_script_commands_keep_a_hash_inside_a_word_and_quoted_separators():
    """As bash reads them (shlex ended the word at ``#`` and cut the command at a quoted ``;``)."""
    script = (
        "ray start --head; vllm serve m --served-model-name a#b --chat-template-content-format 'x;y' # done"
    )
    assert split_commands(script) == [
        ["ray", "start", "--head"],
        ["vllm", "serve", "m", "--served-model-name", "a#b", "--chat-template-content-format", "x;y"],
    ]


# ------------------------------------------------------------------------------------------- YAML


YAML_CONFIG = """\
# env: VLLM_USE_V2_MODEL_RUNNER=1 HF_HOME='/data/my hf'
model: meta-llama/Llama-3.1-8B-Instruct
tensor_parallel_size: 4
enforce-eager: true
enable-prefix-caching: false
return_sampling_mask: false
max-model-len: 8k
served-model-name: [a, b]
cudagraph-capture-sizes: []
speculative-config:
  method: ngram
  num_speculative_tokens: 3
compilation-config.mode: 3
"""


def test_yaml_config_follows_load_config_file():
    doc = parse_config_yaml(YAML_CONFIG, catalog=CATALOG)
    assert doc["model"] == {"name": "meta-llama/Llama-3.1-8B-Instruct"}
    assert doc["env"] == {"VLLM_USE_V2_MODEL_RUNNER": "1", "HF_HOME": "/data/my hf"}
    assert doc["args"] == {
        "tensor_parallel_size": 4,
        "enforce_eager": True,
        "enable_prefix_caching": False,
        "max_model_len": 8000,
        "served_model_name": ["a", "b"],
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 3},
        "compilation_config": {"mode": 3},
    }
    # vLLM looks up --no-return_sampling_mask, which does not exist: the false is dropped silently.
    messages = {n["where"]: n["message"] for n in doc["notes"]}
    assert "false is ignored" in messages["line 6"]
    assert "empty list is ignored" in messages["line 9"]


def test_yaml_false_is_dropped_before_0_28():
    doc = parse_config_yaml("model: m\nenable-prefix-caching: false\n", catalog=OLD_CATALOG)
    assert doc["args"] == {}
    assert doc["notes"][0]["where"] == "line 2"


def test_yaml_without_a_catalog_keeps_yaml_types():
    doc = parse_config_yaml(YAML_CONFIG, catalog=None)
    assert doc["args"] == {
        "tensor_parallel_size": 4,
        "enforce_eager": True,
        "enable_prefix_caching": False,
        "max_model_len": "8k",
        "served_model_name": ["a", "b"],
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 3},
        "compilation_config": {"mode": 3},
    }


@pytest.mark.parametrize(
    ("text", "where", "detail"),
    [
        ("- a\n- b\n", "line 1", "must be a mapping"),
        ("model: m\ntensor-parallel-size: abc\n", "line 2", "invalid int value: 'abc'"),
        ("model: m\nenforce-eager: yes please\n", "line 2", "takes no value"),
        ("model: m\nspeculative-config: '{bad'\n", "line 2", "invalid JSON"),
        ("model: m\ntensor-parallel-size: [1\n", "line 3", "invalid YAML"),
        ("model: m\ntensor-parallel-size: true\n", "line 2", "expected one argument"),
        ("", None, "empty"),
    ],
)
def test_yaml_errors_name_the_line(text, where, detail):
    error = error_of(parse_config_yaml, text)
    assert error.where == where
    assert detail in error.detail


def test_yaml_unknown_keys_are_listed_with_their_line():
    doc = parse_config_yaml("model: m\ntensor-paralel-size: 4\n", catalog=CATALOG)
    assert doc["args"] == {"tensor_paralel_size": 4}
    assert doc["unknown"] == [{"flag": "--tensor-paralel-size", "name": "tensor_paralel_size", "line": 2}]


# ------------------------------------------------------------------------------------------- JSON


def test_json_flat_and_structured():
    flat = parse_json('{"model": "m", "tensor-parallel-size": 2, "enforce_eager": true}', catalog=CATALOG)
    assert flat["model"] == {"name": "m"}
    assert flat["args"] == {"tensor_parallel_size": 2, "enforce_eager": True}
    structured = parse_json(
        '{"model": {"name": "m", "architecture": "LlamaForCausalLM"}, "engine_args": '
        '{"max-model-len": "8k", "spec_method": "ngram", "bogus": 1}, "env": {"A": "1"}}',
        catalog=CATALOG,
    )
    assert structured["model"] == {"name": "m", "architecture": "LlamaForCausalLM"}
    assert structured["args"] == {
        "max_model_len": 8000,
        "speculative_config": {"method": "ngram"},
        "bogus": 1,
    }
    assert structured["env"] == {"A": "1"}
    assert structured["unknown"] == [{"flag": "--bogus", "name": "bogus", "key": "bogus"}]


def test_json_errors():
    assert error_of(parse_json, '{"model": ').where == "line 1"
    assert "expected a JSON object" in error_of(parse_json, "[1]").detail
    error = error_of(parse_json, '{"args": {"tensor_parallel_size": "abc"}}')
    assert error.where == "args 'tensor_parallel_size'"


# ------------------------------------------------------------------------------------------ detection


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (SEED, "command"),
        ("vllm serve m \\\n  -tp 2", "command"),
        ("--enforce-eager", "command"),
        (YAML_CONFIG, "yaml"),
        ("# env: A=1\n{}\n", "yaml"),
        ('{"model": "m"}', "json"),
        ("---\nmodel: m\n", "yaml"),
    ],
)
def test_detect_format(text, kind):
    assert detect_format(text) == kind


def test_parse_any_reads_every_form_the_same():
    command = parse_any(SEED, catalog=CATALOG)
    yaml_doc = parse_any(
        "# env: VLLM_USE_V2_MODEL_RUNNER=1\nmodel: meta-llama/Llama-3.1-8B-Instruct\n"
        "return-sampling-mask: true\nlogprobs-mode: processed_logprobs\n"
        "speculative-config: {method: ngram, num_speculative_tokens: 3, prompt_lookup_max: 4}\n",
        catalog=CATALOG,
    )
    json_doc = parse_any(
        '{"model": "meta-llama/Llama-3.1-8B-Instruct", "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "args": '
        '{"return_sampling_mask": true, "logprobs_mode": "processed_logprobs", "speculative_config": '
        '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}}}',
        catalog=CATALOG,
    )
    for doc in (command, yaml_doc, json_doc):
        assert (doc["model"], doc["args"], doc["env"]) == (command["model"], SEED_ARGS, command["env"])
    with pytest.raises(ParseError, match="empty input"):
        parse_any("  \n")


# ------------------------------------------------------------------------------ the real 0.31.0 catalog


@pytest.fixture(scope="module")
def real_catalog():
    return Catalog.load(REAL_CATALOG_PATH)  # shipped: a missing catalog fails


def test_real_catalog_seed(real_catalog):
    doc = parse_command(SEED, catalog=real_catalog)
    assert doc["model"] == {"name": "meta-llama/Llama-3.1-8B-Instruct"}
    assert doc["args"] == SEED_ARGS
    assert doc["env"] == {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert doc["unknown"] == []


def test_real_catalog_common_command(real_catalog):
    doc = parse_command(
        "vllm serve Qwen/Qwen3-8B -tp 2 --max-model-len 32k --gpu-memory-utilization 0.9 "
        "--no-enable-prefix-caching -cc.mode=3 --spec-method ngram --spec-tokens 4 --enforce-eager "
        "--max-num-batched-tokens 8K",
        catalog=real_catalog,
    )
    assert doc["unknown"] == []
    assert doc["args"] == {
        "tensor_parallel_size": 2,
        "max_model_len": 32000,
        "gpu_memory_utilization": 0.9,
        "enable_prefix_caching": False,
        "compilation_config": {"mode": 3},
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 4},
        "enforce_eager": True,
        "max_num_batched_tokens": 8192,
    }
    typo = parse_command("vllm serve m --tensor-paralel-size 4", catalog=real_catalog)
    assert typo["unknown"] == [{"flag": "--tensor-paralel-size", "name": "tensor_paralel_size", "token": 3}]


@pytest.mark.parametrize("text", ["hello", "42", "hello world", "meta-llama/Llama-3.1-8B-Instruct"])
def test_a_lone_word_is_not_a_command_line(text):
    """Without `vllm serve` (or a launcher) a word would become a profile whose model is that word."""
    with pytest.raises(ParseError) as caught:
        parse_any(text, catalog=CATALOG)
    word = text.split()[0]
    assert f"not a vLLM command line: {word!r} is not `vllm serve`" in str(caught.value)
    assert f"`vllm serve {word}`" in str(caught.value)


def test_env_assignments_alone_are_not_a_command_line():
    with pytest.raises(ParseError, match="no command after the environment assignments"):
        parse_command("VLLM_USE_V2_MODEL_RUNNER=1", catalog=CATALOG)


def test_bare_arguments_are_still_read():
    assert parse_command("--model m -tp 2", catalog=CATALOG)["args"]["tensor_parallel_size"] == 2


def test_a_repeated_flag_is_noted_naming_both_positions():
    doc = parse_command("vllm serve m --max-num-seqs 3 -tp 2 --max-num-seqs 4", catalog=CATALOG)
    assert doc["args"]["max_num_seqs"] == 4
    (note,) = doc["notes"]
    assert "token 3 '--max-num-seqs' and token 7 '--max-num-seqs'" in note["message"]
    assert "the last value wins" in note["message"]
