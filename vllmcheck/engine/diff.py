"""What changed between two releases' argument catalogs (``release_diff``, ``/api/v1/releases/A/diff/B/``).

Arguments added, removed, renamed, and changed (default, choices, type, bounds, flags, deprecation); the
error messages of the config code added and removed. A removed argument counts as renamed to an added one
when vLLM says so (its deprecation text, or a help sentence about a replacement, names the new flag; or the
new help names the old flag), when the same config field now sits behind another flag, or when the help
text moved over unchanged (same config class and type).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .catalog import Catalog
from .coverage import normalise
from .types import ArgSpec

# Replacement detection (here and in checks.py): an option string (``--new-flag``, ``-O``, or a JSON key path
# ``--compilation-config.mode``) or a back-quoted argument or field name (``new_name``, ``a.b``) mentioned in
# vLLM's deprecation text, or in a help sentence that speaks of a replacement.
FLAG_MENTION = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*(?:\.[A-Za-z0-9_]+)*|-[A-Za-z][A-Za-z0-9]*)")
NAME_MENTION = re.compile(r"`([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)`")
_REPLACEMENT_HINT = re.compile(r"deprecat|instead|replaced by|replaces|renamed|superseded|formerly", re.I)
_SAME_HELP_RATIO = 0.9

# Argument attributes whose change the diff reports (``default`` etc. compared as JSON values).
CHANGED_ATTRIBUTES = ("type", "item_type", "default", "choices", "bounds", "nullable", "flags", "deprecated")


def replacement_text(text: str | None) -> str:
    """The sentences of ``text`` that speak of a replacement (others name related options)."""
    sentences = re.split(r"(?<=[.;])\s+", text or "")
    return " ".join(s for s in sentences if _REPLACEMENT_HINT.search(s))


def mentioned_options(text: str) -> list[str]:
    """Option strings ``text`` mentions, in order (a key path keeps its ``.key`` suffix)."""
    return FLAG_MENTION.findall(text or "")


def mentioned_names(text: str) -> list[str]:
    """Back-quoted argument or field names ``text`` mentions, in order."""
    return NAME_MENTION.findall(text or "")


def _root(mention: str) -> str:
    return mention.split(".", 1)[0]


def _mentions(text: str, spec: ArgSpec) -> bool:
    options = {*spec.flags, *spec.hidden_aliases}
    if any(_root(m) in options for m in mentioned_options(text)):
        return True
    return any(_root(m) == spec.name for m in mentioned_names(text))


def _origin(spec: ArgSpec) -> tuple[str | None, str | None]:
    origin = spec.origin or {}
    return origin.get("class"), origin.get("field")


def _rename_reason(old: ArgSpec, new: ArgSpec) -> str | None:
    if old.deprecation and _mentions(old.deprecation, new):
        return "deprecation"
    if _mentions(replacement_text(old.help), new) or _mentions(replacement_text(new.help), old):
        return "help"
    if new.deprecation and _mentions(new.deprecation, old):
        return "deprecation"
    old_class, old_field = _origin(old)
    new_class, new_field = _origin(new)
    if old_field and old_field == new_field and (old_class, old.name) != (new_class, new.name):
        return "same-field"
    if (
        old_class
        and old_class == new_class
        and old.type == new.type
        and old.help
        and difflib.SequenceMatcher(None, old.help, new.help).ratio() >= _SAME_HELP_RATIO
    ):
        return "same-help"
    return None


_REASON_ORDER = ("deprecation", "help", "same-field", "same-help")


def _renames(a: Catalog, b: Catalog) -> list[tuple[ArgSpec, ArgSpec, str]]:
    removed = [s for s in a.arguments if s.name not in b.by_name]
    added = [s for s in b.arguments if s.name not in a.by_name]
    if not removed or not added:
        return []
    pairs = []
    for old in removed:
        for new in added:
            reason = _rename_reason(old, new)
            if reason:
                pairs.append((_REASON_ORDER.index(reason), old.name, new.name, old, new, reason))
    pairs.sort(key=lambda p: p[:3])
    taken_old: set[str] = set()
    taken_new: set[str] = set()
    result = []
    for _, old_name, new_name, old, new, reason in pairs:
        if old_name in taken_old or new_name in taken_new:
            continue
        taken_old.add(old_name)
        taken_new.add(new_name)
        result.append((old, new, reason))
    return result


def renamed_arguments(a: Catalog, b: Catalog) -> dict[str, str]:
    """Old argument name -> new argument name, for arguments of ``a`` renamed in ``b``."""
    return {old.name: new.name for old, new, _ in _renames(a, b)}


def _brief(spec: ArgSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "flags": list(spec.flags),
        "type": spec.type,
        "default": spec.default,
        "choices": list(spec.choices) if spec.choices is not None else None,
        "deprecated": spec.deprecated,
        "deprecation": spec.deprecation,
    }


def _attribute(spec: ArgSpec, name: str) -> Any:
    value = getattr(spec, name)
    return list(value) if isinstance(value, tuple) else value


def _changes(old: ArgSpec, new: ArgSpec) -> dict[str, dict[str, Any]]:
    changes: dict[str, dict[str, Any]] = {}
    for name in CHANGED_ATTRIBUTES:
        before, after = _attribute(old, name), _attribute(new, name)
        if before == after and type(before) is type(after):
            continue
        change: dict[str, Any] = {"from": before, "to": after}
        if name in ("choices", "flags") and isinstance(before, list) and isinstance(after, list):
            change["added"] = [c for c in after if c not in before]
            change["removed"] = [c for c in before if c not in after]
        changes[name] = change
    if new.deprecated and not old.deprecated and new.deprecation:
        changes["deprecated"]["deprecation"] = new.deprecation
    return changes


def _error_groups(errors: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for error in errors:
        groups.setdefault(normalise(error.get("message", "")), []).append(error)
    return groups


def _error_entry(message: str, sites: list[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "message": message,
        "class": sites[0].get("class"),
        "sites": [{"file": s.get("file"), "line": s.get("line"), "where": s.get("where")} for s in sites],
    }


def diff_catalogs(a: Catalog, b: Catalog) -> dict[str, Any]:
    """The changes from release ``a`` to release ``b`` (JSON-ready)."""
    renames = _renames(a, b)
    renamed_old = {old.name for old, _, _ in renames}
    renamed_new = {new.name for _, new, _ in renames}
    added = [_brief(s) for s in b.arguments if s.name not in a.by_name and s.name not in renamed_new]
    removed = [_brief(s) for s in a.arguments if s.name not in b.by_name and s.name not in renamed_old]
    renamed = []
    for old, new, reason in renames:
        entry = {
            "from": old.name,
            "to": new.name,
            "from_flags": list(old.flags),
            "to_flags": list(new.flags),
            "reason": reason,
        }
        if changes := _changes(old, new):
            entry["changes"] = {k: v for k, v in changes.items() if k != "flags"}
        renamed.append(entry)
    changed = []
    for spec in b.arguments:
        old = a.by_name.get(spec.name)
        if old is not None and (changes := _changes(old, spec)):
            changed.append({"name": spec.name, "flag": spec.long_flag, "changes": changes})
    errors_a, errors_b = _error_groups(a.errors), _error_groups(b.errors)
    errors_added = [_error_entry(m, s) for m, s in errors_b.items() if m not in errors_a]
    errors_removed = [_error_entry(m, s) for m, s in errors_a.items() if m not in errors_b]
    value_sets = diff_value_sets(a, b)
    by_kind: dict[str, int] = {}
    for entry in changed:
        for key in entry["changes"]:
            by_kind[key] = by_kind.get(key, 0) + 1
    return {
        "from": a.version,
        "to": b.version,
        "arguments": {"added": added, "removed": removed, "renamed": renamed, "changed": changed},
        "errors": {"added": errors_added, "removed": errors_removed},
        "value_sets": value_sets,
        "summary": {
            "arguments_added": len(added),
            "arguments_removed": len(removed),
            "arguments_renamed": len(renamed),
            "arguments_changed": len(changed),
            "changed_by_attribute": dict(sorted(by_kind.items())),
            "errors_added": len(errors_added),
            "errors_removed": len(errors_removed),
            "value_sets_changed": len(value_sets["changed"]),
            "value_sets_added": len(value_sets["added"]),
            "value_sets_removed": len(value_sets["removed"]),
        },
    }


def diff_value_sets(a: Catalog, b: Catalog) -> dict[str, Any]:
    """Value sets that appear, disappear, or gain and lose members from ``a`` to ``b``.

    A release whose catalog predates value sets (none at all) reports nothing rather than every set added.
    """
    if not a.value_sets or not b.value_sets:
        return {"added": [], "removed": [], "changed": []}
    old, new = a.values, b.values
    changed = []
    for name in sorted(set(old) & set(new)):
        before, after = old[name], new[name]
        added = [v for v in after if v not in before]
        removed = [v for v in before if v not in after]
        if added or removed:
            changed.append({"name": name, "added": added, "removed": removed})
    return {
        "added": [{"name": n, "values": new[n]} for n in sorted(set(new) - set(old))],
        "removed": [{"name": n, "values": old[n]} for n in sorted(set(old) - set(new))],
        "changed": changed,
    }


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_diff_text(diff: Mapping[str, Any]) -> str:
    """A readable report of :func:`diff_catalogs`'s result."""
    s = diff["summary"]
    args = diff["arguments"]
    lines = [
        f"vLLM {diff['from']} -> {diff['to']}: {s['arguments_added']} added, "
        f"{s['arguments_removed']} removed, "
        f"{s['arguments_renamed']} renamed, {s['arguments_changed']} changed arguments; "
        f"{s['errors_added']} error messages added, {s['errors_removed']} removed"
        + (f"; {s['value_sets_changed']} value sets changed" if s.get("value_sets_changed") else "")
    ]
    if args["added"]:
        lines.append("\nAdded arguments:")
        lines += [
            f"  + {', '.join(a['flags'])}  ({a['type']}, default {_short(a['default'])})"
            for a in args["added"]
        ]
    if args["removed"]:
        lines.append("\nRemoved arguments:")
        for a in args["removed"]:
            note = f"  [{a['deprecation']}]" if a.get("deprecation") else ""
            lines.append(f"  - {', '.join(a['flags'])}{note}")
    if args["renamed"]:
        lines.append("\nRenamed arguments:")
        for r in args["renamed"]:
            lines.append(f"  ~ {r['from_flags'][0]} -> {r['to_flags'][0]}  ({r['reason']})")
    if args["changed"]:
        lines.append("\nChanged arguments:")
        for c in args["changed"]:
            lines.append(f"  * {c['flag']}")
            for key, change in c["changes"].items():
                if "added" in change or "removed" in change:
                    parts = [f"+{_short(v, 40)}" for v in change.get("added", [])]
                    parts += [f"-{_short(v, 40)}" for v in change.get("removed", [])]
                    lines.append(f"      {key}: {' '.join(parts) or _short(change['to'])}")
                else:
                    lines.append(f"      {key}: {_short(change['from'])} -> {_short(change['to'])}")
    sets = diff.get("value_sets") or {}
    if any(sets.get(k) for k in ("added", "removed", "changed")):
        lines.append("\nValue sets:")
        lines += [f"  + {v['name']} ({len(v['values'])} values)" for v in sets.get("added", [])]
        lines += [f"  - {v['name']}" for v in sets.get("removed", [])]
        for v in sets.get("changed", []):
            parts = [f"+{_short(x, 40)}" for x in v["added"]] + [f"-{_short(x, 40)}" for x in v["removed"]]
            lines.append(f"  * {v['name']}: {' '.join(parts)}")
    for kind, mark in (("added", "+"), ("removed", "-")):
        errors = diff["errors"][kind]
        if errors:
            lines.append(f"\nError messages {kind}:")
            for e in errors:
                site = e["sites"][0]
                lines.append(f"  {mark} {e['message']}  ({site['file']}:{site['line']})")
    return "\n".join(lines)
