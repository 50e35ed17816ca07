/* Description: BLS12-381 pairing: bilinearity, non-degeneracy, order r, exact final exponent (GMP), multi-pairing, infinity, pairing_check */
/*
 * Oracles: the group laws (scalar multiples made here with a small affine
 * double-and-add, independent of zk/curve/g1.c and zk/curve/g2.c), the exponent
 * (p^12 - 1)/r computed with GMP from the curve parameter x and applied with
 * the generic cz_fp12_pow, and products of single pairings.
 */
#include <gmp.h>
#include <string.h>

#include "selftests/cz_test.h"
#include "zk/curve/pairing.h"
#include "lib/clock.h"

static mpz_t P, R, X;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	return ct_splitmix64(&rng_state);
}

static void fp_hex(cz_fp *r, const char *hex)
{
	uint64_t raw[CZ_FP_LIMBS] = { 0 };
	mpz_t z;
	mpz_init_set_str(z, hex, 16);
	mpz_export(raw, NULL, -1, 8, 0, 0, z);
	mpz_clear(z);
	if (!cz_fp_to_mont(r, raw))
		abort();
}

/* ---- test-local affine arithmetic: inf flag + coordinates ---- */
typedef struct { cz_fp x, y; bool inf; } p1;
typedef struct { cz_fp2 x, y; bool inf; } p2;

static void p1_add(p1 *r, const p1 *a, const p1 *b)
{
	cz_fp l, t, x3;
	if (a->inf) { *r = *b; return; }
	if (b->inf) { *r = *a; return; }
	if (cz_fp_eq(&a->x, &b->x)) {
		cz_fp_add(&t, &a->y, &b->y);
		if (cz_fp_is_zero(&t)) { r->inf = true; return; }
		cz_fp_sqr(&l, &a->x);             /* 3x^2 / 2y */
		cz_fp_add(&t, &l, &l);
		cz_fp_add(&l, &t, &l);
		cz_fp_add(&t, &a->y, &a->y);
	} else {
		cz_fp_sub(&l, &b->y, &a->y);
		cz_fp_sub(&t, &b->x, &a->x);
	}
	cz_fp_inv(&t, &t);
	cz_fp_mul(&l, &l, &t);
	cz_fp_sqr(&x3, &l);
	cz_fp_sub(&x3, &x3, &a->x);
	cz_fp_sub(&x3, &x3, &b->x);
	cz_fp_sub(&t, &a->x, &x3);
	cz_fp_mul(&t, &t, &l);
	cz_fp_sub(&r->y, &t, &a->y);
	r->x = x3;
	r->inf = false;
}

static void p2_add(p2 *r, const p2 *a, const p2 *b)
{
	cz_fp2 l, t, x3;
	if (a->inf) { *r = *b; return; }
	if (b->inf) { *r = *a; return; }
	if (cz_fp2_eq(&a->x, &b->x)) {
		cz_fp2_add(&t, &a->y, &b->y);
		if (cz_fp2_is_zero(&t)) { r->inf = true; return; }
		cz_fp2_sqr(&l, &a->x);
		cz_fp2_add(&t, &l, &l);
		cz_fp2_add(&l, &t, &l);
		cz_fp2_add(&t, &a->y, &a->y);
	} else {
		cz_fp2_sub(&l, &b->y, &a->y);
		cz_fp2_sub(&t, &b->x, &a->x);
	}
	cz_fp2_inv(&t, &t);
	cz_fp2_mul(&l, &l, &t);
	cz_fp2_sqr(&x3, &l);
	cz_fp2_sub(&x3, &x3, &a->x);
	cz_fp2_sub(&x3, &x3, &b->x);
	cz_fp2_sub(&t, &a->x, &x3);
	cz_fp2_mul(&t, &t, &l);
	cz_fp2_sub(&r->y, &t, &a->y);
	r->x = x3;
	r->inf = false;
}

static void p1_mul(p1 *r, const p1 *a, const mpz_t k)
{
	p1 acc = { .inf = true };
	for (long i = (long)mpz_sizeinbase(k, 2) - 1; i >= 0; i--) {
		p1_add(&acc, &acc, &acc);
		if (mpz_tstbit(k, (mp_bitcnt_t)i))
			p1_add(&acc, &acc, a);
	}
	*r = acc;
}

static void p2_mul(p2 *r, const p2 *a, const mpz_t k)
{
	p2 acc = { .inf = true };
	for (long i = (long)mpz_sizeinbase(k, 2) - 1; i >= 0; i--) {
		p2_add(&acc, &acc, &acc);
		if (mpz_tstbit(k, (mp_bitcnt_t)i))
			p2_add(&acc, &acc, a);
	}
	*r = acc;
}

static cz_g1_affine a1(const p1 *p)
{
	cz_g1_affine r = { p->x, p->y };
	if (p->inf)
		r.x = r.y = cz_fp_zero;
	return r;
}

static cz_g2_affine a2(const p2 *p)
{
	cz_g2_affine r = { p->x, p->y };
	if (p->inf)
		r.x = r.y = cz_fp2_zero;
	return r;
}

static bool p1_on_curve(const p1 *p)
{
	cz_fp l, t, four;
	cz_fp_sqr(&l, &p->y);
	cz_fp_sqr(&t, &p->x);
	cz_fp_mul(&t, &t, &p->x);
	cz_fp_from_u64(&four, 4);
	cz_fp_add(&t, &t, &four);
	return cz_fp_eq(&l, &t);
}

static bool p2_on_curve(const p2 *p)
{
	cz_fp2 l, t, b;
	cz_fp2_sqr(&l, &p->y);
	cz_fp2_sqr(&t, &p->x);
	cz_fp2_mul(&t, &t, &p->x);
	cz_fp_from_u64(&b.c0, 4);        /* 4 (1 + u) */
	cz_fp_from_u64(&b.c1, 4);
	cz_fp2_add(&t, &t, &b);
	return cz_fp2_eq(&l, &t);
}

static void pow_mpz(cz_fp12 *r, const cz_fp12 *a, const mpz_t e)
{
	uint64_t l[80] = { 0 };
	size_t n;
	mpz_export(l, &n, -1, 8, 0, 0, e);
	cz_fp12_pow(r, a, l, n);
}

static void rand_scalar(mpz_t k)
{
	uint64_t l[4];
	for (int i = 0; i < 4; i++)
		l[i] = rnd();
	mpz_import(k, 4, -1, 8, 0, 0, l);
	mpz_mod(k, k, R);
}

/* ---- the textbook definition: affine Miller loop on E(Fp12) ---- */
static void fp12_from_fp(cz_fp12 *r, const cz_fp *a)
{
	*r = cz_fp12_zero;
	r->c0.c0.c0 = *a;
}

static void fp12_from_fp2(cz_fp12 *r, const cz_fp2 *a)
{
	*r = cz_fp12_zero;
	r->c0.c0 = *a;
}

/* line through T with slope lam, at (xp, yp): yp - yT - lam (xp - xT) */
static void line_at(cz_fp12 *l, const cz_fp12 *lam, const cz_fp12 *xt, const cz_fp12 *yt,
		    const cz_fp12 *xp, const cz_fp12 *yp)
{
	cz_fp12 t;
	cz_fp12_sub(&t, xp, xt);
	cz_fp12_mul(&t, &t, lam);
	cz_fp12_sub(l, yp, yt);
	cz_fp12_sub(l, l, &t);
}

/* f_{x,Q}(P) with Q untwisted to (xQ w^-2, yQ w^-3), f_{x} = 1/f_{|x|} for x < 0
 * (the vertical lines lie in Fp6 and die in the final exponentiation). */
static void textbook_miller(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q)
{
	cz_fp12 w = cz_fp12_zero, wi, wi2, wi3, xq, yq, xp, yp, xt, yt, lam, l, t, u;
	uint64_t x = 0xd201000000010000ull;

	w.c1.c0 = cz_fp2_one;
	cz_fp12_inv(&wi, &w);
	cz_fp12_mul(&wi2, &wi, &wi);
	cz_fp12_mul(&wi3, &wi2, &wi);
	fp12_from_fp2(&xq, &q->x);
	cz_fp12_mul(&xq, &xq, &wi2);
	fp12_from_fp2(&yq, &q->y);
	cz_fp12_mul(&yq, &yq, &wi3);
	fp12_from_fp(&xp, &p->x);
	fp12_from_fp(&yp, &p->y);
	xt = xq;
	yt = yq;
	cz_fp12_set_one(f);
	for (int b = 62; b >= 0; b--) {
		cz_fp12_mul(&t, &xt, &xt);               /* lam = 3 xT^2 / 2 yT */
		cz_fp12_add(&u, &t, &t);
		cz_fp12_add(&t, &u, &t);
		cz_fp12_add(&u, &yt, &yt);
		cz_fp12_inv(&u, &u);
		cz_fp12_mul(&lam, &t, &u);
		line_at(&l, &lam, &xt, &yt, &xp, &yp);
		cz_fp12_mul(f, f, f);
		cz_fp12_mul(f, f, &l);
		cz_fp12_mul(&t, &lam, &lam);             /* x3 = lam^2 - 2 xT */
		cz_fp12_sub(&t, &t, &xt);
		cz_fp12_sub(&t, &t, &xt);
		cz_fp12_sub(&u, &xt, &t);
		cz_fp12_mul(&u, &u, &lam);
		cz_fp12_sub(&yt, &u, &yt);
		xt = t;
		if ((x >> b) & 1) {
			cz_fp12_sub(&t, &yq, &yt);
			cz_fp12_sub(&u, &xq, &xt);
			cz_fp12_inv(&u, &u);
			cz_fp12_mul(&lam, &t, &u);
			line_at(&l, &lam, &xt, &yt, &xp, &yp);
			cz_fp12_mul(f, f, &l);
			cz_fp12_mul(&t, &lam, &lam);
			cz_fp12_sub(&t, &t, &xt);
			cz_fp12_sub(&t, &t, &xq);
			cz_fp12_sub(&u, &xt, &t);
			cz_fp12_mul(&u, &u, &lam);
			cz_fp12_sub(&yt, &u, &yt);
			xt = t;
		}
	}
	cz_fp12_inv(f, f); /* x < 0 */
}

int main(void)
{
	p1 g1 = { .inf = false }, pa, pb, t1;
	p2 g2 = { .inf = false }, qa, qb, t2;
	cz_g1_affine P1[20];
	cz_g2_affine Q2[20];
	cz_fp12 e, f, g, h;
	mpz_t a, b, c, t;
	bool ok;

	ct_plan(15);
	mpz_inits(P, R, X, a, b, c, t, NULL);
	mpz_set_str(X, "-d201000000010000", 16);
	mpz_pow_ui(R, X, 4);
	mpz_pow_ui(t, X, 2);
	mpz_sub(R, R, t);
	mpz_add_ui(R, R, 1);
	mpz_sub_ui(t, X, 1);
	mpz_mul(t, t, t);
	mpz_mul(P, t, R);
	mpz_divexact_ui(P, P, 3);
	mpz_add(P, P, X);

	/* the standard generators (zcash / IETF pairing-friendly-curves draft) */
	fp_hex(&g1.x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
	fp_hex(&g1.y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
	fp_hex(&g2.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
	fp_hex(&g2.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
	fp_hex(&g2.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
	fp_hex(&g2.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
	p1_mul(&t1, &g1, R);
	p2_mul(&t2, &g2, R);
	ct_ok(p1_on_curve(&g1) && p2_on_curve(&g2) && t1.inf && t2.inf,
	      "generators are on their curves and of order r");
	ct_ok(cz_g1_affine_eq(&cz_g1_generator, &(cz_g1_affine){ g1.x, g1.y }) &&
		      cz_g2_affine_eq(&cz_g2_generator, &(cz_g2_affine){ g2.x, g2.y }),
	      "cz_g1_generator, cz_g2_generator are the standard generators");

	cz_g1_affine G1 = a1(&g1);
	cz_g2_affine G2 = a2(&g2);
	cz_fp12 egg;
	cz_pairing(&egg, &G1, &G2);
	ct_ok(!cz_fp12_is_one(&egg), "e(G1, G2) != 1 (non-degenerate)");
	pow_mpz(&f, &egg, R);
	ct_ok(cz_fp12_is_one(&f), "e(G1, G2)^r = 1");

	/* the final exponentiation is exactly (p^12 - 1)/r */
	cz_pairing_miller_loop(&f, &G1, &G2, 1);
	mpz_pow_ui(t, P, 12);
	mpz_sub_ui(t, t, 1);
	mpz_divexact(t, t, R);
	pow_mpz(&g, &f, t);
	cz_pairing_final_exp(&h, &f);
	ct_ok(cz_fp12_eq(&g, &h) && cz_fp12_eq(&h, &egg),
	      "final_exp(f) = f^((p^12-1)/r) by generic pow (GMP exponent)");

	/* the whole pairing vs the textbook definition, for random P, Q */
	rand_scalar(a);
	rand_scalar(b);
	p1_mul(&pa, &g1, a);
	p2_mul(&qb, &g2, b);
	{
		cz_g1_affine A = a1(&pa);
		cz_g2_affine B = a2(&qb);
		textbook_miller(&f, &A, &B);
		mpz_pow_ui(t, P, 12);
		mpz_sub_ui(t, t, 1);
		mpz_divexact(t, t, R);
		pow_mpz(&g, &f, t);
		cz_pairing(&e, &A, &B);
		ct_ok(cz_fp12_eq(&e, &g), "e(P, Q) = textbook affine Miller loop on E(Fp12), Q untwisted, ^((p^12-1)/r)");
	}

	/* bilinearity */
	ok = true;
	for (int i = 0; i < 3; i++) {
		rand_scalar(a);
		rand_scalar(b);
		p1_mul(&pa, &g1, a);
		p2_mul(&qb, &g2, b);
		cz_g1_affine A = a1(&pa);
		cz_g2_affine B = a2(&qb);
		cz_pairing(&e, &A, &B);
		mpz_mul(c, a, b);
		mpz_mod(c, c, R);
		pow_mpz(&f, &egg, c);
		ok &= cz_fp12_eq(&e, &f);
	}
	ct_ok(ok, "e(aG1, bG2) = e(G1, G2)^(ab) for 3 random a, b");

	/* linearity in each argument with small multiples */
	mpz_set_ui(a, 2);
	p1_mul(&pa, &g1, a);
	p2_mul(&qa, &g2, a);
	{
		cz_g1_affine A = a1(&pa);
		cz_g2_affine B = a2(&qa);
		cz_pairing(&e, &A, &G2);
		cz_pairing(&f, &G1, &B);
		cz_fp12_sqr(&g, &egg);
		ct_ok(cz_fp12_eq(&e, &g) && cz_fp12_eq(&f, &g), "e(2P, Q) = e(P, 2Q) = e(P, Q)^2");
	}

	/* with the library's scalar multiplication: e(aG1, G2) = e(G1, aG2) */
	{
		uint64_t raw[4] = { 0 };
		cz_fr k;
		cz_g1_jac j1;
		cz_g2_jac j2;
		cz_g1_affine A;
		cz_g2_affine B;
		rand_scalar(a);
		mpz_export(raw, NULL, -1, 8, 0, 0, a);
		cz_fr_to_mont(&k, raw);
		cz_g1_jac_from_affine(&j1, &G1);
		cz_g1_mul(&j1, &j1, &k);
		cz_g1_jac_to_affine(&A, &j1);
		cz_g2_jac_from_affine(&j2, &G2);
		cz_g2_mul(&j2, &j2, &k);
		cz_g2_jac_to_affine(&B, &j2);
		cz_pairing(&e, &A, &G2);
		cz_pairing(&f, &G1, &B);
		pow_mpz(&g, &egg, a);
		ct_ok(cz_fp12_eq(&e, &f) && cz_fp12_eq(&e, &g),
		      "e(cz_g1_mul(a, G1), G2) = e(G1, cz_g2_mul(a, G2)) = e(G1, G2)^a");
	}

	/* random P, Q; e(P, Q)·e(-P, Q) = 1 and e(P, -Q) = e(P, Q)^-1 */
	rand_scalar(a);
	rand_scalar(b);
	p1_mul(&pa, &g1, a);
	p2_mul(&qb, &g2, b);
	{
		cz_g1_affine A = a1(&pa), nA = A;
		cz_g2_affine B = a2(&qb), nB = B;
		cz_fp_neg(&nA.y, &A.y);
		cz_fp2_neg(&nB.y, &B.y);
		cz_pairing(&e, &A, &B);
		cz_pairing(&f, &nA, &B);
		cz_fp12_mul(&g, &e, &f);
		cz_pairing(&h, &A, &nB);
		cz_fp12_inv(&f, &e);
		ct_ok(cz_fp12_is_one(&g) && cz_fp12_eq(&h, &f) && !cz_fp12_is_one(&e),
		      "e(P, Q)·e(-P, Q) = 1, e(P, -Q) = e(P, Q)^-1");
	}

	/* multi-pairing = product of single pairings */
	cz_fp12_set_one(&g);
	for (int i = 0; i < 4; i++) {
		rand_scalar(a);
		rand_scalar(b);
		p1_mul(&pa, &g1, a);
		p2_mul(&qb, &g2, b);
		P1[i] = a1(&pa);
		Q2[i] = a2(&qb);
		cz_pairing(&e, &P1[i], &Q2[i]);
		cz_fp12_mul(&g, &g, &e);
	}
	cz_multi_pairing(&f, P1, Q2, 4);
	ct_ok(cz_fp12_eq(&f, &g), "multi_pairing of 4 random pairs = product of the 4 pairings");

	/* more pairs than one shared Miller loop holds: pairs (kG1, G2), k = 1..18 */
	t1 = g1;
	for (int i = 0; i < 18; i++) {
		P1[i] = a1(&t1);
		Q2[i] = G2;
		p1_add(&t1, &t1, &g1);
	}
	cz_multi_pairing(&f, P1, Q2, 18);
	mpz_set_ui(a, 18 * 19 / 2);
	pow_mpz(&g, &egg, a);
	ct_ok(cz_fp12_eq(&f, &g), "multi_pairing of 18 pairs (kG1, G2) = e(G1, G2)^171");

	/* infinity */
	{
		cz_g1_affine O1 = { cz_fp_zero, cz_fp_zero };
		cz_g2_affine O2 = { cz_fp2_zero, cz_fp2_zero };
		cz_g1_affine pp[3] = { G1, O1, G1 };
		cz_g2_affine qq[3] = { G2, G2, O2 };
		ok = true;
		cz_pairing(&e, &O1, &G2);
		ok &= cz_fp12_is_one(&e);
		cz_pairing(&e, &G1, &O2);
		ok &= cz_fp12_is_one(&e);
		cz_pairing(&e, &O1, &O2);
		ok &= cz_fp12_is_one(&e);
		cz_multi_pairing(&e, pp, qq, 3);
		ok &= cz_fp12_eq(&e, &egg);
		cz_multi_pairing(&e, pp, qq, 0);
		ok &= cz_fp12_is_one(&e);
		ok &= cz_pairing_check(pp + 1, qq + 1, 2);
		ct_ok(ok, "pairs with an infinity contribute 1; n = 0 gives 1");
	}

	/* pairing_check: e(aP, Q)·e(-P, aQ) = 1 */
	rand_scalar(a);
	p1_mul(&pa, &g1, a);
	p2_mul(&qa, &g2, a);
	P1[0] = a1(&pa);
	Q2[0] = G2;
	P1[1] = G1;
	cz_fp_neg(&P1[1].y, &P1[1].y);
	Q2[1] = a2(&qa);
	ct_ok(cz_pairing_check(P1, Q2, 2), "pairing_check accepts e(aP, Q)·e(-P, aQ)");
	ok = true;
	p1_add(&pb, &pa, &g1); /* (a + 1)P */
	P1[0] = a1(&pb);
	ok &= !cz_pairing_check(P1, Q2, 2);
	P1[0] = a1(&pa);
	Q2[1].x.c1.l[0] ^= 1; /* off the curve */
	ok &= !cz_pairing_check(P1, Q2, 2);
	Q2[1] = a2(&qa);
	ok &= cz_pairing_check(P1, Q2, 2);
	P1[1] = G1; /* sign dropped */
	ok &= !cz_pairing_check(P1, Q2, 2);
	ct_ok(ok, "pairing_check rejects (a+1)P, a perturbed coordinate and a dropped sign");

	/* timing (a figure, not a test point) */
	{
		int n = 20;
		double t0 = cz_thread_cpu_ms();
		for (int i = 0; i < n; i++)
			cz_pairing(&e, &G1, &G2);
		double t_one = (cz_thread_cpu_ms() - t0) / n;
		for (int i = 0; i < 4; i++) {
			P1[i] = G1;
			Q2[i] = G2;
		}
		t0 = cz_thread_cpu_ms();
		for (int i = 0; i < n; i++)
			cz_multi_pairing(&e, P1, Q2, 4);
		double t_four = (cz_thread_cpu_ms() - t0) / n;
		t0 = cz_thread_cpu_ms();
		for (int i = 0; i < n; i++)
			cz_pairing_miller_loop(&f, &G1, &G2, 1);
		double t_ml = (cz_thread_cpu_ms() - t0) / n;
		ct_diag("CPU time: pairing %.3f ms (Miller loop %.3f, final exp %.3f); 4-pair multi-pairing %.3f ms (%.2fx one)",
			t_one, t_ml, t_one - t_ml, t_four, t_four / t_one);
	}

	mpz_clears(P, R, X, a, b, c, t, NULL);
	return ct_exit();
}
