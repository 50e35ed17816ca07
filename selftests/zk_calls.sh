#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: no loop of zk/ files calling each other: from nm's defined and undefined
# symbols of $B/obj/zk/**/*.o, file A calls file B when A uses a symbol B defines; the
# file-level graph must have no cycle (a loop such as fp6.c <-> fp12.c fails, naming the
# files and the symbols each takes from the other).
exec python3 - "${B:-build}/obj/zk" <<'PY'
import glob, os, subprocess, sys

top = sys.argv[1]
print("TAP version 13\n1..2")
objs = sorted(glob.glob(os.path.join(top, "**", "*.o"), recursive=True))
ok = len(objs) > 0
print("%s 1 - %d objects under %s" % ("ok" if ok else "not ok", len(objs), top))
if not ok:
    print("not ok 2 - no objects to read (build first)\n# 0 passed, 2 failed, 0 skipped")
    sys.exit(1)
defs, undef = {}, {}
for o in objs:
    r = subprocess.run(["nm", "-P", o], capture_output=True, text=True)
    u = set()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            u.add(f[0])
        elif f[1] in "TDRBVW" or f[1] in "CG":
            defs.setdefault(f[0], o)
    undef[o] = u
edges = {o: sorted({defs[s] for s in undef[o] if defs.get(s, o) != o}) for o in objs}
# Tarjan's strongly connected components, iteratively.
index, low, onstack, stack, comps, n = {}, {}, set(), [], [], 0
for root in objs:
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = n
            n += 1
            stack.append(v)
            onstack.add(v)
        if i < len(edges[v]):
            work.append((v, i + 1))
            w = edges[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in onstack:
                low[v] = min(low[v], index[w])
            continue
        for w in edges[v]:
            if w in onstack:
                low[v] = min(low[v], low[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                c.append(w)
                if w == v:
                    break
            comps.append(c)
loops = [c for c in comps if len(c) > 1]
rel = lambda p: os.path.relpath(p, top)
print("%s 2 - no loop of files calling each other (%d calls between files)"
      % ("not ok" if loops else "ok", sum(map(len, edges.values()))))
for c in loops:
    print("# loop: " + " ".join(sorted(map(rel, c))))
    for a in sorted(c):
        for b in edges[a]:
            if b in c:
                syms = sorted(s for s in undef[a] if defs.get(s) == b)
                print("#   %s -> %s: %s" % (rel(a), rel(b), " ".join(syms[:8])))
print("# %d passed, %d failed, 0 skipped" % (2 - bool(loops), bool(loops)))
sys.exit(1 if loops else 0)
PY
