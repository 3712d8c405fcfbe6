"""Reading a rule pack: its structure checked, each fault naming the rule (or the pack's part) and the field.

A pack is YAML (or an already-loaded mapping): ``rules`` (each with the fields of ``RULE_FIELDS``), the
per-release ``defaults`` of ``effective`` and the ``derived`` values (see ``vllmcheck/rulepacks/README.md``).
Nothing here compiles CEL (``compile``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.version import Version

from ..lazy import lazy_module
from ..types import CATEGORIES, KINDS, SEVERITIES, RuleCompileError

yaml = lazy_module("yaml")  # a pack read from YAML imports it; one from the linter's cache does not

# A rule's fields, in the order the pack, the Rule model, the API and the rule-set editor list them: the one
# definition they are all driven from (besides the rule's ``id``).
RULE_FIELDS: tuple[str, ...] = (
    "title",
    "category",
    "severity",
    "message",
    "message_template",
    "when",
    "versions",
    "kinds",
    "fields",
    "needs",
    "solutions",
    "tips",
    "tags",
    "example_fix",
    "docs",
    "source",
    "error_class",
    "fix",
    "enabled",
)
LIST_FIELDS: tuple[str, ...] = ("kinds", "fields", "needs", "solutions", "tips", "tags")  # lists of strings
RULE_KEYS = {"id", *RULE_FIELDS}
REQUIRED_RULE_KEYS = ("id", "category", "severity", "message", "when")
PACK_KEYS = {"pack", "description", "defaults", "derived", "rules"}


class PackError(RuleCompileError):
    """The pack's structure is wrong (as opposed to a CEL syntax error)."""


def load_pack(source: Path | str | Mapping[str, Any]) -> dict[str, Any]:
    """Read a pack (a path, YAML text or an already-loaded mapping) and check its structure."""
    if isinstance(source, Mapping):
        data: Any = dict(source)
    else:
        text = source.read_text() if isinstance(source, Path) else source
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark else "pack"
            raise PackError("<pack>", where, str(exc)) from exc
    if not isinstance(data, dict):
        raise PackError("<pack>", "top level", "a rule pack must be a mapping with a 'rules' list")
    unknown = set(data) - PACK_KEYS
    if unknown:
        raise PackError("<pack>", "top level", f"unknown keys: {', '.join(sorted(unknown))}")
    rules = data.get("rules") or []
    if not isinstance(rules, list):
        raise PackError("<pack>", "rules", "must be a list")
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        check_rule(rule, index=index)
        if rule["id"] in seen:
            raise PackError(rule["id"], "id", "duplicate rule id")
        seen.add(rule["id"])
    for index, derived in enumerate(data.get("derived") or []):
        _check_derived(derived, index)
    for index, block in enumerate(data.get("defaults") or []):
        if not isinstance(block, dict) or not isinstance(block.get("values"), dict):
            raise PackError("<pack>", f"defaults[{index}]", "needs 'versions' and a 'values' mapping")
        _specifier("<pack>", f"defaults[{index}].versions", block.get("versions"))
    return data


def check_rule(rule: Any, *, index: int | None = None) -> None:
    """Structural checks of one rule, each naming the rule and the field at fault."""
    label = f"rules[{index}]" if index is not None else "<rule>"
    if not isinstance(rule, dict):
        raise PackError(label, "rule", "each rule must be a mapping")
    rule_id = str(rule.get("id") or label)
    for key in REQUIRED_RULE_KEYS:
        if rule.get(key) in (None, ""):
            raise PackError(rule_id, key, "is required")
    unknown = set(rule) - RULE_KEYS
    if unknown:
        raise PackError(rule_id, "rule", f"unknown keys: {', '.join(sorted(unknown))}")
    if rule["category"] not in CATEGORIES:
        raise PackError(rule_id, "category", f"must be one of {', '.join(CATEGORIES)}")
    if rule["severity"] not in SEVERITIES:
        raise PackError(rule_id, "severity", f"must be one of {', '.join(SEVERITIES)}")
    kinds = rule.get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or not set(kinds) <= set(KINDS)):
        raise PackError(rule_id, "kinds", f"must be a list of {', '.join(KINDS)}")
    template = rule.get("message_template")
    if template is not None and not isinstance(template, str):
        raise PackError(rule_id, "message_template", "must be a string")
    for key in LIST_FIELDS:
        if key == "kinds":
            continue
        value = rule.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise PackError(rule_id, key, "must be a list of strings")
    fix = rule.get("fix")
    if fix is not None and (not isinstance(fix, dict) or not set(fix) <= {"set", "unset"}):
        raise PackError(rule_id, "fix", "must be a mapping with 'set' and/or 'unset'")
    _specifier(rule_id, "versions", rule.get("versions"))


def _check_derived(derived: Any, index: int) -> None:
    if not isinstance(derived, dict) or not derived.get("name"):
        raise PackError(f"derived[{index}]", "name", "is required")
    variants = derived.get("variants")
    if not isinstance(variants, list) or not variants:
        raise PackError(derived["name"], "variants", "must be a non-empty list of {versions, expr}")
    for i, variant in enumerate(variants):
        if not isinstance(variant, dict) or not variant.get("expr"):
            raise PackError(derived["name"], f"variants[{i}].expr", "is required")
        _specifier(derived["name"], f"variants[{i}].versions", variant.get("versions"))


class Versions:
    """A release range (a PEP 440 specifier set), checked when the pack is compiled and parsed again only
    when a release plan first asks: a rule set loaded by the linter plans from its cache without it."""

    __slots__ = ("text", "_set")

    def __init__(self, text: str, parsed: Any = None):
        self.text = text
        self._set = parsed

    def __reduce__(self) -> tuple[type[Versions], tuple[str]]:
        return Versions, (self.text,)

    def __str__(self) -> str:
        return self.text

    def contains(self, version: Version, prereleases: bool = True) -> bool:
        if self._set is None:
            from packaging.specifiers import SpecifierSet

            self._set = SpecifierSet(self.text)
        return self._set.contains(version, prereleases=prereleases)


def _specifier(owner: str, field_name: str, value: Any) -> Versions:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = str(value or "")
    try:
        return Versions(text, SpecifierSet(text))
    except InvalidSpecifier as exc:
        raise PackError(owner, field_name, f"not a PEP 440 version specifier: {value!r}") from exc
