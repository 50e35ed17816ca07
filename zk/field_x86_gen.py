#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# zk/field_x86_gen.py N — prints the mulx/adcx/adox Montgomery multiplication
# kernel for N limbs, as pasted into zk/field_x86.h (see the algorithm there).
# Emits the mulx/adcx/adox Montgomery multiplication for N limbs as a C inline function.
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
        # reduction row
        e('"movq %s, %%%%rdx\\n\\t"' % T(i, 0))
        e('"imulq %d(%%[m]), %%%%rdx\\n\\t"' % (8 * N))
        e('"xorl %k[lo], %k[lo]\\n\\t"')
        for j in range(N):
            e('"mulxq %d(%%[m]), %%[lo], %%[hi]\\n\\t"' % (8 * j))
            e('"adoxq %%[lo], %s\\n\\t"' % T(i, j))
            e('"adcxq %%[hi], %s\\n\\t"' % T(i, j + 1))
        e('"movq $0, %[lo]\\n\\t"')
        e('"adoxq %%[lo], %s\\n\\t"' % T(i, N))
    outs = ", ".join('[t%d] "=&r"(t%d)' % (k, k) for k in range(N + 1))
    body = "\n\t\t".join(L)
    res = "\n\t".join("r[%d] = t%d;" % (j, (N + j) % (N + 1)) for j in range(N))
    decl = ", ".join("t%d" % k for k in range(N + 1))
    return f'''static inline void cz_x86_mont_mul{N}(uint64_t r[{N}], const uint64_t a[{N}],
\t\t\t\t      const uint64_t b[{N}], const uint64_t *m)
{{
\tuint64_t {decl}, lo, hi;
\t__asm__(
\t\t{body}
\t\t: {outs},
\t\t  [lo] "=&r"(lo), [hi] "=&r"(hi)
\t\t: [a] "r"(a), [b] "r"(b), [m] "r"(m), "m"(*(const uint64_t(*)[{N}])a),
\t\t  "m"(*(const uint64_t(*)[{N}])b), "m"(*(const uint64_t(*)[{N + 1}])m)
\t\t: "rdx", "cc");
\t{res}
}}
'''
print(gen(int(sys.argv[1])))
