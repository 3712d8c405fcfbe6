"""A profile's document, its validation, and recording its verdict and history.

Every save (``profiles.services``), re-check batch and preview builds the document and validates it here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import TextField
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from hub.models import ModelConfig, NodeType
from validation.errors import DomainError
from validation.models import RuleSet, VllmRelease
from validation.selectors import (
    CatalogHistory,
    catalog_for,
    fleet_release,
    ruleset_compiled,
    ruleset_current,
    ruleset_numbered,
)
from vllmcheck import modelhub
from vllmcheck.engine import lint as engine_lint
from vllmcheck.engine.types import EngineError, Finding, Verdict

from ..models import Profile, VerdictChange, VerdictCheck, VerdictRule
from ..models import Verdict as VerdictRecord

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


def id_array(ids: Iterable[int]) -> RawSQL | list[int]:
    """``pk__in`` of many ids: on PostgreSQL one array parameter (thousands of separate parameters cost more
    to send than the query costs to run); elsewhere (the embedded SQLite) the plain list."""
    ids = list(ids)
    if connection.vendor != "postgresql":
        return ids
    return RawSQL("SELECT unnest(%s::bigint[])", (ids,))


def effective_release(profile) -> VllmRelease:
    """The release a profile targets: its own, or the fleet's default when it follows the fleet."""
    return profile.vllm_release or fleet_release()


def _stored(row) -> modelhub.Stored | None:
    if row is None:
        return None
    return modelhub.Stored(
        row.repo,
        row.revision,
        row.config,
        row.error,
        row.files,
        row.tokens,
        row.encoder_config,
        row.tokenizer_max_length,
        row.weights(),  # the checkpoint's size, for the memory estimate
    )


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


def profile_document(
    profile, *, release: VllmRelease | None = None, facts: modelhub.ModelFacts | None = None
) -> dict[str, Any]:
    """The engine's document of a profile (saved or not) on ``release`` (default: its effective release).
    ``facts``: its model facts (:func:`profile_model_facts`) when the caller has them already."""
    release = release or effective_release(profile)
    if facts is None:
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
    return facts.add_to(doc)


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
    # Built once for the document and the notes (copying the stored config.json is most of its cost);
    # the notes read only which configs are unresolved, which validating the document does not touch.
    facts = profile_model_facts(profile)
    verdict = document_validate(
        profile_document(profile, release=release, facts=facts),
        release=release,
        ruleset=ruleset,
        waived=waived,
    )
    notes = modelhub.unresolved_findings(facts)
    if notes:
        verdict = Verdict(verdict.vllm_version, verdict.ruleset, (*verdict.findings, *notes))
    return verdict, release


def json_fields() -> set[str]:
    """The profile's JSON columns."""
    return {f.name for f in Profile._meta.fields if f.get_internal_type() == "JSONField"}


class ProfileRow(NamedTuple):
    """What fleet-wide work (previews, re-check batches) reads of a profile, without building the model."""

    pk: int
    team: str
    name: str
    release_id: int | None
    document: tuple  # DOCUMENT_FIELDS, the JSON ones as their canonical jsonb text
    state: str | None
    findings_sha256: str | None  # the stored verdict's findings_digest ("" unknown, None: no verdict)
    source_id: int | None
    draft_id: int | None
    node_id: int | None  # the profile's node type, else its team's default


class ProfileRows:
    """Profiles read as plain tuples in keyset-paginated chunks, for work over many of them.

    Fleets hold many copies of one configuration (one per team, region or replica): :meth:`key` says when two
    rows have the same effective document, so that it is evaluated once; the JSON columns are read as their
    canonical jsonb text, so equal documents compare equal unparsed. The key names the model configs and node
    type by their content, so it stays exact in a cache that outlives one query.
    """

    CHUNK = 5000  # rows per query

    def __init__(self, queryset):
        self.queryset = queryset
        self.model = Profile
        self.json_fields = json_fields()
        self.sources: dict[int, Any] = {}
        self.nodes: dict[int, Any] = {}
        self._tokens: dict[tuple[str, int], str] = {}

    def chunks(self) -> Iterator[list[ProfileRow]]:
        last = 0
        while rows := self._read(last):
            last = rows[-1].pk
            self._related(rows)
            yield rows
            if len(rows) < self.CHUNK:
                return

    def _read(self, after: int) -> list[ProfileRow]:
        values = (
            self.queryset.filter(pk__gt=after)
            .order_by("pk")
            .values_list(
                "pk",
                "team__slug",
                "name",
                "vllm_release_id",
                *(Cast(n, TextField()) if n in self.json_fields else n for n in DOCUMENT_FIELDS),
                "verdict__state",
                "verdict__findings_sha256",
                "model_source_id",
                "draft_source_id",
                Coalesce("node_type_id", "team__default_node_type_id"),
            )[: self.CHUNK]
        )
        n = len(DOCUMENT_FIELDS)
        return [ProfileRow(*v[:4], tuple(v[4 : 4 + n]), *v[4 + n :]) for v in values]

    def stored_findings(self, pks: Iterable[int]) -> dict[int, str]:
        """The stored findings (jsonb text) of the verdicts of ``pks``, for the few rows whose digest does not
        settle a comparison: the findings are most of a verdict's bytes, so the chunks leave them out."""
        pks = list(pks)
        if not pks:
            return {}
        return dict(
            VerdictRecord.objects.filter(pk__in=id_array(pks)).values_list(
                "pk", Cast("findings", TextField())
            )
        )

    def _related(self, rows: list[ProfileRow]) -> None:
        """The chunk's model configs and node types, one query each (they are few)."""
        sources = {r.source_id for r in rows} | {r.draft_id for r in rows}
        nodes = {r.node_id for r in rows}
        self.sources = ModelConfig.objects.in_bulk([i for i in sources if i])
        self.nodes = NodeType.objects.in_bulk([i for i in nodes if i])
        self._tokens = {}

    def _token(self, kind: str, pk: int | None) -> str | None:
        if pk is None:
            return None
        if (kind, pk) not in self._tokens:
            row = (self.sources if kind == "source" else self.nodes).get(pk)
            if row is None:
                content: Any = None
            elif kind == "source":
                content = [row.repo, row.revision, row.error, row.config]
            else:
                content = row.facts()
            digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
            self._tokens[kind, pk] = digest
        return self._tokens[kind, pk]

    def document_key(self, row: ProfileRow, waived: tuple[str, ...]) -> tuple:
        """Equal for two rows exactly when their verdicts on any one release with ``waived`` are equal."""
        return (
            *row.document,
            waived,
            self._token("source", row.source_id),
            self._token("source", row.draft_id),
            self._token("node", row.node_id),
        )

    def key(self, row: ProfileRow, target: VllmRelease, waived: tuple[str, ...]) -> tuple:
        """Equal for two rows exactly when their verdicts on ``target`` with ``waived`` are equal."""
        return (*self.document_key(row, waived), target.pk, target.catalog_sha256)

    def profile(self, row: ProfileRow, release: VllmRelease | None = None):
        """An unsaved profile with the row's document (enough for :func:`profile_check`)."""
        fields = zip(DOCUMENT_FIELDS, row.document, strict=True)
        return self.model(
            **{n: json.loads(v) if n in self.json_fields and v else v for n, v in fields},
            vllm_release=release,
            model_source=self.sources.get(row.source_id),
            draft_source=self.sources.get(row.draft_id),
            node_type=self.nodes.get(row.node_id),
        )


def findings_digest(findings: list[dict]) -> str:
    """The digest stored beside a verdict's findings (``Verdict.findings_sha256``): equal digests, equal
    findings; re-checks and previews compare these instead of the findings."""
    text = json.dumps(findings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def verdict_summary(verdict: Verdict) -> dict[str, Any]:
    """What a profile row keeps of its verdict: state and the counts of active errors and warnings."""
    active = [f for f in verdict.findings if f.is_active]
    return {
        "state": verdict.state,
        "error_count": sum(1 for f in active if f.severity == "error"),
        "warning_count": sum(1 for f in active if f.severity == "warning"),
    }


def _check_row(profile_id: int, *, ruleset: RuleSet | None, release: VllmRelease, at) -> VerdictCheck:
    """A verdict's narrow row as just computed against ``ruleset`` and ``release`` (no re-check mark)."""
    # Keys, not the objects: nothing reads them back from the row, and a related object set by name costs
    # Django's descriptor (its checks, the database routers, the cache) for each.
    return VerdictCheck(
        verdict_id=profile_id,
        ruleset_id=None if ruleset is None else ruleset.pk,
        release_id=release.pk,
        release_catalog_sha256=release.catalog_sha256,
        computed_at=at,
        pending_recheck=None,
    )


def checked_record(profile_id: int, *, ruleset: RuleSet | None, release: VllmRelease) -> None:
    """Record what a profile's verdict was just computed against (one statement, new or not). A re-check's
    mark is left as it is: that re-check still looks at the profile."""
    VerdictCheck.objects.bulk_create(
        [_check_row(profile_id, ruleset=ruleset, release=release, at=timezone.now())],
        update_conflicts=True,
        unique_fields=["verdict"],
        update_fields=["ruleset", "release", "release_catalog_sha256", "computed_at"],
    )


def verdict_rows_new(
    *,
    profile,
    verdict: Verdict,
    release: VllmRelease,
    cause: str,
    cause_detail: str = "",
    actor=None,
) -> list:
    """The unsaved rows that record the first verdict of a new ``profile``, for its owner to save with the
    profile (in one transaction): its check row, the verdict, its rule index and its first history entry
    (the verdict given ``profile``; the others get its key once it is saved). The same rows
    :func:`verdict_record` writes for a profile that has no verdict yet; the profile gets its summary."""
    ruleset = ruleset_numbered(verdict.ruleset) if verdict.ruleset else None
    values = _record_values(profile, verdict)
    for name, value in verdict_summary(verdict).items():
        setattr(profile, name, value)
    # The verdict is given its profile (which then holds the verdict, as a later read shows it); the other
    # rows only keys (the profile's is filled in once it is saved), as nothing reads their related objects.
    record = VerdictRecord(profile=profile, **values)
    check = _check_row(None, ruleset=ruleset, release=release, at=None)
    rules = [VerdictRule(profile_id=profile.pk, rule_id=rule_id) for rule_id in record.rule_ids]
    change = VerdictChange(
        profile_id=profile.pk,
        from_state="",
        to_state=verdict.state,
        appeared=list(_active_by_key(verdict).values()),
        disappeared=[],
        **_change_context(profile, ruleset, release, cause, cause_detail, actor, None, keys=True),
    )
    return [check, record, *rules, change]


def _record_values(profile, verdict: Verdict) -> dict[str, Any]:
    """A verdict row's values (besides its profile): summary, findings, their digest, the active rule ids."""
    findings = [f.as_dict() for f in verdict.findings]
    return {
        **verdict_summary(verdict),
        "findings": findings,
        "findings_sha256": findings_digest(findings),
        "rule_ids": sorted({f.rule for f in verdict.findings if f.is_active}),
        "profile_revision": profile.revision,
    }


def _active_by_key(verdict: Verdict) -> dict[tuple[str, str], dict]:
    """The verdict's active findings by (rule, message), as a history entry lists them."""
    return {(f.rule, f.message): f.as_dict() for f in verdict.findings if f.is_active}


def _change_context(
    profile, ruleset, release, cause, cause_detail, actor, recheck, *, keys: bool = False
) -> dict[str, Any]:
    """What a history entry records of why and against what a verdict was computed (``keys``: the related
    rows by their keys, for a row whose related objects nothing reads)."""
    related = {"ruleset": ruleset, "release": release, "recheck": recheck, "actor": actor}
    if keys:
        related = {f"{name}_id": None if row is None else row.pk for name, row in related.items()}
    return {
        "cause": cause,
        "cause_detail": cause_detail,
        **related,
        "profile_revision": profile.revision,
    }


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
    """Store a profile's current verdict; record a history entry if its state or findings changed.
    (A new profile's first verdict is inserted with the profile: :func:`verdict_rows_new`.)"""
    ruleset = ruleset_numbered(ruleset_number) if ruleset_number else None
    values = _record_values(profile, verdict)
    new_ids = values["rule_ids"]
    previous = VerdictRecord.objects.filter(profile=profile).first()
    old_state = previous.state if previous else ""
    old_findings = {(f["rule"], f["message"]): f for f in (previous.findings if previous else [])}
    new_findings = _active_by_key(verdict)
    # The narrow row first: a re-check batch holds it while it writes the verdict (one lock order).
    checked_record(profile.pk, ruleset=ruleset, release=release)
    VerdictRecord.objects.update_or_create(profile=profile, defaults=values)
    if previous is None or sorted(previous.rule_ids) != new_ids:
        VerdictRule.objects.filter(profile=profile).exclude(rule_id__in=new_ids).delete()
        if new_ids:
            VerdictRule.objects.bulk_create(
                [VerdictRule(profile=profile, rule_id=rule_id) for rule_id in new_ids], ignore_conflicts=True
            )
    summary = verdict_summary(verdict)
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
        appeared=appeared,
        disappeared=disappeared,
        **_change_context(profile, ruleset, release, cause, cause_detail, actor, recheck),
    )


def verdicts_record_recheck(items, *, recheck) -> list[VerdictChange]:
    """:func:`verdict_record` for the changed profiles of one re-check batch, in a few bulk statements.

    ``items`` are (profile, verdict, release) of profiles that have a stored verdict; the same values, rule
    index, profile summary and history entries as one :func:`verdict_record` each, and the verdicts leave the
    re-check (their :class:`VerdictCheck`'s ``pending_recheck`` cleared). Returns the history entries
    created.
    """
    if not items:
        return []
    numbers = {verdict.ruleset for _, verdict, _ in items if verdict.ruleset}
    rulesets = {r.number: r for r in RuleSet.objects.filter(number__in=numbers)}
    previous = VerdictRecord.objects.in_bulk([profile.pk for profile, _, _ in items])
    now = timezone.now()
    rows, checks, profiles, changes, reindexed, rules = [], [], [], [], [], []
    for profile, verdict, release in items:
        row = previous[profile.pk]
        ruleset = rulesets.get(verdict.ruleset)
        active = [f for f in verdict.findings if f.is_active]
        new_ids = sorted({f.rule for f in active})
        old_state = row.state
        old_active = {(f["rule"], f["message"]): f for f in row.findings if Finding.active_in(f)}
        new_findings = {(f.rule, f.message): f.as_dict() for f in active}
        if sorted(row.rule_ids) != new_ids:
            reindexed.append(profile.pk)
            rules.extend(VerdictRule(profile_id=profile.pk, rule_id=rule_id) for rule_id in new_ids)
        row.state = verdict.state
        row.error_count = sum(1 for f in active if f.severity == "error")
        row.warning_count = sum(1 for f in active if f.severity == "warning")
        row.findings = [f.as_dict() for f in verdict.findings]
        row.findings_sha256 = findings_digest(row.findings)
        row.rule_ids = new_ids
        row.profile_revision = profile.revision
        rows.append(row)
        checks.append(_check_row(profile.pk, ruleset=ruleset, release=release, at=now))
        profile.state = row.state
        profile.error_count, profile.warning_count = row.error_count, row.warning_count
        profiles.append(profile)
        appeared = [v for k, v in new_findings.items() if k not in old_active]
        disappeared = [v for k, v in old_active.items() if k not in new_findings]
        if old_state == verdict.state and not appeared and not disappeared:
            continue
        changes.append(
            VerdictChange(
                profile=profile,
                from_state=old_state,
                to_state=verdict.state,
                cause=recheck.cause,
                cause_detail=recheck.cause_detail,
                ruleset=ruleset,
                release=release,
                profile_revision=profile.revision,
                appeared=appeared,
                disappeared=disappeared,
                recheck=recheck,
            )
        )
    fields = ["state", "error_count", "warning_count", "findings", "findings_sha256", "rule_ids"]
    fields.append("profile_revision")
    VerdictRecord.objects.bulk_update(rows, fields, batch_size=200)
    checked = ["ruleset", "release", "release_catalog_sha256", "computed_at", "pending_recheck"]
    VerdictCheck.objects.bulk_update(checks, checked, batch_size=500)
    if reindexed:
        VerdictRule.objects.filter(profile_id__in=reindexed).delete()
        VerdictRule.objects.bulk_create(rules, ignore_conflicts=True)
    type(profiles[0]).objects.bulk_update(profiles, ["state", "error_count", "warning_count"], batch_size=500)
    return VerdictChange.objects.bulk_create(changes)


def profile_memory(profile) -> dict[str, Any] | None:
    """The GPU memory estimate of a profile on its node (engine/memory.py) with the bar's segments for the
    profile page, or None when the node's GPU or the model's config is not known."""
    from vllmcheck.engine import memory

    try:
        estimate = memory.estimate_document(profile_document(profile))
    except (DomainError, EngineError, VllmRelease.DoesNotExist):
        return None
    if estimate is None:
        return None
    total = max(1, estimate.total)
    kv = max(0, estimate.available)
    parts = [
        ("weights", "Weights", estimate.weights),
        ("activation", "Activations", estimate.activation + estimate.non_torch),
        ("graphs", "CUDA graphs", estimate.cudagraph),
        ("kv", "KV cache", kv),
        ("free", "Outside gpu_memory_utilization", max(0, estimate.total - estimate.requested)),
    ]
    segments, x = [], 0.0
    for css, label, size in parts:
        width = min(1000.0 - x, 1000.0 * size / total)
        if width <= 0:
            continue
        gib = round(size / memory.GiB, 2)
        segments.append({"css": css, "label": label, "gib": gib, "x": x, "width": width})
        x += width
    return {**estimate.as_dict(), "segments": segments}
