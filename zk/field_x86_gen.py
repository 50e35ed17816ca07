#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# zk/field_x86_gen.py N... — prints the mulx/adcx/adox Montgomery
# multiplication kernels for the given limb counts, as pasted into
# zk/field_x86.h (the algorithm is described there).
import sys


def gen(N):
    T = lambda i, j: "%%[t%d]" % ((i + j) % (N + 1))
    L = []
    e = L.append
    for i in range(N):
        e('"movq %d(%%[b]), %%%%rdx\\n\\t"' % (8 * i))
        if i == 0:
            e('"mulxq 0(%%[a]), %s, %s\\n\\t"' % (T(0, 0), T(0, 1)))
            for j in range(1, N):
                e('"mulxq %d(%%[a]), %%[lo], %s\\n\\t"' % (8 * j, T(0, j + 1)))
                e('"%s %%[lo], %s\\n\\t"' % ("addq" if j == 1 else "adcq", T(0, j)))
            e('"adcq $0, %s\\n\\t"' % T(0, N))
        else:
            e('"xorl %k[lo], %k[lo]\\n\\t"')
            for j in range(N):
                e('"mulxq %d(%%[a]), %%[lo], %%[hi]\\n\\t"' % (8 * j))
                e('"adoxq %%[lo], %s\\n\\t"' % T(i, j))
                e('"adcxq %%[hi], %s\\n\\t"' % T(i, j + 1))
            e('"movq $0, %[lo]\\n\\t"')
            e('"adoxq %%[lo], %s\\n\\t"' % T(i, N))
        # reduction row: q = t0 * inv; t += q * m; t0 becomes 0
        e('"movq %s, %%%%rdx\\n\\t"' % T(i, 0))
        e('"imulq %d(%%[m]), %%%%rdx\\n\\t"' % (8 * N))
        e('"xorl %k[lo], %k[lo]\\n\\t"')
        for j in range(N):
            e('"mulxq %d(%%[m]), %%[lo], %%[hi]\\n\\t"' % (8 * j))
            e('"adoxq %%[lo], %s\\n\\t"' % T(i, j))
            e('"adcxq %%[hi], %s\\n\\t"' % T(i, j + 1))
        e('"movq $0, %[lo]\\n\\t"')
        e('"adoxq %%[lo], %s\\n\\t"' % T(i, N))
    # Final conditional subtraction: x = t - m; keep t if that borrowed.
    # Copies of t go to the free registers; limbs beyond them are parked in r.
    X = [T(N, j) for j in range(N)]
    free = [T(N, N), "%[lo]", "%[hi]", "%%rdx", "%[a]"]
    e('"movq %[rp], %[b]\\n\\t"')
    for j in range(N):
        if j < len(free):
            e('"movq %s, %s\\n\\t"' % (X[j], free[j]))
        else:
            e('"movq %s, %d(%%[b])\\n\\t"' % (X[j], 8 * j))
    for j in range(N):
        e('"%s %d(%%[m]), %s\\n\\t"' % ("subq" if j == 0 else "sbbq", 8 * j, X[j]))
    for j in range(N):
        src = free[j] if j < len(free) else "%d(%%[b])" % (8 * j)
        e('"cmovcq %s, %s\\n\\t"' % (src, X[j]))
    for j in range(N):
        e('"movq %s, %d(%%[b])\\n\\t"' % (X[j], 8 * j))
    outs = ", ".join('[t%d] "=&r"(t%d)' % (k, k) for k in range(N + 1))
    body = "\n\t\t".join(L)
    decl = ", ".join("t%d" % k for k in range(N + 1))
    return f'''/* r = a·b·2^(-64·{N}) mod m, fully reduced; r may alias a or b. */
static inline __attribute__((always_inline)) void
cz_x86_mont_mul{N}(uint64_t r[{N}], const uint64_t a[{N}], const uint64_t b[{N}], const uint64_t *m)
{{
\tuint64_t {decl}, lo, hi;
\t__asm__ volatile(
\t\t{body}
\t\t: {outs},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+&r"(a), [b] "+&r"(b)
\t\t: [m] "r"(m), [rp] "m"(r)
\t\t: "rdx", "cc", "memory"); /* reads a, b, m; writes r */
}}
'''


for n in sys.argv[1:]:
    print(gen(int(n)))
