"""A small abstract interpreter for the subset of Python that vLLM uses to build its ``vllm serve`` parser.

Nothing is imported from vLLM: modules are parsed with :mod:`ast`, names are resolved lazily through
their imports, and code is evaluated over a mix of concrete Python values and symbolic stand-ins
(:class:`Opaque` for anything that depends on the machine, the installed plugins or torch). Type
annotations evaluate to hashable type-hint objects that mimic what :mod:`typing` gives vLLM at runtime,
so that the release's own argparse rules can be replayed on them (see :mod:`.kwargs`).
"""

from __future__ import annotations

import ast
import contextlib
from dataclasses import dataclass, field
from typing import Any

from .source import SourceTree


class InterpError(Exception):
    pass


class RaisedError(InterpError):
    """A ``raise`` of the interpreted code, with the exception's class name and message when
    :attr:`Interpreter.capture_raises` is on (a validator run on a probe value, see :mod:`.validators`)."""

    def __init__(self, text: str, cls_name: str | None = None, message: str | None = None):
        super().__init__(text)
        self.cls_name = cls_name
        self.message = message


class _Signal(Exception):
    pass


class ReturnSignal(_Signal):
    def __init__(self, value: Any):
        self.value = value


class BreakSignal(_Signal):
    pass


class ContinueSignal(_Signal):
    pass


# --------------------------------------------------------------------------- values


class Opaque:
    """A value the extractor cannot know statically (platform, plugins, torch, ...)."""

    __slots__ = ("desc",)

    def __init__(self, desc: str = "?"):
        self.desc = desc

    def __repr__(self) -> str:
        return f"Opaque({self.desc})"


class PrimType:
    """A builtin type (``int``, ``str``, ``list`` ...), usable as a type hint and as a callable."""

    _interned: dict[str, PrimType] = {}

    def __new__(cls, name: str):
        inst = cls._interned.get(name)
        if inst is None:
            inst = super().__new__(cls)
            inst.name = name
            cls._interned[name] = inst
        return inst

    name: str

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):
        return (PrimType, (self.name,))


@dataclass(frozen=True)
class Special:
    """A typing special form: Literal, Optional, Union, Annotated, ClassVar, Any, Callable, ..."""

    name: str


@dataclass(frozen=True)
class LitT:
    values: tuple


@dataclass(frozen=True)
class UnionT:
    args: tuple


@dataclass(frozen=True)
class GenericT:
    origin: Any  # PrimType | Special | ClassVal
    args: tuple


@dataclass(frozen=True)
class AnnotatedT:
    base: Any
    meta: tuple


@dataclass(eq=False)
class FieldSpec:
    """``pydantic.Field(...)`` or ``dataclasses.field(...)`` as written in a class body."""

    kind: str  # "pydantic" | "dataclass"
    kwargs: dict

    def has_default(self) -> bool:
        return "default" in self.kwargs

    def has_factory(self) -> bool:
        return self.kwargs.get("default_factory") is not None


@dataclass(eq=False)
class Instance:
    cls: Any
    attrs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Instance({getattr(self.cls, 'name', self.cls)})"


@dataclass(eq=False)
class EnumMember:
    cls: Any
    name: str
    value: Any

    def __repr__(self) -> str:
        return f"{self.cls.name}.{self.name}"


@dataclass(eq=False)
class Builtin:
    name: str
    fn: Any  # fn(interp, args, kwargs) -> value

    def __repr__(self) -> str:
        return f"<builtin {self.name}>"


@dataclass(eq=False)
class BoundMethod:
    func: Any
    self_obj: Any


@dataclass(eq=False)
class ModuleVal:
    module: Module

    def __repr__(self) -> str:
        return f"<module {self.module.name}>"


class Frame:
    __slots__ = ("vars", "parent", "module", "cls")

    def __init__(self, module: Module, parent: Frame | None = None, cls: ClassVal | None = None):
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.module = module
        self.cls = cls


@dataclass(eq=False)
class FuncVal:
    node: Any  # FunctionDef | Lambda
    module: Module
    closure: Frame | None = None
    defining_class: Any = None
    kind: str = "function"  # function | staticmethod | classmethod | property

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")

    def return_annotation(self) -> str | None:
        ret = getattr(self.node, "returns", None)
        return ast.unparse(ret) if ret is not None else None

    def __repr__(self) -> str:
        return f"<function {self.module.name}.{self.name}>"


@dataclass
class FieldInfo:
    """One dataclass field of a config class, as the class body declares it."""

    name: str
    annotation: ast.expr
    value: ast.expr | None
    doc: str
    owner: ClassVal
    lineno: int


def enum_members(value: Any) -> Any:
    """An enum class iterated (``for f in LoadFormat``, as vLLM 0.8-0.10 build their choices): its members."""
    if isinstance(value, ClassVal) and value.is_enum:
        members = [value.getattr(name) for name in value.members()]
        return [m for m in members if isinstance(m, EnumMember)]
    return value


class ClassVal:
    def __init__(self, interp: Interpreter, module: Module, node: ast.ClassDef):
        self.interp = interp
        self.module = module
        self.node = node
        self.name = node.name
        self._bases: list | None = None
        self._members: dict[str, ast.stmt] | None = None
        self._fields: list[FieldInfo] | None = None
        self._attr_cache: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<class {self.module.name}.{self.name}>"

    @property
    def doc(self) -> str:
        return ast.get_docstring(self.node) or ""

    # -- structure
    @property
    def bases(self) -> list:
        if self._bases is None:
            self._bases = []
            for b in self.node.bases:
                try:
                    val = self.interp.eval(b, Frame(self.module))
                except Exception:
                    val = Opaque(ast.unparse(b))
                if isinstance(val, GenericT):
                    val = val.origin
                self._bases.append(val)
        return self._bases

    def mro(self) -> list:
        out: list = [self]
        for base in self.bases:
            chain = base.mro() if isinstance(base, ClassVal) else [base]
            for c in chain:
                if c not in out:
                    out.append(c)
        return out

    def _decorator_names(self) -> list[str]:
        names = []
        for d in self.node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            names.append(ast.unparse(target))
        return names

    @property
    def own_dataclass(self) -> bool:
        return any(n.split(".")[-1] in {"dataclass", "config"} for n in self._decorator_names())

    @property
    def is_dataclass(self) -> bool:
        return any(isinstance(c, ClassVal) and c.own_dataclass for c in self.mro())

    def _has_base_named(self, names: set[str]) -> bool:
        for c in self.mro():
            if isinstance(c, (Special, PrimType)) and c.name in names:
                return True
            if isinstance(c, Opaque) and c.desc.split(".")[-1] in names:
                return True
            if isinstance(c, Builtin) and c.name in names:
                return True
        return False

    @property
    def is_enum(self) -> bool:
        return self._has_base_named({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})

    @property
    def is_typeddict(self) -> bool:
        return self._has_base_named({"TypedDict"})

    @property
    def is_dict_subclass(self) -> bool:
        return not self.is_typeddict and self._has_base_named(
            {"dict", "OrderedDict", "defaultdict", "Counter"}
        )

    @property
    def is_subclass_of_boolean_optional(self) -> bool:
        return any(
            (isinstance(c, ClassVal) and c.name == "BooleanOptionalAction")
            or (isinstance(c, (Special, Opaque, Builtin)) and "BooleanOptionalAction" in repr(c))
            for c in self.mro()
        )

    def members(self) -> dict[str, ast.stmt]:
        if self._members is None:
            members: dict[str, ast.stmt] = {}

            def visit(body):
                for stmt in body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        members[stmt.name] = stmt
                    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        members[stmt.target.id] = stmt
                    elif isinstance(stmt, ast.Assign):
                        for t in stmt.targets:
                            if isinstance(t, ast.Name):
                                members[t.id] = stmt
                    elif isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
                        visit(stmt.orelse)

            visit(self.node.body)
            self._members = members
        return self._members

    def own_fields(self) -> list[FieldInfo]:
        out = []
        body = self.node.body
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            ann = ast.unparse(stmt.annotation)
            if ann.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
                continue
            doc = ""
            if i + 1 < len(body):
                nxt = body[i + 1]
                if (
                    isinstance(nxt, ast.Expr)
                    and isinstance(nxt.value, ast.Constant)
                    and isinstance(nxt.value.value, str)
                ):
                    doc = nxt.value.value
            out.append(FieldInfo(stmt.target.id, stmt.annotation, stmt.value, doc, self, stmt.lineno))
        return out

    def fields(self) -> list[FieldInfo]:
        """Dataclass fields in ``dataclasses.fields`` order (bases first, overrides keep their slot)."""
        if self._fields is None:
            ordered: dict[str, FieldInfo] = {}
            for c in reversed(self.mro()):
                if isinstance(c, ClassVal) and c.own_dataclass:
                    for f in c.own_fields():
                        if f.name in ordered:
                            if not f.doc:
                                f = FieldInfo(f.name, f.annotation, f.value, ordered[f.name].doc, c, f.lineno)
                            ordered[f.name] = f
                        else:
                            ordered[f.name] = f
            self._fields = list(ordered.values())
        return self._fields

    def field(self, name: str) -> FieldInfo | None:
        return next((f for f in self.fields() if f.name == name), None)

    # -- attribute access
    def lookup(self, attr: str) -> tuple[Any, ClassVal] | None:
        for c in self.mro():
            if isinstance(c, ClassVal) and attr in c.members():
                return c.members()[attr], c
        return None

    def getattr(self, attr: str) -> Any:
        if attr == "__name__" or attr == "__qualname__":
            return self.name
        if attr == "__doc__":
            return self.doc or None
        if attr == "__module__":
            return self.module.name
        if attr in self._attr_cache:
            return self._attr_cache[attr]
        found = self.lookup(attr)
        if found is None:
            return Opaque(f"{self.name}.{attr}")
        stmt, owner = found
        value = self.interp.member_value(owner, self, attr, stmt)
        if not isinstance(value, FuncVal):
            self._attr_cache[attr] = value
        return value


# --------------------------------------------------------------------------- modules


class Module:
    def __init__(self, interp: Interpreter, name: str, path: str | None, tree: ast.Module | None):
        self.interp = interp
        self.name = name
        self.path = path
        self.tree = tree
        self.bindings: dict[str, Any] = {}  # name -> ("expr", node) | ("import", mod, attr) | ("value", v)
        self.values: dict[str, Any] = {}
        self._evaluating: set[str] = set()
        self.star_imports: list[str] = []  # modules of ``from X import *``, searched for unbound names
        self._searching_stars = False
        if tree is not None:
            self._index(tree.body)

    @property
    def package(self) -> str:
        if self.path and self.path.endswith("__init__.py"):
            return self.name
        return self.name.rpartition(".")[0]

    def _index(self, body, *, only_missing: bool = False) -> None:
        def bind(name, binding):
            if only_missing and name in self.bindings:
                return
            self.bindings[name] = binding

        for stmt in body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        bind(alias.asname, ("module", alias.name))
                    else:
                        top = alias.name.split(".")[0]
                        bind(top, ("module", top))
            elif isinstance(stmt, ast.ImportFrom):
                if stmt.level:
                    parts = self.package.split(".")
                    if stmt.level > 1:
                        parts = parts[: -(stmt.level - 1)]
                    base = ".".join(parts + ([stmt.module] if stmt.module else []))
                else:
                    base = stmt.module or ""
                for alias in stmt.names:
                    if alias.name == "*":
                        if base not in self.star_imports:
                            self.star_imports.append(base)
                        continue
                    bind(alias.asname or alias.name, ("import", base, alias.name))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bind(stmt.name, ("func", stmt))
            elif isinstance(stmt, ast.ClassDef):
                bind(stmt.name, ("class", stmt))
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        bind(t.id, ("expr", stmt.value))
                    elif isinstance(t, ast.Tuple):
                        for j, elt in enumerate(t.elts):
                            if isinstance(elt, ast.Name):
                                bind(elt.id, ("tuple_item", stmt.value, j))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    bind(stmt.target.id, ("expr", stmt.value))
            elif isinstance(stmt, ast.If):
                test = ast.unparse(stmt.test)
                if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                    self._index(stmt.orelse, only_missing=only_missing)
                elif test in ("not TYPE_CHECKING", "not typing.TYPE_CHECKING"):
                    self._index(stmt.body, only_missing=only_missing)
                else:
                    self._index(stmt.body, only_missing=only_missing)
                    self._index(stmt.orelse, only_missing=True)
            elif isinstance(stmt, ast.Try):
                self._index(stmt.body, only_missing=only_missing)
                for h in stmt.handlers:
                    self._index(h.body, only_missing=True)
            elif type(stmt).__name__ == "TypeAlias":  # PEP 695, python >= 3.12
                bind(stmt.name.id, ("expr", stmt.value))

    def has(self, name: str) -> bool:
        return name in self.bindings or self._bind_from_star(name)

    def _bind_from_star(self, name: str) -> bool:
        """Bind ``name`` to the first ``from X import *`` module that defines it (public names only)."""
        if not self.star_imports or name.startswith("_") or self._searching_stars:
            return False
        self._searching_stars = True
        try:
            for base in self.star_imports:
                module = self.interp.load_module(base)
                if module is not None and module.has(name):
                    self.bindings[name] = ("import", base, name)
                    return True
        finally:
            self._searching_stars = False
        return False

    def get(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        if name not in self.bindings and not self._bind_from_star(name):
            raise KeyError(name)
        if name in self._evaluating:
            return Opaque(f"{self.name}.{name} (cycle)")
        self._evaluating.add(name)
        try:
            value = self._resolve(self.bindings[name])
        finally:
            self._evaluating.discard(name)
        self.values[name] = value
        return value

    def _resolve(self, binding) -> Any:
        kind = binding[0]
        interp = self.interp
        if kind == "module":
            return interp.module_value(binding[1])
        if kind == "import":
            return interp.import_name(binding[1], binding[2])
        if kind == "func":
            return interp.make_function(binding[1], self, None)
        if kind == "class":
            return ClassVal(interp, self, binding[1])
        if kind == "expr":
            try:
                return interp.eval(binding[1], Frame(self))
            except (InterpError, RecursionError) as exc:
                return Opaque(f"{self.name}: {exc}")
        if kind == "tuple_item":
            try:
                val = interp.eval(binding[1], Frame(self))
                return val[binding[2]] if isinstance(val, (tuple, list)) else Opaque("tuple item")
            except (InterpError, RecursionError, IndexError, TypeError):
                return Opaque("tuple item")
        raise InterpError(f"bad binding {binding!r}")


# --------------------------------------------------------------------------- interpreter

_SAFE_METHODS: dict[type, set[str]] = {
    str: {
        "replace",
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "join",
        "startswith",
        "endswith",
        "format",
        "removeprefix",
        "removesuffix",
        "title",
        "capitalize",
        "rsplit",
        "splitlines",
        "isdigit",
        "partition",
        "rpartition",
        "find",
        "count",
        "casefold",
        "zfill",
    },
    list: {
        "append",
        "remove",
        "extend",
        "insert",
        "pop",
        "index",
        "count",
        "copy",
        "sort",
        "reverse",
        "clear",
    },
    dict: {"get", "pop", "items", "keys", "values", "update", "setdefault", "copy", "clear"},
    set: {
        "add",
        "discard",
        "remove",
        "update",
        "union",
        "intersection",
        "difference",
        "copy",
        "issubset",
        "pop",
    },
    frozenset: {"union", "intersection", "difference", "issubset"},
    tuple: {"index", "count"},
}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
}

_CMPOPS = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}

_TYPE_LIKE = (PrimType, Special, LitT, UnionT, GenericT, AnnotatedT)

CONCRETE = (str, int, float, bool, type(None), list, dict, tuple, set, frozenset)


def is_type_like(v: Any) -> bool:
    return isinstance(v, (_TYPE_LIKE, ClassVal)) or v is None


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _hashable(x)) for k, x in v.items()))
    return v


class Interpreter:
    """Evaluate vLLM code over one :class:`SourceTree`."""

    MAX_STEPS = 2_000_000

    def __init__(self, tree: SourceTree, *, argv: list[str] | None = None, overrides: dict | None = None):
        self.tree = tree
        self.modules: dict[str, Module] = {}
        self.argv = argv or ["vllm", "serve", "MODEL"]
        self.overrides = overrides or {}  # function name -> Builtin (for vllm's own helpers)
        # Comprehensions over an enum class yield its members (set by the builder for releases before 0.20,
        # whose choices are ``[f.value for f in LoadFormat]``). Off for 0.20+: there it would also let a
        # validator's ``sorted(k.value for k in KVCacheGroupKind)`` through, adding a dict_check to the
        # shipped 0.33.0/0.34.0 catalogs, a change left to a deliberate re-extraction.
        self.iterate_enums = False
        self.env_reads = 0
        self.steps = 0
        self.notes: list[str] = []
        self.depth = 0
        # Off while the parser is built: a raise is then only "this path fails". On while a validator runs
        # on a probe value: the raise's class and message are evaluated, and ``except`` matches its class.
        self.capture_raises = False
        from . import stdlib_stubs

        self.stubs = stdlib_stubs.Stubs(self)

    # -- modules
    def load_module(self, name: str) -> Module | None:
        if name in self.modules:
            return self.modules[name]
        path = self.tree.module_path(name)
        if path is None:
            return None
        try:
            tree = ast.parse(self.tree.get(path) or "", filename=path)
        except SyntaxError as exc:
            self.notes.append(f"cannot parse {path}: {exc}")
            tree = None
        mod = Module(self, name, path, tree)
        self.modules[name] = mod
        return mod

    def module_value(self, name: str) -> Any:
        if name.split(".")[0] == "vllm" or self.tree.module_path(name):
            mod = self.load_module(name)
            if mod is not None:
                return ModuleVal(mod)
            # namespace package or a missing module
            return Opaque(f"module {name}")
        return self.stubs.module(name)

    def import_name(self, module: str, name: str) -> Any:
        if name in self.overrides and module.startswith("vllm"):
            return self.overrides[name]
        if module.split(".")[0] != "vllm" and not self.tree.module_path(module):
            return self.stubs.name(module, name)
        mod = self.load_module(module)
        if mod is not None and mod.has(name):
            return self.resolve_global(mod, name)
        sub = f"{module}.{name}"
        if self.tree.module_path(sub):
            return ModuleVal(self.load_module(sub))
        if mod is not None and mod.has("__getattr__"):
            return self.module_getattr(mod, name)
        return Opaque(f"{module}.{name}")

    def resolve_global(self, mod: Module, name: str) -> Any:
        if name in self.overrides and mod.name.startswith("vllm"):
            return self.overrides[name]
        value = mod.get(name)
        if (
            isinstance(value, FuncVal)
            and value.name in self.overrides
            and value.module.name.startswith("vllm")
        ):
            return self.overrides[value.name]
        return value

    def module_getattr(self, mod: Module, name: str) -> Any:
        if mod.has(name):
            return self.resolve_global(mod, name)
        sub = f"{mod.name}.{name}"
        if self.tree.module_path(sub):
            return ModuleVal(self.load_module(sub))
        if mod.has("__getattr__"):
            fn = mod.get("__getattr__")
            if isinstance(fn, FuncVal):
                try:
                    return self.call(fn, [name], {})
                except (InterpError, RecursionError):
                    return Opaque(f"{mod.name}.{name}")
        return Opaque(f"{mod.name}.{name}")

    def find_class(self, module: str, name: str) -> ClassVal | None:
        mod = self.load_module(module)
        if mod is None or not mod.has(name):
            return None
        val = mod.get(name)
        return val if isinstance(val, ClassVal) else None

    # -- functions
    def make_function(self, node, module: Module, closure: Frame | None, defining_class=None) -> FuncVal:
        kind = "function"
        for d in getattr(node, "decorator_list", []):
            dn = ast.unparse(d)
            if dn.endswith("staticmethod"):
                kind = "staticmethod"
            elif dn.endswith("classmethod"):
                kind = "classmethod"
            elif dn.endswith("property") or dn.endswith("cached_property"):
                kind = "property"
        return FuncVal(node, module, closure, defining_class, kind)

    def member_value(self, owner: ClassVal, cls: ClassVal, attr: str, stmt) -> Any:
        frame = Frame(owner.module)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.make_function(stmt, owner.module, None, owner)
        if isinstance(stmt, ast.ClassDef):
            return ClassVal(self, owner.module, stmt)
        value_node = stmt.value
        if value_node is None:
            return Opaque(f"{owner.name}.{attr} (no default)")
        if owner.is_enum:
            try:
                val = self.eval(value_node, frame)
            except InterpError:
                val = Opaque("enum value")
            if isinstance(val, tuple) and len(val) == 1:
                val = val[0]
            return EnumMember(owner, attr, val)
        try:
            val = self.eval(value_node, frame)
        except InterpError as exc:
            return Opaque(f"{owner.name}.{attr}: {exc}")
        if isinstance(val, FieldSpec):
            if val.has_default():
                return val.kwargs["default"]
            return Opaque(f"{owner.name}.{attr} (default_factory)")
        return val

    def call(self, fn: Any, args: list, kwargs: dict) -> Any:
        self.depth += 1
        if self.depth > 60:
            self.depth -= 1
            raise InterpError("call depth")
        try:
            return self._call(fn, args, kwargs)
        finally:
            self.depth -= 1

    def _call(self, fn: Any, args: list, kwargs: dict) -> Any:
        if isinstance(fn, Builtin):
            return fn.fn(self, args, kwargs)
        if isinstance(fn, BoundMethod):
            return self.call_function(fn.func, [fn.self_obj, *args], kwargs)
        if isinstance(fn, FuncVal):
            return self.call_function(fn, args, kwargs)
        if isinstance(fn, PrimType):
            return self.stubs.call_prim(fn, args, kwargs)
        if isinstance(fn, ClassVal):
            if fn.is_enum and len(args) == 1:
                for attr, _stmt in fn.members().items():
                    member = fn.getattr(attr)
                    if isinstance(member, EnumMember) and member.value == args[0]:
                        return member
                return Opaque(f"{fn.name}({args[0]!r})")
            inst = Instance(fn, {k: v for k, v in kwargs.items() if isinstance(k, str)})
            init = fn.lookup("__init__")
            if init is not None and not fn.is_dataclass and isinstance(init[0], ast.FunctionDef):
                with contextlib.suppress(InterpError, RecursionError):
                    self.call_function(
                        self.make_function(init[0], init[1].module, None, init[1]), [inst, *args], kwargs
                    )
            return inst
        if isinstance(fn, Special):
            return self.stubs.call_special(fn, args, kwargs)
        if isinstance(fn, Opaque):
            return Opaque(f"{fn.desc}(...)")
        if hasattr(fn, "call_hook"):
            return fn.call_hook(args, kwargs)
        raise InterpError(f"cannot call {fn!r}")

    def call_function(self, fn: FuncVal, args: list, kwargs: dict) -> Any:
        node = fn.node
        frame = Frame(fn.module, fn.closure, fn.defining_class)
        frame.vars["__class__"] = fn.defining_class
        a = node.args
        positional = [*a.posonlyargs, *a.args]
        defaults = a.defaults
        first_default = len(positional) - len(defaults)
        kwargs = {k: v for k, v in kwargs.items() if isinstance(k, str)}
        for i, param in enumerate(positional):
            if i < len(args):
                frame.vars[param.arg] = args[i]
            elif param.arg in kwargs:
                frame.vars[param.arg] = kwargs.pop(param.arg)
            elif i >= first_default:
                frame.vars[param.arg] = self.eval(defaults[i - first_default], Frame(fn.module, fn.closure))
            else:
                frame.vars[param.arg] = Opaque(f"missing argument {param.arg}")
        if a.vararg:
            frame.vars[a.vararg.arg] = tuple(args[len(positional) :])
        for param, default in zip(a.kwonlyargs, a.kw_defaults, strict=False):
            if param.arg in kwargs:
                frame.vars[param.arg] = kwargs.pop(param.arg)
            elif default is not None:
                frame.vars[param.arg] = self.eval(default, Frame(fn.module, fn.closure))
            else:
                frame.vars[param.arg] = Opaque(f"missing argument {param.arg}")
        if a.kwarg:
            frame.vars[a.kwarg.arg] = dict(kwargs)
        if positional and args:
            frame.vars["__self__"] = args[0]
        if isinstance(node, ast.Lambda):
            return self.eval(node.body, frame)
        try:
            self.exec_block(node.body, frame)
        except ReturnSignal as ret:
            return ret.value
        return None

    # -- statements
    def exec_block(self, body, frame: Frame) -> None:
        for stmt in body:
            if not self.capture_raises and isinstance(
                stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)
            ):
                # Best effort: one statement we cannot follow must not lose the arguments registered after it.
                try:
                    self.exec_stmt(stmt, frame)
                except InterpError as exc:
                    self.notes.append(f"{frame.module.name}:{stmt.lineno}: skipped ({exc})")
            else:
                self.exec_stmt(stmt, frame)

    def exec_stmt(self, stmt, frame: Frame) -> None:
        """Run one statement: ``_s_<Node>`` methods, as :meth:`eval` dispatches to ``_e_<Node>``."""
        self.steps += 1
        if self.steps > self.MAX_STEPS:
            raise InterpError("step budget exhausted")
        method = getattr(self, f"_s_{type(stmt).__name__}", None)
        if method is None:
            self.notes.append(f"statement skipped: {type(stmt).__name__}")
            return
        method(stmt, frame)

    def _s_Expr(self, stmt, frame):
        self.eval(stmt.value, frame)

    def _s_Assign(self, stmt, frame):
        value = self.eval(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame)

    def _s_AnnAssign(self, stmt, frame):
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, frame), frame)

    def _s_AugAssign(self, stmt, frame):
        current = self.eval(_load(stmt.target), frame)
        value = self.eval(stmt.value, frame)
        self.assign(stmt.target, self.binop(stmt.op, current, value, inplace=True), frame)

    def _s_Return(self, stmt, frame):
        raise ReturnSignal(self.eval(stmt.value, frame) if stmt.value is not None else None)

    def _s_If(self, stmt, frame):
        cond = self.truth(self.eval(stmt.test, frame))
        if cond is None:
            self.notes.append(f"unknown condition taken as true: {ast.unparse(stmt.test)[:80]}")
            cond = True
        self.exec_block(stmt.body if cond else stmt.orelse, frame)

    def _s_For(self, stmt, frame):
        iterable = self.eval(stmt.iter, frame)
        if not hasattr(iterable, "__iter__"):  # an Opaque or another value the interpreter cannot follow
            self.notes.append(f"loop over unknown iterable skipped: {ast.unparse(stmt.iter)[:80]}")
            return
        for item in list(iterable):
            self.assign(stmt.target, item, frame)
            try:
                self.exec_block(stmt.body, frame)
            except BreakSignal:
                break
            except ContinueSignal:
                continue
        else:
            self.exec_block(stmt.orelse, frame)

    def _s_While(self, stmt, frame):
        self.notes.append("while loop skipped")

    # vLLM 0.8.4 defines its ``get_kwargs(cls)`` inside ``add_cli_args``: the override replaces it there too
    NESTED_OVERRIDES = frozenset({"get_kwargs"})

    def _s_FunctionDef(self, stmt, frame):
        if (
            stmt.name in self.NESTED_OVERRIDES
            and stmt.name in self.overrides
            and frame.module.name.startswith("vllm")
        ):
            frame.vars[stmt.name] = self.overrides[stmt.name]
            return
        frame.vars[stmt.name] = self.make_function(stmt, frame.module, frame, frame.cls)

    _s_AsyncFunctionDef = _s_FunctionDef

    def _s_ClassDef(self, stmt, frame):
        frame.vars[stmt.name] = ClassVal(self, frame.module, stmt)

    def _s_Import(self, stmt, frame):
        tmp = Module(self, frame.module.name, frame.module.path, None)
        tmp._index([stmt])
        for name in tmp.bindings:
            frame.vars[name] = tmp.get(name)

    _s_ImportFrom = _s_Import

    def _s_Delete(self, stmt, frame):
        for target in stmt.targets:
            if isinstance(target, ast.Subscript):
                obj = self.eval(target.value, frame)
                key = self.eval(target.slice, frame)
                if isinstance(obj, (dict, list)):
                    try:
                        del obj[key]
                    except (KeyError, IndexError, TypeError):
                        raise InterpError(f"del {ast.unparse(target)}") from None
            elif isinstance(target, ast.Name):
                frame.vars.pop(target.id, None)

    def _s_With(self, stmt, frame):
        for item in stmt.items:
            if item.optional_vars is not None:
                self.assign(item.optional_vars, Opaque("context"), frame)
        self.exec_block(stmt.body, frame)

    def _s_Try(self, stmt, frame):
        try:
            self.exec_block(stmt.body, frame)
        except InterpError as exc:
            handler = self._handler(stmt.handlers, exc)
            if handler is None:
                raise
            self.exec_block(handler.body, frame)
        else:
            self.exec_block(stmt.orelse, frame)
        self.exec_block(stmt.finalbody, frame)

    def _handler(self, handlers: list[ast.ExceptHandler], exc: InterpError) -> ast.ExceptHandler | None:
        """The ``except`` clause that takes ``exc``: the first one, unless the raise's class is known."""
        if not handlers:
            return None
        cls_name = getattr(exc, "cls_name", None) if self.capture_raises else None
        if cls_name is None:
            return handlers[0]
        for handler in handlers:
            if handler.type is None:
                return handler
            names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            for name in names:
                text = ast.unparse(name).rsplit(".", 1)[-1]
                if text in (cls_name, "Exception", "BaseException"):
                    return handler
        return None

    def _s_Raise(self, stmt, frame):
        exc = stmt.exc
        if (
            self.capture_raises
            and isinstance(exc, ast.Call)
            and isinstance(exc.func, (ast.Name, ast.Attribute))
        ):
            cls_name = ast.unparse(exc.func).rsplit(".", 1)[-1]
            message = None
            if exc.args:
                try:
                    value = self.eval(exc.args[0], frame)
                except InterpError:
                    value = None
                message = value if isinstance(value, str) else None
            raise RaisedError(f"raise at line {stmt.lineno}", cls_name, message)
        raise InterpError(f"raise at line {stmt.lineno}")

    def _s_Break(self, stmt, frame):
        raise BreakSignal()

    def _s_Continue(self, stmt, frame):
        raise ContinueSignal()

    def _s_Pass(self, stmt, frame):
        pass

    _s_Assert = _s_Global = _s_Nonlocal = _s_Pass

    def assign(self, target, value, frame: Frame) -> None:
        if isinstance(target, ast.Name):
            frame.vars[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (Opaque,)):
                items = [Opaque("unpacked")] * len(target.elts)
            else:
                try:
                    items = list(value)
                except TypeError:
                    items = [Opaque("unpacked")] * len(target.elts)
            for t, v in zip(target.elts, items, strict=False):
                self.assign(t, v, frame)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            if isinstance(obj, (dict, list)):
                try:
                    obj[key] = value
                except (TypeError, IndexError):
                    raise InterpError(f"cannot assign {ast.unparse(target)}") from None
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, frame)
            if isinstance(obj, Instance):
                obj.attrs[target.attr] = value
            elif hasattr(obj, "setattr_hook"):
                obj.setattr_hook(target.attr, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, list(value) if not isinstance(value, Opaque) else value, frame)

    # -- expressions
    def truth(self, v: Any) -> bool | None:
        if isinstance(v, Opaque):
            return None
        if isinstance(v, (CONCRETE, ClassVal, FuncVal, Instance, EnumMember, Builtin)):
            return bool(v)
        if is_type_like(v):
            return True
        if isinstance(v, ModuleVal):
            return True
        try:
            return bool(v)
        except Exception:
            return None

    def lookup(self, name: str, frame: Frame) -> Any:
        f: Frame | None = frame
        while f is not None:
            if name in f.vars:
                return f.vars[name]
            f = f.parent
        mod = frame.module
        if mod.has(name):
            return self.resolve_global(mod, name)
        return self.stubs.builtin(name)

    def eval(self, node, frame: Frame) -> Any:
        self.steps += 1
        method = getattr(self, f"_e_{type(node).__name__}", None)
        if method is None:
            return Opaque(f"unsupported {type(node).__name__}")
        return method(node, frame)

    def _e_Constant(self, node, frame):
        if isinstance(node.value, str) and frame is not None and getattr(node, "_annotation", False):
            return node.value
        return node.value

    def _e_Name(self, node, frame):
        return self.lookup(node.id, frame)

    def _e_Attribute(self, node, frame):
        obj = self.eval(node.value, frame)
        return self.getattr(obj, node.attr)

    def getattr(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, ModuleVal):
            return self.module_getattr(obj.module, attr)
        if isinstance(obj, ClassVal):
            val = obj.getattr(attr)
            if isinstance(val, FuncVal) and val.kind == "classmethod":
                return BoundMethod(val, obj)
            return val
        if isinstance(obj, Instance):
            if attr in obj.attrs:
                return obj.attrs[attr]
            if attr == "__class__":
                return obj.cls
            cls = obj.cls
            if isinstance(cls, ClassVal):
                found = cls.lookup(attr)
                if found is not None:
                    val = cls.getattr(attr)
                    if isinstance(val, FuncVal):
                        if val.kind == "staticmethod":
                            return val
                        if val.kind == "classmethod":
                            return BoundMethod(val, cls)
                        if val.kind == "property":
                            return self.call_function(val, [obj], {})
                        return BoundMethod(val, obj)
                    return val
            return Opaque(f"instance.{attr}")
        if isinstance(obj, EnumMember):
            if attr == "value":
                return obj.value
            if attr == "name":
                return obj.name
            return Opaque(f"{obj!r}.{attr}")
        if isinstance(obj, LitT) and attr == "__args__":
            return obj.values
        if isinstance(obj, CONCRETE) and not isinstance(obj, (bool, type(None))):
            allowed = _SAFE_METHODS.get(type(obj), set())
            if attr in allowed:
                return Builtin(f"{type(obj).__name__}.{attr}", _native_method(obj, attr))
            if attr == "__doc__":
                return None
            return Opaque(f"{type(obj).__name__}.{attr}")
        if hasattr(obj, "getattr_hook"):
            return obj.getattr_hook(attr)
        if isinstance(obj, FuncVal):
            if attr == "__name__":
                return obj.name
            if attr == "__doc__":
                return ast.get_docstring(obj.node) if not isinstance(obj.node, ast.Lambda) else None
            return Opaque(f"{obj.name}.{attr}")
        if isinstance(obj, Opaque):
            return Opaque(f"{obj.desc}.{attr}")
        return self.stubs.getattr(obj, attr)

    def _e_Subscript(self, node, frame):
        obj = self.eval(node.value, frame)
        key = self.eval(node.slice, frame)
        return self.subscript(obj, key)

    def subscript(self, obj, key):
        if isinstance(obj, (Special, PrimType)) or (
            isinstance(obj, ClassVal) and not isinstance(key, (str, int))
        ):
            return self.stubs.make_generic(obj, key)
        if isinstance(obj, GenericT):
            return obj
        if isinstance(obj, (dict, list, tuple, str)):
            try:
                return obj[key]
            except (KeyError, IndexError, TypeError) as exc:
                raise RaisedError(f"subscript {key!r} failed", type(exc).__name__) from None
        if isinstance(obj, ClassVal) and obj.is_enum and isinstance(key, str):
            return obj.getattr(key)
        if hasattr(obj, "getitem_hook"):
            return obj.getitem_hook(key)
        return Opaque("subscript")

    def _e_Slice(self, node, frame):
        lower = self.eval(node.lower, frame) if node.lower else None
        upper = self.eval(node.upper, frame) if node.upper else None
        step = self.eval(node.step, frame) if node.step else None
        if any(isinstance(x, Opaque) for x in (lower, upper, step)):
            return Opaque("slice")
        return slice(lower, upper, step)

    def _e_Tuple(self, node, frame):
        return tuple(self._elts(node.elts, frame))

    def _e_List(self, node, frame):
        return list(self._elts(node.elts, frame))

    def _e_Set(self, node, frame):
        items = self._elts(node.elts, frame)
        try:
            return set(items)
        except TypeError:
            return Opaque("set")

    def _elts(self, elts, frame):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, frame)
                if isinstance(v, Opaque):
                    out.append(v)
                else:
                    out.extend(list(v))
            else:
                out.append(self.eval(e, frame))
        return out

    def _e_Dict(self, node, frame):
        out: dict = {}
        for k, v in zip(node.keys, node.values, strict=False):
            if k is None:
                val = self.eval(v, frame)
                if isinstance(val, dict):
                    out.update(val)
                elif isinstance(val, Opaque):
                    continue
                else:
                    raise InterpError("** of non-dict")
            else:
                key = self.eval(k, frame)
                try:
                    out[key] = self.eval(v, frame)
                except TypeError:
                    raise InterpError("unhashable dict key") from None
        return out

    def _e_JoinedStr(self, node, frame):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.eval(v.value, frame)
                if isinstance(val, Opaque):
                    parts.append("{" + ast.unparse(v.value) + "}")
                    continue
                spec = ""
                if v.format_spec is not None:
                    spec = self._e_JoinedStr(v.format_spec, frame)
                if v.conversion == ord("r"):
                    val = repr(val)
                elif v.conversion == ord("s"):
                    val = str(val)
                try:
                    parts.append(format(val, spec))
                except (TypeError, ValueError):
                    parts.append(str(val))
        return "".join(parts)

    def _e_FormattedValue(self, node, frame):
        return str(self.eval(node.value, frame))

    def _e_BinOp(self, node, frame):
        left = self.eval(node.left, frame)
        right = self.eval(node.right, frame)
        return self.binop(node.op, left, right)

    def binop(self, op, left, right, inplace: bool = False):
        if (
            isinstance(op, ast.BitOr)
            and (
                (is_type_like(left) or isinstance(left, Opaque))
                and (is_type_like(right) or isinstance(right, Opaque))
            )
            and not (isinstance(left, Opaque) and isinstance(right, Opaque))
        ) and not (isinstance(left, (set, frozenset, dict)) or isinstance(right, (set, frozenset, dict))):
            return self.stubs.union(left, right)
        if isinstance(left, Opaque) or isinstance(right, Opaque):
            return Opaque("binop")
        fn = _BINOPS.get(type(op))
        if fn is None:
            return Opaque("binop")
        if inplace and isinstance(left, list) and isinstance(op, ast.Add):
            left.extend(right)
            return left
        if inplace and isinstance(left, dict) and isinstance(op, ast.BitOr):
            left.update(right)
            return left
        try:
            return fn(left, right)
        except Exception:
            return Opaque("binop")

    def _e_UnaryOp(self, node, frame):
        v = self.eval(node.operand, frame)
        if isinstance(node.op, ast.Not):
            t = self.truth(v)
            return Opaque("not") if t is None else (not t)
        if isinstance(v, Opaque):
            return v
        try:
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return +v
            if isinstance(node.op, ast.Invert):
                return ~v
        except TypeError:
            return Opaque("unary")
        return Opaque("unary")

    def _e_BoolOp(self, node, frame):
        is_and = isinstance(node.op, ast.And)
        last = None
        for value_node in node.values:
            last = self.eval(value_node, frame)
            t = self.truth(last)
            if t is None:
                return Opaque("boolop")
            if is_and and not t:
                return last
            if not is_and and t:
                return last
        return last

    def _e_Compare(self, node, frame):
        left = self.eval(node.left, frame)
        for op, comp in zip(node.ops, node.comparators, strict=False):
            right = self.eval(comp, frame)
            if isinstance(left, Opaque) or isinstance(right, Opaque):
                return Opaque("compare")
            if (
                isinstance(right, (list, tuple, set, frozenset))
                and any(isinstance(x, Opaque) for x in right)
                and isinstance(op, (ast.In, ast.NotIn))
                and left not in [x for x in right if not isinstance(x, Opaque)]
            ):
                return Opaque("compare")
            try:
                ok = _CMPOPS[type(op)](left, right)
            except TypeError:
                return Opaque("compare")
            if not ok:
                return False
            left = right
        return True

    def _e_IfExp(self, node, frame):
        t = self.truth(self.eval(node.test, frame))
        if t is None:
            return Opaque("ifexp")
        return self.eval(node.body if t else node.orelse, frame)

    def _e_Call(self, node, frame):
        fn = self.eval(node.func, frame)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            return self.stubs.super_(frame)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, frame)
                if isinstance(v, Opaque):
                    raise InterpError("*args of unknown value")
                args.extend(list(v))
            else:
                args.append(self.eval(a, frame))
        kwargs: dict = {}
        for kw in node.keywords:
            v = self.eval(kw.value, frame)
            if kw.arg is None:
                if isinstance(v, dict):
                    kwargs.update(v)
                else:
                    raise InterpError("**kwargs of unknown value")
            else:
                kwargs[kw.arg] = v
        return self.call(fn, args, kwargs)

    def _e_Lambda(self, node, frame):
        return FuncVal(node, frame.module, frame, frame.cls)

    def _e_NamedExpr(self, node, frame):
        v = self.eval(node.value, frame)
        self.assign(node.target, v, frame)
        return v

    def _e_Starred(self, node, frame):
        return self.eval(node.value, frame)

    def _comprehension(self, generators, frame, emit):
        def rec(i, fr):
            if i == len(generators):
                emit(fr)
                return
            gen = generators[i]
            iterable = self.eval(gen.iter, fr)
            if isinstance(iterable, Opaque):
                raise InterpError("comprehension over unknown iterable")
            if self.iterate_enums:
                iterable = enum_members(iterable)
            if not hasattr(iterable, "__iter__"):
                raise InterpError(f"comprehension over {iterable!r}")
            for item in list(iterable):
                self.assign(gen.target, item, fr)
                if all(self.truth(self.eval(cond, fr)) for cond in gen.ifs):
                    rec(i + 1, fr)

        inner = Frame(frame.module, frame, frame.cls)
        rec(0, inner)

    def _e_ListComp(self, node, frame):
        out: list = []
        self._comprehension(node.generators, frame, lambda fr: out.append(self.eval(node.elt, fr)))
        return out

    _e_GeneratorExp = _e_ListComp

    def _e_SetComp(self, node, frame):
        out: list = []
        self._comprehension(node.generators, frame, lambda fr: out.append(self.eval(node.elt, fr)))
        try:
            return set(out)
        except TypeError:
            return Opaque("set")

    def _e_DictComp(self, node, frame):
        out: dict = {}

        def emit(fr):
            out[self.eval(node.key, fr)] = self.eval(node.value, fr)

        self._comprehension(node.generators, frame, emit)
        return out

    # -- annotations
    def eval_annotation(self, node, module: Module) -> Any:
        """Evaluate a type annotation the way ``dataclasses.fields(cls)[i].type`` holds it at runtime."""
        frame = Frame(module)
        value = self.eval(node, frame)
        return self.stubs.normalize_hint(value, module)


def _load(target):
    """The load-context twin of an assignment target (for ``x += ...``)."""
    return target


def _native_method(obj, attr):
    method = getattr(obj, attr)

    def call(interp, args, kwargs):
        if any(isinstance(a, Opaque) for a in args):
            if attr in ("append", "extend", "insert", "update", "add"):
                pass
            else:
                return Opaque(f"{attr}(opaque)")
        kwargs = {k: v for k, v in kwargs.items() if isinstance(k, str)}
        try:
            result = method(*args, **kwargs)
        except (KeyError, ValueError, IndexError, TypeError, AttributeError) as exc:
            raise InterpError(f"{type(obj).__name__}.{attr}: {exc}") from None
        if isinstance(result, (type({}.items()), type({}.keys()), type({}.values()))):
            return list(result)
        return result

    return call
