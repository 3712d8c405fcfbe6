"""How much of the frozen hold-out corpus the intake step reads (issue 26).

    .venv/bin/python -m benchmarks.intake [--verbose]

Reads ``benchmarks/conformance/corpus/index.yaml`` and, for each text, does what the linter does with it
(``vllmcheck.linter.check``: the intake step for command texts, ``manifests.extract`` for Kubernetes and
Helm values), then prints:

- command texts (forms command, script, docker, dockerfile, compose, python) whose hand-written
  ``launches`` list is not empty: how many are read into at least one profile that parses with its
  release's catalog, and how many yield exactly as many launches as the list holds;
- texts whose list is empty: how many the intake step nevertheless reads as a launch;
- manifests (forms k8s, helm-values) that run vLLM, read as ``vllm-profiles-lint FILE`` reads them: how
  many yield a profile, a "not checked" finding, a parse error (exit 2), or nothing at all (a silent
  pass; the target is none).

A launch whose arguments the catalog refuses is still read: where real vLLM refuses the same launch too
(its verdict recorded in ``conformance/vllm_verdicts/<release>.json`` for the text's case, at the release
the product checked it against), the text counts as "read, refused as vLLM refuses it"; the legacy
``vllm.entrypoints.api_server`` is "not checked" by design and counted apart.

The corpus is a hold-out set: this script only measures; nothing in the product is tuned on it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from vllmcheck.engine import intake, manifests
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine.types import ParseError
from vllmcheck.linter.data import ShippedData

CORPUS = Path(__file__).resolve().parent / "conformance" / "corpus"
VERDICTS = Path(__file__).resolve().parent / "conformance" / "vllm_verdicts"
LEGACY = "vllm.entrypoints.api_server"
COMMAND_FORMS = ("command", "script", "docker", "dockerfile", "compose", "python")
MANIFEST_FORMS = ("k8s", "helm-values")


def _catalog(data: ShippedData, release: str | None):
    version = release if release in data.versions else data.newest
    return data.catalog(version)


def vllm_refuses(entry: dict, release: str) -> bool:
    """Whether real vLLM ``release`` refused (at start-up's argument parsing or config) every case recorded
    for the text; False when no verdict is recorded at that release."""
    path = VERDICTS / f"{release}.json"
    if not path.exists() or not entry.get("cases"):
        return False
    verdicts = {v["id"]: v for v in json.loads(path.read_text())["verdicts"]}
    recorded = [verdicts.get(case) for case in entry["cases"]]
    return all(v is not None and not v["ok"] for v in recorded)


def checked_release(text: str, data: ShippedData) -> str:
    """The release the product checks the text's first launch against (its image tag's, else the newest)."""
    try:
        found = intake.find_launches(text, releases=data.versions)
    except ParseError:
        return data.newest
    release = found.launches[0].release if found.launches else None
    return release if release in data.versions else data.newest


def read_command_text(text: str, data: ShippedData) -> tuple[int, int, str | None]:
    """(launches found, launches that parse, the first error or "not checked" reason)."""
    try:
        found = intake.find_launches(text, releases=data.versions)
    except ParseError as exc:
        return 0, 0, str(exc)
    if not found.launches:
        if found.not_checked:
            return 0, 0, "not checked: " + found.not_checked[0]
        try:  # the linter's fallback: the text itself as a command line (`--model m -tp 2`)
            engine_parse.parse_command(text, catalog=_catalog(data, None))
        except ParseError as exc:
            return 0, 0, str(exc)
        return 1, 1, None
    parsed, error = 0, None
    for launch in found.launches:
        try:
            engine_parse.parse_command(launch.command, catalog=_catalog(data, launch.release))
            parsed += 1
        except ParseError as exc:
            error = error or str(exc)
    return len(found.launches), parsed, error


def read_manifest(text: str, data: ShippedData) -> tuple[int, int, str | None]:
    """(profiles that parse, "not checked" findings, the first error)."""
    try:
        workloads = manifests.extract(text)
    except ParseError as exc:
        return 0, 0, str(exc)
    profiles = unread = 0
    error = None
    for workload in workloads:
        if any(n.message.startswith(manifests.NOT_CHECKED) for n in workload.notes):
            unread += 1
        if not workload.command:
            continue
        try:
            engine_parse.parse_command(workload.command, catalog=_catalog(data, workload.vllm_version))
            profiles += 1
        except ParseError as exc:
            error = error or str(exc)
    return profiles, unread, error


def lint_outcome(text: str, path: str, data: ShippedData) -> str:
    """What ``vllm-profiles-lint FILE`` says of the text: "profile" (at least one profile checked),
    "not checked" (a "not checked" finding), "cannot parse" (exit 2), or "silent" (nothing at all)."""
    from vllmcheck.linter import NOT_CHECKED_RULE, UsageError
    from vllmcheck.linter.check import check_text

    defaults = {"vllm_version": None, "kind": "serving", "hardware": {}, "model_config": None}
    try:
        checked = check_text(text, path=path, data=data, defaults=defaults, explicit=True)
    except (ParseError, UsageError):
        return "cannot parse"
    if any(not any(f.rule == NOT_CHECKED_RULE for f, _, _ in c.findings) for c in checked):
        return "profile"
    return "not checked" if checked else "silent"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="list the texts not read, with the reason")
    options = parser.parse_args(argv)
    data = ShippedData()
    texts = yaml.safe_load((CORPUS / "index.yaml").read_text())["texts"]
    commands = [t for t in texts if t["form"] in COMMAND_FORMS and t.get("launches")]
    empty = [t for t in texts if t["form"] in COMMAND_FORMS and not t.get("launches")]
    manifest_texts = [t for t in texts if t["form"] in MANIFEST_FORMS and t.get("launches")]

    read = found_refused = as_vllm = legacy = same_count = 0
    missed: list[str] = []
    for entry in commands:
        text = (CORPUS / entry["file"]).read_text()
        found, parsed, error = read_command_text(text, data)
        if parsed:
            read += 1
        elif found:
            found_refused += 1
            release = checked_release(text, data)
            agrees = vllm_refuses(entry, release)
            as_vllm += agrees
            verdict = f"vLLM {release} refuses it too" if agrees else f"no refusal of vLLM {release} recorded"
            missed.append(f"{entry['id']} ({entry['form']}, {found} found; {verdict}): {error}")
        else:
            legacy += LEGACY in (error or "")
            missed.append(f"{entry['id']} ({entry['form']}, {found} found): {error}")
        if found == len(entry["launches"]) and parsed == found:
            same_count += 1
    extra = 0
    for entry in empty:
        found, _, _ = read_command_text((CORPUS / entry["file"]).read_text(), data)
        extra += found > 0
        if found:
            missed.append(f"{entry['id']} ({entry['form']}): no launch by hand, read as {found} launch(es)")

    outcomes: dict[str, int] = {}
    silent_ids: list[str] = []
    for entry in manifest_texts:
        outcome = lint_outcome((CORPUS / entry["file"]).read_text(), entry["file"], data)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome != "profile":
            silent_ids.append(f"{entry['id']} ({entry['form']}): {outcome}")

    total = max(1, len(commands))
    print(f"command texts with a launch: {len(commands)}")
    print(f"  read into at least one profile: {read} ({100 * read / total:.1f}%)")
    print(f"  launch found, but its arguments do not parse with its release's catalog: {found_refused}")
    share = 100 * (read + found_refused) / total
    print(f"  launch found (read, or its arguments refused): {read + found_refused} ({share:.1f}%)")
    print(f"    of them refused as real vLLM refuses the same launch (recorded verdict): {as_vllm}")
    share = 100 * (read + as_vllm) / total
    print(f"  read: parsed, or refused as vLLM refuses it: {read + as_vllm} ({share:.1f}%)")
    print(f"  not checked by design (the legacy {LEGACY}): {legacy}")
    share = 100 * (read + as_vllm) / max(1, total - legacy)
    print(f"  read, of the texts that run the OpenAI-compatible server: {read + as_vllm} ({share:.1f}%)")
    print(f"  as many launches as the hand-written list, all parsed: {same_count}")
    print(f"command texts with no launch: {len(empty)}; read as a launch anyway: {extra}")
    print(f"manifests that run vLLM: {len(manifest_texts)} (as vllm-profiles-lint FILE reads them)")
    print("  " + "; ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    if options.verbose:
        for line in missed + silent_ids:
            print("  -", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
