"""Write tests/engine/rulepack_cases/<tag>.yaml (all but acceptance.yaml) from the CASES of the rule specs
(tools/rulepack/specs/): the failing and the passing profile at each end of each rule's version range, plus
the failing profile just outside it. Usage: python -m tools.rulepack.cases [DIR] (reads the built pack). The
hand-written acceptance.yaml and rendered-messages.yaml are left alone."""

import os
import sys

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tools.rulepack import specs
from tools.rulepack.profiles import LLAMA
from tools.rulepack.releases import CASES, PACK, RELEASES


def norm(p):
    if "args" not in p:
        p = {"args": p}
    out = {
        "kind": p.get("kind", "serving"),
        "model": p.get("model", LLAMA),
        "args": p["args"],
        "env": p.get("env", {}),
    }
    if p.get("hardware"):
        out["hardware"] = p["hardware"]
    return out


def in_range(rule, v):
    return Version(v) in SpecifierSet(rule.get("versions", ""))


def rule_cases(rule, bad, good):
    rid = rule["id"]
    vs = [v for v in RELEASES if in_range(rule, v)]
    picks = sorted({vs[0], vs[-1]}, key=RELEASES.index)
    cases = []
    for v in picks:
        cases.append(dict(name=f"{rid} fires on {v}", vllm=v, **norm(bad), fires=[rid]))
        cases.append(dict(name=f"{rid} passes on {v}", vllm=v, **norm(good), absent=[rid]))
    i0, i1 = RELEASES.index(vs[0]), RELEASES.index(vs[-1])
    for j in (i0 - 1, i1 + 1):
        if 0 <= j < len(RELEASES):
            cases.append(
                dict(
                    name=f"{rid} does not apply on {RELEASES[j]}", vllm=RELEASES[j], **norm(bad), absent=[rid]
                )
            )
    return cases


def case_groups(pack):
    table = specs.all_cases()
    narrowed = {r["id"]: r["narrowed"] for r in specs.all_rules() if r.get("narrowed")}
    missing = [r["id"] for r in pack["rules"] if r["id"] not in table]
    if missing:
        raise SystemExit(f"rules without CASES: {missing}")
    groups = {}
    for rule in pack["rules"]:
        bad, good = table[rule["id"]]
        grp = rule["category"] if rule["category"] == "policy" else (rule.get("tags") or ["misc"])[0]
        item = {"rule": rule["id"], "cases": rule_cases(rule, bad, good)}
        if rule["id"] in narrowed:  # the neighbours of the range raise the same text for another condition
            item = {"rule": rule["id"], "narrowed": narrowed[rule["id"]], "cases": item["cases"]}
        groups.setdefault(grp, []).append(item)
    return groups


class NoAlias(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def main(argv):
    with open(PACK) as fh:
        pack = yaml.safe_load(fh)
    groups = case_groups(pack)
    out = argv[0] if argv else str(CASES)
    os.makedirs(out, exist_ok=True)
    for g, items in groups.items():
        with open(f"{out}/{g}.yaml", "w") as fh:
            fh.write(
                "# One failing and one passing profile at each end of each rule's version range, "
                "and the failing\n"
                "# profile just outside the range. Format: see tests/engine/test_rulepack.py.\n"
            )
            yaml.dump(items, fh, Dumper=NoAlias, sort_keys=False, width=110)
    print(sum(len(i["cases"]) for g in groups.values() for i in g))


if __name__ == "__main__":
    main(sys.argv[1:])
