"""A frozen hold-out set stays out of sample (benchmarks/conformance/freeze.py, frozen.yaml).

The first test checks this repository's frozen sets: unchanged since freezing, and no rule-pack commit since
names one of their cases or their file. The others build a small git repository laid out as this one and show
each way a frozen set stops being held out, and that the check finds it.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FREEZE_PY = ROOT / "benchmarks" / "conformance" / "freeze.py"


@pytest.fixture(scope="module")
def freeze():
    spec = importlib.util.spec_from_file_location("conformance_freeze", FREEZE_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_this_repositorys_frozen_sets_are_unchanged_and_no_rule_names_them(freeze):
    problems, notes = freeze.check(ROOT)
    for note in notes:  # a shallow clone: only the commits present were read (CI clones in full)
        warnings.warn(note, stacklevel=1)
    assert not problems, "a frozen hold-out set is no longer held out:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------------------------
# A repository of our own


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(root: Path, message: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


CASES = """\
releases: [0.33.0, 0.34.0]
cases:
  - id: rw-tp-3
    command: vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 3
  - id: rw-lora
    command: vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora
    releases: [0.34.0]
"""
OTHER = """\
releases: [0.34.0]
cases:
  - id: eng-max-len
    command: vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 1
"""


def verdicts(release: str, extra: dict | None = None, timings: float = 20.0) -> str:
    refused = {"ok": False, "stage": "config", "error_class": "ValueError", "message": "heads % tp != 0"}
    vs = [{"id": "rw-tp-3", **refused}, {"id": "eng-max-len", "ok": True}]
    if release == "0.34.0":
        vs.append({"id": "rw-lora", "ok": True})
    by_id = {v["id"]: v for v in vs}
    for case_id, change in (extra or {}).items():
        by_id[case_id] = {**by_id[case_id], **change}
    doc = {"vllm_version": release, "verdicts": list(by_id.values()), "timings": {"median_ms": timings}}
    return json.dumps(doc, indent=1)


CONF = "benchmarks/conformance"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    commit(
        root,
        "cases and vLLM's verdicts",
        {
            f"{CONF}/cases/realworld.yaml": CASES,
            f"{CONF}/cases/other.yaml": OTHER,
            f"{CONF}/vllm_verdicts/0.33.0.json": verdicts("0.33.0"),
            f"{CONF}/vllm_verdicts/0.34.0.json": verdicts("0.34.0"),
            "tools/rulepack/specs/parallel.py": "RULES = []\n",
            "validation/rulepacks/builtin.yaml": "rules: []\n",
        },
    )
    return root


def frozen(freeze, root: Path) -> str:
    """Freeze cases/realworld.yaml and commit the manifest; the freeze commit."""
    entry = freeze.freeze(root, "realworld")
    commit(root, "freeze realworld", {})
    return entry["commit"]


def test_freezing_records_the_case_file_and_its_verdicts_per_release(freeze, repo):
    head = git(repo, "rev-parse", "HEAD")
    entry = freeze.freeze(repo, "realworld")

    manifest = freeze.load_manifest(repo)
    assert manifest == {"realworld": entry}
    assert entry["file"] == "cases/realworld.yaml"
    assert entry["cases"] == 2
    assert entry["commit"] == head
    assert sorted(entry["verdicts"]) == ["0.33.0", "0.34.0"]
    assert freeze.frozen_ids(repo) == {"rw-tp-3", "rw-lora"}
    assert freeze.check(repo) == ([], [])


def test_an_edited_case_file_is_no_longer_held_out(freeze, repo):
    frozen(freeze, repo)
    commit(repo, "a comment", {f"{CONF}/cases/realworld.yaml": CASES + "# reworded\n"})

    problems, _ = freeze.check(repo)
    assert problems == ["realworld: cases/realworld.yaml changed since it was frozen at " + problems[0][-10:]]


def test_a_changed_recorded_verdict_of_the_set_is_found_but_not_one_of_another_file(freeze, repo):
    frozen(freeze, repo)
    # re-timing vLLM and re-recording another file's case leave the set's verdicts as frozen
    commit(
        repo,
        "other cases re-recorded",
        {
            f"{CONF}/vllm_verdicts/0.34.0.json": verdicts(
                "0.34.0", {"eng-max-len": {"ok": False}}, timings=9.0
            )
        },
    )
    assert freeze.check(repo) == ([], [])

    commit(
        repo,
        "re-recorded",
        {
            f"{CONF}/vllm_verdicts/0.34.0.json": verdicts(
                "0.34.0", {"rw-lora": {"ok": False, "stage": "config"}}
            )
        },
    )
    problems, _ = freeze.check(repo)
    assert problems == [
        "realworld: the recorded vLLM 0.34.0 verdicts of its cases changed since it was frozen"
    ]


def test_a_rule_pack_commit_that_names_a_frozen_case_fails_in_its_message_or_its_diff(freeze, repo):
    since = frozen(freeze, repo)
    # not the rule pack, or not a frozen id (rw-tp-32 is not rw-tp-3): nothing to say
    commit(repo, "notes on rw-tp-3", {"docs/notes.md": "rw-tp-3 is refused by vLLM\n"})
    commit(repo, "tp rule (rw-tp-32)", {"tools/rulepack/specs/parallel.py": "RULES = ['tp']\n"})
    assert freeze.check(repo) == ([], [])

    by_message = commit(
        repo,
        "Rule pack: tp must divide heads (hold-out rw-tp-3)",
        {"validation/rulepacks/builtin.yaml": "r: 1\n"},
    )
    by_diff = commit(
        repo,
        "Rule pack: LoRA",
        {"tools/rulepack/specs/parallel.py": "RULES = ['tp']  # see realworld.yaml\n"},
    )

    problems, _ = freeze.check(repo)
    assert len(problems) == 2
    assert by_message[:10] in problems[1] and "names rw-tp-3 in its message" in problems[1]
    assert by_diff[:10] in problems[0] and "names realworld.yaml in its diff" in problems[0]
    assert [m.commit for m in freeze.rule_mentions(repo, since, {"rw-tp-3"})] == [by_message]


def test_a_set_that_a_rule_already_names_cannot_be_frozen(freeze, repo):
    commit(
        repo,
        "Rule pack: LoRA as vLLM says for rw-lora",
        {"tools/rulepack/specs/parallel.py": "RULES = [1]\n"},
    )

    with pytest.raises(freeze.FreezeError, match="learnt from already") as error:
        freeze.freeze(repo, "realworld")
    assert "names rw-lora in its message" in str(error.value)
    assert freeze.load_manifest(repo) == {}


def test_a_set_is_frozen_only_once_recorded_and_committed(freeze, repo):
    commit(
        repo,
        "a release more",
        {f"{CONF}/cases/realworld.yaml": CASES.replace("0.34.0]\ncases", "0.35.0]\ncases")},
    )
    with pytest.raises(freeze.FreezeError, match="record vLLM's verdicts of cases/realworld.yaml first"):
        freeze.freeze(repo, "realworld")

    (repo / CONF / "cases" / "realworld.yaml").write_text(
        CASES + "  - id: rw-new\n    command: vllm serve x\n"
    )
    (repo / CONF / "vllm_verdicts" / "0.34.0.json").write_text(
        verdicts("0.34.0").replace('"verdicts": [', '"verdicts": [{"id": "rw-new", "ok": true},')
    )
    (repo / CONF / "vllm_verdicts" / "0.33.0.json").write_text(
        verdicts("0.33.0").replace('"verdicts": [', '"verdicts": [{"id": "rw-new", "ok": true},')
    )
    with pytest.raises(freeze.FreezeError, match="commit the case file and its verdict files first"):
        freeze.freeze(repo, "realworld")


def test_a_shallow_clone_checks_the_commits_it_has_and_says_so(freeze, repo, tmp_path):
    frozen(freeze, repo)
    commit(repo, "Rule pack: from rw-lora", {"tools/rulepack/specs/parallel.py": "RULES = [2]\n"})
    commit(repo, "Rule pack: more", {"tools/rulepack/specs/parallel.py": "RULES = [3]\n"})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(clone))

    problems, notes = freeze.check(clone)
    assert (
        len(notes) == 1 and "is not in this shallow clone: only the commits present are checked" in notes[0]
    )
    assert len(problems) == 1 and "names rw-lora in its message" in problems[0]


# This repository's own first hold-out file (cases/holdout.yaml, added at 489582e, "written before looking at
# the rule pack") had a rule written from one of its cases afterwards: the check finds that commit, so the
# file is not reported as held out.
HOLDOUT_ADDED = "489582e"


def test_the_check_finds_the_rule_written_from_the_old_holdout_file(freeze):
    if freeze.history_note(ROOT, HOLDOUT_ADDED):
        pytest.skip(f"this clone lacks commit {HOLDOUT_ADDED} (shallow): CI clones in full")
    ids = {c["id"] for c in freeze.set_cases(ROOT, "cases/holdout.yaml")}
    mentions = freeze.rule_mentions(ROOT, HOLDOUT_ADDED, ids | {"holdout.yaml"})
    assert any(m.commit.startswith("04577fc") and "ho-quant-dsv3-awq-mismatch" in m.tokens for m in mentions)
    with pytest.raises(freeze.FreezeError, match="was learnt from already"):
        freeze.freeze(ROOT, "holdout")


def test_a_rule_learnt_on_a_side_branch_counts_even_if_undone_before_the_merge(freeze, repo):
    frozen(freeze, repo)
    git(repo, "checkout", "-q", "-b", "rules")
    learnt = commit(
        repo, "Rule pack: as vLLM says for rw-lora", {"tools/rulepack/specs/parallel.py": "RULES = [9]\n"}
    )
    commit(repo, "Rule pack: undo", {"tools/rulepack/specs/parallel.py": "RULES = []\n"})
    git(repo, "checkout", "-q", "main")
    commit(repo, "docs", {"docs/notes.md": "notes\n"})
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'rules'", "rules")

    problems, _ = freeze.check(repo)
    assert len(problems) == 1 and learnt[:10] in problems[0] and "names rw-lora in its message" in problems[0]
