#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: docs/architecture.md's cited names are true: every file it names exists, every
# function or identifier it names in backticks is in the tree, and every name it places in a file
# ("`name` (`file`)", "(`name`, `file`)") is in that file; a planted page with one of each wrong is
# caught.  Run from anywhere; the tree is this script's parent.
#
# The walk-through names every function a partition passes; a move (a function to another file, a
# rename) that forgets the page fails here, naming the line.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$ROOT" "$@" <<'EOF'
import os, re, subprocess, sys, tempfile

ROOT = sys.argv[1]
DIRS = ("lib", "alloc", "ring", "zk", "synth", "gpu", "ctl", "engine", "tools", "selftests", "docs")
PATH = re.compile(r"\b((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_])" % "|".join(DIRS))
TICK = re.compile(r"`([^`]+)`")
IDENT = re.compile(r"^([a-z_][a-z0-9_]*_[a-z0-9_]*)(?:\(\))?$")
# `name` (`file` ...   and   (`name`, `file`)
PLACED = [re.compile(r"`([a-z_][a-z0-9_]*)(?:\(\))?`\s*\(`([a-z][A-Za-z0-9_./-]*\.[a-z]+)`"),
          re.compile(r"\(`([a-z_][a-z0-9_]*)(?:\(\))?`,\s*`([a-z][A-Za-z0-9_./-]*\.[a-z]+)`\)")]
SRC_EXT = (".c", ".h", ".cu", ".cuh", ".py", ".sh", ".js", ".txt")


def tree(root):
    r = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True)
    files = [f for f in r.stdout.split("\n") if f and "node_modules" not in f.split("/")]
    return [f for f in files if os.path.isfile(os.path.join(root, f))]


def words(root, files):
    """Every identifier-like word in the sources, and each file's words (C
    and CUDA: outside comments)."""
    per = {}
    for f in files:
        if not f.endswith(SRC_EXT) and "/" in f and not f.startswith("tools/"):
            continue
        try:
            with open(os.path.join(root, f), errors="replace") as fh:
                text = fh.read()
            if f.endswith((".c", ".h", ".cu", ".cuh")):    # the code, not what comments say
                text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
            per[f] = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        except OSError:
            pass
    every = set()
    for w in per.values():
        every |= w
    return every, per


def check(root, doc):
    """[(line, why)] for what the page at doc (relative to root) gets wrong."""
    files = tree(root)
    fset = set(files)
    dirs = {os.path.dirname(f) for f in files}
    every, per = words(root, files)
    bad = []
    with open(os.path.join(root, doc)) as fh:
        lines = fh.read().split("\n")
    # One paragraph at a time: a name and its file may sit on two lines.
    start = 0
    paras = []
    for i, l in enumerate(lines + [""]):
        if not l.strip() or l.startswith(("- ", "### ", "| ")):
            if start < i:
                paras.append((start + 1, " ".join(lines[start:i])))
            start = i if l.strip() else i + 1
    for ln, text in paras:
        for m in PATH.finditer(text):
            p = m.group(1).rstrip(".")
            if p not in fset and p.rstrip("/") not in dirs and \
               not any(p + x in fset for x in (".c", ".h")):        # "lib/heap": the module
                bad.append((ln, "names %s, which is not in the tree" % p))
        for m in TICK.finditer(text):
            mi = IDENT.match(m.group(1))
            if mi and mi.group(1) not in every:
                bad.append((ln, "names `%s`, which no source file has" % mi.group(1)))
        for rx in PLACED:
            for m in rx.finditer(text):
                name, f = m.group(1), m.group(2)
                if "_" not in name:
                    continue
                cand = [f] if f in fset else [g for g in files if g.endswith("/" + f)]
                if cand and not any(name in per.get(g, ()) for g in cand):
                    bad.append((ln, "places `%s` in %s, which does not have it" % (name, f)))
    return bad


def main(args):
    docs = args or ["docs/architecture.md"]
    print("TAP version 13\n1..%d" % (len(docs) + 1))
    fails = 0
    for k, d in enumerate(docs, 1):
        bad = check(ROOT, d)
        print("%s %d - %s: every file, name and name-in-file it cites is true (%d wrong)"
              % ("not ok" if bad else "ok", k, d, len(bad)))
        for ln, why in bad:
            print("# %s:%d: %s" % (d, ln, why))
        fails += bool(bad)
    tmp = tempfile.mkdtemp(prefix="docs_names.")
    try:
        os.makedirs(os.path.join(tmp, "engine"))
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "engine", "a.c"), "w") as f:
            f.write("void cz_a_run(void) {}\n")
        with open(os.path.join(tmp, "engine", "b.c"), "w") as f:
            f.write("void cz_b_run(void) {}\n")
        with open(os.path.join(tmp, "docs", "p.md"), "w") as f:
            f.write("Right: `cz_a_run` (`engine/a.c`) and (`cz_b_run`, `engine/b.c`).\n\n"
                    "Wrong: engine/gone.c, `cz_c_run`, `cz_b_run` (`engine/a.c`).\n")
        subprocess.run(["git", "-C", tmp, "init", "-q"], check=True)
        got = sorted(why for _, why in check(tmp, "docs/p.md"))
        want = sorted(["names engine/gone.c, which is not in the tree",
                       "names `cz_c_run`, which no source file has",
                       "places `cz_b_run` in engine/a.c, which does not have it"])
        ok = got == want
        print("%s %d - self-test: a missing file, a missing name and a name placed in the wrong file "
              "are caught, right ones are not" % ("ok" if ok else "not ok", len(docs) + 1))
        if not ok:
            print("# got: %s" % got)
        fails += not ok
    finally:
        subprocess.run(["rm", "-rf", tmp])
    print("# %d passed, %d failed, 0 skipped" % (len(docs) + 1 - fails, fails))
    return 1 if fails else 0


sys.exit(main(sys.argv[2:]))
EOF
