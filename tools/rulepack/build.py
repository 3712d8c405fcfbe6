"""Build builtin.yaml from the rule specs (tools/rulepack/specs/): resolves each vLLM message in the index,
derives the exact version range, the source link (newest release of the range) and the error class.
Usage: python -m tools.rulepack.build [OUT]."""

import re
import sys

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tools.rulepack import document, specs
from tools.rulepack.expr import MAX_CHARS, NAMED
from tools.rulepack.index import load_index
from tools.rulepack.releases import PACK, RELEASES, source_dir


def release_commits():
    sha = {}
    for v in RELEASES:
        text = (source_dir(v) / "vllm" / "_version.py").read_text()
        sha[v] = re.search(r"commit_id = '(g?)([0-9a-f]+)'", text).group(2)
    return sha


def nxt(v):
    i = RELEASES.index(v)
    return RELEASES[i + 1] if i + 1 < len(RELEASES) else None


def resolve(idx, msg):
    if msg in idx:
        return msg
    c = [m for m in idx if msg in m]
    if len(c) != 1:
        raise SystemExit(f"message not unique/found: {msg!r}: {c[:3]}")
    return c[0]


def spec_for(first, last):
    n = nxt(last)
    return f">={first}" if n is None else f">={first},<{n}"


def lifetime(idx, rule_id, message):
    """The first and last release whose source raises the message; it must be contiguous."""
    vs = [o[0] for o in idx[message]]
    ix = sorted(set(RELEASES.index(v) for v in vs if v in RELEASES))
    if ix != list(range(ix[0], ix[-1] + 1)):
        raise SystemExit(f"non-contiguous {rule_id}: {vs}")
    return RELEASES[ix[0]], RELEASES[ix[-1]]


def fields_of(message):
    """The f-string fields of a message as index.py writes them: (start, end, expression, conversion)."""
    out, i = [], 0
    while (start := message.find("{", i)) != -1:
        depth, quote, j = 0, "", start
        while j < len(message):
            ch = message[j]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        inner = message[start + 1 : j]
        conv = re.search(r"!([rsa])$", inner)
        out.append((start, j + 1, inner[: conv.start()] if conv else inner, conv.group(0) if conv else None))
        i = j + 1
    return out


def message_template(rule_id, message, values):
    """vLLM's message with each f-string field replaced by {{ CEL }} (and its conversion: {{ CEL | !r }});
    source escapes (\\n) become the characters vLLM prints."""
    fields = fields_of(message)
    unknown = sorted(set(values) - {f[2] for f in fields})
    if unknown:
        raise SystemExit(f"{rule_id}: values for fields the message does not have: {unknown}")
    out, pos = [], 0
    for start, end, expr, conv in fields:
        if expr not in values:
            raise SystemExit(f"{rule_id}: no value for the field {{{expr}}} of its message")
        out.append(message[pos:start].replace("\\n", "\n"))
        out.append(f"{{{{ {values[expr]} | {conv} }}}}" if conv else f"{{{{ {values[expr]} }}}}")
        pos = end
    out.append(message[pos:].replace("\\n", "\n"))
    return "".join(out)


def fill(rule, idx, sha):
    r = dict(rule)
    if r.get("category", "vllm") != "vllm":
        return r
    m = resolve(idx, r.pop("msg"))
    occ = idx[m]
    first, last = lifetime(idx, r["id"], m)
    r.pop("narrowed", None)  # why the range is narrower than the message's lifetime (for cases.py)
    if "range" in r:  # narrower range (the condition changed while the text did not); None = the text's end
        lo, hi = r.pop("range")
        lo, hi = lo or first, hi or last
        if not RELEASES.index(first) <= RELEASES.index(lo) <= RELEASES.index(hi) <= RELEASES.index(last):
            raise SystemExit(f"{r['id']}: range {lo}..{hi} is not within its message's {first}..{last}")
        first, last = lo, hi
    o = [o for o in occ if o[0] == last][0]
    m = r.pop("msg_text", m)  # the text as written in vLLM's source (e.g. an f-string's {x=})
    out = {"id": r.pop("id"), "category": "vllm", "severity": r.pop("severity", "error"), "message": m}
    values = r.pop("values", {})
    if "message_template" in r:  # written out by hand
        if values:
            raise SystemExit(f"{out['id']}: give either values or message_template, not both")
        out["message_template"] = r.pop("message_template")
    elif fields_of(m) or values:
        out["message_template"] = message_template(out["id"], m, values)
    out["when"] = r.pop("when")
    out["versions"] = spec_for(first, last)
    for k in ("kinds", "fields", "needs", "solutions", "example_fix", "docs"):
        if k in r:
            out[k] = r.pop(k)
    out["source"] = f"https://github.com/vllm-project/vllm/blob/{sha[last]}/{o[1]}#L{o[2]}"
    out["error_class"] = o[3].split(".")[-1]
    for k in ("fix", "tags"):
        if k in r:
            out[k] = r.pop(k)
    if r:
        raise SystemExit(f"{out['id']}: unknown keys {sorted(r)}")
    return out


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    if "\n" in s:
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


Dumper.add_representer(str, _str)


DERIVED_REF = re.compile(r"\bderived\.([A-Za-z_][A-Za-z0-9_]*)")


def derived_values():
    """document.DERIVED and the values the specs name (expr.NAMED), each after the derived values it reads:
    the engine writes a value into the ones after it only (a name read before its definition would be
    unknown, "could not verify"). The order is kept wherever it already holds."""
    pending = [*document.DERIVED, *NAMED.values()]
    names = {d["name"] for d in pending}
    if len(names) != len(pending):
        raise SystemExit("a derived value of expr.NAMED has the name of one of document.DERIVED")
    ordered, done = [], set()
    while pending:
        for value in pending:
            reads = {n for v in value["variants"] for n in DERIVED_REF.findall(v["expr"])}
            if reads - names:
                raise SystemExit(f"derived value {value['name']}: reads undefined {sorted(reads - names)}")
            if reads <= done:
                break
        else:
            raise SystemExit(f"derived values read each other in a cycle: {[v['name'] for v in pending]}")
        pending.remove(value)
        ordered.append(value)
        done.add(value["name"])
    return ordered


def check_readable(rules, derived):
    """Every condition, message template and derived expression at most MAX_CHARS long (the rule editor shows
    each whole; name a shared part with expr.named), and every derived value a rule reads defined for each
    release of the rule's range."""
    texts = [
        (f"rule {r['id']}: {key}", r[key]) for r in rules for key in ("when", "message_template") if key in r
    ]
    texts += [(f"derived {d['name']}", v["expr"]) for d in derived for v in d["variants"]]
    too_long = [f"{where} is {len(text)} characters" for where, text in texts if len(text) > MAX_CHARS]
    if too_long:
        raise SystemExit(f"at most {MAX_CHARS} characters (name a part: expr.named): " + "; ".join(too_long))
    variants = {d["name"]: [SpecifierSet(v["versions"]) for v in d["variants"]] for d in derived}
    for rule in rules:
        releases = [v for v in RELEASES if Version(v) in SpecifierSet(rule.get("versions", ""))]
        text = " ".join(rule.get(key, "") for key in ("when", "message_template"))
        for name in sorted(set(DERIVED_REF.findall(text))):
            if name not in variants:
                raise SystemExit(f"rule {rule['id']} reads derived.{name}, which is not defined")
            missing = [v for v in releases if not any(Version(v) in s for s in variants[name])]
            if missing:
                raise SystemExit(f"rule {rule['id']}: derived.{name} is not defined for {', '.join(missing)}")


def build_pack():
    idx = load_index()
    sha = release_commits()
    rules = [fill(r, idx, sha) for r in specs.all_rules()]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    derived = derived_values()
    check_readable(rules, derived)
    return {
        "pack": "builtin",
        "description": document.DESCRIPTION,
        "defaults": document.DEFAULTS,
        "derived": derived,
        "rules": rules,
    }


def main(argv):
    pack = build_pack()
    text = yaml.dump(pack, Dumper=Dumper, sort_keys=False, width=110, allow_unicode=True)
    with open(argv[0] if argv else PACK, "w") as fh:
        fh.write(document.HEADER + text)
    print(len(pack["rules"]))


if __name__ == "__main__":
    main(sys.argv[1:])
