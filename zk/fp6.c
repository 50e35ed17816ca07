/* SPDX-License-Identifier: MIT */
/*
 * zk/fp6.c — Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u.
 *
 * Karatsuba multiplication (6 Fp2 mul), Chung–Hasan SQR2 squaring (2 mul +
 * 3 sqr), and the two sparse products the Miller loop needs.  Reduction by
 * v^3 = xi is a multiplication by xi (cz_fp2_mul_nonres: Fp additions only).
 * Every function computes into temporaries first, so r may alias an input.
 */
#include "zk/fp6.h"

#include "zk/fp12.h"

const cz_fp6 cz_fp6_zero;

void cz_fp6_set_one(cz_fp6 *r)
{
	r->c0 = cz_fp2_one;
	r->c1 = cz_fp2_zero;
	r->c2 = cz_fp2_zero;
}

void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
	cz_fp2_add(&r->c0, &a->c0, &b->c0);
	cz_fp2_add(&r->c1, &a->c1, &b->c1);
	cz_fp2_add(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
	cz_fp2_sub(&r->c0, &a->c0, &b->c0);
	cz_fp2_sub(&r->c1, &a->c1, &b->c1);
	cz_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_dbl(cz_fp6 *r, const cz_fp6 *a)
{
	cz_fp2_dbl(&r->c0, &a->c0);
	cz_fp2_dbl(&r->c1, &a->c1);
	cz_fp2_dbl(&r->c2, &a->c2);
}

void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a)
{
	cz_fp2_neg(&r->c0, &a->c0);
	cz_fp2_neg(&r->c1, &a->c1);
	cz_fp2_neg(&r->c2, &a->c2);
}

/* (a0 + a1 v + a2 v^2)·v = xi·a2 + a0 v + a1 v^2 */
void cz_fp6_mul_by_v(cz_fp6 *r, const cz_fp6 *a)
{
	cz_fp2 t;

	cz_fp2_mul_nonres(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
	cz_fp2 t0, t1, t2, s, u, r0, r1, r2;

	cz_fp2_mul(&t0, &a->c0, &b->c0);
	cz_fp2_mul(&t1, &a->c1, &b->c1);
	cz_fp2_mul(&t2, &a->c2, &b->c2);

	/* r0 = t0 + xi·(a1 b2 + a2 b1) */
	cz_fp2_add(&s, &a->c1, &a->c2);
	cz_fp2_add(&u, &b->c1, &b->c2);
	cz_fp2_mul(&r0, &s, &u);
	cz_fp2_sub(&r0, &r0, &t1);
	cz_fp2_sub(&r0, &r0, &t2);
	cz_fp2_mul_nonres(&r0, &r0);
	cz_fp2_add(&r0, &r0, &t0);

	/* r1 = a0 b1 + a1 b0 + xi·t2 */
	cz_fp2_add(&s, &a->c0, &a->c1);
	cz_fp2_add(&u, &b->c0, &b->c1);
	cz_fp2_mul(&r1, &s, &u);
	cz_fp2_sub(&r1, &r1, &t0);
	cz_fp2_sub(&r1, &r1, &t1);
	cz_fp2_mul_nonres(&s, &t2);
	cz_fp2_add(&r1, &r1, &s);

	/* r2 = a0 b2 + a2 b0 + t1 */
	cz_fp2_add(&s, &a->c0, &a->c2);
	cz_fp2_add(&u, &b->c0, &b->c2);
	cz_fp2_mul(&r2, &s, &u);
	cz_fp2_sub(&r2, &r2, &t0);
	cz_fp2_sub(&r2, &r2, &t2);
	cz_fp2_add(&r2, &r2, &t1);

	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* Chung–Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2,
 * s3 = 2 a1 a2, s4 = a2^2; r0 = s0 + xi s3, r1 = s1 + xi s4,
 * r2 = s1 + s2 + s3 - s0 - s4 (= a1^2 + 2 a0 a2). */
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a)
{
	cz_fp2 s0, s1, s2, s3, s4, t;

	cz_fp2_sqr(&s0, &a->c0);
	cz_fp2_mul(&s1, &a->c0, &a->c1);
	cz_fp2_dbl(&s1, &s1);
	cz_fp2_sub(&s2, &a->c0, &a->c1);
	cz_fp2_add(&s2, &s2, &a->c2);
	cz_fp2_sqr(&s2, &s2);
	cz_fp2_mul(&s3, &a->c1, &a->c2);
	cz_fp2_dbl(&s3, &s3);
	cz_fp2_sqr(&s4, &a->c2);

	cz_fp2_add(&t, &s1, &s2);
	cz_fp2_add(&t, &t, &s3);
	cz_fp2_sub(&t, &t, &s0);
	cz_fp2_sub(&r->c2, &t, &s4);
	cz_fp2_mul_nonres(&t, &s4);
	cz_fp2_add(&r->c1, &s1, &t);
	cz_fp2_mul_nonres(&t, &s3);
	cz_fp2_add(&r->c0, &s0, &t);
}

/* a·(b0 + b1 v): r0 = a0 b0 + xi a2 b1, r1 = a0 b1 + a1 b0, r2 = a1 b1 + a2 b0. */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1)
{
	cz_fp2 t0, t1, s, u, r0, r1, r2;

	cz_fp2_mul(&t0, &a->c0, b0);
	cz_fp2_mul(&t1, &a->c1, b1);

	cz_fp2_mul(&r0, &a->c2, b1);
	cz_fp2_mul_nonres(&r0, &r0);
	cz_fp2_add(&r0, &r0, &t0);

	cz_fp2_add(&s, &a->c0, &a->c1);
	cz_fp2_add(&u, b0, b1);
	cz_fp2_mul(&r1, &s, &u);
	cz_fp2_sub(&r1, &r1, &t0);
	cz_fp2_sub(&r1, &r1, &t1);

	cz_fp2_mul(&r2, &a->c2, b0);
	cz_fp2_add(&r2, &r2, &t1);

	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* a·(b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1)
{
	cz_fp2 r0, r1, r2;

	cz_fp2_mul(&r0, &a->c2, b1);
	cz_fp2_mul_nonres(&r0, &r0);
	cz_fp2_mul(&r1, &a->c0, b1);
	cz_fp2_mul(&r2, &a->c1, b1);
	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* The adjugate: A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2
 * satisfy a·(A + B v + C v^2) = N, N = a0 A + xi (a2 B + a1 C) in Fp2. */
void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a)
{
	cz_fp2 A, B, C, t, n;

	cz_fp2_sqr(&A, &a->c0);
	cz_fp2_mul(&t, &a->c1, &a->c2);
	cz_fp2_mul_nonres(&t, &t);
	cz_fp2_sub(&A, &A, &t);

	cz_fp2_sqr(&B, &a->c2);
	cz_fp2_mul_nonres(&B, &B);
	cz_fp2_mul(&t, &a->c0, &a->c1);
	cz_fp2_sub(&B, &B, &t);

	cz_fp2_sqr(&C, &a->c1);
	cz_fp2_mul(&t, &a->c0, &a->c2);
	cz_fp2_sub(&C, &C, &t);

	cz_fp2_mul(&n, &a->c2, &B);
	cz_fp2_mul(&t, &a->c1, &C);
	cz_fp2_add(&n, &n, &t);
	cz_fp2_mul_nonres(&n, &n);
	cz_fp2_mul(&t, &a->c0, &A);
	cz_fp2_add(&n, &n, &t);

	cz_fp2_inv(&n, &n);  /* inv(0) = 0, so inv of 0 is 0 here too */
	cz_fp2_mul(&r->c0, &A, &n);
	cz_fp2_mul(&r->c1, &B, &n);
	cz_fp2_mul(&r->c2, &C, &n);
}

/* c0 + c1 v + c2 v^2 = g0 + g2 w^2 + g4 w^4 in the w view of zk/fp12.h, so
 * a^(p^k) = frob^k(c0) + frob^k(c1) gamma_k[2] v + frob^k(c2) gamma_k[4] v^2;
 * frob^k on Fp2 is conjugation for odd k.  0 < k <= 3. */
static void frob_1to3(cz_fp6 *r, const cz_fp6 *a, unsigned k)
{
	const cz_fp2 *g = cz_bls12_381_frob_coeffs(k);
	cz_fp6 t = *a;

	if (k & 1) {
		cz_fp2_conj(&t.c0, &t.c0);
		cz_fp2_conj(&t.c1, &t.c1);
		cz_fp2_conj(&t.c2, &t.c2);
	}
	r->c0 = t.c0;
	cz_fp2_mul(&r->c1, &t.c1, &g[2]);
	cz_fp2_mul(&r->c2, &t.c2, &g[4]);
}

void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned k)
{
	k %= 6;
	if (k == 0) {
		*r = *a;
	} else if (k <= 3) {
		frob_1to3(r, a, k);
	} else {
		cz_fp6 t;
		frob_1to3(&t, a, 3);
		frob_1to3(r, &t, k - 3);
	}
}

bool cz_fp6_is_zero(const cz_fp6 *a)
{
	return cz_fp2_is_zero(&a->c0) && cz_fp2_is_zero(&a->c1) && cz_fp2_is_zero(&a->c2);
}

bool cz_fp6_eq(const cz_fp6 *a, const cz_fp6 *b)
{
	return cz_fp2_eq(&a->c0, &b->c0) && cz_fp2_eq(&a->c1, &b->c1) && cz_fp2_eq(&a->c2, &b->c2);
}
