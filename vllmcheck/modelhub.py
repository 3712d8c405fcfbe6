"""Where a profile's model facts come from: the model's ``config.json``, resolved the way vLLM resolves it.

Plain Python, no Django (the ``hub`` app stores what this module resolves). vLLM's
``ModelConfig.__post_init__`` and ``transformers_utils.config.get_config`` (0.33.0, 0.34.0) read the config
of ``--hf-config-path`` if given, else of the model (a local directory or a Hugging Face repository), at
``--revision``; ``--tokenizer`` never changes which config is read. Flat ``--hf-overrides`` are applied on top
of config.json before any check (``config.update``), dict-valued ones are merged into the nested config they
name. The draft model of speculative decoding (``speculative_config.model``) is read at
``speculative_config.revision``; the target's dict overrides do not reach it.

Only fixed file names are ever fetched: ``config.json``, with ``huggingface_hub.hf_hub_download``; beside it
the checkpoint's root ``*.json`` names (a listing), its tokenizer files and sentence-transformers config
(:func:`checkpoint_facts`), and its weights' size (``model.safetensors.index.json``, or the header of
``model.safetensors``: :mod:`vllmcheck.modelhub_weights`). Fetches honour ``HF_ENDPOINT``,
``HF_TOKEN``, ``HF_HOME``/``HF_HUB_CACHE`` and ``HF_HUB_OFFLINE=1`` (then the local cache alone is used), read
from the environment at each call. A fetch never takes longer than its deadline: it runs in a daemon thread,
and a Hub that does not answer in time is an error like any other, never a hang.

Saves and ``POST /api/v1/validate/`` fetch in the request, so a Hub that cannot be reached must cost little:
one ``HEAD`` without huggingface_hub's retries (which back off 1 + 2 + 4 + 8 s when nothing is cached), and a
Hub endpoint that refused or dropped the connection is remembered for ``VLLM_PROFILES_HF_UNREACHABLE_TTL``
seconds (default 300, per process): meanwhile only the local cache is read and the rules that need the config
say "could not verify", with an info finding saying why. An explicit refresh (``force=True``) tries again.
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .modelhub_weights import CheckpointWeights, hub_weights, local_weights

CONFIG_NAME = "config.json"
DEFAULT_TIMEOUT = 5.0  # seconds for a whole fetch (VLLM_PROFILES_HF_TIMEOUT)
DEFAULT_UNREACHABLE_TTL = (
    300.0  # seconds an unreachable Hub is not asked again (VLLM_PROFILES_HF_UNREACHABLE_TTL)
)
# Speculative methods whose `model` is not a model repository (vLLM builds no draft ModelConfig for them).
NO_DRAFT_MODEL = frozenset({"ngram", "[ngram]", "ngram_gpu", "suffix", "custom_class"})


@dataclass(frozen=True)
class ModelRef:
    """One config.json a profile needs: ``repo`` is a Hugging Face repository id or a local directory."""

    role: str  # "model" or "draft"
    model: str  # the model as the profile names it
    repo: str  # where config.json is read: --hf-config-path, else the model
    revision: str  # "" = the repository's default branch

    @property
    def label(self) -> str:
        return f"{self.repo}@{self.revision}" if self.revision else self.repo


@dataclass(frozen=True)
class Resolution:
    """The outcome of one fetch: a config, or an error a user can act on."""

    config: dict[str, Any] | None
    source: str  # "hub" (fetched), "cache" (HF cache, offline), "local" (a directory), "" on error
    commit: str = ""  # the snapshot's commit sha, when the cache layout shows it
    error: str = ""
    # What the checkpoint holds beside config.json (None: not known), see :func:`checkpoint_facts`
    files: tuple[str, ...] | None = None
    tokens: dict[str, bool] | None = None
    encoder_config: dict[str, Any] | None = None  # see :func:`sentence_transformers_config`
    tokenizer_max_length: int | None = None  # see :func:`tokenizer_max_length`
    weights: CheckpointWeights | None = None  # the checkpoint's bytes (modelhub_weights); None: not known


@dataclass(frozen=True)
class HubSettings:
    endpoint: str | None
    token: str | None
    cache_dir: str
    offline: bool
    timeout: float
    offline_reason: str = "HF_HUB_OFFLINE=1"
    unreachable_ttl: float = DEFAULT_UNREACHABLE_TTL
    # Which local model directories may be read: None, any (the linter, on the user's own machine, reads what
    # vLLM would read there); a tuple, only directories under those roots, symbolic links and ".." resolved
    # (the server: its MODEL_LOCAL_DIRS, empty by default, so a profile cannot read the server's files).
    local_roots: tuple[str, ...] | None = None

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        force_offline: bool = False,
        local_roots: tuple[str, ...] | None = None,
    ) -> HubSettings:
        """The Hugging Face settings as huggingface_hub reads them, but read now rather than at import.
        ``force_offline``: the local cache alone, whatever the environment says (a linter without network).
        ``local_roots``: see :attr:`local_roots`."""
        env = os.environ if environ is None else environ
        if env.get("HF_HUB_CACHE"):
            cache = env["HF_HUB_CACHE"]
        elif env.get("HF_HOME"):
            cache = os.path.join(env["HF_HOME"], "hub")
        else:
            base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            cache = os.path.join(base, "huggingface", "hub")
        offline = any(
            (env.get(name) or "").strip().upper() in {"1", "ON", "YES", "TRUE"}
            for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
        )
        try:
            timeout = float(env.get("VLLM_PROFILES_HF_TIMEOUT") or DEFAULT_TIMEOUT)
        except ValueError:
            timeout = DEFAULT_TIMEOUT
        try:
            ttl = float(env.get("VLLM_PROFILES_HF_UNREACHABLE_TTL") or DEFAULT_UNREACHABLE_TTL)
        except ValueError:
            ttl = DEFAULT_UNREACHABLE_TTL
        return cls(
            endpoint=(env.get("HF_ENDPOINT") or "").rstrip("/") or None,
            token=env.get("HF_TOKEN") or None,
            cache_dir=os.path.expanduser(os.path.expandvars(cache)),
            offline=offline or force_offline,
            timeout=max(timeout, 0.1),
            offline_reason="HF_HUB_OFFLINE=1" if offline else "the cache alone is read",
            unreachable_ttl=max(ttl, 0.0),
            local_roots=None if local_roots is None else tuple(local_roots),
        )

    @property
    def where(self) -> str:
        return self.endpoint or "https://huggingface.co"


def _json_value(value: Any) -> Any:
    """Arguments given as JSON text on a command line arrive as text in some shapes: decode them."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def model_refs(model: str | None, args: Mapping[str, Any] | None) -> list[ModelRef]:
    """The config.json files vLLM reads for a profile: the model's (or --hf-config-path's) and the draft's."""
    args = args or {}
    refs: list[ModelRef] = []
    if model:
        config_path = args.get("hf_config_path")
        repo = config_path if isinstance(config_path, str) and config_path.strip() else model
        refs.append(ModelRef("model", model, repo.strip(), str(args.get("revision") or "").strip()))
    spec = _json_value(args.get("speculative_config"))
    if isinstance(spec, Mapping):
        draft = spec.get("model")
        method = spec.get("method")
        if (
            isinstance(draft, str)
            and draft.strip()
            and draft not in NO_DRAFT_MODEL
            and method not in NO_DRAFT_MODEL
            and not draft.startswith(("ngram", "suffix"))
        ):
            revision = str(spec.get("revision") or "").strip()
            refs.append(ModelRef("draft", draft.strip(), draft.strip(), revision))
    return refs


def hf_overrides(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The profile's ``--hf-overrides`` as a dict (an empty dict when absent or not a JSON object)."""
    value = _json_value((args or {}).get("hf_overrides"))
    return dict(value) if isinstance(value, Mapping) else {}


_SCALARS = (str, int, float, bool, type(None))


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), several times cheaper than ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {key: _copy_json(item) for key, item in value.items()}
    if kind is list:
        return [_copy_json(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def _update_nested(target: dict[str, Any], updates: Mapping[str, Any]) -> None:
    for key, value in updates.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _update_nested(target[key], value)
        else:
            target[key] = _copy_json(value)


def apply_overrides(config: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """config.json after vLLM's ``--hf-overrides``: flat values replace keys (``config.update``); a dict value
    is merged into the nested config of that name (``ModelConfig._apply_dict_overrides``), else set."""
    result = _copy_json(dict(config))
    for key, value in overrides.items():
        if not isinstance(value, Mapping):
            result[key] = _copy_json(value)
    for key, value in overrides.items():
        if isinstance(value, Mapping):
            if isinstance(result.get(key), dict):
                _update_nested(result[key], value)
            else:
                result[key] = _copy_json(dict(value))
    return result


def architecture(config: Mapping[str, Any] | None) -> str | None:
    """``architectures[0]`` of a config, as vLLM picks the model class."""
    archs = (config or {}).get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return None


def parse_config(text: str | bytes, *, where: str) -> dict[str, Any]:
    """A config.json's text as a dict; ValueError naming ``where`` when it is not a JSON object."""
    try:
        config = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise ValueError(f"{where} must be a JSON object (a config.json), not {type(config).__name__}")
    return config


def _looks_like_path(repo: str) -> bool:
    return repo.startswith(("/", "./", "../", "~")) or os.sep + os.sep in repo


# --- What a user may name (a profile is user input: its model, revision and draft reach this module) ---

NOT_A_REPO = "not a Hugging Face repository id (org/name) nor a local directory"
LOCAL_REFUSED = (
    "local model directories are not read on this server; upload the config on the Models page "
    "(or POST /api/v1/model-configs/)"
)


def revision_problem(revision: str) -> str | None:
    """Why ``revision`` cannot be a branch, tag or commit (git's check-ref-format rules: no "..", no "//",
    no control character, space or ``~^:?*[\\``, no leading "/" "-" "." ...), else None. A revision becomes
    part of a path in the Hugging Face cache (``refs/<revision>``): none of these can leave it."""
    if not revision:
        return None
    if (
        len(revision) > 255
        or revision.startswith(("/", "-", "."))
        or revision.endswith(("/", ".", ".lock"))
        or any(part in revision for part in ("..", "//", "/.", "@{"))
        or any(c in " ~^:?*[\\" or ord(c) < 32 or ord(c) == 127 for c in revision)
    ):
        return f"revision {revision!r} is not a branch, tag or commit name"
    return None


def _root_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The root (real path) of ``roots`` that holds the real path ``path``, else None."""
    for root in roots:
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, path]) == real_root:
            return real_root
    return None


def _read_allowed(repo: str, roots: tuple[str, ...]) -> Resolution:
    """A local directory on a server: read only under one of ``roots`` (real paths: a symbolic link or ".."
    cannot leave them), with the same answer whether or not the refused directory exists."""
    if not roots:
        return Resolution(None, "", error=LOCAL_REFUSED)
    real = os.path.realpath(os.path.expanduser(repo))
    root = _root_of(real, roots)
    if root is None:
        return Resolution(
            None,
            "",
            error=f"local model directories are read on this server only under {', '.join(roots)} "
            "(MODEL_LOCAL_DIRS); upload the config on the Models page (or POST /api/v1/model-configs/)",
        )
    if not os.path.isdir(real):
        return Resolution(None, "", error=f"no such local directory {repo}")
    return _read_local(Path(real), root=root)


def _under(root: str | None):
    """Whether a file may be read: its real path is under ``root`` (any file when ``root`` is None)."""
    if root is None:
        return None
    return lambda path: _root_of(os.path.realpath(path), (root,)) is not None


def _read_local(directory: Path, *, root: str | None = None) -> Resolution:
    """config.json and the checkpoint facts of a local directory; with ``root``, only files whose real path is
    under it are read (a symbolic link out of the allowed roots is a missing file)."""
    path = directory / CONFIG_NAME
    try:
        if root is not None and _root_of(os.path.realpath(path), (root,)) is None:
            raise FileNotFoundError(path)
        config = parse_config(path.read_bytes(), where=str(path))
        files, tokens, encoder, max_length = checkpoint_facts(directory, root=root)
        return Resolution(
            config,
            "local",
            files=files,
            tokens=tokens,
            encoder_config=encoder,
            tokenizer_max_length=max_length,
            weights=local_weights(directory, allowed=_under(root)),
        )
    except FileNotFoundError:
        return Resolution(None, "", error=f"the directory {directory} has no {CONFIG_NAME}")
    except (OSError, ValueError) as exc:
        return Resolution(None, "", error=str(exc))


def resolve(
    repo: str, revision: str = "", *, settings: HubSettings | None = None, force: bool = False
) -> Resolution:
    """config.json of a local directory or a Hugging Face repository at ``revision``; never raises.
    ``force``: ask the Hub even if it was found unreachable a moment ago (an explicit refresh).
    A URL is never fetched (only ids on the configured endpoint are: HF_TOKEN goes nowhere else), a revision
    that is not a ref name is refused, and local directories are read as ``settings.local_roots`` allows."""
    settings = settings or HubSettings.from_env()
    if "://" in repo:
        return Resolution(None, "", error=NOT_A_REPO)
    if problem := revision_problem(revision):
        return Resolution(None, "", error=problem)
    if settings.local_roots is not None:  # a server: only ids and directories under its roots
        if _looks_like_path(repo):
            return _read_allowed(repo, settings.local_roots)
        return _fetch(repo, revision, settings, force=force)
    local = Path(os.path.expanduser(repo))
    if local.is_dir():
        return _read_local(local)
    if _looks_like_path(repo):
        return Resolution(None, "", error=f"no such local directory {repo}")
    return _fetch(repo, revision, settings, force=force)


def _commit_of(path: str) -> str:
    parts = Path(path).parts
    if len(parts) >= 3 and parts[-3] == "snapshots":
        return parts[-2]
    return ""


# --- What the checkpoint holds beside config.json ---

# Tokens whose presence in the tokenizer a start-up check asks about: the think start/end tokens of the
# reasoning parsers that vLLM builds at start-up (ReasoningConfig / StructuredOutputsConfig), which refuse
# with "<Parser> reasoning parser could not locate think start/end tokens in the tokenizer!" when the
# tokenizer's vocabulary (added tokens included) lacks one. Only these are stored, never the vocabulary.
PROBE_TOKENS = (
    "<think>",
    "</think>",
    "<seed:think>",
    "</seed:think>",
    "<mm:think>",
    "</mm:think>",
    "<|channel>",
    "<channel|>",
)
# The tokenizer files whose vocabulary is read: the fast tokenizer's, else the byte-level BPE's vocab.json;
# the added tokens of tokenizer_config.json and added_tokens.json count too (the tokenizer's get_vocab()).
TOKENIZER_FILES = ("tokenizer.json", "vocab.json", "tokenizer_config.json", "added_tokens.json")


def _read_json_file(path: Path) -> Any:
    try:
        with open(path, "rb") as handle:
            return json.loads(handle.read())
    except (OSError, ValueError):
        return None


def tokenizer_tokens(paths: Mapping[str, Path]) -> dict[str, bool] | None:
    """{token: in the vocabulary} for each of :data:`PROBE_TOKENS`, from a tokenizer's files (name -> path);
    None when no file gives the vocabulary (a SentencePiece-only tokenizer: its vocabulary is not read)."""
    known: set[str] = set()
    vocabulary = False
    tokenizer = _read_json_file(paths["tokenizer.json"]) if "tokenizer.json" in paths else None
    if isinstance(tokenizer, dict):
        model = tokenizer.get("model") or {}
        vocab = model.get("vocab") if isinstance(model, dict) else None
        if isinstance(vocab, dict):
            known.update(token for token in PROBE_TOKENS if token in vocab)
            vocabulary = True
        elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
            pieces = {item[0] for item in vocab if isinstance(item, list) and item}
            known.update(token for token in PROBE_TOKENS if token in pieces)
            vocabulary = True
        for added in tokenizer.get("added_tokens") or ():
            if isinstance(added, dict) and isinstance(added.get("content"), str):
                known.add(added["content"])
    if not vocabulary and "vocab.json" in paths:
        vocab = _read_json_file(paths["vocab.json"])
        if isinstance(vocab, dict):
            known.update(token for token in PROBE_TOKENS if token in vocab)
            vocabulary = True
    if not vocabulary:
        return None
    config = _read_json_file(paths["tokenizer_config.json"]) if "tokenizer_config.json" in paths else None
    decoder = config.get("added_tokens_decoder") if isinstance(config, dict) else None
    if isinstance(decoder, dict):
        known.update(v["content"] for v in decoder.values() if isinstance(v, dict) and "content" in v)
    added = _read_json_file(paths["added_tokens.json"]) if "added_tokens.json" in paths else None
    if isinstance(added, dict):
        known.update(added)
    return {token: token in known for token in PROBE_TOKENS}


# sentence-transformers' configuration files, in the order vLLM looks for them
# (transformers_utils/config.py get_sentence_transformer_tokenizer_config, the same in 0.20.0-0.34.0).
SENTENCE_TRANSFORMERS_FILES = (
    "sentence_bert_config.json",
    "sentence_roberta_config.json",
    "sentence_distilbert_config.json",
    "sentence_camembert_config.json",
    "sentence_albert_config.json",
    "sentence_xlm-roberta_config.json",
    "sentence_xlnet_config.json",
)


def sentence_transformers_config(files: tuple[str, ...], read: Any) -> dict[str, Any] | None:
    """vLLM's ``ModelConfig.encoder_config``: the first of :data:`SENTENCE_TRANSFORMERS_FILES` the checkpoint
    has that parses to a non-empty object, when it holds ``max_seq_length`` (which then replaces the model's
    derived maximum length); else None. ``read(name)`` gives a file's parsed JSON (None when unreadable)."""
    for name in SENTENCE_TRANSFORMERS_FILES:
        if name in files:
            body = read(name)
            if isinstance(body, dict) and body:
                return body if "max_seq_length" in body else None
    return None


def tokenizer_max_length(paths: Mapping[str, Path]) -> int | None:
    """tokenizer_config.json's model_max_length (an int), which vLLM takes as a cap of the derived length of a
    pooling model with absolute position embeddings (``ModelConfig.get_and_verify_max_len``); None when the
    file or the key is missing (no cap)."""
    config = _read_json_file(paths["tokenizer_config.json"]) if "tokenizer_config.json" in paths else None
    value = config.get("model_max_length") if isinstance(config, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


CheckpointFacts = tuple[tuple[str, ...] | None, dict[str, bool] | None, dict[str, Any] | None, int | None]


def checkpoint_facts(directory: Path, *, root: str | None = None) -> CheckpointFacts:
    """What vLLM sees of a checkpoint folder (a local model directory, or a snapshot of the HF cache) beside
    config.json: the names of its ``*.json`` files (``glob(os.path.join(folder, "*.json"))`` in
    ``weight_utils.get_quant_config``, which looks for a quantization method's config file among them),
    which :data:`PROBE_TOKENS` its tokenizer holds, its sentence-transformers config
    (:func:`sentence_transformers_config`) and its tokenizer's model_max_length. Reads the tokenizer's files
    once (at a fetch). ``root``: a file whose real path is not under it is left out (see :func:`resolve`)."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.name.endswith(".json"))
    except OSError:
        return None, None, None, None
    files = tuple(
        name
        for name in names
        if not name.startswith(".")
        and (directory / name).is_file()
        and (root is None or _root_of(os.path.realpath(directory / name), (root,)) is not None)
    )
    return _facts_of(files, lambda name: directory / name)


def _facts_of(files: tuple[str, ...], path_of: Any) -> CheckpointFacts:
    """The checkpoint facts of a checkpoint holding ``files`` (its ``*.json`` names), ``path_of(name)`` giving
    the local path of one of them (a file of the folder, or one fetched from the Hub)."""
    paths = {name: path_of(name) for name in TOKENIZER_FILES if name in files}
    encoder = sentence_transformers_config(files, lambda name: _read_json_file(path_of(name)))
    return files, tokenizer_tokens(paths), encoder, tokenizer_max_length(paths)


def _checkpoint_of(
    repo: str, revision: str, config_path: str, settings: HubSettings
) -> tuple[CheckpointFacts, CheckpointWeights | None]:
    """The checkpoint facts of a repository whose config.json is at ``config_path``. Offline, vLLM's own
    ``snapshot_download(local_files_only=True)`` sees the cached snapshot alone: so does this. Online, the
    repository's root ``*.json`` files (what vLLM's ``snapshot_download(allow_patterns="*.json")`` fetches)
    and its tokenizer files; when the Hub cannot be listed now, the files are not known (a snapshot holding
    only config.json would wrongly say the others are missing), the tokenizer is read from the snapshot.
    With them, the checkpoint's weights (:mod:`modelhub_weights`: its index or its single file's header)."""
    snapshot = Path(config_path).parent
    if settings.offline:
        return checkpoint_facts(snapshot), local_weights(snapshot)
    from huggingface_hub import HfApi

    try:
        names = HfApi(endpoint=settings.endpoint, token=settings.token).list_repo_files(
            repo, revision=revision or None
        )
    except Exception:
        _, tokens, encoder, max_length = checkpoint_facts(snapshot)
        return (None, tokens, encoder, max_length), local_weights(snapshot, unknown_if_none=True)
    files = tuple(sorted(n for n in names if "/" not in n and n.endswith(".json") and not n.startswith(".")))
    weights = hub_weights(
        repo, revision, names, settings, lambda name: _hub_file(repo, name, revision, settings)
    )
    try:  # a tokenizer file listed but not served: the facts are not known (the weights are)
        facts = _facts_of(files, lambda name: Path(_hub_file(repo, name, revision, settings)))
    except Exception:
        facts = (None, None, None, None)
    return facts, weights


# Hub endpoints that could not be connected to: endpoint -> (monotonic time until which it is not asked, why).
_unreachable: dict[str, tuple[float, str]] = {}
_unreachable_lock = threading.Lock()


class HubUnreachable(Exception):
    """The Hub endpoint cannot be connected to (now, or a moment ago); the cache does not hold the file."""


def unreachable_since(settings: HubSettings) -> str | None:
    """Why the Hub of ``settings`` is not asked now (it was unreachable a moment ago), else None."""
    with _unreachable_lock:
        entry = _unreachable.get(settings.where)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            del _unreachable[settings.where]
            return None
        return entry[1]


def _remember_unreachable(settings: HubSettings, why: str) -> None:
    if settings.unreachable_ttl > 0:
        with _unreachable_lock:
            _unreachable[settings.where] = (time.monotonic() + settings.unreachable_ttl, why)


def forget_unreachable() -> None:
    """Ask every Hub again at the next fetch (tests; a refresh clears its own endpoint)."""
    with _unreachable_lock:
        _unreachable.clear()


# The HTTP client's exceptions for "no connection at all" (refused, no route, DNS, connect time-out), by name:
# huggingface_hub's HTTP client (httpx, or its fork httpx2) is its own business.
_CANNOT_CONNECT = frozenset({"ConnectError", "ConnectTimeout"})


def _cannot_connect(exc: BaseException) -> bool:
    return any(cls.__name__ in _CANNOT_CONNECT for cls in type(exc).__mro__)


# The socket errors behind "cannot connect", in words (never "[Errno -2] Name or service not known").
_CONNECTION_WORDS = (
    (
        (
            "name or service not known",
            "nodename nor servname",
            "temporary failure in name resolution",
            "no address associated",
            "getaddrinfo",
            "name resolution",
        ),
        "name lookup failed",
    ),
    (("connection refused",), "connection refused"),
    (("network is unreachable", "no route to host"), "no route to the host"),
    (("timed out", "timeout"), "no answer in time"),
    (("certificate", "ssl"), "the TLS handshake failed"),
)


def connection_words(exc: BaseException) -> str:
    """Why a connection failed, in words: ``name lookup failed``, ``connection refused`` ..."""
    return _words_of(" ".join(str(e) for e in _chain(exc)).lower())


_RAW_REASON = re.compile(r"(cannot|could not) be reached \(([^()]*(?:\([^()]*\))?[^()]*)\)")


def error_in_words(text: str) -> str:
    """A stored error or message written before connection errors were put in words (``... cannot be reached
    ([Errno -2] Name or service not known)``), as it reads now (``... could not be reached (name lookup
    failed)``); any other text unchanged."""

    def words(match: re.Match[str]) -> str:
        reason = match.group(2)
        if "[Errno" not in reason and "Error" not in reason:
            return match.group(0)
        return f"could not be reached ({_words_of(reason.lower())})"

    return _RAW_REASON.sub(words, text)


def _words_of(text: str) -> str:
    for needles, words in _CONNECTION_WORDS:
        if any(needle in text for needle in needles):
            return words
    return "the connection failed"


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < 8:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _cached_only(repo: str, revision: str, settings: HubSettings, why: str) -> str:
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return hf_hub_download(
            repo,
            CONFIG_NAME,
            revision=revision or None,
            cache_dir=settings.cache_dir,
            local_files_only=True,
        )
    except LocalEntryNotFoundError:
        raise HubUnreachable(why) from None


def _download(repo: str, revision: str, settings: HubSettings, *, force: bool = False) -> str:
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url

    # huggingface_hub reads HF_HUB_OFFLINE once, at import; a long-running process follows the environment
    # it has now (the request hook refuses every request while the flag is set).
    constants.HF_HUB_OFFLINE = settings.offline
    if not settings.offline:
        why = None if force else unreachable_since(settings)
        if why is not None:
            return _cached_only(repo, revision, settings, why)
        # One HEAD, no retries: hf_hub_download alone backs off for 15 s when the Hub cannot be reached and
        # nothing is cached. Its HTTP answers (404, gated, ...) are raised here as they would be there.
        url = hf_hub_url(repo, CONFIG_NAME, revision=revision or None, endpoint=settings.endpoint)
        try:
            get_hf_file_metadata(
                url, token=settings.token, timeout=max(settings.timeout - 0.2, 0.1), retry_on_errors=False
            )
        except Exception as exc:
            if not _cannot_connect(exc):
                raise
            why = f"{settings.where} could not be reached ({connection_words(exc)})"
            _remember_unreachable(settings, why)
            return _cached_only(repo, revision, settings, why)
        with _unreachable_lock:
            _unreachable.pop(settings.where, None)
    return _hub_file(repo, CONFIG_NAME, revision, settings)


def _hub_file(repo: str, name: str, revision: str, settings: HubSettings) -> str:
    """Path of file ``name`` of ``repo`` at ``revision`` in the cache, downloaded first unless offline."""
    from huggingface_hub import hf_hub_download

    return hf_hub_download(
        repo,
        name,
        revision=revision or None,
        cache_dir=settings.cache_dir,
        endpoint=settings.endpoint,
        token=settings.token,
        local_files_only=settings.offline,
        etag_timeout=settings.timeout,
    )


# Transport errors worth one more try within the deadline: huggingface_hub closes its shared HTTP client when
# any of its requests cannot connect, which breaks the requests other threads have in flight at that moment.
_RETRYABLE = frozenset({"ReadError", "WriteError", "CloseError", "RemoteProtocolError"})


def _attempt(repo: str, revision: str, settings: HubSettings, wait: float, force: bool) -> dict[str, Any]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["path"] = _download(repo, revision, settings, force=force)
        except BaseException as exc:  # reported to the caller, whatever it is
            outcome["error"] = exc
            return
        try:  # what the checkpoint holds beside config.json: known or not, never an error of the fetch
            outcome["checkpoint"], outcome["weights"] = _checkpoint_of(
                repo, revision, outcome["path"], settings
            )
        except Exception:
            outcome["checkpoint"] = (None, None, None, None)

    worker = threading.Thread(target=run, name=f"hf-config-{repo}", daemon=True)
    worker.start()
    worker.join(wait)
    return outcome


# A repository id huggingface_hub accepts (org/name, no "--" nor ".."): only for those can the cache layout
# alone say "not cached" (another id gets huggingface_hub's own validation message).
_REPO_ID = re.compile(r"^[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?/[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?$")


def _surely_not_cached(repo: str, settings: HubSettings) -> bool:
    """Offline, and the cache has no folder for the repository: hf_hub_download could only say it is not
    cached (LocalEntryNotFoundError), so the linter need not import huggingface_hub to hear it."""
    if not settings.offline or len(repo) > 96 or "--" in repo or ".." in repo or not _REPO_ID.match(repo):
        return False
    return not os.path.isdir(os.path.join(settings.cache_dir, "models--" + repo.replace("/", "--")))


def _fetch(repo: str, revision: str, settings: HubSettings, *, force: bool = False) -> Resolution:
    if _surely_not_cached(repo, settings):
        return Resolution(
            None,
            "",
            error=f"not in the local Hugging Face cache {settings.cache_dir} ({settings.offline_reason})",
        )
    import huggingface_hub  # noqa: F401  (imported here, so its import time never counts against the deadline)
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:  # before any request: only a repository id ever follows the endpoint in a URL carrying HF_TOKEN
        validate_repo_id(repo)
    except HFValidationError:
        return Resolution(None, "", error=NOT_A_REPO)

    deadline = time.monotonic() + settings.timeout
    while True:
        outcome = _attempt(repo, revision, settings, max(deadline - time.monotonic(), 0.0), force)
        error = outcome.get("error")
        retry = error is not None and type(error).__name__ in _RETRYABLE
        if not retry or time.monotonic() >= deadline - 0.05:
            break
    where = settings.endpoint or "https://huggingface.co"
    if not outcome:
        return Resolution(None, "", error=f"no answer from {where} within {settings.timeout:g} s")
    if "error" in outcome:
        return Resolution(None, "", error=describe_error(outcome["error"], revision, settings))
    path = outcome["path"]
    try:
        with open(path, "rb") as handle:
            config = parse_config(handle.read(), where=CONFIG_NAME)
    except (OSError, ValueError) as exc:
        return Resolution(None, "", error=str(exc))
    files, tokens, encoder, max_length = outcome.get("checkpoint") or (None, None, None, None)
    return Resolution(
        config,
        "cache" if settings.offline else "hub",
        commit=_commit_of(path),
        files=files,
        tokens=tokens,
        encoder_config=encoder,
        tokenizer_max_length=max_length,
        weights=outcome.get("weights"),
    )


def describe_error(exc: BaseException, revision: str, settings: HubSettings) -> str:
    """One line a user can act on, for what hf_hub_download raised."""
    from huggingface_hub import errors

    where = settings.where
    if isinstance(exc, HubUnreachable):
        return f"{exc} and the local cache {settings.cache_dir} does not hold it"
    if any(cls.__name__ == "TimeoutException" for cls in type(exc).__mro__):
        return f"no answer from {where} within {settings.timeout:g} s"
    if isinstance(exc, errors.GatedRepoError):
        return "the repository is gated: accept its licence on the Hub and set HF_TOKEN"
    if isinstance(exc, errors.RevisionNotFoundError):
        return f"revision {revision!r} not found"
    if isinstance(exc, errors.RepositoryNotFoundError):
        hint = "" if settings.token else " (a private repository needs HF_TOKEN)"
        return f"repository not found on {where}{hint}"
    if isinstance(exc, errors.EntryNotFoundError) and not isinstance(exc, errors.LocalEntryNotFoundError):
        return f"the repository has no {CONFIG_NAME}"
    if isinstance(exc, errors.LocalEntryNotFoundError | errors.OfflineModeIsEnabled):
        if settings.offline:
            return f"not in the local Hugging Face cache {settings.cache_dir} ({settings.offline_reason})"
        return f"{where} cannot be reached and the local cache {settings.cache_dir} does not hold it"
    if isinstance(exc, errors.HFValidationError):
        return NOT_A_REPO
    if isinstance(exc, errors.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", None)
        return f"{where} answered HTTP {status}" if status else str(exc).splitlines()[0]
    if _cannot_connect(exc) or isinstance(exc, OSError):
        return f"{where} could not be reached ({connection_words(exc)})"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def fetch_error_message(ref: ModelRef, error: str) -> str:
    """The info finding's message for a config that could not be resolved."""
    what = "the draft model " if ref.role == "draft" else ""
    return f"could not fetch {CONFIG_NAME} of {what}{ref.label}: {error}"


# --- From stored configs to the profile document (no network: re-checks come through here) ---


@dataclass(frozen=True)
class Stored:
    """What the hub stored for one reference (a ModelConfig row's fields)."""

    repo: str
    revision: str
    config: dict[str, Any] | None
    error: str = ""
    files: list[str] | tuple[str, ...] | None = None  # the checkpoint's *.json names; None: not known
    tokens: Mapping[str, bool] | None = None  # PROBE_TOKENS -> in the tokenizer; None: not known
    encoder_config: Mapping[str, Any] | None = None  # the sentence-transformers config; None: none or unknown
    tokenizer_max_length: int | None = None  # tokenizer_config.json's model_max_length; None: none or unknown
    weights: Mapping[str, Any] | None = None  # CheckpointWeights.as_dict(); None: not known


@dataclass(frozen=True)
class ModelFacts:
    config: dict[str, Any] | None  # the model's config.json after --hf-overrides; None when unknown
    draft: dict[str, Any] | None  # {"name", "config", "architecture"} of the draft model, when it has one
    unresolved: tuple[tuple[ModelRef, str], ...]  # (reference, why) for each config that is not known
    # What the checkpoint holds beside config.json, as the document's `model.files` (the *.json names vLLM
    # globs) and `model.tokens` ({token: in the tokenizer}); None when not known, so the rules that read them
    # say "could not verify" (a pasted config.json, --hf-config-path, another --tokenizer, an old row).
    files: list[str] | None = None
    tokens: dict[str, bool] | None = None
    # `model.encoder_config`: the checkpoint's sentence-transformers config (sentence_bert_config.json ...)
    # when it has one with max_seq_length, which replaces the derived maximum length in vLLM; else None.
    encoder_config: dict[str, Any] | None = None
    # `model.tokenizer_max_length`: the model's tokenizer_config.json model_max_length (None: none, unknown,
    # or another --tokenizer), which caps a pooling model's length when its position embeddings are absolute.
    tokenizer_max_length: int | None = None
    # `model.checkpoint`: {"size", "basis", "dtypes"} of the model's own checkpoint (modelhub_weights), which
    # the memory estimate prefers to the config's shapes; None when not known (a pasted config, another
    # --hf-config-path, an old row).
    weights: dict[str, Any] | None = None

    def add_to(self, document: dict[str, Any]) -> dict[str, Any]:
        """Put the facts beyond config.json into a document built from :attr:`config` (``model.draft``,
        ``model.files``, ``model.tokens``, ``model.encoder_config``, ``model.tokenizer_max_length``,
        ``model.checkpoint``)."""
        model = document["model"]
        if self.draft:
            model["draft"] = self.draft
        if self.files is not None:
            model["files"] = self.files
        if self.tokens is not None:
            model["tokens"] = self.tokens
        if self.encoder_config is not None:
            model["encoder_config"] = self.encoder_config
        if self.tokenizer_max_length is not None:
            model["tokenizer_max_length"] = self.tokenizer_max_length
        if self.weights is not None:
            model["checkpoint"] = self.weights
        return document


def _tokenizer_is_model(model: str, args: Mapping[str, Any]) -> bool:
    """vLLM reads the tokenizer of ``--tokenizer`` (default: the model) at ``--tokenizer-revision`` (default:
    the model's revision): the stored facts of the model's row describe it only when both are the model's."""
    tokenizer = str(args.get("tokenizer") or "").strip()
    revision = str(args.get("tokenizer_revision") or "").strip()
    return tokenizer in ("", model) and revision in ("", str(args.get("revision") or "").strip())


def model_facts(
    model: str | None,
    args: Mapping[str, Any] | None,
    *,
    explicit_config: Mapping[str, Any] | None = None,
    stored: Mapping[str, Stored | None] | None = None,
) -> ModelFacts:
    """The model facts of a document. A config given with the profile (``explicit_config``: pasted, or
    ``lint --model-config``) wins over the stored one of the model; overrides apply on top of either."""
    stored = stored or {}
    config: dict[str, Any] | None = None
    draft: dict[str, Any] | None = None
    files: list[str] | None = None
    tokens: dict[str, bool] | None = None
    encoder: dict[str, Any] | None = None
    max_length: int | None = None
    weights: dict[str, Any] | None = None
    unresolved: list[tuple[ModelRef, str]] = []
    for ref in model_refs(model, args or {}):
        if ref.role == "model" and explicit_config:
            config = apply_overrides(explicit_config, hf_overrides(args))
            continue
        row = stored.get(ref.role)
        if row is None or (row.repo, row.revision) != (ref.repo, ref.revision):
            # Never resolved (a profile older than model resolution): its rules say "could not verify", and
            # nothing new appears in the fleet's findings until a save or a refresh resolves it.
            continue
        if row.config is None:
            unresolved.append((ref, row.error or "unknown error"))
        elif ref.role == "model":
            config = apply_overrides(row.config, hf_overrides(args))
            if ref.repo == ref.model:  # not --hf-config-path: the row's folder is the model's
                if row.files is not None:
                    files = list(row.files)
                if row.encoder_config is not None:
                    encoder = dict(row.encoder_config)
                if row.weights is not None:
                    weights = dict(row.weights)
                if row.tokens is not None and _tokenizer_is_model(ref.model, args or {}):
                    tokens = dict(row.tokens)
                if row.tokenizer_max_length is not None and _tokenizer_is_model(ref.model, args or {}):
                    max_length = row.tokenizer_max_length
        else:
            draft = {"name": ref.model, "config": dict(row.config)}
            if arch := architecture(row.config):
                draft["architecture"] = arch
    if config is None and explicit_config and not model:
        config = dict(explicit_config)
    return ModelFacts(config, draft, tuple(unresolved), files, tokens, encoder, max_length, weights)


def resolve_facts(
    model: str | None,
    args: Mapping[str, Any] | None,
    *,
    explicit_config: Mapping[str, Any] | None = None,
    settings: HubSettings | None = None,
) -> ModelFacts:
    """The model facts of a document resolved right now, nothing stored (the server-free linter)."""
    stored: dict[str, Stored | None] = {}
    for ref in model_refs(model, args):
        if ref.role == "model" and explicit_config:
            continue
        result = resolve(ref.repo, ref.revision, settings=settings)
        stored[ref.role] = Stored(
            ref.repo,
            ref.revision,
            result.config,
            result.error,
            result.files,
            result.tokens,
            result.encoder_config,
            result.tokenizer_max_length,
            result.weights.as_dict() if result.weights is not None else None,
        )
    return model_facts(model, args, explicit_config=explicit_config, stored=stored)


def unresolved_findings(facts: ModelFacts) -> list[Any]:
    """One info finding per config.json that could not be fetched: the rules that need it say "could not
    verify", and this says why."""
    from .engine.types import Finding

    return [
        Finding(
            rule="model-config-unavailable",
            severity="info",
            category="catalog",
            message=fetch_error_message(ref, error),
            fields=("model",) if ref.role == "model" else ("speculative_config",),
            solutions=(
                "Check the repository name and revision, set HF_TOKEN for a private or gated model, "
                "or upload its config.json (Models page, POST /api/v1/model-configs/)",
                "Refresh the model config once the Hub is reachable",
            ),
        )
        for ref, error in facts.unresolved
    ]
