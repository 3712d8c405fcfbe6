"""CEL building blocks of the coverage rules (specs/field_checks.py, engram.py, serve_args.py, backends.py,
weight_reload.py, watermarking.py), in addition to expr.py's."""

from tools.rulepack.expr import A, R
from vllmcheck.engine.rules import RULE_KEYS


def AV(name, default):  # an argument's value, or vLLM's default when it is not set
    return f"({A(name)} ? args.{name} : {default})"


def env_true(name):  # an environment flag vLLM parses as bool(int(value))
    return f"(has(env.{name}) && int(env.{name}) != 0)"


def located(base, ranges, *args, **kw):
    """One rule per file a check lived in (each rule links one file): `ranges` is [(first, last), ...],
    oldest first; the newest keeps the base id, the others are suffixed with their first release."""
    out = []
    for rng in ranges:
        rid = base if rng == ranges[-1] else f"{base}-{rng[0]}"
        out.append(R(rid, *args, range=list(rng), **kw))
    return out


# The engine reads `message_template` once it supports it (vllmcheck.engine.rules.RULE_KEYS); until then the
# pack carries the static message alone, so the generated pack always loads.
TEMPLATES = "message_template" in RULE_KEYS


def templated(rules):
    if TEMPLATES:
        return rules
    return [{k: v for k, v in r.items() if k != "message_template"} for r in rules]
