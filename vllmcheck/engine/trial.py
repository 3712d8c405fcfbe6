"""Try one rule condition on one profile document, as the rule set would evaluate it, and say why.

The rule editor's "try it": the condition is checked against CEL's cost budget, compiled and run by the same
CEL library as every rule (never as Python), on the variables the rule set hands its rules for the
document's release (the release's defaults in ``effective``, its value sets in ``values``, its ``derived``
definitions written in). The outcome says what the condition read, what it gave (true, false, or an error:
an input the profile does not give, a wrong type, a compile error) and the message it would render.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cel

from .catalog import Catalog
from .messages import EVAL_ERRORS, compile_cel
from .missing import absent, describe
from .missing import note as missing_note
from .rules import (
    DERIVED_REF,
    NAMESPACES,
    CompiledRuleSet,
    build_context,
    compile_expression,
    compile_message_template,
    expand_derived,
    referenced_keys,
)
from .types import RuleCompileError, parse_version


@dataclass
class Trial:
    """What a condition gave on one document.

    ``outcome``: "true", "false" or "error"; ``error``: why (an error outcome); ``document``: the variables
    the condition read (``effective``, ``values`` and ``model.config`` cut to the keys it names);
    ``derived``: the value of each ``derived.NAME`` it uses, on this document; ``message``: the message the
    finding would carry (its template filled in) when the condition is true.
    """

    outcome: str
    document: dict[str, Any]
    error: str | None = None
    message: str | None = None
    message_note: str | None = None
    derived: dict[str, Any] = field(default_factory=dict)
    condition: str = ""  # as it ran, derived values written in


def _plain(value: Any) -> Any:
    """A CEL value as plain JSON-able Python (CEL's maps, lists and numbers come back as Python's)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def try_condition(
    when: str,
    doc: Mapping[str, Any],
    *,
    ruleset: CompiledRuleSet,
    catalog: Catalog | None,
    rule_id: str = "<rule>",
    message: str = "",
    message_template: str = "",
) -> Trial:
    """Run ``when`` on ``doc`` as a rule of ``ruleset`` would run on the document's release."""
    when = (when or "").strip()
    version = str((doc.get("vllm") or {}).get("version") or "")
    kind = str(doc.get("kind") or "serving")
    plan = ruleset.plan(version, kind, catalog)
    definitions = ruleset.derived_definitions(parse_version(version))
    expanded = expand_derived(when, definitions)
    # An argument the condition names that the profile does not set and whose default is unknown reads as
    # null, as for the rule set's own rules.
    named = referenced_keys([expanded], "effective") or frozenset()
    defaults = {**dict.fromkeys(named), **plan.all_defaults}
    variables = build_context(doc, defaults, values=plan.values)
    # Shown: the profile's own maps in full; the release's (hundreds of defaults, value sets) and the
    # model's config.json cut to the keys the condition names (absent when it reads none of them).
    shown = {root: referenced_keys([expanded], root) for root in ("effective", "values", "model.config")}
    shown.update({root: None for root in NAMESPACES if root not in shown})
    cut = defaults if shown["effective"] is None else {k: defaults.get(k) for k in shown["effective"]}
    document = _plain(build_context(doc, cut, shown, plan.values))
    document.pop("derived", None)
    if not when:
        return Trial("error", document, error="the condition is empty")
    try:
        program = compile_expression(rule_id, "when", expanded)
    except RuleCompileError as exc:
        return Trial("error", document, error=exc.detail, condition=expanded)
    context = cel.Context(variables=variables)
    derived = _derived_values(when, definitions, context)
    try:
        result = program.execute(context)
    except KeyError as exc:
        missing = str(exc.args[0]) if exc.args else "an input"
        return Trial(
            "error",
            document,
            error=f"could not verify: the profile does not give {missing}",
            derived=derived,
            condition=expanded,
        )
    except EVAL_ERRORS as exc:
        return Trial(
            "error", document, error=f"evaluation failed: {exc}", derived=derived, condition=expanded
        )
    if result is not True and result is not False:
        return Trial(
            "error",
            document,
            error=f"the condition gave {_plain(result)!r}, not true or false",
            derived=derived,
            condition=expanded,
        )
    trial = Trial("true" if result else "false", document, derived=derived, condition=expanded)
    if result:
        trial.message, trial.message_note = _message(rule_id, message, message_template, definitions, context)
    return trial


def _derived_values(when: str, definitions: Mapping[str, str], context: cel.Context) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in dict.fromkeys(DERIVED_REF.findall(when)):
        if name not in definitions:
            values[name] = "<no definition for this release>"
            continue
        try:
            values[name] = _plain(compile_cel(definitions[name]).execute(context))
        except KeyError as exc:
            values[name] = f"not known: the profile does not give {exc.args[0] if exc.args else 'an input'}"
        except (*EVAL_ERRORS, RuntimeError) as exc:
            values[name] = f"<error: {exc}>"
    return values


def _message(
    rule_id: str, message: str, template: str, definitions: Mapping[str, str], context: cel.Context
) -> tuple[str, str | None]:
    if not (template or "").strip():
        return message.strip(), None
    try:
        compiled = compile_message_template(
            {"id": rule_id, "message_template": expand_derived(template, definitions)}
        )
    except RuleCompileError as exc:
        return message.strip(), f"the template does not compile: {exc.detail}"
    if compiled is None:
        return message.strip(), None
    text, failed = compiled.render_partial(context)
    paths = [p for e in failed for p in (absent(e.slot.paths, None) or e.slot.paths)]
    return text, missing_note(describe(paths)) if failed else None
