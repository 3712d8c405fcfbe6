"""The engine-argument catalog of one vLLM release (the data behind ``show_release``).

A catalog is JSON (``vllmcheck/catalogs/X.Y.Z.json``), produced by the extractor from the release's
wheel. This module only loads and queries it.

Shape::

    {"version": "0.31.0",
     "source": {"wheel": "...", "sha256": "...", "commit": "<vllm git sha or null>"},
     "parser": {"O_alias": "optimization_level" | "compilation_config" | null, ...},
     "arguments": [{"flags": ["--tensor-parallel-size", "-tp"], "name": "tensor_parallel_size",
                    "type": "int", "default": 1, "choices": null, "deprecated": false, "help": "...", ...}],
     "config_classes": {"SpeculativeConfig": {"fields": {"method": {"type": "str", "choices": [...],
                                                                    "default": null}, ...}},
                        "QuantizationConfigArgs": {"fields": {"moe": {
                            "type": "json", "config_class": "QuantSpec", "json_or_str": true,
                            "str_check": {"values": [...], "refused": {name: message},
                                          "message": "unknown quantization name {value!r}; ...",
                                          "class": "ValueError", "strict": false}}, ...}}},
     "errors": [{"message": "...", "class": "ValueError", "kind": "raise" | "assert",
                 "file": "vllm/config/vllm.py", "line": 1033}],
     "value_sets": {"speculative_methods": {"values": ["ngram", ...], "symbol": "SpeculativeMethod",
                                            "file": "vllm/config/speculative.py", "line": 90,
                                            "members": {"NAME": value} (enums only)}, ...},
     "value_checks": [{"set": "speculative_methods", "argument": "speculative_config", "key": "method",
                       "case": null | "upper", "requires": null | "<argument that must be true>",
                       "message": "Unknown speculative method {value!r}. Built-in methods: [...]" | null,
                       "site": {"class": "ValueError", "file": "...", "line": 1630} | null}]}

A config field's ``str_check`` is what the field's pydantic validators (a ``field_validator(mode="before")``
of its class, a plain validator in its ``Annotated`` type) make of a string, found by running them on the
names they look strings up in (``vllmcheck/catalog_builder/validators.py``): an object typed field that also
takes a name (``json_or_str``), or a field that takes nothing but a name (``strict``, typed ``str``).
A free-form JSON object field's ``dict_check`` is what its validators refuse, found the same way: a field
value by JSON kind (``"types"``), and items (``"items"``: the names taken, the message for any other name,
the refusal by the item's kind, and the config class an object item is built as), with ``{key}``/``{value}``.

``value_sets`` are the registries and enumerations vLLM compares values against at start-up; a
``value_check`` ties one to the argument (or the key inside a JSON-config argument) it checks, with vLLM's
message for that release (the set filled in, the user's value as ``{value}`` or ``{value!r}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from .types import ArgSpec

_ARGSPEC_FIELDS = {f.name for f in fields(ArgSpec)}


def argspec_from_dict(data: dict[str, Any]) -> ArgSpec:
    values = {k: v for k, v in data.items() if k in _ARGSPEC_FIELDS}
    values["flags"] = tuple(values.get("flags") or ())
    values["hidden_aliases"] = tuple(values.get("hidden_aliases") or ())
    values["negative_flags"] = tuple(values.get("negative_flags") or ())
    if values.get("choices") is not None:
        values["choices"] = tuple(values["choices"])
    return ArgSpec(**values)


@dataclass(frozen=True)
class Catalog:
    version: str
    arguments: tuple[ArgSpec, ...]
    config_classes: dict[str, Any] = field(default_factory=dict)
    errors: tuple[dict[str, Any], ...] = ()
    parser: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    value_sets: dict[str, Any] = field(default_factory=dict)
    value_checks: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        return cls(
            version=data["version"],
            arguments=tuple(argspec_from_dict(a) for a in data.get("arguments", ())),
            config_classes=data.get("config_classes") or {},
            errors=tuple(data.get("errors") or ()),
            parser=data.get("parser") or {},
            source=data.get("source") or {},
            value_sets=data.get("value_sets") or {},
            value_checks=tuple(data.get("value_checks") or ()),
        )

    @classmethod
    def load(cls, path: str | Path) -> Catalog:
        return cls.from_dict(json.loads(Path(path).read_text()))

    @cached_property
    def by_name(self) -> dict[str, ArgSpec]:
        return {a.name: a for a in self.arguments}

    @cached_property
    def by_flag(self) -> dict[str, ArgSpec]:
        """Every option string (long flags, short aliases, hidden aliases) to its argument."""
        table: dict[str, ArgSpec] = {}
        for arg in self.arguments:
            for flag in (*arg.flags, *arg.hidden_aliases, *arg.negative_flags):
                table[flag] = arg
        return table

    @cached_property
    def values(self) -> dict[str, list[Any]]:
        """Value set name -> its members: the CEL variable ``values`` of the rules."""
        return {name: list(entry.get("values") or ()) for name, entry in self.value_sets.items()}

    @cached_property
    def checks_by_target(self) -> dict[tuple[str, str | None], dict[str, Any]]:
        """(argument, key inside its JSON config or None) -> the value check vLLM runs on it."""
        checks = [c for c in self.value_checks if c.get("set") in self.value_sets]
        return {(c["argument"], c.get("key")): c for c in checks}

    @cached_property
    def defaults(self) -> dict[str, Any]:
        """Defaults known before start-up; those vLLM resolves at start-up are left out."""
        return {
            a.name: a.default
            for a in self.arguments
            if not a.default_resolved_at_startup and a.name != "model"
        }
