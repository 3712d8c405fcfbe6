"""One entry point for validating a profile document: catalog checks, then the rule set."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any

from . import memory
from .catalog import Catalog
from .checks import RULE_INVALID, catalog_index, check_catalog, startup_check
from .missing import variable_fact
from .rules import CompiledRuleSet
from .startup_order import BEFORE
from .types import SEVERITY_ORDER, Finding, Verdict, new_finding, new_verdict, parse_version
from .unknowns import unknown_reference


def build_document(
    *,
    kind: str,
    version: str | None,
    model_name: str | None,
    args: Mapping[str, Any] | None = None,
    env: Mapping[str, Any] | None = None,
    hardware: Mapping[str, Any] | None = None,
    model_architecture: str | None = None,
    model_config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The canonical profile document (docs/findings.md; without ``effective``, which rules derive)."""
    model: dict[str, Any] = {"name": model_name}
    if model_architecture:
        model["architecture"] = model_architecture
    if model_config:
        model["config"] = dict(model_config)
        archs = model_config.get("architectures")
        if not model_architecture and isinstance(archs, list) and archs:
            model["architecture"] = archs[0]
    return {
        "kind": kind,
        "vllm": {"version": version},
        "model": model,
        "args": dict(args or {}),
        "env": {str(k): str(v) for k, v in (env or {}).items()},
        "hardware": dict(hardware or {}),
    }


def validate(
    doc: Mapping[str, Any],
    *,
    ruleset: CompiledRuleSet,
    catalog: Catalog | None = None,
    history: Mapping[str, Catalog] | None = None,
    waived: Iterable[str] = (),
    plain: bool = False,
    memo: bool = True,
) -> Verdict:
    """Every finding at once (``_validate_rules``), then the GPU memory verdict (engine/memory.py) when the
    document gives the GPU and the model's config: vLLM sizes its KV cache after every config check, so its
    findings come last within their severity."""
    verdict = _validate_rules(
        doc, ruleset=ruleset, catalog=catalog, history=history, waived=waived, plain=plain, memo=memo
    )
    estimate = memory.estimate_document(doc)
    if estimate is None:
        return verdict
    waived_ids = frozenset(waived)
    extra = [
        Finding(**{**f.__dict__, "waived": True}) if f.rule in waived_ids else f
        for f in memory.findings(estimate)
    ]
    merged = list(verdict.findings)
    for finding in extra:
        rank = SEVERITY_ORDER[finding.severity]
        at = next((i for i, f in enumerate(merged) if SEVERITY_ORDER[f.severity] > rank), len(merged))
        merged.insert(at, finding)
    out = new_verdict(verdict.vllm_version, verdict.ruleset, tuple(merged))
    out.__dict__["memory"] = estimate.as_dict()
    return out


def _validate_rules(
    doc: Mapping[str, Any],
    *,
    ruleset: CompiledRuleSet,
    catalog: Catalog | None = None,
    history: Mapping[str, Catalog] | None = None,
    waived: Iterable[str] = (),
    plain: bool = False,
    memo: bool = True,
) -> Verdict:
    """Every finding at once; vLLM itself stops at the first, so the first error is the one vLLM reports.

    Within a severity, findings follow vLLM's order: the catalog's checks of the command line first (argparse
    refuses an unknown argument or a bad value before any config is built), then the rules in the order of
    the rule set (the pack lists its rules in the order vLLM runs its checks; see the rule-pack README).

    ``plain=True`` computes everything afresh (every rule on the whole document, no reused outcome): the
    reference the optimised evaluation must equal. ``memo=False`` keeps the optimised evaluation but reuses
    no outcome (for benchmarks).
    """
    waived_ids = waived if type(waived) is frozenset else frozenset(waived)
    unknown = unknown_args(doc.get("args") or {})
    if unknown:
        # `--tensor-parallel-size $TP`: the value is unknown, not wrong. The profile is checked without it,
        # and each rule that reads it says "could not verify" instead of judging the release's default.
        known = {k: v for k, v in (doc.get("args") or {}).items() if k not in unknown}
        verdict = validate(
            {**doc, "args": known},
            ruleset=ruleset,
            catalog=catalog,
            history=history,
            waived=waived_ids,
            plain=plain,
            memo=memo,
        )
        return _unverified(verdict, doc, unknown, ruleset, catalog, waived_ids)
    # The rules' findings come ranked (rules.Ranked); one sort, in vLLM's order: by severity; then the rules'
    # findings of the catalog category (by position), the catalog's checks (in the order checked), the other
    # rules' findings (by position).
    version, ranked, checked = _rules_and_checks(doc, ruleset, catalog, history, waived_ids, plain, memo)
    if checked and _checkpoint_claims_marlin(doc):
        checked = [
            f for f in checked if not (f.rule == RULE_INVALID and tuple(f.fields) == ("quantization",))
        ]
    if checked:
        # A rule and a catalog value check may quote the same refusal of vLLM: one finding (the rule's).
        said = {item[3].message for item in ranked if not item[3].waived}
        startup: list[tuple[int, Finding, str]] = []
        for order, finding in enumerate(checked):
            if finding.message in said:
                continue
            if finding.rule in waived_ids:
                finding = Finding(**{**finding.__dict__, "waived": True})
            before = BEFORE.get(startup_check(finding, catalog, doc.get("args") or {}) or "")
            if before is not None:
                startup.append((order, finding, before))
                continue
            ranked.append((SEVERITY_ORDER[finding.severity], 1, order, finding))
        if startup:
            ranked = _among_rules(ranked, startup, ruleset)
            ranked.sort(key=_RANK)  # (the rules' places in the whole rule set: one may be shared, at its end)
            return new_verdict(version or None, ruleset.version_id, tuple(map(_FINDING, ranked)))
    try:
        # (severity, order, position) tells every two findings apart (a rule gives one finding, a catalog
        # check's position is its own): the tuples sort as they are, without a key tuple made for each.
        ranked.sort()
    except TypeError:  # two alike after all: then compared by their rank alone
        ranked.sort(key=_RANK)
    return new_verdict(version or None, ruleset.version_id, tuple(map(_FINDING, ranked)))


def _rules_and_checks(doc, ruleset, catalog, history, waived_ids, plain, memo):
    """(version, the rules' ranked findings, the catalog's checks of the arguments)."""
    # The numbers of the arguments' values the rules' memo keys freeze, kept for the catalog checks' keys.
    numbers: dict[str, int] = {}
    if catalog is not None and memo and not plain:
        # The catalog's checks of the arguments made in the rules' pass over them (one pass, not two).
        checked: list[Finding] = []
        version, ranked = ruleset.findings(
            doc,
            catalog=catalog,
            waived=waived_ids,
            memo=True,
            numbers=numbers,
            checks=(catalog_index(catalog), history, checked),
        )
    else:
        version, ranked = ruleset.findings(
            doc, catalog=catalog, waived=waived_ids, plain=plain, memo=memo, numbers=numbers
        )
        checked = (
            check_catalog(
                doc.get("args") or {}, catalog, history=history, memo=memo and not plain, numbers=numbers
            )
            if catalog is not None
            else []
        )
    return version, ranked, checked


def _checkpoint_claims_marlin(doc: Mapping[str, Any]) -> bool:
    """``--quantization marlin`` for an AWQ or GPTQ checkpoint: argparse takes it, and vLLM checks the name
    against its quantization methods only after a method claimed the checkpoint (ModelConfig.
    _verify_quantization): awq_marlin / auto_awq and gptq_marlin / auto_gptq take user_quant "marlin" for
    such a checkpoint in every release 0.20.0-0.34.0 (real vLLM 0.20.0, 0.27.1 and 0.34.0 accept
    Qwen/Qwen2.5-7B-Instruct-AWQ --quantization marlin). The catalog's value check does not see the model."""
    args = doc.get("args") or {}
    if args.get("quantization") != "marlin":
        return False
    config = (doc.get("model") or {}).get("config")
    quant = config.get("quantization_config") if isinstance(config, Mapping) else None
    return isinstance(quant, Mapping) and quant.get("quant_method") in ("awq", "gptq")


_RANK = itemgetter(0, 1, 2)
_FINDING = itemgetter(3)


def _among_rules(
    ranked: list[Any], startup: list[tuple[int, Finding, str]], ruleset: CompiledRuleSet
) -> list[Any]:
    """Rank catalog findings of vLLM's start-up value checks (``checks.startup_check``) among the rules'
    findings, where vLLM makes those checks: just before the rule ``startup_order.BEFORE`` names (after
    every rule when the rule set does not have it). The rules' findings are then ranked by their place in
    the whole rule set rather than in the release's plan (the same order), so that both share one scale."""
    place = ruleset.places
    end = len(place)
    out = [item if item[1] != 2 else (item[0], 2, place.get(item[3].rule, end), item[3]) for item in ranked]
    for order, finding, before in startup:
        # before the anchor rule's findings, in the order the catalog checked them
        out.append(
            (
                SEVERITY_ORDER[finding.severity],
                2,
                place.get(before, end) - 0.75 + order / (order + 1) / 4,
                finding,
            )
        )
    return out


def unknown_args(args: Mapping[str, Any]) -> dict[str, str]:
    """The arguments whose value the text leaves open (``$TP``, ``$(nproc)``, ``<n>``), as {name: value}."""
    out: dict[str, str] = {}
    for name, value in args.items():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if unknown_reference(item):
                out[name] = item
                break
    return out


def _unverified(
    verdict: Verdict,
    doc: Mapping[str, Any],
    unknown: Mapping[str, str],
    ruleset: CompiledRuleSet,
    catalog: Catalog | None,
    waived_ids: frozenset[str],
) -> Verdict:
    """``verdict`` with the rules that read an unknown argument turned into "could not verify" findings."""
    version = parse_version(verdict.vllm_version or (doc.get("vllm") or {}).get("version"))
    kind = doc.get("kind") or "serving"
    names = set(unknown)
    model = doc.get("model") or {}
    config = model.get("config")
    present = {
        "args": set(doc.get("args") or ()),
        "env": set(doc.get("env") or ()),
        "hardware": {k for k, v in (doc.get("hardware") or {}).items() if v is not None},
        "model": {k for k, v in model.items() if v is not None},
    }
    depends: dict[str, str] = {}  # rule id -> the unknown argument it reads
    for rule in ruleset.rules:
        if kind not in rule.kinds or (version is not None and not rule.specifier.contains(version)):
            continue
        if any(root in present and key not in present[root] for root, key in rule.required) or any(
            root == "model.config" and isinstance(config, Mapping) and key not in config
            for root, key in rule.required
        ):
            continue  # a `has()` guard the profile does not meet: the rule cannot fire, whatever the value
        for root in ("args", "effective"):
            keys = rule.reads.get(root)
            hit = sorted(names & set(keys or ()))
            if hit:
                depends.setdefault(rule.id, hit[0])
    kept = [f for f in verdict.findings if f.rule not in depends]
    added = []
    for rule in ruleset.rules:
        name = depends.get(rule.id)
        if name is None:
            continue
        spec = catalog.by_name.get(name) if catalog is not None else None
        flag = spec.long_flag if spec is not None else "--" + name.replace("_", "-")
        value = unknown[name]
        why = unknown_reference(value)
        added.append(
            new_finding(
                rule=rule.id,
                severity="info",
                category=rule.category,
                message=f"could not verify: `{flag}` is `{value}`, {why}",
                fields=(name, *[f for f in rule.fields if f != name]),
                source=rule.source,
                docs=rule.docs,
                waived=rule.id in waived_ids,
                message_source=rule.message,
                message_note=f"The value of `{value}`: give the variable's value.",
                missing=(variable_fact(name, str(value)),),
            )
        )
    return new_verdict(verdict.vllm_version, verdict.ruleset, (*kept, *added))
