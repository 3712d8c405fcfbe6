"""Rule coverage of one release: which raise-sites of its config code a rule set checks.

A raise-site is an entry of the catalog's ``errors`` (message, class, file, line): a ``raise`` or an
``assert`` with a message (``kind``), indexed alike and counted apart. A rule covers it when the
rule applies to the release (its ``versions`` specifier contains it) and its message matches the raise-site's
after normalising whitespace, where a placeholder ``{...}`` (an f-string field as vLLM's source has it) on
either side matches any text. A site is also covered when it is the site of one of the catalog's own value
checks (``value_checks``: an argument, or a key of its JSON config, compared against a value set the catalog
extracted from the wheel, e.g. ``Unknown quantization method``): the product refuses such a value with that
message itself, so the site is listed with ``catalog:<argument>[.<key>]`` in place of a rule id. Rules of
category ``vllm`` that claim the release but match no raise-site are
reported as stale: their text is not in that release's config code (gone, or a check vLLM runs elsewhere,
which ``outside_config_code`` tells from the rule's source link). A rule whose ``error_class`` is
``pydantic:<type>`` reports pydantic's error for a config field's bound (a value vLLM derives out of range),
which is no raise-site: it neither covers a site nor is stale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from .catalog import Catalog

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def normalise(message: str) -> str:
    """Whitespace runs become one space; so do escaped ``\\n`` / ``\\t`` left over from source text."""
    text = (message or "").replace("\\n", " ").replace("\\t", " ")
    return " ".join(text.split())


@lru_cache(maxsize=4096)
def _pattern(message: str) -> re.Pattern[str]:
    """A regex for a normalised message whose ``{...}`` placeholders match anything."""
    parts = _PLACEHOLDER.split(message)
    return re.compile(".*?".join(re.escape(p) for p in parts), re.S)


def messages_match(rule_message: str, error_message: str) -> bool:
    a, b = normalise(rule_message), normalise(error_message)
    if a == b:
        return True
    return bool(_pattern(b).fullmatch(a) or _pattern(a).fullmatch(b))


def rule_applies(rule: Mapping[str, Any], version: str) -> bool:
    spec = (rule.get("versions") or "").strip()
    if not spec:
        return True
    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except InvalidSpecifier:
        return False


def _site(error: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "message": error.get("message", ""),
        "class": error.get("class"),
        "kind": error.get("kind") or "raise",
        "file": error.get("file"),
        "line": error.get("line"),
        "where": error.get("where"),
    }


def _value_check_sites(catalog: Catalog) -> dict[tuple[Any, Any], list[str]]:
    """(file, line) of each raise-site the catalog's value checks reproduce -> ``catalog:<argument>[.<key>]``.
    Only checks whose value set the catalog holds count: the engine skips the others
    (``Catalog.checks_by_target``)."""
    sites: dict[tuple[Any, Any], list[str]] = {}
    for check in catalog.checks_by_target.values():
        site = check.get("site") or {}
        if site.get("file") and site.get("line"):
            name = check["argument"] + (f".{check['key']}" if check.get("key") else "")
            sites.setdefault((site["file"], site["line"]), []).append(f"catalog:{name}")
    return sites


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def rule_coverage(catalog: Catalog, rules: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Covered and uncovered raise-sites of ``catalog``'s release, and stale rules (JSON-ready).

    ``rules`` are rule dicts as in a rule pack (``id``, ``category``, ``message``, ``versions``, ``enabled``).
    """
    claiming = [
        r
        for r in rules
        if r.get("category", "vllm") == "vllm"
        and r.get("enabled", True)
        and not str(r.get("error_class") or "").startswith("pydantic:")
        and rule_applies(r, catalog.version)
    ]
    covered: list[dict[str, Any]] = []
    uncovered: list[dict[str, Any]] = []
    matched_rules: set[str] = set()
    checked_sites = _value_check_sites(catalog)
    for error in catalog.errors:
        ids = [
            str(r.get("id"))
            for r in claiming
            if messages_match(r.get("message", ""), error.get("message", ""))
        ]
        ids += checked_sites.get((error.get("file"), error.get("line")), [])
        entry = _site(error)
        if ids:
            entry["rules"] = ids
            covered.append(entry)
            matched_rules.update(ids)
        else:
            uncovered.append(entry)
    stale = [
        {
            "id": r.get("id"),
            "message": r.get("message", ""),
            "versions": r.get("versions") or "",
            "source": r.get("source") or None,
            # A check vLLM runs outside its config code (the CLI, the engine) has no raise-site here.
            "outside_config_code": bool(r.get("source")) and "/vllm/config/" not in str(r.get("source")),
        }
        for r in claiming
        if str(r.get("id")) not in matched_rules
    ]
    total = len(catalog.errors)
    distinct = {normalise(e.get("message", "")) for e in catalog.errors}
    distinct_covered = {normalise(e["message"]) for e in covered}
    return {
        "version": catalog.version,
        "summary": {
            "raise_sites": total,
            "covered": len(covered),
            "uncovered": len(uncovered),
            "covered_percent": _percent(len(covered), total),
            "messages": len(distinct),
            "messages_covered": len(distinct_covered),
            "messages_covered_percent": _percent(len(distinct_covered), len(distinct)),
            "rules_claiming": len(claiming),
            "rules_matched": len(claiming) - len(stale),
            "rules_stale": len(stale),
            "rules_stale_percent": _percent(len(stale), len(claiming)),
            "rules_stale_outside_config_code": sum(r["outside_config_code"] for r in stale),
            "by_kind": {
                kind: {
                    "sites": sum(1 for e in (*covered, *uncovered) if e["kind"] == kind),
                    "covered": sum(1 for e in covered if e["kind"] == kind),
                }
                for kind in ("raise", "assert")
            },
        },
        "covered": covered,
        "uncovered": uncovered,
        "stale_rules": stale,
    }


def render_coverage_text(report: Mapping[str, Any], *, limit: int | None = None) -> str:
    s = report["summary"]
    lines = [
        f"vLLM {report['version']}"
        + (f", rule set {report['ruleset']}" if report.get("ruleset") is not None else "")
        + f": {s['covered']} of {s['raise_sites']} raise-sites covered ({s['covered_percent']}%), "
        f"{s['uncovered']} not covered; {s['messages_covered']} of {s['messages']} distinct messages "
        f"({s['messages_covered_percent']}%)",
        f"rules claiming the release: {s['rules_claiming']}, matched: {s['rules_matched']}, "
        f"stale: {s['rules_stale']} ({s['rules_stale_percent']}%)",
    ]
    by_kind = s.get("by_kind") or {}
    if by_kind:
        lines.append(
            "sites by kind: "
            + ", ".join(f"{k} {v['covered']} of {v['sites']} covered" for k, v in by_kind.items())
        )
    sections = (("Covered", report["covered"]), ("Not covered", report["uncovered"]))
    for title, entries in sections:
        if entries:
            lines.append(f"\n{title}:")
            for e in entries[:limit]:
                rules = f"  <- {', '.join(e['rules'])}" if e.get("rules") else ""
                kind = " [assert]" if e.get("kind") == "assert" else ""
                lines.append(f"  {e['file']}:{e['line']}{kind}  {e['message']}{rules}")
            if limit is not None and len(entries) > limit:
                lines.append(f"  ... {len(entries) - limit} more")
    if report["stale_rules"]:
        lines.append("\nStale rules (message not among the release's raise-sites):")
        for r in report["stale_rules"]:
            where = "  [checked outside vllm/config/]" if r.get("outside_config_code") else ""
            lines.append(f"  {r['id']} ({r['versions'] or 'all releases'}): {r['message']}{where}")
    return "\n".join(lines)
