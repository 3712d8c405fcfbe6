"""Rules as data: load a rule pack, compile its CEL once, plan each release, evaluate profile documents.

A rule's ``when`` is a CEL expression over the profile document (see ``vllmcheck/rulepacks/README.md``);
true means the rule fires. CEL is evaluated by the ``cel`` library (common-expression-language); nothing
from a pack is ever run as Python.

The modules, each built on the ones before it:

- ``load``: a pack read and its structure checked (``load_pack``, ``check_rule``, ``PackError``);
- ``conditions``: what a condition says from its text (the release's constants written in, its ``has()``
  guards, its conjuncts);
- ``compile``: each rule's and derived value's CEL compiled within CEL's cost budget, what each rule reads,
  a release's derived values written into its rules;
- ``context``: the CEL variables a rule sees for a profile;
- ``plan``: what one release needs, computed once and reused per profile (``_ReleasePlan``);
- ``evaluate``: the compiled rule set (``compile_ruleset``, ``CompiledRuleSet``) and a profile's findings.
"""

from .compile import (
    DERIVED_REF,
    MAX_CEL_CHARS,
    MAX_COMPREHENSION_DEPTH,
    NAMESPACES,
    CompiledDerived,
    CompiledRule,
    calls_extension,
    check_cost,
    compile_expression,
    compile_message_template,
    expand_derived,
    referenced_effective_keys,
    referenced_keys,
)
from .conditions import conjuncts, required_keys, specialise
from .context import build_context
from .evaluate import CompiledRuleSet, compile_ruleset
from .load import (
    LIST_FIELDS,
    PACK_KEYS,
    REQUIRED_RULE_KEYS,
    RULE_FIELDS,
    RULE_KEYS,
    PackError,
    Versions,
    check_rule,
    load_pack,
)
from .plan import Ranked

__all__ = [
    "DERIVED_REF",
    "LIST_FIELDS",
    "MAX_CEL_CHARS",
    "MAX_COMPREHENSION_DEPTH",
    "NAMESPACES",
    "PACK_KEYS",
    "REQUIRED_RULE_KEYS",
    "RULE_FIELDS",
    "RULE_KEYS",
    "CompiledDerived",
    "CompiledRule",
    "CompiledRuleSet",
    "PackError",
    "Ranked",
    "Versions",
    "build_context",
    "calls_extension",
    "check_cost",
    "check_rule",
    "compile_expression",
    "compile_message_template",
    "compile_ruleset",
    "conjuncts",
    "expand_derived",
    "load_pack",
    "referenced_effective_keys",
    "referenced_keys",
    "required_keys",
    "specialise",
]
