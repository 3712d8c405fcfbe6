"""A profile's document, its validation, and recording its verdict and history.

Every save (``profiles.services``), re-check batch and preview builds the document and validates it here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .. import modelhub
from ..engine import lint as engine_lint
from ..engine.types import EngineError, Finding, Verdict
from ..errors import DomainError
from ..models import RuleSet, VerdictChange, VerdictRule, VllmRelease
from ..models import Verdict as VerdictRecord
from ..selectors import CatalogHistory, catalog_for, fleet_release, ruleset_compiled, ruleset_current

# What the engine reads of a profile: its document is built from these fields and its release.
DOCUMENT_FIELDS = (
    "kind",
    "model_name",
    "model_architecture",
    "model_config",
    "engine_args",
    "env",
    "hardware",
)


def effective_release(profile) -> VllmRelease:
    """The release a profile targets: its own, or the fleet's default when it follows the fleet."""
    return profile.vllm_release or fleet_release()


def _stored(row) -> modelhub.Stored | None:
    return modelhub.Stored(row.repo, row.revision, row.config, row.error) if row is not None else None


def profile_model_facts(profile) -> modelhub.ModelFacts:
    """The profile's model facts: its own config.json if it has one, else what the hub stored for its model
    and draft model (``model_source``, ``draft_source``); never the network."""
    return modelhub.model_facts(
        profile.model_name,
        profile.engine_args,
        explicit_config=profile.model_config,
        stored={"model": _stored(profile.model_source), "draft": _stored(profile.draft_source)},
    )


def profile_hardware(profile) -> dict[str, Any]:
    """The node type's facts (the profile's, else the team's default), then the profile's hardware keys."""
    node = profile.node_type
    if node is None and profile.team_id:
        node = profile.team.default_node_type
    return {**(node.facts() if node else {}), **(profile.hardware or {})}


def profile_document(profile, *, release: VllmRelease | None = None) -> dict[str, Any]:
    """The engine's document of a profile (saved or not) on ``release`` (default: its effective release)."""
    release = release or effective_release(profile)
    facts = profile_model_facts(profile)
    doc = engine_lint.build_document(
        kind=profile.kind,
        version=release.version,
        model_name=profile.model_name,
        args=profile.engine_args,
        env=profile.env,
        hardware=profile_hardware(profile),
        model_architecture=profile.model_architecture or None,
        model_config=facts.config,
    )
    if facts.draft:
        doc["model"]["draft"] = facts.draft
    return doc


def document_validate(
    doc: Mapping[str, Any],
    *,
    release: VllmRelease,
    ruleset: RuleSet | None = None,
    waived: Iterable[str] = (),
) -> Verdict:
    ruleset = ruleset or ruleset_current()
    try:
        return engine_lint.validate(
            doc,
            ruleset=ruleset_compiled(ruleset),
            catalog=catalog_for(release),
            history=CatalogHistory(),
            waived=waived,
        )
    except EngineError as exc:
        raise DomainError(str(exc)) from exc


def profile_check(profile, *, waived=(), fleet=None, ruleset=None) -> tuple[Verdict, VllmRelease]:
    """Validate a profile as it stands. Re-check batches pass ``fleet`` and ``ruleset`` looked up once."""
    release = profile.vllm_release or fleet or fleet_release()
    verdict = document_validate(
        profile_document(profile, release=release), release=release, ruleset=ruleset, waived=waived
    )
    notes = modelhub.unresolved_findings(profile_model_facts(profile))
    if notes:
        verdict = Verdict(verdict.vllm_version, verdict.ruleset, (*verdict.findings, *notes))
    return verdict, release


def verdict_record(
    *,
    profile,
    verdict: Verdict,
    release: VllmRelease,
    ruleset_number: int | None,
    cause: str,
    cause_detail: str = "",
    actor=None,
    recheck=None,
) -> VerdictChange | None:
    """Store a profile's current verdict; record a history entry if its state or findings changed."""
    ruleset = RuleSet.objects.filter(number=ruleset_number).first() if ruleset_number else None
    active = [f for f in verdict.findings if f.is_active]
    new_ids = sorted({f.rule for f in active})
    previous = VerdictRecord.objects.filter(profile=profile).first()
    old_state = previous.state if previous else ""
    old_findings = {(f["rule"], f["message"]): f for f in (previous.findings if previous else [])}
    new_findings = {(f.rule, f.message): f.as_dict() for f in active}
    values = {
        "state": verdict.state,
        "error_count": sum(1 for f in active if f.severity == "error"),
        "warning_count": sum(1 for f in active if f.severity == "warning"),
        "findings": [f.as_dict() for f in verdict.findings],
        "rule_ids": new_ids,
        "ruleset": ruleset,
        "release": release,
        "release_catalog_sha256": release.catalog_sha256,
        "profile_revision": profile.revision,
    }
    VerdictRecord.objects.update_or_create(profile=profile, defaults=values)
    if previous is None or sorted(previous.rule_ids) != new_ids:
        VerdictRule.objects.filter(profile=profile).exclude(rule_id__in=new_ids).delete()
        VerdictRule.objects.bulk_create(
            [VerdictRule(profile=profile, rule_id=rule_id) for rule_id in new_ids], ignore_conflicts=True
        )
    summary = {k: values[k] for k in ("state", "error_count", "warning_count")}
    type(profile).objects.filter(pk=profile.pk).update(**summary)
    for name, value in summary.items():
        setattr(profile, name, value)
    old_active = {k: v for k, v in old_findings.items() if Finding.active_in(v)}
    appeared = [v for k, v in new_findings.items() if k not in old_active]
    disappeared = [v for k, v in old_active.items() if k not in new_findings]
    if previous is not None and old_state == verdict.state and not appeared and not disappeared:
        return None
    return VerdictChange.objects.create(
        profile=profile,
        from_state=old_state,
        to_state=verdict.state,
        cause=cause,
        cause_detail=cause_detail,
        ruleset=ruleset,
        release=release,
        profile_revision=profile.revision,
        appeared=appeared,
        disappeared=disappeared,
        recheck=recheck,
        actor=actor,
    )
