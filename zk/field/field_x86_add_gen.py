#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# zk/field/field_x86_add_gen.py N... — prints the add/sub/dbl/neg kernels for the
# given limb counts, as pasted into zk/field/field_x86_add.h (the algorithm and the
# register budget are described there).
import sys


def fn(name, N, args, body, outs, ins, temps):
    L = []
    L.append("static inline __attribute__((always_inline)) void")
    L.append("cz_x86_%s%d(%s)" % (name, N, args))
    L.append("{")
    decl = ", ".join(["r%d" % i for i in range(N)] + temps)
    L.append("\tuint64_t %s;" % decl)
    L.append("\t__asm__(")
    for s in body:
        L.append('\t\t"%s\\n\\t"' % s)
    L.append("\t\t: " + ",\n\t\t  ".join(outs))
    L.append("\t\t: " + ",\n\t\t  ".join(ins))
    L.append('\t\t: "cc");')
    for i in range(N):
        L.append("\tr[%d] = r%d;" % (i, i))
    L.append("}")
    return "\n".join(L)


def outs_r(N):
    return ["[r%d] \"=&r\"(r%d)" % (i, i) for i in range(N)]


def ins_mem(N, name, ptr):
    return ["[%s] \"m\"(*(const uint64_t(*)[%d])%s)" % (name, N, ptr)]


def ins_p(N):
    return ["[p%d] \"m\"(m[%d])" % (i, i) for i in range(N)]


def tmp(N, i):
    """Temporary i of N: the last two are the a and b pointer registers,
    free once the operands are loaded."""
    if i == N - 2:
        return "%[a]"
    if i == N - 1:
        return "%[b]"
    return "%%[t%d]" % i


def gen_add(N):
    b = ["movq %d(%%[a]), %%[r%d]" % (8 * i, i) for i in range(N)]
    b += ["%s %d(%%[b]), %%[r%d]" % ("addq" if i == 0 else "adcq", 8 * i, i) for i in range(N)]
    b += ["movq %%[r%d], %s" % (i, tmp(N, i)) for i in range(N)]
    b += ["%s %%[p%d], %s" % ("subq" if i == 0 else "sbbq", i, tmp(N, i)) for i in range(N)]
    b += ["cmovaeq %s, %%[r%d]" % (tmp(N, i), i) for i in range(N)]
    temps = ["t%d" % i for i in range(N - 2)]
    outs = outs_r(N) + ["[t%d] \"=&r\"(t%d)" % (i, i) for i in range(N - 2)] + \
        ["[a] \"+r\"(a)", "[b] \"+r\"(b)"]
    ins = ins_mem(N, "ma", "a") + ins_mem(N, "mb", "b") + ins_p(N)
    args = "uint64_t r[%d], const uint64_t *a, const uint64_t *b, const uint64_t *m" % N
    return fn("add", N, args, b, outs, ins, temps)


def gen_dbl(N):
    b = ["movq %d(%%[a]), %%[r%d]" % (8 * i, i) for i in range(N)]
    b += ["%s %%[r%d], %%[r%d]" % ("addq" if i == 0 else "adcq", i, i) for i in range(N)]
    b += ["movq %%[r%d], %s" % (i, tmp(N, i)) for i in range(N)]
    b += ["%s %%[p%d], %s" % ("subq" if i == 0 else "sbbq", i, tmp(N, i)) for i in range(N)]
    b += ["cmovaeq %s, %%[r%d]" % (tmp(N, i), i) for i in range(N)]
    temps = ["t%d" % i for i in range(N - 2)] + ["b"]
    outs = outs_r(N) + ["[t%d] \"=&r\"(t%d)" % (i, i) for i in range(N - 2)] + \
        ["[a] \"+r\"(a)", "[b] \"=&r\"(b)"]
    ins = ins_mem(N, "ma", "a") + ins_p(N)
    args = "uint64_t r[%d], const uint64_t *a, const uint64_t *m" % N
    return fn("dbl", N, args, b, outs, ins, temps)


def gen_sub(N):
    b = ["movq %d(%%[a]), %%[r%d]" % (8 * i, i) for i in range(N)]
    b += ["%s %d(%%[b]), %%[r%d]" % ("subq" if i == 0 else "sbbq", 8 * i, i) for i in range(N)]
    b += ["sbbq %[b], %[b]"]  # the borrow as a mask; b is dead
    for i in range(N - 1):
        b += ["movq %%[p%d], %s" % (i, tmp(N, i)), "andq %%[b], %s" % tmp(N, i)]
    b += ["andq %%[p%d], %%[b]" % (N - 1)]
    b += ["%s %s, %%[r%d]" % ("addq" if i == 0 else "adcq", tmp(N, i), i) for i in range(N)]
    temps = ["t%d" % i for i in range(N - 2)]
    outs = outs_r(N) + ["[t%d] \"=&r\"(t%d)" % (i, i) for i in range(N - 2)] + \
        ["[a] \"+r\"(a)", "[b] \"+r\"(b)"]
    ins = ins_mem(N, "ma", "a") + ins_mem(N, "mb", "b") + ins_p(N)
    args = "uint64_t r[%d], const uint64_t *a, const uint64_t *b, const uint64_t *m" % N
    return fn("sub", N, args, b, outs, ins, temps)


def gen_neg(N):
    b = ["movq 0(%[a]), %[t]"]
    b += ["orq %d(%%[a]), %%[t]" % (8 * i) for i in range(1, N)]
    b += ["movq %%[p%d], %%[r%d]" % (i, i) for i in range(N)]
    b += ["%s %d(%%[a]), %%[r%d]" % ("subq" if i == 0 else "sbbq", 8 * i, i) for i in range(N)]
    b += ["negq %[t]", "sbbq %[t], %[t]"]  # a != 0: all ones
    b += ["andq %%[t], %%[r%d]" % i for i in range(N)]
    outs = outs_r(N) + ["[t] \"=&r\"(t)"]
    ins = ["[a] \"r\"(a)"] + ins_mem(N, "ma", "a") + ins_p(N)
    args = "uint64_t r[%d], const uint64_t *a, const uint64_t *m" % N
    return fn("neg", N, args, b, outs, ins, ["t"])


for n in map(int, sys.argv[1:]):
    for g in (gen_add, gen_dbl, gen_sub, gen_neg):
        print(g(n))
        print()
