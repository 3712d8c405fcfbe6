"""Find the vLLM launch(es) inside what people paste or commit, before the parser reads them.

The parser (``parse.py``) reads one ``vllm serve`` command line, a ``--config`` YAML file or JSON. Real texts
are rarely just that: a line pasted with its shell prompt, a script with ``export`` lines and ``&&`` chains,
``docker run ... vllm/vllm-openai:v0.9.2 --model X``, a Dockerfile's ``ENTRYPOINT``, a docker-compose
service, a Python ``subprocess`` argv list. :func:`find_launches` finds each launch in such a text and says
where and how it found it (a :class:`Launch`, whose :meth:`Launch.found` is the record callers show), so that
the API, the pages, the linter, admission and Git sync read texts one way.

Shell variables are unknowns, not errors: ``$TP``, ``${MODEL}``, ``$(nproc)``, ``<n_of_tokens>`` stay as
written in the launch's words (the parser keeps such a value as it is, whatever the argument's type, and
``lint.validate`` reports the checks that need it as "could not verify"); a variable the script assigns, or
one bound by the caller (``vllm-profiles-lint --set TP=8``), is filled in; ``${X:-v}`` uses ``v`` and says so.

Kubernetes manifests and Helm values are ``manifests.py``'s; a vLLM ``--config`` YAML or JSON is the parser's.
Plain Python: no Django.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import intake_held, intake_markup, shell
from .parse import safe_load_bounded
from .types import ParseError, parse_version
from .unknowns import REFERENCE as _REFERENCE
from .unknowns import WHOLE_PLACEHOLDER as _WHOLE_PLACEHOLDER
from .unknowns import unknown_reference

__all__ = [
    "Intake",
    "Launch",
    "find_launches",
    "mentions_vllm",
    "nearest_release",
    "release_from_tag",
    "unknown_reference",
]

# ------------------------------------------------------------------------------------------- releases

_VERSION_TAG = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?)(?:$|[-+_.a-z])")


def release_from_tag(image: str | None) -> str | None:
    """The vLLM release an image's tag names (``vllm/vllm-openai:v0.9.2`` is ``0.9.2``), for images whose
    name says vLLM; None for ``latest``, a digest, or another image."""
    if not image or "@" in image:
        return None
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag or "vllm" not in name.lower():
        return None
    match = _VERSION_TAG.match(tag)
    if not match:
        return None
    version = match.group(1)
    return version if version.count(".") == 2 else version + ".0"


def nearest_release(version: str, available: Sequence[str]) -> str | None:
    """The release with a catalog nearest ``version``: the newest one not after it, else the oldest."""
    wanted = parse_version(version)
    known = sorted((v for v in available if parse_version(v) is not None), key=parse_version)
    if wanted is None or not known:
        return None
    before = [v for v in known if parse_version(v) <= wanted]
    return before[-1] if before else known[0]


# ------------------------------------------------------------------------------------------ the record


@dataclass
class Launch:
    """One vLLM launch found in a text: the argv the parser reads, and where and how it was found."""

    form: str  # command | script | docker | compose | dockerfile | python
    line: int  # 1-based line of the text where the launch starts
    argv: list[str]  # `vllm serve ...` or `python -m vllm.entrypoints.openai.api_server ...`
    env: dict[str, str] = field(default_factory=dict)
    image: str | None = None
    release: str | None = None  # from the image tag
    variables: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {"value"|"unknown", "how"}
    notes: list[str] = field(default_factory=list)
    gpus: int | None = None  # from docker's --gpus / CUDA_VISIBLE_DEVICES / compose's device count
    last_line: int | None = None  # the launch's last line, where it is known (continuations, joined flags)
    name: str | None = None  # compose service, node label

    @property
    def command(self) -> str:
        """The launch as one command line (environment first) for ``parse.parse_command``."""
        assignments = [f"{k}={v}" for k, v in self.env.items()]
        return shlex.join([*assignments, *self.argv]) if assignments else shlex.join(self.argv)

    def found(self) -> dict[str, Any]:
        """The structured "what was found" record (JSON-ready)."""
        return {
            "form": self.form,
            "line": self.line,
            "last_line": max(self.last_line or self.line, self.line),
            "name": self.name,
            "command": shlex.join(self.argv),
            "image": self.image,
            "release": self.release,
            "environment": dict(self.env),
            "variables": {k: dict(v) for k, v in self.variables.items()},
            "gpus": self.gpus,
            "notes": list(self.notes),
        }


@dataclass
class Intake:
    """What a text holds: its form, the launches found, and why a vLLM-looking text yields none."""

    form: str
    launches: list[Launch] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)  # reasons, each "<why>"

    def found(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "launches": [launch.found() for launch in self.launches],
            "not_checked": list(self.not_checked),
        }


# ------------------------------------------------------------------------------------------- detection

_MENTIONS_VLLM = re.compile(
    r"vllm|--tensor-parallel-size|--gpu-memory-utilization|--max-model-len|--served-model-name", re.I
)


def mentions_vllm(text: str) -> bool:
    """Whether a text looks like it runs vLLM (names it, or uses vLLM's flags): such a text that yields no
    profile must be reported as "not checked", never pass as valid."""
    return bool(_MENTIONS_VLLM.search(text))


_DOCKERFILE = re.compile(r"^\s*FROM\s+\S+", re.I | re.M)
_DOCKERFILE_INSTRUCTION = re.compile(r"^\s*(ENTRYPOINT|CMD)\b", re.I | re.M)
_COMPOSE = re.compile(r"^services\s*:\s*$", re.M)
_PYTHON_HINT = re.compile(r"^\s*(import\s+\w|from\s+[\w.]+\s+import\s)", re.M)


def form_of(text: str) -> str:
    """dockerfile | compose | python | shell: how :func:`find_launches` reads ``text``."""
    if _DOCKERFILE.search(text) and _DOCKERFILE_INSTRUCTION.search(text):
        return "dockerfile"
    if _COMPOSE.search(text):
        return "compose"
    if _PYTHON_HINT.search(text):
        return "python"
    return "shell"


def find_launches(
    text: str,
    *,
    variables: Mapping[str, str] | None = None,
    releases: Sequence[str] = (),
    form: str | None = None,
) -> Intake:
    """Every vLLM launch in ``text`` (a command, a shell script, a Dockerfile, a compose file, Python).
    ParseError when the only launch-like line cannot be split (unbalanced quotes), naming the line.

    ``variables`` binds names the text leaves open (``--set TP=8``); ``releases`` are the releases with a
    catalog: an image tag naming another release gets the nearest one, with a note. Markdown fences and
    code spans, diff markers and reply quotes around a pasted launch are read past, and said."""
    bound = dict(variables or {})
    unwrapped, markup = intake_markup.unwrap(text)
    plain = unwrapped.replace(intake_markup.REMOVED, "")
    intake = _read(unwrapped, form or form_of(plain), bound)
    for launch in intake.launches:
        launch.notes[:0] = markup
        _settle_release(launch, releases)
    if len(intake.launches) > 1:
        for number, launch in enumerate(intake.launches):
            launch.name = launch.name or f"node {number}"
    if not intake.launches and mentions_vllm(text):
        intake.not_checked.append(_why_nothing(text, intake.form))
    return intake


def _read(text: str, kind: str, bound: dict[str, str]) -> Intake:
    """The launches of ``text`` read as ``kind``; a shell text that yields none is tried as a compose
    service pasted alone and as Python pasted without its imports (``llm = LLM(model=...)``)."""
    plain = text.replace(intake_markup.REMOVED, "")
    if kind == "dockerfile":
        return Intake("dockerfile", _dockerfile(plain, bound))
    if kind == "compose":
        return Intake("compose", _compose(plain, bound))
    if kind == "python":
        return Intake("python", _python(plain, bound) or _Script(bound).run(text))
    fragment = _compose_fragment(plain, bound)
    if fragment:
        return Intake("compose", fragment)
    reader = _Script(bound)
    launches = reader.run(text)
    if not launches:
        launches = _Script(bound, hash_prompt=True).run(text)  # `# vllm serve ...`: a root prompt
    if not launches:
        python = _python(plain, bound)
        if python:
            return Intake("python", python)
        launches = _pasted_arguments(plain, bound) or _held_launches(plain, bound)
    if not launches and reader.errors:
        raise reader.errors[0]
    many_lines = len([ln for ln in plain.splitlines() if ln.strip()]) > 1
    intake = Intake("script" if many_lines and not _one_command(plain) else "command", launches)
    for launch in launches:
        if launch.form == "command" and intake.form == "script":
            launch.form = "script"
    return intake


def _one_command(text: str) -> bool:
    """A single command written over several lines (backslash continuations), prompts and all."""
    lines = [_strip_prompt(ln)[0] for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return all(ln.rstrip().endswith("\\") for ln in lines[:-1])


def _why_nothing(text: str, form: str) -> str:
    if re.search(r"vllm\.entrypoints\.api_server\b", text):
        return (
            "it runs vllm.entrypoints.api_server, vLLM's legacy demo server, not the OpenAI-compatible "
            "server (`vllm serve`) that profiles describe"
        )
    if re.search(r"non-default args: \{", text):
        return "vLLM's `non-default args: {...}` log line in it could not be read as a launch"
    if re.search(r"^\W*[A-Za-z0-9_]*ARGS=", text, re.M):
        return (
            "it sets a variable of arguments (`...ARGS=`), but shows no launch that passes it on and the "
            "variable holds none of vLLM's flags"
        )
    if form == "dockerfile":
        return (
            "the Dockerfile's ENTRYPOINT/CMD does not run `vllm serve` (a script it starts is not part of it)"
        )
    if form == "python":
        return "no `vllm serve` argv list or command string was found in the Python code"
    if re.search(r"\bLLM\s*\(", text):
        return "it uses vLLM's Python API (`LLM(...)`), not a server launch"
    return "no `vllm serve` (or `python -m vllm.entrypoints.openai.api_server`) launch was found in it"


def _settle_release(launch: Launch, releases: Sequence[str]) -> None:
    if launch.release is None and launch.image:
        launch.release = release_from_tag(launch.image)
        if launch.release:
            launch.notes.append(f"release {launch.release} from the image tag {launch.image}")
    if launch.release and releases and launch.release not in releases:
        nearest = nearest_release(launch.release, releases)
        if nearest:
            launch.notes.append(
                f"release {launch.release} (image {launch.image}) has no catalog here: checked against "
                f"{nearest}, the nearest release that has one"
            )
            launch.release = nearest


# ------------------------------------------------------------------------------------- shell scripts

# Prompts: `$ `, `> `, `% `, `user@host:~/dir$ `, `[user@host dir]$ `, `(venv) `, `root@host:/# `.
_PROMPT = re.compile(
    r"^(?P<indent>\s*)(?:\((?P<venv>[^()\s]+)\)\s+)?"
    r"(?P<prompt>(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#%]|\[[^\]\n]*\][$#%]|[$>%])\s+)?"
)
_FLAG_LINE = re.compile(r"^[ \t]*--?[A-Za-z]")
_LAUNCH_HINT = re.compile(r"\bvllm\s+serve\b|vllm\.entrypoints\.openai\.api_server")
_HASH_PROMPT = re.compile(r"^\s*#\s+(?=\S)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_REDIRECT = re.compile(r"^\d*(?:>>?|<|&>>?|>&|<&)(.*)$")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_API_SERVER = "vllm.entrypoints.openai.api_server"
_LEGACY_SERVER = "vllm.entrypoints.api_server"
_CLI_MODULE = "vllm.entrypoints.cli.main"
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash"})
_CONTAINER_CLIS = frozenset({"docker", "podman", "nerdctl"})
_KEYWORDS = frozenset({"do", "then", "else", "{", "(", "!", "if", "while", "until"})
_PREFIX_COMMANDS = frozenset({"nohup", "exec", "time", "command", "builtin", "setsid", "unbuffer"})


def _strip_prompt(line: str, *, hash_prompt: bool = False) -> tuple[str, bool]:
    """A line without its shell prompt, and whether it had one."""
    if hash_prompt:
        match = _HASH_PROMPT.match(line)
        if match:
            return line[match.end() :], True
    match = _PROMPT.match(line)
    if match and (match.group("prompt") or match.group("venv")):
        rest = line[match.end() :]
        if match.group("prompt") and match.group("prompt").strip() == ">" and not rest.strip():
            return rest, True
        return match.group("indent") + rest, True
    return line, False


class _Script:
    """Reads a shell text command by command, keeping the variables it assigns and exports."""

    def __init__(self, bound: Mapping[str, str], *, hash_prompt: bool = False, depth: int = 0):
        self.bound = dict(bound)
        self.shell_vars: dict[str, str] = {}
        self.exported: dict[str, str] = {}
        self.loop_vars: set[str] = set()
        self.sourced: list[str] = []
        self.hash_prompt = hash_prompt
        self.depth = depth
        self.launches: list[Launch] = []
        self.errors: list[ParseError] = []
        self.joined: dict[int, list[int]] = {}  # launch line -> the flag lines read as its arguments
        self.spans: dict[int, int] = {}  # a logical line's first line -> its last

    # ---- lines

    def run(self, text: str, *, first_line: int = 1, form: str = "command") -> list[Launch]:
        for line_no, logical in self._logical_lines(text, first_line):
            self._line(logical, line_no, form)
        return self.launches

    def _logical_lines(self, text: str, first_line: int) -> list[tuple[int, str]]:
        """Commands one per logical line: prompts and fences removed, continuations joined, heredoc bodies
        read as lines of their own."""
        physical = text.replace("\r\n", "\n").split("\n")
        cleaned: list[str] = []
        for line in physical:
            if _FENCE.match(line):
                cleaned.append("")
                continue
            cleaned.append(_strip_prompt(line, hash_prompt=self.hash_prompt)[0])
        out: list[tuple[int, str]] = []
        i = 0
        while i < len(cleaned):
            start = i
            parts = [cleaned[i]]
            last = cleaned[i]  # the last line that is not one a diff removes
            quote = _open_quote(cleaned[i])
            while (last.rstrip().endswith("\\") or quote) and i + 1 < len(cleaned):
                i += 1
                if cleaned[i] == intake_markup.REMOVED:
                    continue
                parts.append(cleaned[i])
                last = cleaned[i]
                quote = _open_quote("\n" + cleaned[i], quote)  # line by line: linear in the text
            buf = "\n".join(parts)
            if quote:  # never closed: read the first line alone
                i = start
                buf = cleaned[i]
            heredoc = _HEREDOC.search(buf) if "<<" in buf else None
            out.append((first_line + start, buf))
            self.spans[first_line + start] = first_line + i
            i += 1
            if heredoc:
                body_start = i
                while i < len(cleaned) and cleaned[i].strip() != heredoc.group(2):
                    i += 1
                body = "\n".join(cleaned[body_start:i])
                out.extend((first_line + body_start + n, ln) for n, ln in self._logical_lines(body, 0))
                i += 1
        return self._join_flag_lines(out)

    def _join_flag_lines(self, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
        """A launch pasted without its backslashes: the lines right below it that begin with a flag
        (``--model X``) are read as its arguments, and the launch says so."""
        out: list[tuple[int, str]] = []
        for line_no, logical in lines:
            if out and _FLAG_LINE.match(logical) and _LAUNCH_HINT.search(out[-1][1]):
                start, before = out[-1]
                out[-1] = (start, before.rstrip().removesuffix("\\") + " " + logical.strip())
                self.joined.setdefault(start, []).append(line_no)
                self.spans[start] = max(self.spans.get(start, start), self.spans.get(line_no, line_no))
                continue
            out.append((line_no, logical))
        return out

    def _line(self, logical: str, line_no: int, form: str) -> None:
        protected, substitutions = _protect_substitutions(logical)
        try:
            commands = shell.split_commands(protected)
        except ParseError as exc:
            if mentions_vllm(logical):  # a launch that cannot be split: the parser's own word on it
                self.errors.append(ParseError(exc.detail, where=f"line {line_no}", position=exc.position))
            return
        for words in commands:
            words = [_restore(w, substitutions) for w in words]
            self._command(words, line_no, form)

    # ---- commands

    def _command(self, words: list[str], line_no: int, form: str) -> None:
        words = _drop_redirections(words)
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        if not words:
            return
        head = words[0]
        if head == "for" and len(words) >= 2:
            self.loop_vars.add(words[1])
            return
        if head in ("source", ".") and len(words) >= 2:
            self.sourced.append(words[1])
            return
        if head in ("export", "declare", "local", "readonly", "typeset") or all(
            _ASSIGNMENT.match(w) for w in words
        ):
            for word in words[1:] if head in ("export", "declare", "local", "readonly", "typeset") else words:
                match = _ASSIGNMENT.match(word)
                if match:
                    value = self._expand_quiet(match.group(2))
                    self.shell_vars[match.group(1)] = value
                    if head == "export":
                        self.exported[match.group(1)] = value
                elif head == "export" and word in self.shell_vars:
                    self.exported[word] = self.shell_vars[word]
            return
        launch = self._launch(words, line_no, form)
        if launch is not None:
            self.launches.append(launch)

    def _launch(self, words: list[str], line_no: int, form: str) -> Launch | None:
        env: dict[str, str] = {}
        i = 0
        while i < len(words):
            word = words[i]
            match = _ASSIGNMENT.match(word)
            if match:
                env[match.group(1)] = match.group(2)
                i += 1
            elif word in _PREFIX_COMMANDS:
                i += 1
            elif word == "env":
                i += 1
                while i < len(words) and words[i].startswith("-"):
                    i += 2 if words[i] in ("-u", "--unset", "-C", "--chdir") else 1
            elif word == "sudo":
                i += 1
                while i < len(words) and words[i].startswith("-"):
                    i += 2 if words[i] in ("-u", "-g", "-C", "-D", "-h", "-p", "-U") else 1
            elif word in ("uv", "uvx") and words[i + 1 : i + 2] == ["run"] or word == "uvx":
                i += 2 if word == "uv" else 1
                while i < len(words) and words[i].startswith("-"):
                    takes = words[i] in ("--with", "--python", "-p", "--project", "--directory", "--env-file")
                    i += 2 if takes and "=" not in words[i] else 1
            else:
                break
        rest = words[i:]
        if not rest:
            return None
        base = rest[0].rsplit("/", 1)[-1]
        if base in _CONTAINER_CLIS:
            return self._container_run(rest, env, line_no)
        if base in _SHELLS and "-c" in rest[1:3]:
            at = rest.index("-c")
            if at + 1 < len(rest) and self.depth < 4:
                inner = _Script(self.bound, depth=self.depth + 1)
                inner.shell_vars = {**self.shell_vars, **env}
                inner.exported = {**self.exported, **env}
                script = self._expand_quiet(
                    rest[at + 1]
                )  # `bash -c "${CMD}"`: the command the variable holds
                found = inner.run(script, first_line=line_no, form=form)
                for launch in found:
                    launch.line = line_no
                    if script != rest[at + 1]:
                        launch.notes.append(f"the command `{rest[at + 1]}` holds, run by {base} -c")
                    self.launches.append(launch)
            return None
        if rest[0] == "eval" or _WHOLE_VARIABLE.fullmatch(rest[0]):
            return self._held_command(rest, env, line_no, form)
        start = launcher_start(rest)
        if start is None:
            return None
        for word in rest[:start]:  # `srun -N1 CUDA_VISIBLE_DEVICES=0 vllm serve`: assignments among them
            match = _ASSIGNMENT.match(word)
            if match:
                env[match.group(1)] = match.group(2)
        launch = Launch(form=form, line=line_no, argv=[])
        launch.env = {**self.exported, **{k: self._expand(v, launch) for k, v in env.items()}}
        launch.argv = normal_argv(rest[start:], launch)
        if not launch.argv:
            return None
        launch.argv = self.expand_words(launch.argv, launch)
        self._account(launch)
        return launch

    def _held_command(self, words: list[str], env: dict[str, str], line_no: int, form: str) -> Launch | None:
        """``$CMD`` or ``eval "$CMD"``: the launch a variable of the script holds, split as a shell would."""
        held = " ".join(self._expand_quiet(w) for w in words[1:]) if words[0] == "eval" else None
        if held is None:
            value = self._expand_quiet(words[0])
            if value == words[0]:
                return None
            held = " ".join([value, shlex.join(words[1:])])
        try:
            split = [w for w, _ in shell.split_words(held)]
        except ParseError:
            return None
        if not split or launcher_start(split) is None or self.depth >= 4:
            return None
        launch = self._launch([*(f"{k}={v}" for k, v in env.items()), *split], line_no, form)
        if launch is not None:
            launch.notes.append(f"the command `{' '.join(words)}` holds")
        return launch

    def _account(self, launch: Launch) -> None:
        launch.last_line = self.spans.get(launch.line, launch.line)
        joined = self.joined.get(launch.line)
        if joined:
            launch.notes.append(
                f"lines {joined[0]}-{joined[-1]} begin with a flag and no `\\` joins them to the launch on "
                f"line {launch.line}: read as its arguments (a shell would run each line as a command)"
            )
        for word in launch.argv:
            value = word.partition("=")[2] if word.startswith("--") and "=" in word else word
            if _WHOLE_PLACEHOLDER.fullmatch(value) and value.startswith("<"):
                how = "a Python expression" if launch.form == "python" else "a placeholder"
                launch.variables.setdefault(value[1:-1], {"unknown": True, "how": how})
            elif _WHOLE_PLACEHOLDER.fullmatch(value):
                launch.variables.setdefault(value, {"unknown": True, "how": "a template variable"})
        if self.sourced and any(v.get("unknown") for v in launch.variables.values()):
            launch.notes.append(
                "variables set by " + ", ".join(f"`source {s}`" for s in self.sourced) + " are not known here"
            )
        gpus = _gpu_count(launch.env.get("CUDA_VISIBLE_DEVICES"))
        if gpus is not None and launch.gpus is None:
            launch.gpus = gpus

    # ---- docker run

    def _docker_options(
        self, words: list[str], i: int, launch: Launch, container_env: dict[str, str]
    ) -> tuple[int, list[str] | None]:
        """Read `docker run`'s options from ``words[i]`` on: the environment, GPUs, entrypoint; (where the
        image is, the entrypoint given)."""
        entrypoint: list[str] | None = None
        while i < len(words):
            word = words[i]
            if word == "--":
                i += 1
                break
            if not word.startswith("-") or word == "-":
                break
            name, eq, inline = word.partition("=")
            if _docker_bool(name):
                i += 1
                continue
            value = inline if eq else (words[i + 1] if i + 1 < len(words) else "")
            i += 1 if eq else 2
            if name in ("-e", "--env"):
                key, sep, val = value.partition("=")
                if sep:
                    container_env[key] = self._expand(val, launch)
                elif key in self.shell_vars or key in self.bound:
                    container_env[key] = self.bound.get(key, self.shell_vars.get(key, ""))
                else:
                    launch.variables[key] = {"unknown": True, "how": "passed from the host's environment"}
            elif name == "--env-file":
                launch.notes.append(f"the variables of --env-file {value} are not read")
            elif name == "--gpus":
                launch.gpus = _docker_gpus(value)
                if launch.gpus is None:
                    launch.notes.append(f"--gpus {value}: the number of GPUs is the host's")
            elif name == "--entrypoint":
                entrypoint = [value]
        return i, entrypoint

    def _container_run(self, words: list[str], env: dict[str, str], line_no: int) -> Launch | None:
        i = 1
        if i < len(words) and words[i] == "container":
            i += 1
        if i >= len(words) or words[i] not in ("run", "create"):
            if i < len(words) and words[i] == "exec":  # `docker exec -it box vllm serve ...`
                start = launcher_start(words)
                if start is not None:
                    return self._launch(words[start:], line_no, "docker")
            return None
        i += 1
        launch = Launch(form="docker", line=line_no, argv=[])
        container_env: dict[str, str] = {}
        i, entrypoint = self._docker_options(words, i, launch, container_env)
        if i >= len(words):
            return None
        image = self._expand(words[i], launch)
        args = words[i + 1 :]
        launch.image = image
        if entrypoint is not None:
            args = entrypoint + args
        base = args[0].rsplit("/", 1)[-1] if args else ""
        if args and base in _SHELLS and "-c" in args[1:3]:
            at = args.index("-c")
            inner = _Script(self.bound, depth=self.depth + 1)
            inner.exported = dict(container_env)
            inner.shell_vars = dict(container_env)
            found = inner.run(args[at + 1] if at + 1 < len(args) else "", first_line=line_no, form="docker")
            for item in found:
                item.image, item.line, item.form = image, line_no, "docker"
                item.variables = {**launch.variables, **item.variables}
                item.notes = launch.notes + item.notes
                item.gpus = launch.gpus if launch.gpus is not None else item.gpus
            self.launches.extend(found)
            return None
        argv = _container_argv(image, args, container_env, launch)
        if argv is None:
            return None
        launch.env = {**{k: self._expand(v, launch) for k, v in env.items() if k != "CUDA_VISIBLE_DEVICES"}}
        launch.env.update(container_env)
        launch.argv = self.expand_words(normal_argv(argv, launch), launch)
        if not launch.argv:
            return None
        self._account(launch)
        return launch

    # ---- variables

    def expand_words(self, words: Sequence[str], launch: Launch) -> list[str]:
        """The launch's words with their variables expanded; ``${X:+words}`` (words only when X is set)
        becomes those words when X is known and set, and nothing otherwise, said in a note."""
        out: list[str] = []
        for word in words:
            match = _ALTERNATE.fullmatch(word)
            if match is None:
                out.append(self._expand(word, launch))
                continue
            name, colon, alternate = match.groups()
            value = self.bound.get(name, self.shell_vars.get(name))
            if value is not None and (value or not colon):
                self._bind(launch, name, value, "bound" if name in self.bound else "set in the script")
                out.extend(self._expand(w, launch) for w, _ in shell.split_words(alternate))
            else:
                launch.notes.append(
                    f"{word} is left out: {name} is not set here (when it is set, it adds `{alternate}`)"
                )
        return out

    def _expand_quiet(self, word: str) -> str:
        return self._expand(word, None)

    def _expand(self, word: str, launch: Launch | None) -> str:
        if "$" not in word:
            return word

        def known(name: str) -> tuple[str | None, str]:
            if name in self.bound:
                return self.bound[name], "bound"
            if name in self.shell_vars:
                return self.shell_vars[name], "set in the script"
            return None, ""

        def replace(match: re.Match[str]) -> str:
            text = match.group()
            if text.startswith("${"):
                inner = text[2:-1]
                m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])(.*))?", inner, re.S)
                if not m:
                    self._unknown(launch, text, "a shell expansion")
                    return text
                name, op, default = m.group(1), m.group(2), m.group(3)
                value, how = known(name)
                if value is not None and not (op and op.startswith(":") and value == ""):
                    self._bind(launch, name, value, how)
                    return value
                if op is not None:
                    if launch is not None:
                        launch.variables[name] = {"value": default, "how": "the default in " + text}
                        launch.notes.append(
                            f"{text}: {name} is not set here, so its default {default!r} is used"
                        )
                    return default
                self._unknown(
                    launch, name, "a loop variable" if name in self.loop_vars else "a shell variable"
                )
                return text
            if text.startswith("$") and re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*", text):
                name = text[1:]
                value, how = known(name)
                if value is not None:
                    self._bind(launch, name, value, how)
                    return value
                self._unknown(
                    launch, name, "a loop variable" if name in self.loop_vars else "a shell variable"
                )
                return text
            if text.startswith("$(") or text.startswith("`"):
                self._unknown(launch, text, "a command substitution")
                return text
            if text[:1] == "$":
                self._unknown(launch, text, "a script argument")
            return text

        return _REFERENCE.sub(replace, word)

    @staticmethod
    def _bind(launch: Launch | None, name: str, value: str, how: str) -> None:
        if launch is not None:
            launch.variables[name] = {"value": value, "how": how}

    @staticmethod
    def _unknown(launch: Launch | None, name: str, how: str) -> None:
        if launch is not None:
            launch.variables[name] = {"unknown": True, "how": how}


_WHOLE_VARIABLE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_ALTERNATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:?)\+(.*)\}", re.S)
_SUBSTITUTION = re.compile(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`")


def _protect_substitutions(text: str) -> tuple[str, list[str]]:
    """``$(...)`` and backquotes as opaque words while the line is split (their `|`, `;` and blanks are
    theirs, not the script's)."""
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        found.append(match.group())
        return f"\x00{len(found) - 1}\x00"

    return _SUBSTITUTION.sub(keep, text), found


def _restore(word: str, found: list[str]) -> str:
    if "\x00" not in word:
        return word
    return re.sub("\x00(\\d+)\x00", lambda m: found[int(m.group(1))], word)


def _open_quote(text: str, quote: str | None = None) -> str | None:
    """The quote left open at the end of ``text`` (comments and escapes followed), if any, starting inside
    ``quote``."""
    i, n = 0, len(text)
    prev = " "
    while i < n:
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif quote == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                quote = None
        else:
            if c == "\\":
                i += 1
            elif c in "'\"":
                quote = c
            elif c == "#" and prev in " \t\n;&|(":
                end = text.find("\n", i)
                if end < 0:
                    break
                i = end
        prev = text[i] if i < n else " "
        i += 1
    return quote


def _drop_redirections(words: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        match = _REDIRECT.match(word)
        if match and not word.startswith("-") and not _WHOLE_PLACEHOLDER.fullmatch(word):
            skip = not match.group(1)
            continue
        out.append(word)
    return out


def launcher_start(words: Sequence[str]) -> int | None:
    """Where ``vllm serve`` or ``python -m vllm.entrypoints...`` starts in ``words``, if anywhere."""
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "vllm" and i + 1 < len(words) and words[i + 1] == "serve":
            return i
        if _PYTHON.match(base):
            j = i + 1
            while j < len(words) and words[j].startswith("-") and words[j] != "-m":
                j += 2 if words[j] in ("-X", "-W") else 1
            if (
                j + 1 < len(words)
                and words[j] == "-m"
                and words[j + 1] in (_API_SERVER, _LEGACY_SERVER, _CLI_MODULE)
            ):
                return i
    return None


def normal_argv(words: Sequence[str], launch: Launch) -> list[str]:
    """The launch as the parser reads it: ``python -u -m ...`` without the interpreter's own options; the
    legacy ``vllm.entrypoints.api_server`` gets a note and is not a profile (empty list)."""
    words = list(words)
    base = words[0].rsplit("/", 1)[-1]
    if base == "vllm":
        return ["vllm", *words[1:]]
    j = 1
    while j < len(words) and words[j] != "-m":
        j += 1
    module = words[j + 1] if j + 1 < len(words) else ""
    if module == _LEGACY_SERVER:
        launch.notes.append(
            "vllm.entrypoints.api_server is vLLM's legacy demo server, not the OpenAI-compatible server that "
            "profiles describe: use `vllm serve`"
        )
        return []
    return ["python3", "-m", module, *words[j + 2 :]]


_DOCKER_BOOL = frozenset(
    {
        "--rm",
        "-d",
        "--detach",
        "-i",
        "--interactive",
        "-t",
        "--tty",
        "--privileged",
        "--init",
        "--read-only",
        "-P",
        "--publish-all",
        "--no-healthcheck",
        "--oom-kill-disable",
        "--sig-proxy",
        "--replace",
        "--quiet",
        "-q",
    }
)
# Flags that say vLLM (not flags other servers share); a flag ends at `=` or its word's end (`--model-path` is
# SGLang's, not `--model`).
_VLLM_FLAG = re.compile(
    r"^--(model|tensor-parallel-size|served-model-name|max-model-len|gpu-memory-utilization|dtype|"
    r"quantization|trust-remote-code|pipeline-parallel-size|max-num-seqs|enforce-eager|max-num-batched-tokens|"
    r"enable-prefix-caching|enable-chunked-prefill|speculative-config|compilation-config|enable-auto-tool-choice|"
    r"limit-mm-per-prompt|enable-expert-parallel|swap-space)(?=$|=)"
)


def _container_argv(image: str, args: list[str], env: Mapping[str, str], launch: Launch) -> list[str] | None:
    """What a container of ``image`` given ``args`` runs, as a vLLM argv; None when it is not vLLM."""
    start = launcher_start(args)
    if start is not None:
        return args[start:]
    if _is_vllm_image(image):  # the image's ENTRYPOINT is `vllm serve` (api_server before)
        held = None if args else intake_held.args_variable(env, _VLLM_FLAG)
        if held is not None:
            launch.notes.append(
                f"the container is given no arguments: the arguments its {held[0]} variable holds are read "
                "as those of `vllm serve` (the image's entrypoint passes them on)"
            )
            return ["vllm", "serve", *held[1]]
        return ["vllm", "serve", *args]
    first = args[0].rsplit("/", 1)[-1] if args else ""
    if _PYTHON.match(first) or first in _SHELLS:
        return None  # the container runs a program of its own (`python3 -m sglang.launch_server ...`)
    if args and (
        any(a.startswith("--") for a in args)
        and "vllm" in image.lower()
        or any(_VLLM_FLAG.match(a) for a in args)
    ):
        launch.notes.append(f"{image} is read as running `vllm serve` (the arguments are vLLM's)")
        return ["vllm", "serve", *args]
    return None


def _docker_bool(name: str) -> bool:
    if name in _DOCKER_BOOL:
        return True
    return bool(re.fullmatch(r"-[dtiP]{2,4}", name))  # -it, -dit, -itd


def _docker_gpus(value: str) -> int | None:
    value = value.strip().strip("'\"")
    if value.isdigit():
        return int(value)
    match = re.search(r"device=([\d,]+)", value)
    if match:
        return len([d for d in match.group(1).split(",") if d])
    return None


def _gpu_count(devices: str | None) -> int | None:
    if not devices or unknown_reference(devices):
        return None
    parts = [p for p in devices.split(",") if p.strip()]
    return len(parts) if parts and all(p.strip().isdigit() for p in parts) else None


def _is_vllm_image(image: str) -> bool:
    name = image.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    last = name.rsplit("/", 1)[-1].lower()
    return last.startswith("vllm-openai") or last in ("vllm-tpu", "vllm-cpu", "vllm", "vllm-rocm")


# ------------------------------------------------------------------------------ arguments pasted alone


def _pasted_arguments(text: str, bound: Mapping[str, str]) -> list[Launch]:
    """vLLM's arguments pasted without their launcher: a container's ``command:``/``args:`` (or a YAML list
    of flags) cut out of its manifest, or lines that are only flags (``--model m --tensor-parallel-size 2``,
    what one gives an image whose entrypoint is ``vllm serve``). Read as a launch with them, and said."""
    found = _yaml_arguments(text) or _flag_lines(text)
    if found is None:
        return []
    argv, line, how = found
    start = launcher_start(argv)
    if start is None:
        if not any(_VLLM_FLAG.match(word) for word in argv):
            return []
        # a container's arguments: its command (api_server in the manifests of record) is elsewhere
        # a model first is `vllm serve`'s positional, which the api_server module does not take
        positional = bool(argv) and not argv[0].startswith("-")
        launcher = (
            ["vllm", "serve"] if how.startswith("only") or positional else ["python3", "-m", _API_SERVER]
        )
        argv, start = [*launcher, *argv], 0
        how += f": read as the arguments of `{' '.join(launcher)}`"
    launch = Launch(form="command", line=line, argv=[])
    script = _Script(bound)
    launch.argv = script.expand_words(normal_argv(argv[start:], launch), launch)
    launch.notes.insert(0, how)
    script._account(launch)
    return [launch] if launch.argv else []


def _held_launches(text: str, bound: Mapping[str, str]) -> list[Launch]:
    """A launch the text holds without a command line: vLLM's own ``non-default args`` log line, or a
    variable holding vLLM's arguments (``VLLM_ARGS=...``) beside the model another variable names."""
    held = intake_held.logged_arguments(text) or intake_held.env_arguments(text, _VLLM_FLAG)
    out: list[Launch] = []
    for item in held:
        launch = Launch(form="command", line=item.line, argv=[], release=item.release)
        script = _Script(bound)
        launch.argv = script.expand_words(item.argv, launch)
        launch.notes.extend(item.notes)
        for placeholder in item.unknown:
            launch.variables[placeholder[1:-1]] = {
                "unknown": True,
                "how": "a value vLLM logged as a Python object",
            }
            launch.notes.append(
                f"vLLM logged {placeholder[1:-1]} as a Python object: that value is not known here"
            )
        script._account(launch)
        out.append(launch)
    return out


def _yaml_arguments(text: str) -> tuple[list[str], int, str] | None:
    try:
        doc = safe_load_bounded(textwrap.dedent(text))
    except ParseError:
        return None
    first = next((n for n, line in enumerate(text.split("\n"), start=1) if line.strip()), 1)
    if isinstance(doc, list) and doc and all(isinstance(item, str | int | float) for item in doc):
        return [str(item) for item in doc], first, "a list of arguments pasted alone"
    if not isinstance(doc, dict) or not {"command", "args", "entrypoint"} & set(doc):
        return None
    argv: list[str] = []
    for key in ("entrypoint", "command", "args"):
        value = doc.get(key)
        if isinstance(value, list):
            argv.extend(str(item) for item in value)
        elif isinstance(value, str):
            try:
                argv.extend(word for word, _ in shell.split_words(value))
            except ParseError:
                return None
    keys = "/".join(f"{k}:" for k in ("entrypoint", "command", "args") if k in doc)
    return (argv, first, f"a container's {keys} pasted without the rest of its manifest") if argv else None


def _flag_lines(text: str) -> tuple[list[str], int, str] | None:
    """The first paragraph of the text whose lines are all flags (prose and fences around it apart)."""
    groups: list[list[tuple[int, str]]] = [[]]
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            groups[-1].append((number, line.strip()))
        elif groups[-1]:
            groups.append([])
    for group in groups:
        lines = [(n, line) for n, line in group if not line.startswith("#")]
        if not lines or not all(line.startswith("-") for _, line in lines):
            continue
        joined = " ".join(line.removesuffix("\\") for _, line in lines)
        try:
            words = [w for w, _ in shell.split_words(joined)]
        except ParseError:
            continue
        if any(_VLLM_FLAG.match(word) for word in words):
            return words, lines[0][0], "only vLLM's arguments were pasted, without `vllm serve`"
    return None


# ---------------------------------------------------------------------------------------- Dockerfiles


def _dockerfile(text: str, bound: Mapping[str, str]) -> list[Launch]:
    image: str | None = None
    env: dict[str, str] = {}
    args: dict[str, str] = {}
    entry: tuple[Any, int] | None = None
    cmd: tuple[Any, int] | None = None
    for line_no, raw in _joined_lines(text):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        keyword, _, rest = stripped.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        if keyword == "FROM":
            image = next((w for w in rest.split() if not w.startswith("--")), None)
            entry = cmd = None
        elif keyword in ("ENV", "ARG"):
            target = env if keyword == "ENV" else args
            try:
                words = [w for w, _ in shell.split_words(rest)]
            except ParseError:
                continue
            if words and "=" not in words[0] and keyword == "ENV" and len(words) >= 2:
                target[words[0]] = " ".join(words[1:])
            else:
                for word in words:
                    name, sep, value = word.partition("=")
                    target[name] = value if sep else target.get(name, "")
        elif keyword in ("ENTRYPOINT", "CMD"):
            value: Any = rest
            if rest.startswith("["):
                try:
                    value = [str(v) for v in json.loads(rest)]
                except ValueError:
                    value = rest
            where = line_no
            if keyword == "ENTRYPOINT":
                entry, cmd = (value, where), None
            else:
                cmd = (value, where)
    variables = {**{k: v for k, v in args.items() if v}, **env, **bound}
    script = _Script(variables)
    script.shell_vars = dict(variables)
    script.exported = dict(env)
    line = (entry or cmd or (None, 1))[1]
    argv: list[str] | None = None
    if entry is not None and isinstance(entry[0], str):
        found = script.run(entry[0], first_line=line, form="dockerfile")  # shell form: CMD is ignored
        return _with_image(found, image, "dockerfile")
    if entry is not None:
        argv = list(entry[0]) + (list(cmd[0]) if cmd is not None and isinstance(cmd[0], list) else [])
    elif cmd is not None:
        if isinstance(cmd[0], str):
            found = script.run(cmd[0], first_line=line, form="dockerfile")
            if found or not (image and _is_vllm_image(image)):
                return _with_image(found, image, "dockerfile")
            argv = ["vllm", "serve", *[w for w, _ in shell.split_words(cmd[0])]]
        else:
            argv = list(cmd[0])
            if launcher_start(argv) is None and image and _is_vllm_image(image):
                argv = ["vllm", "serve", *argv]
    if not argv:
        return []
    found = script.run(shlex.join(argv), first_line=line, form="dockerfile")
    return _with_image(found, image, "dockerfile")


def _with_image(found: list[Launch], image: str | None, form: str) -> list[Launch]:
    for launch in found:
        launch.form = form
        launch.image = launch.image or image
    return found


def _joined_lines(text: str) -> list[tuple[int, str]]:
    """A Dockerfile's instructions, continuation lines joined, each with the line it starts on."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        elif not line.strip() or line.lstrip().startswith("#"):
            continue  # Docker drops comment and empty lines inside a continued instruction
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(line)
        out.append((start, " ".join(pending)))
        pending = []
    if pending:
        out.append((start, " ".join(pending)))
    return out


# ---------------------------------------------------------------------------------------- compose files


def _compose(text: str, bound: Mapping[str, str]) -> list[Launch]:
    try:
        docs = [safe_load_bounded(text)]
    except ParseError:
        return []
    out: list[Launch] = []
    for doc in docs:
        services = doc.get("services") if isinstance(doc, dict) else None
        if not isinstance(services, dict):
            continue
        for name, service in services.items():
            if not isinstance(service, dict):
                continue
            launch = _compose_service(str(name), service, bound, _key_line(text, str(name)))
            if launch is not None:
                out.append(launch)
    return out


_SERVICE_IMAGE = re.compile(r"^[ \t]+image:[ \t]*\S", re.M)
_SERVICE_RUNS = re.compile(r"^[ \t]+(?:command|entrypoint):", re.M)
_BLOCK_KEY = re.compile(r"^([ \t]*)['\"]?[\w.-]+['\"]?[ \t]*:[ \t]*$")


def _compose_fragment(text: str, bound: Mapping[str, str]) -> list[Launch]:
    """A compose service pasted without its ``services:`` key (``vllm:`` with its ``image:`` and
    ``command:``), alone or in a markdown code block: its launch, as a compose file's."""
    if not (_SERVICE_IMAGE.search(text) and _SERVICE_RUNS.search(text)):
        return []
    lines = text.split("\n")
    for start, block in _indented_blocks(lines):
        try:
            doc = safe_load_bounded(textwrap.dedent(block))
        except ParseError:
            continue
        if not isinstance(doc, dict) or len(doc) != 1:
            continue
        name, service = next(iter(doc.items()))
        if not (
            isinstance(service, dict) and "image" in service and {"command", "entrypoint"} & set(service)
        ):
            continue
        launch = _compose_service(str(name), service, bound, start + 1)
        if launch is not None:
            launch.notes.insert(0, f"a compose service ({name}) pasted without its `services:` key")
            return [launch]
    return []


def _indented_blocks(lines: list[str]) -> list[tuple[int, str]]:
    """Each ``key:`` line with the more indented (or blank) lines below it: (its index, the block)."""
    out: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        match = _BLOCK_KEY.match(line)
        if not match:
            continue
        indent = len(match.group(1).expandtabs())
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
        if j > i + 1:
            out.append((i, "\n".join(lines[i:j])))
    return out


def _key_line(text: str, key: str) -> int:
    match = re.search(rf"^[ \t]+['\"]?{re.escape(key)}['\"]?[ \t]*:", text, re.M)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _compose_service(name: str, service: dict, bound: Mapping[str, str], line: int) -> Launch | None:
    image = str(service.get("image") or "")
    environment = service.get("environment")
    env: dict[str, str] = {}
    if isinstance(environment, dict):
        env = {str(k): "" if v is None else str(v) for k, v in environment.items()}
    elif isinstance(environment, list):
        for item in environment:
            key, _, value = str(item).partition("=")
            env[key] = value

    def words(value: Any) -> list[str]:
        if isinstance(value, list):
            return [str(v) for v in value]
        if isinstance(value, str):
            try:
                return [w for w, _ in shell.split_words(value)]
            except ParseError:
                return value.split()
        return []

    entry, command = words(service.get("entrypoint")), words(service.get("command"))
    argv = entry + command if entry else command
    script = _Script(bound)
    script.shell_vars = {**bound}
    if argv and argv[0].rsplit("/", 1)[-1] in _SHELLS and "-c" in argv[1:3]:
        at = argv.index("-c")
        script.exported = dict(env)
        found = script.run(argv[at + 1] if at + 1 < len(argv) else "", first_line=line, form="compose")
    else:
        if launcher_start(argv) is None:
            if not (_is_vllm_image(image) or (argv and any(_VLLM_FLAG.match(a) for a in argv))):
                return None
            argv = ["vllm", "serve", *argv]
        launch = Launch(form="compose", line=line, argv=[])
        launch.env = {k: script._expand(v, launch) for k, v in env.items()}
        start = launcher_start(argv) or 0
        launch.argv = script.expand_words(normal_argv(argv[start:], launch), launch)
        found = [launch] if launch.argv else []
    for launch in found:
        launch.form, launch.name, launch.line = "compose", name, line
        launch.image = script._expand(image, launch) if image else None
        launch.gpus = launch.gpus if launch.gpus is not None else _compose_gpus(service)
        if launch.gpus is None:
            launch.gpus = _gpu_count(
                launch.env.get("CUDA_VISIBLE_DEVICES") or launch.env.get("NVIDIA_VISIBLE_DEVICES")
            )
    return found[0] if found else None


def _compose_gpus(service: dict) -> int | None:
    devices = service.get("deploy", {}).get("resources", {}).get("reservations", {}).get("devices")
    if isinstance(devices, list):
        for device in devices:
            if isinstance(device, dict):
                if isinstance(device.get("count"), int):
                    return device["count"]
                if isinstance(device.get("device_ids"), list):
                    return len(device["device_ids"])
    return None


# ----------------------------------------------------------------------------------------------- Python


def _python(text: str, bound: Mapping[str, str]) -> list[Launch]:
    tree = _py_tree(text)
    if tree is None:
        return []
    names = _py_names(tree)
    lists = _py_lists(tree, names)
    out: list[Launch] = []
    seen: set[int] = set()
    for words, line in lists.values():
        out.extend(_py_launch(words, line, bound, names))
        seen.add(line)
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple) and getattr(node, "lineno", 0) not in seen:
            words = _py_words(node, names)
            if words is not None and launcher_start(words) is not None:
                seen.add(node.lineno)
                out.extend(_py_launch(words, node.lineno, bound, names))
        elif isinstance(node, ast.Constant | ast.JoinedStr) and getattr(node, "lineno", 0) not in seen:
            string = _py_word(node, names)
            if "vllm" in string and re.search(r"vllm\s+serve|" + re.escape(_API_SERVER), string):
                seen.add(node.lineno)
                script = _Script(bound)
                out.extend(
                    _with_image(script.run(string, first_line=node.lineno, form="python"), None, "python")
                )
    out.extend(_py_engine_calls(tree, names))
    out.sort(key=lambda launch: launch.line)
    return out


def _py_tree(text: str) -> ast.Module | None:
    """The code, or, for a snippet pasted out of its function (indented lines after unindented ones), its
    paragraphs that parse, each dedented and keeping its line numbers."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        pass
    try:
        return ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        pass
    body: list[ast.stmt] = []
    lines = text.split("\n")
    start = 0
    for i in range(len(lines) + 1):
        if i < len(lines) and lines[i].strip():
            continue
        chunk = "\n".join(lines[start:i])
        if chunk.strip():
            try:
                part = ast.parse(textwrap.dedent(chunk))
            except (SyntaxError, ValueError):
                part = None
            if part is not None:
                ast.increment_lineno(part, start)
                body.extend(part.body)
        start = i + 1
    return ast.Module(body=body, type_ignores=[]) if body else None


class _PyNames(dict):
    """Names the code binds to a constant (``MODEL_NAME = "Qwen/Qwen2.5-1.5B-Instruct"``), with their line,
    and the environment it sets (``os.environ["CUDA_VISIBLE_DEVICES"] = "1"``)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, int] = {}
        self.environ: dict[str, str] = {}
        self.used: dict[str, bool] = {}  # the names a launch read, recorded on it
        self.literals: dict[str, Any] = {}  # names bound to a literal (a dict of settings, a number)


def _py_names(tree: ast.Module) -> _PyNames:
    names = _PyNames()
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                names.literals[node.targets[0].id] = intake_held.literal_value(node.value, names.literals)
            except ValueError:
                names.literals.pop(node.targets[0].id, None)
        if len(node.targets) != 1 or not isinstance(node.value, ast.Constant):
            continue
        target, value = node.targets[0], node.value.value
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        if isinstance(target, ast.Name) and target.id in names.lines and names.get(target.id) != str(value):
            names.pop(target.id, None)  # given different values (in branches): not known here
        elif isinstance(target, ast.Name) and target.id not in names.lines:
            names[target.id] = str(value)
            names.lines[target.id] = node.lineno
        elif isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                names.environ[key.value] = str(value)
    return names


def _py_lists(tree: ast.Module, names: _PyNames) -> dict[str, tuple[list[str], int]]:
    """Argv lists bound to a name (``cmd = ["vllm", "serve", ...]``), with what ``+=``, ``.extend`` and
    ``.append`` add to them later."""
    lists: dict[str, tuple[list[str], int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            words = _py_words(node.value, names)
            if words is not None and launcher_start(words) is not None:
                lists[node.targets[0].id] = (words, node.lineno)
    for node in sorted((n for n in ast.walk(tree) if hasattr(n, "lineno")), key=lambda n: n.lineno):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in lists:
            more = _py_words(node.value, names)
            if more is not None:
                lists[node.target.id][0].extend(more)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in lists
            and node.func.attr in ("extend", "append")
            and node.args
        ):
            arg = node.args[0]
            more = _py_words(arg, names) if node.func.attr == "extend" else [_py_word(arg, names)]
            if more is not None:
                lists[node.func.value.id][0].extend(more)
    return dict(sorted(lists.items(), key=lambda item: item[1][1]))


_ENGINE_CALLS = frozenset({"LLM", "EngineArgs", "AsyncEngineArgs"})


def _py_engine_calls(tree: ast.Module, names: _PyNames) -> list[Launch]:
    """vLLM's Python API: ``LLM(model=..., tensor_parallel_size=2)`` takes the engine arguments that
    ``vllm serve`` takes as flags, so the call is read as that launch, and said."""
    out: list[Launch] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        )
        if called not in _ENGINE_CALLS:
            continue
        launch = Launch(form="python", line=node.lineno, argv=[], env=dict(names.environ))
        model = node.args[0] if node.args else None
        flags: list[str] = []
        for keyword in node.keywords:
            if keyword.arg == "model":
                model = keyword.value
            else:
                flags.extend(_py_engine_flag(keyword, names, launch))
        model_word = _py_word(model, names) if model is not None else None
        launch.argv = ["vllm", "serve", *([model_word] if model_word else []), *flags]
        launch.notes.append(
            f"read from vLLM's Python API `{called}(...)` on line {node.lineno}: its keyword arguments are "
            "the engine arguments, checked as the `vllm serve` flags of the same names"
        )
        _py_account(launch, names)
        out.append(launch)
    return out


def _py_engine_flag(keyword: ast.keyword, names: _PyNames, launch: Launch) -> list[str]:
    if keyword.arg is None:
        launch.notes.append(f"**{ast.unparse(keyword.value)}: the arguments it passes are not known here")
        return []
    flag = "--" + keyword.arg.replace("_", "-")
    value = keyword.value
    if isinstance(value, ast.Constant) and (value.value is None or value.value is False):
        launch.notes.append(f"{keyword.arg}={value.value!r} is left out (the flag is not given)")
        return []
    if isinstance(value, ast.Constant) and value.value is True:
        return [flag]
    if isinstance(value, ast.Dict | ast.List | ast.Tuple):
        try:  # `{"max_pixels": 1280 * 28 * 28}`: the arithmetic worked out
            return [flag, json.dumps(intake_held.literal_value(value, names.literals))]
        except (ValueError, TypeError):
            pass
    return [flag, _py_word(value, names)]


def _py_account(launch: Launch, names: _PyNames) -> None:
    for word in launch.argv:
        if _WHOLE_PLACEHOLDER.fullmatch(word):
            launch.variables[word[1:-1]] = {"unknown": True, "how": "a Python expression"}
    for name in names.used:
        launch.variables[name] = {"value": names[name], "how": f"assigned on line {names.lines[name]}"}
    names.used.clear()
    gpus = _gpu_count(launch.env.get("CUDA_VISIBLE_DEVICES"))
    if gpus is not None:
        launch.gpus = gpus


def _py_launch(
    words: list[str], line: int, bound: Mapping[str, str], names: _PyNames | None = None
) -> list[Launch]:
    start = launcher_start(words)
    launch = Launch(form="python", line=line, argv=[], env=dict(names.environ) if names else {})
    script = _Script(bound)
    launch.argv = script.expand_words(normal_argv(words[start:], launch), launch)
    _py_account(launch, names if names is not None else _PyNames())
    return [launch] if launch.argv else []


def _py_words(node: ast.AST, names: _PyNames | None = None) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple):
        out: list[str] = []
        for item in node.elts:
            if isinstance(item, ast.Starred):
                out.append(f"<{ast.unparse(item.value)}>")
            else:
                out.append(_py_word(item, names))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _py_words(node.left, names), _py_words(node.right, names)
        if left is not None and right is not None:
            return left + right
    return None


def _py_word(node: ast.AST, names: _PyNames | None = None) -> str:
    """A Python value as the word it puts in an argv; a name bound to a constant is that constant, any other
    expression a ``<placeholder>`` (an unknown value)."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.Name) and names is not None and node.id in names:
        names.used[node.id] = True
        return names[node.id]
    if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.executable":
        return "python3"
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                inner = value.value if isinstance(value, ast.FormattedValue) else value
                word = _py_word(inner, names)
                parts.append(word)
        return "".join(parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and node.args:
        return _py_word(node.args[0], names)
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "json.dumps" and len(node.args) == 1:
        try:  # `json.dumps(speculative_config)`: a dict the code writes out
            literals = names.literals if names is not None else {}
            return json.dumps(intake_held.literal_value(node.args[0], literals))
        except (ValueError, TypeError):
            pass
    return f"<{ast.unparse(node)}>"
