/* SPDX-License-Identifier: MIT */
/*
 * selftests/zk_curve_test.h — the curve-group tests shared by zk_g1.c and
 * zk_g2.c, written once over the coordinate field like zk/curve/curve_tmpl_pvt.h.
 *
 * The oracle is a separate, deliberately naive implementation written here:
 * affine points with an explicit infinity flag, the textbook chord-and-
 * tangent formulas with one field inversion per step, and plain binary
 * double-and-add.  It uses only field operations (cz_fp / cz_fp2), never
 * the point code under test, and its curve coefficient b is rebuilt from
 * small integers rather than read from the library's constants.
 *
 * The including file defines T_F and the T_F_* field operations, T_F_SMALL
 * (r = small integer), T_F_RAND (r = random element), T_SET_B, the point
 * types T_AFF T_JAC T_XYZZ, T_NAME(n) and T_GEN (the generator).  For the
 * zcash encodings (t_codec) also: T_GROUP ("G1"), T_COMPRESSED_BYTES and
 * T_UNCOMPRESSED_BYTES, T_GEN_COMPRESSED and T_GEN_UNCOMPRESSED (the
 * published encodings of the generator, hex), T_F_LARGEST (the sign rule),
 * T_F_TO_BE(out, a) (a's big-endian bytes in zcash order) and
 * T_F_NONSQUARE(a) (true iff a is not a square, by a Legendre symbol in Fp,
 * not by the decoder's square root).
 */
#ifndef ZK_CURVE_TEST_H
#define ZK_CURVE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "selftests/cz_test.h"
#include "zk/field/fp.h"
#include "zk/field/fr.h"
#include "zk/curve/g1.h" /* CZ_EPOINT_*, cz_point_strerror */

typedef T_F tf;
typedef struct { tf x, y; int inf; } opt; /* oracle point */

/* The curve's prime fields (default BLS12-381's): T_FP / T_FR name the
 * base and scalar field prefixes, T_FP_LIMBS the base field's limbs,
 * T_FP_TOP_MASK a mask that keeps a random top limb mostly below p's. */
#ifndef T_FP
#define T_FP cz_fp
#define T_FP_LIMBS CZ_FP_LIMBS
#define T_FP_TOP_MASK 0x0fffffffffffffffULL /* p's top limb is 0x1a01... */
#define T_FR cz_fr
#endif
#define TC_CAT2(a, b) a##_##b
#define TC_CAT(a, b) TC_CAT2(a, b)
#define TFP(n) TC_CAT(T_FP, n)
#define TFR(n) TC_CAT(T_FR, n)
typedef T_FP tfp;
typedef T_FR tfr;

/* r, the group order (published constant; default BLS12-381's). */
#ifndef T_GROUP_R
#define T_GROUP_R                                                                    \
	{ 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,        \
	  0x73eda753299d7d48ULL }
#endif
static const uint64_t group_r[4] = T_GROUP_R;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	/* xorshift64* — reproducible, independent of the code under test */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A random element of Fp (T_F_RAND builds on it). */
static void fp_rand(tfp *r)
{
	uint64_t raw[T_FP_LIMBS];
	for (int i = 0; i < T_FP_LIMBS; i++)
		raw[i] = rnd();
	raw[T_FP_LIMBS - 1] &= T_FP_TOP_MASK; /* < p */
	TFP(to_mont)(r, raw);
}

static __attribute__((unused)) void unhex(uint8_t *out, const char *hex, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static tf ob; /* the oracle's b */

/* ---- the oracle ------------------------------------------------------- */

static void o_dbl(opt *r, const opt *p)
{
	tf l, t, x3, y3;

	if (p->inf || T_F_IS_ZERO(&p->y)) {
		r->inf = 1;
		return;
	}
	T_F_SQR(&t, &p->x);
	T_F_ADD(&l, &t, &t);
	T_F_ADD(&l, &l, &t);       /* 3x^2 */
	T_F_ADD(&t, &p->y, &p->y);
	T_F_INV(&t, &t);
	T_F_MUL(&l, &l, &t);       /* lambda = 3x^2 / 2y */
	T_F_SQR(&x3, &l);
	T_F_SUB(&x3, &x3, &p->x);
	T_F_SUB(&x3, &x3, &p->x);
	T_F_SUB(&t, &p->x, &x3);
	T_F_MUL(&y3, &l, &t);
	T_F_SUB(&y3, &y3, &p->y);
	r->x = x3;
	r->y = y3;
	r->inf = 0;
}

static void o_add(opt *r, const opt *p, const opt *q)
{
	tf l, t, x3, y3;

	if (p->inf) {
		*r = *q;
		return;
	}
	if (q->inf) {
		*r = *p;
		return;
	}
	if (T_F_EQ(&p->x, &q->x)) {
		if (T_F_EQ(&p->y, &q->y))
			o_dbl(r, p);
		else
			r->inf = 1;
		return;
	}
	T_F_SUB(&t, &q->x, &p->x);
	T_F_INV(&t, &t);
	T_F_SUB(&l, &q->y, &p->y);
	T_F_MUL(&l, &l, &t);
	T_F_SQR(&x3, &l);
	T_F_SUB(&x3, &x3, &p->x);
	T_F_SUB(&x3, &x3, &q->x);
	T_F_SUB(&t, &p->x, &x3);
	T_F_MUL(&y3, &l, &t);
	T_F_SUB(&y3, &y3, &p->y);
	r->x = x3;
	r->y = y3;
	r->inf = 0;
}

static void o_neg(opt *r, const opt *p)
{
	*r = *p;
	T_F_NEG(&r->y, &p->y);
}

static void o_mul(opt *r, const opt *p, const uint64_t *k, size_t n)
{
	opt acc = { .inf = 1 }, base = *p;

	for (size_t i = n * 64; i-- > 0;) {
		o_dbl(&acc, &acc);
		if ((k[i / 64] >> (i % 64)) & 1)
			o_add(&acc, &acc, &base);
	}
	*r = acc;
}

static int o_eq(const opt *a, const opt *b)
{
	if (a->inf || b->inf)
		return a->inf && b->inf;
	return T_F_EQ(&a->x, &b->x) && T_F_EQ(&a->y, &b->y);
}

static int o_on_curve(const opt *p)
{
	tf l, rr;

	if (p->inf)
		return 1;
	T_F_SQR(&l, &p->y);
	T_F_SQR(&rr, &p->x);
	T_F_MUL(&rr, &rr, &p->x);
	T_F_ADD(&rr, &rr, &ob);
	return T_F_EQ(&l, &rr);
}

/* A random point of E (not cofactor-cleared): random x until x^3 + b is a square. */
static void o_rand_curve(opt *r)
{
	tf t;

	for (;;) {
		T_F_RAND(&r->x);
		T_F_SQR(&t, &r->x);
		T_F_MUL(&t, &t, &r->x);
		T_F_ADD(&t, &t, &ob);
		if (T_F_SQRT(&r->y, &t)) {
			if (rnd() & 1)
				T_F_NEG(&r->y, &r->y);
			r->inf = 0;
			return;
		}
	}
}

static tf rand_nonzero(void)
{
	tf t;
	do
		T_F_RAND(&t);
	while (T_F_IS_ZERO(&t));
	return t;
}

/* ---- between the oracle and the library's representations -------------- */

static void to_aff(T_AFF *r, const opt *p)
{
	if (p->inf) {
		memset(r, 0, sizeof(*r));
		T_F_SMALL(&r->x, 0);
		T_F_SMALL(&r->y, 0);
		return;
	}
	r->x = p->x;
	r->y = p->y;
}

/* Randomly scaled Jacobian: (x·l^2, y·l^3, l); infinity as (junk, junk, 0). */
static void to_jac(T_JAC *r, const opt *p)
{
	tf l = rand_nonzero(), l2;

	if (p->inf) {
		r->x = rand_nonzero();
		r->y = rand_nonzero();
		T_F_SMALL(&r->z, 0);
		return;
	}
	T_F_SQR(&l2, &l);
	T_F_MUL(&r->x, &p->x, &l2);
	T_F_MUL(&l2, &l2, &l);
	T_F_MUL(&r->y, &p->y, &l2);
	r->z = l;
}

static void to_xyzz(T_XYZZ *r, const opt *p)
{
	tf l = rand_nonzero(), l2, l3;

	if (p->inf) {
		r->x = rand_nonzero();
		r->y = rand_nonzero();
		T_F_SMALL(&r->zz, 0);
		T_F_SMALL(&r->zzz, 0);
		return;
	}
	T_F_SQR(&l2, &l);
	T_F_MUL(&l3, &l2, &l);
	T_F_MUL(&r->x, &p->x, &l2);
	T_F_MUL(&r->y, &p->y, &l3);
	r->zz = l2;
	r->zzz = l3;
}

static void from_aff(opt *r, const T_AFF *p)
{
	r->inf = T_F_IS_ZERO(&p->x) && T_F_IS_ZERO(&p->y);
	r->x = p->x;
	r->y = p->y;
}

static void from_jac(opt *r, const T_JAC *p)
{
	tf zi, t;

	r->inf = T_F_IS_ZERO(&p->z);
	if (r->inf)
		return;
	T_F_INV(&zi, &p->z);
	T_F_SQR(&t, &zi);
	T_F_MUL(&r->x, &p->x, &t);
	T_F_MUL(&t, &t, &zi);
	T_F_MUL(&r->y, &p->y, &t);
}

static void from_xyzz(opt *r, const T_XYZZ *p)
{
	tf t;

	r->inf = T_F_IS_ZERO(&p->zz);
	if (r->inf)
		return;
	T_F_INV(&t, &p->zz);
	T_F_MUL(&r->x, &p->x, &t);
	T_F_INV(&t, &p->zzz);
	T_F_MUL(&r->y, &p->y, &t);
}

static int jac_is(const T_JAC *p, const opt *want)
{
	opt o;
	from_jac(&o, p);
	return o_eq(&o, want);
}

static int xyzz_is(const T_XYZZ *p, const opt *want)
{
	opt o;
	from_xyzz(&o, p);
	/* a finite XYZZ point must also satisfy ZZ^3 = ZZZ^2 */
	if (!o.inf) {
		tf a, b;
		T_F_SQR(&a, &p->zz);
		T_F_MUL(&a, &a, &p->zz);
		T_F_SQR(&b, &p->zzz);
		if (!T_F_EQ(&a, &b))
			return 0;
	}
	return o_eq(&o, want);
}

/* Random scalar below r, as the integer (for the oracle) and as an Fr element. */
static void rand_scalar(uint64_t raw[4], tfr *k)
{
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = rnd();
		raw[3] &= 0x7fffffffffffffffULL;
	} while (!TFR(to_mont)(k, raw));
}

static opt o_gen(void)
{
	opt g;
	from_aff(&g, &T_GEN);
	return g;
}

/* A random point of the subgroup: a random 64-bit multiple of G (cheap). */
static opt o_rand_sub(void)
{
	uint64_t k = rnd() | 1;
	opt g = o_gen(), r;
	o_mul(&r, &g, &k, 1);
	return r;
}

/* ---- the tests ---------------------------------------------------------- */

static void t_generator(void)
{
	opt g = o_gen(), t, ng;
	uint64_t rm1[4];

	ct_ok(!g.inf && o_on_curve(&g) && T_NAME(affine_on_curve)(&T_GEN),
	      "generator satisfies y^2 = x^3 + b (oracle equation and library)");
	o_mul(&t, &g, group_r, 4);
	memcpy(rm1, group_r, sizeof(rm1));
	rm1[0] -= 1;
	o_neg(&ng, &g);
	int ok = t.inf;
	o_mul(&t, &g, rm1, 4);
	ct_ok(ok && o_eq(&t, &ng), "r·G = O and (r-1)·G = -G (oracle double-and-add)");
	ct_ok(T_NAME(affine_in_subgroup)(&T_GEN), "library: generator in the subgroup");
}

/* k·P by the library (constant-time and vartime) vs the oracle. */
static void t_mul(const char *path)
{
	opt g = o_gen(), want, p;
	T_JAC j, r;
	tfr k;
	uint64_t raw[4];
	int bad = 0;

	for (uint64_t s = 0; s <= 20; s++) {
		raw[0] = s;
		raw[1] = raw[2] = raw[3] = 0;
		TFR(from_u64)(&k, s);
		o_mul(&want, &g, raw, 4);
		to_jac(&j, &g);
		T_NAME(mul)(&r, &j, &k);
		bad += !jac_is(&r, &want);
		T_NAME(mul_vartime)(&r, &j, raw, 4);
		bad += !jac_is(&r, &want);
	}
	for (int s = 1; s <= 2; s++) { /* r - 1, r - 2 */
		memcpy(raw, group_r, sizeof(raw));
		raw[0] -= (uint64_t)s;
		TFR(to_mont)(&k, raw);
		o_mul(&want, &g, raw, 4);
		to_jac(&j, &g);
		T_NAME(mul)(&r, &j, &k);
		bad += !jac_is(&r, &want);
	}
	ct_ok(!bad, "[%s] k·G, k = 0..20, r-1, r-2: mul and mul_vartime match the oracle", path);

	bad = 0;
	p = o_rand_sub();
	for (int i = 0; i < 3; i++) {
		const opt *base = i & 1 ? &p : &g;
		rand_scalar(raw, &k);
		o_mul(&want, base, raw, 4);
		to_jac(&j, base);
		T_NAME(mul)(&r, &j, &k);
		bad += !jac_is(&r, &want) || !T_NAME(jac_on_curve)(&r);
		T_NAME(mul_vartime)(&r, &j, raw, 4);
		bad += !jac_is(&r, &want);
	}
	/* infinity times anything, and a point outside the subgroup */
	want.inf = 1;
	to_jac(&j, &want);
	rand_scalar(raw, &k);
	T_NAME(mul)(&r, &j, &k);
	bad += !T_NAME(jac_is_inf)(&r);
	o_rand_curve(&p);
	o_mul(&want, &p, raw, 4);
	to_jac(&j, &p);
	T_NAME(mul)(&r, &j, &k);
	bad += !jac_is(&r, &want);
	ct_ok(!bad, "[%s] k·P for random k, P in and outside the subgroup, and k·O: match the oracle",
	      path);
}

/* Each add/dbl formula vs the oracle on random points, with random Z scaling. */
static void t_add(const char *path)
{
	int bad_add = 0, bad_dbl = 0;

	for (int i = 0; i < 6; i++) {
		opt a = o_rand_sub(), b = o_rand_sub(), s, d;
		T_JAC ja, jb, jr;
		T_XYZZ xa, xb, xr;
		T_AFF ab;

		if (i == 5)
			o_rand_curve(&a), o_rand_curve(&b); /* formulas hold on all of E */
		o_add(&s, &a, &b);
		o_dbl(&d, &a);
		to_jac(&ja, &a);
		to_jac(&jb, &b);
		to_aff(&ab, &b);
		to_xyzz(&xa, &a);
		to_xyzz(&xb, &b);
		T_NAME(jac_add)(&jr, &ja, &jb);
		bad_add += !jac_is(&jr, &s);
		T_NAME(jac_add_affine)(&jr, &ja, &ab);
		bad_add += !jac_is(&jr, &s);
		T_NAME(xyzz_add)(&xr, &xa, &xb);
		bad_add += !xyzz_is(&xr, &s);
		T_NAME(xyzz_add_affine)(&xr, &xa, &ab);
		bad_add += !xyzz_is(&xr, &s);
		/* aliasing: result over an input */
		jr = ja;
		T_NAME(jac_add)(&jr, &jr, &jb);
		bad_add += !jac_is(&jr, &s);
		xr = xb;
		T_NAME(xyzz_add)(&xr, &xa, &xr);
		bad_add += !xyzz_is(&xr, &s);

		T_NAME(jac_dbl)(&jr, &ja);
		bad_dbl += !jac_is(&jr, &d);
		T_NAME(xyzz_dbl)(&xr, &xa);
		bad_dbl += !xyzz_is(&xr, &d);
		jr = ja;
		T_NAME(jac_dbl)(&jr, &jr);
		bad_dbl += !jac_is(&jr, &d);
	}
	ct_ok(!bad_add, "[%s] jac_add, jac_add_affine, xyzz_add, xyzz_add_affine match the oracle",
	      path);
	ct_ok(!bad_dbl, "[%s] jac_dbl and xyzz_dbl match the oracle", path);
}

/* P + P, P + (-P), P + O, O + P, O + O, 2·O through every add function. */
static void t_special(const char *path)
{
	opt p = o_rand_sub(), np, d, inf = { .inf = 1 };
	int bad = 0;

	o_neg(&np, &p);
	o_dbl(&d, &p);
	const opt *cases[][3] = { /* a, b, a + b */
		{ &p, &p, &d }, { &p, &np, &inf }, { &p, &inf, &p },
		{ &inf, &p, &p }, { &inf, &inf, &inf },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		T_JAC ja, jb, jr;
		T_XYZZ xa, xb, xr;
		T_AFF ab;
		to_jac(&ja, cases[c][0]);
		to_jac(&jb, cases[c][1]);
		to_aff(&ab, cases[c][1]);
		to_xyzz(&xa, cases[c][0]);
		to_xyzz(&xb, cases[c][1]);
		T_NAME(jac_add)(&jr, &ja, &jb);
		bad += !jac_is(&jr, cases[c][2]);
		T_NAME(jac_add_affine)(&jr, &ja, &ab);
		bad += !jac_is(&jr, cases[c][2]);
		T_NAME(xyzz_add)(&xr, &xa, &xb);
		bad += !xyzz_is(&xr, cases[c][2]);
		T_NAME(xyzz_add_affine)(&xr, &xa, &ab);
		bad += !xyzz_is(&xr, cases[c][2]);
	}
	T_JAC j;
	T_XYZZ x;
	to_jac(&j, &inf);
	T_NAME(jac_dbl)(&j, &j);
	bad += !T_NAME(jac_is_inf)(&j);
	to_xyzz(&x, &inf);
	T_NAME(xyzz_dbl)(&x, &x);
	bad += !T_NAME(xyzz_is_inf)(&x);
	ct_ok(!bad, "[%s] P+P = 2P, P+(-P) = O, P+O, O+P, O+O, 2·O: all four adds and both dbls", path);
}

/* Group laws and agreement between representations (library only, but with
 * the oracle's points as inputs). */
static void t_laws(void)
{
	int bad = 0;

	for (int i = 0; i < 4; i++) {
		opt a = o_rand_sub(), b = o_rand_sub(), c = o_rand_sub();
		T_JAC ja, jb, jc, l, r, t;
		T_XYZZ xa, xb, xs;
		to_jac(&ja, &a);
		to_jac(&jb, &b);
		to_jac(&jc, &c);
		T_NAME(jac_add)(&t, &ja, &jb);
		T_NAME(jac_add)(&l, &t, &jc);
		T_NAME(jac_add)(&t, &jb, &jc);
		T_NAME(jac_add)(&r, &ja, &t);
		bad += !T_NAME(jac_eq)(&l, &r);           /* (a+b)+c = a+(b+c) */
		T_NAME(jac_add)(&l, &ja, &jb);
		T_NAME(jac_add)(&r, &jb, &ja);
		bad += !T_NAME(jac_eq)(&l, &r);           /* a+b = b+a */
		T_NAME(jac_to_xyzz)(&xa, &ja);
		to_xyzz(&xb, &b);
		T_NAME(xyzz_add)(&xs, &xa, &xb);
		T_NAME(xyzz_to_jac)(&t, &xs);
		bad += !T_NAME(jac_eq)(&t, &l);           /* XYZZ sum = Jacobian sum */
		T_NAME(jac_to_xyzz)(&xa, &l);
		bad += !T_NAME(xyzz_eq)(&xa, &xs);
		to_jac(&t, &a);                           /* another Z for the same point */
		bad += !T_NAME(jac_eq)(&t, &ja) || T_NAME(jac_eq)(&t, &jb);
		T_NAME(jac_neg)(&t, &ja);
		T_NAME(jac_add)(&t, &t, &ja);
		bad += !T_NAME(jac_is_inf)(&t);
		T_NAME(xyzz_neg)(&xb, &xa);
		T_NAME(xyzz_add)(&xb, &xb, &xa);
		bad += !T_NAME(xyzz_is_inf)(&xb);
		T_AFF aa, na;
		to_aff(&aa, &a);
		T_NAME(affine_neg)(&na, &aa);
		opt on;
		o_neg(&on, &a);
		from_aff(&c, &na);
		bad += !o_eq(&c, &on) || T_NAME(affine_eq)(&aa, &na);
		bad += !T_NAME(jac_eq_affine)(&ja, &aa) || T_NAME(jac_eq_affine)(&ja, &na);
	}
	ct_ok(!bad, "associativity, commutativity, P + (-P) = O, Jacobian vs XYZZ, equality across Z");
}

static void t_affine(void)
{
	enum { N = 17 };
	T_JAC j[N];
	T_AFF a[N], one;
	opt o[N], t;
	int bad = 0;

	for (int i = 0; i < N; i++) {
		if (i % 5 == 2)
			o[i].inf = 1;
		else
			o[i] = o_rand_sub();
		to_jac(&j[i], &o[i]);
	}
	T_NAME(jac_batch_to_affine)(a, j, N);
	for (int i = 0; i < N; i++) {
		from_aff(&t, &a[i]);
		bad += !o_eq(&t, &o[i]);
		T_NAME(jac_to_affine)(&one, &j[i]);
		from_aff(&t, &one);
		bad += !o_eq(&t, &o[i]);
		T_NAME(jac_from_affine)(&j[i], &a[i]);
		bad += !jac_is(&j[i], &o[i]);
	}
	T_NAME(jac_batch_to_affine)(a, j, 0);
	ct_ok(!bad, "jac_to_affine and jac_batch_to_affine (17 points, 4 infinities), from_affine");
}

/* The fast endomorphism subgroup check vs the definition r·P = O. */
static void t_subgroup(void)
{
	int bad = 0, outside = 0;
	opt p, t;
	T_AFF a;
	T_JAC j;

	for (int i = 0; i < 6; i++) {
		o_rand_curve(&p);
		o_mul(&t, &p, group_r, 4);
		to_aff(&a, &p);
		outside += !t.inf;
		bad += T_NAME(affine_in_subgroup)(&a) != t.inf;
	}
#ifdef T_COFACTOR_ONE
	ct_ok(!bad && outside == 0,
	      "random curve points: all in the subgroup (cofactor 1), in_subgroup agrees (%d bad)", bad);
#else
	ct_ok(!bad && outside > 0,
	      "random curve points: in_subgroup agrees with r·P = O (%d of 6 outside)", outside);
#endif

	bad = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t raw[4];
		tfr k;
		opt g = o_gen();
		rand_scalar(raw, &k);
		o_mul(&p, &g, raw, 4);
		to_aff(&a, &p);
		o_mul(&t, &p, group_r, 4);
		bad += !t.inf || !T_NAME(affine_in_subgroup)(&a);
	}
	ct_ok(!bad, "random subgroup points k·G: r·P = O and in_subgroup");

	bad = 0;
	for (int i = 0; i < 3; i++) {
		o_rand_curve(&p);
		to_jac(&j, &p);
		T_NAME(clear_cofactor)(&j, &j);
		from_jac(&p, &j);
		to_aff(&a, &p);
		o_mul(&t, &p, group_r, 4);
		bad += !t.inf || p.inf || !T_NAME(affine_in_subgroup)(&a);
	}
	ct_ok(!bad, "clear_cofactor(random curve point): r·P = O and in_subgroup");

	bad = 0;
	for (int i = 0; i < 8; i++) {
		T_F_RAND(&a.x);
		T_F_RAND(&a.y);
		p.x = a.x, p.y = a.y, p.inf = 0;
		to_jac(&j, &p);
		bad += T_NAME(affine_on_curve)(&a) != o_on_curve(&p);
		bad += T_NAME(jac_on_curve)(&j) != o_on_curve(&p);
		bad += T_NAME(affine_in_subgroup)(&a) && !o_on_curve(&p);
	}
	ct_ok(!bad, "random (x, y): on_curve agrees with the oracle equation; off-curve not in subgroup");
}

/* The parts that run under both field paths. */
static void t_paths(void)
{
	if (!cz_fp_have_adx()) {
		cz_field_force_portable(true);
		t_mul("portable");
		t_add("portable");
		t_special("portable");
		ct_skip("CPU lacks BMI2/ADX", "[adx] mul");
		ct_skip("CPU lacks BMI2/ADX", "[adx] mul random");
		ct_skip("CPU lacks BMI2/ADX", "[adx] add");
		ct_skip("CPU lacks BMI2/ADX", "[adx] dbl");
		ct_skip("CPU lacks BMI2/ADX", "[adx] special");
		return;
	}
	cz_field_force_portable(true);
	t_mul("portable");
	t_add("portable");
	t_special("portable");
	cz_field_force_portable(false);
	t_mul("adx");
	t_add("adx");
	t_special("adx");
}
#define T_PATHS_COUNT 10

/* Everything above: the number of ct_ok lines it prints. */
static void t_all_generic(void)
{
	T_SET_B(&ob);
	t_generator();
	t_paths();
	t_laws();
	t_affine();
	t_subgroup();
}
#define T_GENERIC_COUNT (3 + T_PATHS_COUNT + 1 + 1 + 4)

/* ---- the zcash encodings ---------------------------------------------- */
#ifdef T_GEN_COMPRESSED

/* p, the base field's modulus, big-endian (published constant). */
static const char p_hex[] =
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
static const char gen_compressed[] = T_GEN_COMPRESSED;
static const char gen_uncompressed[] = T_GEN_UNCOMPRESSED;

static int expect(int got, int want, const char *what, int *bad)
{
	if (got != want) {
		ct_diag("%s: got %d (%s), want %d", what, got, cz_point_strerror(got), want);
		++*bad;
	}
	return got == want;
}

/* Published vectors, round trips against the oracle's points, and one
 * rejection code per malformed input. */
static void t_codec(void)
{
	enum { C = T_COMPRESSED_BYTES, U = T_UNCOMPRESSED_BYTES, PARTS = C / CZ_FP_BYTES };
	uint8_t c[C], u[U], w[U];
	T_AFF a, na;
	opt g = o_gen(), p, t;
	char what[64];
	int bad = 0, n;

	T_NAME(to_compressed)(c, &T_GEN);
	unhex(w, gen_compressed, sizeof(c));
	bad += memcmp(c, w, sizeof(c)) != 0;
	bad += T_NAME(from_compressed)(&a, w) != 0 || !T_NAME(affine_eq)(&a, &T_GEN);
	T_NAME(to_uncompressed)(u, &T_GEN);
	unhex(w, gen_uncompressed, sizeof(u));
	bad += memcmp(u, w, sizeof(u)) != 0;
	bad += T_NAME(from_uncompressed)(&a, w) != 0 || !T_NAME(affine_eq)(&a, &T_GEN);
	ct_ok(!bad, "generator: published compressed %.8s... and uncompressed encodings, both ways",
	      gen_compressed);

	bad = 0;
	for (int i = 0; i < 8; i++) {
		p = i ? o_rand_sub() : g;
		if (i == 1)
			o_neg(&p, &g);
		to_aff(&na, &p);
		T_NAME(to_compressed)(c, &na);
		bad += (T_F_LARGEST(&na.y) ? 0x20 : 0) != (c[0] & 0x20);
		bad += (c[0] & 0xc0) != 0x80;
		bad += T_NAME(from_compressed)(&a, c) != 0 || !T_NAME(affine_eq)(&a, &na);
		T_NAME(to_uncompressed)(u, &na);
		bad += (u[0] & 0xe0) != 0;
		bad += T_NAME(from_uncompressed)(&a, u) != 0 || !T_NAME(affine_eq)(&a, &na);
	}
	ct_ok(!bad, "round trips of G, -G and random subgroup points (both encodings, sign flag)");

	bad = 0;
	t.inf = 1;
	to_aff(&na, &t);
	T_NAME(to_compressed)(c, &na);
	T_NAME(to_uncompressed)(u, &na);
	bad += c[0] != 0xc0 || u[0] != 0x40;
	for (size_t i = 1; i < sizeof(u); i++)
		bad += u[i] != 0 || (i < sizeof(c) && c[i] != 0);
	bad += T_NAME(from_compressed)(&a, c) != 0 || !T_NAME(affine_is_inf)(&a);
	bad += T_NAME(from_uncompressed)(&a, u) != 0 || !T_NAME(affine_is_inf)(&a);
	ct_ok(!bad, "infinity: exactly c0 00.. / 40 00.., and decodes to (0, 0)");

	/* Rejections, one code each. */
	bad = 0;
	unhex(c, gen_compressed, sizeof(c));
	unhex(u, gen_uncompressed, sizeof(u));
	memcpy(w, c, sizeof(c));
	w[0] &= 0x7f;
	expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_FLAGS, "compressed without 0x80", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x80;
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_FLAGS, "uncompressed with 0x80", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x20;
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_FLAGS, "uncompressed with sign", &bad);
	memset(w, 0, sizeof(w));
	w[0] = 0xe0;
	expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_FLAGS, "infinity with sign", &bad);
	w[0] = 0xc0;
	w[C - 1] = 1;
	expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_FLAGS, "infinity, non-zero tail", &bad);
	w[C - 1] = 0;
	w[0] = 0xc1;
	expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_FLAGS, "infinity, non-zero byte 0", &bad);
	memset(w, 0, sizeof(w));
	w[0] = 0x40;
	w[U - 1] = 1;
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_FLAGS, "uncompressed infinity, tail", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x40;
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_FLAGS, "infinity flag on G", &bad);
	ct_ok(!bad, "bad flags rejected with CZ_EPOINT_FLAGS (8 cases)");

	/* Each Fp coordinate in turn set to p (the top one keeps its flags),
	 * and the compressed top one to 2^381 - 1. */
	bad = 0, n = 0;
	for (int j = 0; j < PARTS; j++, n++) {
		memcpy(w, c, sizeof(c));
		unhex(w + j * CZ_FP_BYTES, p_hex, CZ_FP_BYTES);
		w[0] |= c[0] & 0xe0;
		snprintf(what, sizeof(what), "compressed, Fp coordinate %d of x = p", j);
		expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_RANGE, what, &bad);
	}
	memcpy(w, c, sizeof(c));
	memset(w, 0xff, CZ_FP_BYTES);
	w[0] = 0x9f;
	expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_RANGE, "compressed x = 2^381 - 1", &bad);
	n++;
	for (int j = 0; j < 2 * PARTS; j++, n++) {
		memcpy(w, u, sizeof(u));
		unhex(w + j * CZ_FP_BYTES, p_hex, CZ_FP_BYTES);
		snprintf(what, sizeof(what), "uncompressed, Fp coordinate %d of (x, y) = p", j);
		expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_RANGE, what, &bad);
	}
	ct_ok(!bad, "coordinates >= p rejected with CZ_EPOINT_RANGE (%d cases)", n);

	bad = 0;
	{
		tf x, y2;
		for (uint64_t v = 1;; v++) { /* the first small x with x^3 + b a non-square */
			T_F_SMALL(&x, v);
			T_F_SQR(&y2, &x);
			T_F_MUL(&y2, &y2, &x);
			T_F_ADD(&y2, &y2, &ob);
			if (T_F_NONSQUARE(&y2))
				break;
		}
		T_F_TO_BE(w, &x);
		w[0] |= 0x80;
		expect(T_NAME(from_compressed)(&a, w), CZ_EPOINT_CURVE, "x^3 + b non-square", &bad);
	}
	memcpy(w, u, sizeof(u));
	w[sizeof(u) - 1] ^= 1;
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_CURVE, "G with y off by one bit", &bad);
	memset(w, 0, sizeof(w));
	expect(T_NAME(from_uncompressed)(&a, w), CZ_EPOINT_CURVE, "(0, 0) without the flag", &bad);
	ct_ok(!bad, "off-curve points rejected with CZ_EPOINT_CURVE (3 cases)");

	bad = 0;
	do {
		o_rand_curve(&p);
		o_mul(&t, &p, group_r, 4);
	} while (t.inf);
	to_aff(&na, &p);
	T_NAME(to_compressed)(c, &na);
	T_NAME(to_uncompressed)(u, &na);
	expect(T_NAME(from_compressed)(&a, c), CZ_EPOINT_SUBGROUP, "compressed, outside the subgroup", &bad);
	expect(T_NAME(from_uncompressed)(&a, u), CZ_EPOINT_SUBGROUP, "uncompressed, outside the subgroup",
	       &bad);
	const char *e[5] = { cz_point_strerror(0), cz_point_strerror(CZ_EPOINT_FLAGS),
			     cz_point_strerror(CZ_EPOINT_RANGE), cz_point_strerror(CZ_EPOINT_CURVE),
			     cz_point_strerror(CZ_EPOINT_SUBGROUP) };
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < i; j++)
			bad += !e[i] || !e[j] || !strcmp(e[i], e[j]);
	ct_ok(!bad, "points outside " T_GROUP " rejected with CZ_EPOINT_SUBGROUP; strerror texts distinct");
}
#define T_CODEC_COUNT 7
#else
#define T_CODEC_COUNT 0
static void t_codec(void)
{
}
#endif

#endif
