"""The engine-argument catalog extractor: synthetic vLLM source layouts, and facts of the committed catalogs
checked by reading the release sources. Plain pytest, no database, no vLLM import."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
import zipfile
from pathlib import Path

import pytest

from vllmcheck.catalog_builder import CATALOG_DIR, dump_catalog, extract
from vllmcheck.catalog_builder.build import scan_errors
from vllmcheck.engine.catalog import Catalog

RELEASES = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.27.1 0.28.0 "
    "0.29.0 0.30.0 0.31.0 0.32.0 0.33.0 0.34.0"
).split()

# --------------------------------------------------------------------------- a synthetic vLLM

CONFIG_UTILS = """
from dataclasses import field, fields, is_dataclass, MISSING
from pydantic import Field as PydanticField
from pydantic.dataclasses import dataclass

def config(cls=None, *, config=None, **kwargs):
    def decorator(cls):
        return dataclass(cls, **kwargs)
    if cls is None:
        return decorator
    return decorator(cls)

def get_field(cls, name):
    named_field = next(f for f in fields(cls) if f.name == name)
    return field(default=named_field.default)
"""

MODEL_PY = '''
import os
from typing import TYPE_CHECKING, Any, Literal
from pydantic import Field
from dataclasses import field
from vllm.config.utils import config
from vllm.config.speculative import SpeculativeConfig

if TYPE_CHECKING:
    from vllm.quant import QuantizationMethods
else:
    QuantizationMethods = str

RunnerType = Literal["generate", "pooling"]
RunnerOption = Literal["auto", RunnerType]
TokenizerMode = Literal["auto", "slow"]

@config
class ModelConfig:
    """Configuration for the model."""

    model: str = "facebook/opt-125m"
    """Name or path of the model."""
    runner: RunnerOption = "auto"
    """The runner."""
    tokenizer_mode: TokenizerMode | str = "auto"
    """Tokenizer mode."""
    quantization: QuantizationMethods | str | None = None
    """Quantization method."""
    max_model_len: int = Field(default=None, ge=-1)
    """Model context length."""
    max_num_batched_tokens: int | None = None
    """Tokens per batch."""
    return_sampling_mask: bool = False
    """Return the sampling mask."""
    hf_token: bool | str | None = None
    """The token."""
    served_model_name: str | list[str] | None = None
    """Names."""
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    """Fraction of memory."""
    hf_overrides: dict[str, Any] = field(default_factory=dict)
    """Overrides."""
    log_dir: str = field(default_factory=lambda: os.getenv("VLLM_LOG_DIR", "/tmp/logs"))
    """Log directory (an env var decides)."""
    enable_thing: bool = False
    """Enable the thing."""
    disable_other: bool = False
    """Disable the other thing."""
    collect_traces: list[Literal["model", "worker"]] | None = None
    """Traces to collect."""
    old_knob: int = 3
    """[DEPRECATED] This knob is deprecated and will be removed in v0.99.0."""
'''

SPEC_PY = '''
from typing import Literal
from pydantic import Field
from vllm.config.utils import config

SpeculativeMethod = Literal["ngram", "eagle", "mtp"]

@config
class PassConfig:
    fuse_norm_quant: bool = False
    """Fuse."""

@config
class SpeculativeConfig:
    """Speculative decoding."""

    method: SpeculativeMethod | None = None
    """The method."""
    num_speculative_tokens: int = Field(default=None, gt=0)
    """How many tokens."""
    pass_config: PassConfig = Field(default_factory=PassConfig)
    """Nested config."""

    def __post_init__(self):
        if self.method == "ngram" and self.num_speculative_tokens is None:
            raise ValueError(f"num_speculative_tokens must be set for {self.method}")
        if self.method == "mtp":
            raise NotImplementedError("MTP " + "is not supported here")
'''

CONFIG_INIT = """
from vllm.config.model import ModelConfig
from vllm.config.speculative import SpeculativeConfig, PassConfig
from vllm.config.utils import get_field
"""

COMPUTE_KWARGS = """
def _compute_kwargs(cls):
    for field in fields(cls):
        if type_hints == {bool, str, type(None)}:
            kwargs[name]["nargs"] = "?"
        elif contains_type(type_hints, int):
            human_readable_int_args = {"max_num_batched_tokens", "kv_cache_memory_bytes"}
            if name == "max_model_len":
                kwargs[name]["type"] = human_readable_int_or_auto
            elif name in human_readable_int_args:
                kwargs[name]["type"] = human_readable_int
        if type(None) in type_hints and not contains_type(type_hints, bool):
            if kwargs[name].get("choices"):
                kwargs[name]["choices"].append(None)
    return kwargs


def get_kwargs(cls):
    return copy.deepcopy(_compute_kwargs(cls))
"""

ARG_UTILS = (
    """
import argparse
import copy
import json
from dataclasses import dataclass, fields
from vllm.config import ModelConfig, SpeculativeConfig, get_field
from vllm.utils.argparse_utils import FlexibleArgumentParser, human_readable_int, human_readable_int_or_auto

_OLD_FLAG_DEPRECATION_MESSAGE = (
    "--old-flag is deprecated and will be removed in v0.99.0. Use --new-flag instead."
)


def optional_type(return_type):
    def _optional_type(val):
        return None if val in ("", "None") else return_type(val)
    return _optional_type

"""
    + COMPUTE_KWARGS
    + """

@dataclass
class EngineArgs:
    model: str = ModelConfig.model
    tensor_parallel_size: int = 1
    log_level: str | None = None

    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        model_group = parser.add_argument_group(title="ModelConfig", description=ModelConfig.__doc__)
        for name in ("model", "runner", "tokenizer_mode", "quantization", "max_model_len",
                     "return_sampling_mask", "hf_token", "served_model_name", "gpu_memory_utilization",
                     "hf_overrides", "log_dir", "enable_thing", "disable_other", "collect_traces",
                     "old_knob"):
            flags = ["-q"] if name == "quantization" else []
            model_group.add_argument(f"--{name.replace('_', '-')}", *flags, **model_kwargs[name])
        model_group.add_argument(
            "--max-num-batched-tokens", **{**model_kwargs["max_num_batched_tokens"], "default": None}
        )
        parallel_group = parser.add_argument_group(title="ParallelConfig")
        parallel_group.add_argument("--tensor-parallel-size", "-tp", type=int, default=1, help="TP size.")
        parallel_group.add_argument("--old-flag", type=int, default=None, help=_OLD_FLAG_DEPRECATION_MESSAGE)
        vllm_group = parser.add_argument_group(title="VllmConfig")
        spec_kwargs = {"default": None, "type": optional_type(json.loads), "help": "Speculative config."}
        vllm_group.add_argument("--speculative-config", "-sc", **spec_kwargs)
        speculative_kwargs = get_kwargs(SpeculativeConfig)
        vllm_group.add_argument("--spec-method", **speculative_kwargs["method"])
        parser.add_argument("--disable-log-stats", action="store_true", help="Disable logging statistics.")
        parser.add_argument("--log-level", choices=["DEBUG", "INFO"], default=argparse.SUPPRESS,
                            help="Level.")
        return parser


@dataclass
class AsyncEngineArgs(EngineArgs):
    enable_log_requests: bool = False

    @staticmethod
    def add_cli_args(parser, async_args_only=False):
        if not async_args_only:
            parser = EngineArgs.add_cli_args(parser)
        parser.add_argument("--enable-log-requests", action=argparse.BooleanOptionalAction,
                            default=AsyncEngineArgs.enable_log_requests, help="Log requests.")
        return parser
"""
)

ARGPARSE_NEW = """
import sys
from argparse import ArgumentParser, BooleanOptionalAction

def human_readable_int(value):
    return int(value)

def human_readable_int_or_auto(value):
    return -1 if value == "auto" else human_readable_int(value)

class EnableDisableAction(BooleanOptionalAction):
    pass

class FlexibleArgumentParser(ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", BooleanOptionalAction, EnableDisableAction)

    def parse_args(self, args=None, namespace=None):
        pattern = re.compile(r"(?<=--)[^\\.]*")
        for i, arg in enumerate(args):
            if arg.startswith("--"):
                pass
            elif arg.startswith("-O") and arg != "-O":
                optimization_level = arg[3:] if arg[2] == "=" else arg[2:]
                processed_args += ["--optimization-level", optimization_level]
            elif (
                arg == "-O"
                and i + 1 < len(args)
                and args[i + 1] in {"0", "1", "2", "3"}
            ):
                processed_args.append("--optimization-level")
        for i, processed_arg in enumerate(processed_args):
            if processed_arg.endswith("+"):
                pass
            key, *keys = processed_arg.split(".")
            arg_dict = create_nested_dict(keys, value)
"""

ARGPARSE_OLD = """
from argparse import ArgumentParser

def human_readable_int(value):
    return int(value)

def human_readable_int_or_auto(value):
    return int(value)

class FlexibleArgumentParser(ArgumentParser):
    def parse_args(self, args=None, namespace=None):
        for i, arg in enumerate(args):
            if arg.startswith("--"):
                processed_args.append(arg.replace("_", "-"))
            elif arg.startswith("-O") and arg != "-O" and arg[2] != ".":
                processed_args.append("--compilation-config")
"""

FRONTEND = '''
import json
from dataclasses import field
from typing import Literal
from vllm.config.utils import config
from vllm.engine.arg_utils import AsyncEngineArgs, optional_type
from vllm.utils.argparse_utils import FlexibleArgumentParser


@config
class BaseFrontendArgs:
    tool_call_parser: str | None = None
    """Tool call parser."""

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs["tool_call_parser"]["metavar"] = "{a,b} or a plugin"
        return frontend_kwargs

    @classmethod
    def add_cli_args(cls, parser):
        from vllm.engine.arg_utils import get_kwargs

        frontend_kwargs = get_kwargs(cls)
        frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs)
        frontend_group = parser.add_argument_group(title=cls.__name__.replace("Args", ""))
        for key, value in frontend_kwargs.items():
            extra_flags = value.pop("flags", [])
            frontend_group.add_argument(*extra_flags, f"--{key.replace('_', '-')}", **value)
        return parser


@config
class FrontendArgs(BaseFrontendArgs):
    host: str | None = None
    """Host name."""
    port: int = 8000
    """Port number."""
    uvicorn_log_level: Literal["critical", "error", "info"] = "info"
    """Log level for uvicorn."""
    middleware: list[str] = field(default_factory=lambda: [])
    """Middleware."""
    api_key: list[str] | None = None
    """API keys."""

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs = super()._customize_cli_kwargs(frontend_kwargs)
        frontend_kwargs["middleware"]["action"] = "append"
        frontend_kwargs["middleware"]["type"] = str
        if "nargs" in frontend_kwargs["middleware"]:
            del frontend_kwargs["middleware"]["nargs"]
        return frontend_kwargs


def make_arg_parser(parser):
    parser.add_argument("model_tag", type=str, nargs="?", help="The model tag.")
    parser.add_argument("--api-server-count", "-asc", type=int, default=None, help="API servers.")
    parser = FrontendArgs.add_cli_args(parser)
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser


def validate_parsed_serve_args(args):
    if args.enable_auto_tool_choice and not args.tool_call_parser:
        raise TypeError("Error: --enable-auto-tool-choice requires --tool-call-parser")
'''

SERVE = """
from vllm.entrypoints.cli.types import CLISubcommand
from {frontend} import make_arg_parser


class ServeSubcommand(CLISubcommand):
    name = "serve"

    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser(self.name, help="Serve.",
                                             usage="vllm serve [model_tag] [options]")
        serve_parser = make_arg_parser(serve_parser)
        return serve_parser
"""

TYPES = """
class CLISubcommand:
    name: str
"""


def make_tree(
    root: Path,
    *,
    frontend: str = "vllm/entrypoints/openai/cli_args.py",
    new_parser: bool = True,
    version: str = "9.9.0",
) -> Path:
    files = {
        "vllm/__init__.py": "",
        "vllm/_version.py": (
            f"__version__ = version = '{version}'\n__commit_id__ = commit_id = 'gabc1234de'\n"
        ),
        "vllm/config/__init__.py": CONFIG_INIT,
        "vllm/config/utils.py": CONFIG_UTILS,
        "vllm/config/model.py": MODEL_PY,
        "vllm/config/speculative.py": SPEC_PY,
        "vllm/engine/__init__.py": "",
        "vllm/engine/arg_utils.py": ARG_UTILS,
        "vllm/utils/__init__.py": "",
        "vllm/utils/argparse_utils.py": ARGPARSE_NEW if new_parser else ARGPARSE_OLD,
        "vllm/entrypoints/__init__.py": "",
        "vllm/entrypoints/cli/__init__.py": "",
        "vllm/entrypoints/cli/types.py": TYPES,
        "vllm/entrypoints/cli/serve.py": SERVE.format(frontend=frontend[:-3].replace("/", ".")),
        frontend: FRONTEND,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> dict:
    root = make_tree(tmp_path_factory.mktemp("src"))
    return extract(source=root, version="9.9.0")


def args_by_name(catalog: dict) -> dict:
    return {a["name"]: a for a in catalog["arguments"]}


def test_synthetic_flags_aliases_and_groups(synthetic):
    args = args_by_name(synthetic)
    assert "model_tag" not in args  # the positional is a parser quirk, not an argument
    assert args["tensor_parallel_size"]["flags"] == ["--tensor-parallel-size", "-tp"]
    assert args["tensor_parallel_size"]["type"] == "int" and args["tensor_parallel_size"]["default"] == 1
    assert args["quantization"]["flags"] == ["--quantization", "-q"]
    assert args["tensor_parallel_size"]["group"] == "ParallelConfig"
    assert args["host"]["group"] == "Frontend"
    assert args["api_server_count"]["flags"] == ["--api-server-count", "-asc"]


def test_synthetic_literal_choices_and_free_text(synthetic):
    args = args_by_name(synthetic)
    assert args["runner"]["choices"] == ["auto", "generate", "pooling"]  # nested Literal flattened, sorted
    assert args["tokenizer_mode"]["choices"] is None  # `| str` makes it free text
    assert args["tokenizer_mode"]["suggestions"] == ["auto", "slow"]
    assert args["quantization"]["choices"] is None and args["quantization"]["nullable"] is True
    assert args["spec_method"]["choices"] == ["eagle", "mtp", "ngram", None]  # Optional appends None
    assert args["uvicorn_log_level"]["choices"] == ["critical", "error", "info"]
    assert args["collect_traces"]["type"] == "list" and args["collect_traces"]["choices"] == [
        "model",
        "worker",
        None,
    ]


def test_synthetic_types_defaults_and_bounds(synthetic):
    args = args_by_name(synthetic)
    assert args["return_sampling_mask"]["type"] == "bool" and args["return_sampling_mask"]["default"] is False
    assert args["gpu_memory_utilization"]["bounds"] == {"gt": 0, "le": 1}
    assert args["gpu_memory_utilization"]["type"] == "float"
    assert args["max_model_len"]["human_readable_int"] and args["max_model_len"]["special_values"] == [
        "auto",
        "-1",
    ]
    assert args["max_num_batched_tokens"]["human_readable_int"]
    assert args["max_num_batched_tokens"]["default_resolved_at_startup"] is True
    assert args["hf_token"]["optional_value"] is True and args["hf_token"]["const"] is True
    assert args["served_model_name"]["type"] == "list" and args["served_model_name"]["item_type"] == "str"
    assert args["hf_overrides"]["type"] == "json" and args["hf_overrides"]["default"] == {}
    assert (
        args["log_dir"]["default"] == "/tmp/logs" and args["log_dir"]["default_resolved_at_startup"] is True
    )
    assert args["disable_log_stats"]["type"] == "bool" and args["disable_log_stats"]["default"] is False
    assert args["disable_log_stats"]["negative_flags"] == []
    assert args["log_level"]["default"] is None  # default=SUPPRESS falls back to the EngineArgs field
    assert args["middleware"]["type"] == "list" and args["middleware"]["repeatable"] is True
    assert args["api_key"]["type"] == "list" and args["api_key"]["nargs"] == "+"
    assert args["tool_call_parser"]["type"] == "str" and args["tool_call_parser"]["default"] is None


def test_synthetic_json_config_and_config_classes(synthetic):
    args = args_by_name(synthetic)
    sc = args["speculative_config"]
    assert sc["flags"] == ["--speculative-config", "-sc"] and sc["type"] == "json"
    # The type was overridden to json.loads: the config class is not known from the kwargs.
    assert sc["nullable"] is True


def test_synthetic_enable_disable_pairs(synthetic):
    args = args_by_name(synthetic)
    assert args["enable_thing"]["negative_flags"] == ["--disable-thing", "--no-enable-thing"]
    assert args["enable_thing"]["hidden_aliases"] == ["--no-enable-thing"]
    assert args["disable_other"]["negative_flags"] == ["--enable-other", "--no-disable-other"]
    assert args["return_sampling_mask"]["negative_flags"] == ["--no-return-sampling-mask"]
    assert args["return_sampling_mask"]["hidden_aliases"] == []
    assert synthetic["parser"]["enable_disable_pairs"] is True


def test_synthetic_deprecation(synthetic):
    args = args_by_name(synthetic)
    assert args["old_flag"]["deprecated"] is True
    assert "v0.99.0" in args["old_flag"]["deprecation"]
    assert args["old_knob"]["deprecated"] is True and "v0.99.0" in args["old_knob"]["deprecation"]
    assert args["tensor_parallel_size"]["deprecated"] is False


def test_synthetic_errors_source_and_parser(synthetic):
    messages = {(e["class"], e["message"]) for e in synthetic["errors"]}
    assert ("ValueError", "num_speculative_tokens must be set for {self.method}") in messages
    assert ("NotImplementedError", "MTP is not supported here") in messages
    assert ("TypeError", "Error: --enable-auto-tool-choice requires --tool-call-parser") in messages
    err = next(e for e in synthetic["errors"] if e["class"] == "ValueError")
    assert err["file"] == "vllm/config/speculative.py" and err["where"] == "SpeculativeConfig.__post_init__"
    assert synthetic["source"] == {"commit": "abc1234de", "sha256": None, "wheel": None}
    parser = synthetic["parser"]
    assert parser["O_alias"] == "optimization_level"
    assert parser["O_separate_values"] == ["0", "1", "2", "3"]
    assert parser["underscore_to_dash"] == "name_part"
    assert parser["dotted_keys"] is True and parser["list_append_plus"] is True


def test_old_layout_launchers_frontend_and_O_alias(tmp_path):
    root = make_tree(tmp_path, frontend="vllm/entrypoints/launchers/cli_args.py", new_parser=False)
    catalog = extract(source=root, version="9.8.0")
    args = args_by_name(catalog)
    assert {"host", "port", "tensor_parallel_size", "speculative_config"} <= set(args)
    assert catalog["parser"]["O_alias"] == "compilation_config"
    assert catalog["parser"]["enable_disable_pairs"] is False
    assert catalog["parser"]["list_append_plus"] is False
    assert args["enable_thing"]["negative_flags"] == ["--no-enable-thing"]
    assert args["enable_thing"]["hidden_aliases"] == []


def test_wheel_source_sha_and_determinism(tmp_path):
    root = make_tree(tmp_path / "src")
    wheel = tmp_path / "vllm-9.9.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted((root / "vllm").rglob("*.py")):
            zf.write(path, path.relative_to(root).as_posix())
        zf.writestr("vllm-9.9.0.dist-info/METADATA", "Name: vllm\n")
    catalog = extract(wheel=wheel)
    assert catalog["version"] == "9.9.0"
    assert catalog["source"]["wheel"] == wheel.name
    assert catalog["source"]["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert dump_catalog(catalog) == dump_catalog(extract(wheel=wheel))
    assert dump_catalog(catalog) == dump_catalog(json.loads(dump_catalog(catalog)))


QUANT_PY = '''
from typing import Annotated, Any
from pydantic import Field, GetPydanticSchema, ValidationInfo, field_validator
from pydantic_core import core_schema
from vllm.config.utils import config


@config
class Key:
    bits: int = 8
    """Bits."""


kInt8 = Key(bits=8)
kFp4 = Key(bits=4)
KEY_NAMES: dict[str, Key] = {"int8": kInt8, "fp4": kFp4}


def _coerce_key(v: Any) -> Key | None:
    if v is None or isinstance(v, Key):
        return v
    if not isinstance(v, str):
        raise TypeError(f"expected str or Key, got {type(v).__name__}")
    try:
        return KEY_NAMES[v]
    except KeyError:
        raise ValueError(f"unknown name {v!r}; expected one of {sorted(KEY_NAMES)}") from None


KeyField = Annotated[
    Key | None,
    GetPydanticSchema(lambda _src, _handler: core_schema.no_info_plain_validator_function(_coerce_key)),
]


@config
class Spec:
    weight: KeyField = None
    """Weight key, or a name from KEY_NAMES."""
    label: str | None = None
    """A free-text label: its validator passes strings on."""

    @field_validator("label", mode="before")
    @classmethod
    def _strip(cls, v: Any) -> Any:
        return v.strip() if isinstance(v, str) else v


@config
class QuantArgs:
    """Quantization."""

    linear: Spec | None = None
    """Linear spec."""
    moe: Spec | None = None
    """MoE spec."""

    @field_validator("linear", "moe", mode="before")
    @classmethod
    def _coerce_spec(cls, v: Any, info: ValidationInfo) -> Any:
        if not isinstance(v, str):
            return v
        field_name = info.field_name
        if v in _SHORTHANDS:
            spec = getattr(_SHORTHANDS[v], field_name)
            if spec is None:
                raise ValueError(f"shorthand {v!r} does not define a {field_name} spec")
            return spec
        return Spec(weight=_coerce_key(v))


_SHORTHANDS: dict[str, QuantArgs] = {
    "w8": QuantArgs(linear=Spec(weight=kInt8), moe=Spec(weight=kInt8)),
    "moe_only": QuantArgs(moe=Spec(weight=kFp4)),
}
'''


def _tree_with_quant_config(tmp_path, quant_source: str):
    """The test tree with ``vllm/config/quant.py`` holding ``quant_source`` and ModelConfig's
    ``quant_config: QuantArgs`` offered as the argument --quant-config."""
    root = make_tree(tmp_path)
    (root / "vllm/config/quant.py").write_text(quant_source)
    model = (root / "vllm/config/model.py").read_text()
    model = model.replace(
        "from vllm.config.speculative import SpeculativeConfig",
        "from vllm.config.speculative import SpeculativeConfig\nfrom vllm.config.quant import QuantArgs",
    )
    model += '    quant_config: QuantArgs | None = None\n    """Quantization config."""\n'
    (root / "vllm/config/model.py").write_text(model)
    utils = (root / "vllm/engine/arg_utils.py").read_text()
    (root / "vllm/engine/arg_utils.py").write_text(
        utils.replace('"old_knob"):', '"old_knob", "quant_config"):')
    )
    return root


def test_fields_a_validator_turns_from_a_name_into_an_object(tmp_path):
    """A config field typed as an object that its class's validator also takes as a name (the online
    quantization specs of 0.22.0+), and a field whose Annotated validator takes names only."""
    catalog = extract(source=_tree_with_quant_config(tmp_path, textwrap.dedent(QUANT_PY)), version="9.9.0")
    assert args_by_name(catalog)["quant_config"]["config_class"] == "QuantArgs"
    classes = catalog["config_classes"]
    unknown = "unknown name {value!r}; expected one of ['fp4', 'int8']"
    linear, moe = classes["QuantArgs"]["fields"]["linear"], classes["QuantArgs"]["fields"]["moe"]
    assert (linear["type"], linear["config_class"], linear["json_or_str"]) == ("json", "Spec", True)
    assert linear["str_check"] == {
        "values": ["fp4", "int8", "w8"],
        "refused": {"moe_only": "shorthand 'moe_only' does not define a linear spec"},
        "message": unknown,
        "class": "ValueError",
        "strict": False,
    }
    assert (
        moe["str_check"]["values"] == ["fp4", "int8", "moe_only", "w8"] and moe["str_check"]["refused"] == {}
    )
    # the plain validator takes a name or null, never an object: a str field, and Key is no config class
    weight = classes["Spec"]["fields"]["weight"]
    assert (weight["type"], weight["nullable"], "config_class" in weight) == ("str", True, False)
    assert weight["str_check"] == {
        "values": ["fp4", "int8"],
        "refused": {},
        "message": unknown,
        "class": "ValueError",
        "strict": True,
    }
    assert "Key" not in classes
    # a validator that passes strings on to the field's own type decides nothing
    assert "str_check" not in classes["Spec"]["fields"]["label"]


TARGETS_PY = """
    targets: dict[str, str | Spec] | None = None
    \"\"\"Per-layer shorthand names or specs.\"\"\"

    @field_validator("targets", mode="before")
    @classmethod
    def _validate_targets(cls, v: Any) -> Any:
        if v is None:
            return v
        if not isinstance(v, dict):
            raise TypeError(f"targets must be a dict, got {type(v).__name__}")
        for pattern, target in v.items():
            if isinstance(target, str):
                if target not in _SHORTHANDS:
                    raise ValueError(f"targets[{pattern}] = {target} is not a shorthand; {sorted(_SHORTHANDS)}")
            elif not isinstance(target, dict):
                raise ValueError(f"targets[{pattern}] must be a shorthand or a spec, got {type(target).__name__}")
        return v
"""


def test_an_object_field_whose_validator_refuses_some_values_and_items(tmp_path):
    """A free-form ``dict[str, str | Spec]`` field whose before-validator refuses a non-object, and items
    that are neither a shorthand name nor an object (QuantizationConfigArgs.targets, 0.30.0+)."""
    quant = textwrap.dedent(QUANT_PY).replace(
        '    moe: Spec | None = None\n    """MoE spec."""\n',
        '    moe: Spec | None = None\n    """MoE spec."""\n'
        + textwrap.dedent(TARGETS_PY).replace("\n", "\n    "),
    )
    catalog = extract(source=_tree_with_quant_config(tmp_path, quant), version="9.9.0")
    targets = catalog["config_classes"]["QuantArgs"]["fields"]["targets"]
    check = targets["dict_check"]
    assert check["types"]["str"] == {"class": "TypeError", "message": "targets must be a dict, got str"}
    assert check["types"]["list"] == {"class": "TypeError", "message": "targets must be a dict, got list"}
    items = check["items"]
    assert (items["values"], items["refused"], items["config_class"]) == (["moe_only", "w8"], {}, "Spec")
    assert items["message"] == {
        "class": "ValueError",
        "message": "targets[{key}] = {value} is not a shorthand; ['moe_only', 'w8']",
    }
    assert items["types"]["int"] == {
        "class": "ValueError",
        "message": "targets[{key}] must be a shorthand or a spec, got int",
    }
    assert "dict" not in items["types"]


def test_scan_errors_renders_placeholders():
    src = textwrap.dedent("""
        class C:
            def f(self, x):
                msg = f"bad {x!r} value"
                if x:
                    raise ValueError(msg)
                raise TypeError("a" "b" + str(x))
    """)
    errors = scan_errors("vllm/config/c.py", src)
    assert [(e["class"], e["message"], e["line"]) for e in errors] == [
        ("ValueError", "bad {x} value", 6),
        ("TypeError", "ab{str(x)}", 7),
    ]


# --------------------------------------------------------------------------- the committed catalogs


def load(version: str) -> dict:
    return json.loads((CATALOG_DIR / f"{version}.json").read_text())


@pytest.fixture(scope="module")
def catalogs() -> dict[str, dict]:
    return {v: load(v) for v in RELEASES}


def flags_of(catalog: dict) -> dict[str, dict]:
    return {f: a for a in catalog["arguments"] for f in a["flags"]}


def test_every_release_has_a_catalog(catalogs):
    for version, catalog in catalogs.items():
        assert catalog["version"] == version
        assert re.fullmatch(r"[0-9a-f]{64}", catalog["source"]["sha256"] or "")
        assert catalog["source"]["wheel"].startswith(f"vllm-{version}-")
        assert re.fullmatch(r"[0-9a-f]{7,40}", catalog["source"]["commit"] or "")
        assert len(catalog["arguments"]) > 200
        assert (CATALOG_DIR / f"{version}.json").stat().st_size < 1_500_000
        Catalog.from_dict(catalog)  # loads into ArgSpec without error


def test_committed_catalog_is_deterministic_json():
    text = (CATALOG_DIR / "0.31.0.json").read_text()
    assert dump_catalog(json.loads(text)) == text


def test_commit_ids(catalogs):
    assert catalogs["0.31.0"]["source"]["commit"] == "db9527a46"
    assert catalogs["0.33.0"]["source"]["commit"] == "4ba787ec9"


def test_return_sampling_mask_from_0_28_0(catalogs):
    for version, catalog in catalogs.items():
        arg = flags_of(catalog).get("--return-sampling-mask")
        if tuple(map(int, version.split("."))) >= (0, 28, 0):
            assert arg is not None, version
            assert (arg["type"], arg["default"], arg["name"]) == ("bool", False, "return_sampling_mask")
        else:
            assert arg is None, version


def test_tp_pp_dp_aliases(catalogs):
    for version, catalog in catalogs.items():
        flags = flags_of(catalog)
        for short, name in (
            ("-tp", "tensor_parallel_size"),
            ("-pp", "pipeline_parallel_size"),
            ("-dp", "data_parallel_size"),
        ):
            arg = flags[short]
            assert (arg["name"], arg["type"], arg["default"]) == (name, "int", 1), (version, short)


def test_speculative_config(catalogs):
    for version, catalog in catalogs.items():
        arg = flags_of(catalog)["-sc"]
        assert arg["name"] == "speculative_config" and arg["type"] == "json", version
        assert arg["config_class"] == "SpeculativeConfig" and arg["default"] is None
    spec = catalogs["0.33.0"]["config_classes"]["SpeculativeConfig"]["fields"]
    assert "ngram" in spec["method"]["choices"] and None in spec["method"]["choices"]
    assert spec["num_speculative_tokens"]["type"] == "int"
    cc = catalogs["0.33.0"]["config_classes"]
    assert cc["CompilationConfig"]["fields"]["pass_config"]["config_class"] == "PassConfig"
    assert "PassConfig" in cc and "EPLBConfig" in cc and "KVTransferConfig" in cc
    assert "StructuredOutputsConfig" in cc


def test_logprobs_mode_choices(catalogs):
    for version, catalog in catalogs.items():
        arg = flags_of(catalog)["--logprobs-mode"]
        assert arg["choices"] == ["processed_logits", "processed_logprobs", "raw_logits", "raw_logprobs"], (
            version
        )
        assert arg["default"] == "raw_logprobs"


def test_removed_flags(catalogs):
    for version, catalog in catalogs.items():
        flags = flags_of(catalog)
        assert "--task" not in flags, version
        v = tuple(map(int, version.split(".")))
        assert ("--max-num-partial-prefills" in flags) == (v <= (0, 26, 0)), version
        assert ("--calculate-kv-scales" in flags) == (v <= (0, 27, 1)), version


def test_enable_disable_pairs_from_0_33_0(catalogs):
    old = flags_of(catalogs["0.32.0"])["--enable-prefix-caching"]
    assert old["negative_flags"] == ["--no-enable-prefix-caching"] and old["hidden_aliases"] == []
    for version in ("0.33.0", "0.34.0"):
        flags = flags_of(catalogs[version])
        new = flags["--enable-prefix-caching"]
        assert new["negative_flags"] == ["--disable-prefix-caching", "--no-enable-prefix-caching"]
        assert new["hidden_aliases"] == ["--no-enable-prefix-caching"]
        assert new["default"] is None and new["default_resolved_at_startup"] is True
        assert flags["--disable-sliding-window"]["negative_flags"][0] == "--enable-sliding-window"
    assert catalogs["0.33.0"]["parser"]["enable_disable_pairs"] is True
    assert catalogs["0.32.0"]["parser"]["enable_disable_pairs"] is False


def test_frontend_flags(catalogs):
    for version, catalog in catalogs.items():
        flags = flags_of(catalog)
        assert flags["--port"]["default"] == 8000 and flags["--port"]["type"] == "int", version
        assert flags["--host"]["default"] is None
        assert flags["--api-key"]["type"] == "list"
        assert flags["--tool-call-parser"]["type"] == "str"
        assert flags["--uvicorn-log-level"]["choices"] == [
            "critical",
            "debug",
            "error",
            "info",
            "trace",
            "warning",
        ]


def test_parser_quirks(catalogs):
    for version, catalog in catalogs.items():
        parser = catalog["parser"]
        assert parser["O_alias"] == "optimization_level", version
        assert parser["underscore_to_dash"] == "name_part"
        assert parser["dotted_keys"] is True and parser["list_append_plus"] is True


def test_deprecations_name_a_release(catalogs):
    flags = flags_of(catalogs["0.33.0"])
    for flag in ("--log-config-file", "--mamba-cache-mode", "--disable-cascade-attn", "--ir-op-priority"):
        assert flags[flag]["deprecated"] is True, flag
        assert re.search(r"v0\.3\d\.0", flags[flag]["deprecation"]), flag
    assert flags["--tensor-parallel-size"]["deprecated"] is False


def test_errors_are_recorded(catalogs):
    errors = catalogs["0.31.0"]["errors"]
    assert len(errors) > 100
    assert all({"message", "class", "file", "line"} <= set(e) for e in errors)
    assert any(e["file"] == "vllm/config/vllm.py" for e in errors)


def test_scan_errors_indexes_asserts_with_a_message_like_raises():
    src = textwrap.dedent("""
        def check(n, tp):
            assert n > 0
            assert n % tp == 0, f"{n} is not divisible by {tp}"
            raise ValueError("never")
    """)
    errors = scan_errors("vllm/config/c.py", src)
    assert [(e["kind"], e["class"], e["message"], e["line"]) for e in errors] == [
        ("assert", "AssertionError", "{n} is not divisible by {tp}", 4),
        ("raise", "ValueError", "never", 5),
    ]


# --------------------------------------------------------------------------- value sets

VALUE_TREE = {
    "vllm/config/cache.py": """
from typing import Literal, get_args
from pydantic import field_validator

CacheDType = Literal["auto", "fp8", "fp8_e4m3"]
KV_CACHE_DTYPES: list[str] = list(get_args(CacheDType))

class CacheConfig:
    @field_validator("cache_dtype", mode="after")
    @classmethod
    def _validate_cache_dtype(cls, cache_dtype):
        if cache_dtype not in KV_CACHE_DTYPES:
            raise ValueError(
                f"Invalid kv_cache_dtype: {cache_dtype!r}. "
                f"Valid values are: {KV_CACHE_DTYPES}"
            )
        return cache_dtype
""",
    "vllm/config/speculative.py": """
from typing import Literal, get_args
MTPModelTypes = Literal["deepseek_mtp", "mimo_mtp"]
SpeculativeMethod = Literal["ngram", "eagle", MTPModelTypes]

class SpeculativeConfig:
    @classmethod
    def _validate_method(cls, value):
        if value is None or value in get_args(SpeculativeMethod):
            return value
        if value not in (registered := registered_speculative_methods()):
            raise ValueError(
                f"Unknown speculative method {value!r}. Built-in methods: "
                f"{sorted(get_args(SpeculativeMethod))}; registered custom "
                f"methods: {registered}."
            )
        return value
""",
    "vllm/config/compilation.py": """
import enum

class CompilationMode(enum.IntEnum):
    NONE = 0
    VLLM_COMPILE = 3

class CompilationConfig:
    def validate_mode_before(cls, value):
        if isinstance(value, str) and value.upper() not in CompilationMode.__members__:
            raise ValueError(
                f"Invalid compilation mode: {value}. "
                f"Valid modes are: {', '.join(CompilationMode.__members__.keys())}"
            )
        return value
""",
    "vllm/reasoning/__init__.py": """
_REASONING_PARSERS_TO_REGISTER = {"qwen3": ("qwen3", "Qwen3"), "deepseek_r1": ("ds", "DS")}
""",
    "vllm/reasoning/extra.py": """
@ReasoningParserManager.register_module(["granite", "hunyuan"])
class Granite:
    pass
""",
    "vllm/entrypoints/cli_args.py": """
def validate_api_server_args(args):
    valid_reasoning_parsers = ReasoningParserManager.list_registered()
    if (
        reasoning_parser := args.structured_outputs_config.reasoning_parser
    ) and reasoning_parser not in valid_reasoning_parsers:
        raise KeyError(
            f"invalid reasoning parser: {reasoning_parser} "
            f"(chose from {{ {','.join(valid_reasoning_parsers)} }})"
        )
""",
    "vllm/reasoning/abs_reasoning_parsers.py": """
class ReasoningParserManager:
    def get_reasoning_parser(cls, name):
        if name in cls.reasoning_parsers:
            return cls.reasoning_parsers[name]
        registered = ", ".join(cls.list_registered())
        raise KeyError(
            f"Reasoning parser '{name}' not found. Available parsers: {registered}"
        )
""",
}


def test_value_sets_and_their_messages_from_a_small_source_tree(tmp_path):
    from vllmcheck.catalog_builder import SourceTree
    from vllmcheck.catalog_builder.values import extract_value_sets

    for path, text in VALUE_TREE.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text))
    sets, checks = extract_value_sets(SourceTree.from_dir(tmp_path))
    assert sets["kv_cache_dtypes"]["values"] == ["auto", "fp8", "fp8_e4m3"]
    assert sets["kv_cache_dtypes"]["file"] == "vllm/config/cache.py"
    assert sets["speculative_methods"]["values"] == ["ngram", "eagle", "deepseek_mtp", "mimo_mtp"]
    assert sets["compilation_modes"]["members"] == {"NONE": 0, "VLLM_COMPILE": 3}
    assert sets["reasoning_parsers"]["values"] == ["deepseek_r1", "granite", "hunyuan", "qwen3"]
    assert "quantization_methods" not in sets  # not in this tree: no guess
    messages = {(c["argument"], c["key"]): c["message"] for c in checks}
    assert messages[("kv_cache_dtype", None)] == (
        "Invalid kv_cache_dtype: {value!r}. Valid values are: ['auto', 'fp8', 'fp8_e4m3']"
    )
    assert messages[("speculative_config", "method")] == (
        "Unknown speculative method {value!r}. Built-in methods: "
        "['deepseek_mtp', 'eagle', 'mimo_mtp', 'ngram']; registered custom methods: []."
    )
    assert messages[("compilation_config", "mode")] == (
        "Invalid compilation mode: {value}. Valid modes are: NONE, VLLM_COMPILE"
    )
    # --reasoning-parser reaches the API server's check only inside structured_outputs_config, which the
    # engine arguments fill later: the first refusal is the parser registry's
    assert messages[("reasoning_parser", None)] == (
        "Reasoning parser '{value}' not found. Available parsers: deepseek_r1, granite, hunyuan, qwen3"
    )


SET_NAMES = (
    "quantization_methods speculative_methods attention_backends reasoning_parsers tool_call_parsers "
    "kv_cache_dtypes compilation_modes cudagraph_modes optimization_levels chat_template_content_formats"
).split()


def test_every_shipped_catalog_has_every_value_set(catalogs):
    for version, catalog in catalogs.items():
        assert sorted(catalog["value_sets"]) == sorted(SET_NAMES), version
        for name, entry in catalog["value_sets"].items():
            assert entry["values"] and entry["file"].startswith("vllm/"), (version, name)
        assert any(e.get("kind") == "assert" for e in catalog["errors"]), version


def test_shipped_value_sets_of_0_33_0_and_0_34_0(catalogs):
    sets = {v: catalogs[v]["value_sets"] for v in ("0.33.0", "0.34.0")}
    assert {"ngram", "eagle3", "draft_model", "suffix"} <= set(
        sets["0.34.0"]["speculative_methods"]["values"]
    )
    assert {"auto", "fp8", "fp8_e4m3", "nvfp4"} <= set(sets["0.33.0"]["kv_cache_dtypes"]["values"])
    assert sets["0.34.0"]["optimization_levels"]["members"] == {"O0": 0, "O1": 1, "O2": 2, "O3": 3}
    checks = {(c["argument"], c["key"]): c for c in catalogs["0.34.0"]["value_checks"]}
    spec = checks[("speculative_config", "method")]
    assert spec["message"].startswith("Unknown speculative method {value!r}. Built-in methods: ['")
    assert spec["site"]["file"] == "vllm/config/speculative.py"
    # 0.33.0 moved the kv-cache dtype check from argparse into CacheConfig: the catalog has vLLM's message.
    kv = {(c["argument"], c["key"]): c for c in catalogs["0.33.0"]["value_checks"]}[("kv_cache_dtype", None)]
    assert kv["message"].startswith("Invalid kv_cache_dtype: {value!r}. Valid values are: ['auto', ")
    # argparse choices the 0.33.0 and 0.34.0 catalogs had lost (a star import the extractor did not follow)
    for version in ("0.33.0", "0.34.0"):
        fmt = flags_of(catalogs[version])["--chat-template-content-format"]
        assert sorted(fmt["choices"]) == ["auto", "openai", "string"], version


# --------------------------------------------------------------------------- shapes of 0.8-0.19's parsers

OLD_SERVE = """
from vllm.entrypoints.cli.types import CLISubcommand
from vllm.entrypoints.openai.cli_args import make_arg_parser


class ServeSubcommand(CLISubcommand):

    def __init__(self):
        self.name = "serve"
        super().__init__()

    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser("serve", help="Serve.", usage="vllm serve [model_tag] [options]")
        serve_parser.add_argument("model_tag", type=str, nargs="?", help="The model tag.")
        serve_parser.add_argument("--config", type=str, default="", required=False, help="A YAML file.")
        return make_arg_parser(serve_parser)
"""


def test_old_serve_subcommand_skipvalidation_fields_and_type_bool(tmp_path):
    """What the real parsers of 0.8.5-0.22.1 showed (benchmarks/conformance/CATALOG-CHECK.md): 0.8's serve
    subcommand names itself in ``__init__`` and adds ``--config``; 0.9-0.22's scheduler fields are
    ``SkipValidation[int]`` (argparse sees the int); 0.11's deprecated flags with ``type=bool`` take a value."""
    root = make_tree(tmp_path)
    (root / "vllm/entrypoints/cli/serve.py").write_text(textwrap.dedent(OLD_SERVE))
    model = root / "vllm/config/model.py"
    model.write_text(
        model.read_text().replace(
            "from pydantic import Field\n", "from pydantic import Field, SkipValidation\n"
        )
        + '    max_num_seqs: SkipValidation[int] = None\n    """Sequences per batch."""\n'
        + '    runner_kind: SkipValidation[RunnerType] = "generate"\n    """The runner kind."""\n'
    )
    arg_utils = root / "vllm/engine/arg_utils.py"
    arg_utils.write_text(
        arg_utils.read_text()
        .replace('"old_knob"):', '"old_knob", "max_num_seqs", "runner_kind"):')
        .replace(
            "        vllm_group = parser",
            '        parallel_group.add_argument("--disable-fallback", type=bool, help="[DEPRECATED] Gone.")\n'
            "        vllm_group = parser",
        )
    )
    args = args_by_name(extract(source=root, version="0.9.9"))
    assert args["config"]["flags"] == ["--config"] and args["config"]["type"] == "str"
    assert args["max_num_seqs"]["type"] == "int"
    assert (args["runner_kind"]["type"], args["runner_kind"]["choices"]) == ("str", ["generate", "pooling"])
    fallback = args[
        "disable_fallback"
    ]  # `--disable-fallback false` is True for argparse, but takes the value
    assert (fallback["type"], fallback["negatable"], fallback["optional_value"]) == ("str", False, False)


def test_old_catalogs_agree_with_the_real_parsers_on_the_flags_users_report():
    """Facts of the shipped 0.8.5 / 0.10.2 / 0.11.0 catalogs that the real parsers' dumps showed."""
    c085, c0102, c0110 = (args_by_name(load(v)) for v in ("0.8.5", "0.10.2", "0.11.0"))
    assert c085["config"]["flags"] == ["--config"]
    assert c085["reasoning_parser"]["choices"] == ["deepseek_r1", "granite"]
    compilation = c085["compilation_config"]  # type=CompilationConfig.from_cli
    assert compilation["type"] == "json" and "-O" in compilation["flags"]
    assert c0110["reasoning_parser"]["choices"][:2] == ["deepseek_r1", "glm45"]
    for catalog in (c0102, c0110):
        assert (catalog["max_num_seqs"]["type"], catalog["max_model_len"]["type"]) == ("int", "int")
        assert catalog["max_model_len"]["human_readable_int"] is True
        assert catalog["block_size"]["choices"] == [1, 8, 16, 32, 64, 128]
        chunked = catalog["enable_chunked_prefill"]
        assert (chunked["type"], chunked["negative_flags"]) == ("bool", ["--no-enable-chunked-prefill"])
    assert c0110["guided_decoding_disable_fallback"]["type"] == "str"
