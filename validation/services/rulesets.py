"""Rule sets: versions of the rules, compiled once per version for the engine."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..engine.rules import CompiledRuleSet, compile_ruleset, load_pack
from ..models import Rule, RuleSet
from .errors import DomainError

BUILTIN_PACK = Path(__file__).resolve().parents[1] / "rulepacks" / "builtin.yaml"
_cache_lock = threading.Lock()

RULE_FIELDS = (
    "title category severity message when versions kinds fields needs solutions tips tags example_fix docs "
    "source error_class fix enabled"
).split()


def ruleset_current() -> RuleSet:
    ruleset = RuleSet.objects.filter(status=RuleSet.Status.PUBLISHED).order_by("-number").first()
    if ruleset is None:
        raise DomainError("no published rule set; run `python manage.py migrate`")
    return ruleset


def ruleset_pack(ruleset: RuleSet) -> dict[str, Any]:
    """The rule set as a pack dict (the engine's input and the YAML export)."""
    rules = []
    for rule in ruleset.rules.all().order_by("position", "id"):
        data: dict[str, Any] = {"id": rule.rule_id}
        for name in RULE_FIELDS:
            value = getattr(rule, name)
            if value not in (None, "", []) or name == "enabled":
                data[name] = value
        rules.append(data)
    return {
        "pack": f"ruleset-{ruleset.number}",
        "defaults": ruleset.defaults,
        "derived": ruleset.derived,
        "rules": rules,
    }


@transaction.atomic
def ruleset_create_from_pack(
    *, pack: Mapping[str, Any], publish: bool = False, user=None, notes: str = ""
) -> RuleSet:
    """A new rule set holding the pack's rules; published at once if asked (migrate does this)."""
    data = load_pack(pack)
    compile_ruleset(data)  # refuse a pack whose CEL does not compile, naming the rule
    number = (RuleSet.objects.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    ruleset = RuleSet.objects.create(
        number=number,
        notes=notes or str(data.get("description") or data.get("pack") or ""),
        derived=data.get("derived") or [],
        defaults=data.get("defaults") or [],
        created_by=user,
    )
    Rule.objects.bulk_create(
        Rule(ruleset=ruleset, position=i, rule_id=raw["id"], **_rule_columns(raw))
        for i, raw in enumerate(data.get("rules") or [])
    )
    if publish:
        ruleset.status = RuleSet.Status.PUBLISHED
        ruleset.published_at = timezone.now()
        ruleset.published_by = user
        ruleset.save(update_fields=["status", "published_at", "published_by"])
    return ruleset


def _rule_columns(raw: Mapping[str, Any]) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for name in RULE_FIELDS:
        value = raw.get(name)
        if name == "enabled":
            columns[name] = value is not False
        elif name in ("kinds", "fields", "needs", "solutions", "tips", "tags"):
            columns[name] = list(value or [])
        elif name == "fix":
            columns[name] = value
        else:
            columns[name] = "" if value is None else str(value).strip() if name != "when" else str(value)
    return columns


def ruleset_load_builtin() -> RuleSet | None:
    """Load the shipped pack as the first published rule set (idempotent; used by migrate)."""
    if RuleSet.objects.exists():
        return None
    return ruleset_create_from_pack(pack=load_pack(BUILTIN_PACK), publish=True, notes="built-in rule pack")


_compiled_cache: dict[int, tuple[Any, CompiledRuleSet]] = {}


def ruleset_compiled(ruleset: RuleSet) -> CompiledRuleSet:
    """Compile once per rule set version (drafts: once per edit)."""
    key = ruleset.updated_at
    cached = _compiled_cache.get(ruleset.pk)
    if cached and cached[0] == key:
        return cached[1]
    compiled = compile_ruleset(ruleset_pack(ruleset), version_id=ruleset.number)
    with _cache_lock:
        _compiled_cache[ruleset.pk] = (key, compiled)
    return compiled
