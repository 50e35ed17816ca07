#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# zk/field/field_x86_gen.py N... — prints the mulx/adcx/adox kernels for the given
# limb counts, as pasted into zk/field/field_x86.h (the algorithm is described
# there): Montgomery multiplication, the plain 2N-limb product and the
# Montgomery reduction of a 2N-limb value (lazy reduction, Fp2).
# zk/field/field_x86_gen.py --lazy N... prints the unreduced multiplication
# (output < 2m), pasted after them.
# zk/field/field_x86_gen.py --header prints all of zk/field/field_x86.h: HEAD, the
# kernels for 4 and 6 limbs, the lazy ones for 6 and 4, TAIL (selftests/zk_x86_gen.sh
# compares it with the committed file).
import sys


class Kernel:
    def __init__(self, N):
        self.N = N
        self.L = []

    def T(self, i, j):
        """Accumulator limb j during row i: registers rotate by one per row."""
        return "%%[t%d]" % ((i + j) % (self.N + 1))

    def Tk(self, i, j):
        """The same register, 32-bit name (for xorl)."""
        return "%%k[t%d]" % ((i + j) % (self.N + 1))

    def e(self, s):
        self.L.append('"%s\\n\\t"' % s)

    def product_row(self, i, src_b="%[b]"):
        """t += a·b[i]; row 0 starts t from nothing.  T(i, N) must be 0."""
        N, T, e = self.N, self.T, self.e
        e("movq %d(%s), %%%%rdx" % (8 * i, src_b))
        if i == 0:
            e("mulxq 0(%%[a]), %s, %s" % (T(0, 0), T(0, 1)))
            for j in range(1, N):
                e("mulxq %d(%%[a]), %%[lo], %s" % (8 * j, T(0, j + 1)))
                e("%s %%[lo], %s" % ("addq" if j == 1 else "adcq", T(0, j)))
            e("adcq $0, %s" % T(0, N))
            return
        e("xorl %k[lo], %k[lo]")
        for j in range(N):
            e("mulxq %d(%%[a]), %%[lo], %%[hi]" % (8 * j))
            e("adoxq %%[lo], %s" % T(i, j))
            e("adcxq %%[hi], %s" % T(i, j + 1))
        e("movq $0, %[lo]")
        e("adoxq %%[lo], %s" % T(i, N))

    def reduce_row(self, i):
        """q = t[0]·(-m^-1); t += q·m, after which t[0] = 0 (the next row's
        t[N]).  Needs t < 2^(64(N+1)) - q·m, which the callers' bounds give."""
        N, T, e = self.N, self.T, self.e
        e("movq %s, %%%%rdx" % T(i, 0))
        e("imulq %d(%%[m]), %%%%rdx" % (8 * N))
        e("xorl %k[lo], %k[lo]")
        for j in range(N):
            e("mulxq %d(%%[m]), %%[lo], %%[hi]" % (8 * j))
            e("adoxq %%[lo], %s" % T(i, j))
            e("adcxq %%[hi], %s" % T(i, j + 1))
        e("movq $0, %[lo]")
        e("adoxq %%[lo], %s" % T(i, N))

    def final_sub(self, rp, free):
        """x = t - m unless that borrows; store to rp.  t < 2m.  Copies of t
        go to the free registers; limbs beyond them are parked in r."""
        N, e = self.N, self.e
        X = [self.T(N, j) for j in range(N)]
        for j in range(N):
            if j < len(free):
                e("movq %s, %s" % (X[j], free[j]))
            else:
                e("movq %s, %d(%s)" % (X[j], 8 * j, rp))
        for j in range(N):
            e("%s %d(%%[m]), %s" % ("subq" if j == 0 else "sbbq", 8 * j, X[j]))
        for j in range(N):
            src = free[j] if j < len(free) else "%d(%s)" % (8 * j, rp)
            e("cmovcq %s, %s" % (src, X[j]))
        for j in range(N):
            e("movq %s, %d(%s)" % (X[j], 8 * j, rp))

    def body(self):
        return "\n\t\t".join(self.L)

    def decl(self):
        return ", ".join("t%d" % k for k in range(self.N + 1))

    def outs(self):
        return ", ".join('[t%d] "=&r"(t%d)' % (k, k) for k in range(self.N + 1))


def mont_mul(N):
    k = Kernel(N)
    for i in range(N):
        k.product_row(i)
        k.reduce_row(i)
    k.e("movq %[rp], %[b]")
    k.final_sub("%[b]", [k.T(N, N), "%[lo]", "%[hi]", "%%rdx", "%[a]"])
    return f'''/* r = a·b·2^(-64·{N}) mod m, fully reduced; r may alias a or b. */
static inline __attribute__((always_inline)) void
cz_x86_mont_mul{N}(uint64_t r[{N}], const uint64_t a[{N}], const uint64_t b[{N}], const uint64_t *m)
{{
\tuint64_t {k.decl()}, lo, hi;
\t__asm__ volatile(
\t\t{k.body()}
\t\t: {k.outs()},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+&r"(a), [b] "+&r"(b)
\t\t: [m] "r"(m), [rp] "m"(r)
\t\t: "rdx", "cc", "memory"); /* reads a, b, m; writes r */
}}
'''


def mont_mul_lazy(N):
    """mont_mul without the final subtraction: r < 2m (see zk/field/field_inline.h
    for the bound with operands < 2m)."""
    k = Kernel(N)
    for i in range(N):
        k.product_row(i)
        k.reduce_row(i)
    k.e("movq %[rp], %[b]")
    for j in range(N):
        k.e("movq %s, %d(%%[b])" % (k.T(N, j), 8 * j))
    return f'''/* r = a·b·2^(-64·{N}) mod m, NOT reduced: r < 2m when a, b < 2m and
 * m < 2^(64·{N})/4 (an operand for mul only); r may alias a or b. */
static inline __attribute__((always_inline)) void
cz_x86_mont_mul_lazy{N}(uint64_t r[{N}], const uint64_t a[{N}], const uint64_t b[{N}], const uint64_t *m)
{{
\tuint64_t {k.decl()}, lo, hi;
\t__asm__ volatile(
\t\t{k.body()}
\t\t: {k.outs()},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+&r"(a), [b] "+&r"(b)
\t\t: [m] "r"(m), [rp] "m"(r)
\t\t: "rdx", "cc", "memory"); /* reads a, b, m; writes r */
}}
'''


def mul_wide(N):
    k = Kernel(N)
    for i in range(N):
        if i > 0:
            # T(i, N) held the limb stored last row: clear it (and the flags)
            k.e("xorl %s, %s" % (k.Tk(i, N), k.Tk(i, N)))
        row = Kernel(N)
        row.product_row(i)
        lines = row.L
        if i > 0:
            lines = [l for l in lines if "xorl %k[lo]" not in l]
        k.L.extend(lines)
        k.e("movq %s, %d(%%[r])" % (k.T(i, 0), 8 * i))
    for j in range(1, N + 1):
        k.e("movq %s, %d(%%[r])" % (k.T(N - 1, j), 8 * (N - 1 + j)))
    return f'''/* r = a·b as a 2·{N}-limb integer (no reduction); r must not overlap a, b. */
static inline __attribute__((always_inline)) void
cz_x86_mul_wide{N}(uint64_t r[{2 * N}], const uint64_t a[{N}], const uint64_t b[{N}])
{{
\tuint64_t {k.decl()}, lo, hi;
\t__asm__ volatile(
\t\t{k.body()}
\t\t: {k.outs()},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi)
\t\t: [a] "r"(a), [b] "r"(b), [r] "r"(r)
\t\t: "rdx", "cc", "memory"); /* reads a, b; writes r */
}}
'''


def redc(N):
    k = Kernel(N)
    for j in range(N):
        k.e("movq %d(%%[tp]), %s" % (8 * j, k.T(0, j)))
    k.e("xorl %s, %s" % (k.Tk(0, N), k.Tk(0, N)))
    for i in range(N):
        k.reduce_row(i)
    # (t_lo + Q·m) / R <= m; adding t_hi < m keeps it < 2m < 2^(64N)
    for j in range(N):
        k.e("%s %d(%%[tp]), %s" % ("addq" if j == 0 else "adcq", 8 * (N + j), k.T(N, j)))
    k.final_sub("%[r]", [k.T(N, N), "%[lo]", "%[hi]", "%%rdx", "%[tp]"])
    return f'''/* r = t·2^(-64·{N}) mod m for t < m·2^(64·{N}), fully reduced. */
static inline __attribute__((always_inline)) void
cz_x86_redc{N}(uint64_t r[{N}], const uint64_t t[{2 * N}], const uint64_t *m)
{{
\tuint64_t {k.decl()}, lo, hi;
\t__asm__ volatile(
\t\t{k.body()}
\t\t: {k.outs()},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi), [tp] "+&r"(t)
\t\t: [m] "r"(m), [r] "r"(r)
\t\t: "rdx", "cc", "memory"); /* reads t, m; writes r */
}}
'''


HEAD = r'''/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_x86.h — the x86-64 Montgomery kernels (mulx/adcx/adox) and the
 * switch that picks them.  Private to the field code.
 *
 * cz_field_adx_on is set once at start-up (a constructor in zk/field/field_x86.c)
 * when the CPU has BMI2 and ADX, and cleared by cz_field_force_portable().
 * Callers test it with a well-predicted branch rather than an indirect call.
 *
 * This file is generated, all of it, by `zk/field/field_x86_gen.py --header >
 * zk/field/field_x86.h` (edit that, not this; selftests/zk_x86_gen.sh, in make
 * check, fails when they differ).
 * Algorithm: operand scanning, one row per limb b[i] of b.  Accumulator
 * t[0..N] lives in N+1 registers whose roles rotate by one each row (so the
 * division by 2^64 after a reduction is free).  Row i:
 *   t += a·b[i]      mulx gives lo/hi; lo goes into the adox (OF) carry
 *                    chain, hi into the adcx (CF) chain: two chains at once
 *   q = t[0]·(-m^-1) mod 2^64;  t += q·m   (the same two chains; t[0] -> 0)
 * Bounds: with m < 2^(64N-1), t stays < 2m after each row and the partial
 * sums fit N+1 limbs, so the last carry of each chain folds into t[N]
 * without overflow.  Last, t - m replaces t unless it borrows (cmovc), and
 * the result goes straight to r (read a and b first, so r may alias them).
 * m points to the modulus limbs followed by -m^-1 mod 2^64.
 * Cost: 2N^2 mulx and ~4N^2 adds; N = 6: ~120 cycles in a dependent chain,
 * ~100 per multiplication when independent ones overlap (the adcx/adox
 * ports, p0 and p6 on recent Intel cores, are the bound).
 *
 * For lazy reduction (Fp2 multiplication: three products, two reductions)
 * there are also the plain 2N-limb product (the same product rows, storing
 * the finished low limb after each) and the Montgomery reduction of a
 * 2N-limb t < m·R: the reduction rows on t's low half give
 * s = (t_lo + q·m)/R <= m, then s + t_hi < 2m and one subtraction.
 *
 * mont_mul_lazy6 and mont_mul_lazy4 are mont_mul6 and mont_mul4 without the final
 * subtraction (output < 2m), for zk/field/field_inline.h's cz_fp_mul_lazy and
 * cz_bn254_fp_mul_lazy: with a, b < 2m and m < R/4 the
 * result a·b/R + q·m/R < 4m·(m/R) + m < 2m, and the partial sums still fit
 * N+1 limbs (t < 3m + 2^64·3m < 2^(64(N+1))).
 */
#ifndef CZ_FIELD_X86_H
#define CZ_FIELD_X86_H

#include <stdbool.h>
#include <stdint.h>

extern bool cz_field_adx_on;
/* inv_vartime results that needed the Fermat fallback (tests expect 0). */
extern _Atomic unsigned long cz_field_inv_fallbacks;

#if defined(__x86_64__)

'''

TAIL = r'''#define CZ_X86_MUL4 cz_x86_mont_mul4
#define CZ_X86_SQR4(r, a, m) cz_x86_mont_mul4(r, a, a, m)
#define CZ_X86_MUL6 cz_x86_mont_mul6
#define CZ_X86_MUL_LAZY6 cz_x86_mont_mul_lazy6
#define CZ_X86_MUL_LAZY4 cz_x86_mont_mul_lazy4
#define CZ_X86_SQR6(r, a, m) cz_x86_mont_mul6(r, a, a, m)
#define CZ_X86_MUL_WIDE4 cz_x86_mul_wide4
#define CZ_X86_REDC4 cz_x86_redc4
#define CZ_X86_MUL_WIDE6 cz_x86_mul_wide6
#define CZ_X86_REDC6 cz_x86_redc6

#endif /* __x86_64__ */
#endif
'''

if sys.argv[1:] == ["--header"]:
    sys.stdout.write(HEAD)
    for n in (4, 6):
        print(mont_mul(n))
        print(mul_wide(n))
        print(redc(n))
    print(mont_mul_lazy(6))
    print(mont_mul_lazy(4))
    sys.stdout.write(TAIL)
    sys.exit(0)

if sys.argv[1:2] == ["--lazy"]:
    for n in sys.argv[2:]:
        print(mont_mul_lazy(int(n)))
    sys.exit(0)

for n in sys.argv[1:]:
    n = int(n)
    print(mont_mul(n))
    print(mul_wide(n))
    print(redc(n))
