/* SPDX-License-Identifier: MIT */
/*
 * zk/fp2.c — Fp2 = Fp[u]/(u^2 + 1), built on the public Fp API.
 *
 * u^2 + 1 is irreducible because p ≡ 3 (mod 4), which also gives the cheap
 * square root below.  Multiplication is Karatsuba with lazy reduction (three
 * 2N-limb products, two reductions: ~2.5 Fp mul), squaring the
 * complex method (2 Fp mul), inversion goes through the norm a0^2 + a1^2
 * (one Fp inversion, constant time).  sqrt is variable time (public data).
 */
#include "zk/fp2.h"
#include "zk/field_inline.h"
#include "zk/bls12_381.h"

#include <string.h>

const cz_fp2 cz_fp2_zero = { { { 0 } }, { { 0 } } };
const cz_fp2 cz_fp2_one = { { CZ_BLS12_381_P_ONE }, { { 0 } } };

void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
	cz_fp_add_inl(&r->c0, &a->c0, &b->c0);
	cz_fp_add_inl(&r->c1, &a->c1, &b->c1);
}

void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
	cz_fp_sub_inl(&r->c0, &a->c0, &b->c0);
	cz_fp_sub_inl(&r->c1, &a->c1, &b->c1);
}

void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp_dbl_inl(&r->c0, &a->c0);
	cz_fp_dbl_inl(&r->c1, &a->c1);
}

void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp_neg_inl(&r->c0, &a->c0);
	cz_fp_neg_inl(&r->c1, &a->c1);
}

void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a)
{
	r->c0 = a->c0;
	cz_fp_neg_inl(&r->c1, &a->c1);
}

/* Karatsuba with lazy reduction, in zk/field_impl.h so the kernels inline:
 * three 2N-limb products, two reductions (~2.5 Fp mul). */
void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
	cz_fp_ext2_mul(&r->c0, &r->c1, &a->c0, &a->c1, &b->c0, &b->c1);
}

/* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2a0a1 u: two Fp mul */
void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp_ext2_sqr(&r->c0, &r->c1, &a->c0, &a->c1);
}

void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b)
{
	cz_fp_mul_inl(&r->c0, &a->c0, b);
	cz_fp_mul_inl(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void cz_fp2_mul_nonres(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp t;
	cz_fp_sub_inl(&t, &a->c0, &a->c1);
	cz_fp_add_inl(&r->c1, &a->c0, &a->c1);
	r->c0 = t;
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp n, t;
	cz_fp_sqr_inl(&n, &a->c0);
	cz_fp_sqr_inl(&t, &a->c1);
	cz_fp_add_inl(&n, &n, &t);
	cz_fp_inv(&n, &n);
	cz_fp_mul_inl(&r->c0, &a->c0, &n);
	cz_fp_mul_inl(&t, &a->c1, &n);
	cz_fp_neg_inl(&r->c1, &t);
}

bool cz_fp2_is_zero(const cz_fp2 *a)
{
	bool z0 = cz_fp_is_zero(&a->c0), z1 = cz_fp_is_zero(&a->c1);
	return z0 & z1; /* both evaluated: no early exit */
}

bool cz_fp2_eq(const cz_fp2 *a, const cz_fp2 *b)
{
	bool e0 = cz_fp_eq(&a->c0, &b->c0), e1 = cz_fp_eq(&a->c1, &b->c1);
	return e0 & e1;
}

void cz_fp2_frobenius(cz_fp2 *r, const cz_fp2 *a)
{
	cz_fp2_conj(r, a);
}

bool cz_fp2_lexicographically_largest(const cz_fp2 *a)
{
	bool c1z = cz_fp_is_zero(&a->c1);
	bool l1 = cz_fp_lexicographically_largest(&a->c1);
	bool l0 = cz_fp_lexicographically_largest(&a->c0);
	return l1 | (c1z & l0);
}

/* a^e over Fp2, e public, left to right. */
static void fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t elimbs)
{
	cz_fp2 acc = cz_fp2_one;
	bool started = false;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			if (started)
				cz_fp2_sqr(&acc, &acc);
			if ((e[i] >> b) & 1) {
				cz_fp2_mul(&acc, &acc, a);
				started = true;
			}
		}
	*r = acc;
}

/* e = (p - k) / 2^s, p taken from the field itself: -1 is p - 1. */
static void p_exponent(uint64_t e[CZ_FP_LIMBS], uint64_t k, unsigned s)
{
	cz_fp m1;
	cz_fp_neg_inl(&m1, &cz_fp_one);
	cz_fp_from_mont(e, &m1); /* p - 1 */
	unsigned __int128 t = (unsigned __int128)e[0] + 1 - k;
	e[0] = (uint64_t)t; /* p - k; k <= 3 and p's low limb is large: no borrow */
	for (int j = 0; j < CZ_FP_LIMBS - 1; j++)
		e[j] = (e[j] >> s) | (e[j + 1] << (64 - s));
	e[CZ_FP_LIMBS - 1] >>= s;
}

/*
 * Square root for p ≡ 3 (mod 4) (the "complex method" of Adj and
 * Rodríguez-Henríquez, Algorithm 9): a1 = a^((p-3)/4), alpha = a1^2·a,
 * x0 = a1·a.  If alpha = -1 the root is u·x0, else (1 + alpha)^((p-1)/2)·x0.
 * The candidate is squared and compared, so a non-square returns false.
 */
bool cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a)
{
	uint64_t e[CZ_FP_LIMBS];
	cz_fp2 a1, alpha, x0, x, t, m1;

	if (cz_fp2_is_zero(a)) {
		*r = cz_fp2_zero;
		return true;
	}
	p_exponent(e, 3, 2);
	fp2_pow(&a1, a, e, CZ_FP_LIMBS);
	cz_fp2_sqr(&alpha, &a1);
	cz_fp2_mul(&alpha, &alpha, a);
	cz_fp2_mul(&x0, &a1, a);
	cz_fp2_neg(&m1, &cz_fp2_one);
	if (cz_fp2_eq(&alpha, &m1)) {
		/* u·(x0_0 + x0_1 u) = -x0_1 + x0_0 u */
		cz_fp_neg_inl(&x.c0, &x0.c1);
		x.c1 = x0.c0;
	} else {
		cz_fp2_add(&t, &alpha, &cz_fp2_one);
		p_exponent(e, 1, 1);
		fp2_pow(&t, &t, e, CZ_FP_LIMBS);
		cz_fp2_mul(&x, &t, &x0);
	}
	cz_fp2_sqr(&t, &x);
	if (!cz_fp2_eq(&t, a))
		return false;
	*r = x;
	return true;
}
