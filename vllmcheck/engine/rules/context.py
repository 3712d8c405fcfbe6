"""What a rule sees: the CEL variables of a profile document (``build_context``), pruned to what the rules
about to run read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..types import parse_version


def _prune(values: Mapping[str, Any], wanted: frozenset[str] | None) -> dict[str, Any]:
    if wanted is None:
        return dict(values)
    return {k: v for k, v in values.items() if k in wanted}


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, a dict or None told apart before asking the ABC (which costs more)."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def _vllm_values(version: str) -> dict[str, Any]:
    """The ``vllm`` map of a release's rules."""
    parsed = parse_version(version)
    return {
        "version": version,
        "major": parsed.major if parsed else 0,
        "minor": parsed.minor if parsed else 0,
        "patch": parsed.micro if parsed else 0,
    }


def build_context(
    doc: Mapping[str, Any],
    defaults: Mapping[str, Any],
    wanted: Mapping[str, frozenset[str] | None] | None = None,
    values: Mapping[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """The variables a rule sees, pruned to the keys the rules read (``wanted``; None = everything).

    ``values`` are the release's value sets (``values.speculative_methods``: the catalog's lists).

    Unknown model and hardware facts stay absent, so reading them means "could not verify".
    """
    wanted = wanted or {}
    none = frozenset()
    # Each map costs a few microseconds to hand to CEL: leave out those no rule about to run reads (a root
    # ``wanted`` does not name is kept).
    context: dict[str, Any] = {}
    if wanted.get("kind", True) != none:
        context["kind"] = doc.get("kind") or "serving"
    keys = wanted.get("vllm", True)
    if keys != none:
        vllm = _vllm_values(str((doc.get("vllm") or {}).get("version") or ""))
        context["vllm"] = _prune(vllm, wanted.get("vllm"))
    if wanted.get("model", True) != none:
        model = {k: v for k, v in (doc.get("model") or {}).items() if v is not None}
        if _is_mapping(model.get("config")):
            model["config"] = _prune(model["config"], wanted.get("model.config"))
        context["model"] = _prune(model, wanted.get("model"))
    args = doc.get("args") or {}
    if wanted.get("args", True) != none:
        context["args"] = _prune(args, wanted.get("args"))
    if wanted.get("effective", True) != none:
        effective = dict(defaults)
        effective.update(_prune(args, wanted.get("effective")))
        context["effective"] = effective
    if wanted.get("env", True) != none:
        context["env"] = {str(k): str(v) for k, v in _prune(doc.get("env") or {}, wanted.get("env")).items()}
    if wanted.get("hardware", True) != none:
        hardware = _prune(doc.get("hardware") or {}, wanted.get("hardware"))
        context["hardware"] = {k: v for k, v in hardware.items() if v is not None}
    if wanted.get("derived", True) != none:
        context["derived"] = {}
    if wanted.get("values", True) != none:
        context["values"] = _prune(values or {}, wanted.get("values"))
    return context
