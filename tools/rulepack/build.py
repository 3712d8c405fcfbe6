"""Build builtin.yaml from spec.py + spec2.py: resolves each vLLM message in the index, derives the exact
version range, the source link (newest release of the range) and the error class. Usage: build.py [OUT]."""

import json
import re
import sys

import yaml

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from vers import INDEX, PACK, TOOLS, VERS, VLLM_SRC

if not INDEX.exists():
    import runpy

    runpy.run_path(str(TOOLS / "index.py"))
with open(INDEX) as fh:
    idx = json.load(fh)
SHA = {}
for v in VERS:
    with open(f"{VLLM_SRC}/{v}/vllm/_version.py") as fh:
        t = fh.read()
    SHA[v] = re.search(r"commit_id = '(g?)([0-9a-f]+)'", t).group(2)


def nxt(v):
    i = VERS.index(v)
    return VERS[i + 1] if i + 1 < len(VERS) else None


def resolve(msg):
    if msg in idx:
        return msg
    c = [m for m in idx if msg in m]
    if len(c) != 1:
        raise SystemExit(f"message not unique/found: {msg!r}: {c[:3]}")
    return c[0]


def spec_for(first, last):
    n = nxt(last)
    return f">={first}" if n is None else f">={first},<{n}"


def fill(rule):
    r = dict(rule)
    if r.get("category", "vllm") == "vllm":
        m = resolve(r.pop("msg"))
        occ = idx[m]
        vs = [o[0] for o in occ]
        ix = sorted(set(VERS.index(v) for v in vs))
        if ix != list(range(ix[0], ix[-1] + 1)):
            raise SystemExit(f"non-contiguous {r['id']}: {vs}")
        first, last = VERS[ix[0]], VERS[ix[-1]]
        if "range" in r:  # narrower range (condition changed), must lie within the text's range
            first, last = r.pop("range")
            assert VERS.index(first) >= ix[0] and VERS.index(last) <= ix[-1], r["id"]
        o = [o for o in occ if o[0] == last][0]
        m = r.pop("msg_text", m)  # the text as written in vLLM's source (e.g. an f-string's {x=})
        out = {"id": r.pop("id"), "category": "vllm", "severity": r.pop("severity", "error"), "message": m}
        out["when"] = r.pop("when")
        out["versions"] = spec_for(first, last)
        for k in ("kinds", "fields", "needs", "solutions", "example_fix", "docs"):
            if k in r:
                out[k] = r.pop(k)
        out["source"] = f"https://github.com/vllm-project/vllm/blob/{SHA[last]}/{o[1]}#L{o[2]}"
        out["error_class"] = o[3].split(".")[-1]
        for k in ("fix", "tags"):
            if k in r:
                out[k] = r.pop(k)
        assert not r, (out["id"], r)
        return out
    return r


class D(yaml.SafeDumper):
    pass


def _str(dumper, s):
    if "\n" in s:
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


D.add_representer(str, _str)

if __name__ == "__main__":
    import importlib.util

    spec = importlib.util.spec_from_file_location("spec", TOOLS / "spec.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    spec2 = importlib.util.spec_from_file_location("spec2", TOOLS / "spec2.py")
    mod2 = importlib.util.module_from_spec(spec2)
    spec2.loader.exec_module(mod2)
    vllm_rules = [r for r in mod.RULES if r.get("category", "vllm") == "vllm"]
    others = [r for r in mod.RULES if r.get("category", "vllm") != "vllm"]
    rules = [fill(r) for r in vllm_rules + mod2.RULES + others]
    rules.sort(key=lambda r: r["category"] == "policy")
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    pack = {
        "pack": "builtin",
        "description": mod.DESCRIPTION,
        "defaults": mod.DEFAULTS,
        "derived": mod.DERIVED,
        "rules": rules,
    }
    text = yaml.dump(pack, Dumper=D, sort_keys=False, width=110, allow_unicode=True)
    with open(sys.argv[1] if len(sys.argv) > 1 else PACK, "w") as fh:
        fh.write(mod.HEADER + text)
    print(len(rules))
