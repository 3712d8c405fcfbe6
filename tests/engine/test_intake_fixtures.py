"""Launch texts as people write them (tests/fixtures/launches/index.yaml) are read into the profiles they
describe: the model, the arguments, the environment, the release of the image tag, the variables left open;
and a text or manifest that looks like vLLM but cannot be read says "not checked" instead of passing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vllmcheck.engine import intake, manifests, parse

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "launches"
INDEX = yaml.safe_load((FIXTURES / "index.yaml").read_text())["texts"]
RELEASES = ("0.20.0", "0.34.0")


def _ids(entry):
    return entry["file"]


def _is_manifest(text: str) -> bool:
    return parse.detect_format(text) == "yaml" and manifests.looks_like_manifest(text)


def test_every_fixture_is_listed_once():
    listed = [entry["file"] for entry in INDEX]
    on_disk = sorted(p.name for p in FIXTURES.iterdir() if p.name != "index.yaml")
    assert sorted(listed) == on_disk
    assert len(listed) >= 25


def _check_args(args: dict, expected: dict) -> None:
    for name, value in expected.items():
        assert args.get(name) == value, f"{name}: {args.get(name)!r} != {value!r}"


@pytest.mark.parametrize("entry", [e for e in INDEX if "launches" in e["expect"]], ids=_ids)
def test_command_texts_are_read_into_their_launches(entry):
    text = (FIXTURES / entry["file"]).read_text()
    assert not _is_manifest(text)
    found = intake.find_launches(text, releases=RELEASES)
    expected = entry["expect"]["launches"]
    assert len(found.launches) == len(expected), found.found()
    if not expected:
        assert entry["expect"]["not_checked"] in found.not_checked[0]
    for launch, want in zip(found.launches, expected, strict=True):
        doc = parse.parse_command(launch.command)
        assert doc["model"]["name"] == want["model"]
        _check_args(doc["args"], want.get("args", {}))
        for name, value in want.get("env", {}).items():
            assert doc["env"].get(name) == value
        if "form" in want:
            assert launch.form == want["form"]
        if "release" in want:
            assert launch.release == want["release"]
            assert any(want["release"] in note for note in launch.notes)  # said, not silently picked
        if "gpus" in want:
            assert launch.gpus == want["gpus"]
        if "line" in want:
            assert launch.line == want["line"]
        for name in want.get("unknown", ()):
            assert launch.variables[name]["unknown"] is True
        for name in want.get("defaults", ()):
            assert "default" in launch.variables[name]["how"]
            assert any(name in note and "default" in note for note in launch.notes)
        record = launch.found()
        assert record["form"] == launch.form and record["line"] == launch.line


@pytest.mark.parametrize("entry", [e for e in INDEX if "profiles" in e["expect"]], ids=_ids)
def test_manifests_yield_profiles_or_say_not_checked(entry):
    text = (FIXTURES / entry["file"]).read_text()
    assert _is_manifest(text)
    want = entry["expect"]
    workloads = manifests.extract(text)
    profiles = [w for w in workloads if w.command]
    unread = [w for w in workloads if any(n.message.startswith(manifests.NOT_CHECKED) for n in w.notes)]
    assert len(profiles) == want["profiles"]
    assert len(unread) == want["not_checked"]
    assert profiles or unread  # never a silent pass
    if profiles:
        doc = parse.parse_command(profiles[0].command)
        assert doc["model"]["name"] == want["model"]
        _check_args(doc["args"], want.get("args", {}))
        env = {**doc["env"], **profiles[0].env}
        for name, value in want.get("env", {}).items():
            assert env.get(name) == value
        if "release" in want:
            assert profiles[0].vllm_version == want["release"]
