"""vLLM servers described by Kubernetes manifests and Helm values, as profiles the engine can check.

Reads (multi-document) YAML and finds every container that runs vLLM:

- pod templates of Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod and LeaderWorkerSet
  (leader and worker templates), and KServe ServingRuntime / ClusterServingRuntime / InferenceService
  containers;
- the vLLM production-stack Helm chart's values (``servingEngineSpec.modelSpec[]``), turned into the command
  line the chart's ``deployment-vllm-multi.yaml`` template renders.

A container runs vLLM when its command and args (after Kubernetes' ``$(VAR)`` expansion, and inside an
``sh -c`` script) are ``vllm serve ...`` or ``python -m vllm.entrypoints.openai.api_server ...``, or when it
has no command and its image is ``vllm/vllm-openai`` (whose entrypoint is ``vllm serve``).

Each workload remembers where it came from (document, object, container, line and column) and what could not
be mapped (a secret's value, an undefined ``$(VAR)``, a KServe model server that is not vLLM): those are notes
the caller reports as findings, never silently dropped. Plain Python: no Django.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import intake, shell
from .lazy import lazy_module
from .types import ParseError

yaml = lazy_module("yaml")  # loaded when YAML is first read: a command file needs none of it

POD_TEMPLATE_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"})
KIND_ANNOTATION = "vllm-profiles.io/kind"
KSERVE_RUNTIME_KINDS = frozenset({"ServingRuntime", "ClusterServingRuntime"})
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
MAX_NODES = (
    200_000  # YAML nodes visited per file: aliases can expand a small file enormously ("billion laughs")
)

_VAR_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_SHELL_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_VERSION_COMMENT = re.compile(r"^\s*#\s*vllm[-_ ]version\s*[:=]\s*v?(\d+\.\d+\.\d+)\s*$", re.I | re.M)
_API_SERVER = "vllm.entrypoints.openai.api_server"
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})


@dataclass(frozen=True)
class Note:
    """Something in the manifest that could not be mapped onto the profile, and where it is."""

    message: str
    line: int
    column: int
    severity: str = "warning"


@dataclass
class Workload:
    """One vLLM server found in a manifest: the profile to check, and where each part came from."""

    owner: str  # the object: "Deployment/team-a/teacher", or "production-stack values"
    container: str  # within it: "container vllm", "leader container vllm", "modelSpec llama3"
    document: int  # 0-based index of the YAML document in the file
    line: int  # 1-based position of the container (or the modelSpec entry)
    column: int
    command: str  # a `vllm serve ...` command line (shell-quoted)
    env: dict[str, str] = field(default_factory=dict)
    vllm_version: str | None = None  # from the image tag
    image: str | None = None
    hardware: dict[str, Any] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    token_positions: list[tuple[str, int, int]] = field(default_factory=list)  # (argv word, line, column)
    kind: str | None = None  # "serving" / "collection" from the annotation vllm-profiles.io/kind, if any

    @property
    def source(self) -> str:
        """Where it is, for people: "Deployment/team-a/teacher, container vllm"."""
        return f"{self.owner}, {self.container}"

    def position_of(self, flags: tuple[str, ...]) -> tuple[int, int]:
        """Line and column of the first argv word that is one of ``flags`` (or ``--flag=...``)."""
        for word, line, column in self.token_positions:
            head = word.split("=", 1)[0]
            if head in flags:
                return line, column
        return self.line, self.column


# ----------------------------------------------------------------------------- YAML with positions


class _Map(dict):
    line = 1
    column = 1
    key_pos: dict[str, tuple[int, int]]


class _Seq(list):
    line = 1
    column = 1
    item_pos: list[tuple[int, int]]


def _pos(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _plain(node: yaml.Node, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        line, _ = _pos(node)
        raise ParseError(
            f"more than {MAX_NODES} YAML nodes (aliases expanding without bound?)", where=f"line {line}"
        )
    if isinstance(node, yaml.MappingNode):
        out = _Map()
        out.line, out.column = _pos(node)
        out.key_pos = {}
        for key_node, value_node in node.value:
            key = _plain(key_node, budget)
            if isinstance(key, (dict, list)):
                raise ParseError("a mapping key must be a scalar", where=f"line {_pos(key_node)[0]}")
            out[key] = _plain(value_node, budget)
            out.key_pos[str(key)] = _pos(value_node)
        return out
    if isinstance(node, yaml.SequenceNode):
        out = _Seq()
        out.line, out.column = _pos(node)
        out.item_pos = []
        for item in node.value:
            out.append(_plain(item, budget))
            out.item_pos.append(_pos(item))
        return out
    return _scalar(node)


@lru_cache(maxsize=1)
def _scalar_loader() -> yaml.SafeLoader:
    return yaml.SafeLoader("")


def _scalar(node: yaml.ScalarNode) -> Any:
    return _scalar_loader().construct_scalar(node) if node.tag == "tag:yaml.org,2002:str" else _resolve(node)


def _resolve(node: yaml.ScalarNode) -> Any:
    loader = _scalar_loader()
    constructor = loader.yaml_constructors.get(node.tag)
    if constructor is None:
        return node.value
    return constructor(loader, node)


def load_documents(text: str) -> list[Any]:
    """Every YAML document of ``text`` as dicts and lists that know their line and column."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        nodes = list(yaml.compose_all(text, Loader=loader))
    except RecursionError:
        raise ParseError("YAML nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ParseError(f"not valid YAML: {problem}", where=where) from exc
    budget = [MAX_NODES]
    try:
        return [_plain(node, budget) if node is not None else None for node in nodes]
    except RecursionError:
        raise ParseError("YAML nested too deeply") from None


def looks_like_manifest(text: str) -> bool:
    """Whether ``text`` is Kubernetes YAML or production-stack Helm values rather than a vLLM config file."""
    try:
        docs = load_documents(text)
    except ParseError:
        return False
    return any(isinstance(d, dict) and (_is_k8s_object(d) or _is_stack_values(d)) for d in docs)


def _is_k8s_object(doc: dict) -> bool:
    return isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str)


def _is_stack_values(doc: dict) -> bool:
    spec = doc.get("servingEngineSpec")
    return isinstance(spec, dict) and isinstance(spec.get("modelSpec"), list)


# ----------------------------------------------------------------------------- finding vLLM containers


def extract(text: str) -> list[Workload]:
    """Every vLLM server described by the manifests or Helm values in ``text``."""
    out: list[Workload] = []
    for index, doc in enumerate(load_documents(text)):
        if not isinstance(doc, dict):
            continue
        if _is_stack_values(doc):
            out.extend(_stack_values(doc, index))
        elif _is_k8s_object(doc):
            out.extend(_k8s_object(doc, index))
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            for item in doc["items"]:
                if isinstance(item, dict) and _is_k8s_object(item):
                    out.extend(_k8s_object(item, index))
    return out


def extract_object(obj: dict[str, Any]) -> list[Workload]:
    """The vLLM servers of one already-decoded Kubernetes object (an AdmissionReview's ``request.object``)."""
    doc = _wrap(obj, [MAX_NODES])
    if _is_stack_values(doc):
        return _stack_values(doc, 0)
    return _k8s_object(doc, 0) if _is_k8s_object(doc) else []


def _wrap(value: Any, budget: list[int]) -> Any:
    """Plain dicts and lists as the positioned ones ``extract`` works on (every position line 1, column 1)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ParseError(f"more than {MAX_NODES} nodes in the object")
    if isinstance(value, dict):
        out = _Map({k: _wrap(v, budget) for k, v in value.items()})
        out.key_pos = {}
        return out
    if isinstance(value, list):
        out = _Seq(_wrap(v, budget) for v in value)
        out.item_pos = [(1, 1)] * len(out)
        return out
    return value


def release_from_comment(text: str) -> str | None:
    """A ``# vllm-version: 0.33.0`` comment anywhere in the file."""
    match = _VERSION_COMMENT.search(text)
    return match.group(1) if match else None


def release_from_image(image: str | None) -> str | None:
    """``vllm/vllm-openai:v0.33.0`` -> ``0.33.0`` (``v0.5.0.post1`` -> ``0.5.0``); None when the tag names no
    release (``latest``). The intake step's reading of a tag, so that a manifest and a command agree."""
    return intake.release_from_tag(image)


def _object_name(doc: dict) -> str:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    parts = [str(doc.get("kind"))]
    if meta.get("namespace"):
        parts.append(str(meta["namespace"]))
    parts.append(str(meta.get("name") or "(unnamed)"))
    return "/".join(parts)


def _get(mapping: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _k8s_object(doc: dict, index: int) -> list[Workload]:
    kind = doc["kind"]
    name = _object_name(doc)
    templates: list[tuple[str, Any, int]] = []  # (label, pod spec, nodes)
    if kind in POD_TEMPLATE_KINDS:
        templates.append(("", _get(doc, "spec", "template", "spec"), 1))
    elif kind == "CronJob":
        templates.append(("", _get(doc, "spec", "jobTemplate", "spec", "template", "spec"), 1))
    elif kind == "Pod":
        templates.append(("", doc.get("spec"), 1))
    elif kind == "LeaderWorkerSet":
        lws = _get(doc, "spec", "leaderWorkerTemplate") or {}
        size = lws.get("size") if isinstance(lws.get("size"), int) else 1
        if isinstance(lws.get("leaderTemplate"), dict):
            templates.append(("leader ", _get(lws, "leaderTemplate", "spec"), size))
        templates.append(
            ("worker " if lws.get("leaderTemplate") else "", _get(lws, "workerTemplate", "spec"), size)
        )
    elif kind in KSERVE_RUNTIME_KINDS:
        templates.append(("", doc.get("spec"), 1))
    elif kind == "InferenceService":
        return _inference_service(doc, index, name)
    elif kind == "LLMInferenceService":
        return _llm_inference_service(doc, index, name)
    else:
        # Any other kind (AIBrix RayClusterFleet / StormService, KubeRay RayCluster / RayService, llm-d and
        # other operators' resources): every pod spec (a mapping with `containers`) anywhere in the object.
        templates.extend((label, spec, 1) for label, spec in _pod_specs(doc.get("spec"), ""))
    out = []
    for label, pod_spec, nodes in templates:
        if not isinstance(pod_spec, dict):
            continue
        for container in pod_spec.get("containers") or []:
            if isinstance(container, dict):
                workload = _container(container, index=index, owner=name, label=label, nodes=nodes)
                if workload is not None:
                    out.append(workload)
    kind_annotation = _annotated_kind(doc)
    for workload in out:
        workload.kind = kind_annotation
    if any(w.command for w in out):
        # the object runs vLLM and it was read: its other containers (a sidecar, Ray workers) are no launch
        out = [w for w in out if w.command or not _only_not_checked(w)]
    if not out and _mentions_vllm(doc):
        out.append(_not_checked(doc, index, name, _why_not_read(doc)))
    return out


NOT_CHECKED = "not checked: "  # the message prefix of a note saying a vLLM-looking part was not read


def _only_not_checked(workload: Workload) -> bool:
    return any(n.message.startswith(NOT_CHECKED) for n in workload.notes)


_SAYS_VLLM_KEYS = frozenset({"image", "command", "args", "uri", "script", "entrypoint", "serveConfigV2"})


def _mentions_vllm(value: Any, key: str | None = None) -> bool:
    """Whether an object (or container) looks like vLLM: an image, a command, arguments or an env value
    says so (names, labels and annotations do not count)."""
    if isinstance(value, str):
        return key in _SAYS_VLLM_KEYS and intake.mentions_vllm(value)
    if isinstance(value, dict):
        return any(
            _mentions_vllm(v, k if k in _SAYS_VLLM_KEYS else key)
            for k, v in value.items()
            if k not in ("metadata", "status", "labels", "annotations", "name")
        )
    if isinstance(value, list):
        return any(_mentions_vllm(v, key) for v in value)
    return False


def _why_not_read(doc: dict) -> str:
    kind = doc.get("kind")
    return (
        f"{_object_name(doc)}: the {kind} looks like it runs vLLM, but no container in it runs `vllm serve` "
        "that could be read (a launch in a script file or an image's entrypoint is not part of the manifest)"
    )


def _not_checked(doc: Any, index: int, name: str, why: str, container: str = "object") -> Workload:
    line, column = getattr(doc, "line", 1), getattr(doc, "column", 1)
    return Workload(
        owner=name,
        container=container,
        document=index,
        line=line,
        column=column,
        command="",
        notes=[Note(NOT_CHECKED + why, line, column, "warning")],
    )


def _pod_specs(value: Any, label: str, depth: int = 0) -> list[tuple[str, dict]]:
    """Every mapping with a ``containers`` list under ``value`` (pod specs of custom resources)."""
    if depth > 12:
        return []
    if isinstance(value, dict):
        if isinstance(value.get("containers"), list):
            return [(label, value)]
        out = []
        for key, item in value.items():
            sub = label
            if key in ("headGroupSpec", "leaderTemplate", "prefill", "decode", "worker"):
                sub = f"{label}{key} "
            elif key == "workerGroupSpecs":
                sub = f"{label}worker "
            out.extend(_pod_specs(item, sub, depth + 1))
        return out
    if isinstance(value, list):
        return [found for item in value for found in _pod_specs(item, label, depth + 1)]
    return []


# KServe LLMInferenceService (serving.kserve.io/v1alpha1, v1alpha2): the model, its parallelism and the
# arguments of VLLM_ADDITIONAL_ARGS become the `vllm serve` line KServe's default template runs.
_PARALLELISM_FLAGS = (
    ("tensor", "--tensor-parallel-size"),
    ("pipeline", "--pipeline-parallel-size"),
    ("data", "--data-parallel-size"),
    ("dataLocal", "--data-parallel-size-local"),
)


def _llm_inference_service(doc: dict, index: int, name: str) -> list[Workload]:
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    model = spec.get("model") if isinstance(spec.get("model"), dict) else {}
    out: list[Workload] = []
    sections = [("", spec)]
    for role in ("prefill", "decode"):
        if isinstance(spec.get(role), dict):
            sections.append((f"{role} ", {**spec, **spec[role]}))
    for label, section in sections:
        containers = _get(section, "template", "containers") or []
        main = next(
            (c for c in containers if isinstance(c, dict) and c.get("name") in ("main", None)),
            containers[0] if containers and isinstance(containers[0], dict) else None,
        )
        if main is not None and (main.get("command") or main.get("args")):
            workload = _container(main, index=index, owner=name, label=label, nodes=1)
            if workload is not None:
                out.append(workload)
                continue
        out.append(_llmisvc_workload(doc, section, model, main, index, name, label))
    for workload in out:
        workload.kind = _annotated_kind(doc)
    return out


def _number_or_text(value: Any) -> Any:
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d*\.\d+", value):
        return float(value)
    return value


def _llmisvc_workload(
    doc: dict, section: dict, model: dict, main: dict | None, index: int, name: str, label: str
) -> Workload:
    line, column = getattr(doc, "line", 1), getattr(doc, "column", 1)
    notes: list[Note] = []
    env: dict[str, str] = {}
    image = None
    hardware: dict[str, Any] = {}
    if main is not None:
        env, notes = _container_env(main, name)
        image = main.get("image") if isinstance(main.get("image"), str) else None
        hardware = _gpus(main)
        line, column = getattr(main, "line", line), getattr(main, "column", column)
    uri = str(model.get("uri") or "")
    served = str(model.get("name") or (doc.get("metadata") or {}).get("name") or "")
    # KServe downloads the model (hf://, s3://, pvc://) to /mnt/models and serves it under its name.
    target = uri if uri and not uri.startswith(("hf://", "s3://", "pvc://", "gs://", "oci://")) else ""
    if uri.startswith("hf://"):
        target = uri.removeprefix("hf://")
    argv = ["vllm", "serve", target or "/mnt/models"]
    if served:
        argv += ["--served-model-name", served]
    parallelism = section.get("parallelism") if isinstance(section.get("parallelism"), dict) else {}
    for key, flag in _PARALLELISM_FLAGS:
        if parallelism.get(key) is not None:
            argv += [flag, str(parallelism[key])]
    if parallelism.get("expert"):
        argv.append("--enable-expert-parallel")
    speculator = _get(section, "speculator", "config")
    if isinstance(speculator, dict) and speculator:
        config = {k: _number_or_text(v) for k, v in speculator.items()}
        argv += ["--speculative-config", json.dumps(config, separators=(",", ":"))]
    extra = env.pop("VLLM_ADDITIONAL_ARGS", "")
    if extra:
        try:
            argv += [w for w, _ in shell.split_words(extra)]
        except ParseError as exc:
            notes.append(Note(f"VLLM_ADDITIONAL_ARGS cannot be split: {exc.detail}", line, column))
    data, local = parallelism.get("data"), parallelism.get("dataLocal")
    if isinstance(section.get("worker"), dict) and isinstance(data, int) and isinstance(local, int) and local:
        hardware.setdefault("nodes", max(1, data // local))
    notes.append(
        Note(
            "the `vllm serve` line KServe's LLMInferenceService template runs, from spec.model, "
            "spec.parallelism and VLLM_ADDITIONAL_ARGS",
            line,
            column,
            "info",
        )
    )
    return Workload(
        owner=name,
        container=f"{label}model {served or '(unnamed)'}",
        document=index,
        line=line,
        column=column,
        command=shlex.join(argv),
        env=env,
        vllm_version=release_from_image(image),
        image=image,
        hardware=hardware,
        notes=notes,
        token_positions=[(w, line, column) for w in argv],
    )


def _annotated_kind(doc: dict) -> str | None:
    """The profile kind an object asks for with the annotation ``vllm-profiles.io/kind``."""
    for meta in (doc.get("metadata"), _get(doc, "spec", "template", "metadata")):
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        if isinstance(annotations, dict) and annotations.get(KIND_ANNOTATION) in ("serving", "collection"):
            return annotations[KIND_ANNOTATION]
    return None


def _inference_service(doc: dict, index: int, name: str) -> list[Workload]:
    predictor = _get(doc, "spec", "predictor") or {}
    out = []
    for container in predictor.get("containers") or []:
        if isinstance(container, dict):
            workload = _container(container, index=index, owner=name, label="", nodes=1)
            if workload is not None:
                out.append(workload)
    model = predictor.get("model")
    if isinstance(model, dict) and not out:
        runtime = model.get("runtime") or _get(model, "modelFormat", "name") or "?"
        workload = _container(
            {**model, "name": "kserve-container"}, index=index, owner=name, label="", nodes=1, report=False
        )
        if workload is not None:
            out.append(workload)
        else:
            line, column = getattr(model, "line", 1), getattr(model, "column", 1)
            out.append(
                Workload(
                    owner=name,
                    container=f"predictor model (runtime {runtime})",
                    document=index,
                    line=line,
                    column=column,
                    command="",
                    notes=[
                        Note(
                            f"{name}: the predictor's model server (runtime {runtime}) is not `vllm serve`: "
                            "its own flags are not vLLM's, so it is not checked; put vLLM's arguments in a "
                            "container that runs `vllm serve`",
                            line,
                            column,
                            "info",
                        )
                    ],
                )
            )
    return out


def _container(
    container: dict, *, index: int, owner: str, label: str, nodes: int, report: bool = True
) -> Workload | None:
    image = container.get("image") if isinstance(container.get("image"), str) else None
    env, notes = _container_env(container, owner)
    argv, positions = _argv(container, "command"), _positions(container, "command")
    args, arg_positions = _argv(container, "args"), _positions(container, "args")
    if not argv and image and _is_vllm_image(image):
        argv, positions = ["vllm", "serve"], [(container.line, container.column)] * 2
    words = argv + args
    word_pos = positions + arg_positions
    words, undefined = _expand_k8s_refs(words, env)
    line, column = getattr(container, "line", 1), getattr(container, "column", 1)
    for var in undefined:
        notes.append(
            Note(
                f"$({var}) is not defined in the container's env: Kubernetes passes it to vLLM literally",
                line,
                column,
            )
        )
    located = _vllm_invocation(words, word_pos, env)
    if (
        located is None
        and image
        and "vllm" in image.lower()
        and any(w.startswith("--") for w in args)
        and (not argv or argv[0].startswith("-"))
    ):
        # a vLLM image (a ServingRuntime's, say) whose entrypoint is the server: its args are vLLM's
        located = (["vllm", "serve", *words], [(line, column)] * 2 + word_pos, None)
        notes.append(
            Note(f"{image} is read as running `vllm serve` with these arguments", line, column, "info")
        )
    if located is None:
        ray_worker = re.search(r"\bray\s+start\b", " ".join(words)) and not re.search(
            r"vllm\s+serve|vllm\.entrypoints", " ".join(words)
        )
        if report and not ray_worker and _mentions_vllm({k: v for k, v in container.items() if k != "name"}):
            cname = container.get("name") or "(unnamed)"
            why = (
                f"{owner}, container {cname}: it looks like vLLM, but its command and args do not run "
                "`vllm serve` (or `python -m vllm.entrypoints.openai.api_server`) that could be read"
            )
            workload = _not_checked(container, index, owner, why, f"{label}container {cname}")
            workload.notes[:0] = notes
            return workload
        return None
    argv_out, pos_out, script_note = located
    if script_note:
        notes.append(Note(script_note, line, column, "info"))
    hardware = _gpus(container)
    if nodes > 1:
        hardware["nodes"] = nodes
    cname = container.get("name") or "(unnamed)"
    return Workload(
        owner=owner,
        container=f"{label}container {cname}",
        document=index,
        line=line,
        column=column,
        command=shlex.join(argv_out),
        env=env,
        vllm_version=release_from_image(image),
        image=image,
        hardware=hardware,
        notes=notes,
        token_positions=[(w, ln, col) for w, (ln, col) in zip(argv_out, pos_out, strict=False)],
    )


def _is_vllm_image(image: str) -> bool:
    name = image.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    return name.rsplit("/", 1)[-1] in ("vllm-openai", "vllm-openai-rocm", "vllm-tpu", "vllm-cpu")


def _argv(container: dict, key: str) -> list[str]:
    value = container.get(key)
    if isinstance(value, str) and value.strip():
        # `command: "vllm serve m --port 8000"`: one string (Kubernetes wants a list; charts write it so)
        try:
            return [w for w, _ in shell.split_words(value)]
        except ParseError:
            return value.split()
    if not isinstance(value, list):
        return []
    return ["" if item is None else str(item) for item in value]


def _positions(container: dict, key: str) -> list[tuple[int, int]]:
    value = container.get(key)
    if isinstance(value, _Seq):
        return list(value.item_pos)
    return []


def _container_env(container: dict, owner: str) -> tuple[dict[str, str], list[Note]]:
    env: dict[str, str] = {}
    notes: list[Note] = []
    items = container.get("env")
    if not isinstance(items, list):
        return env, notes
    for position, item in zip(getattr(items, "item_pos", []), items, strict=False):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        if "value" in item:
            value = item.get("value")
            env[item["name"]] = "" if value is None else str(value)
        elif "valueFrom" in item:
            source = (
                next(iter(item["valueFrom"]), "valueFrom") if isinstance(item["valueFrom"], dict) else "?"
            )
            if item["name"].startswith("VLLM_"):
                notes.append(
                    Note(
                        f"env {item['name']} comes from a {source}: its value is not in the manifest, so the "
                        "checks that read it cannot be verified",
                        position[0],
                        position[1],
                        "info",
                    )
                )
    if container.get("envFrom"):
        line, column = container.key_pos.get("envFrom", (container.line, container.column))
        notes.append(
            Note(
                f"{owner}: envFrom (ConfigMaps or Secrets) is not read; "
                "VLLM_* variables set there are not checked",
                line,
                column,
                "info",
            )
        )
    return env, notes


def _expand_k8s_refs(words: list[str], env: dict[str, str]) -> tuple[list[str], list[str]]:
    """Kubernetes' ``$(VAR)`` expansion of command and args (``$$`` escapes, undefined refs stay)."""
    undefined: list[str] = []

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        if name in env:
            return env[name]
        undefined.append(name)
        return match.group(0)

    return [_VAR_REF.sub(replace, word) for word in words], undefined


def _vllm_invocation(
    words: list[str], positions: list[tuple[int, int]], env: dict[str, str]
) -> tuple[list[str], list[tuple[int, int]], str | None] | None:
    """The vLLM argv inside ``words``: directly, or inside an ``sh -c`` script."""
    start = _vllm_start(words)
    if start is not None:
        pos = positions[start:] + [positions[-1] if positions else (1, 1)] * max(
            0, len(words) - len(positions)
        )
        return words[start:], pos[: len(words) - start], None
    if words and words[0].rsplit("/", 1)[-1] in _SHELLS and "-c" in words[:3]:
        at = words.index("-c")
        if at + 1 < len(words):
            script_pos = positions[at + 1] if at + 1 < len(positions) else (1, 1)
            found = _from_script(words[at + 1], env)
            if found is not None:
                argv, note = found
                return argv, [script_pos] * len(argv), note
    return None


def _vllm_start(words: list[str]) -> int | None:
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "vllm" and i + 1 < len(words) and words[i + 1] == "serve":
            return i
        if re.fullmatch(r"python(\d+(\.\d+)?)?", base) and words[i + 1 : i + 3] == ["-m", _API_SERVER]:
            return i
    return None


def _from_script(script: str, env: dict[str, str]) -> tuple[list[str], str | None] | None:
    """The ``vllm serve`` command of a shell script, read by the intake step (prompts, ``export`` lines,
    ``&&`` chains, continuations, ``exec`` and env prefixes), ``$VAR`` filled from the container's env."""
    reader = intake._Script({})
    reader.shell_vars = dict(env)
    launches = reader.run(script, form="script")
    if launches:
        launch = launches[0]
        unknown = [n for n, v in launch.variables.items() if v.get("unknown")]
        note = None
        if unknown:
            note = "shell variables not set in the container's env were left as written: " + ", ".join(
                f"${name}" if not name.startswith("$") else name for name in unknown
            )
        env.update(launch.env)  # `export X=1` / `X=1 vllm serve` in the script: the server's environment
        return launch.argv, note
    return _from_script_words(script, env)


def _from_script_words(script: str, env: dict[str, str]) -> tuple[list[str], str | None] | None:
    try:
        commands = shell.split_commands(script)
    except ParseError as exc:
        detail = f"the container's shell script cannot be split: {exc.detail}"
        raise ParseError(detail, where="sh -c") from exc
    for command in commands:
        start = _vllm_start(command)
        if start is None:
            continue
        local_env = dict(env)
        for word in command[:start]:
            name, sep, value = word.partition("=")
            if sep and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                local_env[name] = value
        unknown: list[str] = []

        def fill(
            match: re.Match[str], known: dict[str, str] = local_env, missing: list[str] = unknown
        ) -> str:
            name = match.group(1) or match.group(2)
            if name in known:
                return known[name]
            missing.append(name)
            return match.group(0)

        argv = [_SHELL_VAR.sub(fill, word) for word in command[start:]]
        note = None
        if unknown:
            note = "shell variables not set in the container's env were left as written: " + ", ".join(
                f"${name}" for name in dict.fromkeys(unknown)
            )
        return argv, note
    return None


def _gpus(container: dict) -> dict[str, Any]:
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    for section in ("limits", "requests"):
        block = resources.get(section) if isinstance(resources.get(section), dict) else {}
        for resource in GPU_RESOURCES:
            value = block.get(resource)
            if value is not None:
                try:
                    return {"gpus_per_node": int(str(value))}
                except ValueError:
                    return {}
    return {}


# ----------------------------------------------------------------------------- production-stack Helm values

# vllmConfig keys the chart's template turns into flags (helm/templates/deployment-vllm-multi.yaml).
_STACK_VALUE_FLAGS = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu-memory-utilization"),
    ("maxLoras", "--max-loras"),
)
_STACK_KNOWN = {
    "enableChunkedPrefill",
    "enablePrefixCaching",
    "extraArgs",
    "v0",
    "prometheusMultiprocDir",
    *(key for key, _ in _STACK_VALUE_FLAGS),
}


def _stack_values(doc: dict, index: int) -> list[Workload]:
    out = []
    specs = doc["servingEngineSpec"]["modelSpec"]
    for spec, (line, column) in zip(specs, getattr(specs, "item_pos", []), strict=False):
        if isinstance(spec, dict):
            out.append(_stack_model(spec, index, line, column))
    return out


def _stack_model(spec: dict, index: int, line: int, column: int) -> Workload:
    name = spec.get("name") or "(unnamed)"
    notes: list[Note] = []
    argv: list[tuple[str, tuple[int, int]]] = []  # (word, where it comes from in the values file)

    def add(*words: str, at: tuple[int, int] = (line, column)) -> None:
        argv.extend((word, at) for word in words)

    def key_at(mapping: dict, key: str) -> tuple[int, int]:
        return getattr(mapping, "key_pos", {}).get(key, (line, column))

    add("vllm", "serve")
    add(str(spec.get("modelURL") or ""), at=key_at(spec, "modelURL"))
    if not spec.get("modelURL"):
        notes.append(
            Note(f"modelSpec {name}: modelURL is missing (the chart requires it)", line, column, "error")
        )
    if spec.get("enableLoRA"):
        add("--enable-lora", at=key_at(spec, "enableLoRA"))
    if spec.get("enableTool"):
        add("--enable-auto-tool-choice", at=key_at(spec, "enableTool"))
    if spec.get("toolCallParser"):
        add("--tool-call-parser", str(spec["toolCallParser"]), at=key_at(spec, "toolCallParser"))
    config = spec.get("vllmConfig")
    env: dict[str, str] = {}
    if isinstance(config, dict):
        _stack_vllm_config(config, name, add, key_at, env, notes)
    lmcache = spec.get("lmcacheConfig")
    if isinstance(lmcache, dict) and lmcache.get("enabled"):
        role = lmcache.get("kvRole") or "kv_both"
        connector = "LMCacheConnector" if env.get("VLLM_USE_V1") == "0" else "LMCacheConnectorV1"
        config_json = f'{{"kv_connector":"{connector}","kv_role":"{role}"}}'
        add("--kv-transfer-config", config_json, at=key_at(spec, "lmcacheConfig"))
    for item in spec.get("env") or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and "value" in item:
            env[item["name"]] = str(item["value"])
    hardware: dict[str, Any] = {}
    if spec.get("requestGPU") is not None:
        try:
            hardware["gpus_per_node"] = int(spec["requestGPU"])
        except (TypeError, ValueError):
            gpu_at = key_at(spec, "requestGPU")
            notes.append(
                Note(f"modelSpec {name}: requestGPU {spec['requestGPU']!r} is not a number", *gpu_at)
            )
    image = f"{spec.get('repository') or 'vllm/vllm-openai'}:{spec.get('tag') or 'latest'}"
    return Workload(
        owner="production-stack values",
        container=f"modelSpec {name}",
        document=index,
        line=line,
        column=column,
        command=shlex.join(word for word, _ in argv),
        env=env,
        vllm_version=release_from_image(image),
        image=image,
        hardware=hardware,
        notes=notes,
        token_positions=[(word, at[0], at[1]) for word, at in argv],
    )


def _stack_vllm_config(config: dict, name: str, add, key_at, env: dict[str, str], notes: list[Note]) -> None:
    """The flags the chart's template writes for ``vllmConfig`` (in the template's order)."""
    if "enableChunkedPrefill" in config:
        on = config["enableChunkedPrefill"]
        add(
            "--enable-chunked-prefill" if on else "--no-enable-chunked-prefill",
            at=key_at(config, "enableChunkedPrefill"),
        )
    # The template writes one or the other whenever vllmConfig is given.
    on = config.get("enablePrefixCaching")
    add(
        "--enable-prefix-caching" if on else "--no-enable-prefix-caching",
        at=key_at(config, "enablePrefixCaching"),
    )
    for key, flag in _STACK_VALUE_FLAGS:
        if key in config:
            add(flag, _helm_str(config[key]), at=key_at(config, key))
    extra = config.get("extraArgs") or []
    if isinstance(extra, list):
        positions = getattr(extra, "item_pos", [])
        for i, item in enumerate(extra):
            add(_helm_str(item), at=positions[i] if i < len(positions) else key_at(config, "extraArgs"))
    if str(config.get("v0")) == "1":
        env["VLLM_USE_V1"] = "0"
    for key in sorted(set(config) - _STACK_KNOWN):
        notes.append(
            Note(
                f"modelSpec {name}: vllmConfig.{key} is not used by the chart's template",
                *key_at(config, key),
            )
        )


def _helm_str(value: Any) -> str:
    """A value as Helm's ``quote`` writes it into the manifest (booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ----------------------------------------------------------------------------- export


def _dns_name(name: str) -> str:
    """A Kubernetes object name (RFC 1123 label) made from a profile's name."""
    out = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    return (out or "vllm")[:63].rstrip("-")


def render_deployment(
    *, name: str, argv: list[str], env: dict[str, str], version: str, gpus: int | None, kind: str = "serving"
) -> str:
    """A Deployment running ``argv`` in the ``vllm/vllm-openai`` image of ``version``."""
    label = _dns_name(name)
    container: dict[str, Any] = {
        "name": "vllm",
        "image": f"vllm/vllm-openai:v{version}",
        "command": argv[:2],
        "args": argv[2:],
        "ports": [{"name": "http", "containerPort": 8000}],
    }
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    container["readinessProbe"] = {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10}
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": label, "labels": {"app.kubernetes.io/name": label}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": label}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": label}},
                "spec": {"containers": [container]},
            },
        },
    }
    if kind != "serving":
        manifest["metadata"]["annotations"] = {"vllm-profiles.io/kind": kind}
    return yaml.safe_dump(manifest, sort_keys=False, width=10**6)


def render_stack_values(
    *, name: str, argv: list[str], env: dict[str, str], version: str, gpus: int | None, prefix_caching: Any
) -> str:
    """production-stack values with one ``modelSpec`` for the profile (every flag through ``extraArgs``).

    The chart writes ``--enable-prefix-caching`` or ``--no-enable-prefix-caching`` whenever ``vllmConfig`` is
    given, so ``enablePrefixCaching`` carries the profile's choice (on when the profile leaves it to vLLM,
    whose default for generative models is on) and the flag is left out of ``extraArgs``.
    """
    model = argv[2] if len(argv) > 2 and not argv[2].startswith("-") else ""
    rest = argv[3:] if model else argv[2:]
    extra = [w for w in rest if w not in ("--enable-prefix-caching", "--no-enable-prefix-caching")]
    spec: dict[str, Any] = {
        "name": _dns_name(name),
        "repository": "vllm/vllm-openai",
        "tag": f"v{version}",
        "modelURL": model,
        "replicaCount": 1,
        "requestGPU": gpus or 1,
        "vllmConfig": {"enablePrefixCaching": prefix_caching is not False, "extraArgs": extra},
    }
    if env:
        spec["env"] = [{"name": k, "value": v} for k, v in env.items()]
    values = {"servingEngineSpec": {"modelSpec": [spec]}}
    return yaml.safe_dump(values, sort_keys=False, width=10**6)
