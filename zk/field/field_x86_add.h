/* SPDX-License-Identifier: MIT */
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

static inline __attribute__((always_inline)) void
cz_x86_add4(uint64_t r[4], const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, t0, t1;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"addq 0(%[b]), %[r0]\n\t"
		"adcq 8(%[b]), %[r1]\n\t"
		"adcq 16(%[b]), %[r2]\n\t"
		"adcq 24(%[b]), %[r3]\n\t"
		"movq %[r0], %[t0]\n\t"
		"movq %[r1], %[t1]\n\t"
		"movq %[r2], %[a]\n\t"
		"movq %[r3], %[b]\n\t"
		"subq %[p0], %[t0]\n\t"
		"sbbq %[p1], %[t1]\n\t"
		"sbbq %[p2], %[a]\n\t"
		"sbbq %[p3], %[b]\n\t"
		"cmovaeq %[t0], %[r0]\n\t"
		"cmovaeq %[t1], %[r1]\n\t"
		"cmovaeq %[a], %[r2]\n\t"
		"cmovaeq %[b], %[r3]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [a] "+r"(a),
		  [b] "+r"(b)
		: [ma] "m"(*(const uint64_t(*)[4])a),
		  [mb] "m"(*(const uint64_t(*)[4])b),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
}

static inline __attribute__((always_inline)) void
cz_x86_dbl4(uint64_t r[4], const uint64_t *a, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, t0, t1, b;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"addq %[r0], %[r0]\n\t"
		"adcq %[r1], %[r1]\n\t"
		"adcq %[r2], %[r2]\n\t"
		"adcq %[r3], %[r3]\n\t"
		"movq %[r0], %[t0]\n\t"
		"movq %[r1], %[t1]\n\t"
		"movq %[r2], %[a]\n\t"
		"movq %[r3], %[b]\n\t"
		"subq %[p0], %[t0]\n\t"
		"sbbq %[p1], %[t1]\n\t"
		"sbbq %[p2], %[a]\n\t"
		"sbbq %[p3], %[b]\n\t"
		"cmovaeq %[t0], %[r0]\n\t"
		"cmovaeq %[t1], %[r1]\n\t"
		"cmovaeq %[a], %[r2]\n\t"
		"cmovaeq %[b], %[r3]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [a] "+r"(a),
		  [b] "=&r"(b)
		: [ma] "m"(*(const uint64_t(*)[4])a),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
}

static inline __attribute__((always_inline)) void
cz_x86_sub4(uint64_t r[4], const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, t0, t1;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"subq 0(%[b]), %[r0]\n\t"
		"sbbq 8(%[b]), %[r1]\n\t"
		"sbbq 16(%[b]), %[r2]\n\t"
		"sbbq 24(%[b]), %[r3]\n\t"
		"sbbq %[b], %[b]\n\t"
		"movq %[p0], %[t0]\n\t"
		"andq %[b], %[t0]\n\t"
		"movq %[p1], %[t1]\n\t"
		"andq %[b], %[t1]\n\t"
		"movq %[p2], %[a]\n\t"
		"andq %[b], %[a]\n\t"
		"andq %[p3], %[b]\n\t"
		"addq %[t0], %[r0]\n\t"
		"adcq %[t1], %[r1]\n\t"
		"adcq %[a], %[r2]\n\t"
		"adcq %[b], %[r3]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [a] "+r"(a),
		  [b] "+r"(b)
		: [ma] "m"(*(const uint64_t(*)[4])a),
		  [mb] "m"(*(const uint64_t(*)[4])b),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
}

static inline __attribute__((always_inline)) void
cz_x86_neg4(uint64_t r[4], const uint64_t *a, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, t;
	__asm__(
		"movq 0(%[a]), %[t]\n\t"
		"orq 8(%[a]), %[t]\n\t"
		"orq 16(%[a]), %[t]\n\t"
		"orq 24(%[a]), %[t]\n\t"
		"movq %[p0], %[r0]\n\t"
		"movq %[p1], %[r1]\n\t"
		"movq %[p2], %[r2]\n\t"
		"movq %[p3], %[r3]\n\t"
		"subq 0(%[a]), %[r0]\n\t"
		"sbbq 8(%[a]), %[r1]\n\t"
		"sbbq 16(%[a]), %[r2]\n\t"
		"sbbq 24(%[a]), %[r3]\n\t"
		"negq %[t]\n\t"
		"sbbq %[t], %[t]\n\t"
		"andq %[t], %[r0]\n\t"
		"andq %[t], %[r1]\n\t"
		"andq %[t], %[r2]\n\t"
		"andq %[t], %[r3]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [t] "=&r"(t)
		: [a] "r"(a),
		  [ma] "m"(*(const uint64_t(*)[4])a),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
}

static inline __attribute__((always_inline)) void
cz_x86_add6(uint64_t r[6], const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, r4, r5, t0, t1, t2, t3;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"movq 32(%[a]), %[r4]\n\t"
		"movq 40(%[a]), %[r5]\n\t"
		"addq 0(%[b]), %[r0]\n\t"
		"adcq 8(%[b]), %[r1]\n\t"
		"adcq 16(%[b]), %[r2]\n\t"
		"adcq 24(%[b]), %[r3]\n\t"
		"adcq 32(%[b]), %[r4]\n\t"
		"adcq 40(%[b]), %[r5]\n\t"
		"movq %[r0], %[t0]\n\t"
		"movq %[r1], %[t1]\n\t"
		"movq %[r2], %[t2]\n\t"
		"movq %[r3], %[t3]\n\t"
		"movq %[r4], %[a]\n\t"
		"movq %[r5], %[b]\n\t"
		"subq %[p0], %[t0]\n\t"
		"sbbq %[p1], %[t1]\n\t"
		"sbbq %[p2], %[t2]\n\t"
		"sbbq %[p3], %[t3]\n\t"
		"sbbq %[p4], %[a]\n\t"
		"sbbq %[p5], %[b]\n\t"
		"cmovaeq %[t0], %[r0]\n\t"
		"cmovaeq %[t1], %[r1]\n\t"
		"cmovaeq %[t2], %[r2]\n\t"
		"cmovaeq %[t3], %[r3]\n\t"
		"cmovaeq %[a], %[r4]\n\t"
		"cmovaeq %[b], %[r5]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [r4] "=&r"(r4),
		  [r5] "=&r"(r5),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [t2] "=&r"(t2),
		  [t3] "=&r"(t3),
		  [a] "+r"(a),
		  [b] "+r"(b)
		: [ma] "m"(*(const uint64_t(*)[6])a),
		  [mb] "m"(*(const uint64_t(*)[6])b),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3]),
		  [p4] "m"(m[4]),
		  [p5] "m"(m[5])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
	r[4] = r4;
	r[5] = r5;
}

static inline __attribute__((always_inline)) void
cz_x86_dbl6(uint64_t r[6], const uint64_t *a, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, r4, r5, t0, t1, t2, t3, b;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"movq 32(%[a]), %[r4]\n\t"
		"movq 40(%[a]), %[r5]\n\t"
		"addq %[r0], %[r0]\n\t"
		"adcq %[r1], %[r1]\n\t"
		"adcq %[r2], %[r2]\n\t"
		"adcq %[r3], %[r3]\n\t"
		"adcq %[r4], %[r4]\n\t"
		"adcq %[r5], %[r5]\n\t"
		"movq %[r0], %[t0]\n\t"
		"movq %[r1], %[t1]\n\t"
		"movq %[r2], %[t2]\n\t"
		"movq %[r3], %[t3]\n\t"
		"movq %[r4], %[a]\n\t"
		"movq %[r5], %[b]\n\t"
		"subq %[p0], %[t0]\n\t"
		"sbbq %[p1], %[t1]\n\t"
		"sbbq %[p2], %[t2]\n\t"
		"sbbq %[p3], %[t3]\n\t"
		"sbbq %[p4], %[a]\n\t"
		"sbbq %[p5], %[b]\n\t"
		"cmovaeq %[t0], %[r0]\n\t"
		"cmovaeq %[t1], %[r1]\n\t"
		"cmovaeq %[t2], %[r2]\n\t"
		"cmovaeq %[t3], %[r3]\n\t"
		"cmovaeq %[a], %[r4]\n\t"
		"cmovaeq %[b], %[r5]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [r4] "=&r"(r4),
		  [r5] "=&r"(r5),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [t2] "=&r"(t2),
		  [t3] "=&r"(t3),
		  [a] "+r"(a),
		  [b] "=&r"(b)
		: [ma] "m"(*(const uint64_t(*)[6])a),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3]),
		  [p4] "m"(m[4]),
		  [p5] "m"(m[5])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
	r[4] = r4;
	r[5] = r5;
}

static inline __attribute__((always_inline)) void
cz_x86_sub6(uint64_t r[6], const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, r4, r5, t0, t1, t2, t3;
	__asm__(
		"movq 0(%[a]), %[r0]\n\t"
		"movq 8(%[a]), %[r1]\n\t"
		"movq 16(%[a]), %[r2]\n\t"
		"movq 24(%[a]), %[r3]\n\t"
		"movq 32(%[a]), %[r4]\n\t"
		"movq 40(%[a]), %[r5]\n\t"
		"subq 0(%[b]), %[r0]\n\t"
		"sbbq 8(%[b]), %[r1]\n\t"
		"sbbq 16(%[b]), %[r2]\n\t"
		"sbbq 24(%[b]), %[r3]\n\t"
		"sbbq 32(%[b]), %[r4]\n\t"
		"sbbq 40(%[b]), %[r5]\n\t"
		"sbbq %[b], %[b]\n\t"
		"movq %[p0], %[t0]\n\t"
		"andq %[b], %[t0]\n\t"
		"movq %[p1], %[t1]\n\t"
		"andq %[b], %[t1]\n\t"
		"movq %[p2], %[t2]\n\t"
		"andq %[b], %[t2]\n\t"
		"movq %[p3], %[t3]\n\t"
		"andq %[b], %[t3]\n\t"
		"movq %[p4], %[a]\n\t"
		"andq %[b], %[a]\n\t"
		"andq %[p5], %[b]\n\t"
		"addq %[t0], %[r0]\n\t"
		"adcq %[t1], %[r1]\n\t"
		"adcq %[t2], %[r2]\n\t"
		"adcq %[t3], %[r3]\n\t"
		"adcq %[a], %[r4]\n\t"
		"adcq %[b], %[r5]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [r4] "=&r"(r4),
		  [r5] "=&r"(r5),
		  [t0] "=&r"(t0),
		  [t1] "=&r"(t1),
		  [t2] "=&r"(t2),
		  [t3] "=&r"(t3),
		  [a] "+r"(a),
		  [b] "+r"(b)
		: [ma] "m"(*(const uint64_t(*)[6])a),
		  [mb] "m"(*(const uint64_t(*)[6])b),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3]),
		  [p4] "m"(m[4]),
		  [p5] "m"(m[5])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
	r[4] = r4;
	r[5] = r5;
}

static inline __attribute__((always_inline)) void
cz_x86_neg6(uint64_t r[6], const uint64_t *a, const uint64_t *m)
{
	uint64_t r0, r1, r2, r3, r4, r5, t;
	__asm__(
		"movq 0(%[a]), %[t]\n\t"
		"orq 8(%[a]), %[t]\n\t"
		"orq 16(%[a]), %[t]\n\t"
		"orq 24(%[a]), %[t]\n\t"
		"orq 32(%[a]), %[t]\n\t"
		"orq 40(%[a]), %[t]\n\t"
		"movq %[p0], %[r0]\n\t"
		"movq %[p1], %[r1]\n\t"
		"movq %[p2], %[r2]\n\t"
		"movq %[p3], %[r3]\n\t"
		"movq %[p4], %[r4]\n\t"
		"movq %[p5], %[r5]\n\t"
		"subq 0(%[a]), %[r0]\n\t"
		"sbbq 8(%[a]), %[r1]\n\t"
		"sbbq 16(%[a]), %[r2]\n\t"
		"sbbq 24(%[a]), %[r3]\n\t"
		"sbbq 32(%[a]), %[r4]\n\t"
		"sbbq 40(%[a]), %[r5]\n\t"
		"negq %[t]\n\t"
		"sbbq %[t], %[t]\n\t"
		"andq %[t], %[r0]\n\t"
		"andq %[t], %[r1]\n\t"
		"andq %[t], %[r2]\n\t"
		"andq %[t], %[r3]\n\t"
		"andq %[t], %[r4]\n\t"
		"andq %[t], %[r5]\n\t"
		: [r0] "=&r"(r0),
		  [r1] "=&r"(r1),
		  [r2] "=&r"(r2),
		  [r3] "=&r"(r3),
		  [r4] "=&r"(r4),
		  [r5] "=&r"(r5),
		  [t] "=&r"(t)
		: [a] "r"(a),
		  [ma] "m"(*(const uint64_t(*)[6])a),
		  [p0] "m"(m[0]),
		  [p1] "m"(m[1]),
		  [p2] "m"(m[2]),
		  [p3] "m"(m[3]),
		  [p4] "m"(m[4]),
		  [p5] "m"(m[5])
		: "cc");
	r[0] = r0;
	r[1] = r1;
	r[2] = r2;
	r[3] = r3;
	r[4] = r4;
	r[5] = r5;
}

#define CZ_X86_ADD4 cz_x86_add4
#define CZ_X86_DBL4 cz_x86_dbl4
#define CZ_X86_SUB4 cz_x86_sub4
#define CZ_X86_NEG4 cz_x86_neg4
#define CZ_X86_ADD6 cz_x86_add6
#define CZ_X86_DBL6 cz_x86_dbl6
#define CZ_X86_SUB6 cz_x86_sub6
#define CZ_X86_NEG6 cz_x86_neg6

#endif /* __x86_64__ */
#endif
