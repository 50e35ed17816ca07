/* Description: BN254 tower (Fp6/Fp12 vs a schoolbook model, Frobenius vs GMP p^k) and pairing: ffjavascript's values, exact final exponent (GMP), bilinearity, order r, multi-pairing, infinity. */
/* SPDX-License-Identifier: MIT */
/*
 * Oracles: an Fp12 element as sum g_i w^i over Fp2 multiplied by
 * schoolbook with w^6 = xi = 9 + u (written out here); Frobenius and the
 * final exponentiation against cz_bn254_fp12_pow with exponents p^k and
 * (p^12 - 1)/r from GMP (p and r from the vectors file); the pairing
 * values e(G1, G2) and e(a·G1, b·G2) ffjavascript computed
 * (selftests/data/bn254_vectors.txt); the group laws for bilinearity
 * (scalar multiples from zk/curve/bn254_g1.c and g2.c, which
 * selftests/zk_bn254_g1.c and g2.c test against their own oracle).
 */
#include <gmp.h>
#include <string.h>

#include "selftests/bn254_vectors.h"
#include "selftests/cz_test.h"
#include "zk/curve/bn254_curve.h"
#include "zk/curve/bn254_pairing.h"

typedef cz_bn254_fp fp;
typedef cz_bn254_fp2 fp2;
typedef cz_bn254_fp12 fp12;

static mpz_t P, R;

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
	return ct_splitmix64(&rng_state);
}

static void rand_fp(fp *r)
{
	uint64_t raw[CZ_BN254_FP_LIMBS];
	do {
		for (int i = 0; i < CZ_BN254_FP_LIMBS; i++)
			raw[i] = rnd();
		raw[CZ_BN254_FP_LIMBS - 1] >>= 2; /* p < 2^254 */
	} while (!cz_bn254_fp_to_mont(r, raw));
}

static void rand_fp12(fp12 *r)
{
	fp2 *c = (fp2 *)r;
	for (int i = 0; i < 6; i++) {
		rand_fp(&c[i].c0);
		rand_fp(&c[i].c1);
	}
}

static void rand_fr(cz_bn254_fr *k)
{
	uint64_t raw[4];
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = rnd();
		raw[3] >>= 2;
	} while (!cz_bn254_fr_to_mont(k, raw));
}

/* ---- the schoolbook model: g_i w^i, w^6 = 9 + u ---- */
static fp2 *coef(fp12 *a, int i)
{
	fp2 *c = (fp2 *)a; /* memory order c0.c0 c0.c1 c0.c2 c1.c0 c1.c1 c1.c2 */
	static const int at[6] = { 0, 3, 1, 4, 2, 5 };
	return &c[at[i]];
}

static void fp2_mul_naive(fp2 *r, const fp2 *x, const fp2 *y)
{
	fp a, b, c, d;
	cz_bn254_fp_mul(&a, &x->c0, &y->c0);
	cz_bn254_fp_mul(&b, &x->c1, &y->c1);
	cz_bn254_fp_mul(&c, &x->c0, &y->c1);
	cz_bn254_fp_mul(&d, &x->c1, &y->c0);
	cz_bn254_fp_sub(&r->c0, &a, &b);
	cz_bn254_fp_add(&r->c1, &c, &d);
}

/* (x0 + x1 u)(9 + u) = (9 x0 - x1) + (x0 + 9 x1) u, 9 as a field element */
static void times_xi(fp2 *r, const fp2 *x)
{
	fp nine, a, b;
	cz_bn254_fp_from_u64(&nine, 9);
	cz_bn254_fp_mul(&a, &x->c0, &nine);
	cz_bn254_fp_sub(&a, &a, &x->c1);
	cz_bn254_fp_mul(&b, &x->c1, &nine);
	cz_bn254_fp_add(&b, &b, &x->c0);
	r->c0 = a;
	r->c1 = b;
}

static void naive_mul(fp12 *r, const fp12 *a, const fp12 *b)
{
	fp2 acc[11], t;
	fp12 aa = *a, bb = *b, out;
	for (int k = 0; k < 11; k++)
		acc[k] = cz_bn254_fp2_zero;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			fp2_mul_naive(&t, coef(&aa, i), coef(&bb, j));
			cz_bn254_fp2_add(&acc[i + j], &acc[i + j], &t);
		}
	for (int k = 10; k >= 6; k--) {
		times_xi(&t, &acc[k]);
		cz_bn254_fp2_add(&acc[k - 6], &acc[k - 6], &t);
	}
	for (int i = 0; i < 6; i++)
		*coef(&out, i) = acc[i];
	*r = out;
}

#define EXP_LIMBS 64 /* 4096 bits: enough for (p^12 - 1)/r and p^k */
static void pow_mpz(fp12 *r, const fp12 *a, const mpz_t e)
{
	uint64_t l[EXP_LIMBS] = { 0 };
	size_t n;
	mpz_export(l, &n, -1, 8, 0, 0, e);
	cz_bn254_fp12_pow(r, a, l, n);
}

static void t_tower(void)
{
	fp12 a, b, c, d, z;
	bool ok = true;
	const int N = 12;

	for (int i = 0; i < N; i++) {
		rand_fp12(&a), rand_fp12(&b);
		cz_bn254_fp12_mul(&c, &a, &b);
		naive_mul(&d, &a, &b);
		ok &= cz_bn254_fp12_eq(&c, &d);
		c = a;
		cz_bn254_fp12_mul(&c, &c, &b); /* aliased */
		ok &= cz_bn254_fp12_eq(&c, &d);
		cz_bn254_fp12_sqr(&c, &a);
		naive_mul(&d, &a, &a);
		ok &= cz_bn254_fp12_eq(&c, &d);
	}
	ct_ok(ok, "Fp12 mul (aliased too) and sqr match schoolbook over Fp2[w]/(w^6 - (9 + u)) (%d random)", N);

	ok = true;
	for (int i = 0; i < N; i++) {
		rand_fp12(&a);
		cz_bn254_fp12_inv(&b, &a);
		naive_mul(&c, &a, &b);
		ok &= cz_bn254_fp12_is_one(&c);
		/* Fp6 = the even powers of w */
		cz_bn254_fp6 x6 = a.c0, y6 = b.c0, r6;
		fp12 e0 = { x6, cz_bn254_fp6_zero }, e1 = { y6, cz_bn254_fp6_zero };
		naive_mul(&d, &e0, &e1);
		cz_bn254_fp6_mul(&r6, &x6, &y6);
		ok &= cz_bn254_fp6_eq(&r6, &d.c0);
		naive_mul(&d, &e0, &e0);
		cz_bn254_fp6_sqr(&r6, &x6);
		ok &= cz_bn254_fp6_eq(&r6, &d.c0);
		cz_bn254_fp6_inv(&r6, &x6);
		e1.c0 = r6;
		naive_mul(&d, &e0, &e1);
		ok &= cz_bn254_fp12_is_one(&d);
	}
	z = cz_bn254_fp12_zero;
	cz_bn254_fp12_inv(&c, &z);
	ok &= cz_bn254_fp12_is_zero(&c);
	ct_ok(ok, "Fp12 and Fp6 inverse, Fp6 mul and sqr match the schoolbook model; inv(0) = 0");

	/* the D-type line l0 + l3 w + l4 w^3 and the M-type l0 + l1 w^2 + l4 w^3 */
	ok = true;
	for (int i = 0; i < N; i++) {
		fp12 l = cz_bn254_fp12_zero, t;
		rand_fp12(&a), rand_fp12(&t);
		*coef(&l, 0) = *coef(&t, 0);
		*coef(&l, 1) = *coef(&t, 1);
		*coef(&l, 3) = *coef(&t, 3);
		cz_bn254_fp12_mul_by_034(&c, &a, coef(&l, 0), coef(&l, 1), coef(&l, 3));
		naive_mul(&d, &a, &l);
		ok &= cz_bn254_fp12_eq(&c, &d);
		l = cz_bn254_fp12_zero;
		*coef(&l, 0) = *coef(&t, 0);
		*coef(&l, 2) = *coef(&t, 2);
		*coef(&l, 3) = *coef(&t, 3);
		cz_bn254_fp12_mul_by_014(&c, &a, coef(&l, 0), coef(&l, 2), coef(&l, 3));
		naive_mul(&d, &a, &l);
		ok &= cz_bn254_fp12_eq(&c, &d);
	}
	ct_ok(ok, "mul_by_034 (l0 + l3 w + l4 w^3) and mul_by_014 match schoolbook");

	/* Frobenius: a^(p^k) with p^k from GMP */
	mpz_t e;
	mpz_init(e);
	ok = true;
	rand_fp12(&a);
	for (unsigned k = 1; k <= 3; k++) {
		mpz_pow_ui(e, P, k);
		pow_mpz(&d, &a, e);
		cz_bn254_fp12_frobenius(&c, &a, k);
		ok &= cz_bn254_fp12_eq(&c, &d);
		cz_bn254_fp6 f6;
		fp12 e0 = { a.c0, cz_bn254_fp6_zero };
		pow_mpz(&d, &e0, e);
		cz_bn254_fp6_frobenius(&f6, &a.c0, k);
		ok &= cz_bn254_fp6_eq(&f6, &d.c0) && cz_bn254_fp6_is_zero(&d.c1);
	}
	cz_bn254_fp12_frobenius(&c, &a, 6);
	cz_bn254_fp12_conj(&d, &a);
	ok &= cz_bn254_fp12_eq(&c, &d);
	cz_bn254_fp12_frobenius(&c, &a, 12);
	ok &= cz_bn254_fp12_eq(&c, &a);
	ct_ok(ok, "frobenius(a, k) = a^(p^k) (GMP), k = 1, 2, 3, also in Fp6; frob^6 = conj; frob^12 = id");

	/* cyclotomic squaring on a^((p^6 - 1)(p^2 + 1)) */
	ok = true;
	for (int i = 0; i < 4; i++) {
		rand_fp12(&a);
		cz_bn254_fp12_inv(&b, &a);
		cz_bn254_fp12_conj(&c, &a);
		cz_bn254_fp12_mul(&c, &c, &b);
		cz_bn254_fp12_frobenius(&b, &c, 2);
		cz_bn254_fp12_mul(&c, &c, &b);
		cz_bn254_fp12_cyclotomic_sqr(&d, &c);
		cz_bn254_fp12_sqr(&b, &c);
		ok &= cz_bn254_fp12_eq(&d, &b);
	}
	ct_ok(ok, "cyclotomic_sqr = sqr on the cyclotomic subgroup");
	mpz_clear(e);
}

static bool gt_from_vals(fp12 *r, char **v)
{
	fp *c = (fp *)r; /* c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1, snarkjs' order */
	for (int i = 0; i < 12; i++)
		if (!cz_bn254_fp_from_dec(&c[i], v[i]))
			return false;
	return true;
}

static void g1_mul(cz_bn254_g1_affine *r, const cz_bn254_g1_affine *p, const cz_bn254_fr *k)
{
	cz_bn254_g1_jac j;
	cz_bn254_g1_jac_from_affine(&j, p);
	cz_bn254_g1_mul(&j, &j, k);
	cz_bn254_g1_jac_to_affine(r, &j);
}

static void g2_mul(cz_bn254_g2_affine *r, const cz_bn254_g2_affine *q, const cz_bn254_fr *k)
{
	cz_bn254_g2_jac j;
	cz_bn254_g2_jac_from_affine(&j, q);
	cz_bn254_g2_mul(&j, &j, k);
	cz_bn254_g2_jac_to_affine(r, &j);
}

static void t_pairing(void)
{
	const cz_bn254_g1_affine *g1 = &cz_bn254_g1_generator;
	const cz_bn254_g2_affine *g2 = &cz_bn254_g2_generator;
	fp12 e, want, f, t;
	char *v[16];
	mpz_t ex;
	mpz_init(ex);

	/* ffjavascript's final exponentiation (Fuentes-Castañeda et al.'s hard
	 * part) raises to lambda·(p^12 - 1)/r, lambda = 2x(6x^2 + 3x + 1),
	 * coprime to r: its pairing is e^lambda. */
	mpz_t lam, x;
	mpz_inits(lam, x, NULL);
	mpz_set_ui(x, CZ_BN254_X);
	mpz_mul(lam, x, x), mpz_mul_ui(lam, lam, 6);
	mpz_addmul_ui(lam, x, 3), mpz_add_ui(lam, lam, 1);
	mpz_mul(lam, lam, x), mpz_mul_2exp(lam, lam, 1);
	cz_bn254_pairing(&e, g1, g2);
	bv_rewind();
	bool ok = bv_next("pairing_g1_g2", v, 16) == 12 && gt_from_vals(&want, v);
	pow_mpz(&t, &e, lam);
	ok &= cz_bn254_fp12_eq(&t, &want) && !cz_bn254_fp12_eq(&e, &want);
	ct_ok(ok, "e(G1, G2)^lambda = ffjavascript's bn128 pairing (its final exponent is lambda·(p^12-1)/r)");

	/* the final exponentiation is exactly (p^12 - 1)/r */
	cz_bn254_pairing_miller_loop(&f, g1, g2, 1);
	mpz_pow_ui(ex, P, 12);
	mpz_sub_ui(ex, ex, 1);
	mpz_divexact(ex, ex, R);
	pow_mpz(&t, &f, ex);
	cz_bn254_pairing_final_exp(&want, &f);
	ok = cz_bn254_fp12_eq(&t, &want) && cz_bn254_fp12_eq(&t, &e);
	rand_fp12(&f);
	pow_mpz(&t, &f, ex);
	cz_bn254_pairing_final_exp(&want, &f);
	ok &= cz_bn254_fp12_eq(&t, &want);
	ct_ok(ok, "final_exp(f) = f^((p^12 - 1)/r) (GMP exponent) for the Miller value and a random f");

	/* e(a·G1, b·G2) from ffjavascript, and = e(G1, G2)^(ab) */
	bv_rewind();
	cz_bn254_fr a, b, ab;
	cz_bn254_g1_affine pa;
	cz_bn254_g2_affine qb;
	ok = bv_next("pairing_ab", v, 16) == 14 && cz_bn254_fr_from_dec(&a, v[0]) &&
	     cz_bn254_fr_from_dec(&b, v[1]) && gt_from_vals(&want, v + 2);
	g1_mul(&pa, g1, &a);
	g2_mul(&qb, g2, &b);
	cz_bn254_pairing(&t, &pa, &qb);
	pow_mpz(&f, &t, lam);
	ok &= cz_bn254_fp12_eq(&f, &want);
	cz_bn254_fr_mul(&ab, &a, &b);
	uint64_t abl[4];
	cz_bn254_fr_from_mont(abl, &ab);
	cz_bn254_fp12_pow(&f, &e, abl, 4);
	ok &= cz_bn254_fp12_eq(&f, &t);
	ct_ok(ok, "e(a·G1, b·G2)^lambda = ffjavascript's, and e(a·G1, b·G2) = e(G1, G2)^(ab)");

	/* bilinearity on random scalars and points */
	ok = true;
	for (int i = 0; i < 3; i++) {
		cz_bn254_fr k, s;
		cz_bn254_g1_affine p, kp;
		cz_bn254_g2_affine q, kq;
		fp12 e1, e2, e3;
		rand_fr(&s);
		g1_mul(&p, g1, &s);
		rand_fr(&s);
		g2_mul(&q, g2, &s);
		rand_fr(&k);
		g1_mul(&kp, &p, &k);
		g2_mul(&kq, &q, &k);
		cz_bn254_pairing(&e1, &kp, &q);
		cz_bn254_pairing(&e2, &p, &kq);
		cz_bn254_pairing(&e3, &p, &q);
		uint64_t kl[4];
		cz_bn254_fr_from_mont(kl, &k);
		cz_bn254_fp12_pow(&e3, &e3, kl, 4);
		ok &= cz_bn254_fp12_eq(&e1, &e2) && cz_bn254_fp12_eq(&e1, &e3);
	}
	ct_ok(ok, "bilinear: e(kP, Q) = e(P, kQ) = e(P, Q)^k for random P, Q, k");

	/* non-degenerate, order r */
	uint64_t rl[4];
	mpz_export(rl, NULL, -1, 8, 0, 0, R);
	cz_bn254_fp12_pow(&t, &e, rl, 4);
	ct_ok(!cz_bn254_fp12_is_one(&e) && cz_bn254_fp12_is_one(&t), "e(G1, G2) != 1 and e(G1, G2)^r = 1");

	/* multi-pairing, infinity, pairing_check */
	cz_bn254_g1_affine ps[20], inf1 = { cz_bn254_fp_zero, cz_bn254_fp_zero };
	cz_bn254_g2_affine qs[20], inf2 = { cz_bn254_fp2_zero, cz_bn254_fp2_zero };
	fp12 prod, one;
	cz_bn254_fp12_set_one(&prod);
	for (int i = 0; i < 20; i++) {
		cz_bn254_fr k;
		rand_fr(&k);
		g1_mul(&ps[i], g1, &k);
		rand_fr(&k);
		g2_mul(&qs[i], g2, &k);
		if (i == 5)
			ps[i] = inf1;
		if (i == 9)
			qs[i] = inf2;
		cz_bn254_pairing(&t, &ps[i], &qs[i]);
		cz_bn254_fp12_mul(&prod, &prod, &t);
	}
	cz_bn254_multi_pairing(&t, ps, qs, 20); /* more than one chunk of 16 */
	ok = cz_bn254_fp12_eq(&t, &prod);
	cz_bn254_pairing(&t, &inf1, g2);
	ok &= cz_bn254_fp12_is_one(&t);
	cz_bn254_fp12_set_one(&one);
	cz_bn254_multi_pairing(&t, ps, qs, 0);
	ok &= cz_bn254_fp12_eq(&t, &one);
	ct_ok(ok, "multi_pairing of 20 pairs = product of pairings; infinity gives 1; n = 0 gives 1");

	cz_bn254_g1_affine pc[2] = { *g1, *g1 };
	cz_bn254_g2_affine qc[2] = { *g2, *g2 };
	cz_bn254_g1_affine_neg(&pc[1], g1);
	ok = cz_bn254_pairing_check(pc, qc, 2);
	pc[1] = *g1;
	ok &= !cz_bn254_pairing_check(pc, qc, 2);
	ct_ok(ok, "pairing_check: e(G1, G2)·e(-G1, G2) = 1, e(G1, G2)^2 != 1");
	mpz_clears(ex, lam, x, NULL);
}

int main(void)
{
	char *v[4];
	if (bv_load()) {
		ct_plan(1);
		ct_skip("no selftests/data/bn254_vectors.txt", "BN254 pairing vectors");
		return ct_exit();
	}
	mpz_inits(P, R, NULL);
	if (bv_next("p", v, 4) != 1 || mpz_set_str(P, v[0], 10) || bv_next("r", v, 4) != 1 ||
	    mpz_set_str(R, v[0], 10))
		abort();
	ct_plan(12);
	t_tower();
	t_pairing();
	mpz_clears(P, R, NULL);
	return ct_exit();
}
