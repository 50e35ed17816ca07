/* Description: Fp6/Fp12 arithmetic, inversion, Frobenius and cyclotomic squaring vs a schoolbook Fp2[w]/(w^6 - xi) model and GMP exponents */
/*
 * The oracle is an independent representation: an Fp12 element as a
 * polynomial sum g_i w^i over Fp2 (i < 6), multiplied by schoolbook and
 * reduced with w^6 = xi = 1 + u (the multiplication by xi written out here
 * over Fp).  Frobenius maps are checked against a^(p^k) with p^k from GMP;
 * p itself is derived from the curve parameter x, not typed in.
 */
#include <gmp.h>
#include <string.h>

#include "selftests/cz_test.h"
#include "zk/field/fp12.h"
#include "zk/curve/pairing.h"

typedef struct { cz_fp2 g[6]; } poly; /* sum g_i w^i */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ct_splitmix64(&rng_state);
}

static void rand_fp(cz_fp *r)
{
	uint64_t raw[CZ_FP_LIMBS];
	do {
		for (int i = 0; i < CZ_FP_LIMBS; i++)
			raw[i] = rnd();
		raw[CZ_FP_LIMBS - 1] >>= 3; /* p < 2^381 */
	} while (!cz_fp_to_mont(r, raw));
}

static void rand_fp2(cz_fp2 *r)
{
	rand_fp(&r->c0);
	rand_fp(&r->c1);
}

static void rand_fp12(cz_fp12 *r)
{
	cz_fp2 *c = (cz_fp2 *)r;
	for (int i = 0; i < 6; i++)
		rand_fp2(&c[i]);
}

static void to_poly(poly *p, const cz_fp12 *a)
{
	p->g[0] = a->c0.c0; p->g[1] = a->c1.c0;
	p->g[2] = a->c0.c1; p->g[3] = a->c1.c1;
	p->g[4] = a->c0.c2; p->g[5] = a->c1.c2;
}

static void from_poly(cz_fp12 *a, const poly *p)
{
	a->c0.c0 = p->g[0]; a->c1.c0 = p->g[1];
	a->c0.c1 = p->g[2]; a->c1.c1 = p->g[3];
	a->c0.c2 = p->g[4]; a->c1.c2 = p->g[5];
}

/* (x0 + x1 u)(1 + u) = (x0 - x1) + (x0 + x1) u, with u^2 = -1 */
static void times_xi(cz_fp2 *r, const cz_fp2 *x)
{
	cz_fp a, b;
	cz_fp_sub(&a, &x->c0, &x->c1);
	cz_fp_add(&b, &x->c0, &x->c1);
	r->c0 = a;
	r->c1 = b;
}

/* schoolbook Fp2 product from Fp ops */
static void fp2_mul_naive(cz_fp2 *r, const cz_fp2 *x, const cz_fp2 *y)
{
	cz_fp a, b, c, d;
	cz_fp_mul(&a, &x->c0, &y->c0);
	cz_fp_mul(&b, &x->c1, &y->c1);
	cz_fp_mul(&c, &x->c0, &y->c1);
	cz_fp_mul(&d, &x->c1, &y->c0);
	cz_fp_sub(&r->c0, &a, &b);
	cz_fp_add(&r->c1, &c, &d);
}

static void naive_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b)
{
	poly pa, pb, pr;
	cz_fp2 acc[11], t;

	to_poly(&pa, a);
	to_poly(&pb, b);
	for (int k = 0; k < 11; k++)
		acc[k] = cz_fp2_zero;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			fp2_mul_naive(&t, &pa.g[i], &pb.g[j]);
			cz_fp2_add(&acc[i + j], &acc[i + j], &t);
		}
	for (int k = 10; k >= 6; k--) {
		times_xi(&t, &acc[k]);
		cz_fp2_add(&acc[k - 6], &acc[k - 6], &t);
	}
	for (int i = 0; i < 6; i++)
		pr.g[i] = acc[i];
	from_poly(r, &pr);
}

static bool poly_is_one(const cz_fp12 *a)
{
	poly p;
	to_poly(&p, a);
	if (!cz_fp2_eq(&p.g[0], &cz_fp2_one))
		return false;
	for (int i = 1; i < 6; i++)
		if (!cz_fp2_is_zero(&p.g[i]))
			return false;
	return true;
}

#define EXP_LIMBS 80 /* 5120 bits: enough for (p^12 - 1)/r */
static uint64_t *limbs(const mpz_t z, size_t *n)
{
	static uint64_t buf[4][EXP_LIMBS];
	static int slot;
	uint64_t *b = buf[slot++ & 3];
	memset(b, 0, sizeof(buf[0]));
	mpz_export(b, n, -1, 8, 0, 0, z);
	return b;
}

static void pow_mpz(cz_fp12 *r, const cz_fp12 *a, const mpz_t e)
{
	size_t n;
	uint64_t *l = limbs(e, &n);
	cz_fp12_pow(r, a, l, n);
}

int main(void)
{
	mpz_t x, p, r, e, t;
	cz_fp12 a, b, c, d, z;
	bool ok;
	const int N = 16;

	ct_plan(14);

	/* p and r from x = -0xd201000000010000 */
	mpz_inits(x, p, r, e, t, NULL);
	mpz_set_str(x, "-d201000000010000", 16);
	mpz_pow_ui(r, x, 4);
	mpz_pow_ui(t, x, 2);
	mpz_sub(r, r, t);
	mpz_add_ui(r, r, 1);            /* r = x^4 - x^2 + 1 */
	mpz_sub_ui(t, x, 1);
	mpz_mul(t, t, t);
	mpz_mul(p, t, r);
	mpz_divexact_ui(p, p, 3);
	mpz_add(p, p, x);               /* p = (x-1)^2 r / 3 + x */
	{
		cz_fp m1;
		uint64_t raw[CZ_FP_LIMBS];
		cz_fp_neg(&m1, &cz_fp_one);
		cz_fp_from_mont(raw, &m1);
		mpz_import(e, CZ_FP_LIMBS, -1, 8, 0, 0, raw);
		mpz_add_ui(e, e, 1);
		ct_ok(mpz_cmp(e, p) == 0, "the field's p is (x-1)^2 (x^4-x^2+1)/3 + x");
	}

	ok = true;
	for (int i = 0; i < N; i++) {
		rand_fp12(&a);
		rand_fp12(&b);
		naive_mul(&d, &a, &b);
		cz_fp12_mul(&c, &a, &b);
		ok &= cz_fp12_eq(&c, &d);
		cz_fp12_mul(&a, &a, &b); /* aliasing */
		ok &= cz_fp12_eq(&a, &d);
	}
	ct_ok(ok, "cz_fp12_mul matches schoolbook over Fp2[w]/(w^6 - xi) (%d random, aliased too)", N);

	ok = true;
	for (int i = 0; i < N; i++) {
		rand_fp12(&a);
		naive_mul(&d, &a, &a);
		cz_fp12_sqr(&c, &a);
		ok &= cz_fp12_eq(&c, &d);
		cz_fp12_sqr(&a, &a);
		ok &= cz_fp12_eq(&a, &d);
	}
	ct_ok(ok, "cz_fp12_sqr matches schoolbook");

	ok = true;
	for (int i = 0; i < N; i++) {
		rand_fp12(&a);
		cz_fp12_inv(&b, &a);
		naive_mul(&c, &a, &b);
		ok &= poly_is_one(&c);
	}
	cz_fp12_inv(&b, &cz_fp12_zero);
	ok &= cz_fp12_is_zero(&b);
	ct_ok(ok, "a * cz_fp12_inv(a) = 1 in the schoolbook model; inv(0) = 0");

	ok = true;
	for (int i = 0; i < N; i++) {
		cz_fp2 l0, l1, l4;
		rand_fp12(&a);
		rand_fp2(&l0);
		rand_fp2(&l1);
		rand_fp2(&l4);
		b = cz_fp12_zero;
		b.c0.c0 = l0;
		b.c0.c1 = l1;
		b.c1.c1 = l4;
		naive_mul(&d, &a, &b);
		cz_fp12_mul_by_014(&c, &a, &l0, &l1, &l4);
		ok &= cz_fp12_eq(&c, &d);
	}
	ct_ok(ok, "cz_fp12_mul_by_014 (l0 + l1 w^2 + l4 w^3) matches schoolbook");

	/* Fp6 = the even powers of w: embed and compare */
	ok = true;
	for (int i = 0; i < N; i++) {
		cz_fp6 x6, y6, r6;
		rand_fp12(&a);
		rand_fp12(&b);
		x6 = a.c0;
		y6 = b.c0;
		a.c1 = cz_fp6_zero;
		b.c1 = cz_fp6_zero;
		naive_mul(&d, &a, &b);
		cz_fp6_mul(&r6, &x6, &y6);
		ok &= cz_fp6_eq(&r6, &d.c0);
		naive_mul(&d, &a, &a);
		cz_fp6_sqr(&r6, &x6);
		ok &= cz_fp6_eq(&r6, &d.c0);
		cz_fp6_inv(&r6, &x6);
		c = cz_fp12_zero;
		c.c0 = r6;
		naive_mul(&d, &a, &c);
		ok &= poly_is_one(&d);
		/* sparse: y = y0 + y1 v, then y = y1 v */
		b.c0.c2 = cz_fp2_zero;
		naive_mul(&d, &a, &b);
		cz_fp6_mul_by_01(&r6, &x6, &b.c0.c0, &b.c0.c1);
		ok &= cz_fp6_eq(&r6, &d.c0);
		b.c0.c0 = cz_fp2_zero;
		naive_mul(&d, &a, &b);
		cz_fp6_mul_by_1(&r6, &x6, &b.c0.c1);
		ok &= cz_fp6_eq(&r6, &d.c0);
		/* times v = w^2 */
		c = cz_fp12_zero;
		c.c0.c1 = cz_fp2_one;
		naive_mul(&d, &a, &c);
		cz_fp6_mul_by_v(&r6, &x6);
		ok &= cz_fp6_eq(&r6, &d.c0);
	}
	ct_ok(ok, "Fp6 mul, sqr, inv, mul_by_01, mul_by_1, mul_by_v match schoolbook");

	ok = true;
	for (int i = 0; i < N; i++) {
		poly pa, pb, pc;
		rand_fp12(&a);
		rand_fp12(&b);
		to_poly(&pa, &a);
		to_poly(&pb, &b);
		cz_fp12_add(&c, &a, &b);
		to_poly(&pc, &c);
		for (int j = 0; j < 6; j++) {
			cz_fp2 s;
			cz_fp_add(&s.c0, &pa.g[j].c0, &pb.g[j].c0);
			cz_fp_add(&s.c1, &pa.g[j].c1, &pb.g[j].c1);
			ok &= cz_fp2_eq(&s, &pc.g[j]);
		}
		cz_fp12_sub(&c, &c, &b);
		ok &= cz_fp12_eq(&c, &a);
	}
	ct_ok(ok, "cz_fp12_add/sub coefficient-wise");

	/* pow vs repeated schoolbook multiplication */
	ok = true;
	for (int i = 0; i < 4; i++) {
		uint64_t k = 1 + (rnd() & 31);
		rand_fp12(&a);
		cz_fp12_set_one(&d);
		for (uint64_t j = 0; j < k; j++)
			naive_mul(&d, &d, &a);
		cz_fp12_pow(&c, &a, &k, 1);
		ok &= cz_fp12_eq(&c, &d);
	}
	{
		uint64_t zero = 0;
		cz_fp12_pow(&c, &a, &zero, 1);
		ok &= poly_is_one(&c) && cz_fp12_is_one(&c);
	}
	ct_ok(ok, "cz_fp12_pow(a, k) = a·a·...·a (schoolbook), a^0 = 1");

	/* Frobenius vs a^(p^k) */
	ok = true;
	for (int i = 0; i < 2; i++) {
		rand_fp12(&a);
		mpz_set_ui(e, 1);
		for (unsigned k = 1; k <= 3; k++) {
			mpz_mul(e, e, p);
			pow_mpz(&d, &a, e);
			cz_fp12_frobenius(&c, &a, k);
			ok &= cz_fp12_eq(&c, &d);
		}
	}
	ct_ok(ok, "cz_fp12_frobenius(a, k) = a^(p^k), k = 1, 2, 3");

	ok = true;
	rand_fp12(&a);
	cz_fp12_frobenius(&b, &a, 4);
	cz_fp12_frobenius(&c, &a, 1);
	for (int i = 0; i < 3; i++)
		cz_fp12_frobenius(&c, &c, 1);
	ok &= cz_fp12_eq(&b, &c);
	cz_fp12_frobenius(&b, &a, 12);
	ok &= cz_fp12_eq(&b, &a);
	mpz_pow_ui(e, p, 6);
	pow_mpz(&d, &a, e);
	cz_fp12_conj(&c, &a);
	ok &= cz_fp12_eq(&c, &d);
	cz_fp12_frobenius(&b, &a, 6);
	ok &= cz_fp12_eq(&b, &d);
	{
		cz_fp6 f6;
		cz_fp6_frobenius(&f6, &a.c0, 1);
		b = cz_fp12_zero;
		b.c0 = a.c0;
		pow_mpz(&d, &b, p);
		ok &= cz_fp6_eq(&f6, &d.c0) && cz_fp6_is_zero(&d.c1);
	}
	ct_ok(ok, "conj(a) = a^(p^6) = frobenius(a, 6); frob^4 = frob^1 four times; frob^12 = id; Fp6 frob = a^p");

	/* cyclotomic squaring on a^((p^6 - 1)(p^2 + 1)) */
	mpz_pow_ui(e, p, 6);
	mpz_sub_ui(e, e, 1);
	mpz_pow_ui(t, p, 2);
	mpz_add_ui(t, t, 1);
	mpz_mul(e, e, t);
	rand_fp12(&a);
	pow_mpz(&b, &a, e);
	mpz_pow_ui(t, p, 4);
	mpz_submul(t, p, p);
	mpz_add_ui(t, t, 1);            /* Phi_12(p) = p^4 - p^2 + 1 */
	pow_mpz(&c, &b, t);
	ct_ok(cz_fp12_is_one(&c) && !cz_fp12_is_one(&b), "a^((p^6-1)(p^2+1)) has order dividing p^4-p^2+1");
	ok = true;
	for (int i = 0; i < 8; i++) {
		naive_mul(&d, &b, &b);
		cz_fp12_cyclotomic_sqr(&c, &b);
		ok &= cz_fp12_eq(&c, &d);
		cz_fp12_cyclotomic_sqr(&b, &b);
		ok &= cz_fp12_eq(&b, &d);
	}
	ct_ok(ok, "cz_fp12_cyclotomic_sqr = schoolbook square in the cyclotomic subgroup");
	/* and it must differ outside it (else the test above proves nothing) */
	rand_fp12(&a);
	naive_mul(&d, &a, &a);
	cz_fp12_cyclotomic_sqr(&c, &a);
	ct_ok(!cz_fp12_eq(&c, &d), "cyclotomic squaring differs for a random non-cyclotomic element");

	cz_fp12_set_one(&a);
	rand_fp12(&b);
	z = b;
	z.c1.c2.c1.l[0] ^= 1;
	ct_ok(cz_fp12_is_one(&a) && poly_is_one(&a) && !cz_fp12_is_one(&b) && cz_fp12_eq(&b, &b) &&
		      !cz_fp12_eq(&b, &z),
	      "set_one/is_one/eq");

	mpz_clears(x, p, r, e, t, NULL);
	return ct_exit();
}
