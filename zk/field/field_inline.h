/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_inline.h — inlinable Fp, Fr and Fp2 arithmetic, for both curves'
 * fields (BLS12-381 cz_fp/cz_fr, BN254 cz_bn254_fp/cz_bn254_fr), for hot loops
 * (curve formulas, the MSM's batch-affine buckets, NTT butterflies).
 *
 * Why: an Fp subtraction is ~8 instructions of work; as a call it also pays
 * call/ret, the argument set-up and a store-to-load round trip through the
 * callee's frame, and the caller's values are spilled around it.  Inlined,
 * the compiler keeps pointers and temporaries in registers and overlaps the
 * carry chain with the surrounding multiplications.
 *
 * Each cz_X_op_inl computes exactly what cz_X_op (zk/field/fp.h, fr.h, fp2.h)
 * does, bit for bit; the out-of-line functions remain the API (and use the
 * same kernels).  add/sub/dbl/neg are the x86-64 kernels of
 * zk/field/field_x86_add.h (base instruction set, both paths); mul/sqr test
 * cz_field_adx_on like the library (one predicted branch) and fall back to
 * the out-of-line portable function.  Other targets call the functions.
 *
 * Lazy reduction: cz_fp_add_lazy gives a + b < 2p and cz_fp_mul_lazy a·b
 * (cz_fp_sqr_lazy a^2) < 2p WITHOUT the final subtraction (cz_bn254_fp_mul_lazy,
 * _sqr_lazy the same for BN254's Fp, p/R = 0.189), valid only as operands of
 * cz_fp_mul/sqr/mul_lazy (either path, and the _inl forms); never of
 * add/sub/eq or an encoder.  Bound: the Montgomery product of a, b < 2p is
 * a·b/R + q·p/R < 4p·(p/R) + p < 1.41p < 2p (p/R < 0.102 for BLS12-381), so
 * the kernels' single final subtraction still fully reduces, and every
 * partial sum stays below 2^(64·7).  Not offered for Fr (r/R ≈ 0.45: the
 * product of two values < 2r can reach 2.8r).
 */
#ifndef CZ_FIELD_INLINE_H
#define CZ_FIELD_INLINE_H

#include "zk/field/bls12_381.h"
#include "zk/field/bn254.h"
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fr.h"
#include "zk/field/bn254_fp2.h"
#include "zk/field/field_x86.h"
#include "zk/field/field_x86_add.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"
#include "zk/field/fr.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#if defined(__x86_64__) && defined(CZ_X86_ADD6) && defined(CZ_X86_MUL6) && \
	defined(CZ_X86_ADD4) && defined(CZ_X86_MUL4) && defined(CZ_X86_MUL_LAZY6) && \
	defined(CZ_X86_MUL_LAZY4)
#define CZ_FIELD_INLINE_X86 1

/* The modulus followed by -m^-1 mod 2^64 (the mul kernels read both). */
static const struct {
	uint64_t p[CZ_FP_LIMBS];
	uint64_t inv;
} cz_fp_inl_m = { CZ_BLS12_381_P, CZ_BLS12_381_P_INV };

static const struct {
	uint64_t p[CZ_FR_LIMBS];
	uint64_t inv;
} cz_fr_inl_m = { CZ_BLS12_381_R, CZ_BLS12_381_R_INV };

static const struct {
	uint64_t p[CZ_BN254_FP_LIMBS];
	uint64_t inv;
} cz_bn254_fp_inl_m = { CZ_BN254_P, CZ_BN254_P_INV };

static const struct {
	uint64_t p[CZ_BN254_FR_LIMBS];
	uint64_t inv;
} cz_bn254_fr_inl_m = { CZ_BN254_R, CZ_BN254_R_INV };

/* Stamps the inline set for one field: PFX, limb count N, constants M. */
#define CZ_FIELD_INLINE_DEF(PFX, T, N, M)                                            \
	static inline void PFX##_add_inl(T *r, const T *a, const T *b)                \
	{                                                                             \
		cz_x86_add##N(r->l, a->l, b->l, M.p);                                 \
	}                                                                             \
	static inline void PFX##_sub_inl(T *r, const T *a, const T *b)                \
	{                                                                             \
		cz_x86_sub##N(r->l, a->l, b->l, M.p);                                 \
	}                                                                             \
	static inline void PFX##_dbl_inl(T *r, const T *a)                            \
	{                                                                             \
		cz_x86_dbl##N(r->l, a->l, M.p);                                       \
	}                                                                             \
	static inline void PFX##_neg_inl(T *r, const T *a)                            \
	{                                                                             \
		cz_x86_neg##N(r->l, a->l, M.p);                                       \
	}                                                                             \
	static inline void PFX##_mul_inl(T *r, const T *a, const T *b)                \
	{                                                                             \
		if (__builtin_expect(cz_field_adx_on, 1))                             \
			cz_x86_mont_mul##N(r->l, a->l, b->l, M.p);                    \
		else                                                                  \
			PFX##_mul(r, a, b);                                           \
	}                                                                             \
	static inline void PFX##_sqr_inl(T *r, const T *a)                            \
	{                                                                             \
		if (__builtin_expect(cz_field_adx_on, 1))                             \
			cz_x86_mont_mul##N(r->l, a->l, a->l, M.p);                    \
		else                                                                  \
			PFX##_sqr(r, a);                                              \
	}

CZ_FIELD_INLINE_DEF(cz_fp, cz_fp, 6, cz_fp_inl_m)
CZ_FIELD_INLINE_DEF(cz_fr, cz_fr, 4, cz_fr_inl_m)
CZ_FIELD_INLINE_DEF(cz_bn254_fp, cz_bn254_fp, 4, cz_bn254_fp_inl_m)
CZ_FIELD_INLINE_DEF(cz_bn254_fr, cz_bn254_fr, 4, cz_bn254_fr_inl_m)

/* r = a·b < 2p without the final subtraction (a, b < 2p): an operand for
 * mul/sqr/mul_lazy only.  The portable path gives the reduced product,
 * which satisfies the same contract.  Saves the kernel's last sub/cmov
 * chain (~8 cycles of a ~116-cycle dependent chain) where a product only
 * feeds further products (batch-inversion chains, the MSM's slope). */
static inline void cz_fp_mul_lazy(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
	if (__builtin_expect(cz_field_adx_on, 1))
		CZ_X86_MUL_LAZY6(r->l, a->l, b->l, cz_fp_inl_m.p);
	else
		cz_fp_mul(r, a, b);
}

static inline void cz_fp_sqr_lazy(cz_fp *r, const cz_fp *a)
{
	cz_fp_mul_lazy(r, a, a);
}

/* BN254's Fp the same way: p/R = 0.189 < 1/4 for its 4 limbs, so the bound
 * above holds (a·b/R + q·p/R < 4p·0.189 + p < 1.76p < 2p). */
static inline void cz_bn254_fp_mul_lazy(cz_bn254_fp *r, const cz_bn254_fp *a, const cz_bn254_fp *b)
{
	if (__builtin_expect(cz_field_adx_on, 1))
		CZ_X86_MUL_LAZY4(r->l, a->l, b->l, cz_bn254_fp_inl_m.p);
	else
		cz_bn254_fp_mul(r, a, b);
}

static inline void cz_bn254_fp_sqr_lazy(cz_bn254_fp *r, const cz_bn254_fp *a)
{
	cz_bn254_fp_mul_lazy(r, a, a);
}

/* r = a + b < 2p, unreduced: an operand for mul/sqr only (see above). */
static inline void cz_fp_add_lazy(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
	unsigned long long s;
	unsigned char c = 0;
	for (int j = 0; j < CZ_FP_LIMBS; j++) {
		c = _addcarry_u64(c, a->l[j], b->l[j], &s);
		r->l[j] = s;
	}
}

#else /* other targets: the library's functions */

#define CZ_FIELD_INLINE_FWD(PFX, T)                                                   \
	static inline void PFX##_add_inl(T *r, const T *a, const T *b) { PFX##_add(r, a, b); } \
	static inline void PFX##_sub_inl(T *r, const T *a, const T *b) { PFX##_sub(r, a, b); } \
	static inline void PFX##_dbl_inl(T *r, const T *a) { PFX##_dbl(r, a); }           \
	static inline void PFX##_neg_inl(T *r, const T *a) { PFX##_neg(r, a); }           \
	static inline void PFX##_mul_inl(T *r, const T *a, const T *b) { PFX##_mul(r, a, b); } \
	static inline void PFX##_sqr_inl(T *r, const T *a) { PFX##_sqr(r, a); }

CZ_FIELD_INLINE_FWD(cz_fp, cz_fp)
CZ_FIELD_INLINE_FWD(cz_fr, cz_fr)
CZ_FIELD_INLINE_FWD(cz_bn254_fp, cz_bn254_fp)
CZ_FIELD_INLINE_FWD(cz_bn254_fr, cz_bn254_fr)

static inline void cz_fp_mul_lazy(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
	cz_fp_mul(r, a, b);
}

static inline void cz_fp_sqr_lazy(cz_fp *r, const cz_fp *a)
{
	cz_fp_sqr(r, a);
}

static inline void cz_bn254_fp_mul_lazy(cz_bn254_fp *r, const cz_bn254_fp *a, const cz_bn254_fp *b)
{
	cz_bn254_fp_mul(r, a, b);
}

static inline void cz_bn254_fp_sqr_lazy(cz_bn254_fp *r, const cz_bn254_fp *a)
{
	cz_bn254_fp_sqr(r, a);
}

static inline void cz_fp_add_lazy(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
	unsigned c = 0;
	for (int j = 0; j < CZ_FP_LIMBS; j++) {
		uint64_t s = a->l[j] + c;
		c = s < c;
		r->l[j] = s + b->l[j];
		c += r->l[j] < s;
	}
}

#endif

/* Fp2 = Fp[u]/(u^2 + 1): the linear operations, limb-wise, for each curve. */
#define CZ_FP2_INLINE_DEF(E, B)                                                       \
	static inline void E##_add_inl(E *r, const E *a, const E *b)                  \
	{                                                                             \
		B##_add_inl(&r->c0, &a->c0, &b->c0);                                  \
		B##_add_inl(&r->c1, &a->c1, &b->c1);                                  \
	}                                                                             \
	static inline void E##_sub_inl(E *r, const E *a, const E *b)                  \
	{                                                                             \
		B##_sub_inl(&r->c0, &a->c0, &b->c0);                                  \
		B##_sub_inl(&r->c1, &a->c1, &b->c1);                                  \
	}                                                                             \
	static inline void E##_dbl_inl(E *r, const E *a)                              \
	{                                                                             \
		B##_dbl_inl(&r->c0, &a->c0);                                          \
		B##_dbl_inl(&r->c1, &a->c1);                                          \
	}                                                                             \
	static inline void E##_neg_inl(E *r, const E *a)                              \
	{                                                                             \
		B##_neg_inl(&r->c0, &a->c0);                                          \
		B##_neg_inl(&r->c1, &a->c1);                                          \
	}

CZ_FP2_INLINE_DEF(cz_fp2, cz_fp)
CZ_FP2_INLINE_DEF(cz_bn254_fp2, cz_bn254_fp)

#endif
