#!/usr/bin/env python
"""Conformance run: what REAL vLLM says about each case, next to what the product says.

  python benchmarks/conformance/run.py                       # all releases named in cases/*.yaml
  python benchmarks/conformance/run.py --releases 0.31.0     # one release
  python benchmarks/conformance/run.py --reuse-vllm          # read vllm_verdicts/<release>.json
  python benchmarks/conformance/run.py --product none        # record vLLM's verdicts only

For each release: one subprocess in that release's venv (setup_env.sh) runs every case through
vllm_verdict.py; the verdicts are written to vllm_verdicts/<release>.json (ground truth for rule writers).
Then the product is asked for its verdict on each case (pluggable, see PRODUCTS), and an agreement
table is printed and written to RESULTS.md.

Agreement: same refuse/accept decision; and when vLLM refuses with a config error (anything after
argument parsing), one of the product's error findings carries vLLM's message, compared after
normalising whitespace, where `{...}` placeholders in the product's message match any text.
The default product side (`--product inprocess`) imports the product: run it with the product's .venv python.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import freeze  # benchmarks/conformance/freeze.py: the frozen hold-out sets

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# Venvs, stand-in models, caches: outside the repository, per user (setup_env.sh writes the same default).
CONF_DIR = os.path.expanduser(os.environ.get("VLLM_CONF_DIR") or "~/.cache/vllm-profiles/conformance")
VERDICT_DIR = os.path.join(HERE, "vllm_verdicts")
RESULTS = os.path.join(HERE, "RESULTS.md")
# Stages of vllm_verdict.py after which a refusal is a "config error" whose message must be matched.
CONFIG_STAGES = {"validate", "dispatch", "server_setup", "engine_args", "config"}
# Per-case keys of a vLLM verdict kept in vllm_verdicts/<release>.json (its time is kept apart, in the file's
# ``timings``).
# vLLM's time per case is kept for two ways of timing it (vllm_verdict.py's --no-warm-up): each case forked
# from a process that has only imported vLLM's CLI, as a freshly started `vllm serve` is after its import
# (``timings_after_import``: the case pays vLLM's lazy imports and its model inspection, read from vLLM's own
# on-disk cache after the first time), or forked after one config per model was built in the parent
# (``timings``: every lazily imported module and inspected model already in memory).
TIMING_KEY = {True: "timings", False: "timings_after_import"}
KEEP = (
    "id",
    "command",
    "kind",
    "ok",
    "stage",
    "error_class",
    "message",
    "raised_at",
    "wrapped_in",
    "exit_code",
    "dispatch",
)


# --------------------------------------------------------------------------------------------------------
# Cases


def read_json(path: str):
    with open(path) as f:
        return json.load(f)


def write_json(path: str, obj, indent: int | None = None) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=indent, ensure_ascii=False)
        f.write("\n")


def read_text(path: str) -> str:
    with open(path) as f:
        return f.read()


def load_cases(pattern: str | None = None) -> list[dict]:
    cases, seen = [], set()
    for path in sorted(glob.glob(os.path.join(HERE, "cases", "*.yaml"))):
        doc = yaml.safe_load(read_text(path)) or {}
        for c in doc.get("cases", []):
            rel = c.get("releases") or c.get("release") or doc.get("releases") or doc.get("release")
            rel = [rel] if isinstance(rel, str) else [str(r) for r in rel]
            case = {
                "id": c["id"],
                "command": " ".join(str(c["command"]).split()),
                "kind": c.get("kind") or doc.get("kind") or "serving",
                "releases": rel,
                "file": os.path.basename(path),
                "note": c.get("note"),
            }
            if case["id"] in seen:
                raise SystemExit(f"duplicate case id {case['id']} in {path}")
            seen.add(case["id"])
            if pattern is None or re.search(pattern, case["id"]):
                cases.append(case)
    return cases


KNOWN = os.path.join(HERE, "known_disagreements.yaml")


def load_known(path: str = KNOWN) -> dict[str, dict]:
    """known_disagreements.yaml: case id -> {needs, reason} for every disagreement that is not fixed."""
    if not os.path.exists(path):
        return {}
    return (yaml.safe_load(read_text(path)) or {}).get("disagreements") or {}


PAIR_ID = re.compile(r"^pair[a-z]*-\d+\.\d+\.\d+-(.+)$")


def pair_reason(case_id: str, reasons: dict[str, dict]) -> dict | None:
    """A pair case (make_pairs.py: ``pair-RELEASE-A+B``) inherits the known reason of either of its cases:
    vLLM may name that one first, which the product cannot know."""
    m = PAIR_ID.match(case_id)
    parts = m.group(1).split("+") if m else []
    return next((reasons[p] for p in parts if p in reasons), None)


def release_key(v: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", v))


# --------------------------------------------------------------------------------------------------------
# vLLM side


def run_vllm(release: str, cases: list[dict], no_fork: bool = False, warm_up: bool = True) -> dict:
    py = os.path.join(CONF_DIR, f"venv-{release}", "bin", "python")
    if not os.path.exists(py):
        raise SystemExit(f"no venv for vLLM {release}: run benchmarks/conformance/setup_env.sh {release}")
    with tempfile.TemporaryDirectory() as tmp:
        cin, cout, log = (os.path.join(tmp, n) for n in ("cases.json", "verdicts.json", "stderr.log"))
        write_json(cin, {"cases": [{"id": c["id"], "command": c["command"]} for c in cases]})
        cmd = [py, os.path.join(HERE, "vllm_verdict.py"), "--cases", cin, "--out", cout]
        if no_fork:
            cmd.append("--no-fork")
        if not warm_up:
            cmd.append("--no-warm-up")
        t0 = time.perf_counter()
        with open(log, "w") as lf:
            proc = subprocess.run(
                cmd, stdout=subprocess.DEVNULL, stderr=lf, env={**os.environ, "VLLM_CONF_DIR": CONF_DIR}
            )
        if proc.returncode != 0 or not os.path.exists(cout):
            sys.stderr.write(read_text(log)[-5000:])
            raise SystemExit(f"vllm_verdict.py failed for {release} (exit {proc.returncode})")
        doc = read_json(cout)
        doc["harness"]["wall_seconds"] = round(time.perf_counter() - t0, 1)
    by_id = {c["id"]: c for c in cases}
    verdicts = []
    for v in doc["verdicts"]:
        c = by_id[v["id"]]
        v = {**v, "command": c["command"], "kind": c["kind"]}
        verdicts.append({k: v[k] for k in KEEP if k in v and v[k] is not None or k in ("ok",)})
    return {
        "vllm_version": doc["vllm_version"],
        "generated_by": "benchmarks/conformance/run.py",
        "harness": doc["harness"],
        "verdicts": verdicts,
        # per-case wall time of vLLM's check (parse .. create_engine_config), after the import; not saved
        "raw_verdicts": [{"id": v["id"], "elapsed_ms": v.get("elapsed_ms")} for v in doc["verdicts"]],
    }


def timings_of(release: str, doc: dict, key: str = "timings") -> dict:
    """vLLM's time per case in this run (``raw_verdicts``), merged into the times the release's verdict file
    already records (a partial run, ``--only``, re-times only its cases): kept in vllm_verdicts/<release>.json
    so that a ``--reuse-vllm`` run on any machine prints the ratio, saying when vLLM was measured."""
    ms = {v["id"]: v["elapsed_ms"] for v in doc.get("raw_verdicts", []) if v.get("elapsed_ms") is not None}
    path = os.path.join(VERDICT_DIR, f"{release}.json")
    old = (read_json(path).get(key) or {}) if os.path.exists(path) else {}
    return {
        "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "import_seconds": doc["harness"].get("import_seconds"),
        "elapsed_ms": {**(old.get("elapsed_ms") or {}), **ms},
    }


def load_vllm_timings(
    release: str, key: str = "timings"
) -> tuple[float | None, dict[str, float], str | None]:
    """vLLM's recorded time per case id: the verdict file's ``timings`` (or ``timings_after_import``), else
    (older runs) the file kept outside the repository ($VLLM_CONF_DIR/vllm-timings-<release>.json), with the
    import time and when it was measured. A file recorded before times were kept per case holds only its run's
    median (``median_ms``): that gives no time per case, so no ratio over the same cases (empty mapping)."""
    path = os.path.join(VERDICT_DIR, f"{release}.json")
    t = (read_json(path).get(key) or {}) if os.path.exists(path) else {}
    if not t and key == "timings":
        legacy = os.path.join(CONF_DIR, f"vllm-timings-{release}.json")
        t = read_json(legacy) if os.path.exists(legacy) else {}
    if not t:
        return None, {}, None
    return t.get("import_seconds"), dict(t.get("elapsed_ms") or {}), t.get("measured_at")


def same_case_medians(
    ids: list[str],
    vllm_ms: dict[str, float],
    product_ms: dict[str, float],
    engine_ms: dict[str, float],
    import_s: float | None,
    measured: str | None,
) -> dict | None:
    """Both sides' medians over the SAME case ids: the cases of this run that have vLLM's time and the
    product's (and the engine's, when it was timed). None when no case has both."""
    common = [i for i in ids if i in vllm_ms and i in product_ms and (not engine_ms or i in engine_ms)]
    if not common:
        return None
    return {
        "cases": len(common),
        "vllm_ms": median([vllm_ms[i] for i in common]),
        "product_ms": median([product_ms[i] for i in common]),
        "engine_ms": median([engine_ms[i] for i in common]) if engine_ms else None,
        "import_s": import_s,
        "measured": measured,
    }


def recorded_verdicts(path: str, cases: list[dict], remedy: str) -> tuple[dict, dict[str, dict]]:
    """A release's recorded verdict file and its verdicts by case id; it must hold every one of ``cases``."""
    if not os.path.exists(path):
        raise SystemExit(f"{path} missing; {remedy}")
    doc = read_json(path)
    by_id = {v["id"]: v for v in doc["verdicts"]}
    missing = [c["id"] for c in cases if c["id"] not in by_id]
    if missing:
        raise SystemExit(f"{path} lacks {len(missing)} cases (e.g. {missing[:3]}); {remedy}")
    return doc, by_id


def save_vllm(release: str, doc: dict, key: str = "timings") -> str:
    """Write the release's verdict file with this run's times under ``key``; the times kept under the other
    key (the other way of timing vLLM) stay as recorded."""
    os.makedirs(VERDICT_DIR, exist_ok=True)
    path = os.path.join(VERDICT_DIR, f"{release}.json")
    timings = timings_of(release, doc, key)
    old = read_json(path) if os.path.exists(path) else {}
    kept = {k: old[k] for k in TIMING_KEY.values() if k != key and k in old}
    stable = {
        **{k: v for k, v in doc.items() if k not in ("raw_verdicts", *TIMING_KEY.values())},
        "harness": {
            k: v
            for k, v in doc["harness"].items()
            if k not in ("import_seconds", "cases_seconds", "wall_seconds")
        },
        key: timings,
        **kept,
    }
    with open(path, "w") as f:
        json.dump(stable, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return path


# --------------------------------------------------------------------------------------------------------
# Product side (pluggable)


@dataclass
class ProductVerdict:
    status: str  # "accept" | "refuse" | "unparsed" | "unavailable" | "error"
    findings: list[dict] = field(default_factory=list)
    raw: str = ""
    elapsed_ms: float | None = None  # the product's own check of this configuration (inprocess only)
    engine_ms: float | None = None  # the engine alone: parse, document, catalog, rule pack (inprocess)

    @property
    def errors(self) -> list[dict]:
        return [f for f in self.findings if f.get("severity") == "error"]


def startup_findings(doc: dict) -> tuple[bool, list[dict]]:
    """The findings that make the start-up-check verdict compared with vLLM's, and whether it accepts.

    The product's GPU memory prediction (vllmcheck/engine/memory.py, rules ``memory-*``) is left out: vLLM's
    recorded verdict on this CPU machine stops at create_engine_config() on stand-in hardware, before any
    weights are loaded or the KV cache is sized, so it never says whether the configuration fits in memory.
    """
    findings = [f for f in doc.get("findings", []) if not str(f.get("rule", "")).startswith("memory-")]
    valid = not any(f.get("severity") == "error" and not f.get("waived") for f in findings)
    return valid, findings


class Product:
    name = "none"

    def available(self) -> tuple[bool, str]:
        return False, "no product adapter selected (--product none)"

    def verdict(self, release: str, kind: str, command: str) -> ProductVerdict:
        return ProductVerdict("unavailable")


class LintCommand(Product):
    """`python manage.py lint --vllm-version V --kind K --format json -` with the command on stdin.
    Exit 0: no error finding; 1: error findings; 2: input could not be parsed / version unknown."""

    name = "lint"

    def __init__(self, python: str, manage: str):
        self.python, self.manage = python, manage

    def available(self) -> tuple[bool, str]:
        if not (os.path.exists(self.python) and os.path.exists(self.manage)):
            return False, f"{self.python} or {self.manage} missing"
        p = subprocess.run(
            [self.python, self.manage, "help", "lint"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(self.manage),
        )
        if p.returncode != 0:
            return False, "`manage.py lint` is not available yet: " + (p.stderr.strip().splitlines() or [""])[
                -1
            ]
        return True, "manage.py lint"

    def verdict(self, release: str, kind: str, command: str) -> ProductVerdict:
        v = self._ask(release, kind, command)
        if v.status == "error" or "unknown vLLM release" in v.raw:
            time.sleep(2)  # the product's database may be mid-migration/import: ask once more
            v = self._ask(release, kind, command)
        return v

    def _ask(self, release: str, kind: str, command: str) -> ProductVerdict:
        argv = [self.python, self.manage, "lint", "--vllm-version", release, "--kind", kind]
        p = subprocess.run(
            [*argv, "--format", "json", "-"],
            input=command,
            capture_output=True,
            text=True,
            cwd=os.path.dirname(self.manage),
        )
        try:
            doc = json.loads(p.stdout) if p.stdout.strip() else None
        except json.JSONDecodeError:
            doc = None
        findings = doc.get("findings", []) if isinstance(doc, dict) else []
        status = {0: "accept", 1: "refuse", 2: "unparsed"}.get(p.returncode, "error")
        if status in ("accept", "refuse") and doc is None:
            status = "error"  # no findings document: the command crashed
        if status in ("accept", "refuse") and isinstance(doc, dict):
            valid, findings = startup_findings(doc)
            status = "accept" if valid else "refuse"
        raw = "" if doc is not None else (p.stderr.strip() or p.stdout.strip())[-500:]
        return ProductVerdict(status, findings, raw)


class ValidateApi(Product):
    """POST {base}/api/v1/validate/ {"kind", "vllm_version", "command"} (optionally with a token)."""

    name = "api"

    def __init__(self, base: str, token: str | None):
        self.base, self.token = base.rstrip("/"), token

    def _post(self, body: dict) -> tuple[int, dict]:
        req = urllib.request.Request(
            f"{self.base}/api/v1/validate/",
            data=json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                **({"Authorization": f"Token {self.token}"} if self.token else {}),
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                return e.code, json.loads(e.read() or b"{}")
            except json.JSONDecodeError:
                return e.code, {}

    def available(self) -> tuple[bool, str]:
        try:
            self._post({})
            return True, f"{self.base}/api/v1/validate/"
        except Exception as e:
            return False, f"{self.base} not reachable: {e}"

    def verdict(self, release: str, kind: str, command: str) -> ProductVerdict:
        code, doc = self._post({"kind": kind, "vllm_version": release, "command": command})
        if code == 400:
            return ProductVerdict("unparsed", doc.get("findings", []), json.dumps(doc)[:500])
        if code != 200:
            return ProductVerdict("error", [], json.dumps(doc)[:500])
        valid, findings = startup_findings(doc)
        return ProductVerdict("refuse" if not valid else "accept", findings)


class InProcess(Product):
    """The product's own service, in this process: one `django.setup()` against a migrated database, then
    `profiles.services.profile_dry_run()` per case (what `manage.py lint` and POST /api/v1/validate/ call).
    A `DomainError` (input cannot be parsed, unknown release) is lint's exit 2.

    Each case's profile carries what a product profile can carry about the stand-in node and model: the
    stand-in model directory's real config.json as `model_config` (vllm_verdict.py maps the hub id to that
    directory) and `hardware` matching the stand-in platform (8 x H100 80GB, one node).
    Without --database-url a fresh SQLite database is migrated first (about 6 s), so the product's rule set
    is the current `vllmcheck/rulepacks/builtin.yaml`, not whatever an older database loaded."""

    name = "inprocess"

    def __init__(self, database_url: str | None, models_dir: str, model_source: str = "profile"):
        self.database_url, self.models_dir = database_url, models_dir
        # "profile": the profile carries the stand-in's config.json (model_config); "hub": it carries none
        # and the product resolves the model from the offline Hugging Face cache, as `manage.py lint` does
        self.model_source = model_source
        self._tmp = None
        self.configs: dict[str, dict] = {}
        self._engine: dict[str, tuple] = {}

    def available(self) -> tuple[bool, str]:
        if REPO not in sys.path:
            sys.path.insert(0, REPO)
        url = self.database_url
        if not url:
            self._tmp = tempfile.TemporaryDirectory(prefix="conformance-db-")
            url = f"sqlite:///{os.path.join(self._tmp.name, 'db.sqlite3')}"
            p = subprocess.run(
                [sys.executable, os.path.join(REPO, "manage.py"), "migrate", "-v0"],
                cwd=REPO,
                capture_output=True,
                text=True,
                env={**os.environ, "DATABASE_URL": url},
            )
            if p.returncode != 0:
                return False, "manage.py migrate failed: " + (p.stderr.strip().splitlines() or [""])[-1]
        os.environ["DATABASE_URL"] = url
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        missing = [d for d in standin_models().values() if not os.path.exists(self.model_file(d))]
        if missing:  # no setup_env.sh run here: write the stand-ins' files as it does (no vLLM needed)
            print(f"writing {len(set(missing))} stand-in models into {self.models_dir}", file=sys.stderr)
            p = subprocess.run(
                [sys.executable, os.path.join(HERE, "standins", "make_model.py"), self.models_dir],
                capture_output=True,
                text=True,
            )
            if p.returncode != 0:
                return False, "standins/make_model.py failed: " + (p.stderr.strip().splitlines() or [""])[-1]
        # The product resolves the model (and a speculative draft model) the way it does in production, from
        # the Hugging Face cache: here an offline cache holding each stand-in's files (config.json, the
        # tokenizer's and the other *.json files), as vLLM reads them from the stand-in's directory.
        self._hf = tempfile.TemporaryDirectory(prefix="conformance-hf-")
        for hub_id, d in standin_models().items():
            directory = os.path.join(self.models_dir, d)
            if os.path.exists(os.path.join(directory, "config.json")):
                hf_cache_add(os.path.join(self._hf.name, "hub"), hub_id, standin_files(directory))
        os.environ.update(
            HF_HOME=self._hf.name, HF_HUB_CACHE=os.path.join(self._hf.name, "hub"), HF_HUB_OFFLINE="1"
        )
        try:
            import django

            django.setup()
            from profiles import services as profile_services
            from validation.errors import DomainError
            from validation.selectors import release_get
        except Exception as e:  # any failure means "product not available"
            return False, f"cannot set up the product in-process: {e}"
        self.services, self.domain_error, self.release_get = profile_services, DomainError, release_get
        for hub_id, d in standin_models().items():
            path = os.path.join(self.models_dir, d, "config.json")
            if os.path.exists(path):
                self.configs[hub_id] = read_json(path)
        given = "the model resolved from an offline HF cache"
        if self.model_source == "profile":
            given = "model_config"
        return (
            True,
            f"profiles.services.profile_dry_run (in-process, {given} + hardware of the stand-ins)",
        )

    def model_file(self, directory: str) -> str:
        return os.path.join(self.models_dir, directory, "config.json")

    def verdict(self, release: str, kind: str, command: str) -> ProductVerdict:
        s = self.services
        fields = {
            "kind": kind,
            "vllm_version": release,
            "command": command,
            "hardware": dict(STANDIN_HARDWARE),
        }
        try:
            try:  # the positional model decides which config.json the profile carries
                rel = self.release_get(release)
                model = s.parse_arguments(release=rel, command=command)["model"]
            except self.domain_error:
                model = None
            if model in self.configs and self.model_source == "profile":
                fields["model_config"] = self.configs[model]
            data = s.ProfileInput.from_mapping(fields)
            t0 = time.perf_counter()
            verdict = s.profile_dry_run(data=data)
            elapsed = (time.perf_counter() - t0) * 1000
        except self.domain_error as exc:
            where = f"{exc.field}: " if exc.field and exc.field not in ("command", "config") else ""
            return ProductVerdict("unparsed", [], f"DomainError: {where}{exc.message}")
        valid, findings = startup_findings(verdict.as_dict())
        return ProductVerdict(
            "accept" if valid else "refuse",
            findings,
            elapsed_ms=elapsed,
            engine_ms=self.engine_time(release, kind, command, self.configs.get(model) if model else None),
        )

    def engine_time(self, release: str, kind: str, command: str, model_config: dict | None) -> float | None:
        """The engine alone on one configuration (no Django, no database): parse the command line against
        the release's catalog, build the document, evaluate the compiled rule pack and the catalog checks.
        The catalog and the compiled pack are loaded once per release, outside the timing."""
        from vllmcheck.engine import lint as engine_lint
        from vllmcheck.engine import parse as engine_parse
        from vllmcheck.engine.types import EngineError

        if release not in self._engine:
            from validation.selectors import CatalogHistory, catalog_for, ruleset_compiled, ruleset_current

            self._engine[release] = (
                catalog_for(self.release_get(release)),
                ruleset_compiled(ruleset_current()),
                CatalogHistory(),
            )
        catalog, compiled, history = self._engine[release]
        t0 = time.perf_counter()
        try:
            parsed = engine_parse.parse_command(command, catalog=catalog)
            doc = engine_lint.build_document(
                kind=kind,
                version=release,
                model_name=parsed.get("model"),
                args=parsed.get("args"),
                env=parsed.get("env"),
                hardware=STANDIN_HARDWARE,
                model_config=model_config,
            )
            engine_lint.validate(doc, ruleset=compiled, catalog=catalog, history=history)
        except EngineError:
            pass  # refused while parsing: that too is the engine's answer
        return (time.perf_counter() - t0) * 1000


def hf_cache_add(cache_dir: str, repo: str, files: dict[str, bytes]) -> None:
    """``files`` (name -> content) as ``repo``'s snapshot in a Hugging Face hub cache, as hf_hub_download /
    snapshot_download leave it: one blob per content, a snapshot folder of symlinks, refs/main."""
    import hashlib

    digest = hashlib.sha1(repo.encode())
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name])
    commit = digest.hexdigest()
    root = os.path.join(cache_dir, "models--" + repo.replace("/", "--"))
    snapshot = os.path.join(root, "snapshots", commit)
    os.makedirs(os.path.join(root, "blobs"), exist_ok=True)
    os.makedirs(snapshot, exist_ok=True)
    for name, body in files.items():
        etag = hashlib.sha256(body).hexdigest()
        with open(os.path.join(root, "blobs", etag), "wb") as f:
            f.write(body)
        if not os.path.lexists(os.path.join(snapshot, name)):
            os.symlink(os.path.join("..", "..", "blobs", etag), os.path.join(snapshot, name))
    os.makedirs(os.path.join(root, "refs"), exist_ok=True)
    with open(os.path.join(root, "refs", "main"), "w") as f:
        f.write(commit)


def standin_files(directory: str) -> dict[str, bytes]:
    """Every file of a stand-in model directory (config.json, generation_config.json, the tokenizer's files,
    the processor's): what a Hugging Face cache holds of the real model once vLLM has read it (no weights)."""
    files = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                files[name] = f.read()
    return files


# What the stand-in platform plugin reports (standins/plugin/), as a product profile's `hardware`.
STANDIN_HARDWARE = {"gpus_per_node": 8, "nodes": 1, "gpu": "H100-80GB"}


def standin_models() -> dict[str, str]:
    """vllm_verdict.py's MODEL_DIRS (hub id -> stand-in directory), read without importing it."""
    import ast

    tree = ast.parse(read_text(os.path.join(HERE, "vllm_verdict.py")))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "MODEL_DIRS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def make_product(opts) -> Product:
    if opts.product == "inprocess":
        return InProcess(opts.database_url, opts.models_dir, opts.model_source)
    if opts.product == "none":
        return Product()
    if opts.product == "api":
        return ValidateApi(opts.api_url, opts.api_token)
    return LintCommand(opts.product_python, opts.manage)


# --------------------------------------------------------------------------------------------------------
# Comparison


def norm(s: str | None) -> str:
    return " ".join((s or "").split())


PLACEHOLDER = re.compile(r"\{[^{}]*\}|<unknown: [^>]*>|\u2026")


def message_matches(vllm_msg: str, product_msg: str, loose: bool = False) -> bool:
    """vLLM's FILLED message equals the product's (whitespace-normalised). A product message that still
    holds a placeholder (`{self.x}`, `{tp}`, or the engine's `…` for a value it could not fill)
    does not match; with `loose`, a placeholder matches any text (how far the product is from vLLM's text
    apart from filling in values: reported as its own kind of disagreement)."""
    # the pack keeps an escape of vLLM's source string as written (`\n`)
    v, p = norm(vllm_msg), norm((product_msg or "").replace("\\n", "\n").replace("\\t", "\t"))
    if not v or not p:
        return False
    if v == p:
        return True
    if loose:
        pieces = PLACEHOLDER.split(p)
        if len(pieces) > 1:
            rx = ".*?".join(re.escape(x) for x in pieces)
            if re.fullmatch(rx, v, flags=re.S):
                return True
    # a multi-error vLLM message (pydantic may report several) matches if one of its lines does
    lines = [norm(x) for x in (vllm_msg or "").split("\n") if x.strip()]
    return len(lines) > 1 and any(message_matches(x, product_msg, loose) for x in lines)


def vllm_text(v: dict) -> str:
    """The text vLLM raised. A KeyError's str() is the repr of its argument (`'invalid tool call parser:
    ...'`, quotes included); vLLM's message is the argument itself, as `KeyError: ...` shows it."""
    msg = v.get("message") or ""
    if v.get("error_class") == "KeyError" and len(msg) >= 2 and msg[0] == msg[-1] and msg[0] in "'\"":
        try:
            text = ast.literal_eval(msg)
        except (ValueError, SyntaxError):
            return msg
        return text if isinstance(text, str) else msg
    return msg


def needs_message_match(v: dict) -> bool:
    """A refusal whose text is vLLM's own (raised by a check after parsing). Argparse errors and pydantic
    field constraints (`gt`, `le`, Literal, unknown key ...) are pydantic's/argparse's wording, which the
    product may phrase as a catalog finding: for those only the decision is compared."""
    return v.get("stage") in CONFIG_STAGES and not str(v.get("error_class") or "").startswith("pydantic:")


def compare(v: dict, p: ProductVerdict) -> tuple[str, str | None]:
    """-> (agree: 'yes' | 'no' | 'n/a', matching finding's rule/message or None)

    Product exit 2 ("input cannot be parsed") counts as a refusal: vLLM's own parser refuses those
    command lines too (e.g. `-tp two`); the product's error text is then matched like a finding."""
    if p.status in ("unavailable",):
        return "n/a", None
    if p.status not in ("accept", "refuse", "unparsed"):
        return "no", None
    v_refuse = not v["ok"]
    if v_refuse != (p.status in ("refuse", "unparsed")):
        return "no", None
    if not v_refuse:
        return "yes", None
    candidates = [(f.get("rule") or f.get("message"), f.get("message") or "") for f in p.errors]
    if p.status == "unparsed":
        candidates.append(("exit 2: " + p.raw.strip()[:200], p.raw.strip().split(": ", 1)[-1]))
    if needs_message_match(v):
        vmsg = vllm_text(v)
        for label, msg in candidates:
            if message_matches(vmsg, msg) or (
                p.status == "unparsed" and norm(v.get("message")) and norm(v.get("message")) in norm(msg)
            ):
                return "yes", label
        for label, msg in candidates:
            if message_matches(vmsg, msg, loose=True):
                return "no", f"placeholder: {label}"  # vLLM's reason, but the values are not filled in
        return "no", None  # refused, but not for vLLM's reason
    return "yes", candidates[0][0] if candidates else None


# --------------------------------------------------------------------------------------------------------
# Report


def disagreement_kind(v: dict, p: ProductVerdict, match: str | None = None) -> str:
    if match and match.startswith("placeholder: "):
        return "product's message keeps a placeholder"
    if p.status == "error":
        return "product error"
    if v["ok"]:
        return "product refuses, vLLM accepts"
    if p.status == "accept":
        return "product accepts, vLLM refuses"
    return "both refuse, product without vLLM's message"


def md_escape(s: str, limit: int = 220) -> str:
    s = norm(s)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return s.replace("|", "\\|")


def vllm_cell(v: dict) -> str:
    if v["ok"]:
        return "accept"
    what = f"refuse ({v.get('stage')}) {v.get('error_class')}: {v.get('message')}"
    return md_escape(what)


def product_cell(p: ProductVerdict, match: str | None) -> str:
    if p.status == "unavailable":
        return "n/a"
    if p.status in ("unparsed", "error"):
        return md_escape(f"{p.status}: {p.raw}")
    if p.status == "accept":
        return "accept"
    shown = match or "; ".join(f"{f.get('rule')}: {f.get('message')}" for f in p.errors[:2])
    return md_escape(f"refuse: {shown}")


def summarize_vllm(vs: list[dict]) -> str:
    acc = sum(1 for v in vs if v["ok"])
    stages: dict[str, int] = {}
    for v in vs:
        if not v["ok"]:
            stages[v.get("stage") or "?"] = stages.get(v.get("stage") or "?", 0) + 1
    st = ", ".join(f"{k} {n}" for k, n in sorted(stages.items(), key=lambda kv: -kv[1]))
    return f"{len(vs)} cases: vLLM accepts {acc}, refuses {len(vs) - acc} ({st})"


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def ratio(a: float, b: float | None) -> str:
    return f"{a / b:,.0f}" if b else "-"


def timing_table(timings: list[dict], argv: list[str]) -> list[str]:
    """vLLM's own check vs the product's, per configuration, both sides' medians over the same case ids:
    vLLM warmed up first (both sides' checks alone), then vLLM after its import only (as a freshly started
    `vllm serve`, paying its lazy imports and model inspection). ``timings``: one dict per release,
    ``{"release", "warm", "cold", "untimed"}`` with :func:`same_case_medians` or None."""
    load = os.getloadavg()
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    lines = [
        "## Time per configuration: vLLM's own check vs the product's",
        "",
        "Each ratio is the median of vLLM's time over the median of the product's, **both taken over the "
        "same case ids** (column `cases`): the cases of this run that have vLLM's time per case (measured "
        "in this run, or in the run named in the column `vLLM measured` when its verdicts were re-used with "
        "`--reuse-vllm`) and the product's time in this run. vLLM: wall time of one case in a forked child "
        "(parser, `validate`, `serve` dispatch, `create_engine_config()`); its import is paid once per "
        "process and shown apart. Product: `profiles.services.profile_dry_run()` in-process (parse, catalog, "
        "the whole rule pack, findings), rule set already compiled after the first case; engine alone: "
        "`vllmcheck.engine` without Django or a database (parse the command line against the release's "
        "catalog, build the document, evaluate the compiled rule pack and the catalog checks).",
        "",
        "**Warmed up** (first: the like-for-like figure): one configuration per model was built in vLLM's "
        "process before the cases were forked, so every lazily imported module and inspected model is in "
        "memory, as the product's compiled rule set is. **After import** (second, `run.py --no-warm-up`): "
        "each case is forked from a process that has only imported vLLM's CLI, as a freshly started `vllm "
        "serve` is after its import, so each case also pays vLLM's lazy imports and its model inspection "
        '(issue 12\'s "parser and `create_engine_config()`, after the import"): a cold figure, larger.',
        "",
        f"Command: `{' '.join(['.venv/bin/python', 'benchmarks/conformance/run.py', *argv])}`",
        f"Machine: {os.cpu_count()} cores, {mem:.0f} GiB, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} at the end of the run (shared with other sessions: figures are indicative).",
        "",
        "### vLLM warmed up",
        "",
        "| release | vLLM measured | vLLM import (s) | cases | vLLM median (ms) | product median (ms) | "
        "ratio | engine alone median (ms) | engine ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    said = []
    for t in timings:
        w = t.get("warm")
        if not w:
            continue
        e_cell = f"{w['engine_ms']:.3f}" if w["engine_ms"] else "-"
        lines.append(
            f"| {t['release']} | {w['measured']} | {w['import_s']} | {w['cases']} | {w['vllm_ms']:.1f} | "
            f"{w['product_ms']:.3f} | {ratio(w['vllm_ms'], w['product_ms'])} | {e_cell} | "
            f"{ratio(w['vllm_ms'], w['engine_ms'])} |"
        )
        said.append(
            f"- vLLM {t['release']} warmed up: the engine answers {ratio(w['vllm_ms'], w['engine_ms'])} "
            f"times faster, the whole dry run {ratio(w['vllm_ms'], w['product_ms'])} times (over the same "
            f"{w['cases']} cases)"
        )
    cold = [t for t in timings if t.get("cold")]
    lines += ["", "### vLLM after its import only (cold)", ""]
    if cold:
        lines += [
            "| release | vLLM measured | vLLM import (s) | cases | vLLM median (ms) | product median (ms) | "
            "ratio | engine alone median (ms) | engine ratio |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for t in cold:
            c = t["cold"]
            e_cell = f"{c['engine_ms']:.3f}" if c["engine_ms"] else "-"
            lines.append(
                f"| {t['release']} | {c['measured']} | {c['import_s']} | {c['cases']} | {c['vllm_ms']:.1f} | "
                f"{c['product_ms']:.3f} | {ratio(c['vllm_ms'], c['product_ms'])} | {e_cell} | "
                f"{ratio(c['vllm_ms'], c['engine_ms'])} |"
            )
            said.append(
                f"- vLLM {t['release']} after its import only (cold): the engine answers "
                f"{ratio(c['vllm_ms'], c['engine_ms'])} times faster, the whole dry run "
                f"{ratio(c['vllm_ms'], c['product_ms'])} times (over the same {c['cases']} cases)"
            )
    else:
        lines.append("No release was timed after its import only yet (`run.py --no-warm-up`).")
    untimed = [t["release"] for t in timings if not t.get("warm") and not t.get("cold")]
    lines += ["", "Ratio = median vLLM / median product (or engine) over the same cases:", "", *said, ""]
    if untimed:
        lines += [
            f"No vLLM time per case is recorded for {', '.join(untimed)} (their verdict files keep only a "
            "run's median, over other cases): no ratio is given for them.",
            "",
        ]
    return lines


def tally(records: list[dict]) -> dict:
    """Agreement and first-error counts of some (case, release) records."""
    judged = [r for r in records if r["agree"] != "n/a"]
    firsts = [r for r in records if r["first"] is not None]
    return {
        "pairs": len(records),
        "cases": len({r["id"] for r in records}),
        "judged": len(judged),
        "agree": sum(r["agree"] == "yes" for r in judged),
        "first_judged": len(firsts),
        "first": sum(bool(r["first"]) for r in firsts),
        "unlisted": sum(bool(r.get("unlisted")) for r in records),
    }


def set_figures(
    records: list[dict], files: dict[str, str] | None, exclude: set[str] = frozenset()
) -> list[dict]:
    """Per case file (``files``: file -> set name, only those; None: every file but ``exclude``) and release:
    the :func:`tally`, then the file's total over its releases (release ``all``)."""
    by_file: dict[str, list[dict]] = {}
    for r in records:
        if (files is None and r["file"] not in exclude) or (files is not None and r["file"] in files):
            by_file.setdefault(r["file"], []).append(r)
    out = []
    for file in sorted(by_file):
        rs = by_file[file]
        name = files[file] if files else os.path.splitext(file)[0]
        rels = sorted({r["release"] for r in rs}, key=release_key)
        for rel in rels:
            out.append(
                {"set": name, "file": file, "release": rel, **tally([r for r in rs if r["release"] == rel])}
            )
        out.append({"set": name, "file": file, "release": "all", "releases": rels, **tally(rs)})
    return out


def share(n: int, of: int) -> str:
    return f"{n}/{of} ({100 * n / of:.1f}%)" if of else "-"


def frozen_section(records: list[dict], manifest: dict, problems: list[str], notes: list[str]) -> list[str]:
    """RESULTS.md's first table: the frozen sets, held out from every rule (freeze.py, frozen.yaml)."""
    lines = [
        "## Held out: the frozen sets, never learnt from",
        "",
        "The out-of-sample figures. Each set in `frozen.yaml` was recorded on real vLLM before any rule was "
        "written for it and frozen then (`freeze.py`): its case file and recorded verdicts are unchanged "
        "since, and no commit after the freeze that touches the rule pack names one of its cases "
        "(`tests/benchmarks/test_frozen_holdout.py`); `make_pairs.py` and `order_from_pairs.py` leave its "
        "cases out.",
        "",
    ]
    if not manifest:
        return lines + [
            "No set is frozen yet: `freeze.py NAME` freezes `cases/NAME.yaml` (see README.md).",
            "",
        ]
    figures = set_figures(records, {os.path.basename(e["file"]): n for n, e in manifest.items()})
    lines += [
        "| frozen set | frozen at | release | cases | product agrees | vLLM's message is the product's first "
        "error | not in known_disagreements.yaml |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        entry = manifest[f["set"]]
        rel = "**all releases**" if f["release"] == "all" else f["release"]
        lines.append(
            f"| `{f['file']}` | `{entry['commit'][:10]}` ({entry.get('frozen_on', '')}) | {rel} | "
            f"{f['cases']} | {share(f['agree'], f['judged'])} | {share(f['first'], f['first_judged'])} | "
            f"{f['unlisted']} |"
        )
    absent = [
        n for n, e in manifest.items() if os.path.basename(e["file"]) not in {f["file"] for f in figures}
    ]
    if absent:
        lines += [
            "",
            f"Not run here (`--only` / `--releases` / `--sample` left them out): {', '.join(absent)}.",
        ]
    if problems:
        lines += ["", "**These sets are not held out any more** (freeze.py --check):", ""]
        lines += [f"- {md_escape(p, 400)}" for p in problems]
    lines += [f"- note: {n}" for n in notes]
    return lines + [""]


def learnt_section(records: list[dict], frozen_files: set[str]) -> list[str]:
    """Every other case file: in-sample figures, after the held-out ones."""
    figures = [f for f in set_figures(records, None, exclude=frozen_files) if f["release"] == "all"]
    lines = [
        "## Learnt from: every other case file",
        "",
        "In-sample figures. Rules were written or fixed after reading these cases' vLLM verdicts: the pair "
        "sets are built from recorded single cases and ordered the rules (`order_from_pairs.py`); "
        "`holdout.yaml` and `pairs_final*.yaml` were written before the rules they measure but were not "
        "frozen, and rules were fixed against `holdout.yaml` after it was recorded.",
        "",
        "| case file (learnt from) | releases | cases | (case, release) pairs | product agrees | vLLM's "
        "message is the product's first error | not in known_disagreements.yaml |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        rels = f["releases"]
        span = rels[0] if len(rels) == 1 else f"{len(rels)} ({rels[0]} to {rels[-1]})"
        lines.append(
            f"| `{f['file']}` | {span} | {f['cases']} | {f['pairs']} | {share(f['agree'], f['judged'])} | "
            f"{share(f['first'], f['first_judged'])} | {f['unlisted']} |"
        )
    total = tally([r for r in records if r["file"] not in frozen_files])
    lines.append(
        f"| **all learnt-from files** | | {total['cases']} | {total['pairs']} | "
        f"{share(total['agree'], total['judged'])} | {share(total['first'], total['first_judged'])} | "
        f"{total['unlisted']} |"
    )
    return lines + [""]


def sample_pairs(
    cases: list[dict], releases: set[str], n: int, frozen_files: set[str]
) -> set[tuple[str, str]]:
    """Every (case, release) pair of a frozen set, plus ``n`` others: those whose sha256 of ``release/id`` is
    smallest, so the choice is fixed for a given set of cases and spreads over files and releases."""
    pairs = [(c["id"], r, c["file"]) for c in cases for r in c["releases"] if r in releases]
    held = {(i, r) for i, r, f in pairs if f in frozen_files}
    others = sorted(
        ((i, r) for i, r, f in pairs if f not in frozen_files),
        key=lambda p: hashlib.sha256(f"{p[1]}/{p[0]}".encode()).hexdigest(),
    )
    return held | set(others[: max(0, n)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="vLLM conformance: real vLLM verdicts vs the product's")
    ap.add_argument("--releases", help="comma-separated; default: every release named in cases/*.yaml")
    ap.add_argument("--only", help="regex on case ids")
    ap.add_argument(
        "--reuse-vllm", action="store_true", help="read vllm_verdicts/<release>.json instead of running vLLM"
    )
    ap.add_argument("--no-fork", action="store_true", help="pass --no-fork to vllm_verdict.py")
    ap.add_argument(
        "--no-warm-up",
        action="store_true",
        help="time vLLM as a freshly started `vllm serve` after its import (vllm_verdict.py --no-warm-up): "
        "the times are kept as the release's `timings_after_import`; the verdicts stay those recorded "
        "(with the warm-up), and any case whose verdict differs is reported",
    )
    ap.add_argument(
        "--reuse-product",
        action="store_true",
        help="re-render from the product verdicts cached by the last run "
        "($VLLM_CONF_DIR/product-verdicts-*.json)",
    )
    ap.add_argument("--product", choices=["inprocess", "lint", "api", "none"], default="inprocess")
    ap.add_argument(
        "--database-url",
        default=os.environ.get("CONFORMANCE_DATABASE_URL"),
        help="inprocess: a migrated database to use (default: migrate a fresh temporary SQLite one)",
    )
    ap.add_argument("--models-dir", default=os.path.join(CONF_DIR, "models"))
    ap.add_argument(
        "--model-source",
        choices=["profile", "hub"],
        default="hub",
        help="inprocess: resolved by the product from an offline Hugging Face cache holding the stand-ins' "
        "files (HF_HOME, HF_HUB_OFFLINE=1: config.json, the tokenizer, every *.json; the default, as the "
        "product is used), or the stand-in's config.json given with the profile (model_config) alone",
    )
    ap.add_argument("--product-python", default=os.path.join(REPO, ".venv", "bin", "python"))
    ap.add_argument("--manage", default=os.path.join(REPO, "manage.py"))
    ap.add_argument("--api-url", default="http://127.0.0.1:8000")
    ap.add_argument("--api-token", default=os.environ.get("VLLM_PROFILES_TOKEN"))
    ap.add_argument("--jobs", type=int, default=2, help="parallel product calls")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="with --reuse-vllm: replay every frozen case (frozen.yaml) on each of its releases, plus N "
        "other (case, release) pairs, a fixed choice (the smallest sha256 of `release/id`): what CI replays",
    )
    ap.add_argument(
        "--fail-on-new",
        action="store_true",
        help="exit 1 if a disagreement is not listed in known_disagreements.yaml (each is printed anyway)",
    )
    ap.add_argument("--known", default=KNOWN, help="the disagreements file (default: %(default)s)")
    ap.add_argument(
        "--json", metavar="PATH", help="also write the figures as JSON (benchmarks/report.py reads it)"
    )
    opts = ap.parse_args(argv)
    if opts.sample is not None and not opts.reuse_vllm:
        ap.error("--sample replays recorded verdicts: use it with --reuse-vllm")

    cases = load_cases(opts.only)
    releases = sorted({r for c in cases for r in c["releases"]}, key=release_key)
    if opts.releases:
        releases = [r.strip() for r in opts.releases.split(",")]
    manifest = freeze.load_manifest(freeze.ROOT)
    frozen_of = {}  # case file -> frozen set name
    for name, entry in manifest.items():
        frozen_of[os.path.basename(entry["file"])] = name
    chosen = None
    if opts.sample is not None:
        chosen = sample_pairs(cases, set(releases), opts.sample, set(frozen_of))
        print(
            f"replaying {len(chosen)} (case, release) pairs: every frozen case, {opts.sample} others",
            file=sys.stderr,
        )

    product = make_product(opts)
    p_ok, p_desc = product.available()
    print(f"product: {p_desc}" if p_ok else f"product unavailable: {p_desc}", file=sys.stderr)

    reasons = load_known(opts.known)
    sections, summaries, listed, timings = [], [], {}, []
    records: list[dict] = []  # one per (case, release): agree, first error, unlisted
    unlisted: list[tuple] = []  # disagreements known_disagreements.yaml does not list
    for rel in releases:
        rcases = [c for c in cases if rel in c["releases"] and (chosen is None or (c["id"], rel) in chosen)]
        if not rcases:
            continue
        vpath = os.path.join(VERDICT_DIR, f"{rel}.json")
        if opts.reuse_vllm:
            vdoc, known = recorded_verdicts(vpath, rcases, "run without --reuse-vllm")
        else:
            print(f"[{rel}] asking vLLM about {len(rcases)} cases ...", file=sys.stderr, flush=True)
            vdoc = run_vllm(rel, rcases, opts.no_fork, warm_up=not opts.no_warm_up)
            if opts.no_warm_up:  # timing only: the verdicts recorded with the warm-up stay
                stored, by_id = recorded_verdicts(vpath, rcases, "record them first, without --no-warm-up")
                same = ("ok", "stage", "error_class", "message")
                differ = [
                    v["id"]
                    for v in vdoc["verdicts"]
                    if v["id"] in by_id and any(v.get(k) != by_id[v["id"]].get(k) for k in same)
                ]
                print(
                    f"[{rel}] without the warm-up, {len(differ)} of {len(vdoc['verdicts'])} verdicts differ "
                    f"from the recorded ones{': ' + ', '.join(differ[:20]) if differ else ''}",
                    file=sys.stderr,
                )
                harness = {**stored["harness"], "import_seconds": vdoc["harness"].get("import_seconds")}
                save_vllm(
                    rel,
                    {**stored, "raw_verdicts": vdoc["raw_verdicts"], "harness": harness},
                    TIMING_KEY[False],
                )
                vdoc = {**vdoc, "verdicts": stored["verdicts"]}
            elif opts.only is None:
                save_vllm(rel, vdoc)
            else:  # partial run: merge into the stored file
                old = read_json(vpath) if os.path.exists(vpath) else {**vdoc, "verdicts": []}
                merged = {v["id"]: v for v in old["verdicts"]}
                merged.update({v["id"]: v for v in vdoc["verdicts"]})
                order = [c["id"] for c in load_cases() if rel in c["releases"]]
                save_vllm(rel, {**vdoc, "verdicts": [merged[i] for i in order if i in merged]})
            h = vdoc["harness"]
            print(
                f"[{rel}] vLLM import {h.get('import_seconds')} s, {len(rcases)} cases in "
                f"{h.get('cases_seconds')} s ({h.get('isolation')})",
                file=sys.stderr,
            )
            known = {v["id"]: v for v in vdoc["verdicts"]}

        verdicts = [known[c["id"]] for c in rcases]
        pcache = os.path.join(CONF_DIR, f"product-verdicts-{rel}.json")
        if opts.reuse_product and os.path.exists(pcache):
            cached = read_json(pcache)
            pvs = [
                ProductVerdict(**cached[c["id"]]) if c["id"] in cached else ProductVerdict("unavailable")
                for c in rcases
            ]
        elif p_ok:
            t0 = time.perf_counter()
            if product.name == "inprocess":  # one Django process: sequential (SQLite, shared connection)
                pvs = [product.verdict(rel, c["kind"], c["command"]) for c in rcases]
            else:
                with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
                    pvs = list(pool.map(lambda c, r=rel: product.verdict(r, c["kind"], c["command"]), rcases))
            print(
                f"[{rel}] product ({product.name}): {len(rcases)} cases in {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
            )
            try:
                os.makedirs(CONF_DIR, exist_ok=True)
                cache = read_json(pcache) if os.path.exists(pcache) else {}
                cache.update({c["id"]: p.__dict__ for c, p in zip(rcases, pvs, strict=True)})
                write_json(pcache, cache)
            except OSError:
                pass
        else:
            pvs = [ProductVerdict("unavailable") for _ in rcases]

        ids = [c["id"] for c in rcases]
        p_by = {c["id"]: p.elapsed_ms for c, p in zip(rcases, pvs, strict=True) if p.elapsed_ms is not None}
        e_by = {c["id"]: p.engine_ms for c, p in zip(rcases, pvs, strict=True) if p.engine_ms is not None}
        imp, v_by, when = load_vllm_timings(rel)
        imp_a, va_by, when_a = load_vllm_timings(rel, TIMING_KEY[False])
        if not opts.reuse_vllm:
            if opts.no_warm_up:
                when_a = "this run"
            else:
                when = "this run"
        if p_by and not opts.reuse_product:  # the product timed in this run; vLLM over the same case ids
            warm = same_case_medians(ids, v_by, p_by, e_by, imp, when)
            cold = same_case_medians(ids, va_by, p_by, e_by, imp_a, when_a)
            timings.append({"release": rel, "warm": warm, "cold": cold})
            for label, t in (("warmed up", warm), ("after its import only", cold)):
                if t:
                    print(
                        f"[{rel}] time per configuration, vLLM {label} ({t['measured']}), over the same "
                        f"{t['cases']} cases: vLLM median {t['vllm_ms']:.1f} ms, product "
                        f"{t['product_ms']:.3f} ms (ratio {ratio(t['vllm_ms'], t['product_ms'])}), engine "
                        f"alone {t['engine_ms'] or 0:.3f} ms (ratio {ratio(t['vllm_ms'], t['engine_ms'])})",
                        file=sys.stderr,
                    )

        rows, agree_n, judged, kinds = [], 0, 0, {}
        first_n, first_judged, not_first = 0, 0, []
        for c, v, p in zip(rcases, verdicts, pvs, strict=True):
            agree, match = compare(v, p)
            record = {"id": c["id"], "file": c["file"], "release": rel, "agree": agree, "first": None}
            records.append(record)
            if agree != "n/a":
                judged += 1
                agree_n += agree == "yes"
            if agree == "yes" and needs_message_match(v) and p.errors:
                # vLLM stops at its first problem: is the product's first error the one vLLM raised?
                first_judged += 1
                record["first"] = message_matches(vllm_text(v), p.errors[0].get("message") or "")
                if record["first"]:
                    first_n += 1
                else:
                    not_first.append(f"{c['id']} (first: {p.errors[0].get('rule')}; vLLM's: {match})")
            cell = agree
            if agree == "no":
                k = disagreement_kind(v, p, match)
                kinds[k] = kinds.get(k, 0) + 1
                why = reasons.get(c["id"]) or pair_reason(c["id"], reasons)
                cell = f"no ({why['needs']})" if why else "no (unlisted)"
                listed.setdefault(c["id"], []).append(rel)
                record["unlisted"] = not why
                if not why:
                    unlisted.append((c, rel, v, p, match))
            rows.append(f"| `{c['id']}` | {rel} | {vllm_cell(v)} | {product_cell(p, match)} | {cell} |")
        line = f"**{rel}**: {summarize_vllm(verdicts)}; " + (
            f"product agrees on {agree_n}/{judged}" if judged else "product not run"
        )
        if kinds:
            ranked = sorted(kinds.items(), key=lambda kv: -kv[1])
            line += " (disagreements: " + ", ".join(f"{k} {n}" for k, n in ranked) + ")"
        if first_judged:
            line += f"; vLLM's message is the product's first error in {first_n}/{first_judged} refusals"
            for item in not_first:
                print(f"[{rel}] not first: {item}", file=sys.stderr)
        summaries.append(line)
        sections.append(
            "\n".join(
                [
                    f"## vLLM {rel}",
                    "",
                    line,
                    "",
                    "| case | release | vLLM verdict | product verdict (matching finding) | agree? |",
                    "|---|---|---|---|---|",
                    *rows,
                    "",
                ]
            )
        )
        print(line, file=sys.stderr)

    head = [
        "# Conformance: real vLLM verdicts vs the product's",
        "",
        "Generated by `benchmarks/conformance/run.py` (see README.md). vLLM's verdict comes from the "
        "release's own "
        "`vllm serve` parser and `create_engine_config()` on a stand-in 8 x H100 node; the product's from "
        f"{'`' + p_desc + '`' if p_ok else 'nothing yet (' + p_desc + ')'}.",
        "",
        "Agreement = same refuse/accept decision (product exit 1 or 2 = refuse); and when vLLM refuses with "
        "its own message after argument parsing, one of the product's error findings (or its exit-2 error "
        "text) has vLLM's message (whitespace-normalised; `{...}` placeholders match any text). Argparse "
        "errors and pydantic field constraints: decision only. See README.md. vLLM stops at its first "
        "problem: each release's line also says in how many of vLLM's refusals with its own message the "
        "product's FIRST error is that message (the pair cases, `cases/pairs*.yaml`, carry two mistakes).",
        "",
    ]
    problems, notes = freeze.check(freeze.ROOT) if manifest else ([], [])
    figures_md = frozen_section(records, manifest, problems, notes) + learnt_section(records, set(frozen_of))
    figures_md += [
        "## Per release, every case file together",
        "",
        "The held-out and the learnt-from cases together, so mostly in sample.",
        "",
        *[f"- {s}" for s in summaries],
        "",
    ]
    head += figures_md
    if listed:
        head += [
            "## Disagreements and why",
            "",
            "Each disagreement with its reason, from `known_disagreements.yaml` (`needs`: what a profile "
            "would have to carry, or `todo`: a check the product could make but does not yet).",
            "",
            "| case | releases | needs | reason |",
            "|---|---|---|---|",
        ]
        for cid, rels in listed.items():
            why = (
                reasons.get(cid)
                or pair_reason(cid, reasons)
                or {"needs": "**unlisted**", "reason": "no reason recorded"}
            )
            head.append(f"| `{cid}` | {', '.join(rels)} | {why['needs']} | {md_escape(why['reason'], 400)} |")
        head.append("")
    if timings:
        ratios = timing_table(timings, argv if argv is not None else sys.argv[1:])
        head += ratios
        figures_md += ratios
    text = "\n".join(head + sections)
    with open(opts.results, "w") as f:
        f.write(text)
    # the figures (the tables per case and the disagreements' reasons are in the results file)
    print("\n".join(figures_md))
    print(f"(every case, and each disagreement's reason: {opts.results})")
    for c, rel, v, p, match in unlisted:
        print(
            f"NEW disagreement (not in known_disagreements.yaml): case {c['id']} ({c['file']}), vLLM {rel}\n"
            f"  command: {c['command']}\n"
            f"  vLLM:    {vllm_cell(v)}\n"
            f"  product: {product_cell(p, match)}",
            file=sys.stderr,
        )
    if opts.json:
        figures = {
            "command": " ".join(
                ["benchmarks/conformance/run.py", *(argv if argv is not None else sys.argv[1:])]
            ),
            "product": p_desc if p_ok else None,
            "frozen": set_figures(records, {os.path.basename(e["file"]): n for n, e in manifest.items()}),
            "frozen_problems": problems,
            "learnt_from": set_figures(records, None, exclude=set(frozen_of)),
            "releases": summaries,
            "timings": timings,
            "unlisted": [{"id": c["id"], "release": rel} for c, rel, _v, _p, _m in unlisted],
        }
        write_json(opts.json, figures, indent=1)
    if unlisted:
        print(f"{len(unlisted)} disagreement(s) not listed in known_disagreements.yaml", file=sys.stderr)
    return 1 if unlisted and opts.fail_on_new else 0


if __name__ == "__main__":
    sys.exit(main())
