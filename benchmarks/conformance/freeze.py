#!/usr/bin/env python
"""Freeze a hold-out case set: record what it was when no rule had been written from it.

  .venv/bin/python benchmarks/conformance/freeze.py NAME          # cases/NAME.yaml -> frozen.yaml
  .venv/bin/python benchmarks/conformance/freeze.py --check       # test_frozen_holdout.py's check

A frozen set measures the product out of sample: its command lines were recorded on real vLLM before any rule
was written for them, and no rule may be written from them afterwards. ``frozen.yaml`` keeps, per set, the
sha256 of its case file, the sha256 of its recorded verdicts per release (the set's own verdicts, cut out of
``vllm_verdicts/<release>.json`` in the case file's order, so recording other cases or re-timing vLLM does
not change them), and the commit it was frozen at. The check then fails when

- the case file or the set's recorded verdicts differ from what was frozen (a frozen set is never edited:
  write a new set instead), or
- a commit after the freeze commit that touches the rule pack (``RULE_PATHS``: the rule-pack tools, the
  built-in pack, the engine) names one of the set's case ids or its file name in its message or in a line
  it adds or removes: a rule written from the set.

Freezing requires the case file and every verdict file it needs to be committed (the hashes then name a
commit's content) and refuses a set that a rule-pack commit already names (since the case file was added):
such a set was learnt from and cannot be held out. Other tools keep a frozen set out of what they learn from:
``make_pairs.py`` does not pair its cases and ``order_from_pairs.py`` does not order rules by them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFORMANCE = Path("benchmarks") / "conformance"  # relative to the repository's root
MANIFEST = "frozen.yaml"
# What "the rule pack" is: the tools that build it and their specs, the built-in pack, the engine running it.
# The vllmcheck/ paths are where these move (issue 31); git accepts paths that do not exist (yet).
RULE_PATHS = (
    "tools/rulepack",
    "validation/rulepacks",
    "validation/engine",
    "vllmcheck/rulepacks",
    "vllmcheck/engine",
)
HEADER = """\
# Frozen hold-out case sets (benchmarks/conformance/freeze.py writes this file; do not edit it by hand).
# A frozen set was recorded on real vLLM before any rule was written for it and is never learnt from:
# run.py reports it first in RESULTS.md, apart from the sets the rules were written from, and
# tests/benchmarks/test_frozen_holdout.py fails if its case file or recorded verdicts change, or if a commit
# after `commit` that touches the rule pack names one of its case ids or its file name.
"""


class FreezeError(RuntimeError):
    """A set cannot be frozen, or the manifest cannot be read: the message says which and why."""


@dataclass(frozen=True)
class Mention:
    """A rule-pack commit that names a frozen case id or file."""

    commit: str
    subject: str
    tokens: tuple[str, ...]
    where: str  # "message", "diff" or "message and diff"

    def __str__(self) -> str:
        return f"{self.commit[:10]} {self.subject!r} names {', '.join(self.tokens)} in its {self.where}"


# --------------------------------------------------------------------------------------------------------
# The manifest and the hashes


def conformance_dir(root: Path) -> Path:
    return Path(root) / CONFORMANCE


def load_manifest(root: Path = ROOT) -> dict[str, dict]:
    """``{name: entry}`` of ``frozen.yaml`` (empty when there is none)."""
    path = conformance_dir(root) / MANIFEST
    if not path.exists():
        return {}
    doc = yaml.safe_load(path.read_text()) or {}
    sets = doc.get("sets") or {}
    if not isinstance(sets, dict):
        raise FreezeError(f"{path}: `sets` must map a set's name to its entry")
    for name, entry in sets.items():
        missing = [k for k in ("file", "sha256", "commit", "verdicts") if k not in (entry or {})]
        if missing:
            raise FreezeError(f"{path}: set {name!r} lacks {', '.join(missing)}")
    return sets


def write_manifest(root: Path, sets: dict[str, dict]) -> Path:
    path = conformance_dir(root) / MANIFEST
    body = yaml.safe_dump({"sets": sets}, sort_keys=False, allow_unicode=True, width=110)
    path.write_text(HEADER + body)
    return path


def set_cases(root: Path, file: str) -> list[dict]:
    """The cases of one case file (``cases/NAME.yaml``), each with the releases it names."""
    path = conformance_dir(root) / file
    if not path.exists():
        raise FreezeError(f"{path} does not exist")
    doc = yaml.safe_load(path.read_text()) or {}
    cases = []
    for c in doc.get("cases") or []:
        rel = c.get("releases") or c.get("release") or doc.get("releases") or doc.get("release") or []
        rel = [str(rel)] if isinstance(rel, str) else [str(r) for r in rel]
        cases.append({"id": str(c["id"]), "releases": rel})
    if not cases:
        raise FreezeError(f"{path} holds no case")
    return cases


def frozen_ids(root: Path = ROOT) -> set[str]:
    """Every case id of every frozen set: what no learning step may read."""
    ids: set[str] = set()
    for entry in load_manifest(root).values():
        ids.update(c["id"] for c in set_cases(root, entry["file"]))
    return ids


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verdict_digests(root: Path, cases: list[dict]) -> tuple[dict[str, str], list[str]]:
    """sha256 of the set's recorded verdicts per release (canonical JSON of the set's verdicts in the case
    file's order; the file's other cases and vLLM's timings left out), and what is missing."""
    releases = sorted({r for c in cases for r in c["releases"]}, key=lambda v: [int(x) for x in v.split(".")])
    digests, missing = {}, []
    for rel in releases:
        path = conformance_dir(root) / "vllm_verdicts" / f"{rel}.json"
        wanted = [c["id"] for c in cases if rel in c["releases"]]
        if not path.exists():
            missing.append(f"{rel}: no vllm_verdicts/{rel}.json")
            continue
        by_id = {v["id"]: v for v in json.loads(path.read_text()).get("verdicts") or []}
        lacking = [i for i in wanted if i not in by_id]
        if lacking:
            missing.append(f"{rel}: {len(lacking)} cases not recorded (e.g. {', '.join(lacking[:3])})")
            continue
        text = json.dumps(
            [by_id[i] for i in wanted], sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
        digests[rel] = hashlib.sha256(text.encode()).hexdigest()
    return digests, missing


def changes(root: Path, name: str, entry: dict) -> list[str]:
    """How the set differs from what was frozen (empty: unchanged)."""
    found = []
    path = conformance_dir(root) / entry["file"]
    if not path.exists():
        return [f"{name}: {entry['file']} was removed"]
    if sha256_file(path) != entry["sha256"]:
        found.append(f"{name}: {entry['file']} changed since it was frozen at {entry['commit'][:10]}")
        return found  # the verdicts are read by the case file's ids: compare them only for the same file
    digests, missing = verdict_digests(root, set_cases(root, entry["file"]))
    found += [f"{name}: verdicts {m}" for m in missing]
    for rel, digest in entry["verdicts"].items():
        if rel in digests and digests[rel] != digest:
            found.append(f"{name}: the recorded vLLM {rel} verdicts of its cases changed since it was frozen")
    for rel in sorted(set(digests) - set(entry["verdicts"])):
        found.append(f"{name}: vLLM {rel} verdicts were recorded after it was frozen (freeze a new set)")
    return found


# --------------------------------------------------------------------------------------------------------
# The rule pack's history


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def history_note(root: Path, since: str | None) -> str | None:
    """None when ``since``..HEAD can be read in full; else what the check can read (a shallow clone, or no
    git repository: CI runs in a fresh full clone, where it reads everything)."""
    if git(root, "rev-parse", "--git-dir").returncode != 0:
        return "not a git repository: the rule pack's history is not checked"
    shallow = git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    if since and git(root, "cat-file", "-e", f"{since}^{{commit}}").returncode != 0:
        return (
            f"commit {since[:10]} is not in this {'shallow ' if shallow else ''}clone: only the commits "
            "present are checked"
        )
    return None


def token_pattern(tokens: set[str]) -> re.Pattern:
    """A case id or file name as a whole word: ``rw-tp-3`` is not found in ``rw-tp-32``."""
    alternatives = "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


def rule_mentions(root: Path, since: str | None, tokens: set[str]) -> list[Mention]:
    """Commits after ``since`` (every commit present, if ``since`` is None or not in the clone) that touch
    ``RULE_PATHS`` and name one of ``tokens`` in their message or in a line their diff adds or removes."""
    if not tokens or git(root, "rev-parse", "--git-dir").returncode != 0:
        return []
    present = since and git(root, "cat-file", "-e", f"{since}^{{commit}}").returncode == 0
    revs = f"{since}..HEAD" if present else "HEAD"
    mark = "\x1e@@commit "
    done = git(
        root,
        "log",
        "--full-history",  # a side branch's commits too, even one whose change was undone before its merge
        "-p",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        f"--format={mark}%H%n%B%n\x1e@@diff",
        revs,
        "--",
        *RULE_PATHS,
    )
    if done.returncode != 0:
        raise FreezeError(f"git log failed: {done.stderr.strip()}")
    rx = token_pattern(tokens)
    found = []
    for chunk in done.stdout.split(mark)[1:]:
        head, _, diff = chunk.partition("\x1e@@diff")
        commit, _, message = head.partition("\n")
        in_message = set(rx.findall(message))
        in_diff = set()
        for line in diff.splitlines():
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")):
                in_diff.update(rx.findall(line))
        if in_message or in_diff:
            where = " and ".join(w for w, s in (("message", in_message), ("diff", in_diff)) if s)
            subject = message.strip().splitlines()[0] if message.strip() else ""
            found.append(Mention(commit, subject[:120], tuple(sorted(in_message | in_diff)), where))
    return found


def set_tokens(root: Path, entry: dict) -> set[str]:
    return {c["id"] for c in set_cases(root, entry["file"])} | {Path(entry["file"]).name}


def check(root: Path = ROOT) -> tuple[list[str], list[str]]:
    """(problems, notes) of every frozen set: changes since freezing and rule-pack commits that name it."""
    problems, notes = [], []
    for name, entry in load_manifest(root).items():
        problems += changes(root, name, entry)
        note = history_note(root, entry["commit"])
        if note:
            notes.append(f"{name}: {note}")
        if (conformance_dir(root) / entry["file"]).exists():
            for m in rule_mentions(root, entry["commit"], set_tokens(root, entry)):
                problems.append(f"{name}: rule-pack commit {m}")
    return problems, notes


# --------------------------------------------------------------------------------------------------------
# Freezing


def first_commit_of(root: Path, relpath: str) -> str | None:
    done = git(root, "log", "--diff-filter=A", "--format=%H", "--", relpath)
    lines = done.stdout.split()
    return lines[-1] if lines else None


def freeze(root: Path, name: str, force: bool = False) -> dict:
    """The manifest entry of ``cases/NAME.yaml``, written into ``frozen.yaml``."""
    file = f"cases/{name}.yaml"
    relpath = str(CONFORMANCE / file)
    sets = load_manifest(root)
    if name in sets:
        raise FreezeError(
            f"{name} is frozen already (at {sets[name]['commit'][:10]}); a frozen set is not refrozen"
        )
    cases = set_cases(root, file)
    digests, missing = verdict_digests(root, cases)
    if missing:
        raise FreezeError(
            f"record vLLM's verdicts of {file} first (run.py --product none --only ...): "
            + "; ".join(missing)
        )
    needed = [relpath] + [str(CONFORMANCE / "vllm_verdicts" / f"{rel}.json") for rel in digests]
    dirty = git(root, "status", "--porcelain", "--", *needed).stdout.strip()
    if git(root, "rev-parse", "--git-dir").returncode != 0 or dirty:
        raise FreezeError(f"commit the case file and its verdict files first:\n{dirty}")
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    added = first_commit_of(root, relpath)
    earlier = rule_mentions(
        root, f"{added}~1" if added else None, {c["id"] for c in cases} | {Path(file).name}
    )
    if earlier and not force:
        raise FreezeError(
            f"{file} was learnt from already, it cannot be held out:\n" + "\n".join(f"  {m}" for m in earlier)
        )
    entry = {
        "file": file,
        "cases": len(cases),
        "sha256": sha256_file(conformance_dir(root) / file),
        "commit": head,
        "frozen_on": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "verdicts": digests,
    }
    sets[name] = entry
    write_manifest(root, sets)
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", nargs="?", help="the case file's name: cases/NAME.yaml")
    ap.add_argument("--check", action="store_true", help="check every frozen set instead")
    ap.add_argument("--force", action="store_true", help="freeze even if a rule-pack commit names the set")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    try:
        if opts.check or not opts.name:
            problems, notes = check(opts.root)
            for n in notes:
                print(f"note: {n}", file=sys.stderr)
            for p in problems:
                print(p)
            sets = load_manifest(opts.root)
            print(f"{len(sets)} frozen set(s), {len(problems)} problem(s)", file=sys.stderr)
            return 1 if problems else 0
        entry = freeze(opts.root, opts.name, opts.force)
    except FreezeError as e:
        print(f"freeze.py: {e}", file=sys.stderr)
        return 2
    print(
        f"froze {entry['file']} ({entry['cases']} cases, verdicts of {', '.join(entry['verdicts'])}) at "
        f"{entry['commit'][:10]} into {os.path.join(CONFORMANCE, MANIFEST)}: commit that file now"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
