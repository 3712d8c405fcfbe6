"""Catalog checks: what a release's argument catalog alone says about a profile.

Unknown arguments (with a did-you-mean over that release's flags), arguments removed or renamed since an
earlier release, deprecated arguments, wrong types, values outside the choices or bounds, and unknown
keys inside JSON-valued arguments.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from .catalog import Catalog, trigrams
from .types import ArgSpec, Finding


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _finding(rule: str, severity: str, message: str, fields: Iterable[str], **extra: Any) -> Finding:
    return Finding(
        rule=rule, severity=severity, category="catalog", message=message, fields=tuple(fields), **extra
    )


def did_you_mean(flag: str, catalog: Catalog) -> str | None:
    """The release's closest long flag (difflib's ratio >= 0.75), among flags sharing trigrams with it."""
    grams = trigrams(flag)
    counts: dict[str, int] = {}
    for gram in grams:
        for candidate in catalog.flag_trigrams.get(gram, ()):
            counts[candidate] = counts.get(candidate, 0) + 1
    # Two strings within the 0.75 ratio share well over a third of their trigrams; keep the best few.
    options = sorted((c for c, n in counts.items() if n * 3 >= len(grams)), key=lambda c: -counts[c])[:20]
    matches = difflib.get_close_matches(flag, options, n=1, cutoff=0.75)
    return matches[0] if matches else None


def check_catalog(
    args: Mapping[str, Any],
    catalog: Catalog,
    *,
    history: Mapping[str, Catalog] | None = None,
) -> list[Finding]:
    """Findings for every argument the release does not know, or whose value it would refuse.

    ``history`` maps versions to catalogs of other releases, to name the release that removed an argument.
    """
    findings: list[Finding] = []
    for name, value in args.items():
        spec = catalog.by_name.get(name)
        if spec is None:
            findings.append(_unknown(name, catalog, history))
            continue
        if spec.deprecated:
            text = spec.deprecation or f"{spec.long_flag} is deprecated in vLLM {catalog.version}"
            findings.append(
                _finding(
                    "catalog-deprecated-argument",
                    "warning",
                    text,
                    [name],
                    solutions=(f"Stop using {spec.long_flag} before the release that removes it.",),
                )
            )
        problem = value_problem(spec, value)
        if problem:
            findings.append(_finding("catalog-invalid-value", "error", problem, [name]))
        elif spec.type == "json" and spec.config_class and isinstance(value, dict):
            findings.extend(_json_key_findings(spec, value, catalog))
    return findings


def _unknown(name: str, catalog: Catalog, history: Mapping[str, Catalog] | None) -> Finding:
    flag = _flag(name)
    removed = _removed_in(name, catalog, history or {})
    if removed is not None:
        last_with, first_without, spec = removed
        message = (
            f"{flag} was removed in vLLM {first_without} (last present in {last_with}); "
            f"vLLM {catalog.version} refuses it as an unrecognized argument"
        )
        solutions = []
        if spec.deprecation:
            solutions.append(f"vLLM {last_with} said: {spec.deprecation}")
        solutions.append(f"Remove {flag}, or pin the profile to vLLM {last_with}.")
        return _finding(
            "catalog-removed-argument",
            "error",
            message,
            [name],
            solutions=tuple(solutions),
            fix={"unset": [name]},
        )
    suggestion = did_you_mean(flag, catalog)
    message = f"unrecognized argument {flag} for vLLM {catalog.version}"
    solutions: tuple[str, ...] = ()
    fix = None
    if suggestion:
        message += f"; did you mean {suggestion}?"
        solutions = (f"Use {suggestion}.",)
    return _finding("catalog-unknown-argument", "error", message, [name], solutions=solutions, fix=fix)


def _removed_in(
    name: str, catalog: Catalog, history: Mapping[str, Catalog]
) -> tuple[str, str, ArgSpec] | None:
    """(last release with it, first release without it, its spec) if an earlier release had ``name``."""
    from packaging.version import Version

    target = Version(catalog.version)
    earlier = sorted((Version(v), c) for v, c in history.items() if Version(v) < target)
    last_with: tuple[Version, Catalog] | None = None
    for version, other in earlier:
        if name in other.by_name:
            last_with = (version, other)
    if last_with is None:
        return None
    later = [v for v, c in earlier if v > last_with[0]] + [target]
    first_without = min(later)
    return str(last_with[0]), str(first_without), last_with[1].by_name[name]


_PY_TYPES = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
    "json": (dict,),
    "list": (list,),
}


def value_problem(spec: ArgSpec, value: Any) -> str | None:
    """Why vLLM would refuse this value for this argument, or None."""
    flag = spec.long_flag
    if value is None:
        return None if spec.nullable or spec.type in ("json", "str") else f"{flag} needs a value"
    expected = _PY_TYPES.get(spec.type)
    wrong_type = expected and (
        not isinstance(value, expected) or (spec.type != "bool" and isinstance(value, bool))
    )
    if wrong_type and not (spec.type == "json" and isinstance(value, str)):
        return f"argument {flag}: invalid {spec.type} value: {value!r}"
    values = value if spec.type == "list" and isinstance(value, list) else [value]
    if spec.choices:
        choices = [c for c in spec.choices if c is not None]
        for item in values:
            if item not in choices and str(item) not in [str(c) for c in choices]:
                shown = ", ".join(repr(c) for c in choices)
                return f"argument {flag}: invalid choice: {item!r} (choose from {shown})"
    if spec.bounds and isinstance(value, int | float) and not isinstance(value, bool):
        for op, limit in spec.bounds.items():
            ok = {
                "gt": value > limit,
                "ge": value >= limit,
                "lt": value < limit,
                "le": value <= limit,
            }.get(op, True)
            if not ok:
                words = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}[op]
                return f"{flag} must be {words} {limit}, got {value}"
    return None


def _json_key_findings(spec: ArgSpec, value: Mapping[str, Any], catalog: Catalog) -> list[Finding]:
    fields = (catalog.config_classes.get(spec.config_class or "") or {}).get("fields") or {}
    if not fields:
        return []
    findings = []
    for key in value:
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.75)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            findings.append(
                _finding(
                    "catalog-unknown-config-key",
                    "error",
                    f"{spec.long_flag}: {spec.config_class} has no field {key!r} "
                    f"in vLLM {catalog.version}{hint}",
                    [spec.name],
                )
            )
    return findings
