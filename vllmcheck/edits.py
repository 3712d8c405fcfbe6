"""Edits of plain mappings: a finding's mechanical fix applied to engine arguments, the solutions of a finding
that can be applied for the user, and key-by-key differences (the dashboard's diffs). Plain Python over
dicts: the profiles app applies them to stored profiles."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def engine_args_apply_fix(args: Mapping[str, Any], fix: Mapping[str, Any]) -> dict[str, Any]:
    """The engine arguments after a finding's mechanical ``fix`` ({"unset": [...], "set": {...}}).

    A dotted key (``profiler_config.profiler``) addresses a key inside a JSON-valued argument, as vLLM's
    dotted flags do; a JSON argument left empty by an unset is removed.
    """
    result = copy.deepcopy(dict(args))
    for key in fix.get("unset") or ():
        path = str(key).split(".")
        parents = [result]
        for part in path[:-1]:
            child = parents[-1].get(part)
            if not isinstance(child, dict):
                break
            parents.append(child)
        else:
            parents[-1].pop(path[-1], None)
            for depth in range(len(parents) - 1, 0, -1):  # drop containers the unset left empty
                if not parents[depth]:
                    parents[depth - 1].pop(path[depth - 1], None)
    for key, value in (fix.get("set") or {}).items():
        path = str(key).split(".")
        target = result
        for part in path[:-1]:
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        target[path[-1]] = copy.deepcopy(value)
    return result


def mapping_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Key by key: [{"key", "change": "added" | "removed" | "changed", "before", "after"}], sorted by key."""
    rows = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            rows.append({"key": key, "change": "removed", "before": before[key], "after": None})
        elif key not in before:
            rows.append({"key": key, "change": "added", "before": None, "after": after[key]})
        elif before[key] != after[key]:
            rows.append({"key": key, "change": "changed", "before": before[key], "after": after[key]})
    return rows


SNAPSHOT_MAPPINGS = ("engine_args", "env", "hardware", "model_config")


def snapshot_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What changed between two revision snapshots; arguments, env and hardware key by key (``args.x``)."""
    rows = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if name in SNAPSHOT_MAPPINGS and isinstance(old or {}, dict) and isinstance(new or {}, dict):
            prefix = "args" if name == "engine_args" else name
            for row in mapping_diff(old or {}, new or {}):
                rows.append({**row, "key": f"{prefix}.{row['key']}"})
        elif old != new:
            change = "added" if old in (None, "") else "removed" if new in (None, "") else "changed"
            rows.append({"key": name, "change": change, "before": old, "after": new})
    return rows


@dataclass
class FixOption:
    """One of a finding's listed solutions: ``fix`` is the change that applies it to the engine arguments
    ({"set": {...}, "unset": [...]}), None when it is done by hand (the editor)."""

    index: int
    text: str
    fix: dict[str, Any] | None


_NAME = r"(--[a-z0-9][a-z0-9-]*|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)"
_UNSET = re.compile(rf"\b(?:remove|drop|unset|disable) {_NAME}", re.IGNORECASE)
_SET = re.compile(rf"^set {_NAME} to ([^\s,;]+?)\.?$", re.IGNORECASE)
_USE = re.compile(r"\buse ([a-z_][a-z0-9_]*)=('?)([A-Za-z0-9_.-]+)\2")
_RELEASE = re.compile(r"^(?:upgrade to|target|pin the profile to) vLLM (\d+\.\d+\.\d+)", re.IGNORECASE)


def _arg_name(text: str) -> str:
    return text.removeprefix("--").replace("-", "_")


def _has_arg(args: Mapping[str, Any], dotted: str) -> bool:
    value: Any = args
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False
        value = value[part]
    return True


def _said_fix(text: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The change a solution's text says in so many words, read from its first alternative (what comes
    before ", or"): "Upgrade to vLLM 0.32.0" (pins that release), "Set name to value", "remove/drop/disable
    --flag or a.b" (of an argument the profile gives), "use name='value'"."""
    first = re.split(r",? or (?=[a-z]+ )", text, maxsplit=1)[0].strip()
    if match := _RELEASE.match(first):
        return {"release": match.group(1)}
    if match := _SET.match(first):
        raw = match.group(2)
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        return {"set": {_arg_name(match.group(1)): value}}
    unset = [name for name in (_arg_name(m.group(1)) for m in _UNSET.finditer(first)) if _has_arg(args, name)]
    values = {m.group(1): m.group(3) for m in _USE.finditer(first)}
    if not unset:
        return None  # "use x=y" alone may be about an argument of another deployment
    return {"unset": unset, **({"set": values} if values else {})}


def _mentions(text: str, fix: Mapping[str, Any]) -> int:
    """How many of the arguments a fix changes the text names (as an argument name or a flag)."""
    keys = [*(fix.get("unset") or ()), *(fix.get("set") or {})]
    lowered = text.lower()
    return sum(
        1
        for key in keys
        if any(form in lowered for form in (str(key), str(key).replace("_", "-"), str(key).split(".")[-1]))
    )


def finding_fix_options(finding: Mapping[str, Any], args: Mapping[str, Any]) -> list[FixOption]:
    """Every listed solution of a finding (a stored finding's dict), each with the change that applies it
    when there is one: the rule's mechanical fix goes with the solution that names what it changes, a
    solution that says "Remove --x" or "Set x to 1" in so many words gets that change. Empty when none of
    them can be applied mechanically (a fix with no solution listed is one option of its own)."""
    texts = [str(t) for t in finding.get("solutions") or ()]
    options = [FixOption(i, text, _said_fix(text, args)) for i, text in enumerate(texts)]
    rule_fix = finding.get("fix")
    if rule_fix:
        scores = [_mentions(o.text, rule_fix) for o in options]
        if scores and max(scores) > 0:
            options[scores.index(max(scores))].fix = copy.deepcopy(dict(rule_fix))
        else:
            changes = [f"remove {k}" for k in rule_fix.get("unset") or ()]
            changes += [f"set {k} to {json.dumps(v)}" for k, v in (rule_fix.get("set") or {}).items()]
            options.insert(
                0, FixOption(0, "The rule's fix: " + ", ".join(changes), copy.deepcopy(dict(rule_fix)))
            )
            for i, option in enumerate(options):
                option.index = i
    if not any(o.fix for o in options):
        return []
    return options
