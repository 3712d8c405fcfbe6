"""Show the distinct conditions guarding a message across releases:
python -m tools.rulepack.variants N SUBSTRING... (N = lines before the raise to consider; the context is cut
at the nearest enclosing if/elif/def)."""

import re
import sys

from tools.rulepack.index import load_index
from tools.rulepack.releases import source_dir


def ind(s):
    return len(s) - len(s.lstrip())


def main(argv):
    idx = load_index()
    n = int(argv[0])
    for sub in argv[1:]:
        ms = [m for m in idx if sub in m]
        for m in ms:
            groups = {}
            for v, f, ln, _cls in idx[m]:
                with open(source_dir(v) / f) as fh:
                    lines = fh.read().split("\n")
                seg = [x for x in lines[max(0, ln - n) : ln] if x.strip() and not x.strip().startswith("#")]
                ri = ind(lines[ln - 1])
                for k in range(len(seg) - 1, -1, -1):
                    if re.match(r"\s*(if|elif|def)\b", seg[k]) and ind(seg[k]) < ri:
                        seg = seg[k:]
                        break
                ctx = "\n".join(seg)
                groups.setdefault(ctx, []).append(f"{v}:{f.split('/')[-1]}:{ln}")
            print(f"######## {m[:110]!r}  [{len(groups)} variant(s)]")
            for ctx, vs in groups.items():
                print(f"--- {vs[0]} .. {vs[-1]} ({len(vs)})")
                print(ctx)


if __name__ == "__main__":
    main(sys.argv[1:])
