"""Render a profile document back to what ``vllm serve`` reads: a command line or a ``--config`` YAML file.

``parse_command(render_command(d)) == d`` and ``parse_config_yaml(render_yaml(d)) == d`` for the document's
``model``, ``args`` and ``env``, with the same catalog (or without one). A value that vLLM cannot be given in
that form raises ``RenderError`` instead of being changed silently; the one exception is ``False`` for a
plain ``store_true`` flag (it has no ``--no-`` form and False is its default), which is left out.

A vLLM config file cannot hold environment variables, so ``render_yaml`` writes them as a leading comment
block that ``parse_config_yaml`` reads back (vLLM itself ignores comments)::

    # env: VLLM_USE_V2_MODEL_RUNNER=1            (shell-quoted when needed)
    # env-json: {"NAME": "a value with\\na newline"}   (values a comment line cannot hold)
    model: meta-llama/Llama-3.1-8B-Instruct
    return-sampling-mask: true
"""

from __future__ import annotations

import json
import math
import re
import shlex
from typing import Any

import yaml

from .catalog import Catalog
from .parse import _LOOKS_LIKE_JSON_OBJECT, _heuristic_value, _Parser, _Tok, config_false_to_no_flag
from .types import ArgSpec, EngineError

__all__ = ["RenderError", "render_command", "render_json", "render_yaml"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")
_SAFE_NEGATIVE = re.compile(r"-\d+")
_SPECIAL_NAMES = frozenset({"model", "help"})


class RenderError(EngineError):
    """The document holds a value that vLLM cannot be given in the requested form."""


def _parts(doc: dict[str, Any]) -> tuple[str | None, dict[str, Any], dict[str, str]]:
    model = doc.get("model")
    name = model.get("name") if isinstance(model, dict) else model
    if name is not None and (not isinstance(name, str) or name == ""):
        raise RenderError(f"model name must be a non-empty string, not {name!r}")
    args = doc.get("args") or {}
    env = doc.get("env") or {}
    for key, value in env.items():
        if not isinstance(key, str) or not _ENV_NAME.fullmatch(key):
            raise RenderError(f"not an environment variable name: {key!r}")
        if not isinstance(value, str):
            raise RenderError(f"environment variable {key} must be a string, not {value!r}")
    for key in args:
        if not isinstance(key, str) or not _ARG_NAME.fullmatch(key):
            raise RenderError(f"not an argument name (snake_case expected): {key!r}")
        if key in _SPECIAL_NAMES:
            raise RenderError(f"{key!r} cannot be an argument (the model goes in model.name)")
    return name, args, env


def _is_safe_token(text: str) -> bool:
    """True when vLLM (and argparse) take ``text`` as a value when it stands alone."""
    return not text.startswith("-") or bool(_SAFE_NEGATIVE.fullmatch(text))


def _positive_flag(spec: ArgSpec) -> str:
    flags = [f for f in spec.flags if f not in spec.negative_flags]
    return next((f for f in flags if f.startswith("--")), flags[0] if flags else spec.long_flag)


def _negative_flag(spec: ArgSpec) -> str | None:
    """The flag vLLM's help shows for False: ``--disable-x`` of 0.33+ enable/disable pairs, or ``--no-x``."""
    visible = [f for f in spec.negative_flags if f not in spec.hidden_aliases]
    negatives = visible or list(spec.negative_flags)
    preferred = [f for f in negatives if f.startswith("--")]
    return (preferred or negatives or [None])[0]


def _heuristic_text(value: Any) -> str:
    """A value as one token that ``json.loads``-then-string typing reads back as ``value``."""
    if isinstance(value, str):
        if value == "" or _heuristic_value(value) is value:
            return value
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and math.isnan(value):
        raise RenderError("NaN cannot be compared after a round trip")
    return json.dumps(value, ensure_ascii=False)


class _Renderer:
    def __init__(self, catalog: Catalog | None):
        self.catalog = catalog
        self.parser = _Parser(catalog)

    def spec(self, name: str) -> ArgSpec | None:
        return self.catalog.by_name.get(name) if self.catalog is not None else None

    def unknown_flag(self, name: str) -> str:
        flag = "--" + name.replace("_", "-")
        if self.catalog is not None:
            found = self.parser.classify(_Tok(flag, flag))
            if found is None or found[0] is not None:
                raise RenderError(f"{name}: {flag} would be read as another argument of this release")
        return flag

    # ---- command line

    def option(self, flag: str, text: str) -> list[str]:
        return [flag, text] if _is_safe_token(text) else [f"{flag}={text}"]

    def cli(self, name: str, value: Any) -> list[str] | None:
        if name == "config":
            if not isinstance(value, str) or value.split(".")[-1] not in ("yaml", "yml"):
                raise RenderError(f"config: vLLM takes a .yaml or .yml file, not {value!r}")
            return ["--config", value]
        spec = self.spec(name)
        if spec is None:
            return self.cli_heuristic(name, value)
        flag = _positive_flag(spec)
        if spec.optional_value:
            const = spec.const if spec.const is not None else True
            if value == const and type(value) is type(const):
                return [flag]
            if not isinstance(value, str):
                raise RenderError(f"{name}: {value!r} is neither the flag alone nor a string value")
            return self.option(flag, value)
        if spec.type == "bool":
            if not isinstance(value, bool):
                raise RenderError(f"{name}: a flag is true or false, not {value!r}")
            if value:
                return [flag]
            negative = _negative_flag(spec)
            return [negative] if negative else None
        if spec.type == "list":
            if not isinstance(value, list) or not value:
                raise RenderError(f"{name}: a list argument needs at least one value, not {value!r}")
            items = [self.scalar_text(spec, v, item=True) for v in value]
            if spec.repeatable and spec.nargs in (None, 1):
                return [t for item in items for t in self.option(flag, item)]
            unsafe = [t for t in items if not _is_safe_token(t)]
            if unsafe:
                raise RenderError(f"{name}: the list item {unsafe[0]!r} would be read as an option")
            return [flag, *items]
        return self.option(flag, self.scalar_text(spec, value))

    def scalar_text(self, spec: ArgSpec, value: Any, *, item: bool = False) -> str:
        kind = (spec.item_type or "str") if item or spec.type == "list" else spec.type
        name = spec.name
        if kind == "json" and spec.json_or_str and not isinstance(value, dict):
            if value is None and spec.nullable:
                return "None"
            if not isinstance(value, str) or _LOOKS_LIKE_JSON_OBJECT.match(value):
                raise RenderError(f"{name}: takes a JSON object or a plain string, not {value!r}")
            if spec.nullable and value in ("", "None"):
                raise RenderError(f"{name}: vLLM reads {value!r} as None")
            return value
        if kind == "json":
            if isinstance(value, float) and math.isnan(value):
                raise RenderError(f"{name}: NaN")
            return json.dumps(value, ensure_ascii=False)
        if value is None:
            if spec.nullable:
                return "None"
            raise RenderError(f"{name}: None cannot be given (the argument is not optional)")
        if spec.nullable and value in ("", "None"):
            raise RenderError(f"{name}: vLLM reads {value!r} as None")
        if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and math.isnan(value):
                raise RenderError(f"{name}: NaN")
            return repr(float(value)) if isinstance(value, float) else str(value)
        if kind == "str" and isinstance(value, str):
            return value
        raise RenderError(f"{name}: {value!r} is not a {kind} value")

    def cli_heuristic(self, name: str, value: Any) -> list[str]:
        flag = self.unknown_flag(name)
        if value is True:
            if self.catalog is None and name.startswith("no_"):
                return [flag, "true"]
            return [flag]
        if value is False and self.catalog is None:
            return ["--no-" + name.replace("_", "-")]
        return self.option(flag, _heuristic_text(value))

    # ---- YAML

    def yaml_value(self, name: str, value: Any) -> tuple[str, Any] | None:
        spec = self.spec(name)
        if spec is None:
            return self.yaml_heuristic(name, value)
        key = _positive_flag(spec)[2:] if _positive_flag(spec).startswith("--") else name.replace("_", "-")
        if spec.optional_value:
            const = spec.const if spec.const is not None else True
            if value is True and const is True:
                return key, True
            if not isinstance(value, str) or not _is_safe_token(value):
                raise RenderError(f"{name}: {value!r} cannot be written in a config file")
            return key, value
        if spec.type == "bool":
            if not isinstance(value, bool):
                raise RenderError(f"{name}: a flag is true or false, not {value!r}")
            if value:
                return key, True
            if config_false_to_no_flag(self.catalog) and ("--no-" + key) in self.parser.table:
                return key, False
            if spec.negative_flags:
                raise RenderError(
                    f"{name}: false cannot be written in a config file for vLLM {self.catalog.version} "
                    f"(vLLM ignores '{key}: false'); use the command line"
                )
            return None
        if spec.type == "list":
            if not isinstance(value, list) or not value:
                raise RenderError(f"{name}: a list argument needs at least one value, not {value!r}")
            if spec.repeatable and spec.nargs in (None, 1) and len(value) > 1:
                raise RenderError(f"{name}: a config file can give {key} only once; use the command line")
            items = []
            for v in value:
                text = self.scalar_text(spec, v, item=True)
                if not _is_safe_token(text):
                    raise RenderError(f"{name}: the list item {text!r} would be read as an option")
                items.append(v)
            return key, items
        if spec.type == "json":
            if isinstance(value, dict):
                self.scalar_text(spec, value)  # NaN check
                return key, value
            if value is None and spec.nullable:
                return key, None
            text = self.scalar_text(spec, value)
            if not _is_safe_token(text):
                raise RenderError(f"{name}: {text!r} would be read as an option in a config file")
            return key, text
        text = self.scalar_text(spec, value)
        if not _is_safe_token(text):
            raise RenderError(f"{name}: {text!r} would be read as an option in a config file")
        return key, value

    def yaml_heuristic(self, name: str, value: Any) -> tuple[str, Any]:
        key = self.unknown_flag(name)[2:]
        if self.catalog is None:
            if isinstance(value, list) and not value:
                raise RenderError(f"{name}: vLLM ignores an empty list in a config file")
            if isinstance(value, float) and math.isnan(value):
                raise RenderError(f"{name}: NaN")
            return key, value
        if value is True:
            return key, True
        if isinstance(value, dict):
            _heuristic_text(value)
            return key, value
        text = _heuristic_text(value)
        if not _is_safe_token(text):
            raise RenderError(f"{name}: {text!r} would be read as an option in a config file")
        return key, text


def render_command(doc: dict[str, Any], *, catalog: Catalog | None = None) -> str:
    """``NAME=value vllm serve MODEL \\`` then one flag per line; JSON values single-quoted."""
    model, args, env = _parts(doc)
    if model is None and "served_model_name" in args:
        raise RenderError("vLLM needs the model as the first positional argument with --served-model-name")
    renderer = _Renderer(catalog)
    head = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    head += ["vllm", "serve"]
    if model is not None:
        head.append(shlex.quote(model) if _is_safe_token(model) else shlex.quote(f"--model={model}"))
    lines = [" ".join(head)]
    for name, value in args.items():
        tokens = renderer.cli(name, value)
        if tokens:
            lines.append("  " + " ".join(shlex.quote(t) for t in tokens))
    return " \\\n".join(lines) + "\n"


def render_argv(doc: dict[str, Any], *, catalog: Catalog | None = None) -> list[str]:
    """``["vllm", "serve", MODEL, flag, value, ...]``: the command as an argv (a container's ``command``)."""
    model, args, _ = _parts(doc)
    if model is None and "served_model_name" in args:
        raise RenderError("vLLM needs the model as the first positional argument with --served-model-name")
    renderer = _Renderer(catalog)
    argv = ["vllm", "serve"]
    if model is not None:
        argv.append(model if _is_safe_token(model) else f"--model={model}")
    for name, value in args.items():
        argv.extend(renderer.cli(name, value))
    return argv


def _env_comments(env: dict[str, str]) -> list[str]:
    lines = []
    for key, value in env.items():
        quoted = shlex.quote(value)
        if len(quoted.splitlines()) > 1 or not quoted.isprintable():
            lines.append("# env-json: " + json.dumps({key: value}))
        else:
            lines.append(f"# env: {key}={quoted}")
    return lines


def _dump_yaml(mapping: dict[str, Any]) -> str:
    options = {"sort_keys": False, "default_flow_style": False, "width": 10**6}
    body = yaml.safe_dump(mapping, allow_unicode=True, **options)
    if yaml.safe_load(body) != (mapping or None) and yaml.safe_load(body) != mapping:
        # PyYAML writes some characters (NEL, LS, PS) raw and reads them back as line breaks: escape them.
        body = yaml.safe_dump(mapping, allow_unicode=False, **options)
    return body


def render_yaml(doc: dict[str, Any], *, catalog: Catalog | None = None) -> str:
    """A vLLM ``--config`` file: kebab-case keys, ``model:`` first, env as leading ``# env:`` comments."""
    model, args, env = _parts(doc)
    renderer = _Renderer(catalog)
    mapping: dict[str, Any] = {}
    if model is not None:
        if not _is_safe_token(model):
            raise RenderError(f"model {model!r} would be read as an option in a config file")
        mapping["model"] = model
    for name, value in args.items():
        entry = renderer.yaml_value(name, value)
        if entry is None:
            continue
        key, rendered = entry
        if key in mapping:
            raise RenderError(f"{name}: the key {key!r} is already used")
        mapping[key] = rendered
    body = _dump_yaml(mapping)
    comments = _env_comments(env)
    return "\n".join(comments) + ("\n" if comments else "") + body


def render_json(doc: dict[str, Any]) -> str:
    """The structured JSON form that ``parse_json`` reads back (model, args, env)."""
    model, args, env = _parts(doc)
    return json.dumps({"model": model, "args": args, "env": env}, ensure_ascii=False, indent=2) + "\n"
