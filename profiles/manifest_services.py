"""Profiles imported from Kubernetes manifests and production-stack Helm values, and exported back to them.

One profile per vLLM container (or modelSpec); each remembers its source (file, document, object, container,
line, image) and what could not be mapped. An import is all or nothing: every profile is validated before any
is stored.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import yaml
from django.db import transaction

from validation.errors import DomainError
from validation.selectors import catalog_for
from vllmcheck.engine import manifests
from vllmcheck.engine import render as engine_render
from vllmcheck.engine.types import ParseError, Verdict

from . import services
from .models import Profile, Team
from .services.verdicts import effective_release, profile_document

EXPORT_FORMATS = ("deployment", "stack-values")


@dataclass
class ImportedWorkload:
    name: str
    data: services.ProfileInput
    source: dict[str, Any]
    verdict: Verdict | None = None
    error: str | None = None


@dataclass
class ManifestImport:
    created: list[tuple[Profile, Verdict]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # objects with nothing vLLM could run


class ManifestInvalid(DomainError):
    """Some profile of the manifest would be refused: nothing was stored."""

    def __init__(self, workloads: list[ImportedWorkload]):
        self.workloads = workloads
        bad = [w for w in workloads if w.error or (w.verdict and not w.verdict.valid)]
        parts = []
        for w in bad:
            reasons = w.error or "; ".join(
                f.message for f in w.verdict.findings if f.is_active and f.severity == "error"
            )
            parts.append(f"{w.name} ({w.source['object']}): {reasons}")
        super().__init__(
            f"{len(bad)} of {len(workloads)} profiles would be refused, nothing was imported: "
            + " | ".join(parts),
            field="manifest",
            code="invalid_profile",
        )


def workload_input(
    workload: manifests.Workload, *, name: str, kind: str, vllm_version: str, description: str = ""
) -> services.ProfileInput:
    """The profile input of a vLLM server found in a manifest (import, admission and Git sync)."""
    return services.ProfileInput.from_mapping(
        {
            "name": name,
            "kind": kind,
            "vllm_version": vllm_version,
            "command": workload.command,
            "env": workload.env,
            "hardware": workload.hardware,
            "description": description,
        }
    )


def _name(workload: manifests.Workload, many_in_object: bool) -> str:
    if workload.owner == "production-stack values":
        return workload.container.removeprefix("modelSpec ")
    base = workload.owner.rsplit("/", 1)[-1]
    return f"{base}-{workload.container.rsplit(' ', 1)[-1]}" if many_in_object else base


def _plan(text: str, *, filename: str, kind: str | None) -> tuple[list[ImportedWorkload], list[dict]]:
    try:
        workloads = manifests.extract(text)
    except ParseError as exc:
        raise DomainError(str(exc), field="manifest", code="parse_error") from exc
    if not workloads:
        raise DomainError(
            "no container running vLLM (`vllm serve`, the API server module or the vllm/vllm-openai image) "
            "and no production-stack modelSpec was found in the manifest",
            field="manifest",
        )
    per_object = Counter(w.owner for w in workloads)
    hidden = _hidden_env(text, workloads)
    planned, skipped = [], []
    for w in workloads:
        source = {
            "type": "helm" if w.owner == "production-stack values" else "kubernetes",
            "file": filename,
            "document": w.document,
            "object": w.owner,
            "container": w.container,
            "line": w.line,
            "image": w.image,
            "notes": [{"message": n.message, "line": n.line, "severity": n.severity} for n in w.notes],
        }
        if not w.command:
            skipped.append(source)
            continue
        source["notes"].extend(
            {"message": message, "line": w.line, "severity": "info"} for message in hidden.get(id(w), ())
        )
        # Where it came from is its source (shown once on the profile's page), not a description too.
        data = workload_input(
            w,
            name=_name(w, per_object[w.owner] > 1),
            kind=kind or w.kind or "serving",
            vllm_version=w.vllm_version or "",
        )
        planned.append(ImportedWorkload(name=data.name, data=data, source=source))
    return planned, skipped


# Where a container's env value comes from when it is not written in the manifest (``valueFrom``).
_REF_KINDS = {
    "secretKeyRef": "Secret",
    "configMapKeyRef": "ConfigMap",
    "fieldRef": "field of the Pod",
    "resourceFieldRef": "resource field of the container",
}


def _containers_named(node: Any, name: str):
    """Every mapping under ``node`` named ``name`` that has an ``env`` list (a container or a modelSpec)."""
    if isinstance(node, dict):
        if node.get("name") == name and isinstance(node.get("env"), list):
            yield node
        for value in node.values():
            yield from _containers_named(value, name)
    elif isinstance(node, list):
        for value in node:
            yield from _containers_named(value, name)


def _ref_text(value_from: Any) -> str:
    if not isinstance(value_from, dict) or not value_from:
        return "a reference"
    kind, ref = next(iter(value_from.items()))
    what = _REF_KINDS.get(kind, kind)
    if isinstance(ref, dict) and ref.get("name"):
        return f"{what} {ref['name']}" + (f", key {ref['key']}" if ref.get("key") else "")
    if isinstance(ref, dict) and ref.get("fieldPath"):
        return f"{what} {ref['fieldPath']}"
    return what


def _hidden_env(text: str, workloads: list[manifests.Workload]) -> dict[int, list[str]]:
    """Per workload (by ``id``), a note for each env variable whose value comes from a Secret, a ConfigMap or
    the Pod (``valueFrom``): the profile cannot hold its value (HF_TOKEN from a Secret, say). The engine
    already notes the VLLM_* ones (the checks that read them cannot be verified); these are the others."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return {}
    found: dict[int, list[str]] = {}
    for w in workloads:
        if not (0 <= w.document < len(documents)):
            continue
        name = w.container.removeprefix("modelSpec ").rsplit(" ", 1)[-1]
        notes: list[str] = []
        for container in _containers_named(documents[w.document], name):
            for item in container["env"]:
                if not isinstance(item, dict) or "valueFrom" not in item or "value" in item:
                    continue
                variable = str(item.get("name") or "")
                if not variable or variable.startswith("VLLM_") or variable in w.env:
                    continue
                message = (
                    f"env {variable} comes from {_ref_text(item['valueFrom'])}: value not visible here "
                    "(the profile keeps the variable's name, not its value)"
                )
                if message not in notes:
                    notes.append(message)
        if notes:
            found[id(w)] = notes
    return found


def _history_detail(*, filename: str, text: str, workload_source: dict[str, Any]) -> str:
    """The first history entry of an imported profile: the manifest (uploaded file or paste, by digest),
    the object and the container."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    origin = f"upload {filename}" if filename else "pasted manifest"
    return (
        f"imported from {workload_source['type']} {origin} (sha256 {digest}): "
        f"{workload_source['object']}, {workload_source['container']}, line {workload_source['line']}"
    )


def profiles_import_manifest(
    *, actor, team: Team, text: str, filename: str = "", kind: str | None = None
) -> ManifestImport:
    """Create one profile per vLLM container or modelSpec of ``text``; all or nothing."""
    if kind not in (None, "", "serving", "collection"):
        raise DomainError("kind must be 'serving' or 'collection'", field="kind")
    planned, skipped = _plan(text, filename=filename, kind=kind or None)
    for item in planned:
        try:
            item.verdict = services.profile_dry_run(data=item.data)
        except DomainError as exc:
            item.error = exc.message
    if any(item.error or not item.verdict.valid for item in planned):
        raise ManifestInvalid(planned)
    result = ManifestImport(skipped=skipped)
    with transaction.atomic():
        for item in planned:
            profile, verdict = services.profile_create(
                actor=actor,
                team=team,
                data=item.data,
                source=item.source,
                cause_detail=_history_detail(filename=filename, text=text, workload_source=item.source),
            )
            result.created.append((profile, verdict))
    return result


def profile_render_manifest(profile: Profile, *, fmt: str) -> str:
    """The profile as a Kubernetes Deployment or as production-stack Helm values."""
    if fmt not in EXPORT_FORMATS:
        raise DomainError(f"unknown format {fmt!r}; use {' or '.join(EXPORT_FORMATS)}", field="format")
    release = effective_release(profile)
    doc = profile_document(profile, release=release)
    argv = engine_render.render_argv(doc, catalog=catalog_for(release))
    gpus = profile.hardware.get("gpus_per_node") if isinstance(profile.hardware, dict) else None
    common = {
        "name": profile.name,
        "argv": argv,
        "env": dict(profile.env),
        "version": release.version,
        "gpus": gpus,
    }
    if fmt == "deployment":
        return manifests.render_deployment(**common, kind=profile.kind)
    return manifests.render_stack_values(
        **common, prefix_caching=profile.engine_args.get("enable_prefix_caching")
    )
