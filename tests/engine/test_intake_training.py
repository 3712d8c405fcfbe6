"""The intake step on its training texts (tests/fixtures/intake_training/index.yaml): launches as people
published them, each read into the launch it runs, with what the user is told about where and how it was
found; none of them is a text of the hold-out set the intake is measured on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from vllmcheck.engine import intake, parse
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.types import ParseError

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "intake_training"
HOLD_OUT = ROOT / "benchmarks" / "conformance" / "corpus"
CATALOGS = ROOT / "vllmcheck" / "catalogs"
INDEX = yaml.safe_load((FIXTURES / "index.yaml").read_text())["texts"]
RELEASES = tuple(
    sorted((p.stem for p in CATALOGS.glob("*.json")), key=lambda v: tuple(map(int, v.split("."))))
)
_catalogs: dict[str, Catalog] = {}


def _catalog(release: str | None) -> Catalog:
    version = release or RELEASES[-1]
    if version not in _catalogs:
        _catalogs[version] = Catalog.load(CATALOGS / f"{version}.json")
    return _catalogs[version]


def _source_key(source: dict) -> str | None:
    if source.get("url"):
        return source["url"].rstrip("/")
    if source.get("repo"):
        return f"{source['repo']}:{source.get('path', '')}"
    return None


def test_the_training_set_is_listed_sourced_and_held_apart_from_the_hold_out():
    listed = [entry["file"] for entry in INDEX]
    assert sorted(listed) == sorted(p.name for p in FIXTURES.iterdir() if p.name != "index.yaml")
    assert len(listed) >= 55
    assert all(_source_key(e["source"]) or e["source"].get("id") for e in INDEX)
    hold_out = yaml.safe_load((HOLD_OUT / "index.yaml").read_text())["texts"]
    held = {_source_key(t.get("source") or {}) for t in hold_out}
    assert not held & {_source_key(e["source"]) for e in INDEX}
    held_texts = {p.read_text(errors="replace").strip() for p in HOLD_OUT.glob("rw-*")}
    assert not held_texts & {(FIXTURES / name).read_text().strip() for name in listed}


def _has_words(argv: list[str], words: list[str]) -> bool:
    n = len(words)
    return any(argv[i : i + n] == words for i in range(len(argv) - n + 1))


def _check_parsed(launch: intake.Launch, want: dict) -> None:
    try:
        doc = parse.parse_command(launch.command, catalog=_catalog(launch.release))
    except ParseError as exc:
        assert want.get("refused"), f"refused: {exc}"
        assert want["refused"] in str(exc)
        return
    assert not want.get("refused"), f"accepted, expected {want['refused']!r}"
    if "model" in want:
        assert doc["model"]["name"] == want["model"]
    for name, value in want.get("args", {}).items():
        assert doc["args"].get(name) == value, f"{name}: {doc['args'].get(name)!r} != {value!r}"


def _check_found(launch: intake.Launch, want: dict) -> None:
    record = launch.found()
    for key in ("form", "line", "image", "release", "gpus", "name"):
        if key in want:
            assert record[key] == want[key], f"{key}: {record[key]!r} != {want[key]!r}"
    for name, value in want.get("env", {}).items():
        assert record["environment"].get(name) == value, name
    for name in want.get("unknown", ()):
        assert record["variables"][name]["unknown"] is True, name
    for name in want.get("defaults", ()):
        assert "default" in record["variables"][name]["how"]
    for text in want.get("notes", ()):
        assert any(text in note for note in record["notes"]), (text, record["notes"])
    for words in want.get("words", ()):
        assert _has_words(launch.argv, [str(w) for w in words]), (words, launch.argv)
    for flag in want.get("absent", ()):
        assert not any(re.match(re.escape(flag) + "(=|$)", w) for w in launch.argv), launch.argv


@pytest.mark.parametrize("entry", [e for e in INDEX if "launches" in e["expect"]], ids=lambda e: e["file"])
def test_training_texts_are_read_into_their_launches(entry):
    text = (FIXTURES / entry["file"]).read_text()
    found = intake.find_launches(text, releases=RELEASES)
    expected = entry["expect"]["launches"]
    assert len(found.launches) == len(expected), found.found()
    if not expected and entry["expect"].get("no_launch_is_silent"):  # not vLLM: nothing to say about it
        assert found.not_checked == []
    elif not expected:
        assert entry["expect"]["not_checked"] in found.not_checked[0]
    for launch, want in zip(found.launches, expected, strict=True):
        _check_found(launch, want)
        _check_parsed(launch, want)


def test_a_bound_variable_fills_what_the_script_left_open():
    text = (FIXTURES / "dotenv-tabs.sh").read_text()
    found = intake.find_launches(text, variables={"MODEL": "Qwen/Qwen3-8B", "TENSOR_PARALLEL_SIZE": "2"})
    doc = parse.parse_command(found.launches[0].command, catalog=_catalog(None))
    assert doc["model"]["name"] == "Qwen/Qwen3-8B" and doc["args"]["tensor_parallel_size"] == 2
    assert found.launches[0].variables["TENSOR_PARALLEL_SIZE"] == {"value": "2", "how": "bound"}


def test_a_set_variable_adds_the_words_of_its_alternate_expansion():
    text = (FIXTURES / "ifs-revision.Dockerfile").read_text()
    launch = intake.find_launches(text, variables={"REVISION": "v1.5"}).launches[0]
    assert _has_words(launch.argv, ["--revision", "v1.5"])
    assert not any("left out" in note for note in launch.notes)
