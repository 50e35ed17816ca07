#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# zk/field/field_x86_add_gen.py N... — prints the add/sub/dbl/neg kernels for the
# given limb counts, as pasted into zk/field/field_x86_add.h (the algorithm and the
# register budget are described there).
# zk/field/field_x86_add_gen.py --header prints all of zk/field/field_x86_add.h:
# HEAD, the kernels for 4 and 6 limbs, TAIL (selftests/zk_x86_gen.sh compares it
# with the committed file).
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


HEAD = r'''/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_x86_add.h — x86-64 add/sub/dbl/neg kernels for the Montgomery
 * fields (4 and 6 limbs).  Private to the field code: included by
 * zk/field/field_tmpl_pvt.h (which picks these kernels for its limb count) and by
 * zk/field/field_inline.h.  This file is generated, all of it, by
 * `zk/field/field_x86_add_gen.py --header > zk/field/field_x86_add.h` (edit that,
 * not this; selftests/zk_x86_gen.sh, in make check, fails when they differ).
 *
 * Why assembly: GCC 12 compiles the C carry chains (_addcarry_u64) into
 * adc/sbb, but interleaves the mask ANDs of a conditional correction with
 * the second chain, so it saves and restores CF with setb/add $0xff per limb
 * (3 instructions and a partial-register dependency per limb).  Here each
 * step is one straight chain:
 *   add: s = a + b (no carry out: m < 2^(64N-1)); d = s - m; keep s if that
 *        borrows (cmovae picks d), 12 registers, ~2N+2 cycles
 *   sub: d = a - b; mask = -borrow; d += m & mask (all masks made before the
 *        add chain, so CF is never saved), ~2N+3 cycles
 *   neg: (m - a) & -(a != 0)
 * Only base x86-64 instructions (no BMI2/ADX): they serve the portable path
 * too.  Register budget: N + 4 temporaries plus the a and b pointer
 * registers, reused as temporaries once the operands are loaded, so N = 6
 * needs 12 registers and still fits with a frame pointer (ASan builds).
 * The modulus limbs are memory operands (RIP-relative for a constant).
 * Outputs go through C stores after the asm, so r may alias a or b.
 * Inputs must be fully reduced (< m).
 */
#ifndef CZ_FIELD_X86_ADD_H
#define CZ_FIELD_X86_ADD_H

#include <stdint.h>

#if defined(__x86_64__)

'''

TAIL = r'''#define CZ_X86_ADD4 cz_x86_add4
#define CZ_X86_DBL4 cz_x86_dbl4
#define CZ_X86_SUB4 cz_x86_sub4
#define CZ_X86_NEG4 cz_x86_neg4
#define CZ_X86_ADD6 cz_x86_add6
#define CZ_X86_DBL6 cz_x86_dbl6
#define CZ_X86_SUB6 cz_x86_sub6
#define CZ_X86_NEG6 cz_x86_neg6

#endif /* __x86_64__ */
#endif
'''

if sys.argv[1:] == ["--header"]:
    sys.stdout.write(HEAD)
    for n in (4, 6):
        for g in (gen_add, gen_dbl, gen_sub, gen_neg):
            print(g(n))
            print()
    sys.stdout.write(TAIL)
    sys.exit(0)

for n in map(int, sys.argv[1:]):
    for g in (gen_add, gen_dbl, gen_sub, gen_neg):
        print(g(n))
        print()
