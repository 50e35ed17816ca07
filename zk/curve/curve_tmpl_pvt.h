/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/curve_tmpl_pvt.h — short-Weierstrass point arithmetic for y^2 = x^3 + b,
 * written once and instantiated per curve group.  Private: included only by
 * the group's .c file (zk/curve/g1.c, g2.c, bn254_g1.c, bn254_g2.c, through
 * zk/curve/curve_inst_tmpl_pvt.h, which names the parameters below from the
 * group's prefixes), never by callers.
 *
 * Why macros: G1 (over Fp) and G2 (over Fp2) share every formula, and so
 * will BN254's groups; the including file names the coordinate field's
 * operations and the point types, then includes this file once.
 *
 * Representations (all of them take infinity anywhere):
 *   affine   (x, y); (0, 0) is infinity (not on the curve since b != 0).
 *   Jacobian (X, Y, Z):   x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
 *   XYZZ     (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is
 *            infinity.  The MSM bucket accumulator: mixed add is 8M + 2S and
 *            needs no doubling-detection juggling beyond one compare.
 *   projective (X, Y, Z): x = X/Z, y = Y/Z, only inside the constant-time
 *            scalar multiplication, because the Renes–Costello–Batina
 *            formulas for a = 0 are complete there (no branches at all).
 *
 * The Jacobian/XYZZ add functions branch on infinity and on P = ±Q: they are
 * for public points (MSM, verification).  Secret scalars go through
 * cz_gX_mul, which is branch-free and scans its table in constant time.
 * Every function allows the result to alias any input.
 *
 * The including file defines:
 *   CI_F            the coordinate field type
 *   CI_F_ADD SUB DBL NEG MUL SQR INV (constant time) IS_ZERO EQ
 *   CI_F_ZERO CI_F_ONE  pointers to the constants 0 and 1
 *   CI_F_MUL_LAZY CI_F_SQR_LAZY  optional: products that may stay unreduced
 *                   (Fp: < 2p, zk/field/field_inline.h), used only where the
 *                   result feeds nothing but further products; default: the
 *                   reduced ones
 *   CI_B CI_B3      pointers to b and 3b
 *   CI_AFF CI_JAC CI_XYZZ  the point types
 *   CI_NAME(n)      the public name of function n (e.g. cz_g1_##n)
 *   CI_S CI_S_LIMBS CI_S_FROM_MONT  the scalar field of mul(): its type,
 *                   limb count (at most 4) and standard-form conversion
 */
#ifndef CI_NAME
#error "zk/curve/curve_tmpl_pvt.h is private to zk/curve/g1.c and zk/curve/g2.c"
#endif

#include <stdint.h>
#include <string.h>

#ifndef CI_F_MUL_LAZY
#define CI_F_MUL_LAZY CI_F_MUL
#define CI_F_SQR_LAZY CI_F_SQR
#endif

typedef CI_F ci_f;
typedef CI_AFF ci_aff;
typedef CI_JAC ci_jac;
typedef CI_XYZZ ci_xyzz;
typedef struct { ci_f x, y, z; } ci_proj; /* homogeneous projective */

/* ---- affine ---------------------------------------------------------- */

bool CI_NAME(affine_is_inf)(const ci_aff *p)
{
	return CI_F_IS_ZERO(&p->x) && CI_F_IS_ZERO(&p->y);
}

bool CI_NAME(affine_eq)(const ci_aff *a, const ci_aff *b)
{
	return CI_F_EQ(&a->x, &b->x) && CI_F_EQ(&a->y, &b->y);
}

void CI_NAME(affine_neg)(ci_aff *r, const ci_aff *p)
{
	r->x = p->x;
	CI_F_NEG(&r->y, &p->y); /* -0 = 0 keeps infinity (0, 0) */
}

/* y^2 == x^3 + b */
bool CI_NAME(affine_on_curve)(const ci_aff *p)
{
	ci_f l, rr;

	if (CI_NAME(affine_is_inf)(p))
		return true;
	CI_F_SQR(&l, &p->y);
	CI_F_SQR(&rr, &p->x);
	CI_F_MUL(&rr, &rr, &p->x);
	CI_F_ADD(&rr, &rr, CI_B);
	return CI_F_EQ(&l, &rr);
}

/* ---- Jacobian -------------------------------------------------------- */

void CI_NAME(jac_set_inf)(ci_jac *r)
{
	r->x = *CI_F_ONE;
	r->y = *CI_F_ONE;
	r->z = *CI_F_ZERO;
}

bool CI_NAME(jac_is_inf)(const ci_jac *p)
{
	return CI_F_IS_ZERO(&p->z);
}

void CI_NAME(jac_from_affine)(ci_jac *r, const ci_aff *p)
{
	if (CI_NAME(affine_is_inf)(p)) {
		CI_NAME(jac_set_inf)(r);
		return;
	}
	r->x = p->x;
	r->y = p->y;
	r->z = *CI_F_ONE;
}

/* Y^2 == X^3 + b·Z^6 */
bool CI_NAME(jac_on_curve)(const ci_jac *p)
{
	ci_f l, rr, z2, z6;

	if (CI_NAME(jac_is_inf)(p))
		return true;
	CI_F_SQR(&l, &p->y);
	CI_F_SQR(&rr, &p->x);
	CI_F_MUL(&rr, &rr, &p->x);
	CI_F_SQR(&z2, &p->z);
	CI_F_MUL(&z6, &z2, &p->z);
	CI_F_SQR(&z6, &z6);
	CI_F_MUL(&z6, &z6, CI_B);
	CI_F_ADD(&rr, &rr, &z6);
	return CI_F_EQ(&l, &rr);
}

/* One constant-time inversion: a few hundred multiplications. */
void CI_NAME(jac_to_affine)(ci_aff *r, const ci_jac *p)
{
	ci_f zi, zi2;

	if (CI_NAME(jac_is_inf)(p)) {
		r->x = *CI_F_ZERO;
		r->y = *CI_F_ZERO;
		return;
	}
	CI_F_INV(&zi, &p->z);
	CI_F_SQR(&zi2, &zi);
	CI_F_MUL(&r->x, &p->x, &zi2);
	CI_F_MUL(&zi2, &zi2, &zi);
	CI_F_MUL(&r->y, &p->y, &zi2);
}

/*
 * Montgomery's trick: one inversion and 3(n-1) multiplications for n points,
 * plus 4 per point for the coordinates.  The running prefix products live in
 * r[i].x until the backward pass consumes them, so no scratch memory is
 * needed.  Infinities (Z = 0) are skipped in the products.  r and p must not
 * overlap.
 */
void CI_NAME(jac_batch_to_affine)(ci_aff *r, const ci_jac *p, size_t n)
{
	ci_f acc = *CI_F_ONE, inv, zi, zi2;

	for (size_t i = 0; i < n; i++) {
		r[i].x = acc; /* product of the z's before i */
		if (!CI_NAME(jac_is_inf)(&p[i]))
			CI_F_MUL(&acc, &acc, &p[i].z);
	}
	CI_F_INV(&inv, &acc);
	for (size_t i = n; i-- > 0;) {
		if (CI_NAME(jac_is_inf)(&p[i])) {
			r[i].x = *CI_F_ZERO;
			r[i].y = *CI_F_ZERO;
			continue;
		}
		CI_F_MUL(&zi, &inv, &r[i].x);     /* 1/z_i */
		CI_F_MUL(&inv, &inv, &p[i].z);    /* 1/(z_0 ... z_{i-1}) */
		CI_F_SQR(&zi2, &zi);
		CI_F_MUL(&r[i].x, &p[i].x, &zi2);
		CI_F_MUL(&zi2, &zi2, &zi);
		CI_F_MUL(&r[i].y, &p[i].y, &zi2);
	}
}

bool CI_NAME(jac_eq)(const ci_jac *a, const ci_jac *b)
{
	ci_f za2, zb2, l, rr;
	bool ia = CI_NAME(jac_is_inf)(a), ib = CI_NAME(jac_is_inf)(b);

	if (ia || ib)
		return ia && ib;
	CI_F_SQR(&za2, &a->z);
	CI_F_SQR(&zb2, &b->z);
	CI_F_MUL(&l, &a->x, &zb2);
	CI_F_MUL(&rr, &b->x, &za2);
	if (!CI_F_EQ(&l, &rr))
		return false;
	CI_F_MUL(&za2, &za2, &a->z);
	CI_F_MUL(&zb2, &zb2, &b->z);
	CI_F_MUL(&l, &a->y, &zb2);
	CI_F_MUL(&rr, &b->y, &za2);
	return CI_F_EQ(&l, &rr);
}

/* Equality of a Jacobian and an affine point: 3M + 1S, no inversion. */
bool CI_NAME(jac_eq_affine)(const ci_jac *a, const ci_aff *b)
{
	ci_jac bj;

	CI_NAME(jac_from_affine)(&bj, b);
	return CI_NAME(jac_eq)(a, &bj);
}

void CI_NAME(jac_neg)(ci_jac *r, const ci_jac *p)
{
	r->x = p->x;
	CI_F_NEG(&r->y, &p->y);
	r->z = p->z;
}

/* dbl-2009-l (a = 0): 2M + 5S.  Infinity and 2-torsion give Z3 = 0. */
void CI_NAME(jac_dbl)(ci_jac *r, const ci_jac *p)
{
	ci_f a, b, c, d, e, f, t;

	CI_F_SQR(&a, &p->x);
	CI_F_SQR(&b, &p->y);
	CI_F_SQR(&c, &b);
	CI_F_ADD(&d, &p->x, &b);
	CI_F_SQR(&d, &d);
	CI_F_SUB(&d, &d, &a);
	CI_F_SUB(&d, &d, &c);
	CI_F_DBL(&d, &d);          /* D = 2((X+B)^2 - A - C) = 4XY^2 */
	CI_F_DBL(&e, &a);
	CI_F_ADD(&e, &e, &a);      /* E = 3A */
	CI_F_SQR(&f, &e);
	CI_F_MUL(&r->z, &p->y, &p->z);
	CI_F_DBL(&r->z, &r->z);    /* Z3 = 2YZ (p->y, p->z read before x, y change) */
	CI_F_DBL(&t, &d);
	CI_F_SUB(&r->x, &f, &t);   /* X3 = F - 2D */
	CI_F_SUB(&t, &d, &r->x);
	CI_F_MUL(&t, &e, &t);
	CI_F_DBL(&c, &c);
	CI_F_DBL(&c, &c);
	CI_F_DBL(&c, &c);
	CI_F_SUB(&r->y, &t, &c);   /* Y3 = E(D - X3) - 8C */
}

/* add-2007-bl: 11M + 5S; falls back to doubling when a = b. */
void CI_NAME(jac_add)(ci_jac *r, const ci_jac *a, const ci_jac *b)
{
	ci_f z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;

	if (CI_NAME(jac_is_inf)(a)) {
		*r = *b;
		return;
	}
	if (CI_NAME(jac_is_inf)(b)) {
		*r = *a;
		return;
	}
	CI_F_SQR(&z1z1, &a->z);
	CI_F_SQR(&z2z2, &b->z);
	CI_F_MUL(&u1, &a->x, &z2z2);
	CI_F_MUL(&u2, &b->x, &z1z1);
	CI_F_MUL(&s1, &a->y, &b->z);
	CI_F_MUL(&s1, &s1, &z2z2);
	CI_F_MUL(&s2, &b->y, &a->z);
	CI_F_MUL(&s2, &s2, &z1z1);
	CI_F_SUB(&h, &u2, &u1);
	CI_F_SUB(&rr, &s2, &s1);
	if (CI_F_IS_ZERO(&h)) {
		if (CI_F_IS_ZERO(&rr))
			CI_NAME(jac_dbl)(r, a);
		else
			CI_NAME(jac_set_inf)(r);
		return;
	}
	CI_F_DBL(&rr, &rr);        /* r = 2(S2 - S1) */
	CI_F_DBL(&i, &h);
	CI_F_SQR(&i, &i);          /* I = (2H)^2 */
	CI_F_MUL(&j, &h, &i);
	CI_F_MUL(&v, &u1, &i);
	CI_F_ADD(&t, &a->z, &b->z);
	CI_F_SQR(&t, &t);
	CI_F_SUB(&t, &t, &z1z1);
	CI_F_SUB(&t, &t, &z2z2);
	CI_F_MUL(&r->z, &t, &h);   /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2)H */
	CI_F_SQR(&t, &rr);
	CI_F_SUB(&t, &t, &j);
	CI_F_SUB(&t, &t, &v);
	CI_F_SUB(&r->x, &t, &v);   /* X3 = r^2 - J - 2V */
	CI_F_SUB(&t, &v, &r->x);
	CI_F_MUL(&t, &rr, &t);
	CI_F_MUL(&s1, &s1, &j);
	CI_F_DBL(&s1, &s1);
	CI_F_SUB(&r->y, &t, &s1);  /* Y3 = r(V - X3) - 2 S1 J */
}

/* madd-2007-bl: 7M + 4S; falls back to doubling when a = b. */
void CI_NAME(jac_add_affine)(ci_jac *r, const ci_jac *a, const ci_aff *b)
{
	ci_f z1z1, u2, s2, h, hh, i, j, rr, v, t, y1;

	if (CI_NAME(affine_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (CI_NAME(jac_is_inf)(a)) {
		CI_NAME(jac_from_affine)(r, b);
		return;
	}
	CI_F_SQR(&z1z1, &a->z);
	CI_F_MUL(&u2, &b->x, &z1z1);
	CI_F_MUL(&s2, &b->y, &a->z);
	CI_F_MUL(&s2, &s2, &z1z1);
	CI_F_SUB(&h, &u2, &a->x);
	CI_F_SUB(&rr, &s2, &a->y);
	if (CI_F_IS_ZERO(&h)) {
		if (CI_F_IS_ZERO(&rr))
			CI_NAME(jac_dbl)(r, a);
		else
			CI_NAME(jac_set_inf)(r);
		return;
	}
	y1 = a->y;
	CI_F_DBL(&rr, &rr);        /* r = 2(S2 - Y1) */
	CI_F_SQR(&hh, &h);
	CI_F_DBL(&i, &hh);
	CI_F_DBL(&i, &i);          /* I = 4 HH */
	CI_F_MUL(&j, &h, &i);
	CI_F_MUL(&v, &a->x, &i);
	CI_F_ADD(&t, &a->z, &h);
	CI_F_SQR(&t, &t);
	CI_F_SUB(&t, &t, &z1z1);
	CI_F_SUB(&r->z, &t, &hh);  /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
	CI_F_SQR(&t, &rr);
	CI_F_SUB(&t, &t, &j);
	CI_F_SUB(&t, &t, &v);
	CI_F_SUB(&r->x, &t, &v);   /* X3 = r^2 - J - 2V */
	CI_F_SUB(&t, &v, &r->x);
	CI_F_MUL(&t, &rr, &t);
	CI_F_MUL(&y1, &y1, &j);
	CI_F_DBL(&y1, &y1);
	CI_F_SUB(&r->y, &t, &y1);  /* Y3 = r(V - X3) - 2 Y1 J */
}

/* ---- XYZZ ------------------------------------------------------------ */

void CI_NAME(xyzz_set_inf)(ci_xyzz *r)
{
	r->x = *CI_F_ONE;
	r->y = *CI_F_ONE;
	r->zz = *CI_F_ZERO;
	r->zzz = *CI_F_ZERO;
}

bool CI_NAME(xyzz_is_inf)(const ci_xyzz *p)
{
	return CI_F_IS_ZERO(&p->zz);
}

void CI_NAME(xyzz_neg)(ci_xyzz *r, const ci_xyzz *p)
{
	*r = *p;
	CI_F_NEG(&r->y, &p->y);
}

void CI_NAME(xyzz_from_affine)(ci_xyzz *r, const ci_aff *p)
{
	if (CI_NAME(affine_is_inf)(p)) {
		CI_NAME(xyzz_set_inf)(r);
		return;
	}
	r->x = p->x;
	r->y = p->y;
	r->zz = *CI_F_ONE;
	r->zzz = *CI_F_ONE;
}

/* (X, Y, Z) -> (X, Y, Z^2, Z^3): 1M + 1S. */
void CI_NAME(jac_to_xyzz)(ci_xyzz *r, const ci_jac *p)
{
	ci_f zz;

	if (CI_NAME(jac_is_inf)(p)) {
		CI_NAME(xyzz_set_inf)(r);
		return;
	}
	CI_F_SQR(&zz, &p->z);
	CI_F_MUL(&r->zzz, &zz, &p->z);
	r->zz = zz;
	r->x = p->x;
	r->y = p->y;
}

/* With s = ZZZ/ZZ (so ZZ = s^2, ZZZ = s^3), Jacobian Z = s^2 = ZZ gives
 * X = x·ZZ^2 = X'·ZZ and Y = y·ZZ^3 = Y'·ZZZ: 2M, no inversion. */
void CI_NAME(xyzz_to_jac)(ci_jac *r, const ci_xyzz *p)
{
	ci_f zz = p->zz;

	if (CI_NAME(xyzz_is_inf)(p)) {
		CI_NAME(jac_set_inf)(r);
		return;
	}
	CI_F_MUL(&r->x, &p->x, &zz);
	CI_F_MUL(&r->y, &p->y, &p->zzz);
	r->z = zz;
}

bool CI_NAME(xyzz_eq)(const ci_xyzz *a, const ci_xyzz *b)
{
	ci_f l, rr;
	bool ia = CI_NAME(xyzz_is_inf)(a), ib = CI_NAME(xyzz_is_inf)(b);

	if (ia || ib)
		return ia && ib;
	CI_F_MUL(&l, &a->x, &b->zz);
	CI_F_MUL(&rr, &b->x, &a->zz);
	if (!CI_F_EQ(&l, &rr))
		return false;
	CI_F_MUL(&l, &a->y, &b->zzz);
	CI_F_MUL(&rr, &b->y, &a->zzz);
	return CI_F_EQ(&l, &rr);
}

/* dbl-2008-s-1 (a = 0): 6M + 3S (2 of them by ZZ, ZZZ). */
void CI_NAME(xyzz_dbl)(ci_xyzz *r, const ci_xyzz *p)
{
	ci_f u, v, w, s, m, t;

	CI_F_DBL(&u, &p->y);
	CI_F_SQR_LAZY(&v, &u);     /* V, W feed only products */
	CI_F_MUL_LAZY(&w, &u, &v);
	CI_F_MUL(&s, &p->x, &v);
	CI_F_SQR(&m, &p->x);
	CI_F_DBL(&t, &m);
	CI_F_ADD(&m, &m, &t);      /* M = 3 X^2 */
	CI_F_MUL(&r->zz, &v, &p->zz);
	CI_F_MUL(&r->zzz, &w, &p->zzz);
	CI_F_MUL(&w, &w, &p->y);   /* W·Y1, before Y1 is overwritten */
	CI_F_SQR(&t, &m);
	CI_F_SUB(&t, &t, &s);
	CI_F_SUB(&r->x, &t, &s);   /* X3 = M^2 - 2S */
	CI_F_SUB(&t, &s, &r->x);
	CI_F_MUL(&t, &m, &t);
	CI_F_SUB(&r->y, &t, &w);   /* Y3 = M(S - X3) - W·Y1 */
}

/* mdbl-2008-s-1: doubling an affine point into XYZZ, 2M + 3S. */
static void xyzz_dbl_affine(ci_xyzz *r, const ci_aff *p)
{
	ci_f u, v, w, s, m, t;

	CI_F_DBL(&u, &p->y);
	CI_F_SQR(&v, &u);
	CI_F_MUL(&w, &u, &v);
	CI_F_MUL(&s, &p->x, &v);
	CI_F_SQR(&m, &p->x);
	CI_F_DBL(&t, &m);
	CI_F_ADD(&m, &m, &t);
	r->zz = v;
	r->zzz = w;
	CI_F_MUL(&w, &w, &p->y);
	CI_F_SQR(&t, &m);
	CI_F_SUB(&t, &t, &s);
	CI_F_SUB(&r->x, &t, &s);
	CI_F_SUB(&t, &s, &r->x);
	CI_F_MUL(&t, &m, &t);
	CI_F_SUB(&r->y, &t, &w);
}

/* madd-2008-s: 8M + 2S; doubling when a = b, infinity when a = -b. */
void CI_NAME(xyzz_add_affine)(ci_xyzz *r, const ci_xyzz *a, const ci_aff *b)
{
	ci_f p, rr, pp, ppp, q, t;

	if (CI_NAME(affine_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (CI_NAME(xyzz_is_inf)(a)) {
		CI_NAME(xyzz_from_affine)(r, b);
		return;
	}
	CI_F_MUL(&p, &b->x, &a->zz);
	CI_F_SUB(&p, &p, &a->x);   /* P = X2·ZZ1 - X1 */
	CI_F_MUL(&rr, &b->y, &a->zzz);
	CI_F_SUB(&rr, &rr, &a->y); /* R = Y2·ZZZ1 - Y1 */
	if (CI_F_IS_ZERO(&p)) {
		if (CI_F_IS_ZERO(&rr))
			xyzz_dbl_affine(r, b);
		else
			CI_NAME(xyzz_set_inf)(r);
		return;
	}
	CI_F_SQR_LAZY(&pp, &p);    /* PP feeds only products */
	CI_F_MUL(&ppp, &p, &pp);
	CI_F_MUL(&q, &a->x, &pp);
	CI_F_MUL(&t, &a->y, &ppp); /* Y1·PPP, before Y1 is overwritten */
	CI_F_MUL(&r->zz, &a->zz, &pp);
	CI_F_MUL(&r->zzz, &a->zzz, &ppp);
	CI_F_SQR(&p, &rr);
	CI_F_SUB(&p, &p, &ppp);
	CI_F_SUB(&p, &p, &q);
	CI_F_SUB(&r->x, &p, &q);   /* X3 = R^2 - PPP - 2Q */
	CI_F_SUB(&q, &q, &r->x);
	CI_F_MUL(&q, &rr, &q);
	CI_F_SUB(&r->y, &q, &t);   /* Y3 = R(Q - X3) - Y1·PPP */
}

/* add-2008-s: 12M + 2S; doubling when a = b, infinity when a = -b. */
void CI_NAME(xyzz_add)(ci_xyzz *r, const ci_xyzz *a, const ci_xyzz *b)
{
	ci_f u1, u2, s1, s2, p, rr, pp, ppp, q, t;

	if (CI_NAME(xyzz_is_inf)(a)) {
		*r = *b;
		return;
	}
	if (CI_NAME(xyzz_is_inf)(b)) {
		*r = *a;
		return;
	}
	CI_F_MUL(&u1, &a->x, &b->zz);
	CI_F_MUL(&u2, &b->x, &a->zz);
	CI_F_MUL(&s1, &a->y, &b->zzz);
	CI_F_MUL(&s2, &b->y, &a->zzz);
	CI_F_SUB(&p, &u2, &u1);
	CI_F_SUB(&rr, &s2, &s1);
	if (CI_F_IS_ZERO(&p)) {
		if (CI_F_IS_ZERO(&rr))
			CI_NAME(xyzz_dbl)(r, a);
		else
			CI_NAME(xyzz_set_inf)(r);
		return;
	}
	CI_F_SQR_LAZY(&pp, &p);    /* PP and the two T feed only products */
	CI_F_MUL(&ppp, &p, &pp);
	CI_F_MUL(&q, &u1, &pp);
	CI_F_MUL_LAZY(&t, &a->zz, &b->zz);
	CI_F_MUL(&r->zz, &t, &pp);
	CI_F_MUL_LAZY(&t, &a->zzz, &b->zzz);
	CI_F_MUL(&r->zzz, &t, &ppp);
	CI_F_SQR(&t, &rr);
	CI_F_SUB(&t, &t, &ppp);
	CI_F_SUB(&t, &t, &q);
	CI_F_SUB(&r->x, &t, &q);   /* X3 = R^2 - PPP - 2Q */
	CI_F_SUB(&q, &q, &r->x);
	CI_F_MUL(&q, &rr, &q);
	CI_F_MUL(&s1, &s1, &ppp);
	CI_F_SUB(&r->y, &q, &s1);  /* Y3 = R(Q - X3) - S1·PPP */
}

/* ---- scalar multiplication ------------------------------------------- */

/*
 * Complete addition for a = 0 in homogeneous projective coordinates
 * (Renes, Costello, Batina 2016, algorithm 7): 12M + 2 m(3b), valid for all
 * inputs including infinity (0 : 1 : 0) and a = ±b, so it has no branches.
 */
static void proj_add(ci_proj *r, const ci_proj *a, const ci_proj *b)
{
	ci_f t0, t1, t2, t3, t4, x3, y3, z3;

	CI_F_MUL(&t0, &a->x, &b->x);
	CI_F_MUL(&t1, &a->y, &b->y);
	CI_F_MUL(&t2, &a->z, &b->z);
	CI_F_ADD(&t3, &a->x, &a->y);
	CI_F_ADD(&t4, &b->x, &b->y);
	CI_F_MUL(&t3, &t3, &t4);
	CI_F_ADD(&t4, &t0, &t1);
	CI_F_SUB(&t3, &t3, &t4);
	CI_F_ADD(&t4, &a->y, &a->z);
	CI_F_ADD(&x3, &b->y, &b->z);
	CI_F_MUL(&t4, &t4, &x3);
	CI_F_ADD(&x3, &t1, &t2);
	CI_F_SUB(&t4, &t4, &x3);
	CI_F_ADD(&x3, &a->x, &a->z);
	CI_F_ADD(&y3, &b->x, &b->z);
	CI_F_MUL(&x3, &x3, &y3);
	CI_F_ADD(&y3, &t0, &t2);
	CI_F_SUB(&y3, &x3, &y3);
	CI_F_DBL(&x3, &t0);
	CI_F_ADD(&t0, &x3, &t0);
	CI_F_MUL(&t2, &t2, CI_B3);
	CI_F_ADD(&z3, &t1, &t2);
	CI_F_SUB(&t1, &t1, &t2);
	CI_F_MUL(&y3, &y3, CI_B3);
	CI_F_MUL(&x3, &t4, &y3);
	CI_F_MUL(&t2, &t3, &t1);
	CI_F_SUB(&x3, &t2, &x3);
	CI_F_MUL(&y3, &y3, &t0);
	CI_F_MUL(&t1, &t1, &z3);
	CI_F_ADD(&y3, &t1, &y3);
	CI_F_MUL(&t0, &t0, &t3);
	CI_F_MUL(&z3, &z3, &t4);
	CI_F_ADD(&z3, &z3, &t0);
	r->x = x3;
	r->y = y3;
	r->z = z3;
}

/* Complete doubling for a = 0 (RCB algorithm 9): 6M + 2S + 1 m(3b). */
static void proj_dbl(ci_proj *r, const ci_proj *a)
{
	ci_f t0, t1, t2, x3, y3, z3;

	CI_F_SQR(&t0, &a->y);
	CI_F_DBL(&z3, &t0);
	CI_F_DBL(&z3, &z3);
	CI_F_DBL(&z3, &z3);
	CI_F_MUL(&t1, &a->y, &a->z);
	CI_F_SQR(&t2, &a->z);
	CI_F_MUL(&t2, &t2, CI_B3);
	CI_F_MUL(&x3, &t2, &z3);
	CI_F_ADD(&y3, &t0, &t2);
	CI_F_MUL(&z3, &t1, &z3);
	CI_F_DBL(&t1, &t2);
	CI_F_ADD(&t2, &t1, &t2);
	CI_F_SUB(&t0, &t0, &t2);
	CI_F_MUL(&y3, &t0, &y3);
	CI_F_ADD(&y3, &x3, &y3);
	CI_F_MUL(&t1, &a->x, &a->y);
	CI_F_MUL(&x3, &t0, &t1);
	CI_F_DBL(&x3, &x3);
	r->x = x3;
	r->y = y3;
	r->z = z3;
}

/* Constant-time table read: touches every entry, selects with masks. */
static void ct_lookup(ci_proj *r, const ci_proj *tab, size_t n, uint64_t idx)
{
	uint64_t *out = (uint64_t *)r;
	const size_t words = sizeof(ci_proj) / sizeof(uint64_t);

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		const uint64_t *in = (const uint64_t *)&tab[i];
		uint64_t d = (uint64_t)i ^ idx;
		uint64_t mask = ((d | (0 - d)) >> 63) - 1; /* all ones iff i == idx */
		for (size_t w = 0; w < words; w++)
			out[w] |= in[w] & mask;
	}
}

#define CI_WIN 4
#define CI_TAB (1u << CI_WIN)

/*
 * r = k·P with a fixed 4-bit window over all 64·CI_S_LIMBS scalar bits: 252 complete
 * doublings and 63 complete additions, each window's multiple read with
 * ct_lookup, so the instruction and memory trace does not depend on k.
 * Cost: about 2.5k field multiplications (plus 15 additions for the table).
 * (P itself is not secret: its infinity test may branch.)
 */
void CI_NAME(mul)(ci_jac *r, const ci_jac *p, const CI_S *k)
{
	ci_proj tab[CI_TAB], acc, t;
	uint64_t s[CI_S_LIMBS];
	ci_f z2;

	CI_S_FROM_MONT(s, k);
	/* Jacobian (X, Y, Z) -> projective (X·Z, Y, Z^3). */
	tab[0].x = *CI_F_ZERO;
	tab[0].y = *CI_F_ONE;
	tab[0].z = *CI_F_ZERO;
	if (CI_NAME(jac_is_inf)(p)) {
		tab[1] = tab[0];
	} else {
		CI_F_MUL(&tab[1].x, &p->x, &p->z);
		tab[1].y = p->y;
		CI_F_SQR(&z2, &p->z);
		CI_F_MUL(&tab[1].z, &z2, &p->z);
	}
	for (unsigned i = 2; i < CI_TAB; i++)
		proj_add(&tab[i], &tab[i - 1], &tab[1]);

	const unsigned nwin = CI_S_LIMBS * 64 / CI_WIN;
	for (unsigned w = nwin; w-- > 0;) {
		uint64_t d = (s[w * CI_WIN / 64] >> (w * CI_WIN % 64)) & (CI_TAB - 1);
		ct_lookup(&t, tab, CI_TAB, d);
		if (w == nwin - 1) {
			acc = t;
			continue;
		}
		for (unsigned j = 0; j < CI_WIN; j++)
			proj_dbl(&acc, &acc);
		proj_add(&acc, &acc, &t);
	}
	/* Projective (X, Y, Z) -> Jacobian (X·Z, Y·Z^2, Z); Z = 0 stays infinity. */
	CI_F_MUL(&r->x, &acc.x, &acc.z);
	CI_F_SQR(&z2, &acc.z);
	CI_F_MUL(&r->y, &acc.y, &z2);
	r->z = acc.z;
	memset(s, 0, sizeof(s));
}

/*
 * r = k·P for a public integer k (nlimbs little-endian 64-bit limbs, any
 * size): left-to-right double-and-add, variable time.  For subgroup checks,
 * cofactor clearing and other public scalars.
 */
void CI_NAME(mul_vartime)(ci_jac *r, const ci_jac *p, const uint64_t *k, size_t nlimbs)
{
	ci_jac acc, base = *p;

	size_t top = nlimbs * 64;

	while (top > 0 && !((k[(top - 1) / 64] >> ((top - 1) % 64)) & 1))
		top--; /* skip leading zero bits: no doublings of infinity */
	CI_NAME(jac_set_inf)(&acc);
	for (size_t i = top; i-- > 0;) {
		CI_NAME(jac_dbl)(&acc, &acc);
		if ((k[i / 64] >> (i % 64)) & 1)
			CI_NAME(jac_add)(&acc, &acc, &base);
	}
	*r = acc;
}
