/* SPDX-License-Identifier: MIT */
/*
 * selftests/zk_fp2_check.h — the Fp2 checks every curve's Fp[u]/(u^2 + 1)
 * passes, against a GMP schoolbook.  Included by selftests/zk_fp2.c
 * (BLS12-381) and zk_bn254_fp2.c after they define:
 *   T2      the Fp2 type and prefix (cz_fp2)    TB  the base field's (cz_fp)
 *   TB_LIMBS, TB_BYTES  the base field's limbs and encoded bytes
 *   P_HEX   p in hex, from the curve's specification
 *   XI_A    the tower's non-residue is xi = XI_A + u (mul_nonres)
 * checks() emits CHECKS test points; main runs it on both paths.
 */
#include "selftests/cz_test.h"

#include <gmp.h>
#include <string.h>

#define FC2_CAT2(a, b) a##_##b
#define FC2_CAT(a, b) FC2_CAT2(a, b)
#define E2F(n) FC2_CAT(T2, n)
#define BF(n) FC2_CAT(TB, n)

#define NRAND 1500
#define CHECKS 14

static mpz_t P, R, Rinv, HALF;
static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint64_t rand64(void)
{
	return ct_splitmix64(&rng);
}

/* A GMP Fp2 element. */
typedef struct { mpz_t c0, c1; } g2;

static void g2_init(g2 *a) { mpz_inits(a->c0, a->c1, NULL); }
static void g2_clear(g2 *a) { mpz_clears(a->c0, a->c1, NULL); }

/* Element <-> GMP through the Montgomery limbs only (le_mont bytes). */
static void fp_get(mpz_t z, const TB *a)
{
	uint8_t b[TB_BYTES];
	BF(to_bytes_le_mont)(b, a);
	mpz_import(z, TB_BYTES, -1, 1, 0, 0, b);
	mpz_mul(z, z, Rinv);
	mpz_mod(z, z, P);
}

static void fp_set(TB *a, const mpz_t z)
{
	uint8_t b[TB_BYTES] = { 0 };
	mpz_t t;
	mpz_init(t);
	mpz_mul(t, z, R);
	mpz_mod(t, t, P);
	mpz_export(b, NULL, -1, 1, 0, 0, t);
	if (!BF(from_bytes_le_mont)(a, b))
		abort();
	mpz_clear(t);
}

static void set2(T2 *a, const g2 *z) { fp_set(&a->c0, z->c0); fp_set(&a->c1, z->c1); }

static int eq2(const T2 *a, const g2 *z)
{
	mpz_t t;
	int ok;
	mpz_init(t);
	fp_get(t, &a->c0);
	ok = mpz_cmp(t, z->c0) == 0;
	fp_get(t, &a->c1);
	ok &= mpz_cmp(t, z->c1) == 0;
	mpz_clear(t);
	return ok;
}

static void rand_fp(mpz_t z, int i)
{
	switch (i % 9) {
	case 0: mpz_set_ui(z, 0); return;
	case 1: mpz_set_ui(z, 1); return;
	case 2: mpz_sub_ui(z, P, 1); return;
	case 3: mpz_set(z, HALF); return;
	}
	uint64_t l[TB_LIMBS];
	for (int j = 0; j < TB_LIMBS; j++)
		l[j] = rand64();
	mpz_import(z, TB_LIMBS, -1, 8, 0, 0, l);
	mpz_mod(z, z, P);
}

/* The i-th test value: edge combinations for small i, random after. */
static void value(g2 *a, int i)
{
	if (i < 81) {
		rand_fp(a->c0, i % 9);
		rand_fp(a->c1, i / 9);
	} else {
		rand_fp(a->c0, 4);
		rand_fp(a->c1, (i & 3) ? 4 : (int)(rand64() % 4));
	}
}

/* Schoolbook (a + bu)(c + du) = (ac - bd) + (ad + bc)u. */
static void g2_mul(g2 *r, const g2 *x, const g2 *y)
{
	mpz_t t0, t1, t2;
	mpz_inits(t0, t1, t2, NULL);
	mpz_mul(t0, x->c0, y->c0);
	mpz_submul(t0, x->c1, y->c1);
	mpz_mul(t1, x->c0, y->c1);
	mpz_addmul(t1, x->c1, y->c0);
	mpz_mod(r->c0, t0, P);
	mpz_mod(r->c1, t1, P);
	mpz_clears(t0, t1, t2, NULL);
}

/* a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp. */
static int g2_is_square(const g2 *x)
{
	mpz_t n;
	mpz_init(n);
	mpz_mul(n, x->c0, x->c0);
	mpz_addmul(n, x->c1, x->c1);
	mpz_mod(n, n, P);
	int sq = mpz_sgn(n) == 0 || mpz_legendre(n, P) == 1;
	mpz_clear(n);
	return sq;
}

static void checks(const char *path)
{
	g2 x, y, w, t;
	T2 a, b, r;
	TB f;
	int bad[CHECKS] = { 0 }, nsq = 0, nnon = 0;
	g2_init(&x), g2_init(&y), g2_init(&w), g2_init(&t);

	for (int i = 0; i < NRAND; i++) {
		value(&x, i);
		value(&y, i < 81 ? 80 - i : i + 7);
		set2(&a, &x);
		set2(&b, &y);

		E2F(add)(&r, &a, &b);
		mpz_add(w.c0, x.c0, y.c0), mpz_mod(w.c0, w.c0, P);
		mpz_add(w.c1, x.c1, y.c1), mpz_mod(w.c1, w.c1, P);
		bad[0] += !eq2(&r, &w);
		E2F(sub)(&r, &a, &b);
		mpz_sub(w.c0, x.c0, y.c0), mpz_mod(w.c0, w.c0, P);
		mpz_sub(w.c1, x.c1, y.c1), mpz_mod(w.c1, w.c1, P);
		bad[0] += !eq2(&r, &w);
		E2F(dbl)(&r, &a);
		mpz_mul_2exp(w.c0, x.c0, 1), mpz_mod(w.c0, w.c0, P);
		mpz_mul_2exp(w.c1, x.c1, 1), mpz_mod(w.c1, w.c1, P);
		bad[0] += !eq2(&r, &w);
		E2F(neg)(&r, &a);
		mpz_neg(w.c0, x.c0), mpz_mod(w.c0, w.c0, P);
		mpz_neg(w.c1, x.c1), mpz_mod(w.c1, w.c1, P);
		bad[1] += !eq2(&r, &w);
		E2F(conj)(&r, &a);
		mpz_set(w.c0, x.c0);
		bad[1] += !eq2(&r, &w);
		E2F(frobenius)(&r, &a);
		bad[1] += !eq2(&r, &w);

		E2F(mul)(&r, &a, &b);
		g2_mul(&w, &x, &y);
		bad[2] += !eq2(&r, &w);
		r = a;
		E2F(mul)(&r, &r, &b);
		bad[2] += !eq2(&r, &w);
		E2F(sqr)(&r, &a);
		g2_mul(&w, &x, &x);
		bad[3] += !eq2(&r, &w);
		r = a;
		E2F(sqr)(&r, &r);
		bad[3] += !eq2(&r, &w);

		E2F(mul_fp)(&r, &a, &b.c0);
		mpz_mul(w.c0, x.c0, y.c0), mpz_mod(w.c0, w.c0, P);
		mpz_mul(w.c1, x.c1, y.c0), mpz_mod(w.c1, w.c1, P);
		bad[4] += !eq2(&r, &w);
		/* xi = (XI_A + u) by schoolbook */
		mpz_set_ui(t.c0, XI_A), mpz_set_ui(t.c1, 1);
		g2_mul(&w, &x, &t);
		r = a;
		E2F(mul_nonres)(&r, &r);
		bad[5] += !eq2(&r, &w);

		/* inverse: GMP inverts the norm, schoolbook conj / norm */
		E2F(inv)(&r, &a);
		mpz_mul(t.c0, x.c0, x.c0);
		mpz_addmul(t.c0, x.c1, x.c1);
		mpz_mod(t.c0, t.c0, P);
		if (mpz_sgn(t.c0)) {
			mpz_invert(t.c0, t.c0, P);
			mpz_mul(w.c0, x.c0, t.c0), mpz_mod(w.c0, w.c0, P);
			mpz_mul(w.c1, x.c1, t.c0), mpz_neg(w.c1, w.c1), mpz_mod(w.c1, w.c1, P);
			g2_mul(&t, &w, &x);
			bad[6] += mpz_cmp_ui(t.c0, 1) || mpz_sgn(t.c1); /* oracle sanity */
		} else {
			mpz_set_ui(w.c0, 0), mpz_set_ui(w.c1, 0);
		}
		bad[6] += !eq2(&r, &w);

		/* sqrt: half the values are squares by construction */
		if (i >= 81 && (i & 1)) {
			g2_mul(&x, &x, &x);
			set2(&a, &x);
		}
		int sq = g2_is_square(&x);
		r = E2F(zero);
		bool ok = E2F(sqrt)(&r, &a);
		if (ok != sq) {
			bad[7]++;
		} else if (ok) {
			nsq++;
			fp_get(w.c0, &r.c0), fp_get(w.c1, &r.c1);
			g2_mul(&t, &w, &w);
			bad[7] += mpz_cmp(t.c0, x.c0) || mpz_cmp(t.c1, x.c1);
		} else {
			nnon++;
		}

		/* predicates */
		bad[8] += E2F(is_zero)(&a) != (!mpz_sgn(x.c0) && !mpz_sgn(x.c1));
		bad[8] += E2F(eq)(&a, &b) != (!mpz_cmp(x.c0, y.c0) && !mpz_cmp(x.c1, y.c1));
		bad[8] += !E2F(eq)(&a, &a);
		/* lexicographically largest, zcash: c1 > (p-1)/2, or c1 = 0 and c0 > (p-1)/2 */
		int big = mpz_sgn(x.c1) ? mpz_cmp(x.c1, HALF) > 0 : mpz_cmp(x.c0, HALF) > 0;
		bad[9] += E2F(lexicographically_largest)(&a) != big;
		bad[10] += BF(lexicographically_largest)(&a.c0) != (mpz_cmp(x.c0, HALF) > 0);
		(void)f;
	}
	ct_ok(!bad[0], "%s: add, sub, dbl match GMP on %d pairs (%d bad)", path, NRAND, bad[0]);
	ct_ok(!bad[1], "%s: neg, conj, frobenius (%d bad)", path, bad[1]);
	ct_ok(!bad[2], "%s: Karatsuba mul = schoolbook (a+bu)(c+du), aliasing too (%d bad)", path,
	      bad[2]);
	ct_ok(!bad[3], "%s: complex sqr = schoolbook (%d bad)", path, bad[3]);
	ct_ok(!bad[4], "%s: mul_fp (%d bad)", path, bad[4]);
	ct_ok(!bad[5], "%s: mul_nonres = times (%d + u) (%d bad)", path, XI_A, bad[5]);
	ct_ok(!bad[6], "%s: inv = conj/norm by GMP, inv(0) = 0 (%d bad)", path, bad[6]);
	ct_ok(!bad[7] && nsq > NRAND / 3 && nnon > NRAND / 10,
	      "%s: sqrt: %d roots square back, %d non-squares (norm non-residue) refused (%d bad)",
	      path, nsq, nnon, bad[7]);
	ct_ok(!bad[8], "%s: is_zero and eq (%d bad)", path, bad[8]);
	ct_ok(!bad[9], "%s: fp2 lexicographically_largest, zcash semantics (%d bad)", path, bad[9]);
	ct_ok(!bad[10], "%s: fp lexicographically_largest (%d bad)", path, bad[10]);

	/* frobenius is a^p: check by square-and-multiply in GMP on a few values */
	int badf = 0;
	for (int i = 0; i < 4; i++) {
		value(&x, 100 + i);
		set2(&a, &x);
		mpz_set_ui(w.c0, 1), mpz_set_ui(w.c1, 0);
		for (long bit = (long)mpz_sizeinbase(P, 2) - 1; bit >= 0; bit--) {
			g2_mul(&w, &w, &w);
			if (mpz_tstbit(P, (mp_bitcnt_t)bit))
				g2_mul(&w, &w, &x);
		}
		E2F(frobenius)(&r, &a);
		badf += !eq2(&r, &w);
	}
	ct_ok(!badf, "%s: frobenius(a) = a^p by GMP square-and-multiply (%d bad)", path, badf);

	/* sqrt edge: c1 = 0 with c0 a non-residue of Fp has the root sqrt(-c0)·u;
	 * -1 (the alpha = -1 branch) has the root u. */
	int bade = 0;
	for (int i = 0; i < 50; i++) {
		rand_fp(x.c0, 4);
		mpz_set_ui(x.c1, 0);
		set2(&a, &x);
		bool ok = E2F(sqrt)(&r, &a);
		fp_get(w.c0, &r.c0), fp_get(w.c1, &r.c1);
		g2_mul(&t, &w, &w);
		bade += !ok || mpz_cmp(t.c0, x.c0) || mpz_sgn(t.c1);
	}
	mpz_sub_ui(x.c0, P, 1), mpz_set_ui(x.c1, 0);
	set2(&a, &x);
	if (!E2F(sqrt)(&r, &a) || !BF(is_zero)(&r.c0)) {
		bade++;
	} else { /* the root is u or -u */
		fp_get(w.c1, &r.c1);
		mpz_sub_ui(t.c1, P, 1);
		bade += mpz_cmp_ui(w.c1, 1) != 0 && mpz_cmp(w.c1, t.c1) != 0;
	}
	ct_ok(!bade, "%s: sqrt of Fp elements (every one is a square in Fp2), sqrt(-1) = ±u (%d bad)",
	      path, bade);

	BF(from_u64)(&f, 1);
	ct_ok(E2F(is_zero)(&E2F(zero)) && BF(eq)(&E2F(one).c0, &f) &&
		      BF(is_zero)(&E2F(one).c1),
	      "%s: zero and one constants", path);
	g2_clear(&x), g2_clear(&y), g2_clear(&w), g2_clear(&t);
}

int main(void)
{
	mpz_inits(P, R, Rinv, HALF, NULL);
	mpz_set_str(P, P_HEX, 16);
	mpz_setbit(R, 64 * TB_LIMBS);
	mpz_mod(R, R, P);
	mpz_invert(Rinv, R, P);
	mpz_sub_ui(HALF, P, 1);
	mpz_fdiv_q_2exp(HALF, HALF, 1);

	ct_plan(2 * CHECKS);
	if (cz_fp_have_adx()) {
		cz_field_force_portable(false);
		checks("adx");
	} else {
		for (int i = 0; i < CHECKS; i++)
			ct_skip("CPU lacks BMI2/ADX", "adx path check %d", i + 1);
	}
	cz_field_force_portable(true);
	checks("portable");
	cz_field_force_portable(false);
	return ct_exit();
}
