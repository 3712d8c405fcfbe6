#!/usr/bin/env python
"""Compare a release's engine-argument catalog with the parser of a REAL vLLM install.

Two modes:

  dump     (INSIDE a release's conformance venv, same stand-ins as vllm_verdict.py): build vLLM's own
           `vllm serve` argument parser (FlexibleArgumentParser + the serve subcommand's subparser_init,
           as vllm_verdict.py does), walk its actions and print, per action: dest, option strings, action
           class, the `type` callable's name, nargs, const, default, choices, deprecated, help suppressed.

           C=~/.cache/vllm-profiles/conformance    # $VLLM_CONF_DIR
           $C/venv-0.33.0/bin/python benchmarks/conformance/catalog_check.py dump > $C/parser-0.33.0.json

  compare  (the product's venv): compare that dump with vllmcheck/catalogs/<release>.json: every real
           option string present in the catalog (flags + hidden_aliases + negative_flags), and per argument
           whether type, default and choices agree (normalised, see `norm_*` below). Prints the
           percentage per field and overall, and every mismatch.

           .venv/bin/python benchmarks/conformance/catalog_check.py compare \
               $C/parser-0.33.0.json [--catalog vllmcheck/catalogs/0.33.0.json] [--json OUT]

See CATALOG-CHECK.md for the figures per release.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import inspect
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# ---------------------------------------------------------------------------------------------------------
# dump: inside the release's venv


def jsonable(value: Any) -> Any:
    """A JSON-safe rendering of an argparse default / choice / const."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, enum.Enum):
        return {"__enum__": type(value).__name__, "name": value.name, "value": jsonable(value.value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if value is argparse.SUPPRESS:
        return "==SUPPRESS=="
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            is_default = bool(value == type(value)())
        except Exception:  # a config class whose default construction needs arguments or a platform
            is_default = None
        return {"__dataclass__": type(value).__name__, "equals_default_instance": is_default}
    return {"__repr__": repr(value)}


def type_name(fn: Any) -> str | None:
    """The `type` callable's name: int, float, json.loads, human_readable_int; vLLM's wrappers are unwrapped:
    optional_type(int) -> 'optional(int)', parse_type(float) -> 'parse(float)', parse_dataclass for
    ModelConfig -> 'dataclass(...)', functools.partial(f) -> 'partial(f)'."""
    if fn is None:
        return None
    if isinstance(fn, type):
        return fn.__name__
    inner = getattr(fn, "func", None)  # functools.partial
    if inner is not None:
        return f"partial({type_name(inner)})"
    name = getattr(fn, "__name__", None) or type(fn).__name__
    qual = getattr(fn, "__qualname__", None) or name
    mod = getattr(fn, "__module__", None) or ""
    cells = [c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _cell_ok(c)]
    wrapped = [c for c in cells if callable(c)]
    if name in ("_optional_type", "_parse_type") and wrapped:
        return f"{name.strip('_').split('_')[0]}({type_name(wrapped[0])})"
    if name == "parse_dataclass":
        cls = (getattr(fn, "__defaults__", None) or (None,))[0]
        return f"dataclass({getattr(cls, '__name__', cls)})"
    if name == "<lambda>":
        try:
            src = " ".join(inspect.getsource(fn).split())
        except (OSError, TypeError):
            src = "?"
        return f"lambda@{mod}:{fn.__code__.co_firstlineno}: {src[:160]}"
    if mod in ("builtins", ""):
        return qual
    return f"{mod}.{qual}"


def _cell_ok(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def dump(out) -> None:
    sys.path.insert(0, HERE)
    import vllm_verdict as vv

    vv._reexec_with_stub_libcuda()
    h = vv.Harness(os.path.join(vv.CONF_DIR, "models"))
    h.boot()
    parser, _cmds = h.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = sub.choices["serve"]
    deprecated = getattr(serve, "_deprecated", set()) or set()
    actions = []
    for a in serve._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        actions.append(
            {
                "dest": a.dest,
                "option_strings": list(a.option_strings),
                # every string the parser resolves to this action: 0.33's EnableDisableAction keeps
                # --no-enable-x registered but drops it from option_strings (hidden from help)
                "registered_option_strings": [
                    o for o, act in serve._option_string_actions.items() if act is a
                ],
                "negative_option_strings": sorted(getattr(a, "negative_option_strings", ()) or ()),
                "action": type(a).__name__,
                "type": type_name(a.type),
                "nargs": a.nargs,
                "const": jsonable(a.const),
                "default": jsonable(a.default),
                "choices": None if a.choices is None else jsonable(list(a.choices)),
                "metavar": jsonable(a.metavar),
                "required": a.required,
                "deprecated": bool(getattr(a, "deprecated", False)) or a in deprecated,
                "help_suppressed": a.help == argparse.SUPPRESS,
            }
        )
    doc = {
        "vllm_version": h.vllm.__version__,
        "python": sys.version.split()[0],
        "parser_class": type(serve).__name__,
        "stubbed_extensions": sorted(vv.STUBBED_MODULES),
        "actions": actions,
    }
    json.dump(doc, out, indent=1)
    out.write("\n")


# ---------------------------------------------------------------------------------------------------------
# compare: in the product's venv

BOOL_ACTIONS = {"BooleanOptionalAction", "EnableDisableAction", "_StoreTrueAction", "_StoreFalseAction"}
NEGATABLE_ACTIONS = {"BooleanOptionalAction", "EnableDisableAction"}
# type callables that only normalise a string (and return a string)
STR_NORMALISERS = {"vllm.engine.arg_utils.parse_reasoning_parser"}
INT_TYPES = {
    "int",
    "vllm.utils.argparse_utils.human_readable_int",
    "vllm.utils.argparse_utils.human_readable_int_or_auto",
}
JSON_TYPES = {"json.loads", "vllm.engine.arg_utils.union_dict_and_str"}


def base_type(t: str | None) -> str | None:
    """Strip vLLM's optional(...) / parse(...) wrappers."""
    while t and (t.startswith("optional(") or t.startswith("parse(")):
        t = t[t.index("(") + 1 : -1]
    return t


def scalar_kind(t: str | None) -> str:
    t = base_type(t)
    if t is None or t == "str" or t in STR_NORMALISERS:
        return "str"
    if t in INT_TYPES or t.endswith(".human_readable_int") or t.endswith(".human_readable_int_or_auto"):
        return "int"
    if t == "float":
        return "float"
    if t in JSON_TYPES or t.startswith("dataclass(") or t.endswith((".from_cli", ".from_json")):
        # 0.8's type=CompilationConfig.from_cli / PoolerConfig.from_json: a config's JSON
        return "json"
    if t.startswith("lambda@") and ".lower()" in t:
        return "str"  # normalising lambdas (s.lower().replace("-", "_")): still a string
    return f"callable:{t}"


def real_kind(a: dict) -> tuple[str, str | None]:
    """(kind, item kind) in the catalog's vocabulary: bool/int/float/str/json/list."""
    if a["action"] in BOOL_ACTIONS:
        return "bool", None
    if (
        a["action"] == "_AppendAction"
        or a["nargs"] in ("+", "*")
        or (isinstance(a["nargs"], int) and a["nargs"] > 0)
    ):
        return "list", scalar_kind(a["type"])
    if a["action"] not in ("_StoreAction",) and a["type"] is None:
        return "str", None  # custom actions taking one string (DeprecatedLogConfigFileAction, ...)
    if base_type(a["type"]) == "bool":
        # a store action with type=bool (0.11's --guided-decoding-disable-*) takes one value, any string,
        # and applies bool() to it: the catalog's `bool` would be a flag without a value, so it says `str`
        return "str", None
    return scalar_kind(a["type"]), None


def check_type(a: dict, c: dict) -> list[str]:
    problems = []
    kind, item = real_kind(a)
    if kind != c.get("type"):
        problems.append(
            f"type: vLLM {kind} ({a['action']}, type={a['type']}, nargs={a['nargs']})"
            f" vs catalog {c.get('type')}"
        )
    elif kind == "list" and c.get("item_type") and item != c.get("item_type"):
        problems.append(f"item type: vLLM {item} (type={a['type']}) vs catalog {c.get('item_type')}")
    if kind == "bool":
        neg = a["action"] in NEGATABLE_ACTIONS
        if neg != bool(c.get("negatable")):
            problems.append(f"negatable: vLLM {a['action']} vs catalog negatable={c.get('negatable')}")
    hri = "human_readable_int" in (base_type(a["type"]) or "")
    if kind == "int" and hri != bool(c.get("human_readable_int")):
        problems.append(f"human_readable_int: vLLM type={a['type']} vs catalog {c.get('human_readable_int')}")
    if (a["nargs"] == "?") != bool(c.get("optional_value")) and kind != "bool":
        problems.append(
            f"optional value: vLLM nargs={a['nargs']} vs catalog optional_value={c.get('optional_value')}"
        )
    return problems


def _norm_value(v: Any) -> Any:
    if isinstance(v, dict) and "__enum__" in v:
        return ("enum", str(v["name"]).lower(), str(v["value"]).lower())
    if isinstance(v, list):
        return [_norm_value(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm_value(x) for k, x in v.items()}
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def check_default(a: dict, c: dict) -> list[str]:
    real = a["default"]
    if real == "==SUPPRESS==":
        real = None
    cat = c.get("default")
    if c.get("default_resolved_at_startup") and real is None:
        return []
    r, k = _norm_value(real), _norm_value(cat)
    if isinstance(r, tuple) and r[0] == "enum":  # an enum default: the catalog may give its name or value
        if isinstance(k, str) and k.lower() in r[1:]:
            return []
    elif isinstance(real, dict) and "__dataclass__" in real:  # a default-constructed config object
        if real.get("equals_default_instance") and cat in ({}, None):
            return []
    elif (
        type(r) is type(k)
        and r == k
        or (
            isinstance(r, (int, float))
            and isinstance(k, (int, float))
            and not isinstance(r, bool)
            and not isinstance(k, bool)
            and r == k
        )
    ):
        return []
    extra = " (catalog: resolved at startup)" if c.get("default_resolved_at_startup") else ""
    return [f"default: vLLM {json.dumps(real)} vs catalog {json.dumps(cat)}{extra}"]


def _choice_set(choices: Any) -> set[str] | None:
    if choices is None:
        return None
    out = set()
    for x in choices:
        if x is None:
            continue
        if isinstance(x, dict) and "__enum__" in x:
            x = x["value"]
        out.add(str(x))
    return out


def check_choices(a: dict, c: dict) -> list[str]:
    r, k = _choice_set(a["choices"]), _choice_set(c.get("choices"))
    if (r or None) == (k or None):
        return []
    if r is None or k is None:
        return [f"choices: vLLM {sorted(r) if r else None} vs catalog {sorted(k) if k else None}"]
    return [f"choices: only in vLLM {sorted(r - k)}, only in catalog {sorted(k - r)}"]


def check_deprecated(a: dict, c: dict) -> list[str]:
    """One way only: an argument vLLM's parser marks deprecated (``deprecated=True``) must be deprecated in
    the catalog; the catalog may say so where vLLM only says it in the help text or a warning."""
    if a.get("deprecated") and not c.get("deprecated"):
        return ["deprecated: vLLM's parser marks it deprecated, the catalog does not"]
    return []


FIELDS = ("flags", "type", "default", "choices", "deprecated")


def compare(parser_doc: dict, catalog: dict) -> dict:
    args = catalog["arguments"]
    by_name = {c["name"]: c for c in args}
    by_flag = {}
    for c in args:
        for f in (*c.get("flags", ()), *c.get("hidden_aliases", ()), *c.get("negative_flags", ())):
            by_flag[f] = c
    real_flags = set()
    rows = []
    for a in parser_doc["actions"]:
        if not a["option_strings"]:
            continue  # the positional model_tag
        flags = list(dict.fromkeys([*a["option_strings"], *a.get("registered_option_strings", ())]))
        real_flags.update(flags)
        c = by_name.get(a["dest"]) or next((by_flag[f] for f in flags if f in by_flag), None)
        row = {"dest": a["dest"], "flags": flags, "problems": {}}
        if c is None:
            row["problems"] = {f: ["argument missing from the catalog"] for f in FIELDS}
            rows.append(row)
            continue
        row["catalog_name"] = c["name"]
        cat_flags = {*c.get("flags", ()), *c.get("hidden_aliases", ()), *c.get("negative_flags", ())}
        missing = [f for f in flags if f not in cat_flags]
        if c["name"] != a["dest"]:
            row["problems"]["flags"] = [f"catalog name {c['name']!r} != vLLM dest {a['dest']!r}"]
        if missing:
            row["problems"].setdefault("flags", []).append(
                f"option strings missing from the catalog: {missing}"
            )
        for fld, fn in (
            ("type", check_type),
            ("default", check_default),
            ("choices", check_choices),
            ("deprecated", check_deprecated),
        ):
            p = fn(a, c)
            if p:
                row["problems"][fld] = p
        rows.append(row)
    n = len(rows)
    ok = {f: sum(1 for r in rows if f not in r["problems"]) for f in FIELDS}
    ok["all"] = sum(1 for r in rows if not r["problems"])
    extra = []
    for c in args:
        cat_flags = [*c.get("flags", ()), *c.get("hidden_aliases", ()), *c.get("negative_flags", ())]
        gone = list(dict.fromkeys(f for f in cat_flags if f not in real_flags))
        if gone:
            extra.append({"name": c["name"], "not_in_vllm_parser": gone})
    return {
        "vllm_version": parser_doc.get("vllm_version"),
        "catalog_version": catalog.get("version"),
        "real_arguments": n,
        "real_option_strings": len(real_flags),
        "catalog_arguments": len(args),
        "ok": ok,
        "percent": {f: round(100.0 * v / n, 2) if n else None for f, v in ok.items()},
        "mismatches": [r for r in rows if r["problems"]],
        "catalog_option_strings_not_in_vllm": extra,
    }


def render(res: dict) -> str:
    out = [
        f"vLLM {res['vllm_version']} parser vs catalog {res['catalog_version']}: "
        f"{res['real_arguments']} real arguments ({res['real_option_strings']} option strings), "
        f"{res['catalog_arguments']} catalog arguments",
    ]
    for f in (*FIELDS, "all"):
        out.append(f"  {f:10} {res['ok'][f]:4}/{res['real_arguments']}  {res['percent'][f]:6.2f}%")
    out.append(f"mismatches ({len(res['mismatches'])}):")
    for r in res["mismatches"]:
        for fld, probs in r["problems"].items():
            for p in probs:
                out.append(f"  {r['flags'][0]:45} [{fld}] {p}")
    if res["catalog_option_strings_not_in_vllm"]:
        out.append(
            "catalog option strings the real parser does not register"
            f" ({len(res['catalog_option_strings_not_in_vllm'])} arguments):"
        )
        for e in res["catalog_option_strings_not_in_vllm"]:
            out.append(f"  {e['name']:45} {e['not_in_vllm_parser']}")
    return "\n".join(out)


def _catalog_at(version: str, rev: str | None) -> dict:
    """The committed catalog of ``version``: in the work tree, or at git revision ``rev``."""
    rel = f"vllmcheck/catalogs/{version}.json"
    if rev is None:
        return json.loads(Path(REPO, rel).read_text())
    import subprocess  # nosec B404  # git show of a fixed path at a revision the user names

    text = subprocess.run(  # nosec B603 B607
        ["git", "-C", REPO, "show", f"{rev}:{rel}"], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(text)


def summary(dump_files: list[str], rev: str | None) -> str:
    """One Markdown table row per dump: the release's catalog (work tree, or at ``rev``) against it."""
    rows = [
        "| release | real arguments (option strings) | catalog arguments | "
        + " | ".join(FIELDS)
        + " | all |",
        "|---" * (len(FIELDS) + 4) + "|",
    ]
    for path in dump_files:
        doc = json.loads(Path(path).read_text())
        res = compare(doc, _catalog_at(doc["vllm_version"], rev))
        n, pct = res["real_arguments"], res["percent"]
        rows.append(
            f"| {doc['vllm_version']} | {n} ({res['real_option_strings']}) | {res['catalog_arguments']} | "
            + " | ".join(f"{pct[f]:.2f}%" for f in FIELDS)
            + f" | **{pct['all']:.2f}%** ({res['ok']['all']}/{n}) |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    sp = ap.add_subparsers(dest="mode", required=True)
    sp.add_parser("dump", help="inside a release's venv: print the real serve parser's actions as JSON")
    cp = sp.add_parser("compare", help="compare a dump with the product's catalog")
    cp.add_argument("dump_file", help="output of `dump`")
    cp.add_argument("--catalog", help="default: vllmcheck/catalogs/<vLLM version of the dump>.json")
    cp.add_argument("--json", help="also write the result as JSON here")
    sm = sp.add_parser("summary", help="one Markdown table row per dump, against the committed catalogs")
    sm.add_argument("dump_files", nargs="+")
    sm.add_argument("--rev", help="read the catalogs at this git revision (default: the work tree)")
    opts = ap.parse_args()
    if opts.mode == "dump":
        dump(sys.stdout)
        return
    if opts.mode == "summary":
        print(summary(opts.dump_files, opts.rev))
        return
    parser_doc = json.loads(Path(opts.dump_file).read_text())
    cat_path = opts.catalog or os.path.join(
        REPO, "vllmcheck", "catalogs", f"{parser_doc['vllm_version']}.json"
    )
    res = compare(parser_doc, json.loads(Path(cat_path).read_text()))
    print(render(res))
    if opts.json:
        Path(opts.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
