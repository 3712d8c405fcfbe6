"""The upgrade path of a profile: release by release from the one it runs to a target, what breaks.

Pure catalog comparison (no Django, no rule pack): for every argument the profile sets, each release on the
way where vLLM removed, renamed, retyped or deprecated it (with vLLM's own deprecation text and the release
it says removes the argument), what replaces it, and the first release that would refuse the profile
(``unrecognized arguments``, or a value outside the argument's choices or type).

``REPLACEMENTS`` is the one table of known replacements for removed arguments (other messages about a
removed argument should read it from here). Each entry was checked against the catalogs: the argument
disappears in the release named in its comment, and the replacement exists there.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from .catalog import Catalog
from .diff import renamed_arguments
from .types import ArgSpec


@dataclass(frozen=True)
class Replacement:
    """What replaces a removed argument: ``flags`` (None: nothing, drop it) and how to rewrite its value."""

    flags: tuple[str, ...]
    note: str
    rewrite: Callable[[Any, Mapping[str, Any]], dict[str, Any]] | None = None  # value, all args -> new args
    removed_in: str | None = None  # the first release without it (checked against the catalogs by a test)


def _speculative(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"model": value}
    if args.get("num_speculative_tokens") is not None:
        config["num_speculative_tokens"] = args["num_speculative_tokens"]
    return {"speculative_config": config}


def _rope(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    scaling = value
    if isinstance(value, str):
        try:
            scaling = json.loads(value)
        except json.JSONDecodeError:
            scaling = value
    return {"hf_overrides": {"rope_scaling": scaling}}


def _rope_theta(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"hf_overrides": {"rope_theta": value}}


# vLLM's own mapping of the old --task values (ModelConfig's default runner and convert per task, 0.10.x)
_TASK_TO = {
    "generate": {"runner": "generate"},
    "transcription": {"runner": "generate"},
    "embed": {"runner": "pooling", "convert": "embed"},
    "embedding": {"runner": "pooling", "convert": "embed"},
    "classify": {"runner": "pooling", "convert": "classify"},
    "score": {"runner": "pooling", "convert": "classify"},
    "reward": {"runner": "pooling", "convert": "reward"},
    "auto": {},
}


def _task(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(_TASK_TO.get(str(value), {}))


def _drop(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _no_log_requests(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"enable_log_requests": False} if value else {}


REPLACEMENTS: dict[str, Replacement] = {
    # removed in 0.10.0; --reasoning-parser alone turns reasoning on since 0.9.0
    "enable_reasoning": Replacement((), "--reasoning-parser alone enables reasoning", _drop, "0.10.0"),
    # removed in 0.8.3: the draft model and its settings are keys of --speculative-config
    "speculative_model": Replacement(
        ("--speculative-config",), "--speculative-config '{\"model\": ...}'", _speculative, "0.8.3"
    ),
    "num_speculative_tokens": Replacement(
        ("--speculative-config",), "--speculative-config '{\"num_speculative_tokens\": ...}'", _drop, "0.8.3"
    ),
    # V0 engine only: removed in 0.10.1 / 0.11.0 / 0.10.0, nothing replaces them
    "num_scheduler_steps": Replacement(
        (), "none: multi-step scheduling went with the V0 engine", _drop, "0.10.1"
    ),
    "max_seq_len_to_capture": Replacement(
        (),
        "none: CUDA graphs are captured up to --compilation-config max_cudagraph_capture_size",
        _drop,
        "0.11.0",
    ),
    "use_v2_block_manager": Replacement((), "none: the v2 block manager is the only one", _drop, "0.10.0"),
    # removed in 0.17.0
    "disable_log_requests": Replacement(
        ("--no-enable-log-requests",), "--no-enable-log-requests", _no_log_requests, "0.17.0"
    ),
    # removed in 0.13.0
    "task": Replacement(
        ("--runner", "--convert"), "--runner generate|pooling and --convert embed|...", _task, "0.13.0"
    ),
    # removed in 0.11.1: they are keys of the model's config, set with --hf-overrides
    "rope_scaling": Replacement(
        ("--hf-overrides",), "--hf-overrides '{\"rope_scaling\": ...}'", _rope, "0.11.1"
    ),
    "rope_theta": Replacement(
        ("--hf-overrides",), "--hf-overrides '{\"rope_theta\": ...}'", _rope_theta, "0.11.1"
    ),
    # removed in 0.18.0
    "swap_space": Replacement((), "none: CPU swap space went with the V0 engine", _drop, "0.18.0"),
}

_REMOVED_IN = re.compile(r"(?:removed|dropped)\s+in\s+(?:vLLM\s+)?v?(\d+\.\d+(?:\.\d+)?)", re.I)


def replacement_fix(name: str, value: Any, target: Catalog) -> dict[str, Any]:
    """The mechanical fix of a removed argument on ``target``: ``{"unset": [name], "set": {...}}`` with what
    REPLACEMENTS rewrites its value into (the arguments ``target`` knows); the unset alone otherwise."""
    replacement = REPLACEMENTS.get(name)
    new = replacement.rewrite(value, {name: value}) if replacement and replacement.rewrite else {}
    new = {k: v for k, v in new.items() if k in target.by_name}
    return {"unset": [name], "set": new} if new else {"unset": [name]}


def removal_release(text: str | None) -> str | None:
    """The release vLLM's deprecation text says removes the argument (``will be removed in v0.10.0``)."""
    m = _REMOVED_IN.search(text or "")
    return m.group(1) if m else None


def _vkey(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")


def releases_between(versions: Sequence[str], start: str, target: str) -> list[str]:
    """The releases from ``start`` to ``target`` (both included), oldest first."""
    lo, hi = _vkey(start), _vkey(target)
    return sorted((v for v in versions if lo <= _vkey(v) <= hi), key=_vkey)


def _value_refused(spec: ArgSpec, value: Any) -> str | None:
    """Why ``spec`` would refuse ``value`` (argparse's or vLLM's first check), or None."""
    if value is None or isinstance(value, bool):
        return None
    if spec.choices and spec.type != "list" and value not in spec.choices and str(value) not in spec.choices:
        shown = ", ".join(repr(c) for c in spec.choices)
        return f"argument {spec.long_flag}: invalid choice: {value!r} (choose from {shown})"
    if spec.type in ("int", "float") and isinstance(value, str):
        try:
            int(value) if spec.type == "int" else float(value)
        except ValueError:
            return f"argument {spec.long_flag}: invalid {spec.type} value: {value!r}"
    if spec.type == "json" and isinstance(value, str) and not spec.json_or_str:
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return f"argument {spec.long_flag}: {value!r} is not JSON (this release takes a JSON object)"
    return None


def _flag(spec: ArgSpec | None, name: str) -> str:
    return spec.long_flag if spec is not None else "--" + name.replace("_", "-")


def _removed(base: dict[str, Any], name: str) -> dict[str, Any]:
    replacement = REPLACEMENTS.get(name)
    return {
        **base,
        "kind": "removed",
        "replacement": " ".join(replacement.flags) if replacement and replacement.flags else None,
        "note": replacement.note if replacement else None,
    }


def _deprecated(base: dict[str, Any], name: str, new) -> dict[str, Any]:
    removed_in = removal_release(new.deprecation)
    return {
        **base,
        "kind": "deprecated",
        "replacement": (REPLACEMENTS[name].note if name in REPLACEMENTS else None),
        "note": None,
        "deprecation": new.deprecation,
        "removed_in": removed_in,
        "removed_in_said_by": "vllm" if removed_in else None,
    }


def _complete(releases: list[dict[str, Any]], gone: Mapping[str, str]) -> None:
    """Every change with the same keys; a deprecation whose text names no removal gets the catalogs' one."""
    for entry in releases:
        for change in entry["changes"]:
            change.setdefault("deprecation", None)
            change.setdefault("removed_in", None)
            change.setdefault("removed_in_said_by", None)
            if change["kind"] == "deprecated" and change["argument"] in gone and not change["removed_in"]:
                change["removed_in"] = gone[change["argument"]]
                change["removed_in_said_by"] = "catalogs"  # vLLM's text names no release; the catalogs do


def _text_refused(version: str, why: str) -> dict[str, Any]:
    flag = m.group(1) if (m := re.search(r"argument (-[\w-]+)", why)) else "(the command)"
    return {
        "argument": None,
        "flag": flag,
        "release": version,
        "kind": "refused",
        "replacement": None,
        "note": why,
    }


def upgrade_path(
    args: Mapping[str, Any],
    catalogs: Sequence[Catalog],
    *,
    unknown: Sequence[str] = (),
    refuses: Callable[[Catalog], str | None] | None = None,
) -> dict:
    """What breaks for a profile setting ``args`` (name -> value, as parsed on ``catalogs[0]``), release by
    release along ``catalogs`` (oldest first: the profile's release, then every release up to the target).

    Returns ``{"from", "to", "releases": [{"version", "changes": [...]}...], "refused_at", "refusal",
    "revision": {"args", "removed", "added"}}``; a change is ``{"argument", "flag", "kind"
    (removed|renamed|retyped|deprecated|refused), "release", "replacement", "note", "deprecation",
    "removed_in"}``."""
    if not catalogs:
        raise ValueError("no release to compare")
    first = catalogs[0]
    tracked: dict[str, str] = {name: name for name in args if name in first.by_name}  # original -> current
    releases: list[dict[str, Any]] = []
    refused_at: str | None = None
    refusal: str | None = None
    gone: dict[str, str] = {}
    for prev, cur in zip(catalogs, catalogs[1:], strict=False):
        changes: list[dict[str, Any]] = []
        renames = renamed_arguments(prev, cur)
        for original, name in list(tracked.items()):
            old = prev.by_name.get(name)
            new = cur.by_name.get(name)
            value = args[original]
            base = {"argument": original, "flag": _flag(old, name), "release": cur.version}
            if new is None:
                if name in renames:
                    target = cur.by_name[renames[name]]
                    change = {**base, "kind": "renamed", "replacement": target.long_flag, "note": None}
                    tracked[original] = target.name
                else:
                    change = _removed(base, name)
                    del tracked[original]
                    gone[original] = cur.version
                    if refused_at is None:
                        refused_at = cur.version
                        refusal = f"unrecognized arguments: {change['flag']}"
                changes.append(change)
                continue
            if old is not None and new.type != old.type:
                changes.append(
                    {**base, "kind": "retyped", "replacement": None, "note": f"{old.type} -> {new.type}"}
                )
            if new.deprecated and not (old is not None and old.deprecated):
                changes.append(_deprecated(base, name, new))
            why = _value_refused(new, value)
            if why and not (old is not None and _value_refused(old, value)):
                changes.append({**base, "kind": "refused", "replacement": None, "note": why})
                if refused_at is None:
                    refused_at, refusal = cur.version, why
        if refused_at is None and refuses is not None and (why := refuses(cur)):
            # the profile's own text, parsed as this release parses it (e.g. key=value --limit-mm-per-prompt)
            changes.append(_text_refused(cur.version, why))
            refused_at, refusal = cur.version, why
        if changes:
            releases.append({"version": cur.version, "changes": changes})
    _complete(releases, gone)
    if unknown and refused_at is None:
        refused_at, refusal = first.version, "unrecognized arguments: " + " ".join(unknown)
    return {
        "from": first.version,
        "to": catalogs[-1].version,
        "releases": releases,
        "refused_at": refused_at,
        "refusal": refusal,
        "revision": proposed_revision(args, gone, catalogs[-1]),
    }


def proposed_revision(args: Mapping[str, Any], gone: Mapping[str, str], target: Catalog) -> dict[str, Any]:
    """The profile's arguments rewritten for the target: removed ones dropped or replaced (REPLACEMENTS)."""
    out: dict[str, Any] = {k: v for k, v in args.items() if k not in gone}
    added: dict[str, Any] = {}
    for name in gone:
        replacement = REPLACEMENTS.get(name)
        if replacement is None or replacement.rewrite is None:
            continue
        for key, value in replacement.rewrite(args[name], args).items():
            if key not in target.by_name:
                continue
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}
            elif isinstance(value, dict) and isinstance(added.get(key), dict):
                added[key] = {**added[key], **value}
            else:
                added[key] = value
    for key, value in added.items():
        out.setdefault(key, value)
    return {"args": out, "removed": sorted(gone), "added": sorted(added)}


def revision_command(model: str | None, args: Mapping[str, Any], catalog: Catalog) -> str:
    """``vllm serve MODEL --flag value ...`` for ``args`` on ``catalog``'s release."""
    words = ["vllm", "serve"]
    if model:
        words.append(model)
    for name, value in args.items():
        spec = catalog.by_name.get(name)
        if spec is None:
            continue
        if spec.type == "bool" and isinstance(value, bool):
            if value and spec.default is not True:
                words.append(spec.long_flag)
            elif not value and spec.negatable:
                words.append("--no-" + spec.long_flag[2:])
            continue
        words.append(spec.long_flag)
        if isinstance(value, (dict, list)) and spec.type != "list":
            words.append(json.dumps(value, separators=(",", ":")))
        elif isinstance(value, list):
            words.extend(str(v) for v in value)
        else:
            words.append(str(value))
    return " ".join(shlex.quote(w) for w in words)


def render_upgrade_text(path: Mapping[str, Any]) -> str:
    """The upgrade path as lines of text (the linter's ``--upgrade-from``)."""
    lines = [f"upgrade {path['from']} -> {path['to']}"]
    if not path["releases"]:
        lines.append("  nothing this profile sets changes on the way")
    for entry in path["releases"]:
        for c in entry["changes"]:
            text = f"  {entry['version']}: {c['flag']} {c['kind']}"
            if c["kind"] == "deprecated":
                if c.get("removed_in"):
                    said = "vLLM says" if c.get("removed_in_said_by") == "vllm" else "gone"
                    text += f" ({said}: removed in {c['removed_in']})"
                if c.get("deprecation"):
                    text += f": {c['deprecation']}"
            if c["kind"] == "deprecated" and c.get("replacement"):
                text += f"; instead: {c['replacement']}"
            elif c.get("replacement"):
                text += f"; use {c['replacement']}"
            elif c["kind"] == "removed":
                text += "; nothing replaces it, drop it"
            if c.get("note") and c["note"] != c.get("replacement"):
                text += f" ({c['note']})"
            lines.append(text)
    if path["refused_at"]:
        lines.append(f"first refused by {path['refused_at']}: {path['refusal']}")
    else:
        lines.append(f"not refused up to {path['to']}")
    return "\n".join(lines) + "\n"


def fleet_table(
    profiles: Sequence[tuple[str, Mapping[str, Any], Sequence[Catalog]]],
) -> list[dict[str, Any]]:
    """Profiles x releases: for each (label, args, catalogs from its release to the target), a row whose
    ``cells`` map each release to ``ok``, ``deprecated``, ``changed`` or ``refused``."""
    rows = []
    for label, args, catalogs in profiles:
        path = upgrade_path(args, catalogs)
        refused = _vkey(path["refused_at"]) if path["refused_at"] else None
        by_release = {e["version"]: {c["kind"] for c in e["changes"]} for e in path["releases"]}
        cells: dict[str, str] = {}
        for cat in catalogs:
            kinds = by_release.get(cat.version, set())
            if refused is not None and _vkey(cat.version) >= refused:
                cells[cat.version] = "refused"
            elif "deprecated" in kinds:
                cells[cat.version] = "deprecated"
            elif kinds:
                cells[cat.version] = "changed"
            else:
                cells[cat.version] = "ok"
        rows.append(
            {"profile": label, "from": path["from"], "refused_at": path["refused_at"], "cells": cells}
        )
    return rows
