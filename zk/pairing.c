/* SPDX-License-Identifier: MIT */
/*
 * zk/pairing.c — the optimal ate pairing of BLS12 curves (constants from
 * zk/bls12_381_pairing.c).
 *
 * Miller loop.  f_{|x|,Q}(P) by double-and-add over the bits of |x|, T kept
 * in homogeneous projective coordinates on the twist E': y^2 = x^3 + b',
 * b' = 4 xi (no inversion in the loop).  Untwisting (x', y') ->
 * (x' / w^2, y' / w^3) and scaling the line by w^3 and by an Fp2 factor
 * (both die in the final exponentiation, which kills every element of Fp6)
 * leaves a line l0 + l1 w^2 + l4 w^3, multiplied in with cz_fp12_mul_by_014:
 *   tangent at T:   l0 = Y^2 - 3b' Z^2,  l1 = 3 X^2 · (-xP),  l4 = 2 Y Z · yP
 *   chord T, Q:     l0 = θ xQ - λ yQ,    l1 = θ · (-xP),      l4 = λ · yP
 *                   with θ = Y - yQ Z, λ = X - xQ Z.
 * The point update formulas are those of Costello–Lange–Naehrig (doubling
 * scaled by 4 to drop the halvings).  Since x < 0, f is conjugated at the
 * end (f^(p^6) = f^-1 up to the final exponentiation).  n pairs share one
 * f and so one squaring per bit; pairs with an infinity are skipped.
 * Cost per bit: one Fp12 squaring (12M) + per pair 3M+6S (doubling) and 13M
 * (line product); 63 bits, 5 additions (11M+2S, 13M) per pair.
 *
 * Final exponentiation by (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) · d,
 * d = (p^4 - p^2 + 1)/r.
 * Easy part: t = conj(f)/f, then t = t^(p^2) · t: t is then in the
 * cyclotomic subgroup, where inversion is conjugation and squaring is
 * Granger–Scott (cz_fp12_cyclotomic_sqr).
 * Hard part: with m = (x - 1)^2/3 (an integer for BLS12: 3 | x - 1),
 *   3d = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3   (Hayashida–Hayasaka–Teruya),
 * so exactly
 *   d = m x (x^2 - 1) + 1 + m (x^2 - 1) p + m x p^2 + m p^3:
 *   a = t^m, b = a^x, u = b^x / a = a^(x^2 - 1), v = u^x,
 *   t^d = v · t · u^p · b^(p^2) · a^(p^3).
 * (Many libraries skip the division by 3 and return e^3; we do not, at the
 * price of a 126-bit exponentiation by m instead of two by x - 1.)
 * Cost: 5 · 63 cyclotomic squarings, ~24 + 4 (window) + 15 + 8 Fp12 mul,
 * one Fp12 inversion.  selftests/zk_pairing.c compares the result with
 * a generic f^((p^12 - 1)/r) computed from GMP's exponent.
 *
 * Measured (CPU time, shared 2-core box, fp_mul ≈ 97 ns): Miller loop 1.0 ms,
 * final exponentiation 1.5 ms, 4-pair multi-pairing 4.4 ms (1.75x one).
 * Karabina's compressed squaring was considered for the runs of zeros in
 * |x| and rejected: each decompression needs an Fp inversion (~20-50 us),
 * which eats the ~1 us saved per squaring over runs of 9, 32 and 16.
 */
#include "zk/pairing.h"

#define MAX_PAIRS 16 /* pairs per shared Miller loop; more are done in chunks */

struct pair_state {
	cz_fp2 x, y, z;        /* T, projective on the twist */
	cz_fp mxp, yp;         /* -xP, yP */
	const cz_g2_affine *q; /* Q, affine */
};

static bool g1_inf(const cz_g1_affine *p)
{
	return cz_fp_is_zero(&p->x) && cz_fp_is_zero(&p->y);
}

static bool g2_inf(const cz_g2_affine *q)
{
	return cz_fp2_is_zero(&q->x) && cz_fp2_is_zero(&q->y);
}

/* f *= tangent at T evaluated at P; T = 2T. */
static void dbl_step(cz_fp12 *f, struct pair_state *s)
{
	cz_fp2 B, C, E, F, J, H, t, l0, l1, l4;

	cz_fp2_sqr(&B, &s->y);
	cz_fp2_sqr(&C, &s->z);
	cz_fp2_sqr(&J, &s->x);
	cz_fp2_add(&H, &s->y, &s->z);
	cz_fp2_sqr(&H, &H);
	cz_fp2_sub(&H, &H, &B);
	cz_fp2_sub(&H, &H, &C);              /* 2YZ */
	cz_fp2_mul_nonres(&E, &C);           /* E = 3b' Z^2 = 12 xi Z^2 */
	cz_fp2_add(&t, &E, &E);
	cz_fp2_add(&E, &t, &E);
	cz_fp2_dbl(&E, &E);
	cz_fp2_dbl(&E, &E);
	cz_fp2_add(&F, &E, &E);
	cz_fp2_add(&F, &F, &E);              /* F = 3E */

	cz_fp2_sub(&l0, &B, &E);
	cz_fp2_add(&l1, &J, &J);
	cz_fp2_add(&l1, &l1, &J);
	cz_fp2_mul_fp(&l1, &l1, &s->mxp);
	cz_fp2_mul_fp(&l4, &H, &s->yp);

	/* X3 = 2XY (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H */
	cz_fp2_mul(&t, &s->x, &s->y);
	cz_fp2_dbl(&t, &t);
	cz_fp2_sub(&s->x, &B, &F);
	cz_fp2_mul(&s->x, &s->x, &t);
	cz_fp2_sqr(&E, &E);
	cz_fp2_add(&t, &E, &E);
	cz_fp2_add(&E, &t, &E);
	cz_fp2_dbl(&E, &E);
	cz_fp2_dbl(&E, &E);                  /* 12 E^2 */
	cz_fp2_add(&t, &B, &F);
	cz_fp2_sqr(&t, &t);
	cz_fp2_sub(&s->y, &t, &E);
	cz_fp2_mul(&s->z, &B, &H);
	cz_fp2_dbl(&s->z, &s->z);
	cz_fp2_dbl(&s->z, &s->z);

	cz_fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* f *= chord through T and Q evaluated at P; T = T + Q (T ≠ ±Q: T = kQ,
 * 1 < k < |x| < r). */
static void add_step(cz_fp12 *f, struct pair_state *s)
{
	const cz_g2_affine *q = s->q;
	cz_fp2 th, la, C, D, E, F, G, H, t, l0, l1, l4;

	cz_fp2_mul(&th, &q->y, &s->z);
	cz_fp2_sub(&th, &s->y, &th);
	cz_fp2_mul(&la, &q->x, &s->z);
	cz_fp2_sub(&la, &s->x, &la);

	cz_fp2_mul(&l0, &th, &q->x);
	cz_fp2_mul(&t, &la, &q->y);
	cz_fp2_sub(&l0, &l0, &t);
	cz_fp2_mul_fp(&l1, &th, &s->mxp);
	cz_fp2_mul_fp(&l4, &la, &s->yp);

	/* X3 = λH, Y3 = θ(G - H) - Y E, Z3 = Z E with C = θ^2, D = λ^2,
	 * E = λ^3, F = Z C, G = X D, H = E + F - 2G */
	cz_fp2_sqr(&C, &th);
	cz_fp2_sqr(&D, &la);
	cz_fp2_mul(&E, &la, &D);
	cz_fp2_mul(&F, &s->z, &C);
	cz_fp2_mul(&G, &s->x, &D);
	cz_fp2_add(&H, &E, &F);
	cz_fp2_sub(&H, &H, &G);
	cz_fp2_sub(&H, &H, &G);
	cz_fp2_mul(&s->x, &la, &H);
	cz_fp2_sub(&t, &G, &H);
	cz_fp2_mul(&t, &t, &th);
	cz_fp2_mul(&s->y, &s->y, &E);
	cz_fp2_sub(&s->y, &t, &s->y);
	cz_fp2_mul(&s->z, &s->z, &E);

	cz_fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* f = prod f_{|x|,Q_i}(P_i) over at most MAX_PAIRS pairs, conjugated when x < 0. */
static void miller_chunk(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n)
{
	struct pair_state st[MAX_PAIRS];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (g1_inf(&p[i]) || g2_inf(&q[i]))
			continue;
		st[m].x = q[i].x;
		st[m].y = q[i].y;
		st[m].z = cz_fp2_one;
		cz_fp_neg(&st[m].mxp, &p[i].x);
		st[m].yp = p[i].y;
		st[m].q = &q[i];
		m++;
	}
	cz_fp12_set_one(f);
	if (m == 0)
		return;

	const uint64_t x = cz_bls12_381_x_abs;
	int top = 63 - __builtin_clzll(x);
	for (int b = top - 1; b >= 0; b--) {
		if (b != top - 1)
			cz_fp12_sqr(f, f); /* f = 1 before the first step */
		for (size_t i = 0; i < m; i++)
			dbl_step(f, &st[i]);
		if ((x >> b) & 1)
			for (size_t i = 0; i < m; i++)
				add_step(f, &st[i]);
	}
	if (cz_bls12_381_x_is_neg)
		cz_fp12_conj(f, f);
}

void cz_pairing_miller_loop(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n)
{
	size_t k = n < MAX_PAIRS ? n : MAX_PAIRS;

	miller_chunk(f, p, q, k);
	for (size_t i = k; i < n; i += MAX_PAIRS) {
		cz_fp12 g;
		k = n - i < MAX_PAIRS ? n - i : MAX_PAIRS;
		miller_chunk(&g, p + i, q + i, k);
		cz_fp12_mul(f, f, &g);
	}
}

/* r = a^|x| for a in the cyclotomic subgroup (|x| sparse: plain binary). */
static void cyc_pow_x_abs(cz_fp12 *r, const cz_fp12 *a)
{
	const uint64_t x = cz_bls12_381_x_abs;
	cz_fp12 acc = *a;

	for (int b = 62 - __builtin_clzll(x); b >= 0; b--) {
		cz_fp12_cyclotomic_sqr(&acc, &acc);
		if ((x >> b) & 1)
			cz_fp12_mul(&acc, &acc, a);
	}
	*r = acc;
}

/* r = a^x (x signed) for a in the cyclotomic subgroup. */
static void cyc_pow_x(cz_fp12 *r, const cz_fp12 *a)
{
	cyc_pow_x_abs(r, a);
	if (cz_bls12_381_x_is_neg)
		cz_fp12_conj(r, r);
}

/* r = a^m, m = (x - 1)^2/3 (126 bits), for a in the cyclotomic subgroup:
 * width-4 NAF (digits odd in [-7, 7], inverses by conjugation), ~24 mul. */
static void cyc_pow_m(cz_fp12 *r, const cz_fp12 *a)
{
	/* (x - 1)^2 = (|x| + 1)^2 for x < 0, (|x| - 1)^2 for x > 0 */
	unsigned __int128 xm1 = cz_bls12_381_x_is_neg ? (unsigned __int128)cz_bls12_381_x_abs + 1
						       : (unsigned __int128)cz_bls12_381_x_abs - 1;
	unsigned __int128 k = xm1 * xm1 / 3;
	int8_t d[130];
	int n = 0;

	while (k) {
		int v = 0;
		if (k & 1) {
			v = (int)(k & 15);
			if (v >= 8)
				v -= 16;
			k -= (unsigned __int128)(__int128)v; /* v < 0 adds |v| */
		}
		d[n++] = (int8_t)v;
		k >>= 1;
	}

	cz_fp12 tab[4], a2; /* a, a^3, a^5, a^7 */
	tab[0] = *a;
	cz_fp12_cyclotomic_sqr(&a2, a);
	for (int i = 1; i < 4; i++)
		cz_fp12_mul(&tab[i], &tab[i - 1], &a2);

	cz_fp12 acc;
	cz_fp12_set_one(&acc);
	for (int i = n - 1; i >= 0; i--) {
		if (i != n - 1)
			cz_fp12_cyclotomic_sqr(&acc, &acc);
		if (d[i] > 0) {
			cz_fp12_mul(&acc, &acc, &tab[d[i] >> 1]);
		} else if (d[i] < 0) {
			cz_fp12 c;
			cz_fp12_conj(&c, &tab[(-d[i]) >> 1]);
			cz_fp12_mul(&acc, &acc, &c);
		}
	}
	*r = acc;
}

void cz_pairing_final_exp(cz_fp12 *r, const cz_fp12 *f)
{
	cz_fp12 t, s, a, b, u, v;

	/* easy part: t = f^((p^6 - 1)(p^2 + 1)) */
	cz_fp12_inv(&s, f);
	cz_fp12_conj(&t, f);
	cz_fp12_mul(&t, &t, &s);
	cz_fp12_frobenius(&s, &t, 2);
	cz_fp12_mul(&t, &t, &s);

	/* hard part: t^d, d = m x (x^2 - 1) + 1 + m (x^2 - 1) p + m x p^2 + m p^3 */
	cyc_pow_m(&a, &t);           /* a = t^m */
	cyc_pow_x(&b, &a);           /* b = a^x */
	cyc_pow_x(&u, &b);           /* a^(x^2) */
	cz_fp12_conj(&s, &a);
	cz_fp12_mul(&u, &u, &s);     /* u = a^(x^2 - 1) */
	cyc_pow_x(&v, &u);           /* v = a^(x (x^2 - 1)) */

	cz_fp12_mul(&v, &v, &t);
	cz_fp12_frobenius(&s, &u, 1);
	cz_fp12_mul(&v, &v, &s);
	cz_fp12_frobenius(&s, &b, 2);
	cz_fp12_mul(&v, &v, &s);
	cz_fp12_frobenius(&s, &a, 3);
	cz_fp12_mul(r, &v, &s);
}

void cz_multi_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q, size_t n)
{
	cz_fp12 f;

	cz_pairing_miller_loop(&f, p, q, n);
	cz_pairing_final_exp(r, &f);
}

void cz_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q)
{
	cz_multi_pairing(r, p, q, 1);
}

bool cz_pairing_check(const cz_g1_affine *p, const cz_g2_affine *q, size_t n)
{
	cz_fp12 r;

	cz_multi_pairing(&r, p, q, n);
	return cz_fp12_is_one(&r);
}
