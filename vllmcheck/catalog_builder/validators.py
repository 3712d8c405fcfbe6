"""Strings a config field takes through a pydantic validator, read by running the release's own validator.

A config class may type a field as an object (``QuantSpec | None``) and still take a string, which a
validator of the class turns into the object (``@field_validator("moe", mode="before")``: ``"mxfp4"`` ->
``QuantSpec(weight=...)``); or its ``Annotated`` type may replace pydantic's validation by a function of its
own (``GetPydanticSchema(... no_info_plain_validator_function(_coerce_quant_key))``), which takes a name and
refuses an object. The field's type alone says neither. Here the validator runs on the interpreter:

- on the names it may look the string up in: every string key of a dict the validator (or a function of its
  module that it calls) reads by name; each is accepted, or refused with the message vLLM raises for it;
- on a probe string no table holds: vLLM's message for an unknown string, the value left as ``{value!r}``;
- on an empty object and on a number: whether the validator still takes a JSON object at all.

The outcome goes into the field's catalog entry as ``str_check``::

    {"values": [names taken], "refused": {name: message}, "message": "... {value!r} ..." | null,
     "class": "ValueError", "strict": true | false}

``strict``: the validator takes nothing but a string (and ``None``), so the field is typed ``str``.
A run that meets a condition the interpreter cannot decide, or a call it cannot make, proves nothing: that
name is then counted among the ones taken, never refused on a guess. Only validators that take some name get
a ``str_check``; one that passes strings on to the field's own type decides nothing and gets none.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from .interp import (
    AnnotatedT,
    BoundMethod,
    ClassVal,
    FuncVal,
    InterpError,
    Interpreter,
    Opaque,
    RaisedError,
    UnionT,
)
from .stdlib_stubs import SchemaHook, ValidatorMarker

PROBE = "vllm_profiles_probe_value"
_MAX_DEPTH = 3


@dataclass
class Validator:
    fn: Any  # FuncVal | BoundMethod
    mode: str  # "before" | "plain"


class _Info:
    """pydantic's ``ValidationInfo`` as a field validator sees it."""

    def __init__(self, field_name: str):
        self.field_name = field_name

    def getattr_hook(self, attr: str) -> Any:
        if attr == "field_name":
            return self.field_name
        return Opaque(f"info.{attr}")


def field_validators(cls: ClassVal) -> dict[str, list[Validator]]:
    """``@field_validator(name, ..., mode="before"|"plain")`` methods of a class and its bases, by field."""
    out: dict[str, list[Validator]] = {}
    for klass in reversed(cls.mro()):
        if not isinstance(klass, ClassVal):
            continue
        for attr, stmt in klass.members().items():
            if not isinstance(stmt, ast.FunctionDef):
                continue
            for deco in stmt.decorator_list:
                if not (isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("field_validator")):
                    continue
                mode = next(
                    (
                        k.value.value
                        for k in deco.keywords
                        if k.arg == "mode" and isinstance(k.value, ast.Constant)
                    ),
                    "after",
                )
                if mode not in ("before", "plain"):
                    continue
                fn = cls.getattr(attr)
                if not isinstance(fn, (FuncVal, BoundMethod)):
                    continue
                names = [
                    a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                for name in names:
                    out.setdefault(name, []).append(Validator(fn, mode))
    return out


def annotated_validator(interp: Interpreter, hint: Any) -> Validator | None:
    """A validator the field's ``Annotated`` type carries (``PlainValidator``, ``GetPydanticSchema``)."""
    hints = hint.args if isinstance(hint, UnionT) else (hint,)
    for h in hints:
        if not isinstance(h, AnnotatedT):
            continue
        for meta in h.meta:
            if isinstance(meta, SchemaHook) and meta.fn is not None:
                try:
                    meta = interp.call(meta.fn, [Opaque("source"), Opaque("handler")], {})
                except (InterpError, RecursionError):
                    continue
            if isinstance(meta, ValidatorMarker) and isinstance(meta.fn, (FuncVal, BoundMethod)):
                return Validator(meta.fn, meta.mode)
    return None


@dataclass
class Outcome:
    kind: str  # "ok" | "raised" | "unknown"
    value: Any = None
    cls_name: str | None = None
    message: str | None = None


def run(interp: Interpreter, validator: Validator, value: Any, field_name: str) -> Outcome:
    """The validator on ``value``: what it returns or raises, or "unknown" if the run proves nothing."""
    fn = validator.fn
    func = fn.func if isinstance(fn, BoundMethod) else fn
    node = func.node
    params = [*node.args.posonlyargs, *node.args.args]
    if isinstance(fn, BoundMethod) or func.kind == "classmethod":
        params = params[1:]
    args = [value, _Info(field_name)][: max(1, len(params))]
    if func.kind == "classmethod" and not isinstance(fn, BoundMethod):
        fn = BoundMethod(func, func.defining_class)
    notes, steps = len(interp.notes), interp.steps
    interp.capture_raises = True
    try:
        result = interp.call(fn, args, {})
        outcome = Outcome("unknown") if isinstance(result, Opaque) else Outcome("ok", value=result)
    except RaisedError as exc:
        outcome = Outcome("raised", cls_name=exc.cls_name, message=exc.message)
    except (InterpError, RecursionError):
        outcome = Outcome("unknown")
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        outcome = Outcome("unknown")  # the interpreter met a value it does not model (a class iterated)
    finally:
        interp.capture_raises = False
        interp.steps = steps
    if len(interp.notes) != notes:  # a condition it could not decide, taken as true: proves nothing
        del interp.notes[notes:]
        return Outcome("unknown")
    return outcome


def run_chain(interp: Interpreter, chain: list[Validator], value: Any, field_name: str) -> Outcome:
    """The field's validators in pydantic's order, each on what the one before returned."""
    outcome = Outcome("ok", value=value)
    for validator in chain:
        outcome = run(interp, validator, outcome.value, field_name)
        if outcome.kind != "ok":
            break
    return outcome


def lookup_names(interp: Interpreter, validator: Validator) -> list[str]:
    """The string keys of every dict the validator, or a function of vLLM's it calls, reads by name."""
    fn = validator.fn.func if isinstance(validator.fn, BoundMethod) else validator.fn
    found: list[str] = []
    seen: set[int] = set()

    def visit(func: FuncVal, depth: int) -> None:
        if id(func.node) in seen or depth > _MAX_DEPTH:
            return
        seen.add(id(func.node))
        module = func.module
        for node in ast.walk(func.node):
            value = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and module.has(node.id):
                try:
                    value = interp.resolve_global(module, node.id)
                except (InterpError, RecursionError):
                    continue
            elif (
                isinstance(node, ast.Call)
                and not node.args
                and not node.keywords
                and isinstance(node.func, ast.Name)
                and module.has(node.func.id)
            ):
                # a table built by a function of no arguments (``_online_shorthands()``)
                try:
                    callee = interp.resolve_global(module, node.func.id)
                    value = interp.call(callee, [], {}) if isinstance(callee, FuncVal) else None
                except (InterpError, RecursionError):
                    continue
            if isinstance(value, FuncVal) and value.module.name.startswith("vllm"):
                visit(value, depth + 1)
            elif isinstance(value, dict):
                found.extend(k for k in value if isinstance(k, str) and k not in found)

    visit(fn, 0)
    return found


def str_check(interp: Interpreter, chain: list[Validator], field_name: str) -> dict[str, Any] | None:
    """What the field's validators make of strings (see the module's docstring), or None if they take none."""
    values: list[str] = []
    refused: dict[str, str] = {}
    classes: set[str] = set()
    names: list[str] = []
    for validator in chain:
        names += [n for n in lookup_names(interp, validator) if n not in names]
    for name in names:
        outcome = run_chain(interp, chain, name, field_name)
        if outcome.kind == "raised" and outcome.message is not None:
            refused[name] = outcome.message
            classes.add(outcome.cls_name or "")
        elif not (outcome.kind == "ok" and isinstance(outcome.value, str)):
            values.append(name)  # taken, or not known to be refused: never refused on a guess
    if not values:
        return None  # no string it takes: the field's own type decides
    probe = run_chain(interp, chain, PROBE, field_name)
    message = None
    if probe.kind == "raised" and probe.message is not None:
        message = probe.message.replace(repr(PROBE), "{value!r}").replace(PROBE, "{value}")
        classes.add(probe.cls_name or "")
    elif probe.kind == "ok" and isinstance(probe.value, str):
        return None  # any other string goes on to the field's own type: nothing the validators decide
    objects = [run_chain(interp, chain, v, field_name) for v in ({}, 0)]
    strict = chain[-1].mode == "plain" and all(o.kind == "raised" for o in objects)
    return {
        "values": sorted(values),
        "refused": dict(sorted(refused.items())),
        "message": message,
        "class": classes.pop() if len(classes) == 1 else None,
        "strict": strict,
    }


PROBE_KEY = "vllm_profiles_probe_key"
PROBE_NUMBER = 7919
# a value of every kind a JSON config can hold, by the name Python gives its type; each one's ``str()`` is
# distinctive, so that a message showing the value can be turned back into a template
_JSON_KINDS: dict[str, Any] = {
    "str": PROBE,
    "int": PROBE_NUMBER,
    "float": PROBE_NUMBER + 0.5,
    "bool": True,
    "list": [PROBE_NUMBER],
    "dict": {PROBE_KEY + "_inner": PROBE_NUMBER},
    "NoneType": None,
}
_TYPE_NAME = re.compile(r"\{type\(\w+\)\.__name__\}")


def _refusal(outcome: Outcome, kind: str, value: Any) -> dict[str, str] | None:
    """The class and message of a run that raised, the value shown as ``{value}``, the key as ``{key}``."""
    if outcome.kind != "raised" or outcome.message is None:
        return None
    message = outcome.message.replace(PROBE_KEY + "_inner", "\0")  # a nested key stays part of the value
    message = message.replace(repr(PROBE), "{value!r}").replace(PROBE, "{value}")
    if kind not in ("str", "NoneType"):
        message = message.replace(str(value).replace(PROBE_KEY + "_inner", "\0"), "{value}")
    message = message.replace(PROBE_KEY, "{key}").replace("\0", PROBE_KEY + "_inner")
    # an f-string's ``{type(v).__name__}`` the interpreter leaves as written: the value's kind
    return {"class": outcome.cls_name or "", "message": _TYPE_NAME.sub(kind, message)}


def dict_check(interp: Interpreter, chain: list[Validator], field_name: str) -> dict[str, Any] | None:
    """What the validators of a free-form JSON object field (``dict[str, str] | None``) refuse, or None.

    They run on a value of every JSON kind but an object (``"types"``: kind -> the refusal of a field value
    of that kind), then on a one-key object whose value is each name they look up, a probe string and a
    value of every other JSON kind (``"items"``: the names taken, the ``"message"`` for any other string
    and the refusal by the item's kind, ``"types"``; the key as ``{key}``, the item as ``{value}``). Only
    refusals are recorded: a run that proves nothing, or returns, takes the value."""
    types = {
        kind: refusal
        for kind, value in _JSON_KINDS.items()
        if kind not in ("dict", "NoneType")
        and (refusal := _refusal(run_chain(interp, chain, value, field_name), kind, value))
    }
    if run_chain(interp, chain, {}, field_name).kind != "ok":
        return None  # not even an empty object: nothing this check knows how to describe
    names: list[str] = []
    for validator in chain:
        names += [n for n in lookup_names(interp, validator) if n not in names]
    values: list[str] = []
    refused: dict[str, dict[str, str]] = {}
    for name in names:
        refusal = _refusal(run_chain(interp, chain, {PROBE_KEY: name}, field_name), "str", name)
        if refusal is None:
            values.append(name)
        else:
            refused[name] = refusal
    probe = _refusal(run_chain(interp, chain, {PROBE_KEY: PROBE}, field_name), "str", PROBE)
    item_types = {
        kind: refusal
        for kind, value in _JSON_KINDS.items()
        if kind != "str"
        and (refusal := _refusal(run_chain(interp, chain, {PROBE_KEY: value}, field_name), kind, value))
    }
    items: dict[str, Any] = {}
    if probe is not None and values:  # a string item is refused unless it is one of the names taken
        items = {"values": sorted(values), "refused": dict(sorted(refused.items())), "message": probe}
    if item_types:
        items["types"] = item_types
    if not types and not items:
        return None
    return {"types": types, "items": items or None}
