"""Check one file's text: profiles found in it, each validated by the engine against its release."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from vllmcheck import modelhub
from vllmcheck.engine import intake, manifests, shell
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine.lint import build_document, validate
from vllmcheck.engine.types import Finding, ParseError, Verdict

from . import NOT_CHECKED_RULE, Checked, UsageError
from .data import ShippedData

SOURCE_RULE = "manifest-source"  # findings about what a manifest holds that could not be mapped


def check_text(
    text: str, *, path: str, data: ShippedData, defaults: dict[str, Any], explicit: bool
) -> list[Checked]:
    if not text.strip():
        if explicit:
            raise ParseError("empty input: expected a `vllm serve` command line, a YAML config or JSON")
        return []
    fmt = engine_parse.detect_format(text)
    if fmt == "yaml" and manifests.looks_like_manifest(text):
        return [_check_workload(w, text, path, data, defaults) for w in manifests.extract(text)]
    form = intake.form_of(text)
    if fmt == "command" or form in ("compose", "dockerfile"):
        found = intake.find_launches(text, variables=defaults.get("variables"), releases=data.versions)
        if found.launches:
            return [_check_launch(launch, text, path, data, defaults) for launch in found.launches]
        if found.not_checked and (explicit or _VLLM_COMMAND.search(text) or form != "shell"):
            return [_not_checked(found.not_checked[0], path, data, defaults)]
    if not explicit and not _looks_like_profile(text, fmt, data):
        return []  # some other file met while walking a directory (or named with --skip-other-files)
    return [_check_profile(text, fmt, path, data, defaults)]


def _not_checked(why: str, path: str, data: ShippedData, defaults: dict[str, Any]) -> Checked:
    """A file that looks like vLLM but yields no profile: a "not checked" finding (an error with --strict)."""
    version = defaults["vllm_version"] or data.newest
    checked = Checked(path=path, source=None, line=1, column=1, vllm_version=version)
    checked.findings.append((_not_checked_finding(why, defaults), 1, 1))
    return checked


def _not_checked_finding(why: str, defaults: dict[str, Any]) -> Finding:
    why = why.removeprefix(manifests.NOT_CHECKED)
    return Finding(
        rule=NOT_CHECKED_RULE,
        severity="error" if defaults.get("strict") else "info",
        category="source",
        message=f"not checked: {why}",
    )


def _check_launch(
    launch: intake.Launch, text: str, path: str, data: ShippedData, defaults: dict[str, Any]
) -> Checked:
    """One launch the intake step found in a command line, script, Dockerfile, compose file or Python."""
    version = _release(data, defaults["vllm_version"], launch.release, manifests.release_from_comment(text))
    catalog = data.catalog(version)
    source = None
    if launch.form not in ("command",) or launch.name:
        source = f"{launch.form} line {launch.line}" + (f", {launch.name}" if launch.name else "")
    checked = Checked(path=path, source=source, line=launch.line, column=1, vllm_version=version)
    for note in launch.notes:
        checked.findings.append(
            (Finding(rule=SOURCE_RULE, severity="info", category="source", message=note), launch.line, 1)
        )
    try:
        parsed = engine_parse.parse_command(launch.command, catalog=catalog)
    except ParseError as exc:
        raise ParseError(exc.detail, where=f"line {launch.line}: {exc.where or launch.form}") from exc
    parsed, config_notes = _merge_config_file(parsed, path, catalog)
    for note in config_notes:
        checked.findings.append(
            (Finding(rule=SOURCE_RULE, severity="info", category="source", message=note), launch.line, 1)
        )
    hardware = {"gpus_per_node": launch.gpus} if launch.gpus is not None else {}
    verdict = _validate(parsed, data, defaults, version, env=launch.env, hardware=hardware)
    checked.memory = verdict.memory
    lines = text.splitlines(keepends=True)
    offset = sum(len(line) for line in lines[: launch.line - 1])
    locate = _command_locator(text, start=offset)
    for finding in verdict.findings:
        checked.findings.append((finding, *locate(_flags_of(finding, catalog))))
    return checked


def _merge_config_file(parsed: dict[str, Any], path: str, catalog) -> tuple[dict[str, Any], list[str]]:
    """``--config FILE`` beside the profile: its arguments merged as vLLM merges them (the command line wins
    over the file)."""
    name = (parsed.get("args") or {}).get("config")
    if not isinstance(name, str) or path == "-" or intake.unknown_reference(name):
        return parsed, []
    candidate = Path(path).parent / name
    if not candidate.is_file():
        return parsed, []
    try:
        config = engine_parse.parse_config_yaml(candidate.read_text(encoding="utf-8"), catalog=catalog)
    except (OSError, UnicodeDecodeError) as exc:
        return parsed, [f"--config {name}: cannot be read ({exc})"]
    except ParseError as exc:
        raise ParseError(f"--config {name}: {exc}", where=exc.where) from exc
    merged = dict(parsed)
    merged["args"] = {**(config.get("args") or {}), **(parsed.get("args") or {})}
    merged["env"] = {**(config.get("env") or {}), **(parsed.get("env") or {})}
    if not (parsed.get("model") or {}).get("name"):
        merged["model"] = config.get("model") or {"name": None}
    merged["notes"] = [
        n for n in parsed.get("notes") or () if "are not part of this profile" not in n["message"]
    ]
    return merged, [f"the arguments of --config {name} ({candidate}) are checked with the command line's"]


def _release(data: ShippedData, *candidates: str | None) -> str:
    version = next((c for c in candidates if c), None) or data.newest
    if version not in data.versions:
        raise UsageError(
            f"unknown vLLM release {version!r} (this linter knows {data.versions[0]} to {data.newest})"
        )
    return version


def _tagged_release(
    data: ShippedData, tagged: str | None, image: str | None
) -> tuple[str | None, str | None]:
    """The release an image tag names, or, when this linter has no catalog for it, the nearest one that it
    has, and the note that says so (``vllm/vllm-openai:v0.5.0`` is checked against the oldest catalog)."""
    if not tagged or tagged in data.versions:
        return tagged, None
    nearest = intake.nearest_release(tagged, data.versions)
    if nearest is None:
        return tagged, None
    return nearest, (
        f"release {tagged} (image {image}) has no catalog here: checked against {nearest}, the nearest "
        "release that has one"
    )


def _check_profile(text: str, fmt: str, path: str, data: ShippedData, defaults: dict[str, Any]) -> Checked:
    version = _release(data, defaults["vllm_version"], manifests.release_from_comment(text))
    catalog = data.catalog(version)
    if fmt == "command":
        parsed = engine_parse.parse_command(text, catalog=catalog)
    elif fmt == "json":
        parsed = engine_parse.parse_json(text, catalog=catalog)
    else:
        parsed = engine_parse.parse_config_yaml(text, catalog=catalog)
    verdict = _validate(parsed, data, defaults, version, env={}, hardware={})
    locate = _command_locator(text) if fmt == "command" else _yaml_locator(text)
    checked = Checked(path=path, source=None, line=1, column=1, vllm_version=version, memory=verdict.memory)
    for finding in verdict.findings:
        line, column = locate(_flags_of(finding, catalog))
        checked.findings.append((finding, line, column))
    return checked


def _check_workload(
    workload: manifests.Workload, text: str, path: str, data: ShippedData, defaults: dict[str, Any]
) -> Checked:
    tagged, tag_note = _tagged_release(data, workload.vllm_version, workload.image)
    version = _release(data, defaults["vllm_version"], tagged, manifests.release_from_comment(text))
    checked = Checked(
        path=path, source=workload.source, line=workload.line, column=workload.column, vllm_version=version
    )
    if tag_note and version == tagged:
        note = Finding(rule=SOURCE_RULE, severity="info", category="source", message=tag_note)
        checked.findings.append((note, workload.line, workload.column))
    for note in workload.notes:
        if note.message.startswith(manifests.NOT_CHECKED):
            checked.findings.append((_not_checked_finding(note.message, defaults), note.line, note.column))
        else:
            checked.findings.append((_note_finding(note), note.line, note.column))
    if not workload.command:
        return checked
    catalog = data.catalog(version)
    try:
        parsed = engine_parse.parse_command(workload.command, catalog=catalog)
    except ParseError as exc:
        raise ParseError(exc.detail, where=f"{workload.source} (line {workload.line})") from exc
    verdict = _validate(parsed, data, defaults, version, env=workload.env, hardware=workload.hardware)
    checked.memory = verdict.memory
    for finding in verdict.findings:
        line, column = workload.position_of(_flags_of(finding, catalog))
        checked.findings.append((finding, line, column))
    return checked


def _validate(parsed, data, defaults, version, *, env, hardware):
    model = (parsed.get("model") or {}).get("name")
    args = parsed.get("args") or {}
    # The model's config.json as the server resolves it, from a local directory or the Hugging Face cache
    # only (no network); `--model-config` wins.
    facts = modelhub.resolve_facts(
        model,
        args,
        explicit_config=defaults["model_config"],
        settings=modelhub.HubSettings.from_env(force_offline=True),
    )
    document = build_document(
        kind=defaults["kind"],
        version=version,
        model_name=model,
        args=args,
        env={**(parsed.get("env") or {}), **env},
        hardware={**defaults["hardware"], **hardware},
        model_config=facts.config,
    )
    facts.add_to(document)
    verdict = validate(document, ruleset=data.ruleset, catalog=data.catalog(version), history=data.history)
    notes = modelhub.unresolved_findings(facts)
    if notes:
        verdict = Verdict(verdict.vllm_version, verdict.ruleset, (*verdict.findings, *notes), verdict.memory)
    return verdict


def _note_finding(note: manifests.Note) -> Finding:
    return Finding(rule=SOURCE_RULE, severity=note.severity, category="source", message=note.message)


def _flags_of(finding: Finding, catalog) -> tuple[str, ...]:
    flags: list[str] = []
    for name in finding.fields:
        base = name.split(".", 1)[0]
        spec = catalog.by_name.get(base) if hasattr(catalog, "by_name") else None
        if spec is not None:
            flags.extend(spec.flags)
        flags.append("--" + base.replace("_", "-"))
    return tuple(flags)


def _command_locator(text: str, start: int = 0):
    try:
        words = [(w, o) for w, o in shell.split_words(text) if o >= start]
    except ParseError:
        words = []

    def locate(flags: tuple[str, ...]) -> tuple[int, int]:
        for word, offset in words:
            head = word.split("=", 1)[0]
            if head in flags or any(head.startswith(flag + ".") for flag in flags):
                line = text.count("\n", 0, offset) + 1
                return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
        return 1, 1

    return locate


def _yaml_locator(text: str):
    lines = engine_parse._yaml_key_lines(text)

    def locate(flags: tuple[str, ...]) -> tuple[int, int]:
        for flag in flags:
            key = flag.lstrip("-")
            for candidate in (key, key.replace("-", "_")):
                if candidate in lines:
                    return lines[candidate], 1
        return 1, 1

    return locate


def _looks_like_profile(text: str, fmt: str, data: ShippedData) -> bool:
    if fmt == "command":
        return bool(_VLLM_COMMAND.search(text))
    return _looks_like_vllm_config(text, data)


_VLLM_COMMAND = re.compile(r"(?:^|[\s/])vllm\s+serve\b|vllm\.entrypoints\.openai\.api_server")


def _looks_like_vllm_config(text: str, data: ShippedData) -> bool:
    """A YAML or JSON mapping most of whose keys are vLLM arguments (`model`, `tensor-parallel-size`, ...)."""
    import yaml

    try:
        mapping = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # nosec B506  # the Loader is yaml's SafeLoader (C or Python)
    except yaml.YAMLError:
        return True  # let the parser say what is wrong
    if not isinstance(mapping, dict) or not mapping:
        return False
    catalog = data.catalog(data.newest)
    names = {str(k).replace("-", "_") for k in mapping}
    known = sum(1 for n in names if n == "model" or n in catalog.by_name)
    return known * 2 >= len(names)
