/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp2_tmpl_pvt.h — Fp2 = Fp[u]/(u^2 + 1) over any of the prime fields,
 * written once.  Private to the instance files (zk/field/fp2.c for BLS12-381,
 * zk/field/bn254_fp2.c for BN254); zk/field/field_decl_tmpl_pvt.h's CZ_FP2_DECLARE declares it.
 *
 * u^2 + 1 is irreducible because p ≡ 3 (mod 4) (true of both curves), which
 * also gives the cheap square root below.  Multiplication is Karatsuba with
 * lazy reduction (three 2N-limb products, two reductions: ~2.5 Fp mul, in
 * zk/field/field_tmpl_pvt.h's ext2_mul so the kernels inline), squaring the complex
 * method (2 Fp mul), inversion goes through the norm a0^2 + a1^2 (one Fp
 * inversion, constant time).  sqrt is variable time (public data).
 *
 * The instance file defines, then includes this file:
 *   E2_PFX  the public prefix and element type (cz_fp2), c0 + c1·u
 *   E2_B    the base field's prefix and type (cz_fp); its _inl forms
 *           (zk/field/field_inline.h) must exist
 *   E2_N    the base field's limb count
 *   E2_ONE  the base field's one (R mod p), limbs
 *   E2_XI_A the sextic non-residue xi = E2_XI_A + u of the curve's tower
 *           (1 for BLS12-381, 9 for BN254): mul_nonres multiplies by it
 */
#include <string.h>

#define E2_CAT2(a, b) a##_##b
#define E2_CAT(a, b) E2_CAT2(a, b)
#define E(n) E2_CAT(E2_PFX, n)
#define B(n) E2_CAT(E2_B, n)
typedef E2_PFX e2_t;
typedef E2_B e2_b;

const e2_t E(zero) = { { { 0 } }, { { 0 } } };
const e2_t E(one) = { { E2_ONE }, { { 0 } } };

void E(add)(e2_t *r, const e2_t *a, const e2_t *b)
{
	B(add_inl)(&r->c0, &a->c0, &b->c0);
	B(add_inl)(&r->c1, &a->c1, &b->c1);
}

void E(sub)(e2_t *r, const e2_t *a, const e2_t *b)
{
	B(sub_inl)(&r->c0, &a->c0, &b->c0);
	B(sub_inl)(&r->c1, &a->c1, &b->c1);
}

void E(dbl)(e2_t *r, const e2_t *a)
{
	B(dbl_inl)(&r->c0, &a->c0);
	B(dbl_inl)(&r->c1, &a->c1);
}

void E(neg)(e2_t *r, const e2_t *a)
{
	B(neg_inl)(&r->c0, &a->c0);
	B(neg_inl)(&r->c1, &a->c1);
}

void E(conj)(e2_t *r, const e2_t *a)
{
	r->c0 = a->c0;
	B(neg_inl)(&r->c1, &a->c1);
}

void E(mul)(e2_t *r, const e2_t *a, const e2_t *b)
{
	B(ext2_mul)(&r->c0, &r->c1, &a->c0, &a->c1, &b->c0, &b->c1);
}

/* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2a0a1 u: two Fp mul */
void E(sqr)(e2_t *r, const e2_t *a)
{
	B(ext2_sqr)(&r->c0, &r->c1, &a->c0, &a->c1);
}

void E(mul_fp)(e2_t *r, const e2_t *a, const e2_b *b)
{
	B(mul_inl)(&r->c0, &a->c0, b);
	B(mul_inl)(&r->c1, &a->c1, b);
}

/* r = k·a for the small constant k by doublings and additions (k is a
 * compile-time constant: the loop unrolls to a few add/dbl). */
static inline void e2_mul_small(e2_b *r, const e2_b *a, unsigned k)
{
	e2_b acc = *a;
	int top = 31 - __builtin_clz(k);
	for (int i = top - 1; i >= 0; i--) {
		B(dbl_inl)(&acc, &acc);
		if ((k >> i) & 1)
			B(add_inl)(&acc, &acc, a);
	}
	*r = acc;
}

/* (a0 + a1 u)(c + u) = (c·a0 - a1) + (a0 + c·a1) u, c = E2_XI_A */
void E(mul_nonres)(e2_t *r, const e2_t *a)
{
	e2_b t0, t1;
	if (E2_XI_A == 1) {
		t0 = a->c0;
		t1 = a->c1;
	} else {
		e2_mul_small(&t0, &a->c0, E2_XI_A);
		e2_mul_small(&t1, &a->c1, E2_XI_A);
	}
	B(sub_inl)(&t0, &t0, &a->c1);
	B(add_inl)(&r->c1, &a->c0, &t1);
	r->c0 = t0;
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
void E(inv)(e2_t *r, const e2_t *a)
{
	e2_b n, t;
	B(sqr_inl)(&n, &a->c0);
	B(sqr_inl)(&t, &a->c1);
	B(add_inl)(&n, &n, &t);
	B(inv)(&n, &n);
	B(mul_inl)(&r->c0, &a->c0, &n);
	B(mul_inl)(&t, &a->c1, &n);
	B(neg_inl)(&r->c1, &t);
}

bool E(is_zero)(const e2_t *a)
{
	bool z0 = B(is_zero)(&a->c0), z1 = B(is_zero)(&a->c1);
	return z0 & z1; /* both evaluated: no early exit */
}

bool E(eq)(const e2_t *a, const e2_t *b)
{
	bool e0 = B(eq)(&a->c0, &b->c0), e1 = B(eq)(&a->c1, &b->c1);
	return e0 & e1;
}

void E(frobenius)(e2_t *r, const e2_t *a)
{
	E(conj)(r, a);
}

bool E(lexicographically_largest)(const e2_t *a)
{
	bool c1z = B(is_zero)(&a->c1);
	bool l1 = B(lexicographically_largest)(&a->c1);
	bool l0 = B(lexicographically_largest)(&a->c0);
	return l1 | (c1z & l0);
}

/* a^e over Fp2, e public, left to right. */
void E(pow)(e2_t *r, const e2_t *a, const uint64_t *e, size_t elimbs)
{
	e2_t acc = E(one);
	bool started = false;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			if (started)
				E(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1) {
				E(mul)(&acc, &acc, a);
				started = true;
			}
		}
	*r = acc;
}

/* e = (p - k) / 2^s, p taken from the field itself: -1 is p - 1. */
static void e2_p_exponent(uint64_t e[E2_N], uint64_t k, unsigned s)
{
	e2_b m1;
	B(neg_inl)(&m1, &B(one));
	B(from_mont)(e, &m1); /* p - 1 */
	unsigned __int128 t = (unsigned __int128)e[0] + 1 - k;
	e[0] = (uint64_t)t; /* p - k; k <= 3 and p's low limb is large: no borrow */
	for (int j = 0; j < E2_N - 1; j++)
		e[j] = (e[j] >> s) | (e[j + 1] << (64 - s));
	e[E2_N - 1] >>= s;
}

/*
 * Square root for p ≡ 3 (mod 4) (the "complex method" of Adj and
 * Rodríguez-Henríquez, Algorithm 9): a1 = a^((p-3)/4), alpha = a1^2·a,
 * x0 = a1·a.  If alpha = -1 the root is u·x0, else (1 + alpha)^((p-1)/2)·x0.
 * The candidate is squared and compared, so a non-square returns false.
 */
bool E(sqrt)(e2_t *r, const e2_t *a)
{
	uint64_t e[E2_N];
	e2_t a1, alpha, x0, x, t, m1;

	if (E(is_zero)(a)) {
		*r = E(zero);
		return true;
	}
	e2_p_exponent(e, 3, 2);
	E(pow)(&a1, a, e, E2_N);
	E(sqr)(&alpha, &a1);
	E(mul)(&alpha, &alpha, a);
	E(mul)(&x0, &a1, a);
	E(neg)(&m1, &E(one));
	if (E(eq)(&alpha, &m1)) {
		/* u·(x0_0 + x0_1 u) = -x0_1 + x0_0 u */
		B(neg_inl)(&x.c0, &x0.c1);
		x.c1 = x0.c0;
	} else {
		E(add)(&t, &alpha, &E(one));
		e2_p_exponent(e, 1, 1);
		E(pow)(&t, &t, e, E2_N);
		E(mul)(&x, &t, &x0);
	}
	E(sqr)(&t, &x);
	if (!E(eq)(&t, a))
		return false;
	*r = x;
	return true;
}

#undef E
#undef B
