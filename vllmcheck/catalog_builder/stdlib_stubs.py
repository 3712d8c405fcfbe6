"""Stand-ins for the standard library and third-party names vLLM's argument code touches.

Each stub mimics just enough of the runtime behaviour (typing special forms, ``dataclasses.field``,
``pydantic.Field``, ``argparse`` constants, ``os.getenv`` ...) for the interpreter; everything else is
:class:`~.interp.Opaque`.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from .interp import (
    AnnotatedT,
    BoundMethod,
    Builtin,
    ClassVal,
    FieldSpec,
    FuncVal,
    GenericT,
    Instance,
    InterpError,
    LitT,
    Opaque,
    PrimType,
    Special,
    UnionT,
)

NONE_T = PrimType("NoneType")
ARGPARSE_SUPPRESS = "==SUPPRESS=="
TARGET_PYTHON = (3, 12, 0)  # the interpreter version vLLM wheels are usually run with

_PRIMS = (
    "int",
    "str",
    "float",
    "bool",
    "dict",
    "list",
    "tuple",
    "set",
    "frozenset",
    "bytes",
    "object",
    "type",
    "complex",
    "bytearray",
)

_TYPING_SPECIALS = {
    "Literal",
    "Optional",
    "Union",
    "Annotated",
    "ClassVar",
    "Any",
    "Callable",
    "TypeAlias",
    "Final",
    "Self",
    "TypedDict",
    "NamedTuple",
    "Protocol",
    "Generic",
    "TypeIs",
    "TypeGuard",
    "Required",
    "NotRequired",
    "Never",
    "NoReturn",
    "Sequence",
    "Mapping",
    "MutableMapping",
    "Iterable",
    "Iterator",
    "Collection",
    "Hashable",
    "Awaitable",
    "Coroutine",
    "AsyncIterator",
    "Generator",
    "AsyncGenerator",
    "MutableSequence",
    "Set",
    "AbstractSet",
    "Type",
    "List",
    "Dict",
    "Tuple",
    "FrozenSet",
    "DefaultDict",
    "OrderedDict",
    "Counter",
    "Deque",
    "LiteralString",
    "Unpack",
    "ParamSpec",
    "Concatenate",
    "InitVar",
    "SkipValidation",
    "ReadOnly",
}
_TYPING_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Tuple": "tuple",
    "FrozenSet": "frozenset",
    "Set": "set",
    "Type": "type",
    "DefaultDict": "dict",
    "OrderedDict": "dict",
}


_TYPING_MODULES = ("typing", "typing_extensions", "collections.abc", "types")


# pydantic's validators of an Annotated type, and the mode each runs in
_VALIDATOR_MARKERS = {
    "PlainValidator": "plain",
    "BeforeValidator": "before",
    "no_info_plain_validator_function": "plain",
    "with_info_plain_validator_function": "plain",
    "no_info_before_validator_function": "before",
    "with_info_before_validator_function": "before",
}


class SchemaHook:
    """``GetPydanticSchema(fn)`` in an ``Annotated`` type: ``fn(source, handler)`` gives the core schema."""

    def __init__(self, fn: Any):
        self.fn = fn


class ValidatorMarker:
    """A pydantic validator function attached to a type (``PlainValidator(fn)``, a core-schema validator)."""

    def __init__(self, mode: str, fn: Any):
        self.mode = mode  # "plain" | "before"
        self.fn = fn


class StubModule:
    def __init__(self, stubs: Stubs, name: str):
        self.stubs = stubs
        self.name = name

    def getattr_hook(self, attr: str) -> Any:
        return self.stubs.name(self.name, attr)

    def __repr__(self) -> str:
        return f"<stub module {self.name}>"


class SuperProxy:
    def __init__(self, interp, defining_class: ClassVal, obj: Any):
        self.interp = interp
        self.defining_class = defining_class
        self.obj = obj

    def getattr_hook(self, attr: str) -> Any:
        owner_cls = self.obj if isinstance(self.obj, ClassVal) else getattr(self.obj, "cls", None)
        if not isinstance(owner_cls, ClassVal):
            return Opaque("super()")
        mro = owner_cls.mro()
        try:
            start = mro.index(self.defining_class) + 1
        except ValueError:
            start = 1
        for c in mro[start:]:
            if isinstance(c, ClassVal) and attr in c.members():
                val = self.interp.member_value(c, owner_cls, attr, c.members()[attr])
                if isinstance(val, FuncVal):
                    if val.kind == "staticmethod":
                        return val
                    if val.kind == "classmethod":
                        return BoundMethod(val, owner_cls)
                    return BoundMethod(val, self.obj)
                return val
        return Opaque(f"super().{attr}")


def _flatten_literal(values) -> tuple:
    out: list = []
    for v in values:
        if isinstance(v, LitT):
            out.extend(v.values)
        else:
            out.append(v)
    dedup: list = []
    for v in out:
        if not any(type(v) is type(d) and v == d for d in dedup):
            dedup.append(v)
    return tuple(dedup)


class Stubs:
    def __init__(self, interp):
        self.interp = interp
        self._builtins: dict[str, Any] = {}
        for p in _PRIMS:
            self._builtins[p] = PrimType(p)
        b = self._builtins
        b["None"] = None
        b["True"] = True
        b["False"] = False
        b["len"] = Builtin(
            "len", lambda i, a, k: len(a[0]) if not isinstance(a[0], Opaque) else Opaque("len")
        )
        b["sorted"] = Builtin("sorted", self._sorted)
        b["isinstance"] = Builtin("isinstance", self._isinstance)
        b["issubclass"] = Builtin("issubclass", lambda i, a, k: Opaque("issubclass"))
        b["any"] = Builtin("any", lambda i, a, k: self._anyall(a[0], any))
        b["all"] = Builtin("all", lambda i, a, k: self._anyall(a[0], all))
        b["next"] = Builtin("next", self._next)
        b["iter"] = Builtin("iter", lambda i, a, k: list(a[0]) if not isinstance(a[0], Opaque) else a[0])
        b["enumerate"] = Builtin("enumerate", lambda i, a, k: list(enumerate(a[0])))
        b["zip"] = Builtin("zip", lambda i, a, k: list(zip(*a, strict=False)))
        b["range"] = Builtin("range", lambda i, a, k: list(range(*a)))
        b["min"] = Builtin("min", lambda i, a, k: self._minmax(min, a))
        b["max"] = Builtin("max", lambda i, a, k: self._minmax(max, a))
        b["abs"] = Builtin(
            "abs", lambda i, a, k: abs(a[0]) if isinstance(a[0], (int, float)) else Opaque("abs")
        )
        b["round"] = Builtin("round", lambda i, a, k: Opaque("round"))
        b["repr"] = Builtin("repr", lambda i, a, k: repr(a[0]))
        b["print"] = Builtin("print", lambda i, a, k: None)
        b["getattr"] = Builtin("getattr", self._getattr)
        b["hasattr"] = Builtin("hasattr", lambda i, a, k: Opaque("hasattr"))
        b["setattr"] = Builtin("setattr", lambda i, a, k: None)
        b["callable"] = Builtin("callable", lambda i, a, k: True)
        b["id"] = Builtin("id", lambda i, a, k: Opaque("id"))
        b["hash"] = Builtin("hash", lambda i, a, k: Opaque("hash"))
        b["vars"] = Builtin("vars", lambda i, a, k: Opaque("vars"))
        b["super"] = Builtin("super", lambda i, a, k: Opaque("super"))
        b["staticmethod"] = Builtin("staticmethod", lambda i, a, k: a[0])
        b["classmethod"] = Builtin("classmethod", lambda i, a, k: a[0])
        b["property"] = Builtin("property", lambda i, a, k: a[0])
        b["NotImplemented"] = Opaque("NotImplemented")
        b["Ellipsis"] = Ellipsis
        b["__name__"] = "vllm"
        b["__file__"] = Opaque("__file__")

    # -- modules and names
    def module(self, name: str) -> Any:
        return StubModule(self, name)

    def builtin(self, name: str) -> Any:
        if name in self._builtins:
            return self._builtins[name]
        if name.endswith(("Error", "Exception", "Warning")) or name in ("StopIteration", "KeyboardInterrupt"):
            return Builtin(name, lambda i, a, k: Opaque(name))
        return Opaque(f"name {name}")

    def name(self, module: str, name: str) -> Any:
        """A stdlib or third-party name as vLLM's config code sees it: one ``_name_<module>`` per module."""
        if module in _TYPING_MODULES:
            return self._name_typing(module, name)
        top = module.split(".")[0]
        key = "pydantic" if top in ("pydantic", "pydantic_core") else "re" if module == "regex" else module
        stub = getattr(self, f"_name_{key}", None) if "." not in key else None
        return stub(name) if stub is not None else Opaque(f"{module}.{name}")

    def _name_typing(self, module: str, name: str) -> Any:
        if name == "TYPE_CHECKING":
            return False
        if name in ("get_args",):
            return Builtin("get_args", self._get_args)
        if name == "get_origin":
            return Builtin("get_origin", lambda i, a, k: a[0].origin if isinstance(a[0], GenericT) else None)
        if name == "cast":
            return Builtin("cast", lambda i, a, k: a[1])
        if name in (
            "overload",
            "final",
            "dataclass_transform",
            "runtime_checkable",
            "deprecated",
            "override",
        ):
            return Builtin(name, self._decorator)
        if name in ("TypeVar", "NewType", "ParamSpec", "TypeVarTuple"):
            return Builtin(name, lambda i, a, k: Opaque(f"{name}({a[0] if a else ''})"))
        if name == "UnionType":
            return Special("UnionType")
        if name in _TYPING_ALIASES and module != "collections.abc":
            return Special(name)
        if name in _TYPING_SPECIALS:
            return Special(name)
        if name in ("get_type_hints", "is_typeddict"):
            return Builtin(name, lambda i, a, k: Opaque(name))
        return Special(name)

    def _name_dataclasses(self, name: str) -> Any:
        if name == "field":
            return Builtin("field", lambda i, a, k: FieldSpec("dataclass", dict(k)))
        if name == "MISSING":
            return Opaque("MISSING")
        if name in ("dataclass",):
            return Builtin(name, self._decorator)
        if name == "InitVar":
            return Special("InitVar")
        return Builtin(name, lambda i, a, k: Opaque(f"dataclasses.{name}"))

    def _name_pydantic(self, name: str) -> Any:
        if name == "Field":
            return Builtin("Field", self._pydantic_field)
        if name == "ConfigDict":
            return Builtin("ConfigDict", lambda i, a, k: dict(k))
        if name in (
            "dataclass",
            "field_validator",
            "model_validator",
            "validator",
            "field_serializer",
            "model_serializer",
            "computed_field",
        ):
            return Builtin(name, self._decorator)
        if name in ("PositiveInt", "PositiveFloat"):
            return AnnotatedT(PrimType(name[8:].lower()), ({"gt": 0},))
        if name in ("NonNegativeInt", "NonNegativeFloat"):
            return AnnotatedT(PrimType(name[11:].lower()), ({"ge": 0},))
        if name in ("SkipValidation", "InstanceOf"):
            return Special(name)
        if name == "GetPydanticSchema":  # Annotated[X, GetPydanticSchema(lambda src, handler: schema)]
            return Builtin(name, lambda i, a, k: SchemaHook(a[0] if a else k.get("get_pydantic_core_schema")))
        if name in _VALIDATOR_MARKERS:  # PlainValidator(fn), core_schema.no_info_plain_validator_function(fn)
            mode = _VALIDATOR_MARKERS[name]
            return Builtin(name, lambda i, a, k: ValidatorMarker(mode, a[0] if a else k.get("function")))
        if name == "core_schema":
            return self.module("pydantic_core.core_schema")
        if name == "dataclasses":
            return self.module("pydantic.dataclasses")
        return Opaque(f"pydantic.{name}")

    def _name_argparse(self, name: str) -> Any:
        if name == "SUPPRESS":
            return ARGPARSE_SUPPRESS
        if name in (
            "BooleanOptionalAction",
            "Action",
            "_StoreAction",
            "_StoreTrueAction",
            "Namespace",
            "ArgumentParser",
            "_ArgumentGroup",
            "HelpFormatter",
            "RawDescriptionHelpFormatter",
            "ArgumentDefaultsHelpFormatter",
            "_SubParsersAction",
        ):
            return Special(name)
        if name == "ArgumentTypeError":
            return Builtin(name, lambda i, a, k: Opaque(name))
        return Opaque(f"argparse.{name}")

    def _name_json(self, name: str) -> Any:
        if name == "loads":
            return Builtin("json.loads", lambda i, a, k: Opaque("json.loads(...)"))
        return Builtin(f"json.{name}", lambda i, a, k: Opaque(f"json.{name}"))

    def _name_enum(self, name: str) -> Any:
        if name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"):
            return Special(name)
        if name == "auto":
            return Builtin("auto", lambda i, a, k: Opaque("auto()"))
        return Builtin(name, self._decorator)

    def _name_os(self, name: str) -> Any:
        if name == "getenv":
            return Builtin("os.getenv", self._getenv)
        if name == "environ":
            return _Environ(self.interp)
        if name == "path":
            return self.module("os.path")
        return Builtin(f"os.{name}", lambda i, a, k: self._env_taint(Opaque(f"os.{name}")))

    def _name_sys(self, name: str) -> Any:
        if name == "argv":
            return list(self.interp.argv)
        if name == "version_info":
            return TARGET_PYTHON
        if name == "modules":
            return {}
        if name == "platform":
            return "linux"
        return Opaque(f"sys.{name}")

    def _name_functools(self, name: str) -> Any:
        if name in ("lru_cache", "cache", "wraps", "cached_property", "total_ordering", "singledispatch"):
            return Builtin(name, self._decorator)
        if name == "partial":
            return Builtin("partial", lambda i, a, k: Opaque("partial"))
        return Opaque(f"functools.{name}")

    def _name_itertools(self, name: str) -> Any:
        import itertools

        fn = getattr(itertools, name, None)
        if name in (
            "permutations",
            "combinations",
            "product",
            "chain",
            "islice",
            "combinations_with_replacement",
        ):
            return Builtin(f"itertools.{name}", lambda i, a, k: self._itertools(fn, a, k))
        return Opaque(f"itertools.{name}")

    def _name_collections(self, name: str) -> Any:
        if name in ("Counter", "OrderedDict", "defaultdict", "deque"):
            return Special(name)
        return Opaque(f"collections.{name}")

    def _name_ssl(self, name: str) -> Any:
        consts = {"CERT_NONE": 0, "CERT_OPTIONAL": 1, "CERT_REQUIRED": 2}
        return consts.get(name, Opaque(f"ssl.{name}"))

    def _name_math(self, name: str) -> Any:
        if name == "inf":
            return math.inf
        return Opaque(f"math.{name}")

    def _name_re(self, name: str) -> Any:
        return Builtin(f"re.{name}", lambda i, a, k: Opaque(f"re.{name}"))

    def _name_builtins(self, name: str) -> Any:
        return self.builtin(name)

    # -- helpers used as builtins
    def _decorator(self, interp, args, kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], (ClassVal, FuncVal)):
            return args[0]
        return Builtin("decorator", lambda i, a, k: a[0] if a else Opaque("decorated"))

    def _pydantic_field(self, interp, args, kwargs):
        kw = dict(kwargs)
        if args and "default" not in kw and args[0] is not Ellipsis:
            kw["default"] = args[0]
        return FieldSpec("pydantic", kw)

    def _env_taint(self, value):
        self.interp.env_reads += 1
        return value

    def _getenv(self, interp, args, kwargs):
        interp.env_reads += 1
        if len(args) > 1:
            return args[1]
        return kwargs.get("default")

    def _itertools(self, fn, args, kwargs):
        if any(isinstance(a, Opaque) for a in args):
            return Opaque("itertools")
        try:
            return list(fn(*args, **{k: v for k, v in kwargs.items() if isinstance(k, str)}))
        except TypeError:
            return Opaque("itertools")

    def _sorted(self, interp, args, kwargs):
        seq = args[0]
        if isinstance(seq, Opaque):
            return Opaque("sorted")
        items = list(seq)
        if any(isinstance(x, Opaque) for x in items):
            return Opaque("sorted")
        try:
            return sorted(items, reverse=bool(kwargs.get("reverse")))
        except TypeError:
            return Opaque("sorted")

    def _anyall(self, seq, fn):
        if isinstance(seq, Opaque):
            return Opaque("any/all")
        truths = [self.interp.truth(x) for x in seq]
        if any(t is None for t in truths):
            return Opaque("any/all")
        return fn(truths)

    def _next(self, interp, args, kwargs):
        seq = args[0]
        if isinstance(seq, Opaque):
            return Opaque("next")
        items = list(seq)
        if items:
            return items[0]
        if len(args) > 1:
            return args[1]
        raise InterpError("StopIteration")

    def _minmax(self, fn, args):
        seq = args[0] if len(args) == 1 else args
        try:
            return fn(seq)
        except TypeError:
            return Opaque("min/max")

    def _getattr(self, interp, args, kwargs):
        val = interp.getattr(args[0], args[1]) if isinstance(args[1], str) else Opaque("getattr")
        if isinstance(val, Opaque) and len(args) > 2:
            return args[2]
        return val

    def _isinstance(self, interp, args, kwargs):
        obj, typ = args[0], args[1]
        types = typ if isinstance(typ, tuple) else (typ,)
        py = {
            "int": int,
            "str": str,
            "float": float,
            "bool": bool,
            "dict": dict,
            "list": list,
            "tuple": tuple,
            "set": set,
        }
        if isinstance(obj, Opaque):
            return Opaque("isinstance")
        for t in types:
            if isinstance(t, PrimType) and t.name in py and isinstance(obj, py[t.name]):
                return True
        if all(isinstance(t, PrimType) for t in types) and isinstance(
            obj, (int, str, float, list, dict, tuple)
        ):
            return False
        if (
            interp.capture_raises
            and isinstance(obj, (int, str, float, list, dict, tuple, type(None)))
            and all(isinstance(t, (PrimType, ClassVal)) for t in types)
        ):
            return False  # a probe value (a JSON value) is no instance of a class of vLLM's
        if (
            interp.capture_raises
            and isinstance(obj, Instance)
            and all(isinstance(t, ClassVal) for t in types)
        ):
            return (
                any(t in obj.cls.mro() for t in types)
                if isinstance(obj.cls, ClassVal)
                else Opaque("isinstance")
            )
        return Opaque("isinstance")

    def _get_args(self, interp, args, kwargs):
        t = args[0]
        if isinstance(t, LitT):
            return t.values
        if isinstance(t, UnionT):
            return t.args
        if isinstance(t, GenericT):
            return t.args
        if isinstance(t, AnnotatedT):
            return (t.base, *t.meta)
        return ()

    # -- calls on types
    def call_prim(self, t: PrimType, args, kwargs):
        if not args:
            return {
                "int": 0,
                "str": "",
                "float": 0.0,
                "bool": False,
                "dict": {},
                "list": [],
                "tuple": (),
                "set": set(),
                "frozenset": frozenset(),
            }.get(t.name, Opaque(t.name + "()"))
        v = args[0]
        if isinstance(v, Opaque):
            return Opaque(f"{t.name}(...)")
        conv = {
            "int": int,
            "str": str,
            "float": float,
            "bool": bool,
            "list": list,
            "tuple": tuple,
            "set": set,
            "frozenset": frozenset,
            "dict": dict,
        }.get(t.name)
        if conv is None:
            return Opaque(f"{t.name}(...)")
        try:
            if t.name == "dict" and kwargs:
                return dict(v, **kwargs)
            return conv(v)
        except (TypeError, ValueError):
            return Opaque(f"{t.name}(...)")

    def call_special(self, s: Special, args, kwargs):
        if s.name in ("Counter", "OrderedDict", "defaultdict", "deque"):
            return {} if s.name != "deque" else []
        return Opaque(f"{s.name}(...)")

    def getattr(self, obj, attr):
        if isinstance(obj, PrimType) and attr == "__name__":
            return obj.name
        if isinstance(obj, Special) and attr == "__name__":
            return obj.name
        return Opaque(f"{obj!r}.{attr}")

    def super_(self, frame):
        cls = None
        obj = None
        f = frame
        while f is not None:
            if cls is None and f.vars.get("__class__") is not None:
                cls = f.vars["__class__"]
                obj = f.vars.get("__self__")
                break
            f = f.parent
        if cls is None or obj is None:
            return Opaque("super()")
        return SuperProxy(self.interp, cls, obj)

    # -- type hints
    def make_generic(self, origin, key):
        keys = key if isinstance(key, tuple) else (key,)
        if isinstance(origin, Special):
            name = origin.name
            if name == "Literal":
                return LitT(_flatten_literal(keys))
            if name == "Optional":
                return self.union(keys[0], None)
            if name == "Union":
                out = keys[0]
                for k in keys[1:]:
                    out = self.union(out, k)
                return out if len(keys) > 1 else self.norm(keys[0])
            if name == "Annotated":
                return AnnotatedT(self.norm(keys[0]), tuple(keys[1:]))
            if name == "SkipValidation" and not (isinstance(keys[0], ClassVal) and keys[0].is_dataclass):
                # pydantic's Annotated[X, SkipValidation()]: vLLM's get_kwargs unwraps it to X (0.9-0.22's
                # --block-size, --max-model-len, --max-num-seqs...). A config object behind it (0.19+'s
                # SpeculativeConfig.target_model_config) is set by vLLM itself, never validated: left
                # undescribed.
                return AnnotatedT(self.norm(keys[0]), (origin,))
            if name in ("Final", "Required", "NotRequired", "ReadOnly"):
                return self.norm(keys[0])
            if name in _TYPING_ALIASES:
                return GenericT(PrimType(_TYPING_ALIASES[name]), tuple(self.norm(k) for k in keys))
            return GenericT(origin, tuple(self.norm(k) for k in keys))
        if isinstance(origin, PrimType):
            return GenericT(origin, tuple(self.norm(k) for k in keys))
        if isinstance(origin, ClassVal):
            return GenericT(origin, tuple(self.norm(k) for k in keys))
        return Opaque("generic")

    def norm(self, v):
        if v is None:
            return NONE_T
        if isinstance(v, list):  # Callable[[...], X]
            return tuple(self.norm(x) for x in v)
        return v

    def union(self, a, b):
        items: list = []
        for x in (a, b):
            x = self.norm(x)
            if isinstance(x, UnionT):
                items.extend(x.args)
            else:
                items.append(x)
        dedup: list = []
        for x in items:
            if x not in dedup:
                dedup.append(x)
        if len(dedup) == 1:
            return dedup[0]
        return UnionT(tuple(dedup))

    def normalize_hint(self, value, module):
        if isinstance(value, str):
            try:
                node = ast.parse(value, mode="eval").body
            except SyntaxError:
                return Opaque(f"annotation {value!r}")
            from .interp import Frame

            value = self.interp.eval(node, Frame(module))
        return self.norm(value)


class _Environ:
    def __init__(self, interp):
        self.interp = interp

    def getattr_hook(self, attr):
        if attr == "get":
            return Builtin("os.environ.get", self.interp.stubs._getenv)
        return Builtin(f"os.environ.{attr}", lambda i, a, k: self.interp.stubs._env_taint(Opaque("environ")))

    def getitem_hook(self, key):
        self.interp.env_reads += 1
        return Opaque(f"environ[{key!r}]")
