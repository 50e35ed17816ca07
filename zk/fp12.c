/* SPDX-License-Identifier: MIT */
/*
 * zk/fp12.c — Fp12 = Fp6[w]/(w^2 - v), the pairing target field.
 *
 * Costs in Fp2 multiplications (M) and squarings (S): mul 18M (Karatsuba
 * over Fp6), sqr 12M (complex method), the line product mul_by_014 13M,
 * cyclotomic squaring 9S.  Inversion is one Fp2 inversion plus ~40M.
 * Every function computes into temporaries first, so r may alias an input.
 */
#include "zk/fp12.h"

const cz_fp12 cz_fp12_zero;

void cz_fp12_set_one(cz_fp12 *r)
{
	cz_fp6_set_one(&r->c0);
	r->c1 = cz_fp6_zero;
}

void cz_fp12_add(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b)
{
	cz_fp6_add(&r->c0, &a->c0, &b->c0);
	cz_fp6_add(&r->c1, &a->c1, &b->c1);
}

void cz_fp12_sub(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b)
{
	cz_fp6_sub(&r->c0, &a->c0, &b->c0);
	cz_fp6_sub(&r->c1, &a->c1, &b->c1);
}

void cz_fp12_conj(cz_fp12 *r, const cz_fp12 *a)
{
	r->c0 = a->c0;
	cz_fp6_neg(&r->c1, &a->c1);
}

/* (a0 + a1 w)(b0 + b1 w) = (t0 + v t1) + ((a0 + a1)(b0 + b1) - t0 - t1) w */
void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b)
{
	cz_fp6 t0, t1, s, u;

	cz_fp6_mul(&t0, &a->c0, &b->c0);
	cz_fp6_mul(&t1, &a->c1, &b->c1);
	cz_fp6_add(&s, &a->c0, &a->c1);
	cz_fp6_add(&u, &b->c0, &b->c1);
	cz_fp6_mul(&s, &s, &u);
	cz_fp6_sub(&s, &s, &t0);
	cz_fp6_sub(&r->c1, &s, &t1);
	cz_fp6_mul_by_v(&t1, &t1);
	cz_fp6_add(&r->c0, &t0, &t1);
}

/* (a + b w)^2 = ((a + b)(a + v b) - ab - v ab) + 2ab w */
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *x)
{
	cz_fp6 ab, s, u;

	cz_fp6_mul(&ab, &x->c0, &x->c1);
	cz_fp6_add(&s, &x->c0, &x->c1);
	cz_fp6_mul_by_v(&u, &x->c1);
	cz_fp6_add(&u, &u, &x->c0);
	cz_fp6_mul(&s, &s, &u);
	cz_fp6_sub(&s, &s, &ab);
	cz_fp6_mul_by_v(&u, &ab);
	cz_fp6_sub(&r->c0, &s, &u);
	cz_fp6_dbl(&r->c1, &ab);
}

/* a·(L0 + L1 w), L0 = l0 + l1 v, L1 = l4 v: Karatsuba with sparse factors,
 * 5M (a0 L0) + 3M (a1 L1) + 5M ((a0 + a1)(L0 + L1)). */
void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1,
			const cz_fp2 *l4)
{
	cz_fp6 t0, t1, s;
	cz_fp2 m;

	cz_fp6_mul_by_01(&t0, &a->c0, l0, l1);
	cz_fp6_mul_by_1(&t1, &a->c1, l4);
	cz_fp6_add(&s, &a->c0, &a->c1);
	cz_fp2_add(&m, l1, l4);
	cz_fp6_mul_by_01(&s, &s, l0, &m);
	cz_fp6_sub(&s, &s, &t0);
	cz_fp6_sub(&r->c1, &s, &t1);
	cz_fp6_mul_by_v(&t1, &t1);
	cz_fp6_add(&r->c0, &t0, &t1);
}

/* (a + b w)^-1 = (a - b w) / (a^2 - v b^2) */
void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *x)
{
	cz_fp6 t0, t1;

	cz_fp6_sqr(&t0, &x->c0);
	cz_fp6_sqr(&t1, &x->c1);
	cz_fp6_mul_by_v(&t1, &t1);
	cz_fp6_sub(&t0, &t0, &t1);
	cz_fp6_inv(&t0, &t0);
	cz_fp6_mul(&r->c0, &x->c0, &t0);
	cz_fp6_mul(&r->c1, &x->c1, &t0);
	cz_fp6_neg(&r->c1, &r->c1);
}

void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t elimbs)
{
	cz_fp12 base = *a, acc;

	cz_fp12_set_one(&acc);
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			cz_fp12_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				cz_fp12_mul(&acc, &acc, &base);
		}
	*r = acc;
}

/* g_i w^i -> frob^k(g_i) gamma_k[i] w^i, 0 < k <= 3. */
static void frob_1to3(cz_fp12 *r, const cz_fp12 *a, unsigned k)
{
	const cz_fp2 *g = cz_bls12_381_frob_coeffs(k);
	cz_fp6 t = a->c1;

	cz_fp6_frobenius(&r->c0, &a->c0, k);
	if (k & 1) {
		cz_fp2_conj(&t.c0, &t.c0);
		cz_fp2_conj(&t.c1, &t.c1);
		cz_fp2_conj(&t.c2, &t.c2);
	}
	cz_fp2_mul(&r->c1.c0, &t.c0, &g[1]);
	cz_fp2_mul(&r->c1.c1, &t.c1, &g[3]);
	cz_fp2_mul(&r->c1.c2, &t.c2, &g[5]);
}

void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned k)
{
	k %= 12;
	*r = *a;
	for (; k > 3; k -= 3)
		frob_1to3(r, r, 3);
	if (k)
		frob_1to3(r, r, k);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): 3S. */
static void fp4_sqr(cz_fp2 *r0, cz_fp2 *r1, const cz_fp2 *x, const cz_fp2 *y)
{
	cz_fp2 t0, t1, t2;

	cz_fp2_sqr(&t0, x);
	cz_fp2_sqr(&t1, y);
	cz_fp2_add(&t2, x, y);
	cz_fp2_sqr(&t2, &t2);
	cz_fp2_sub(&t2, &t2, &t0);
	cz_fp2_sub(r1, &t2, &t1);
	cz_fp2_mul_nonres(&t1, &t1);
	cz_fp2_add(r0, &t0, &t1);
}

/* r = 3t - 2x and r = 3t + 2x */
static void three_minus_two(cz_fp2 *r, const cz_fp2 *t, const cz_fp2 *x)
{
	cz_fp2 z;

	cz_fp2_sub(&z, t, x);
	cz_fp2_dbl(&z, &z);
	cz_fp2_add(r, &z, t);
}

static void three_plus_two(cz_fp2 *r, const cz_fp2 *t, const cz_fp2 *x)
{
	cz_fp2 z;

	cz_fp2_add(&z, t, x);
	cz_fp2_dbl(&z, &z);
	cz_fp2_add(r, &z, t);
}

/*
 * Granger–Scott: view Fp12 as Fp4[w]/(w^3 - s), s = w^3, Fp4 = Fp2[s]/(s^2 - xi),
 * f = A0 + A1 w + A2 w^2 with A0 = g0 + g3 s, A1 = g1 + g4 s, A2 = g2 + g5 s.
 * For f in the cyclotomic subgroup,
 *   f^2 = (3 A0^2 - 2 conj A0) + (3 s A2^2 + 2 conj A1) w + (3 A1^2 - 2 conj A2) w^2,
 * conj being s -> -s.  Three Fp4 squarings: 9S.
 */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a)
{
	cz_fp2 x0 = a->c0.c0, y0 = a->c1.c1; /* A0 */
	cz_fp2 x1 = a->c1.c0, y1 = a->c0.c2; /* A1 */
	cz_fp2 x2 = a->c0.c1, y2 = a->c1.c2; /* A2 */
	cz_fp2 t0, t1, u0, u1, v0, v1;

	fp4_sqr(&t0, &t1, &x0, &y0);
	fp4_sqr(&v0, &v1, &x1, &y1);
	fp4_sqr(&u0, &u1, &x2, &y2);

	three_minus_two(&r->c0.c0, &t0, &x0);
	three_plus_two(&r->c1.c1, &t1, &y0);

	cz_fp2_mul_nonres(&u1, &u1); /* s·A2^2 = xi u1 + u0 s */
	three_plus_two(&r->c1.c0, &u1, &x1);
	three_minus_two(&r->c0.c2, &u0, &y1);

	three_minus_two(&r->c0.c1, &v0, &x2);
	three_plus_two(&r->c1.c2, &v1, &y2);
}

bool cz_fp12_is_zero(const cz_fp12 *a)
{
	return cz_fp6_is_zero(&a->c0) && cz_fp6_is_zero(&a->c1);
}

bool cz_fp12_is_one(const cz_fp12 *a)
{
	cz_fp12 one;

	cz_fp12_set_one(&one);
	return cz_fp12_eq(a, &one);
}

bool cz_fp12_eq(const cz_fp12 *a, const cz_fp12 *b)
{
	return cz_fp6_eq(&a->c0, &b->c0) && cz_fp6_eq(&a->c1, &b->c1);
}
