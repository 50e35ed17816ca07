/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp6_tmpl_pvt.h — Fp6 = Fp2[v]/(v^3 - xi) over either curve's Fp2, written
 * once.  Private to the instance files (zk/field/fp6.c, zk/field/bn254_fp6.c), which
 * define TW_FP2, TW_FP6 (the type names, also the prefixes), TW_FP (the base
 * field's prefix), TW_FP_LIMBS and TW_FROB_COEFFS (the public name of the
 * tower's Frobenius coefficient table, defined here: Fp6's Frobenius is
 * its first user, and zk/field/fp12_tmpl_pvt.h uses it from here), then
 * include this file.  xi is the Fp2's mul_nonres (1 + u for BLS12-381,
 * 9 + u for BN254).
 *
 * Karatsuba multiplication (6 Fp2 mul), Chung–Hasan SQR2 squaring (2 mul +
 * 3 sqr), and the two sparse products the Miller loop needs.  Reduction by
 * v^3 = xi is a multiplication by xi (mul_nonres: Fp additions only).
 * Every function computes into temporaries first, so r may alias an input.
 *
 * The Frobenius coefficients gamma_k[i] = xi^(i (p^k - 1)/6) are not typed
 * in: they are derived on first use from the field itself (p - 1 is the
 * standard form of -1), so they cannot disagree with the field's Montgomery
 * representation.  gamma_1 needs one exponentiation in Fp2; then
 * gamma_2[i] = gamma_1[i]^(1 + p) = gamma_1[i]·conj(gamma_1[i]) and
 * gamma_3[i] = gamma_2[i]·gamma_1[i], because (p^k - 1)/6 =
 * (p - 1)/6 · (1 + p + ... + p^(k-1)) and gamma^p = conj(gamma).
 * (p ≡ 1 mod 6 for both curves, so (p - 1)/6 is exact.)
 */
#include <pthread.h>

#define TW_CAT2(a, b) a##_##b
#define TW_CAT(a, b) TW_CAT2(a, b)
#define S2(n) TW_CAT(TW_FP2, n)
#define S6(n) TW_CAT(TW_FP6, n)
typedef TW_FP2 s2_t;
typedef TW_FP6 s6_t;
#define SB(n) TW_CAT(TW_FP, n)
typedef TW_FP sb_t;

static s2_t tw_frob[3][6];
static pthread_once_t tw_frob_once = PTHREAD_ONCE_INIT;

static void tw_frob_init(void)
{
	uint64_t e[TW_FP_LIMBS];
	sb_t m1;
	s2_t xi, g;

	/* e = (p - 1)/6 */
	SB(neg)(&m1, &SB(one));
	SB(from_mont)(e, &m1);
	unsigned __int128 rem = 0;
	for (size_t i = TW_FP_LIMBS; i-- > 0;) {
		unsigned __int128 cur = (rem << 64) | e[i];
		e[i] = (uint64_t)(cur / 6);
		rem = cur % 6;
	}

	S2(mul_nonres)(&xi, &S2(one));
	S2(pow)(&g, &xi, e, TW_FP_LIMBS);
	tw_frob[0][0] = S2(one);
	for (int i = 1; i < 6; i++)
		S2(mul)(&tw_frob[0][i], &tw_frob[0][i - 1], &g);
	for (int i = 0; i < 6; i++) {
		s2_t c;
		S2(conj)(&c, &tw_frob[0][i]);
		S2(mul)(&tw_frob[1][i], &tw_frob[0][i], &c);
		S2(mul)(&tw_frob[2][i], &tw_frob[1][i], &tw_frob[0][i]);
	}
}

const s2_t *TW_FROB_COEFFS(unsigned k)
{
	pthread_once(&tw_frob_once, tw_frob_init);
	return tw_frob[k - 1];
}

const s6_t S6(zero);

void S6(set_one)(s6_t *r)
{
	r->c0 = S2(one);
	r->c1 = S2(zero);
	r->c2 = S2(zero);
}

void S6(add)(s6_t *r, const s6_t *a, const s6_t *b)
{
	S2(add)(&r->c0, &a->c0, &b->c0);
	S2(add)(&r->c1, &a->c1, &b->c1);
	S2(add)(&r->c2, &a->c2, &b->c2);
}

void S6(sub)(s6_t *r, const s6_t *a, const s6_t *b)
{
	S2(sub)(&r->c0, &a->c0, &b->c0);
	S2(sub)(&r->c1, &a->c1, &b->c1);
	S2(sub)(&r->c2, &a->c2, &b->c2);
}

void S6(dbl)(s6_t *r, const s6_t *a)
{
	S2(dbl)(&r->c0, &a->c0);
	S2(dbl)(&r->c1, &a->c1);
	S2(dbl)(&r->c2, &a->c2);
}

void S6(neg)(s6_t *r, const s6_t *a)
{
	S2(neg)(&r->c0, &a->c0);
	S2(neg)(&r->c1, &a->c1);
	S2(neg)(&r->c2, &a->c2);
}

/* (a0 + a1 v + a2 v^2)·v = xi·a2 + a0 v + a1 v^2 */
void S6(mul_by_v)(s6_t *r, const s6_t *a)
{
	s2_t t;

	S2(mul_nonres)(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

void S6(mul)(s6_t *r, const s6_t *a, const s6_t *b)
{
	s2_t t0, t1, t2, s, u, r0, r1, r2;

	S2(mul)(&t0, &a->c0, &b->c0);
	S2(mul)(&t1, &a->c1, &b->c1);
	S2(mul)(&t2, &a->c2, &b->c2);

	/* r0 = t0 + xi·(a1 b2 + a2 b1) */
	S2(add)(&s, &a->c1, &a->c2);
	S2(add)(&u, &b->c1, &b->c2);
	S2(mul)(&r0, &s, &u);
	S2(sub)(&r0, &r0, &t1);
	S2(sub)(&r0, &r0, &t2);
	S2(mul_nonres)(&r0, &r0);
	S2(add)(&r0, &r0, &t0);

	/* r1 = a0 b1 + a1 b0 + xi·t2 */
	S2(add)(&s, &a->c0, &a->c1);
	S2(add)(&u, &b->c0, &b->c1);
	S2(mul)(&r1, &s, &u);
	S2(sub)(&r1, &r1, &t0);
	S2(sub)(&r1, &r1, &t1);
	S2(mul_nonres)(&s, &t2);
	S2(add)(&r1, &r1, &s);

	/* r2 = a0 b2 + a2 b0 + t1 */
	S2(add)(&s, &a->c0, &a->c2);
	S2(add)(&u, &b->c0, &b->c2);
	S2(mul)(&r2, &s, &u);
	S2(sub)(&r2, &r2, &t0);
	S2(sub)(&r2, &r2, &t2);
	S2(add)(&r2, &r2, &t1);

	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* Chung–Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2,
 * s3 = 2 a1 a2, s4 = a2^2; r0 = s0 + xi s3, r1 = s1 + xi s4,
 * r2 = s1 + s2 + s3 - s0 - s4 (= a1^2 + 2 a0 a2). */
void S6(sqr)(s6_t *r, const s6_t *a)
{
	s2_t s0, s1, s2, s3, s4, t;

	S2(sqr)(&s0, &a->c0);
	S2(mul)(&s1, &a->c0, &a->c1);
	S2(dbl)(&s1, &s1);
	S2(sub)(&s2, &a->c0, &a->c1);
	S2(add)(&s2, &s2, &a->c2);
	S2(sqr)(&s2, &s2);
	S2(mul)(&s3, &a->c1, &a->c2);
	S2(dbl)(&s3, &s3);
	S2(sqr)(&s4, &a->c2);

	S2(add)(&t, &s1, &s2);
	S2(add)(&t, &t, &s3);
	S2(sub)(&t, &t, &s0);
	S2(sub)(&r->c2, &t, &s4);
	S2(mul_nonres)(&t, &s4);
	S2(add)(&r->c1, &s1, &t);
	S2(mul_nonres)(&t, &s3);
	S2(add)(&r->c0, &s0, &t);
}

/* a·(b0 + b1 v): r0 = a0 b0 + xi a2 b1, r1 = a0 b1 + a1 b0, r2 = a1 b1 + a2 b0. */
void S6(mul_by_01)(s6_t *r, const s6_t *a, const s2_t *b0, const s2_t *b1)
{
	s2_t t0, t1, s, u, r0, r1, r2;

	S2(mul)(&t0, &a->c0, b0);
	S2(mul)(&t1, &a->c1, b1);

	S2(mul)(&r0, &a->c2, b1);
	S2(mul_nonres)(&r0, &r0);
	S2(add)(&r0, &r0, &t0);

	S2(add)(&s, &a->c0, &a->c1);
	S2(add)(&u, b0, b1);
	S2(mul)(&r1, &s, &u);
	S2(sub)(&r1, &r1, &t0);
	S2(sub)(&r1, &r1, &t1);

	S2(mul)(&r2, &a->c2, b0);
	S2(add)(&r2, &r2, &t1);

	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* a·(b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void S6(mul_by_1)(s6_t *r, const s6_t *a, const s2_t *b1)
{
	s2_t r0, r1, r2;

	S2(mul)(&r0, &a->c2, b1);
	S2(mul_nonres)(&r0, &r0);
	S2(mul)(&r1, &a->c0, b1);
	S2(mul)(&r2, &a->c1, b1);
	r->c0 = r0;
	r->c1 = r1;
	r->c2 = r2;
}

/* The adjugate: A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2
 * satisfy a·(A + B v + C v^2) = N, N = a0 A + xi (a2 B + a1 C) in Fp2. */
void S6(inv)(s6_t *r, const s6_t *a)
{
	s2_t A, B, C, t, n;

	S2(sqr)(&A, &a->c0);
	S2(mul)(&t, &a->c1, &a->c2);
	S2(mul_nonres)(&t, &t);
	S2(sub)(&A, &A, &t);

	S2(sqr)(&B, &a->c2);
	S2(mul_nonres)(&B, &B);
	S2(mul)(&t, &a->c0, &a->c1);
	S2(sub)(&B, &B, &t);

	S2(sqr)(&C, &a->c1);
	S2(mul)(&t, &a->c0, &a->c2);
	S2(sub)(&C, &C, &t);

	S2(mul)(&n, &a->c2, &B);
	S2(mul)(&t, &a->c1, &C);
	S2(add)(&n, &n, &t);
	S2(mul_nonres)(&n, &n);
	S2(mul)(&t, &a->c0, &A);
	S2(add)(&n, &n, &t);

	S2(inv)(&n, &n);  /* inv(0) = 0, so inv of 0 is 0 here too */
	S2(mul)(&r->c0, &A, &n);
	S2(mul)(&r->c1, &B, &n);
	S2(mul)(&r->c2, &C, &n);
}

/* c0 + c1 v + c2 v^2 = g0 + g2 w^2 + g4 w^4 in the w view of zk/field/fp12.h, so
 * a^(p^k) = frob^k(c0) + frob^k(c1) gamma_k[2] v + frob^k(c2) gamma_k[4] v^2;
 * frob^k on Fp2 is conjugation for odd k.  0 < k <= 3. */
static void frob_1to3(s6_t *r, const s6_t *a, unsigned k)
{
	const s2_t *g = TW_FROB_COEFFS(k);
	s6_t t = *a;

	if (k & 1) {
		S2(conj)(&t.c0, &t.c0);
		S2(conj)(&t.c1, &t.c1);
		S2(conj)(&t.c2, &t.c2);
	}
	r->c0 = t.c0;
	S2(mul)(&r->c1, &t.c1, &g[2]);
	S2(mul)(&r->c2, &t.c2, &g[4]);
}

void S6(frobenius)(s6_t *r, const s6_t *a, unsigned k)
{
	k %= 6;
	if (k == 0) {
		*r = *a;
	} else if (k <= 3) {
		frob_1to3(r, a, k);
	} else {
		s6_t t;
		frob_1to3(&t, a, 3);
		frob_1to3(r, &t, k - 3);
	}
}

bool S6(is_zero)(const s6_t *a)
{
	return S2(is_zero)(&a->c0) && S2(is_zero)(&a->c1) && S2(is_zero)(&a->c2);
}

bool S6(eq)(const s6_t *a, const s6_t *b)
{
	return S2(eq)(&a->c0, &b->c0) && S2(eq)(&a->c1, &b->c1) && S2(eq)(&a->c2, &b->c2);
}

#undef S2
#undef S6
#undef SB
