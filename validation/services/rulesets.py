"""Rule sets: loading the built-in pack, drafts and their rules, publishing, comparing, importing records.

Reading a rule set (the current one, as a pack, compiled for the engine) is in ``validation.selectors``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import permissions
from accounts.audit import audit_record
from vllmcheck import BUILTIN_PACK
from vllmcheck.engine.rules import (
    LIST_FIELDS,
    check_rule,
    compile_expression,
    compile_message_template,
    compile_ruleset,
    load_pack,
)
from vllmcheck.engine.types import RuleCompileError

from ..errors import DomainError
from ..models import RULE_FIELDS, Rule, RuleSet
from ..recheck_port import recheck_request
from ..selectors import rule_path_issues, ruleset_current, ruleset_pack


@transaction.atomic
def ruleset_create_from_pack(
    *, pack: Mapping[str, Any], publish: bool = False, user=None, notes: str = "", require_when: bool = True
) -> RuleSet:
    """A new rule set holding the pack's rules; published at once if asked (migrate does this)."""
    data = dict(pack)
    if not require_when:  # a draft may hold rules whose condition a person has not written yet
        data["rules"] = [{**r, "when": r.get("when") or "false"} for r in data.get("rules") or []]
    data = load_pack(data)
    compile_ruleset(data)  # refuse a pack whose CEL does not compile, naming the rule
    if not require_when:
        blank = {r["id"] for r in pack.get("rules") or [] if not r.get("when")}
        data["rules"] = [{**r, "when": ""} if r["id"] in blank else r for r in data["rules"]]
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
    _audit_ruleset(user, "ruleset.publish" if publish else "ruleset.create", ruleset, None)
    return ruleset


def _ruleset_state(ruleset: RuleSet) -> dict[str, Any]:
    return {"number": ruleset.number, "status": ruleset.status, "notes": ruleset.notes}


def _audit_ruleset(actor, action: str, ruleset: RuleSet, before, after=None, **extra) -> None:
    audit_record(
        actor=actor,
        action=action,
        object_type="ruleset",
        object_id=ruleset.pk,
        object_repr=f"rule set {ruleset.number}",
        before=before,
        after={**(after or _ruleset_state(ruleset)), **extra},
    )


def _rule_state(rule: Rule | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    return {"id": rule.rule_id, **{name: getattr(rule, name) for name in RULE_FIELDS}}


def _audit_rule(actor, action: str, ruleset: RuleSet, rule_id: str, before, after) -> None:
    audit_record(
        actor=actor,
        action=action,
        object_type="rule",
        object_id=f"{ruleset.number}/{rule_id}",
        object_repr=f"{rule_id} in rule set {ruleset.number}",
        before=before,
        after=after,
    )


def _rule_columns(raw: Mapping[str, Any]) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for name in RULE_FIELDS:
        value = raw.get(name)
        if name == "enabled":
            columns[name] = value is not False
        elif name in LIST_FIELDS:
            columns[name] = list(value or [])
        elif name == "fix":
            columns[name] = value
        else:
            columns[name] = "" if value is None else str(value) if name == "when" else str(value).strip()
    return columns


def builtin_pack_digest(path: Path = BUILTIN_PACK) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@transaction.atomic
def ruleset_load_builtin(path: Path = BUILTIN_PACK) -> RuleSet | None:
    """Bring the shipped pack into the database (idempotent; run after every migrate).

    - No rule set yet: the pack becomes the first published rule set.
    - The current rule set is an earlier shipped pack, unchanged by anyone: the new pack is published in its
      place and every profile is re-checked, as after any publish. This is how a product upgrade's rules reach
      a database that already has profiles.
    - The current rule set is one people made: nothing of theirs is replaced. A draft holding the new pack,
      the current set's own rules (ids the pack does not have) and the rules they disabled waits for staff to
      review and publish it; its notes say so.
    - The pack was loaded already (same digest, published or waiting as a draft): nothing.
    """
    digest = builtin_pack_digest(path)
    current = RuleSet.objects.filter(status=RuleSet.Status.PUBLISHED).order_by("-number").first()
    if current is None and RuleSet.objects.exists():
        return None  # only drafts: someone is building the first rule set by hand
    if current is not None and current.builtin_digest == digest:
        return None
    if RuleSet.objects.filter(builtin_digest=digest).exists():
        return None  # already offered as a draft
    pack = load_pack(path)
    if current is None:
        ruleset = ruleset_create_from_pack(pack=pack, publish=True, notes="built-in rule pack")
        RuleSet.objects.filter(pk=ruleset.pk).update(builtin_digest=digest)
        return ruleset
    if current.builtin_digest:
        notes = f"built-in rule pack {digest[:12]} (product upgrade)"
        ruleset = ruleset_create_from_pack(pack=pack, notes=notes)
        RuleSet.objects.filter(pk=ruleset.pk).update(builtin_digest=digest, based_on=current)
        ruleset_publish(ruleset=ruleset)
        return RuleSet.objects.get(pk=ruleset.pk)
    ours = ruleset_pack(current)["rules"]
    shipped_ids = {r["id"] for r in pack["rules"]}
    disabled = {r["id"] for r in ours if r.get("enabled") is False and r["id"] in shipped_ids}
    merged = dict(pack)
    merged["rules"] = [{**r, "enabled": False} if r["id"] in disabled else r for r in pack["rules"]] + [
        r for r in ours if r["id"] not in shipped_ids
    ]
    own = sum(r["id"] not in shipped_ids for r in ours)
    notes = (
        f"built-in rule pack {digest[:12]} arrived with a product upgrade, merged with rule set "
        f"{current.number}: its {own} own rule(s) kept, {len(disabled)} rule(s) it "
        "disabled stay disabled. Review and publish it to take the new rules into use."
    )
    draft = ruleset_create_from_pack(pack=merged, notes=notes, require_when=False)
    RuleSet.objects.filter(pk=draft.pk).update(builtin_digest=digest, based_on=current)
    return RuleSet.objects.get(pk=draft.pk)


# --- drafts, publishing, comparing ----------------------------------------------------------------------


def _require_staff(actor) -> None:
    """Rule sets are staff's: ``actor`` None is the system itself (migrate, management commands)."""
    if actor is not None:
        permissions.require(permissions.can_manage_rulesets(actor), "only staff may change rule sets")


def _require_draft(ruleset: RuleSet) -> None:
    if ruleset.status != RuleSet.Status.DRAFT:
        raise DomainError(
            f"rule set {ruleset.number} is published and cannot change; create a draft from it",
            code="immutable",
        )


def _locked(ruleset: RuleSet, precondition: Callable[[], None] | None) -> RuleSet:
    """The rule set's row, locked until the transaction ends; then the caller's precondition (an ``If-Match``
    check) under that lock, so that the check and the write that follows are atomic."""
    locked = RuleSet.objects.select_for_update().get(pk=ruleset.pk)
    if precondition is not None:
        precondition()
    return locked


def _touch(ruleset: RuleSet) -> None:
    ruleset.updated_at = timezone.now()
    RuleSet.objects.filter(pk=ruleset.pk).update(updated_at=ruleset.updated_at)


@transaction.atomic
def ruleset_draft_create(*, actor, based_on: RuleSet | None = None, notes: str = "") -> RuleSet:
    """A new draft holding a copy of ``based_on`` (default: the current rule set)."""
    _require_staff(actor)
    source = based_on or ruleset_current()
    pack = ruleset_pack(source)
    pack["description"] = notes or f"draft based on rule set {source.number}"
    draft = ruleset_create_from_pack(pack=pack, user=actor, notes=pack["description"], require_when=False)
    draft.based_on = source
    draft.save(update_fields=["based_on"])
    return draft


def _rule_error(exc: Exception) -> DomainError:
    if isinstance(exc, RuleCompileError):
        return DomainError(f"rule {exc.rule_id!r}: {exc.field_name}: {exc.detail}", field=exc.field_name)
    return DomainError(str(exc))


@transaction.atomic
def rule_save(
    *,
    ruleset: RuleSet,
    data: Mapping[str, Any],
    actor=None,
    precondition: Callable[[], None] | None = None,
) -> Rule:
    """Add or change one rule of a draft. The rule's structure is checked and its CEL (condition and message
    template) compiled first; a path its condition reads that no release in its range knows is refused with a
    did-you-mean (paths only some of them know are warnings: ``selectors.rule_path_issues``).
    ``precondition`` (here and below): run under the rule set's row lock before anything is written."""
    _require_staff(actor)
    ruleset = _locked(ruleset, precondition)
    _require_draft(ruleset)
    raw = {k: v for k, v in data.items() if v is not None}
    existing = ruleset.rules.filter(rule_id=raw.get("id")).first()
    before = _rule_state(existing)
    if existing is not None:
        merged = {"id": existing.rule_id, **{n: getattr(existing, n) for n in RULE_FIELDS}}
        merged = {k: v for k, v in merged.items() if v not in ("", None)}
        merged.update(raw)
        raw = merged
    try:
        check_rule({**raw, "when": raw.get("when") or "false"})
        if raw.get("when"):
            compile_expression(raw["id"], "when", raw["when"])
        compile_message_template(raw)
    except RuleCompileError as exc:
        raise _rule_error(exc) from exc
    errors = [
        i for i in rule_path_issues(raw.get("when") or "", raw.get("versions") or "") if i.severity == "error"
    ]
    if errors:
        raise DomainError(f"rule {raw['id']!r}: when: " + "; ".join(i.message for i in errors), field="when")
    columns = _rule_columns(raw)
    if existing is None:
        position = (ruleset.rules.order_by("-position").values_list("position", flat=True).first() or 0) + 1
        rule = Rule.objects.create(ruleset=ruleset, rule_id=raw["id"], position=position, **columns)
    else:
        for name, value in columns.items():
            setattr(existing, name, value)
        existing.save()
        rule = existing
    _touch(ruleset)
    action = "rule.create" if before is None else "rule.update"
    _audit_rule(actor, action, ruleset, rule.rule_id, before, _rule_state(rule))
    return rule


@transaction.atomic
def rule_delete(
    *, ruleset: RuleSet, rule_id: str, actor=None, precondition: Callable[[], None] | None = None
) -> None:
    _require_staff(actor)
    ruleset = _locked(ruleset, precondition)
    _require_draft(ruleset)
    before = _rule_state(ruleset.rules.filter(rule_id=rule_id).first())
    deleted, _ = ruleset.rules.filter(rule_id=rule_id).delete()
    if not deleted:
        raise DomainError(f"rule set {ruleset.number} has no rule {rule_id!r}", field="id", code="not_found")
    _touch(ruleset)
    _audit_rule(actor, "rule.delete", ruleset, rule_id, before, None)


@transaction.atomic
def ruleset_publish(*, ruleset: RuleSet, actor=None, precondition: Callable[[], None] | None = None):
    """Make a draft current and immutable, then re-check every profile (enqueued on commit)."""
    _require_staff(actor)
    ruleset = _locked(ruleset, precondition)
    _require_draft(ruleset)
    missing = list(ruleset.rules.filter(when="", enabled=True).values_list("rule_id", flat=True))
    if missing:
        raise DomainError(
            "these rules have no condition yet; write their CEL `when` (or disable them) before publishing: "
            + ", ".join(missing),
            field="rules",
        )
    pack = ruleset_pack(ruleset)
    # Imported records that are still disabled and have no condition are carried along, never run.
    pack["rules"] = [r for r in pack["rules"] if r.get("when")]
    try:
        compile_ruleset(pack, version_id=ruleset.number)
    except Exception as exc:
        raise _rule_error(exc) from exc
    before = _ruleset_state(ruleset)
    ruleset.status = RuleSet.Status.PUBLISHED
    ruleset.published_at = timezone.now()
    ruleset.published_by = actor
    ruleset.save(update_fields=["status", "published_at", "published_by", "updated_at"])
    _audit_ruleset(actor, "ruleset.publish", ruleset, before)
    return recheck_request(cause="ruleset", ruleset=ruleset, actor=actor)


def ruleset_compare(*, old: RuleSet, new: RuleSet) -> dict[str, Any]:
    """Rules added, removed and changed (field by field) from ``old`` to ``new``."""
    before = {r["id"]: r for r in ruleset_pack(old)["rules"]}
    after = {r["id"]: r for r in ruleset_pack(new)["rules"]}
    changed = []
    for rule_id in sorted(set(before) & set(after)):
        fields = {
            name: {"from": before[rule_id].get(name), "to": after[rule_id].get(name)}
            for name in RULE_FIELDS
            if before[rule_id].get(name) != after[rule_id].get(name)
        }
        if fields:
            changed.append({"id": rule_id, "fields": fields})
    return {
        "from": old.number,
        "to": new.number,
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": changed,
    }


SEED_FIELDS = {
    "errorMessage": "message",
    "messageTemplate": "message_template",
    "documentation": "docs",
    "solutions": "solutions",
    "exampleFix": "example_fix",
    "preventionTips": "tips",
    "tags": "tags",
    "githubUrl": "source",
    "errorClass": "error_class",
}


@transaction.atomic
def ruleset_import_records(
    *, ruleset: RuleSet, text: str, actor=None, precondition: Callable[[], None] | None = None
) -> list[Rule]:
    """Error records (one JSON object a line, docs/error-records.md) become draft rules without a condition.

    The records' Python snippets (validationCode, typeGuard) are documentation for the person who writes the
    CEL condition; they are never run. Imported rules are disabled until their condition is written.
    """
    _require_staff(actor)
    ruleset = _locked(ruleset, precondition)
    _require_draft(ruleset)
    created = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DomainError(
                f"line {number}: not JSON: {exc.msg} (column {exc.colno})", field="records"
            ) from exc
        record = data.get("record", data) if isinstance(data, dict) else None
        if not isinstance(record, dict) or not record.get("errorMessage"):
            raise DomainError(f"line {number}: not an error record (no errorMessage)", field="records")
        rule_id = re.sub(
            r"[^a-z0-9-]+", "-", str(record.get("slug") or record["errorMessage"]).lower()
        ).strip("-")
        rule_id = rule_id[:120] or f"record-{number}"
        if ruleset.rules.filter(rule_id=rule_id).exists():
            raise DomainError(
                f"line {number}: rule set {ruleset.number} already has a rule {rule_id!r}", field="records"
            )
        raw: dict[str, Any] = {"id": rule_id, "category": "vllm", "when": "", "enabled": False}
        raw["severity"] = (
            record.get("severity") if record.get("severity") in ("error", "warning", "info") else "error"
        )
        for source, target in SEED_FIELDS.items():
            if record.get(source) not in (None, "", []):
                raw[target] = record[source]
        try:
            compile_message_template(raw)
        except RuleCompileError as exc:
            raise DomainError(f"line {number}: {_rule_error(exc).message}", field="records") from exc
        notes = [record.get(k) for k in ("triggerScenarios", "commonSituations") if record.get(k)]
        if notes:
            raw["docs"] = "\n\n".join([raw.get("docs", ""), *notes]).strip()
        position = (ruleset.rules.order_by("-position").values_list("position", flat=True).first() or 0) + 1
        created.append(
            Rule.objects.create(ruleset=ruleset, rule_id=rule_id, position=position, **_rule_columns(raw))
        )
    _touch(ruleset)
    _audit_ruleset(
        actor,
        "ruleset.import_records",
        ruleset,
        None,
        imported=[rule.rule_id for rule in created],
    )
    return created
