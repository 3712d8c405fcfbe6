"""Show the distinct conditions guarding a message across releases: variants.py N SUBSTRING...
(N = lines before the raise to consider; the context is cut at the nearest enclosing if/elif/def)."""
import json, sys, re
from vers import VERS, VLLM_SRC, INDEX
idx=json.load(open(INDEX))
n=int(sys.argv[1])
def ind(s): return len(s)-len(s.lstrip())
for sub in sys.argv[2:]:
    ms=[m for m in idx if sub in m]
    for m in ms:
        groups={}
        for v,f,l,c in idx[m]:
            lines=open(f"{VLLM_SRC}/{v}/{f}").read().split("\n")
            seg=[x for x in lines[max(0,l-n):l] if x.strip() and not x.strip().startswith('#')]
            ri=ind(lines[l-1])
            for k in range(len(seg)-1,-1,-1):
                if re.match(r"\s*(if|elif|def)\b", seg[k]) and ind(seg[k])<ri:
                    seg=seg[k:]; break
            ctx="\n".join(seg)
            groups.setdefault(ctx,[]).append(f"{v}:{f.split('/')[-1]}:{l}")
        print(f"######## {m[:110]!r}  [{len(groups)} variant(s)]")
        for ctx,vs in groups.items():
            print(f"--- {vs[0]} .. {vs[-1]} ({len(vs)})")
            print(ctx)
