"""Replays one release's ``get_kwargs``/``_compute_kwargs`` on statically evaluated config classes,
and records what ``add_argument`` receives.

The rules are those of vLLM's own ``_compute_kwargs`` (dataclass -> JSON,
``bool | str | None`` -> ``nargs='?'``,
``bool`` -> ``BooleanOptionalAction``, ``Literal`` -> choices unless ``str`` is in the union, collections ->
``nargs``, human-readable ints, ``dict`` -> JSON, ``Optional`` -> ``optional_type`` and ``None``
among the choices).
The small differences between releases are read from that release's source (:func:`detect_features`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .interp import (
    AnnotatedT,
    Builtin,
    ClassVal,
    FieldInfo,
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
    UnionT,
)

BOOL, STR, INT, FLOAT, DICT, LIST, TUPLE, SET = (
    PrimType(n) for n in ("bool", "str", "int", "float", "dict", "list", "tuple", "set")
)
NONE_T = PrimType("NoneType")


class _OriginKey:
    """The kwargs key that carries a field's provenance through ``{**kw, ...}`` and ``**kw`` (never a str)."""

    def __repr__(self) -> str:
        return "ORIGIN"


ORIGIN = _OriginKey()


@dataclass(frozen=True)
class Conv:
    """An argparse ``type=`` callable, classified."""

    kind: str  # int|float|str|bool|json|dataclass|dict_or_str|hr_int|hr_int_or_auto|optional|literal|custom
    inner: Any = None
    cls: Any = None
    name: str | None = None


@dataclass(eq=False)
class Origin:
    cls: ClassVal
    field: FieldInfo
    hints: tuple
    default: Any
    env_default: bool
    factory_default: bool
    spec: FieldSpec | None
    dataclass_cls: ClassVal | None


@dataclass
class Features:
    hr_names: set = field(default_factory=set)
    hr_or_auto_names: set = field(default_factory=set)
    optional_str_bool: bool = False
    none_choice: Any = None
    dict_subclass: bool = False


def detect_features(source: str | None) -> Features:
    feats = Features(none_choice="None")
    if not source:
        return feats
    tree = ast.parse(source)
    func = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "_compute_kwargs":
            func = node
    if func is None:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "get_kwargs":
                func = node
    if func is None:
        return feats
    text = ast.unparse(func)
    for node in ast.walk(func):
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            strs = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if "max_num_batched_tokens" in strs:
                feats.hr_names |= set(strs)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            right = node.comparators[0]
            if (
                isinstance(node.left, ast.Name)
                and node.left.id == "name"
                and isinstance(right, ast.Constant)
                and isinstance(right.value, str)
            ):
                feats.hr_or_auto_names.add(right.value)
    feats.optional_str_bool = "'nargs'] = '?'" in text
    feats.none_choice = None if ".append(None)" in text else "None"
    feats.dict_subclass = "is_dict_subclass" in text
    return feats


# ------------------------------------------------------------------ typing helpers (runtime semantics)


def get_type_hints(hint) -> list:
    out: list = []

    def rec(h):
        if isinstance(h, AnnotatedT):
            rec(h.base)
        elif isinstance(h, UnionT):
            for a in h.args:
                rec(a)
        elif h not in out:
            out.append(h)

    rec(hint)
    return out


def origin_of(th):
    if isinstance(th, GenericT):
        return th.origin
    if isinstance(th, LitT):
        return Special("Literal")
    return None


def is_type(th, t) -> bool:
    return th is t or th == t or origin_of(th) == t


def contains_type(hints, t) -> bool:
    return any(is_type(th, t) for th in hints)


def get_type(hints, t):
    return next((th for th in hints if is_type(th, t)), None)


def is_not_builtin(th) -> bool:
    if isinstance(th, PrimType):
        return False
    return not (isinstance(th, GenericT) and isinstance(th.origin, PrimType))


def is_dataclass_hint(th) -> bool:
    return isinstance(th, ClassVal) and th.is_dataclass


def bounds_of(spec: FieldSpec | None, hint) -> dict:
    out: dict = {}
    if spec is not None:
        for k in ("gt", "ge", "lt", "le"):
            v = spec.kwargs.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = v
    if isinstance(hint, AnnotatedT):
        for meta in hint.meta:
            if isinstance(meta, FieldSpec):
                out.update(bounds_of(meta, None))
            elif isinstance(meta, dict):
                out.update({k: v for k, v in meta.items() if k in ("gt", "ge", "lt", "le")})
    elif isinstance(hint, UnionT):
        for a in hint.args:
            out.update(bounds_of(None, a))
    return out


class KwargsEngine:
    """``get_kwargs(cls)`` for one release."""

    def __init__(self, interp: Interpreter, features: Features):
        self.interp = interp
        self.features = features
        self._cache: dict[int, dict] = {}
        self.notes: list[str] = []

    # -- defaults
    def field_default(self, f: FieldInfo) -> tuple[Any, FieldSpec | None, bool, bool]:
        """(default, field spec, read the environment, came from a default_factory)."""
        interp = self.interp
        from .interp import Frame

        before = interp.env_reads
        spec = None
        factory = False
        if f.value is None:
            default: Any = Opaque("MISSING")
        else:
            try:
                value = interp.eval(f.value, Frame(f.owner.module))
            except (InterpError, RecursionError) as exc:
                value = Opaque(str(exc))
            if isinstance(value, FieldSpec):
                spec = value
                if value.has_default():
                    default = value.kwargs["default"]
                elif value.has_factory():
                    factory = True
                    default = self.call_factory(value.kwargs["default_factory"])
                else:
                    default = Opaque("MISSING")
            else:
                default = value
        return default, spec, interp.env_reads != before, factory

    def call_factory(self, factory) -> Any:
        if isinstance(factory, PrimType):
            return self.interp.stubs.call_prim(factory, [], {})
        if isinstance(factory, ClassVal):
            return Instance(factory)
        if isinstance(factory, (FuncVal, Builtin)):
            try:
                return self.interp.call(factory, [], {})
            except (InterpError, RecursionError) as exc:
                return Opaque(f"factory: {exc}")
        if isinstance(factory, Special):
            return self.interp.stubs.call_special(factory, [], {})
        return Opaque("factory")

    # -- the kwargs
    def get_kwargs(self, cls) -> dict:
        if not isinstance(cls, ClassVal):
            raise InterpError(f"get_kwargs of {cls!r}")
        key = id(cls)
        if key not in self._cache:
            self._cache[key] = self._compute(cls)
        return _deepcopy(self._cache[key])

    def field_hint(self, f: FieldInfo):
        try:
            return self.interp.eval_annotation(f.annotation, f.owner.module)
        except (InterpError, RecursionError) as exc:
            return Opaque(f"annotation: {exc}")

    def _compute(self, cls: ClassVal) -> dict:
        feats = self.features
        kwargs: dict = {}
        for f in cls.fields():
            hint = self.field_hint(f)
            hints = get_type_hints(hint)
            if feats.dict_subclass:
                hints = _dedup(
                    [DICT if (isinstance(th, ClassVal) and th.is_dict_subclass) else th for th in hints]
                )
            dataclass_cls = next((th for th in hints if is_dataclass_hint(th)), None)
            default, spec, env, factory = self.field_default(f)
            name = f.name
            kw: dict = {"default": default, "help": (f.doc or "").strip()}
            kw[ORIGIN] = Origin(cls, f, tuple(hints), default, env, factory, spec, dataclass_cls)
            kwargs[name] = kw
            hset = set(hints)
            if dataclass_cls is not None:
                kw["type"] = Conv("dataclass", cls=dataclass_cls)
            elif feats.optional_str_bool and hset == {BOOL, STR, NONE_T}:
                kw["type"] = Conv("str")
                kw["nargs"] = "?"
                kw["const"] = True
            elif contains_type(hints, BOOL):
                kw["action"] = Special("BooleanOptionalAction")
            elif contains_type(hints, Special("Literal")):
                kw.update(self.literal_to_kwargs(hints))
            elif contains_type(hints, TUPLE):
                kw.update(self.collection_to_kwargs(hints, TUPLE))
            elif contains_type(hints, LIST):
                kw.update(self.collection_to_kwargs(hints, LIST))
            elif contains_type(hints, SET):
                kw.update(self.collection_to_kwargs(hints, SET))
            elif contains_type(hints, INT):
                if name in feats.hr_or_auto_names:
                    kw["type"] = Conv("hr_int_or_auto")
                elif name in feats.hr_names:
                    kw["type"] = Conv("hr_int")
                else:
                    kw["type"] = Conv("int")
            elif contains_type(hints, FLOAT):
                kw["type"] = Conv("float")
            elif contains_type(hints, DICT) and (
                contains_type(hints, STR) or any(is_not_builtin(t) for t in hints)
            ):
                kw["type"] = Conv("dict_or_str")
            elif contains_type(hints, DICT):
                kw["type"] = Conv("json")
            elif contains_type(hints, STR) or any(is_not_builtin(t) for t in hints):
                kw["type"] = Conv("str")
            else:
                self.notes.append(f"{cls.name}.{name}: unsupported type {hints!r}")
                kw["type"] = Conv("str")
            t = kw.get("type")
            if isinstance(t, LitT):
                kw.update(self.literal_to_kwargs([t]))
            if NONE_T in hset and not contains_type(hints, BOOL):
                kw["type"] = Conv("optional", inner=kw.get("type"))
                if kw.get("choices"):
                    kw["choices"].append(feats.none_choice)
        return kwargs

    @staticmethod
    def literal_to_kwargs(hints) -> dict:
        lit = get_type(hints, Special("Literal"))
        options = list(lit.values)
        option_type = type(options[0]) if options else str
        key = "metavar" if contains_type(hints, STR) else "choices"
        try:
            ordered = sorted(options)
        except TypeError:
            ordered = options
        return {
            "type": Conv({bool: "bool", int: "int", float: "float"}.get(option_type, "str")),
            key: ordered,
        }

    @staticmethod
    def collection_to_kwargs(hints, t) -> dict:
        th = get_type(hints, t)
        types = th.args if isinstance(th, GenericT) else ()
        elem = types[0] if types else STR
        if isinstance(elem, UnionT):
            elem = STR
        nargs: Any = "+" if t is not TUPLE or Ellipsis in types else len(types)
        return {"type": elem, "nargs": nargs}


def _dedup(items):
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def _deepcopy(v):
    if isinstance(v, dict):
        return {k: _deepcopy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_deepcopy(x) for x in v]
    if isinstance(v, set):
        return set(v)
    return v


# --------------------------------------------------------------------------- parser recorder


@dataclass(eq=False)
class ActionRec:
    option_strings: list
    kwargs: dict
    group: str | None
    order: int


class ActionVal:
    def __init__(self, rec: ActionRec):
        self.rec = rec
        self.attrs: dict = {}

    def getattr_hook(self, attr):
        if attr in self.attrs:
            return self.attrs[attr]
        if attr == "option_strings":
            return list(self.rec.option_strings)
        if attr in ("dest", "default", "help", "choices", "type", "nargs"):
            return self.rec.kwargs.get(attr)
        return Opaque(f"action.{attr}")

    def setattr_hook(self, attr, value):
        self.attrs[attr] = value
        if attr in ("default", "help", "choices"):
            self.rec.kwargs[attr] = value


class ParserRec:
    """A stand-in ``FlexibleArgumentParser`` (or argument group) that records ``add_argument`` calls."""

    def __init__(self, root: ParserRec | None = None, title: str | None = None, kind: str = "parser"):
        self.root = root or self
        self.title = title
        self.kind = kind
        self.attrs: dict = {}
        if root is None:
            self.actions: list[ActionRec] = []
            self.defaults: dict = {}
            self.subparsers: dict[str, ParserRec] = {}

    def record(self, args, kwargs) -> ActionVal:
        rec = ActionRec(list(args), dict(kwargs), self.title, len(self.root.actions))
        self.root.actions.append(rec)
        return ActionVal(rec)

    def getattr_hook(self, attr):
        if attr == "add_argument":
            return Builtin("add_argument", lambda i, a, k: self.record(a, k))
        if attr == "add_argument_group":
            return Builtin(
                "add_argument_group",
                lambda i, a, k: ParserRec(self.root, k.get("title", a[0] if a else None), "group"),
            )
        if attr == "add_mutually_exclusive_group":
            return Builtin(
                "add_mutually_exclusive_group", lambda i, a, k: ParserRec(self.root, self.title, "group")
            )
        if attr == "set_defaults":
            return Builtin("set_defaults", lambda i, a, k: self.root.defaults.update(k))
        if attr == "add_subparsers":
            return Builtin("add_subparsers", lambda i, a, k: SubparsersRec(self.root))
        if attr in self.attrs:
            return self.attrs[attr]
        if attr == "_option_string_actions":
            return {s: Opaque("action") for r in self.root.actions for s in r.option_strings}
        return Builtin(f"parser.{attr}", lambda i, a, k: Opaque(f"parser.{attr}()"))

    def setattr_hook(self, attr, value):
        self.attrs[attr] = value


class SubparsersRec:
    def __init__(self, root: ParserRec):
        self.root = root

    def getattr_hook(self, attr):
        if attr == "add_parser":
            return Builtin("add_parser", self._add_parser)
        return Builtin(f"subparsers.{attr}", lambda i, a, k: Opaque("subparsers"))

    def _add_parser(self, interp, args, kwargs):
        parser = ParserRec()
        self.root.subparsers[args[0] if args else kwargs.get("name", "?")] = parser
        return parser
