"""Assemble the catalog of one release: arguments, config classes, error messages, parser quirks, source."""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from packaging.version import InvalidVersion, Version

from .interp import (
    BoundMethod,
    Builtin,
    ClassVal,
    EnumMember,
    FieldSpec,
    FuncVal,
    GenericT,
    Instance,
    InterpError,
    Interpreter,
    LitT,
    Opaque,
    PrimType,
    Special,
)
from .kwargs import (
    DICT,
    NONE_T,
    ORIGIN,
    STR,
    ActionRec,
    Conv,
    KwargsEngine,
    Origin,
    ParserRec,
    SubparsersRec,
    bounds_of,
    detect_features,
    get_type_hints,
    is_dataclass_hint,
)
from .source import SourceTree
from .stdlib_stubs import ARGPARSE_SUPPRESS
from .validators import Validator, annotated_validator, dict_check, field_validators, str_check
from .values import Definitions, extract_value_sets, registered_names

SCHEMA_VERSION = 1

# None defaults that vLLM settles in create_engine_config / VllmConfig.__post_init__ (see ARGS-NOTES.md).
STARTUP_RESOLVED = {
    "max_num_batched_tokens",
    "max_num_seqs",
    "max_num_scheduled_tokens",
    "enable_chunked_prefill",
    "enable_prefix_caching",
    "async_scheduling",
    "disable_hybrid_kv_cache_manager",
    "block_size",
    "max_model_len",
    "api_server_count",
    "tokenizer",
    "served_model_name",
    "max_cudagraph_capture_size",
    "cudagraph_capture_sizes",
    "data_parallel_size_local",
    "data_parallel_address",
    "data_parallel_rpc_port",
    "max_num_queued_tokens",
    "max_num_queued_reqs",
    "performance_mode",
    "optimization_level",
}
_RESOLVE_PHRASES = re.compile(
    r"if (?:not specified|unspecified|unset|none|not set|left unset)|"
    r"will be (?:set|inferred|derived|determined|"
    r"used)|automatically|is inferred|is derived|defaults? to .* if|resolved at|at startup|based on the",
    re.I,
)

SERVE_MODULE = "vllm.entrypoints.cli.serve"
ERROR_FILES = ("vllm/engine/arg_utils.py", "vllm/utils/argparse_utils.py")


def _before(version: str | None, bound: str) -> bool:
    try:
        return Version(version or "") < Version(bound)
    except InvalidVersion:
        return False


def argparse_source(tree: SourceTree) -> str:
    """The source of vLLM's ``FlexibleArgumentParser``: ``vllm/utils/argparse_utils.py`` (0.12+), else the
    class alone out of ``vllm/utils/__init__.py`` (0.10-0.11) or ``vllm/utils.py`` (0.8-0.9), so that the
    parser quirks are read from the parser and not from the rest of that module."""
    src = tree.get("vllm/utils/argparse_utils.py")
    if src:
        return src
    for path in ("vllm/utils/__init__.py", "vllm/utils.py"):
        text = tree.get(path)
        if not text or "class FlexibleArgumentParser" not in text:
            continue
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and node.name == "FlexibleArgumentParser":
                return ast.get_source_segment(text, node) or ""
    return ""


class PlatformStub:
    """``current_platform`` as seen on a CUDA machine (the usual target of a serving profile)."""

    def getattr_hook(self, attr):
        if attr in ("device_type", "device_name", "dispatch_key"):
            return "cuda"
        if attr == "ray_device_key":
            return "GPU"
        if attr in ("is_cuda", "is_cuda_alike"):
            return Builtin(attr, lambda i, a, k: True)
        if attr.startswith("is_"):
            return Builtin(attr, lambda i, a, k: False)
        return Builtin(f"current_platform.{attr}", lambda i, a, k: Opaque(f"current_platform.{attr}()"))


def _make_overrides(engine_ref: dict) -> dict:
    def classify_arg(v):
        return classify_conv(v)

    def get_field(interp, args, kwargs):
        cls, name = args[0], args[1]
        if isinstance(cls, ClassVal):
            f = cls.field(name)
            if f is not None:
                default, spec, env, factory = engine_ref["engine"].field_default(f)
                return FieldSpec("dataclass", {"default": default})
        return Opaque("get_field")

    return {
        "get_kwargs": Builtin("get_kwargs", lambda i, a, k: engine_ref["engine"].get_kwargs(a[0])),
        "_compute_kwargs": Builtin("_compute_kwargs", lambda i, a, k: engine_ref["engine"].get_kwargs(a[0])),
        "optional_type": Builtin("optional_type", lambda i, a, k: Conv("optional", inner=classify_arg(a[0]))),
        "parse_type": Builtin("parse_type", lambda i, a, k: classify_arg(a[0])),
        "union_dict_and_str": Conv("dict_or_str"),
        "human_readable_int": Conv("hr_int"),
        "human_readable_int_or_auto": Conv("hr_int_or_auto"),
        "load_general_plugins": Builtin("load_general_plugins", lambda i, a, k: None),
        "get_field": Builtin("get_field", get_field),
        "current_platform": PlatformStub(),
        "init_logger": Builtin("init_logger", lambda i, a, k: Opaque("logger")),
    }


def classify_conv(t) -> Conv | None:
    if t is None:
        return None
    if isinstance(t, Conv):
        return t
    if isinstance(t, PrimType):
        return Conv(t.name if t.name in ("int", "float", "str", "bool") else "str")
    if isinstance(t, LitT):
        first = t.values[0] if t.values else ""
        return Conv({bool: "bool", int: "int", float: "float"}.get(type(first), "str"))
    if isinstance(t, Builtin):
        if t.name == "json.loads":
            return Conv("json")
        return Conv("custom", name=t.name)
    if isinstance(t, ClassVal):
        if t.is_dataclass:
            return Conv("dataclass", cls=t)
        return Conv("custom", name=t.name)
    if isinstance(t, BoundMethod) and getattr(t.func, "name", None) in ("from_cli", "from_json"):
        # 0.8's ``type=CompilationConfig.from_cli`` / ``KVTransferConfig.from_cli``: the JSON of the config
        # (CompilationConfig.from_cli also takes a bare level, 0-3)
        owner = t.self_obj
        if isinstance(owner, ClassVal) and owner.is_dataclass:
            return Conv("dataclass", cls=owner)
        return Conv("json", name=t.func.name)
    if isinstance(t, FuncVal) and t.name == "from_json":  # 0.8's ``type=PoolerConfig.from_json``
        return Conv("json", name=t.name)
    if isinstance(t, FuncVal):
        ret = (t.return_annotation() or "").replace(" ", "")
        if ret in ("int",):
            return Conv("int", name=t.name)
        if ret in ("float",):
            return Conv("float", name=t.name)
        if ret.startswith("dict") or ret.startswith("list["):
            return Conv("json", name=t.name)
        return Conv("custom", name=t.name)
    return Conv("custom", name=repr(t))


def to_json(v: Any) -> tuple[Any, bool]:
    """(JSON value, known?) for a default or a choice."""
    if v is None or isinstance(v, (bool, str)):
        return v, True
    if isinstance(v, int):
        return v, True
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v), True
        return v, True
    if isinstance(v, (list, tuple)):
        items = [to_json(x) for x in v]
        return [x for x, _ in items], all(ok for _, ok in items)
    if isinstance(v, (set, frozenset)):
        items = [to_json(x) for x in v]
        vals = [x for x, _ in items]
        try:
            vals = sorted(vals)
        except TypeError:
            vals = sorted(vals, key=repr)
        return vals, all(ok for _, ok in items)
    if isinstance(v, dict):
        out = {}
        ok = True
        for k, x in v.items():
            if not isinstance(k, (str, int, float, bool)):
                continue
            out[str(k)], known = to_json(x)
            ok = ok and known
        return out, ok
    if isinstance(v, EnumMember):
        val = v.value
        if isinstance(val, (str, int, float, bool)):
            return val, True
        return v.name, True
    if isinstance(v, Instance):
        return {}, True
    if isinstance(v, PrimType):
        return v.name, True
    if isinstance(v, ClassVal):
        return v.name, True
    return None, False


def _first_paragraph(text: str, limit: int = 400) -> str:
    para = text.strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    return para if len(para) <= limit else para[: limit - 3].rstrip() + "..."


def _deprecation_sentences(text: str) -> str | None:
    if not text or "deprecat" not in text.lower():
        return None
    flat = " ".join(text.split())
    sentences = re.split(r"(?<=[.!])\s+", flat)
    picked = [s for s in sentences if "deprecat" in s.lower() or re.search(r"\bremoved?\b", s, re.I)]
    return " ".join(picked) if picked else flat


# --------------------------------------------------------------------------- one argument, step by step


def _action_kind(action: Any) -> tuple[str, str | None]:
    """(store | store_true | ... | boolopt | custom, the custom action class's name)."""
    if action is None:
        return "store", None
    if isinstance(action, str):
        return action, None
    if isinstance(action, Special) and action.name == "BooleanOptionalAction":
        return "boolopt", None
    if isinstance(action, ClassVal):
        return ("boolopt" if action.is_subclass_of_boolean_optional else "custom"), action.name
    return "custom", None


def _pydantic_dict_tag(hints) -> str:
    """pydantic's name of the dict member of a union in a validation error's location: `dict[str,any]`."""
    for h in hints:
        if h is DICT:
            return "dict[any,any]"
        if isinstance(h, GenericT) and h.origin is DICT and len(h.args) == 2:
            return "dict[" + ",".join("str" if a is STR else "any" for a in h.args) + "]"
    return "dict[any,any]"


def _value_type(kw: dict, origin: Origin | None, action_kind: str) -> dict[str, Any]:
    """The catalog type of the value, and what goes with it (item type, config class, nullability...)."""
    conv = classify_conv(kw.get("type"))
    nullable = False
    if conv is not None and conv.kind == "optional":
        nullable = True
        conv = classify_conv(conv.inner)
    if origin is not None and NONE_T in origin.hints:
        nullable = True
    out: dict[str, Any] = {
        "item_type": None,
        "json_or_str": False,
        "str_refused": None,
        "config_class": None,
        "human_readable_int": False,
        "special_values": [],
        "repeatable": False,
        "nullable": nullable,
    }
    base = conv.kind if conv is not None else "str"
    if base in ("hr_int", "hr_int_or_auto"):
        out["human_readable_int"] = True
        if base == "hr_int_or_auto":
            out["special_values"] = ["auto", "-1"]
        base = "int"
    if base == "dataclass":
        out["config_class"] = conv.cls.name
        base = "json"
    elif base == "dict_or_str":
        base = "json"
        out["json_or_str"] = True
        if origin is not None and STR not in origin.hints:
            # argparse keeps a plain string, but the config field (e.g. `dict[str, Any] | Callable`) takes no
            # str: pydantic refuses it, first against the dict member of the union
            out["str_refused"] = _pydantic_dict_tag(origin.hints)
    elif base not in ("int", "float", "bool", "str", "json"):
        base = "str"
    if (
        origin is not None
        and origin.dataclass_cls is not None
        and out["config_class"] is None
        and base == "json"
    ):
        out["config_class"] = origin.dataclass_cls.name
    nargs = kw.get("nargs")
    if action_kind in ("store_true", "store_false", "boolopt"):
        out["type"] = "bool"
    elif action_kind == "store" and base == "bool" and nargs is None:
        # ``add_argument(flag, type=bool)`` (0.11's deprecated --guided-decoding-disable-*): argparse takes
        # one value and applies bool() to it; the catalog's ``bool`` is a flag without a value
        out["type"] = "str"
    elif action_kind in ("append", "extend"):
        out["type"], out["item_type"], out["repeatable"] = "list", base, True
    elif nargs in ("+", "*") or (isinstance(nargs, int) and not isinstance(nargs, bool)):
        out["type"], out["item_type"] = "list", base
    else:
        out["type"] = base
    return out


def _help_text(kw: dict) -> str:
    text = kw.get("help")
    return "" if not isinstance(text, str) or text == ARGPARSE_SUPPRESS else text


def _default(
    kw: dict, origin: Origin | None, action_kind: str, dest: str, typ: str, dc_defaults: dict, help_text: str
) -> tuple[Any, bool]:
    """(the default as JSON, whether vLLM resolves it only at start-up)."""
    if "default" in kw:
        default = kw["default"]
    elif action_kind == "store_true":
        default = False
    elif action_kind == "store_false":
        default = True
    else:
        default = None
    if default == ARGPARSE_SUPPRESS:
        value, known = dc_defaults.get(dest, (None, True))
        default, resolved = value, not known
    else:
        default_json, known = to_json(default)
        default, resolved = default_json, not known
    if origin is not None:
        if origin.env_default:
            resolved = True
        orig_json, _ = to_json(origin.default)
        if default is None and orig_json is not None and "default" in kw:
            resolved = True
    if (
        default is None
        and not resolved
        and (
            dest in STARTUP_RESOLVED
            or (typ == "bool" and action_kind == "boolopt" and "default" in kw)
            or _RESOLVE_PHRASES.search(help_text or "")
        )
    ):
        resolved = True
    return default, resolved


def _choices(kw: dict, origin: Origin | None) -> dict[str, Any]:
    """``choices`` (argparse refuses anything else) and ``suggestions`` (a metavar list, or an enum)."""
    out: dict[str, Any] = {}
    choices = kw.get("choices")
    if isinstance(choices, (list, tuple, set)):
        out["choices"], _ = to_json([c for c in choices if not isinstance(c, Opaque)])
        if not out["choices"]:
            # ``choices=list(ReasoningParserManager.reasoning_parsers)`` (0.8-0.11): a registry filled by
            # decorators at import time, empty when read statically; argparse would refuse every value
            out["choices"] = None
    else:
        out["choices"] = None
    metavar = kw.get("metavar")
    if isinstance(metavar, list):
        out["suggestions"], _ = to_json(metavar)
    if origin is not None and "suggestions" not in out and not out["choices"]:
        for th in origin.hints:
            if isinstance(th, ClassVal) and th.is_enum:
                members = [th.getattr(m) for m in th.members()]
                members = [m for m in members if isinstance(m, EnumMember)]
                vals = [to_json(m)[0] for m in members]
                if any(
                    not isinstance(v, (int, str)) or (isinstance(v, str) and not re.fullmatch(r"[\w-]+", v))
                    for v in vals
                ):
                    vals = [m.name for m in members]  # vLLM's validators take member names here
                if vals:
                    out["suggestions"] = vals
                break
    return out


def _deprecation(
    kw: dict, action_name: str | None, origin: Origin | None, help_text: str
) -> tuple[bool, str | None]:
    """(deprecated?, vLLM's deprecation text): from ``deprecated=``, a deprecating action, or the help."""
    deprecated = bool(kw.get("deprecated") is True)
    text = None
    if action_name and "deprecat" in action_name.lower():
        deprecated = True
    if origin is not None and origin.spec is not None and origin.spec.kwargs.get("deprecated"):
        deprecated = True
        dep = origin.spec.kwargs["deprecated"]
        if isinstance(dep, str):
            text = dep
    help_dep = _deprecation_sentences(help_text)
    if help_dep and re.search(
        r"\bis deprecated\b|\[deprecated\]|deprecated[:;,.]|deprecated and", help_text, re.I
    ):
        deprecated = True
        text = text or help_dep
    return deprecated, text


class CatalogBuilder:
    def __init__(self, tree: SourceTree, version: str | None = None):
        self.tree = tree
        self.version = version or tree.version()
        self.engine_ref: dict = {}
        self.interp = Interpreter(tree, overrides=_make_overrides(self.engine_ref))
        self.interp.iterate_enums = _before(self.version, "0.20")
        self.features = detect_features(tree.get("vllm/engine/arg_utils.py"))
        self.engine = KwargsEngine(self.interp, self.features)
        self.engine_ref["engine"] = self.engine
        argparse_src = argparse_source(tree)
        self.enable_disable = "EnableDisableAction" in argparse_src and re.search(
            r"register\(\s*['\"]action['\"]\s*,\s*(?:argparse\.)?BooleanOptionalAction\s*,\s*EnableDisableAction",
            argparse_src,
        )
        self.notes: list[str] = []

    # -- the serve parser
    def serve_parser(self) -> ParserRec:
        mod = self.interp.load_module(SERVE_MODULE)
        if mod is None:
            raise FileNotFoundError("vllm/entrypoints/cli/serve.py not found")
        root = ParserRec()
        subparsers = SubparsersRec(root)
        for name in list(mod.bindings):
            val = mod.get(name) if mod.bindings[name][0] == "class" else None
            if isinstance(val, ClassVal) and "subparser_init" in val.members():
                name = val.getattr("name")
                if name != "serve" and not (not isinstance(name, str) and val.name == "ServeSubcommand"):
                    continue  # (0.8-0.9 set ``self.name = "serve"`` in ``__init__``, not on the class)
                method = val.getattr("subparser_init")
                inst = Instance(val)
                try:
                    self.interp.call(method, [inst, subparsers], {})
                except (InterpError, RecursionError) as exc:
                    self.notes.append(f"subparser_init failed: {exc}")
                if "serve" in root.subparsers and root.subparsers["serve"].actions:
                    return root.subparsers["serve"]
        make = mod.get("make_arg_parser") if mod.has("make_arg_parser") else None
        if make is None:
            raise InterpError("cannot find make_arg_parser")
        parser = ParserRec()
        self.interp.call(make, [parser], {})
        return parser

    # -- one argument
    def dataclass_defaults(self) -> dict[str, tuple[Any, bool]]:
        """Field defaults of EngineArgs / AsyncEngineArgs / frontend args (for ``default=SUPPRESS``)."""
        out: dict[str, tuple[Any, bool]] = {}
        candidates = [("vllm.engine.arg_utils", "AsyncEngineArgs")]
        for modname in (
            "vllm.entrypoints.openai.cli_args",
            "vllm.entrypoints.launchers.cli_args",
            "vllm.entrypoints.common.cli_args",
        ):
            candidates.append((modname, "FrontendArgs"))
        for modname, clsname in candidates:
            cls = self.interp.find_class(modname, clsname) if self.tree.module_path(modname) else None
            if cls is None:
                continue
            for f in cls.fields():
                default, spec, env, factory = self.engine.field_default(f)
                value, known = to_json(default)
                out.setdefault(f.name, (value, known and not env))
        return out

    def arg_spec(self, rec: ActionRec, dc_defaults: dict) -> dict | None:
        """The catalog entry of one argparse action (None for positionals, ``--help`` and ``--version``)."""
        kw = rec.kwargs
        flags = [s for s in rec.option_strings if isinstance(s, str) and s.startswith("-")]
        if not flags:
            return None  # positional (model_tag)
        origin: Origin | None = kw.get(ORIGIN)
        dest = kw.get("dest")
        if not isinstance(dest, str):
            long_flags = [s for s in flags if s.startswith("--")]
            dest = (long_flags or flags)[0].lstrip("-").replace("-", "_")
        action_kind, action_name = _action_kind(kw.get("action"))
        if action_kind in ("help", "version"):
            return None
        value = _value_type(kw, origin, action_kind)
        help_text = _help_text(kw)
        spec: dict[str, Any] = {"name": dest, "flags": flags, "type": value["type"]}
        if value["item_type"]:
            spec["item_type"] = value["item_type"]
        spec["default"], spec["default_resolved_at_startup"] = _default(
            kw, origin, action_kind, dest, value["type"], dc_defaults, help_text
        )
        spec.update(_choices(kw, origin))
        if dest == "reasoning_parser" and isinstance(kw.get("choices"), list) and not spec["choices"]:
            spec["choices"] = self.registered_reasoning_parsers()
        bounds = bounds_of(origin.spec, None) if origin is not None else {}
        if origin is not None:
            bounds.update(bounds_of(None, self.engine.field_hint(origin.field)))
        if bounds:
            spec["bounds"] = bounds
        spec["nullable"] = value["nullable"]
        spec.update(self._negation(flags, action_kind))
        nargs = kw.get("nargs")
        spec["optional_value"] = nargs == "?"
        if nargs == "?":
            spec["const"], _ = to_json(kw.get("const"))
        if isinstance(nargs, (str, int)) and not isinstance(nargs, bool):
            spec["nargs"] = nargs
        spec["human_readable_int"] = value["human_readable_int"]
        if value["special_values"]:
            spec["special_values"] = value["special_values"]
        if value["json_or_str"]:
            spec["json_or_str"] = True
        if value["str_refused"]:
            spec["str_refused"] = value["str_refused"]
        if value["repeatable"]:
            spec["repeatable"] = True
        spec["config_class"] = value["config_class"]
        spec["deprecated"], spec["deprecation"] = _deprecation(kw, action_name, origin, help_text)
        spec["group"] = rec.group if isinstance(rec.group, str) else None
        spec["help"] = help_text.strip()
        if origin is not None:
            f = origin.field
            spec["origin"] = {
                "class": f.owner.name,
                "field": f.name,
                "file": f.owner.module.path,
                "line": f.lineno,
            }
        return spec

    def registered_reasoning_parsers(self) -> list[str] | None:
        """``choices=list(ReasoningParserManager.reasoning_parsers)`` (0.8-0.11): the registry is filled at
        import time by ``@ReasoningParserManager.register_module("name")`` on the classes of its package,
        so the names are read from those decorators."""
        found = Definitions(self.tree).find("ReasoningParserManager")
        if found is None:
            return None
        return sorted(set(registered_names(Definitions(self.tree), found[0]))) or None

    def _negation(self, flags: list[str], action_kind: str) -> dict[str, Any]:
        """``negatable``, ``negative_flags`` (``--no-x``, ``--disable-x``) and ``hidden_aliases``."""
        negative: list[str] = []
        hidden: list[str] = []
        if action_kind == "boolopt":
            negated = [f"--no-{s[2:]}" for s in flags if s.startswith("--")]
            inverses = []
            if self.enable_disable:
                for s in flags:
                    for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                        if s.startswith(prefix):
                            inverses.append(inverse + s[len(prefix) :])
            negative = inverses + negated
            if inverses:
                hidden = negated
        elif action_kind == "store_false":
            negative = list(flags)
        return {"negatable": action_kind == "boolopt", "negative_flags": negative, "hidden_aliases": hidden}

    def arguments(self) -> list[dict]:
        parser = self.serve_parser()
        dc_defaults = self.dataclass_defaults()
        out = []
        seen: set[str] = set()
        for rec in parser.actions:
            spec = self.arg_spec(rec, dc_defaults)
            if spec is None:
                continue
            if spec["name"] in seen:
                # argparse would have raised on conflicting option strings; same dest twice is allowed.
                self.notes.append(f"dest {spec['name']} registered twice")
            seen.add(spec["name"])
            out.append(spec)
        self.apply_deprecation_messages(out)
        return out

    def apply_deprecation_messages(self, specs: list[dict]) -> None:
        """Attach vLLM's module-level deprecation texts.

        (``_X_DEPRECATION_MESSAGE = "--x is deprecated ..."``, passed as help or warned about later.)"""
        by_flag = {f: s for s in specs for f in s["flags"]}
        texts: list[str] = []
        for path in ("vllm/engine/arg_utils.py",):
            src = self.tree.get(path)
            if not src:
                continue
            for node in ast.parse(src).body:
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and "DEPRECAT" in t.id.upper() for t in node.targets
                ):
                    text = _render_message(node.value, {})
                    if text:
                        texts.append(text)
        for text in texts:
            for flag in re.findall(r"--[a-z0-9][a-z0-9-]*", text):
                spec = by_flag.get(flag)
                if (
                    spec is not None
                    and text.lower().find(flag + " is deprecated") >= 0
                    or (spec is not None and f"({flag}) is deprecated" in text)
                ):
                    spec["deprecated"] = True
                    spec["deprecation"] = " ".join(text.split())

    # -- config classes
    def config_classes(self, specs: list[dict]) -> dict:
        wanted: list[ClassVal] = []
        index: dict[str, ClassVal] = {}
        for cls in self.engine_classes_by_name().values():
            index[cls.name] = cls
        for s in specs:
            name = s.get("config_class")
            if name and name in index and index[name] not in wanted:
                wanted.append(index[name])
        out: dict = {}
        while wanted:
            cls = wanted.pop(0)
            if cls.name in out:
                continue
            entry = self.describe_class(cls)
            out[cls.name] = entry
            for fdesc in entry["fields"].values():
                sub = fdesc.get("config_class")
                if sub and sub not in out and sub in self._dc_seen:
                    wanted.append(self._dc_seen[sub])
        return out

    def engine_classes_by_name(self) -> dict[str, ClassVal]:
        self._dc_seen: dict[str, ClassVal] = {}
        for _key in list(self.engine._cache):
            pass
        # every dataclass that get_kwargs produced a dataclass type for
        for kwargs in list(self.engine._cache.values()):
            for kw in kwargs.values():
                origin = kw.get(ORIGIN)
                if origin is not None and origin.dataclass_cls is not None:
                    self._dc_seen[origin.dataclass_cls.name] = origin.dataclass_cls
        return dict(self._dc_seen)

    def describe_class(self, cls: ClassVal) -> dict:
        kwargs = self.engine.get_kwargs(cls)
        validators = field_validators(cls)
        fields: dict = {}
        for name, kw in kwargs.items():
            origin: Origin = kw[ORIGIN]
            spec = origin.spec
            if spec is not None and spec.kwargs.get("init") is False:
                continue
            if name.startswith("_"):
                continue
            rec = ActionRec([f"--{name.replace('_', '-')}"], kw, None, 0)
            arg = self.arg_spec(rec, {})
            if arg is None:
                continue
            entry = {
                "type": arg["type"],
                "default": arg["default"],
                "choices": arg["choices"],
                "nullable": arg["nullable"],
            }
            for key in ("item_type", "bounds", "suggestions", "special_values", "json_or_str"):
                if arg.get(key):
                    entry[key] = arg[key]
            if arg["default_resolved_at_startup"]:
                entry["default_resolved_at_startup"] = True
            check = self.str_check(validators.get(name, []), origin, name)
            if check is not None:
                entry["str_check"] = check
                if check["strict"]:  # its validator takes a name, never an object: a str field
                    entry["type"] = "str"
                elif entry["type"] == "json":  # an object, or a name its validator turns into one
                    entry["json_or_str"] = True
            elif entry["type"] == "json" and origin.dataclass_cls is None:
                checked = self.dict_check(validators.get(name, []), name)
                if checked is not None:
                    item_class = self.dict_item_class(origin)
                    if item_class is not None and "dict" not in ((checked["items"] or {}).get("types") or {}):
                        # an object item its validator lets through is built as this config class
                        checked["items"] = {**(checked["items"] or {}), "config_class": item_class.name}
                        self._dc_seen.setdefault(item_class.name, item_class)
                    entry["dict_check"] = checked
            if origin.dataclass_cls is not None and entry["type"] == "json":
                entry["config_class"] = origin.dataclass_cls.name
                self._dc_seen.setdefault(origin.dataclass_cls.name, origin.dataclass_cls)
            if arg["deprecated"]:
                entry["deprecated"] = True
                entry["deprecation"] = arg["deprecation"]
            entry["help"] = _first_paragraph(arg["help"])
            entry["line"] = origin.field.lineno
            fields[name] = entry
        return {
            "module": cls.module.name,
            "file": cls.module.path,
            "line": cls.node.lineno,
            "doc": _first_paragraph(cls.doc),
            "fields": fields,
        }

    def str_check(self, validators: list[Validator], origin: Origin, name: str) -> dict | None:
        """The strings a field's pydantic validators take and refuse (see :mod:`.validators`)."""
        chain = [v for v in validators if v.mode == "before"]
        plain = next((v for v in validators if v.mode == "plain"), None)
        plain = plain or annotated_validator(self.interp, self.engine.field_hint(origin.field))
        if plain is not None:
            chain.append(plain)
        return str_check(self.interp, chain, name) if chain else None

    def dict_check(self, validators: list[Validator], name: str) -> dict | None:
        """What a free-form JSON object field's validators refuse (see :mod:`.validators`)."""
        chain = [v for v in validators if v.mode == "before"]
        return dict_check(self.interp, chain, name) if chain else None

    def dict_item_class(self, origin: Origin) -> ClassVal | None:
        """The config dataclass among a ``dict[str, ... | Cls]`` field's value types, if any."""
        for th in origin.hints:
            if isinstance(th, GenericT) and th.origin == DICT and len(th.args) == 2:
                return next((vt for vt in get_type_hints(th.args[1]) if is_dataclass_hint(vt)), None)
        return None

    # -- errors
    def error_files(self) -> list[str]:
        files = list(ERROR_FILES)
        files += [p for p in self.tree.listdir("vllm/config") if p.endswith(".py")]
        for p in (
            "vllm/entrypoints/openai/cli_args.py",
            "vllm/entrypoints/launchers/cli_args.py",
            "vllm/entrypoints/common/cli_args.py",
        ):
            if self.tree.get(p):
                files.append(p)
        return sorted(set(f for f in files if self.tree.get(f)))

    def errors(self) -> list[dict]:
        out = []
        for path in self.error_files():
            out.extend(scan_errors(path, self.tree.get(path) or ""))
        return out

    # -- parser quirks
    def parser_quirks(self) -> dict:
        src = argparse_source(self.tree)
        arg_utils = self.tree.get("vllm/engine/arg_utils.py") or ""
        quirks: dict[str, Any] = {}
        o_alias = None
        # The first long option the ``-O...`` branch of parse_args rewrites to.
        m = re.search(r'startswith\(\s*"-O"\s*\)(?:(?!\n\s*def ).){0,600}?"(--[a-z][a-z-]+)"', src, re.S)
        if m:
            o_alias = m.group(1)[2:].replace("-", "_")
        quirks["O_alias"] = o_alias
        if o_alias:
            forms = ["-O<v>", "-O=<v>"]
            m2 = re.search(r'arg == "-O"[^\n]*\n?.*?args\[i \+ 1\] in (\{[^}]*\})', src, re.S)
            if m2:
                forms.append("-O <v>")
                quirks["O_separate_values"] = sorted(re.findall(r'"([^"]+)"', m2.group(1)))
            elif 'arg == "-O"' in src:
                forms.append("-O <v>")
            quirks["O_forms"] = forms
        quirks["underscore_to_dash"] = (
            "name_part" if "(?<=--)[^\\.]*" in src else ("all" if 'replace("_", "-")' in src else False)
        )
        quirks["dotted_keys"] = bool(re.search(r'processed_arg\.split\("\."\)|\.split\("\."\)', src)) and (
            "create_nested_dict" in src or "nested" in src
        )
        quirks["list_append_plus"] = 'endswith("+")' in src
        quirks["dotted_value_parsing"] = (
            ["json", "human_readable_int", "str"]
            if "human_readable_int(value_str)" in src
            else ["json", "str"]
        )
        quirks["json_human_readable_numbers"] = "_expand_json_human_readable_numbers" in arg_utils
        quirks["model_flag_moved_to_positional"] = "--model" in src and "model_tag" in src
        quirks["config_file"] = "_pull_args_from_config" in src
        quirks["config_false_to_no_flag"] = "--no-{key}" in src
        quirks["enable_disable_pairs"] = bool(self.enable_disable)
        quirks["task_hint"] = "--task is not a vllm serve option" in src
        quirks["allow_abbrev"] = "allow_abbrev=False" not in src
        quirks["positional"] = "model_tag"
        quirks["optional_none_choice"] = self.features.none_choice
        quirks["deprecated_kwarg"] = "deprecated" in src
        return quirks

    def build(self) -> dict:
        specs = self.arguments()
        catalog = {
            "schema": SCHEMA_VERSION,
            "version": self.version,
            "source": {
                "wheel": self.tree.wheel,
                "sha256": self.tree.sha256,
                "commit": self.tree.commit(),
            },
            "parser": self.parser_quirks(),
            "arguments": specs,
            "config_classes": self.config_classes(specs),
            "errors": self.errors(),
        }
        catalog["value_sets"], catalog["value_checks"] = extract_value_sets(self.tree)
        return catalog


# --------------------------------------------------------------------------- error messages


def _render_message(node, local_assigns: dict) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append("{" + ast.unparse(v.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _render_message(node.left, local_assigns)
        right = _render_message(node.right, local_assigns)
        if left is None and right is None:
            return None
        return (left if left is not None else "{" + ast.unparse(node.left) + "}") + (
            right if right is not None else "{" + ast.unparse(node.right) + "}"
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _render_message(node.left, local_assigns)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _render_message(node.func.value, local_assigns)
    if isinstance(node, ast.Name) and node.id in local_assigns:
        return _render_message(local_assigns[node.id], {})
    return None


def _error_site(node: ast.AST, assigns: dict) -> tuple[str, str, str] | None:
    """(kind, exception class, message) of ``raise X("...")`` or of ``assert cond, "..."``."""
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
        msg = _render_message(node.exc.args[0], assigns)
        return ("raise", ast.unparse(node.exc.func).split(".")[-1], msg) if msg else None
    if isinstance(node, ast.Assert) and node.msg is not None:
        msg = _render_message(node.msg, assigns)
        return ("assert", "AssertionError", msg) if msg else None
    return None


def scan_errors(path: str, src: str) -> list[dict]:
    """The raise-sites and assert-sites (those with a message) of one file, with their messages."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out: list[dict] = []

    def visit(node, scope: list[str], assigns: dict):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                local = {}
                if not isinstance(child, ast.ClassDef):
                    for n in ast.walk(child):
                        if (
                            isinstance(n, ast.Assign)
                            and len(n.targets) == 1
                            and isinstance(n.targets[0], ast.Name)
                        ):
                            local[n.targets[0].id] = n.value
                visit(child, [*scope, child.name], {**assigns, **local})
                continue
            site = _error_site(child, assigns)
            if site is not None:
                kind, cls_name, msg = site
                out.append(
                    {
                        "message": msg,
                        "class": cls_name,
                        "kind": kind,
                        "file": path,
                        "line": child.lineno,
                        "where": ".".join(scope) or None,
                    }
                )
            visit(child, scope, assigns)

    module_assigns = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            module_assigns[n.targets[0].id] = n.value
    visit(tree, [], module_assigns)
    return out
