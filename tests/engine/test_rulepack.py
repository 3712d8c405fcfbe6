"""The built-in rule pack against its case files (tests/engine/rulepack_cases/*.yaml).

A case file is a list of ``{rule: <id or "acceptance">, cases: [...]}``. Each case is a profile document
(``vllm``, ``kind``, ``model``, ``args``, ``env``, optional ``hardware``; ``command`` is informational) plus
expectations:

- ``fires``: rules that must give an error or warning finding (not "could not verify");
- ``absent``: rules that must give no finding at all;
- ``errors`` / ``warnings`` / ``unknown``: the exact set of rules giving error / warning / info findings;
- ``messages``: texts that must each equal one finding's message.

The message of every finding a case expects (``fires``) is vLLM's text with the profile's values filled in: it
holds no ``{self.x}``-style placeholder and no value the engine could not fill.

The same files can feed the conformance harness that runs real vLLM releases.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from vllmcheck import RULE_PACK_FIRST_RELEASE
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.rules import compile_ruleset, load_pack
from vllmcheck.engine.types import Verdict

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "vllmcheck" / "rulepacks" / "builtin.yaml"
CASES = Path(__file__).resolve().parent / "rulepack_cases"
# the releases the rule pack is derived from: one per shipped catalog from RULE_PACK_FIRST_RELEASE on
RELEASES = sorted(
    (
        p.stem
        for p in (ROOT / "vllmcheck" / "catalogs").glob("*.json")
        if Version(p.stem) >= Version(RULE_PACK_FIRST_RELEASE)
    ),
    key=Version,
)


@cache
def pack() -> dict[str, Any]:
    return load_pack(PACK)


@cache
def ruleset():
    return compile_ruleset(pack(), version_id=1)


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(CASES.glob("*.yaml")):
        for group in yaml.safe_load(path.read_text()) or []:
            for case in group["cases"]:
                out.append((group["rule"], case))
    return out


def load_narrowed() -> dict[str, str]:
    """Rules whose range is narrower than their message's lifetime, with the reason (``narrowed`` of a group)."""
    out = {}
    for path in sorted(CASES.glob("*.yaml")):
        for group in yaml.safe_load(path.read_text()) or []:
            if group.get("narrowed"):
                out[group["rule"]] = group["narrowed"]
    return out


ALL_CASES = load_cases()
NARROWED = load_narrowed()


@cache
def catalog(version: str) -> Catalog | None:
    path = ROOT / "vllmcheck" / "catalogs" / f"{version}.json"
    return Catalog.load(path) if path.exists() else None


def evaluate(case: dict[str, Any], *, with_catalog: bool = False) -> Verdict:
    doc = {
        "kind": case.get("kind", "serving"),
        "vllm": {"version": str(case["vllm"])},
        "model": case.get("model") or {"name": "m"},
        "args": case.get("args") or {},
        "env": case.get("env") or {},
        "hardware": case.get("hardware") or {},
    }
    cat = catalog(str(case["vllm"])) if with_catalog else None
    assert cat is not None or not with_catalog, f"no shipped catalog vllmcheck/catalogs/{case['vllm']}.json"
    return ruleset().evaluate(doc, catalog=cat)


# a placeholder of vLLM's f-string left in a message ({self.x}, {x}, {', '.join(...)}), a template slot, or a
# value the engine could not fill
UNFILLED = re.compile(r"\{self\.|\{[A-Za-z_][\w.]*(?:![rsa])?\}|\{'|\{[A-Za-z_][\w.]*\(|\{\{|<unknown: ")


def by_severity(verdict: Verdict, severity: str) -> set[str]:
    return {f.rule for f in verdict.findings if f.severity == severity}


@pytest.mark.parametrize("with_catalog", [False, True], ids=["pack-defaults", "catalog"])
@pytest.mark.parametrize(("rule", "case"), ALL_CASES, ids=[c["name"] for _, c in ALL_CASES])
def test_case(rule: str, case: dict[str, Any], with_catalog: bool) -> None:
    """Each case holds with the pack's own defaults and with the release's argument catalog."""
    verdict = evaluate(case, with_catalog=with_catalog)
    seen = {f.rule: f for f in verdict.findings}
    report = [(f.rule, f.severity, f.message) for f in verdict.findings]
    for rid in case.get("fires", ()):
        assert rid in seen and seen[rid].severity in ("error", "warning"), report
        assert not UNFILLED.search(seen[rid].message), (rid, seen[rid].message)
    for rid in case.get("absent", ()):
        assert rid not in seen, report
    for key, severity in (("errors", "error"), ("warnings", "warning"), ("unknown", "info")):
        if key in case:
            assert by_severity(verdict, severity) == set(case[key]), report
    messages = {f.message for f in verdict.findings}
    for text in case.get("messages", ()):
        assert text in messages, report


def test_every_rule_fails_and_passes_in_its_range() -> None:
    covered: dict[str, dict[str, set[str]]] = {}
    for _, case in ALL_CASES:
        for rid in case.get("fires", ()):
            covered.setdefault(rid, {"fires": set(), "passes": set()})["fires"].add(str(case["vllm"]))
        for rid in case.get("absent", ()):
            covered.setdefault(rid, {"fires": set(), "passes": set()})["passes"].add(str(case["vllm"]))
    for rule in pack()["rules"]:
        spec = SpecifierSet(rule.get("versions", ""))
        got = covered.get(rule["id"], {"fires": set(), "passes": set()})
        in_range = [v for v in RELEASES if Version(v) in spec]
        for key in ("fires", "passes"):
            inside = {v for v in got[key] if Version(v) in spec}
            assert {in_range[0], in_range[-1]} <= inside, (rule["id"], key, sorted(inside))


def test_pack_compiles_and_ids_are_unique() -> None:
    ids = [r["id"] for r in pack()["rules"]]
    assert len(ids) == len(set(ids))
    assert len(ruleset().rules) == len(ids)
    for rule in pack()["rules"]:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9.]+)*", rule["id"]), rule["id"]
        assert rule.get("solutions"), rule["id"]
        if rule["category"] == "vllm":
            assert rule["source"].startswith("https://github.com/vllm-project/vllm/blob/"), rule["id"]
            assert rule.get("error_class"), rule["id"]


def test_every_message_with_placeholders_has_a_template() -> None:
    """vLLM formats values into these messages: the rule says which (message_template), so users read them."""
    for rule in pack()["rules"]:
        if re.search(r"\{[^{}]*\}", rule["message"]):
            assert rule.get("message_template"), rule["id"]


READABLE_CHARS = 4000  # tools/rulepack/expr.py MAX_CHARS
DERIVED_REF = re.compile(r"\bderived\.([A-Za-z_][A-Za-z0-9_]*)")


def test_no_condition_template_or_derived_value_is_too_long_to_read() -> None:
    """The rule editor shows a rule whole and a person reviews it: no condition, message template or derived
    expression of the pack is over 4,000 characters (tools/rulepack names a longer one's shared parts as
    derived values, which the engine writes back in)."""
    texts = [
        (rule["id"], key, rule[key])
        for rule in pack()["rules"]
        for key in ("when", "message_template")
        if rule.get(key)
    ]
    texts += [(value["name"], "expr", v["expr"]) for value in pack()["derived"] for v in value["variants"]]
    too_long = [(owner, key, len(text)) for owner, key, text in texts if len(text) > READABLE_CHARS]
    assert not too_long, too_long


def test_every_derived_value_read_is_defined_before_it_for_every_release_that_reads_it() -> None:
    """A derived value is written into the rules and the later derived values of each release it has a variant
    for: one read before its definition, or on a release of the rule's range without one, would leave the rule
    "could not verify" on every profile."""
    defined: dict[str, list[SpecifierSet]] = {}
    for value in pack()["derived"]:
        for variant in value["variants"]:
            assert set(DERIVED_REF.findall(variant["expr"])) <= set(defined), value["name"]
        defined[value["name"]] = [SpecifierSet(v["versions"]) for v in value["variants"]]
    for rule in pack()["rules"]:
        text = rule["when"] + (rule.get("message_template") or "")
        releases = [v for v in RELEASES if Version(v) in SpecifierSet(rule.get("versions", ""))]
        for name in set(DERIVED_REF.findall(text)):
            assert name in defined, (rule["id"], name)
            missing = [v for v in releases if not any(Version(v) in s for s in defined[name])]
            assert not missing, (rule["id"], name, missing)


def test_rules_with_the_same_message_have_disjoint_ranges() -> None:
    by_message: dict[str, list[SpecifierSet]] = {}
    for rule in pack()["rules"]:
        by_message.setdefault(rule["message"], []).append(SpecifierSet(rule.get("versions", "")))
    for message, specs in by_message.items():
        for release in RELEASES:
            assert sum(Version(release) in s for s in specs) <= 1, (message, release)


def _joined_source(path: Path) -> str:
    """The file's text with Python's implicit string concatenation joined (good enough for a search)."""
    return re.sub(r'"\s*\n\s*f?"', "", path.read_text())


# pydantic's error for a value outside a config field's bound (error class `pydantic:<type>`, indexed by
# tools/rulepack/index.py): its source is the field's declaration with that bound
PYDANTIC_BOUND = re.compile(
    r"(\w+): Input should be (greater than or equal to|greater than|less than or equal to|less than) (-?\d+)"
)
BOUND_KEYWORD = {
    "greater than or equal to": "ge",
    "greater than": "gt",
    "less than or equal to": "le",
    "less than": "lt",
}


def message_pattern(message: str) -> re.Pattern[str]:
    """Where vLLM's source holds the message, ending where vLLM's string ends (one message can be the prefix of a
    later one): as a string or f-string, or as a string followed by one concatenated value, which the rule
    writes as the f-string field it amounts to (`"... support: " + ", ".join(unsupported)` is
    `... support: {', '.join(unsupported)}`)."""
    alternatives = [re.escape(message) + "[\"']"]
    concatenated = re.fullmatch(r"([^{}]*)\{([^{}]+)\}([^{}]*)", message)
    if concatenated:
        prefix, value, suffix = concatenated.groups()
        value_in_source = re.escape(value).replace("'", "[\"']")
        # the value ends the message, or a literal follows it (`"... with: " + ", ".join(xs) + ". Disable ..."`)
        end = "\\s*\\)" if not suffix else "\\s*\\+\\s*f?[\"']" + re.escape(suffix) + "[\"']"
        alternatives.append(re.escape(prefix) + "[\"']\\s*\\+\\s*" + value_in_source + end)
    return re.compile("|".join(alternatives))


def source_pattern(rule: dict[str, Any]) -> re.Pattern[str]:
    """What the rule's source file holds in each release of its range: vLLM's message (message_pattern), or
    the declaration of a pydantic field with the bound whose error the rule reports."""
    if not rule["error_class"].startswith("pydantic:"):
        return message_pattern(rule["message"])
    bound = PYDANTIC_BOUND.fullmatch(rule["message"])
    assert bound, f"not a pydantic bound error: {rule['message']!r}"
    field, words, limit = bound.groups()
    keyword = BOUND_KEYWORD[words]
    return re.compile(
        rf"^\s+{field}\s*:[^=\n]*=\s*Field\((?:[^()]|\([^()]*\))*?\b{keyword}\s*=\s*{re.escape(limit)}\b",
        re.M,
    )


def test_message_pattern_of_a_concatenated_message() -> None:
    message = "VLLM_USE_V2_MODEL_RUNNER does not yet support: {', '.join(unsupported)}"
    pattern = message_pattern(message)
    source = 'raise ValueError(\n    "VLLM_USE_V2_MODEL_RUNNER does not yet support: "\n    + ", ".join(unsupported)\n)'
    assert pattern.search(source)
    assert pattern.search(f'raise ValueError(f"{message}")')
    assert not pattern.search(source.replace("support: ", "support it: "))
    assert not pattern.search(source.replace("unsupported)", "unsupported) + '.'"))


def test_message_pattern_of_a_value_concatenated_between_literals() -> None:
    message = "--x is not yet validated with: {', '.join(unsupported)}. Disable these features or omit --x."
    pattern = message_pattern(message)
    source = (
        'raise ValueError(\n    "--x is not yet validated with: "\n    + ", ".join(unsupported)\n'
        '    + ". Disable these features or omit --x."\n)'
    )
    assert pattern.search(source)
    assert not pattern.search(source.replace("omit --x.", "omit --y."))
    assert not pattern.search(source.replace('+ ". Disable', '+ "; Disable'))
    assert not pattern.search(source.replace("with: ", "with "))


def test_source_pattern_of_a_pydantic_bound() -> None:
    rule = {
        "error_class": "pydantic:greater_than_equal",
        "message": "max_num_seqs: Input should be greater than or equal to 1",
    }
    pattern = source_pattern(rule)
    assert pattern.search("class S:\n    max_num_seqs: int = Field(default=DEFAULT_MAX_NUM_SEQS, ge=1)\n")
    assert pattern.search(
        "class S:\n    max_num_seqs: int = Field(\n        default=f(2),\n        ge=1,\n    )\n"
    )
    assert not pattern.search("class S:\n    max_num_seqs: int = Field(default=128, ge=0)\n")
    assert not pattern.search("class S:\n    max_num_seqs: int = Field(default=128, le=1)\n")
    assert not pattern.search("class S:\n    max_num_batched_tokens: int = Field(default=128, ge=1)\n")


@pytest.mark.parametrize(
    "rule",
    [r for r in yaml.safe_load(PACK.read_text())["rules"] if r["category"] == "vllm"],
    ids=lambda r: r["id"],
)
def test_vllm_message_is_verbatim_in_exactly_its_releases(
    rule: dict[str, Any], vllm_release_sources: dict[str, Path]
) -> None:
    """Each release in the rule's range has the message (or the pydantic bound) in the linked file; the
    neighbours do not."""
    path = re.search(r"/blob/[0-9a-f]+/(\S+?)#L\d+$", rule["source"]).group(1)
    spec = SpecifierSet(rule.get("versions", ""))
    pattern = source_pattern(rule)
    files = {r: vllm_release_sources[r] / path for r in RELEASES}
    present = [r for r in RELEASES if files[r].exists() and pattern.search(_joined_source(files[r]))]
    in_range = [r for r in RELEASES if Version(r) in spec]
    assert set(in_range) <= set(present), sorted(set(in_range) - set(present))
    first, last = RELEASES.index(in_range[0]), RELEASES.index(in_range[-1])
    for neighbour in (first - 1, last + 1):
        if 0 <= neighbour < len(RELEASES) and RELEASES[neighbour] in present:
            # the same text for another condition: allowed when the rule says why, and a case shows that its
            # failing profile passes there
            assert rule["id"] in NARROWED, f"{RELEASES[neighbour]} raises the message too"
            shown = {
                str(c["vllm"]) for r, c in ALL_CASES if r == rule["id"] and rule["id"] in c.get("absent", ())
            }
            assert RELEASES[neighbour] in shown, (
                f"no case shows the rule does not apply on {RELEASES[neighbour]}"
            )
    commit = re.search(r"/blob/([0-9a-f]+)/", rule["source"]).group(1)
    version_file = (vllm_release_sources[in_range[-1]] / "vllm" / "_version.py").read_text()
    assert f"'g{commit}'" in version_file, "source must link the newest release of the range"
