"""Propose the rule pack's ORDER (tools/rulepack/specs/__init__.py) from vLLM's own first errors.

vLLM stops at the first problem it meets; the product reports every problem, in the rule pack's order, so its
first error must be the one vLLM names. The pair cases (make_pairs.py: two refused mistakes in one command
line) and every other recorded refusal give, for each case where vLLM's message is one of the product's
error findings (rule A), "A comes before every other error rule the product found for that case". This script
collects those constraints from vllm_verdicts/<release>.json and the product's answers cached by run.py
(`$VLLM_CONF_DIR/product-verdicts-<release>.json`: run `run.py --reuse-vllm` first), and writes a rule order
that keeps the current one wherever no constraint says otherwise (a topological sort that always takes the
earliest rule of the current pack among those free to go next). Where the releases disagree (vLLM moved a
check), the constraints form a cycle; it is broken at the rule with the fewest cases against it, and the
constraints left unmet are printed.

usage: .venv/bin/python benchmarks/conformance/order_from_pairs.py [--write]
       (--write replaces ORDER in tools/rulepack/specs/__init__.py; then run `python -m tools.rulepack.build`)
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import run  # noqa: E402  (the harness's comparison: the same message matching as its agreement table)

sys.path.insert(0, REPO)
from vllmcheck.engine.checks import CONFIG_STAGE_JSON  # noqa: E402  (plain Python, no Django)

SPECS = os.path.join(REPO, "tools", "rulepack", "specs", "__init__.py")
STARTUP = os.path.join(REPO, "vllmcheck", "engine", "startup_order.py")
PACK = os.path.join(REPO, "vllmcheck", "rulepacks", "builtin.yaml")


def _catalog_keys(release: str) -> list[tuple[str, re.Pattern]]:
    """The release's start-up value checks (its catalog's ``value_checks``): (key, message as a regex)."""
    path = os.path.join(REPO, "vllmcheck", "catalogs", f"{release}.json")
    if not os.path.exists(path):
        return []
    out = []
    for check in run.read_json(path).get("value_checks") or []:
        text = check.get("message")
        if not text:
            continue
        pieces = re.split(r"\{value(?:!r)?\}", text)
        key = check["argument"] + (f".{check['key']}" if check.get("key") else "")
        out.append((key, re.compile(".+?".join(re.escape(p) for p in pieces), re.S)))
    return out


def node(finding: dict, checks: list[tuple[str, re.Pattern]]) -> str | None:
    """A finding's place in the order: its rule, or ``catalog:KEY`` for a start-up value check the catalog
    reported (vllmcheck.engine.checks.startup_check's key); None for the command line's own checks."""
    if finding.get("category") != "catalog":
        return finding.get("rule")
    rule = finding.get("rule")
    if rule not in ("catalog-invalid-value", "catalog-invalid-config-value", "catalog-unknown-config-key"):
        return None
    message, name = finding.get("message") or "", (finding.get("fields") or [""])[0]
    if finding.get("rule") == "catalog-invalid-value" and re.fullmatch(
        rf"{re.escape(name)}\.[^:]+: Input should be a valid dictionary", message
    ):
        return f"catalog:{name}"
    for key, pattern in checks:
        if key.split(".")[0] == name and pattern.fullmatch(message):
            return f"catalog:{key}"
    if rule != "catalog-invalid-value" and name in CONFIG_STAGE_JSON:
        return f"catalog:{name}"
    return None


def constraints(exclude: re.Pattern | None = None) -> collections.Counter:
    """(A, B) -> number of cases in which vLLM named A while the product also found B (A, B: rule ids, or
    ``catalog:KEY`` for a start-up value check)."""
    found: collections.Counter = collections.Counter()
    held_out = run.freeze.frozen_ids()  # the frozen hold-out sets: never learnt from
    for path in sorted(os.listdir(run.VERDICT_DIR)):
        release = path[: -len(".json")]
        cache = os.path.join(run.CONF_DIR, f"product-verdicts-{release}.json")
        if not os.path.exists(cache):
            continue
        checks = _catalog_keys(release)
        verdicts = {v["id"]: v for v in run.read_json(os.path.join(run.VERDICT_DIR, path))["verdicts"]}
        for case_id, answer in run.read_json(cache).items():
            if exclude is not None and exclude.search(case_id):
                continue
            pair = run.PAIR_ID.match(case_id)
            if case_id in held_out or (pair and held_out & set(pair.group(1).split("+"))):
                continue
            v = verdicts.get(case_id)
            if v is None or v["ok"] or not run.needs_message_match(v):
                continue
            errors = [f for f in answer.get("findings") or [] if f.get("severity") == "error"]
            text = run.vllm_text(v)
            named = next((f for f in errors if run.message_matches(text, f.get("message") or "")), None)
            first = node(named, checks) if named is not None else None
            if first is None:
                continue
            for other in errors:
                second = node(other, checks)
                if second is not None and second != first:
                    found[(first, second)] += 1
    return found


def propose(current: list[str], found: collections.Counter) -> tuple[list[str], list[tuple[str, str, int]]]:
    """``current`` with the catalog's start-up checks that the constraints name in front (their place
    today: before every rule), reordered."""
    catalog = sorted({n for pair in found for n in pair if n.startswith("catalog:")})
    current = catalog + current
    position = {rule: i for i, rule in enumerate(current)}
    weight: dict[tuple[str, str], int] = {}
    for (a, b), n in found.items():
        if a in position and b in position:
            net = n - found.get((b, a), 0)
            if net > 0:
                weight[(a, b)] = net
    before: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for (a, b), n in weight.items():
        before[b][a] = n
    left, order = set(current), []
    while left:
        free = [r for r in left if not any(p in left for p in before[r])]
        if free:
            pick = min(free, key=position.__getitem__)
        else:
            pick = min(left, key=lambda r: (sum(n for p, n in before[r].items() if p in left), position[r]))
        order.append(pick)
        left.remove(pick)
    placed = {rule: i for i, rule in enumerate(order)}
    unmet = [(a, b, n) for (a, b), n in weight.items() if placed[a] > placed[b]]
    return order, unmet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="replace ORDER in tools/rulepack/specs/__init__.py")
    ap.add_argument(
        "--exclude",
        default="^pairf-",
        help="regex of case ids left out of the learning: a held-out set to measure the order on "
        "(default: cases/pairs_final.yaml's)",
    )
    opts = ap.parse_args()
    with open(PACK) as f:
        rules = yaml.safe_load(f)["rules"]
    # catalog-category rules come with the catalog's checks, policy rules last: neither is ordered here
    current = [r["id"] for r in rules if r.get("category") not in ("policy", "catalog")]
    found = constraints(re.compile(opts.exclude) if opts.exclude else None)
    order, unmet = propose(current, found)
    rules = [n for n in order if not n.startswith("catalog:")]
    before = {}
    for i, name in enumerate(order):
        if name.startswith("catalog:"):
            after = [n for n in order[:i] if not n.startswith("catalog:")]
            if after:  # a check that some rule precedes; the others keep the catalog's place
                nxt = next((n for n in order[i + 1 :] if not n.startswith("catalog:")), "")
                before[name[len("catalog:") :]] = nxt
    placed = {rule: i for i, rule in enumerate(rules)}
    flips = sum(
        1
        for a, b in found
        if a in placed and b in placed and (current.index(a) < current.index(b)) != (placed[a] < placed[b])
    )
    print(
        f"{len(found)} constraints from vLLM's first errors; {flips} of them ordered otherwise than in the "
        f"current pack; {len(before)} start-up value checks placed among the rules"
    )
    for a, b, n in unmet:
        print(f"  unmet (the releases disagree, or a cycle): {a} before {b} ({n} case(s))")
    if opts.write:
        with open(SPECS) as f:
            text = f.read()
        start = text.index("ORDER = [")
        end = text.index("]\n", start) + 2
        body = "ORDER = [\n" + "".join(f'    "{rule}",\n' for rule in rules) + "]\n"
        with open(SPECS, "w") as f:
            f.write(text[:start] + body + text[end:])
        with open(STARTUP) as f:
            text = f.read()
        start = text.index("BEFORE: dict[str, str] = ")
        body = (
            "BEFORE: dict[str, str] = {\n"
            + "".join(f'    "{k}": "{v}",\n' for k, v in sorted(before.items()))
            + "}\n"
        )
        with open(STARTUP, "w") as f:
            f.write(text[:start] + body)
        print(
            f"ORDER written to {os.path.relpath(SPECS, REPO)}, BEFORE to {os.path.relpath(STARTUP, REPO)}: "
            "now run `python -m tools.rulepack.build`"
        )


if __name__ == "__main__":
    main()
