"""Write cases/pairs.yaml: command lines that carry TWO mistakes vLLM refuses, to check which one it names.

vLLM stops at the first problem it meets, so a profile with two mistakes gets one message from vLLM, and the
product must give that one first (its findings are ordered as vLLM runs its checks: the rule pack's order,
see tools/rulepack/README.md). The single-mistake cases recorded in vllm_verdicts/<release>.json say which
command lines vLLM refuses after parsing, with its own message; this script joins two of them on the same
model (their environment assignments and arguments together, never the same option string twice) for each
release named below. No expected verdict is written: run.py records vLLM's, and prints, per release, in how
many of its refusals the product's first error is vLLM's message.

usage: .venv/bin/python benchmarks/conformance/make_pairs.py [--per-release 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import freeze  # noqa: E402  (the frozen hold-out sets: never joined into pairs)

RELEASES = ["0.20.0", "0.27.1", "0.34.0"]
STAGES = {"validate", "dispatch", "engine_args", "config"}
ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def split(command: str) -> tuple[list[str], str, list[str]] | None:
    """(environment assignments, model, arguments) of a `vllm serve MODEL ...` command line."""
    words = shlex.split(command)
    env = []
    while words and ENV.match(words[0]):
        env.append(words.pop(0))
    if words[:2] != ["vllm", "serve"] or len(words) < 3 or words[2].startswith("-"):
        return None
    return env, words[2], words[3:]


def options(args: list[str]) -> set[str]:
    return {a.split("=", 1)[0] for a in args if a.startswith("-")}


def single_refusals(release: str, only: re.Pattern | None = None) -> list[dict]:
    with open(os.path.join(HERE, "vllm_verdicts", f"{release}.json")) as f:
        verdicts = json.load(f)["verdicts"]
    out, held_out = [], freeze.frozen_ids()
    for v in verdicts:
        if v.get("ok") or v.get("stage") not in STAGES or v["id"].startswith("pair"):
            continue
        if v["id"] in held_out:
            continue  # a frozen set's case: measuring the product on it must stay out of sample
        if only is not None and not only.search(v["id"]):
            continue
        if str(v.get("error_class") or "").startswith("pydantic:"):
            continue  # pydantic's wording: only the decision is compared
        parts = split(v["command"])
        if parts is not None:
            out.append({**v, "parts": parts})
    return out


def pairs_for(
    release: str, count: int, rng: random.Random, avoid: set[str], only: re.Pattern | None = None
) -> list[dict]:
    singles = single_refusals(release, only)
    candidates = []
    for i, a in enumerate(singles):
        for b in singles[i + 1 :]:
            (env_a, model_a, args_a), (env_b, model_b, args_b) = a["parts"], b["parts"]
            if model_a != model_b or a["message"] == b["message"]:
                continue
            if options(args_a) & options(args_b):
                continue
            names_a = {e.split("=", 1)[0]: e for e in env_a}
            names_b = {e.split("=", 1)[0]: e for e in env_b}
            if any(names_a[k] != names_b[k] for k in names_a.keys() & names_b.keys()):
                continue
            candidates.append((a, b))
    rng.shuffle(candidates)
    cases, used = [], {}
    for a, b in candidates:
        # spread the pairs over many single cases rather than many pairs of a few
        if used.get(a["id"], 0) >= 6 or used.get(b["id"], 0) >= 6:
            continue
        if f"pair-{release}-{a['id']}+{b['id']}" in avoid:
            continue
        used[a["id"]] = used.get(a["id"], 0) + 1
        used[b["id"]] = used.get(b["id"], 0) + 1
        env = list(dict.fromkeys(a["parts"][0] + b["parts"][0]))
        words = [*env, "vllm", "serve", a["parts"][1], *a["parts"][2], *b["parts"][2]]
        cases.append(
            {
                "id": f"pair-{release}-{a['id']}+{b['id']}",
                "command": shlex.join(words),
                "releases": [release],
            }
        )
        if len(cases) >= count:
            break
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-release", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(HERE, "cases", "pairs.yaml"))
    ap.add_argument("--avoid", help="a case file whose pairs are left out (to write a second, held-out set)")
    ap.add_argument("--only", help="regex: join only the single cases whose ids match (e.g. '^m3-')")
    ap.add_argument("--releases", default=",".join(RELEASES), help="comma-separated (default: %(default)s)")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    avoid = set()
    if opts.avoid:
        with open(opts.avoid) as f:
            # any set's prefix (pair-, pairf- ...) stands for the same pair
            avoid = {
                re.sub(r"^pair[a-z]*-", "pair-", c["id"]) for c in (yaml.safe_load(f) or {}).get("cases", [])
            }
    only = re.compile(opts.only) if opts.only else None
    releases = [r.strip() for r in opts.releases.split(",") if r.strip()]
    cases = [c for rel in releases for c in pairs_for(rel, opts.per_release, rng, avoid, only)]
    head = (
        "# Generated by benchmarks/conformance/make_pairs.py (do not edit): two mistakes vLLM refuses\n"
        "# in one command line, joined from single-mistake cases recorded for the same release and model.\n"
        "# vLLM names only the first it meets; run.py prints in how many refusals the product's first\n"
        "# error is that one.\n"
    )
    with open(opts.out, "w") as f:
        f.write(head)
        yaml.safe_dump({"kind": "serving", "cases": cases}, f, sort_keys=False, width=110)
    print(f"{len(cases)} cases -> {opts.out}")


if __name__ == "__main__":
    main()
