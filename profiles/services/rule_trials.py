"""The rule editor's "try it": a draft rule's condition run on one profile, and the reference of the profile
document a condition reads.

Both come from the engine: the condition runs through ``vllmcheck.engine.trial`` (CEL's cost budget, the CEL
library, the rule set's defaults and derived values for the profile's release); the reference walks the
document ``engine.lint.build_document`` builds, the fleet release's catalog and the rule set's derived values.
Nothing is stored.
"""

from __future__ import annotations

import json
from typing import Any

from validation.errors import DomainError
from validation.models import RuleSet, VllmRelease
from validation.selectors import catalog_for, fleet_release, ruleset_compiled
from vllmcheck.engine import lint as engine_lint
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine import trial as engine_trial
from vllmcheck.engine.rules import NAMESPACES, build_context, referenced_keys
from vllmcheck.engine.types import EngineError, ParseError, parse_version

from ..models import Profile
from .verdicts import effective_release, profile_document

KINDS = ("serving", "collection")


def _stored_document(profile_id: int) -> tuple[dict[str, Any], str, VllmRelease]:
    profile = (
        Profile.objects.select_related("team", "vllm_release", "node_type", "model_source", "draft_source")
        .filter(pk=profile_id)
        .first()
    )
    if profile is None:
        raise DomainError(f"no stored profile has id {profile_id}", field="try_profile")
    release = effective_release(profile)
    return profile_document(profile, release=release), f"{profile.team.slug}/{profile.name}", release


def _pasted_document(command: str, kind: str) -> tuple[dict[str, Any], str, VllmRelease]:
    release = fleet_release()
    try:
        parsed = engine_parse.parse_any(command, catalog=catalog_for(release))
    except ParseError as exc:
        raise DomainError(f"the pasted command does not parse: {exc}", field="try_command") from exc
    doc = engine_lint.build_document(
        kind=kind if kind in KINDS else "serving",
        version=release.version,
        model_name=(parsed.get("model") or {}).get("name"),
        args=parsed.get("args"),
        env=parsed.get("env"),
    )
    return doc, "the pasted command", release


def rule_try(
    *,
    ruleset: RuleSet,
    when: str,
    rule_id: str = "",
    message: str = "",
    message_template: str = "",
    profile_id: int | None = None,
    command: str = "",
    kind: str = "serving",
) -> dict[str, Any]:
    """Run ``when`` on a stored profile (``profile_id``) or a pasted command (on the fleet's release): the
    outcome (true, false or error), the document it read as JSON, the message it would render."""
    if profile_id:
        doc, label, release = _stored_document(profile_id)
    elif command.strip():
        doc, label, release = _pasted_document(command, kind)
    else:
        raise DomainError(
            "choose a stored profile or paste a command to try the condition on", field="try_profile"
        )
    try:
        trial = engine_trial.try_condition(
            when,
            doc,
            ruleset=ruleset_compiled(ruleset),
            catalog=catalog_for(release),
            rule_id=rule_id or "<rule>",
            message=message,
            message_template=message_template,
        )
    except EngineError as exc:
        raise DomainError(str(exc)) from exc
    return {
        "trial": trial,
        "subject": label,
        "release": release.version,
        "document_json": json.dumps(trial.document, indent=2, ensure_ascii=False, default=str),
        "derived_json": json.dumps(trial.derived, indent=2, ensure_ascii=False, default=str)
        if trial.derived
        else "",
    }


ROOT_NOTES = {
    "kind": 'The profile\'s kind: "serving" or "collection".',
    "vllm": "The release the profile is checked on: its version string and its numbers.",
    "model": "The model: its name, architecture and config.json (model.config) when known; an unknown fact "
    "is absent, and reading it makes the rule say it could not verify.",
    "args": "The arguments the profile sets, by their Python name (--max-num-seqs is args.max_num_seqs); "
    "an argument it does not set is absent: test it with has(args.NAME).",
    "effective": "Every argument of the release, the profile's value or else the release's default (null "
    "when vLLM resolves it at start-up).",
    "env": "The environment variables the profile sets, as strings.",
    "hardware": "The node's facts (the profile's node type, else its team's default) and the profile's own "
    "hardware keys; an unknown fact is absent.",
    "derived": "Values the rule set defines once for every rule (derived.NAME is replaced by its definition "
    "for the release).",
    "values": "The release's sets of accepted values, from its catalog.",
}


def _type_of(spec) -> str:
    if spec.type == "list" and spec.item_type:
        return f"list of {spec.item_type}"
    return spec.type + (" or null" if spec.nullable else "")


def document_reference(ruleset: RuleSet) -> dict[str, Any]:
    """What a rule's condition can read, walked from what the engine builds for a profile on the fleet's
    release: each root of the document with its keys (the catalog's arguments with their types and
    defaults, the keys of model, hardware and env the rule set reads, its derived values)."""
    release = fleet_release()
    catalog = catalog_for(release)
    compiled = ruleset_compiled(ruleset)
    sample = engine_lint.build_document(
        kind="serving", version=release.version, model_name="org/model", model_architecture="Arch"
    )
    defaults = dict(catalog.defaults) if catalog is not None else {}
    context = build_context(sample, defaults, values=catalog.values if catalog is not None else {})
    parsed = parse_version(release.version)
    definitions = compiled.derived_definitions(parsed)  # expanded: what the rules read through them
    written = {d.name: d.expr_for(parsed) for d in compiled.derived if d.expr_for(parsed) is not None}
    expressions = [*(e for rule in compiled.rules for e in rule.expressions), *definitions.values()]

    def read_by_rules(root: str) -> list[str]:
        """The keys of ``root`` the rule set names (an expression reading all of it names none)."""
        named: set[str] = set()
        for expr in expressions:
            named |= referenced_keys([expr], root) or set()
        return sorted(named)

    specs = sorted(catalog.by_name.values(), key=lambda s: s.name) if catalog is not None else []
    entries: dict[str, list[dict[str, str]]] = {
        "kind": [{"path": "kind", "type": "string", "note": "serving | collection"}],
        "vllm": [
            {"path": f"vllm.{k}", "type": type(v).__name__.replace("str", "string"), "note": repr(v)}
            for k, v in context["vllm"].items()
        ],
        "model": [
            {"path": "model.name", "type": "string", "note": "the model's name or path"},
            {"path": "model.architecture", "type": "string", "note": "e.g. LlamaForCausalLM"},
            *(
                {"path": f"model.config.{k}", "type": "config.json", "note": "read by the rule set"}
                for k in read_by_rules("model.config")
            ),
        ],
        "args": [{"path": f"args.{s.name}", "type": _type_of(s), "note": s.long_flag} for s in specs],
        "effective": [
            {
                "path": f"effective.{s.name}",
                "type": _type_of(s),
                "note": "resolved at start-up"
                if s.default_resolved_at_startup
                else f"default {json.dumps(defaults.get(s.name), default=str)}",
            }
            for s in specs
        ],
        "env": [
            {"path": f"env.{k}", "type": "string", "note": "read by the rule set"}
            for k in read_by_rules("env")
        ],
        "hardware": [
            {"path": f"hardware.{k}", "type": "", "note": "read by the rule set"}
            for k in read_by_rules("hardware")
        ],
        "derived": [
            {"path": f"derived.{name}", "type": "CEL", "note": expr, "long": len(expr) > 160}
            for name, expr in sorted(written.items())
        ],
        "values": [
            {
                "path": f"values.{k}",
                "type": "list",
                "note": ", ".join(map(str, v[:8])) + (" …" if len(v) > 8 else ""),
            }
            for k, v in sorted((catalog.values if catalog is not None else {}).items())
        ],
    }
    roots = [*context, *(r for r in ("derived",) if r not in context)]
    return {
        "release": release.version,
        "ruleset": ruleset,
        "sections": [
            {"root": root, "note": ROOT_NOTES.get(root, ""), "entries": entries.get(root, [])}
            for root in roots
        ],
        "namespaces": NAMESPACES,
    }
