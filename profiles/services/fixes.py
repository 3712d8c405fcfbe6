"""A finding's solutions applied to a profile or a source: previewed (the verdict after, nothing saved) and
applied (a new revision). What each solution changes is worked out on plain dicts by vllmcheck.edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from validation.errors import DomainError
from validation.selectors import catalog_for, release_get
from vllmcheck.edits import FixOption, engine_args_apply_fix, finding_fix_options, mapping_diff
from vllmcheck.engine import render as engine_render
from vllmcheck.engine.types import Verdict

from ..models import Profile, Team
from .profiles import (
    ProfileInput,
    _active_waivers,
    _apply_input,
    profile_copy,
    profile_dry_run,
    profile_update,
)
from .verdicts import (
    effective_release,
    profile_check,
    profile_document,
)


def _finding(profile: Profile, rule_id: str) -> dict[str, Any]:
    verdict = getattr(profile, "verdict", None)
    for finding in verdict.findings if verdict else ():
        if finding.get("rule") == rule_id and finding_fix_options(finding, profile.engine_args):
            return finding
    raise DomainError(f"the profile has no finding of rule {rule_id!r} with a mechanical fix", code="no_fix")


def _chosen(options: list[FixOption], solution: int | None) -> FixOption:
    """The option a user chose (by its index), or, when none was chosen, the first that applies."""
    if solution is None:
        return next(o for o in options if o.fix)
    if not 0 <= solution < len(options):
        raise DomainError(
            f"no solution {solution}: this finding lists {len(options)} (0 to {len(options) - 1})",
            field="solution",
        )
    if options[solution].fix is None:
        raise DomainError(
            f"solution {solution} ({options[solution].text}) is not a change that can be applied for you: "
            "edit the profile",
            field="solution",
            code="no_fix",
        )
    return options[solution]


@dataclass
class FixPreview:
    rule_id: str
    fix: dict[str, Any]
    engine_args: dict[str, Any]
    diff: list[dict[str, Any]]
    verdict: Verdict
    options: list[FixOption] = field(default_factory=list)
    solution: int = 0


def profile_fix_preview(*, profile: Profile, rule_id: str, solution: int | None = None) -> FixPreview:
    """What applying one of a finding's solutions would change (``solution``: its index among the listed
    ones; None: the first that applies), and the verdict after it; nothing is saved."""
    options = finding_fix_options(_finding(profile, rule_id), profile.engine_args)
    chosen = _chosen(options, solution)
    new_args = engine_args_apply_fix(profile.engine_args, chosen.fix)
    changes: dict[str, Any] = {"engine_args": new_args}
    if chosen.fix.get("release"):
        changes["vllm_release"] = release_get(chosen.fix["release"])
    candidate = profile_copy(profile, **changes)
    verdict, _ = profile_check(candidate, waived=_active_waivers(profile))
    diff = mapping_diff(profile.engine_args, new_args)
    if "vllm_release" in changes:
        pinned = profile.vllm_release.version if profile.vllm_release else ""
        after = f"{chosen.fix['release']} (pinned: not moved with the fleet)"
        diff.append(
            {
                "key": "vllm_version",
                "change": "changed",
                "before": pinned or "follows the fleet",
                "after": after,
            }
        )
    return FixPreview(rule_id, chosen.fix, new_args, diff, verdict, options, chosen.index)


@dataclass
class SourceFix:
    """A finding's fix applied to the user's own command (or config) text, as the form shows it."""

    rule_id: str
    before: str
    after: str
    diff: list[dict[str, Any]]
    verdict: Verdict


def source_apply_fix(*, data: ProfileInput, rule_id: str, team: Team | None = None) -> SourceFix:
    """Rewrite the text a user is typing (``data.command`` or ``data.config``) with the fix of the finding
    ``rule_id`` that the dry run of that text gives: their model, environment and other arguments are kept,
    in the same form (a command line stays a command line, a config file a config file). Nothing is saved."""
    text = data.command or data.config
    if not text:
        raise DomainError("paste a command line or a config first", field="source")
    before = profile_dry_run(data=data, fetch_models=False, team=team)
    fix = next((f.fix for f in before.findings if f.rule == rule_id and f.fix and not f.waived), None)
    if fix is None:
        raise DomainError(
            f"this text has no finding of rule {rule_id!r} with a mechanical fix", code="no_fix"
        )
    profile = Profile(kind=data.kind or "serving", name=data.name or "(fix)", revision=0, team=team)
    _apply_input(profile, data, fetch_models=False)
    release = effective_release(profile)
    old_args = dict(profile.engine_args)
    new_args = engine_args_apply_fix(old_args, fix)
    profile.engine_args = new_args
    doc = profile_document(profile, release=release)
    catalog = catalog_for(release)
    if data.command:
        after = engine_render.render_command(doc, catalog=catalog)
        fixed = ProfileInput.from_mapping({**_input_values(data), "command": after})
    else:
        after = engine_render.render_yaml(doc, catalog=catalog)
        fixed = ProfileInput.from_mapping({**_input_values(data), "config": after})
    verdict = profile_dry_run(data=fixed, fetch_models=False, team=team)
    return SourceFix(rule_id, text, after, mapping_diff(old_args, new_args), verdict)


def _input_values(data: ProfileInput) -> dict[str, Any]:
    return {name: getattr(data, name) for name in data.provided if name not in ("command", "config")}


def profile_apply_fix(
    *,
    actor,
    profile: Profile,
    rule_id: str,
    solution: int | None = None,
    expected_revision: int | None = None,
) -> tuple[Profile, Verdict]:
    """Save the profile with one of a finding's solutions applied (``solution``: its index among the listed
    ones; None: the first that applies), validated and conflict-checked like any edit."""
    chosen = _chosen(finding_fix_options(_finding(profile, rule_id), profile.engine_args), solution)
    new_args = engine_args_apply_fix(profile.engine_args, chosen.fix)
    data = ProfileInput(engine_args=new_args, env=dict(profile.env), provided={"engine_args", "env"})
    if chosen.fix.get("release"):  # "upgrade to vLLM x": the profile is pinned to it, as its option says
        data.vllm_version = chosen.fix["release"]
        data.provided.add("vllm_version")
    return profile_update(actor=actor, profile=profile, data=data, expected_revision=expected_revision)
