"""Parse a profile the way ``vllm serve`` reads it: a command line, a ``--config`` YAML file, or JSON.

The command-line path mirrors vLLM's ``FlexibleArgumentParser.parse_args`` (``vllm/utils/argparse_utils.py``)
step by step, then argparse itself (Python 3.11/3.12 rules: prefix abbreviations, negative numbers as values,
``nargs``), then the argument types of ``vllm/engine/arg_utils.py`` as the release's catalog records them:

1. ``vllm serve ... --model X``: the first ``--model`` is moved to the positional model slot.
2. ``--served-model-name`` without a leading positional model is refused (vLLM's own message).
3. ``--config FILE``: checked (one only, yaml/yml) and kept as ``args["config"]``; the file is not read here.
4. In flag names (from ``--`` up to the first ``.``) ``_`` becomes ``-``; ``-O3``, ``-O=3`` and ``-O 3``
   become ``--optimization-level 3`` (the catalog's ``parser.O_alias`` may say otherwise).
5. Dotted keys (``-cc.mode=3``, ``--speculative-config.method ngram``, ``--x.list+ a,b``) are merged into one
   JSON object per root, which is appended at the end of the arguments (so it wins over an explicit JSON value
   given for the same root, as in vLLM).
6. argparse: options, values and the positional model; values typed with the catalog's ArgSpec.
7. ``--spec-method`` / ``--spec-model`` / ``--spec-tokens`` fill ``speculative_config``
   (``EngineArgs.create_speculative_config``).

Without a catalog the same steps run with heuristics: a flag followed by another flag (or nothing) is True,
``--no-x`` is ``x: False``, a value goes through ``json.loads`` and otherwise stays a string, several values
make a list, and vLLM's short aliases (``-tp``, ``-cc``, ...) are known.

Every parser returns the same document::

    {"model": {"name": str | None}, "args": {snake_case: value}, "env": {NAME: str},
     "unknown": [{"flag": "--tensor-paralel-size", "name": "tensor_paralel_size", "token": 3}],
     "notes": [{"where": "token 5 '--x'", "message": "..."}]}

``unknown`` lists flags the catalog does not know (only with a catalog); ``notes`` lists what vLLM ignores or
overrides silently (a repeated flag, ``key: false`` in a config file without a ``--no-key`` option, ...).

``unknown`` entries carry ``token`` (command line), ``line`` (YAML) or ``key`` (JSON) to say where they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from .catalog import Catalog
from .lazy import lazy_module
from .shell import preview, split_words
from .types import ArgSpec, ParseError, parse_version
from .unknowns import unknown_reference

yaml = lazy_module("yaml")  # loaded when YAML is first read: a command file needs none of it

__all__ = [
    "PLAIN_JSON_ARGS",
    "SHORT_ALIASES",
    "detect_format",
    "human_readable_int",
    "parse_any",
    "parse_command",
    "parse_config_yaml",
    "parse_json",
    "parse_mapping",
]

_ENV_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# argparse's _negative_number_matcher (Python 3.11/3.12): such tokens are values, never options.
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_MODEL_FLAG = re.compile(r"^--model(=.+|$)", re.S)
_CONFIG_FLAG = re.compile(r"^--config(=.+|$)", re.S)
_SERVED_MODEL_NAME = re.compile(r"^--served[-_]model[-_]name(=.+|$)", re.S)
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_JSON_HUMAN_INT = re.compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")
_JSON_STRING = re.compile(r'("(?:[^"\\]|\\.)*")')
_LOOKS_LIKE_JSON_CONTAINER = re.compile(r"^\s*[{\[]")
_LOOKS_LIKE_JSON_OBJECT = re.compile(r"(?s)^\s*{.*}\s*$")
_PYTHON = re.compile(r"^python[0-9.]*$")
_YAML_KEY_LINE = re.compile(r"""^(["']?)[A-Za-z0-9_.+\-]+\1\s*:(\s|$)""")
_ENV_COMMENT = re.compile(r"^\s*#\s*env:\s?(.*)$")
_ENV_JSON_COMMENT = re.compile(r"^\s*#\s*env-json:\s?(.*)$")

_API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
_CLI_MODULE = "vllm.entrypoints.cli.main"

# vLLM's short aliases (arg_utils.py, 0.20-0.34), used only when there is no catalog.
SHORT_ALIASES: dict[str, str] = {
    "-q": "quantization",
    "-n": "nnodes",
    "-r": "node_rank",
    "-tp": "tensor_parallel_size",
    "-pp": "pipeline_parallel_size",
    "-dp": "data_parallel_size",
    "-dcp": "decode_context_parallel_size",
    "-pcp": "prefill_context_parallel_size",
    "-dpn": "data_parallel_rank",
    "-dpr": "data_parallel_start_rank",
    "-dpl": "data_parallel_size_local",
    "-dpa": "data_parallel_address",
    "-dpp": "data_parallel_rpc_port",
    "-dpb": "data_parallel_backend",
    "-dph": "data_parallel_hybrid_lb",
    "-dpe": "data_parallel_external_lb",
    "-dpm": "data_parallel_multi_port_external_lb",
    "-ep": "enable_expert_parallel",
    "-sc": "speculative_config",
    "-dc": "diffusion_config",
    "-cc": "compilation_config",
    "-ac": "attention_config",
}
# Dataclass-typed JSON args go through _expand_json_human_readable_numbers; these are plain json.loads.
PLAIN_JSON_ARGS = frozenset({"speculative_config", "watermark_config", "diffusion_config"})
# arg_utils overrides their type with ``lambda s: s.lower().replace("-", "_")``.
_LOWERCASED_ARGS = frozenset({"moe_backend", "linear_backend", "sparse_indexer_topk_backend"})
# (dest, flag, speculative_config key): EngineArgs.create_speculative_config
_SPEC_SHORTHANDS = (
    ("spec_method", "--spec-method", "method"),
    ("spec_model", "--spec-model", "model"),
    ("spec_tokens", "--spec-tokens", "num_speculative_tokens"),
)
_MODEL_SPEC = ArgSpec(name="model", flags=("--model",), type="str")
_DEFAULT_O_ALIAS = "optimization_level"


# --------------------------------------------------------------------------------------------- helpers


def _at_least(catalog: Catalog | None, version: str) -> bool:
    """True when the catalog's release is ``version`` or later; no catalog means the current behaviour."""
    if catalog is None:
        return True
    mine = parse_version(catalog.version)
    return mine is None or mine >= Version(version)


def human_readable_int(value: str) -> int:
    """vLLM's ``human_readable_int``: ``1k`` = 1000, ``1K`` = 1024, ``25.6k`` = 25600, else ``int()``."""
    value = value.strip()
    match = _HUMAN_INT.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in "kmgt":
            return int(float(number) * 10 ** (3 * ("kmgt".index(suffix) + 1)))
        try:
            return int(number) * 2 ** (10 * ("KMGT".index(suffix) + 1))
        except ValueError:
            raise ValueError(
                f"Decimals are not allowed with binary suffixes like {suffix}. "
                f"Did you mean to use {number}{suffix.lower()} instead?"
            ) from None
    return int(value)


def _expand_json_human_readable_numbers(val: str) -> str:
    parts = _JSON_STRING.split(val)
    for i in range(0, len(parts), 2):
        parts[i] = _JSON_HUMAN_INT.sub(lambda m: str(human_readable_int(m.group())), parts[i])
    return "".join(parts)


def _heuristic_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _snake(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


# ------------------------------------------------------------------------------------------- the parser


@dataclass(slots=True)
class _Tok:
    """One argument string on its way through the parser, with where it came from (for messages)."""

    text: str
    given_where: str | None  # None: "token INDEX 'WORD'", written when a message first needs it
    index: int | None = None  # shell word index (command lines)
    line: int | None = None  # YAML line
    key: str | None = None  # JSON key
    position: int | None = None  # character offset
    word: str = ""  # the shell word it came from (command lines)

    @property
    def where(self) -> str:
        if self.given_where is None:
            self.given_where = f"token {self.index} '{preview(self.word)}'"
        return self.given_where

    def derive(self, text: str) -> _Tok:
        return _Tok(text, self.given_where, self.index, self.line, self.key, self.position, self.word)

    def error(self, detail: str) -> ParseError:
        return ParseError(detail, where=self.where, position=self.position)

    def locator(self) -> dict[str, Any]:
        if self.index is not None:
            return {"token": self.index}
        if self.line is not None:
            return {"line": self.line}
        if self.key is not None:
            return {"key": self.key}
        return {}


def _catalog_table(catalog: Catalog) -> tuple[dict[str, ArgSpec], bool]:
    """The catalog's option strings (``--model`` included) and whether it records ``json_or_str`` per
    argument (every other JSON argument must then be valid JSON): computed once per catalog and kept on it
    (a frozen dataclass: the trick ``cached_property`` uses), read only by the parser."""
    found = catalog.__dict__.get("_parser_table")
    if found is None:
        table = dict(catalog.by_flag)
        table.setdefault("--model", _MODEL_SPEC)
        found = catalog.__dict__["_parser_table"] = (table, any(a.json_or_str for a in catalog.arguments))
    return found


class _Parser:
    def __init__(self, catalog: Catalog | None):
        self.catalog = catalog
        self.args: dict[str, Any] = {}
        self.env: dict[str, str] = {}
        self.unknown: list[dict[str, Any]] = []
        self.notes: list[dict[str, str]] = []
        self.model_tag: str | None = None  # positional (or moved --model)
        self.model_tag_tok: _Tok | None = None
        self.model_option: str | None = None  # --model seen by argparse itself
        self.set_at: dict[str, _Tok] = {}
        self.last_flag_without_value: str | None = None
        self.table: dict[str, ArgSpec] = {}
        self.behaviour: dict[str, Any] = catalog.parser if catalog is not None else {}
        if catalog is not None:
            self.table, self.strict_json = _catalog_table(catalog)
        else:
            self.strict_json = False

    # ---- results

    def note(self, where: str, message: str) -> None:
        self.notes.append({"where": where, "message": message})

    def set(self, name: str, value: Any, tok: _Tok) -> None:
        if name in self.args and name in self.set_at:
            first = self.set_at[name]
            self.note(
                tok.where,
                f"{name} is given more than once ({first.where} and {tok.where}); the last value wins "
                f"(as in vLLM), so {first.where} has no effect",
            )
        self.args[name] = value
        self.set_at[name] = tok

    def document(self) -> dict[str, Any]:
        self.fold_speculative_shorthands()
        model = self.model_tag if self.model_tag is not None else self.model_option
        return {
            "model": {"name": model},
            "args": self.args,
            "env": self.env,
            "unknown": self.unknown,
            "notes": self.notes,
        }

    def fold_speculative_shorthands(self) -> None:
        for name, flag, key in _SPEC_SHORTHANDS:
            if name not in self.args:
                continue
            if self.catalog is not None and name not in self.catalog.by_name:
                continue  # a release without the shorthands: it stays an unknown argument
            tok = self.set_at.get(name)
            value = self.args[name]
            if value is None:
                del self.args[name]
                continue
            config = self.args.get("speculative_config")
            if config is None:
                config = {}
            elif not isinstance(config, dict):
                raise ParseError(
                    f"{flag} needs --speculative-config to be a JSON object, not {config!r}",
                    where=tok.where if tok else None,
                )
            else:
                config = dict(config)
            if key in config:
                # Given both ways: vLLM refuses it while building the speculative config, after the checks
                # that come before it (the rule spec-shorthand-conflict), so the shorthand stays as given.
                continue
            del self.args[name]
            config[key] = value
            self.args["speculative_config"] = config

    # ---- vLLM's pre-processing (FlexibleArgumentParser.parse_args)

    def move_model(self, toks: list[_Tok]) -> list[_Tok]:
        for i, tok in enumerate(toks):
            if _MODEL_FLAG.match(tok.text):
                if tok.text == "--model":
                    if i + 1 >= len(toks):
                        raise tok.error("argument --model: expected one argument")
                    self.model_tag, self.model_tag_tok = toks[i + 1].text, toks[i + 1]
                    return toks[:i] + toks[i + 2 :]
                self.model_tag, self.model_tag_tok = tok.text.removeprefix("--model="), tok
                return toks[:i] + toks[i + 1 :]
        return toks

    def check_served_model_name(self, toks: list[_Tok]) -> None:
        if (
            self.model_tag is None
            and toks
            and toks[0].text.startswith("-")
            and not any(_CONFIG_FLAG.match(t.text) for t in toks)
            and any(_SERVED_MODEL_NAME.match(t.text) for t in toks)
        ):
            raise toks[0].error(
                "`model` should be provided as the first positional argument when using `vllm serve`. "
                "i.e. `vllm serve <model> --<arg> <value>`."
            )

    def pull_config(self, toks: list[_Tok]) -> list[_Tok]:
        configs = [i for i, t in enumerate(toks) if t.text == "--config"]
        if not configs:
            return toks
        if len(configs) > 1:
            raise toks[configs[1]].error("More than one config file specified!")
        index = configs[0]
        if index == len(toks) - 1:
            raise toks[index].error("No config file specified! Please check your command-line arguments.")
        path_tok = toks[index + 1]
        extension = path_tok.text.split(".")[-1]
        if extension not in ("yaml", "yml"):
            raise path_tok.error(f"Config file must be of a yaml/yml type. {extension} supplied")
        self.set("config", path_tok.text, path_tok)
        self.note(
            toks[index].where,
            f"the arguments in the config file {path_tok.text!r} are not part of this profile "
            "(the file is not read)",
        )
        return toks[:index] + toks[index + 2 :]

    def o_flag(self) -> str | None:
        target = _DEFAULT_O_ALIAS
        if self.catalog is not None and "O_alias" in self.catalog.parser:
            target = self.catalog.parser["O_alias"]
        if not target:
            return None
        if self.catalog is not None and target in self.catalog.by_name:
            return self.catalog.by_name[target].long_flag
        return "--" + target.replace("_", "-")

    def normalize(self, toks: list[_Tok]) -> list[_Tok]:
        o_flag = self.o_flag()
        separate = set(self.behaviour.get("O_separate_values") or ("0", "1", "2", "3"))
        out: list[_Tok] = []
        for i, tok in enumerate(toks):
            arg = tok.text
            if arg.startswith("--"):
                key, eq, value = arg.partition("=")
                name, dot, rest = key[2:].partition(".")
                if "_" in name:
                    tok = tok.derive("--" + name.replace("_", "-") + dot + rest + eq + value)
                out.append(tok)
            elif o_flag and arg.startswith("-O") and arg != "-O":
                level = arg[3:] if arg[2] == "=" else arg[2:]
                out += [tok.derive(o_flag), tok.derive(level)]
            elif o_flag and arg == "-O" and i + 1 < len(toks) and toks[i + 1].text in separate:
                out.append(tok.derive(o_flag))
            else:
                out.append(tok)
        return out

    def merge_dotted(self, toks: list[_Tok]) -> list[_Tok]:
        delete: set[int] = set()
        roots: dict[str, dict[str, Any]] = {}
        root_toks: dict[str, _Tok] = {}
        for i, tok in enumerate(toks):
            if i in delete:
                continue
            arg = tok.text
            if arg.startswith("--") and "." not in arg:
                continue
            if not (arg.startswith("-") and "." in arg):
                continue
            if "=" in arg:
                arg, value_str = arg.split("=", 1)
                if "." not in arg:
                    continue  # the '.' was only in the value
            else:
                if _NEGATIVE_NUMBER.match(arg):
                    raise tok.error(
                        f"vLLM reads {arg!r} as a dotted '--key.subkey' argument, not as a negative number; "
                        f"write the value with '=' (e.g. --flag={arg})"
                    )
                if i + 1 >= len(toks):
                    raise tok.error(f"argument {arg}: expected one argument")
                value_str = toks[i + 1].text
                delete.add(i + 1)
            if arg.endswith("+"):
                arg = arg[:-1]
                value_str = json.dumps(list(value_str.split(",")))
            root, *keys = arg.split(".")
            try:
                value: Any = json.loads(value_str)
            except ValueError:
                try:
                    value = human_readable_int(value_str)
                except ValueError:
                    value = value_str
            nested: Any = value
            for key in reversed(keys):
                nested = {key: nested}
            target = roots.setdefault(root, {})
            root_toks.setdefault(root, tok)
            for dup in _recursive_dict_update(target, nested):
                self.note(tok.where, f"duplicate key {root}.{dup}: the last value wins (as in vLLM)")
            delete.add(i)
        out = [t for i, t in enumerate(toks) if i not in delete]
        for root, merged in roots.items():
            out += [root_toks[root].derive(root), root_toks[root].derive(json.dumps(merged))]
        return out

    # ---- argparse

    def classify(self, tok: _Tok) -> tuple[ArgSpec | None, str, str | None] | None:
        """argparse's ``_parse_optional``: None for a value, else (spec | None if unknown, flag, explicit)."""
        text = tok.text
        if not text or text[0] != "-":
            return None
        if text in self.table:
            return self.table[text], text, None
        if len(text) == 1:
            return None
        if "=" in text:
            option, explicit = text.split("=", 1)
            if option in self.table:
                return self.table[option], option, explicit
        matches = self.prefix_matches(text)
        if len(matches) > 1:
            options = ", ".join(flag for _, flag, _ in matches)
            raise tok.error(f"ambiguous option: {text.split('=', 1)[0]} could match {options}")
        if matches:
            return matches[0]
        if _NEGATIVE_NUMBER.match(text):
            return None
        if " " in text:
            return None
        if "=" in text:
            option, explicit = text.split("=", 1)
            return None, option, explicit
        return None, text, None

    def prefix_matches(self, text: str) -> list[tuple[ArgSpec, str, str | None]]:
        if not self.table or self.behaviour.get("allow_abbrev") is False:
            return []
        result = []
        if text.startswith("--"):
            prefix, eq, explicit = text.partition("=")
            for flag, spec in self.table.items():
                if flag.startswith(prefix):
                    result.append((spec, flag, explicit if eq else None))
        elif text[1] != "-":
            short, short_explicit = text[:2], text[2:]
            for flag, spec in self.table.items():
                if flag == short:
                    result.append((spec, flag, short_explicit))
                elif flag.startswith(text):
                    result.append((spec, flag, None))
        return result

    def is_value(self, tok: _Tok) -> bool:
        return tok.text != "--" and self.classify(tok) is None

    def consume(self, toks: list[_Tok], *, positional_model: bool) -> None:
        i = 0
        only_values = False
        while i < len(toks):
            tok = toks[i]
            if not only_values and tok.text == "--":
                only_values = True
                i += 1
                continue
            found = None if only_values else self.classify(tok)
            if found is None:
                self.positional(tok, positional_model)
                i += 1
                continue
            spec, flag, explicit = found
            if spec is None:
                i = self.unknown_option(toks, i, flag, explicit)
            else:
                i = self.option(toks, i, spec, flag, explicit)

    def positional(self, tok: _Tok, positional_model: bool) -> None:
        if positional_model and self.model_tag is None:
            self.model_tag, self.model_tag_tok = tok.text, tok
            return
        detail = f"unrecognized argument {tok.text!r}"
        if positional_model:
            detail += f": the model is already given as {self.model_tag!r}"
        if self.last_flag_without_value:
            detail += f" ({self.last_flag_without_value} takes no value)"
        raise tok.error(detail)

    def values_after(self, toks: list[_Tok], i: int) -> list[_Tok]:
        values = []
        j = i + 1
        while j < len(toks) and self.is_value(toks[j]):
            values.append(toks[j])
            j += 1
        return values

    def option(self, toks: list[_Tok], i: int, spec: ArgSpec, flag: str, explicit: str | None) -> int:
        tok = toks[i]
        flags = "/".join(spec.flags) or flag
        self.last_flag_without_value = None
        if spec.optional_value:
            if explicit is not None:
                self.set(spec.name, self.convert(spec, explicit, tok), tok)
                return i + 1
            following = self.values_after(toks, i)
            if following:
                self.set(spec.name, self.convert(spec, following[0].text, tok, following[0]), tok)
                return i + 2
            self.set(spec.name, spec.const if spec.const is not None else True, tok)
            return i + 1
        if spec.type == "bool":
            if explicit is not None:
                raise tok.error(
                    f"argument {flags}: ignored explicit argument {explicit!r} (the flag takes no value)"
                )
            self.last_flag_without_value = flag
            self.set(spec.name, flag not in spec.negative_flags, tok)
            return i + 1
        if spec.type == "list":
            return self.list_option(toks, i, spec, flags, explicit)
        if explicit is not None:
            value, used = self.convert(spec, explicit, tok), 1
        else:
            following = self.values_after(toks, i)
            if not following:
                raise tok.error(f"argument {flags}: expected one argument")
            value, used = self.convert(spec, following[0].text, tok, following[0]), 2
        if spec.name == "model":
            self.model_option = value
        else:
            self.set(spec.name, value, tok)
        return i + used

    def list_option(self, toks: list[_Tok], i: int, spec: ArgSpec, flags: str, explicit: str | None) -> int:
        tok = toks[i]
        following = [] if explicit is not None else self.values_after(toks, i)
        if spec.repeatable and spec.nargs in (None, 1):
            # action="append": one value per occurrence, accumulated over occurrences.
            if explicit is None and not following:
                raise tok.error(f"argument {flags}: expected one argument")
            raw = [tok.derive(explicit)] if explicit is not None else following[:1]
            earlier = self.args.get(spec.name) if isinstance(self.args.get(spec.name), list) else []
            self.args[spec.name] = earlier + [self.convert(spec, t.text, tok, t, item=True) for t in raw]
            self.set_at[spec.name] = tok
            return i + 1 + (0 if explicit is not None else 1)
        if isinstance(spec.nargs, int):
            if explicit is not None or len(following) < spec.nargs:
                raise tok.error(f"argument {flags}: expected {spec.nargs} arguments")
            raw = following[: spec.nargs]
        elif explicit is not None:
            raw = [tok.derive(explicit)]
        else:
            raw = following
            if not raw:
                raise tok.error(f"argument {flags}: expected at least one argument")
        values = [self.convert(spec, t.text, tok, t, item=True) for t in raw]
        self.set(spec.name, values, tok)
        return i + 1 + (0 if explicit is not None else len(raw))

    def unknown_option(self, toks: list[_Tok], i: int, flag: str, explicit: str | None) -> int:
        tok = toks[i]
        self.last_flag_without_value = None
        name = _snake(flag)
        if self.catalog is None and flag in SHORT_ALIASES:
            name = SHORT_ALIASES[flag]
        if explicit is not None:
            raws, used = [explicit], 1
        else:
            following = self.values_after(toks, i)
            raws, used = [t.text for t in following], 1 + len(following)
        if self.catalog is not None:
            self.unknown.append({"flag": flag, "name": name, **tok.locator()})
        if not raws:
            if self.catalog is None and flag.startswith("--no-") and len(flag) > 5:
                self.set(_snake(flag[5:]), False, tok)
            else:
                self.set(name, True, tok)
            return i + used
        values = [_heuristic_value(r) for r in raws]
        if name == "model" and self.catalog is None and len(values) == 1:
            self.model_option = raws[0]
            return i + used
        self.set(name, values[0] if len(values) == 1 else values, tok)
        return i + used

    # ---- types (arg_utils._compute_kwargs)

    def convert(
        self, spec: ArgSpec, raw: str, tok: _Tok, value_tok: _Tok | None = None, *, item: bool = False
    ) -> Any:
        """Type ``raw`` as argparse would; errors name the flag's token ``tok``, at the value's position.

        ``--tensor-parallel-size $TP``: a value the text leaves open, which the type refuses, is kept as
        written; ``lint.validate`` reports the checks that need it as "could not verify"."""
        try:
            return self.convert_known(spec, raw, tok, value_tok, item=item)
        except ParseError:
            if unknown_reference(raw):
                return raw
            raise

    def convert_known(
        self, spec: ArgSpec, raw: str, tok: _Tok, value_tok: _Tok | None = None, *, item: bool = False
    ) -> Any:
        flags = "/".join(spec.flags)
        if spec.optional_value:
            return self.plain_str(spec, raw)
        kind = (spec.item_type or "str") if item or spec.type == "list" else spec.type
        if spec.nullable and raw in ("", "None"):
            return None
        try:
            if kind == "int":
                if spec.name == "max_model_len" and (raw.strip() == "-1" or raw.strip().lower() == "auto"):
                    return -1
                if spec.human_readable_int or spec.name == "max_model_len":
                    return human_readable_int(raw)
                return int(raw)
            if kind == "float":
                return float(raw)
            if kind == "json":
                return self.json_value(spec, raw, tok, value_tok)
            if kind == "bool":
                return bool(raw)  # argparse's type=bool, as vLLM has it for list[bool]
        except ParseError:
            raise
        except ValueError as exc:
            detail = str(exc) if "binary suffixes" in str(exc) else f"invalid {kind} value: {raw!r}"
            raise ParseError(
                f"argument {flags}: {detail}", where=tok.where, position=(value_tok or tok).position
            ) from None
        return self.plain_str(spec, raw)

    def plain_str(self, spec: ArgSpec, raw: str) -> str:
        if spec.name in _LOWERCASED_ARGS:
            return raw.lower().replace("-", "_")
        if spec.name == "reasoning_parser" and _at_least(self.catalog, "0.33.0") and raw.lower() == "none":
            return ""
        return raw

    def json_value(self, spec: ArgSpec, raw: str, tok: _Tok, value_tok: _Tok | None = None) -> Any:
        if spec.json_or_str and not _LOOKS_LIKE_JSON_OBJECT.match(raw):
            return raw  # union_dict_and_str: a plain string unless the value looks like {...}
        text = raw
        if spec.config_class and spec.name not in PLAIN_JSON_ARGS:
            text = _expand_json_human_readable_numbers(raw)
        try:
            return json.loads(text)
        except ValueError as exc:
            if self.strict_json or _LOOKS_LIKE_JSON_CONTAINER.match(raw):
                raise ParseError(
                    f"argument {'/'.join(spec.flags)}: invalid JSON: {exc} in {preview(raw)!r}",
                    where=tok.where,
                    position=(value_tok or tok).position,
                ) from None
            return raw  # a catalog that does not say json_or_str: keep a plain string


def _recursive_dict_update(original: dict[str, Any], update: dict[str, Any]) -> set[str]:
    duplicates: set[str] = set()
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            duplicates |= {f"{k}.{d}" for d in _recursive_dict_update(original[k], v)}
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            if k in original:
                duplicates.add(k)
            original[k] = v
    return duplicates


# ------------------------------------------------------------------------------------------ command line


def _command_mode(toks: list[_Tok], i: int) -> tuple[str, int]:
    """Skip the ``vllm serve`` / ``python -m ...`` prefix: returns (mode, index of the first argument)."""
    if i >= len(toks):
        return "bare", i
    word = toks[i].text
    base = word.rsplit("/", 1)[-1]
    if base == "vllm":
        if i + 1 < len(toks) and toks[i + 1].text == "serve":
            return "serve", i + 2
        sub = toks[i + 1].text if i + 1 < len(toks) else ""
        raise toks[i].error(f"only `vllm serve` command lines are profiles, not `vllm {sub}`")
    if _PYTHON.match(base) and i + 2 < len(toks) and toks[i + 1].text == "-m":
        module = toks[i + 2].text
        if module == _API_SERVER_MODULE:
            return "api_server", i + 3
        if module == _CLI_MODULE and i + 3 < len(toks) and toks[i + 3].text == "serve":
            return "serve", i + 4
        raise toks[i + 2].error(f"not a vLLM server module: {module!r}")
    return "bare", i


def _not_a_command(toks: list[_Tok], i: int) -> ParseError:
    """Words without ``vllm serve`` (or a vLLM launcher) and without any ``--option``: a lone word such as
    ``hello`` or ``42`` would otherwise become a profile whose model is that word. (``m -tp 2``, a model and
    its arguments, is still read as vLLM's arguments.)"""
    launchers = (
        "`vllm serve <model> ...` or `python -m vllm.entrypoints.openai.api_server --model <model> ...`"
    )
    if i >= len(toks):
        return toks[-1].error(
            f"no command after the environment assignments: a profile's command is {launchers}"
        )
    word = toks[i].text
    return toks[i].error(
        f"not a vLLM command line: {preview(word)!r} is not `vllm serve` or a vLLM launcher, and the text "
        f"is not a YAML or JSON config mapping; a profile's command is {launchers} "
        f"(if {preview(word)!r} is the model: `vllm serve {preview(word)}`)"
    )


def parse_command(text: str, *, catalog: Catalog | None = None) -> dict[str, Any]:
    """Parse a ``vllm serve ...`` command line (env assignments, continuations and quoting included)."""
    toks = [
        _Tok(word, None, index=k, position=offset, word=word)
        for k, (word, offset) in enumerate(split_words(text))
    ]
    if not toks:
        raise ParseError("empty command line")
    parser = _Parser(catalog)
    i = 0
    while i < len(toks):
        word = toks[i].text
        if word in ("env", "export"):
            i += 1
            continue
        match = _ENV_ASSIGNMENT.fullmatch(word)
        if not match:
            break
        parser.env[match.group(1)] = match.group(2)
        i += 1
    mode, i = _command_mode(toks, i)
    if mode == "bare" and not any(t.text.startswith("-") for t in toks[i:]):
        raise _not_a_command(toks, i)
    rest = toks[i:]
    if mode == "serve":
        rest = parser.move_model(rest)
        parser.check_served_model_name(rest)
    rest = parser.pull_config(rest)
    rest = parser.normalize(rest)
    rest = parser.merge_dotted(rest)
    parser.consume(rest, positional_model=mode != "api_server")
    return parser.document()


# ------------------------------------------------------------------------------------- YAML and JSON


def _env_from_comments(text: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """``# env: NAME=value`` (shell-quoted) and ``# env-json: {...}`` lines of the leading comment block."""
    env: dict[str, str] = {}
    notes: list[dict[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        where = f"line {number}"
        match = _ENV_JSON_COMMENT.match(line)
        if match:
            try:
                data = json.loads(match.group(1))
            except ValueError as exc:
                raise ParseError(f"invalid JSON in an env-json comment: {exc}", where=where) from None
            if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
                raise ParseError("an env-json comment must hold a JSON object of strings", where=where)
            env.update(data)
            continue
        match = _ENV_COMMENT.match(line)
        if not match:
            continue
        try:
            words = [w for w, _ in split_words(match.group(1))]
        except ParseError as exc:
            raise ParseError(f"env comment: {exc.detail}", where=where) from None
        assignments = [_ENV_ASSIGNMENT.fullmatch(w) for w in words]
        if not words or not all(assignments):
            notes.append({"where": where, "message": "an '# env:' comment without NAME=value was ignored"})
            continue
        for m in assignments:
            env[m.group(1)] = m.group(2)
    return env, notes


def _yaml_key_lines(text: str) -> dict[str, int]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines[key_node.value] = key_node.start_mark.line + 1
    return lines


def _yaml_error(exc: yaml.YAMLError) -> ParseError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f"line {mark.line + 1}" if mark is not None else None
    return ParseError(
        f"invalid YAML: {problem}", where=where, position=mark.index if mark is not None else None
    )


def config_false_to_no_flag(catalog: Catalog | None) -> bool:
    """Whether ``key: false`` in a config file becomes ``--no-key`` (vLLM >= 0.28.0) or is always dropped."""
    if catalog is not None and "config_false_to_no_flag" in catalog.parser:
        return bool(catalog.parser["config_false_to_no_flag"])
    return _at_least(catalog, "0.28.0")


def _config_tokens(parser: _Parser, mapping: dict[Any, Any], locate) -> list[_Tok]:
    """``load_config_file``: the mapping as the argument strings vLLM inserts after ``serve <model>``."""
    negation = config_false_to_no_flag(parser.catalog)
    toks: list[_Tok] = []
    for key, value in mapping.items():
        where_tok = locate(key)
        if not isinstance(key, str):
            raise where_tok.error(f"config key {key!r} is not a string")
        flag = "--" + key
        if isinstance(value, bool):
            if value:
                toks.append(where_tok.derive(flag))
            elif negation and ("--no-" + key) in parser.table:
                toks.append(where_tok.derive("--no-" + key))
            else:
                parser.note(
                    where_tok.where,
                    f"{key}: false is ignored by vLLM (there is no --no-{key} option in this release)",
                )
        elif isinstance(value, list):
            if value:
                toks.append(where_tok.derive(flag))
                toks += [where_tok.derive(str(item)) for item in value]
            else:
                parser.note(where_tok.where, f"{key}: an empty list is ignored by vLLM")
        elif isinstance(value, dict):
            try:
                encoded = json.dumps(value)
            except (TypeError, ValueError) as exc:
                raise where_tok.error(f"{key}: the mapping cannot be passed to vLLM as JSON: {exc}") from None
            toks += [where_tok.derive(flag), where_tok.derive(encoded)]
        else:
            toks += [where_tok.derive(flag), where_tok.derive(str(value))]
    return toks


def _native_mapping(parser: _Parser, mapping: dict[Any, Any], locate) -> None:
    """Without a catalog: keep YAML's own types, following load_config_file's rules for bools and lists."""
    dotted: dict[str, dict[str, Any]] = {}
    dotted_tok: dict[str, _Tok] = {}
    for key, value in mapping.items():
        tok = locate(key)
        if not isinstance(key, str):
            raise tok.error(f"config key {key!r} is not a string")
        head, dot, rest = key.partition(".")
        name = _snake(head)
        if dot:
            append = rest.endswith("+")
            keys = (rest[:-1] if append else rest).split(".")
            if append:
                value = str(value).split(",")
            elif isinstance(value, str):
                value = _heuristic_value(value)
            nested: Any = value
            for k in reversed(keys):
                nested = {k: nested}
            dotted_tok.setdefault(name, tok)
            for dup in _recursive_dict_update(dotted.setdefault(name, {}), nested):
                parser.note(tok.where, f"duplicate key {head}.{dup}: the last value wins (as in vLLM)")
            continue
        if name == "model":
            parser.model_option = None if value is None else str(value)
        elif isinstance(value, bool):
            if value:
                parser.set(name, True, tok)
            elif "_" in head:
                parser.note(tok.where, f"{key}: false is ignored by vLLM (there is no --no-{key} option)")
            else:
                parser.set(name, False, tok)
        elif isinstance(value, list):
            if value:
                parser.set(name, list(value), tok)
            else:
                parser.note(tok.where, f"{key}: an empty list is ignored by vLLM")
        elif value is None or isinstance(value, int | float | str | dict):
            parser.set(name, value, tok)
        else:
            parser.set(name, str(value), tok)
    for name, merged in dotted.items():
        parser.set(name, merged, dotted_tok[name])


def _parse_mapping(
    mapping: dict[Any, Any], locate, *, catalog: Catalog | None, env: dict[str, str]
) -> dict[str, Any]:
    parser = _Parser(catalog)
    parser.env.update(env)
    if catalog is None:
        _native_mapping(parser, mapping, locate)
        return parser.document()
    toks = _config_tokens(parser, mapping, locate)
    toks = parser.normalize(toks)
    toks = parser.merge_dotted(toks)
    parser.consume(toks, positional_model=False)
    return parser.document()


# Hostile YAML: aliases can expand a small file enormously ("billion laughs") and nesting can exhaust the
# stack; past these bounds a config is refused with a ParseError instead of being loaded.
MAX_YAML_NODES = 100_000
MAX_YAML_DEPTH = 64


def safe_load_bounded(text: str) -> Any:
    """``yaml.safe_load`` that refuses more than MAX_YAML_NODES nodes once aliases are expanded, or
    nesting deeper than MAX_YAML_DEPTH, with a ParseError naming the line."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    except RecursionError:
        raise ParseError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels") from None
    except yaml.YAMLError as exc:
        raise _yaml_error(exc) from None
    finally:
        loader.dispose()
    if node is None:
        return None
    budget = MAX_YAML_NODES
    stack = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        where = f"line {item.start_mark.line + 1}"
        if budget < 0:
            raise ParseError(
                f"more than {MAX_YAML_NODES} YAML nodes once aliases are expanded (an alias bomb?)",
                where=where,
            )
        if depth > MAX_YAML_DEPTH:
            raise ParseError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels", where=where)
        if isinstance(item, yaml.MappingNode):
            stack.extend((sub, depth + 1) for pair in item.value for sub in pair)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend((sub, depth + 1) for sub in item.value)
    return yaml.SafeLoader("").construct_document(node)


def parse_config_yaml(text: str, *, catalog: Catalog | None = None) -> dict[str, Any]:
    """Parse a vLLM ``--config`` YAML file (``model:`` key included; env from leading ``# env:`` comments)."""
    env, env_notes = _env_from_comments(text)
    data = safe_load_bounded(text)
    if data is None:
        if env:
            data = {}
        else:
            raise ParseError("the config file is empty (vLLM expects a mapping of argument names to values)")
    if not isinstance(data, dict):
        raise ParseError(
            f"a vLLM config file must be a mapping of argument names to values, not a {type(data).__name__}",
            where="line 1",
        )
    lines = _yaml_key_lines(text)

    def locate(key: Any) -> _Tok:
        line = lines.get(str(key)) if not isinstance(key, bool) else None
        where = f"line {line}" if line else f"key {key!r}"
        return _Tok(str(key), where, line=line, key=None if line else str(key))

    doc = _parse_mapping(data, locate, catalog=catalog, env=env)
    doc["notes"] = env_notes + doc["notes"]
    return doc


_STRUCTURED_KEYS = ("args", "engine_args", "env")


def parse_json(text: str, *, catalog: Catalog | None = None) -> dict[str, Any]:
    """Parse JSON: the flat mapping a YAML config holds, or ``{"model", "args"|"engine_args", "env"}``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise ParseError(
            f"invalid JSON: {exc}", where=f"line {line}" if line else None, position=getattr(exc, "pos", None)
        ) from None
    return parse_mapping(data, catalog=catalog)


def parse_mapping(data: Any, *, catalog: Catalog | None = None) -> dict[str, Any]:
    """Parse an already-decoded JSON value (what the API receives), flat or structured."""
    if not isinstance(data, dict):
        raise ParseError(f"expected a JSON object, not {type(data).__name__}")
    if any(k in data for k in _STRUCTURED_KEYS) or isinstance(data.get("model"), dict):
        return _parse_structured(data, catalog=catalog)

    def locate(key: Any) -> _Tok:
        return _Tok(str(key), f"key {str(key)!r}", key=str(key))

    return _parse_mapping(data, locate, catalog=catalog, env={})


def _parse_structured(data: dict[str, Any], *, catalog: Catalog | None) -> dict[str, Any]:
    parser = _Parser(catalog)
    model = data.get("model")
    model_doc: dict[str, Any]
    if isinstance(model, dict):
        model_doc = dict(model)
        model_doc.setdefault("name", None)
    elif model is None or isinstance(model, str):
        model_doc = {"name": model}
    else:
        raise ParseError(f"model must be a name or an object, not {model!r}", where="key 'model'")
    if "args" in data and "engine_args" in data:
        raise ParseError("give either args or engine_args, not both", where="key 'engine_args'")
    args = data.get("args", data.get("engine_args")) or {}
    if not isinstance(args, dict):
        raise ParseError("args must be an object of argument names to values", where="key 'args'")
    env = data.get("env") or {}
    if not isinstance(env, dict):
        raise ParseError("env must be an object of NAME: value", where="key 'env'")
    for name, value in env.items():
        if not isinstance(name, str) or not _ENV_ASSIGNMENT.fullmatch(f"{name}=") or name == "":
            raise ParseError(f"not an environment variable name: {name!r}", where=f"env {name!r}")
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ParseError(f"environment values are strings, not {value!r}", where=f"env {name!r}")
        parser.env[name] = str(value)
    for key, value in args.items():
        tok = _Tok(str(key), f"args {str(key)!r}", key=str(key))
        name = _snake(str(key))
        if name == "model":
            if model_doc.get("name") is None:
                model_doc["name"] = value
            continue
        spec = catalog.by_name.get(name) if catalog is not None else None
        if catalog is not None and spec is None:
            spec = catalog.by_flag.get("--" + name.replace("_", "-"))
            if spec is None:
                parser.unknown.append({"flag": "--" + name.replace("_", "-"), "name": name, "key": str(key)})
            else:
                name = spec.name
        if spec is not None and isinstance(value, str) and spec.type in ("int", "float"):
            value = parser.convert(spec, value, tok)
        parser.set(name, value, tok)
    doc = parser.document()
    model_doc["name"] = doc["model"]["name"] if model_doc.get("name") is None else model_doc["name"]
    doc["model"] = model_doc
    return doc


# ------------------------------------------------------------------------------------------ detection


def detect_format(text: str) -> str:
    """``command``, ``yaml`` or ``json``: what ``parse_any`` will read ``text`` as."""
    stripped = text.strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            json.loads(stripped)
            return "json"
        except ValueError:
            return "yaml" if stripped.startswith("{") and "\n" in stripped else "json"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and (_ENV_COMMENT.match(lines[0]) or _ENV_JSON_COMMENT.match(lines[0])):
        return "yaml"
    content = [line for line in lines if not line.startswith("#")]
    if content and (content[0] == "---" or content[0] == "-" or content[0].startswith("- ")):
        return "yaml"  # a document marker or a YAML list (which parse_config_yaml refuses, saying why)
    if content and _YAML_KEY_LINE.match(content[0]):
        return "yaml"
    return "command"


def parse_any(text: str, *, catalog: Catalog | None = None) -> dict[str, Any]:
    """Parse a command line, a YAML config or JSON, whichever ``text`` is."""
    if not text.strip():
        raise ParseError("empty input: expected a `vllm serve` command line, a YAML config or JSON")
    kind = detect_format(text)
    if kind == "json":
        return parse_json(text, catalog=catalog)
    if kind == "yaml":
        return parse_config_yaml(text, catalog=catalog)
    return parse_command(text, catalog=catalog)
