"""Example data shared by the tests and the benchmarks.

``EAGER_RULE`` is an organisation's own policy rule, as the API (``POST /api/v1/rulesets/{id}/rules/``) and
``rule_save`` take it: serving profiles must not disable CUDA graphs.
"""

from __future__ import annotations

import json

EAGER_RULE = {
    "id": "org-no-enforce-eager",
    "category": "policy",
    "severity": "error",
    "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
    "when": "has(args.enforce_eager) && args.enforce_eager == true",
    "kinds": ["serving"],
    "fields": ["enforce_eager"],
    "solutions": ["Remove --enforce-eager", "Or use a collection profile"],
    "fix": {"unset": ["enforce_eager"]},
}


def rule_form_data(rule: dict) -> dict:
    """The rule as the rule editor's HTML form posts it: solutions one a line, fields comma-separated, the
    fix as JSON text, ``enabled`` a ticked checkbox."""
    return {
        **rule,
        "solutions": "\n".join(rule.get("solutions", ())),
        "fields": ", ".join(rule.get("fields", ())),
        "fix": json.dumps(rule["fix"]) if rule.get("fix") else "",
        "enabled": "on",
    }
