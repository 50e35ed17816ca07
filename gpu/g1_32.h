/* SPDX-License-Identifier: MIT */
/*
 * gpu/g1_32.h — BLS12-381 G1 point arithmetic on gpu/field32.h, for host
 * and device: what the MSM kernels need (XYZZ bucket accumulators, mixed
 * addition from affine bases, doubling) and Jacobian mixed add/double.
 *
 * The formulas are zk/curve_impl.h's (EFD names below), so a kernel's result
 * can be checked against cz_g1_* on the host point for point.  Layouts match
 * zk/: cz_g1a32 is cz_g1_affine ((0, 0) is infinity), cz_g1xyzz32 is
 * cz_g1_xyzz (ZZ = 0 is infinity), cz_g1jac32 is cz_g1_jac (Z = 0).
 *
 * These additions branch on infinity and on P = ±Q: MSM data is public, and
 * in a warp the branches are rare (a bucket meets its own point only when a
 * base repeats).  Every function allows r to alias any input.
 */
#ifndef CZ_GPU_G1_32_H
#define CZ_GPU_G1_32_H

#include "gpu/field32.h"

typedef struct { cz_fp32 x, y; } cz_g1a32;
typedef struct { cz_fp32 x, y, zz, zzz; } cz_g1xyzz32;
typedef struct { cz_fp32 x, y, z; } cz_g1jac32;

CZ_HD int cz_g1a32_is_inf(const cz_g1a32 *p)
{
	return cz_fp32_is_zero(&p->x) & cz_fp32_is_zero(&p->y);
}

CZ_HD void cz_g1xyzz32_set_inf(cz_g1xyzz32 *r)
{
	cz_fp32_set_one(&r->x);
	cz_fp32_set_one(&r->y);
	cz_fp32_set_zero(&r->zz);
	cz_fp32_set_zero(&r->zzz);
}

CZ_HD int cz_g1xyzz32_is_inf(const cz_g1xyzz32 *p)
{
	return cz_fp32_is_zero(&p->zz);
}

CZ_HD void cz_g1xyzz32_from_affine(cz_g1xyzz32 *r, const cz_g1a32 *p)
{
	if (cz_g1a32_is_inf(p)) {
		cz_g1xyzz32_set_inf(r);
		return;
	}
	r->x = p->x;
	r->y = p->y;
	cz_fp32_set_one(&r->zz);
	cz_fp32_set_one(&r->zzz);
}

/* dbl-2008-s-1 (a = 0): 6M + 3S.  Infinity stays infinity (ZZ = 0). */
CZ_HD_CALL void cz_g1xyzz32_dbl(cz_g1xyzz32 *r, const cz_g1xyzz32 *p)
{
	cz_fp32 u, v, w, s, m, t;

	cz_fp32_dbl(&u, &p->y);
	cz_fp32_sqr(&v, &u);
	cz_fp32_mul(&w, &u, &v);
	cz_fp32_mul(&s, &p->x, &v);
	cz_fp32_sqr(&m, &p->x);
	cz_fp32_dbl(&t, &m);
	cz_fp32_add(&m, &m, &t);        /* M = 3 X^2 */
	cz_fp32_mul(&r->zz, &v, &p->zz);
	cz_fp32_mul(&r->zzz, &w, &p->zzz);
	cz_fp32_mul(&w, &w, &p->y);     /* W·Y1, before Y1 is overwritten */
	cz_fp32_sqr(&t, &m);
	cz_fp32_sub(&t, &t, &s);
	cz_fp32_sub(&r->x, &t, &s);     /* X3 = M^2 - 2S */
	cz_fp32_sub(&t, &s, &r->x);
	cz_fp32_mul(&t, &m, &t);
	cz_fp32_sub(&r->y, &t, &w);     /* Y3 = M(S - X3) - W·Y1 */
}

/* mdbl-2008-s-1: an affine point doubled into XYZZ, 2M + 3S. */
CZ_HD_CALL void cz_g1xyzz32_dbl_affine(cz_g1xyzz32 *r, const cz_g1a32 *p)
{
	cz_fp32 u, v, w, s, m, t;

	cz_fp32_dbl(&u, &p->y);
	cz_fp32_sqr(&v, &u);
	cz_fp32_mul(&w, &u, &v);
	cz_fp32_mul(&s, &p->x, &v);
	cz_fp32_sqr(&m, &p->x);
	cz_fp32_dbl(&t, &m);
	cz_fp32_add(&m, &m, &t);
	cz_fp32 y = p->y;
	r->zz = v;
	r->zzz = w;
	cz_fp32_mul(&w, &w, &y);
	cz_fp32_sqr(&t, &m);
	cz_fp32_sub(&t, &t, &s);
	cz_fp32_sub(&r->x, &t, &s);
	cz_fp32_sub(&t, &s, &r->x);
	cz_fp32_mul(&t, &m, &t);
	cz_fp32_sub(&r->y, &t, &w);
}

/* madd-2008-s: 8M + 2S; doubling when a = b, infinity when a = -b. */
CZ_HD_CALL void cz_g1xyzz32_add_affine(cz_g1xyzz32 *r, const cz_g1xyzz32 *a, const cz_g1a32 *b)
{
	cz_fp32 p, rr, pp, ppp, q, t;

	if (cz_g1a32_is_inf(b)) {
		*r = *a;
		return;
	}
	if (cz_g1xyzz32_is_inf(a)) {
		cz_g1xyzz32_from_affine(r, b);
		return;
	}
	cz_fp32_mul(&p, &b->x, &a->zz);
	cz_fp32_sub(&p, &p, &a->x);     /* P = X2·ZZ1 - X1 */
	cz_fp32_mul(&rr, &b->y, &a->zzz);
	cz_fp32_sub(&rr, &rr, &a->y);   /* R = Y2·ZZZ1 - Y1 */
	if (cz_fp32_is_zero(&p)) {
		if (cz_fp32_is_zero(&rr))
			cz_g1xyzz32_dbl_affine(r, b);
		else
			cz_g1xyzz32_set_inf(r);
		return;
	}
	cz_fp32_sqr(&pp, &p);
	cz_fp32_mul(&ppp, &p, &pp);
	cz_fp32_mul(&q, &a->x, &pp);
	cz_fp32_mul(&t, &a->y, &ppp);   /* Y1·PPP, before Y1 is overwritten */
	cz_fp32_mul(&r->zz, &a->zz, &pp);
	cz_fp32_mul(&r->zzz, &a->zzz, &ppp);
	cz_fp32_sqr(&p, &rr);
	cz_fp32_sub(&p, &p, &ppp);
	cz_fp32_sub(&p, &p, &q);
	cz_fp32_sub(&r->x, &p, &q);     /* X3 = R^2 - PPP - 2Q */
	cz_fp32_sub(&q, &q, &r->x);
	cz_fp32_mul(&q, &rr, &q);
	cz_fp32_sub(&r->y, &q, &t);     /* Y3 = R(Q - X3) - Y1·PPP */
}

/* add-2008-s: 12M + 2S; doubling when a = b, infinity when a = -b. */
CZ_HD_CALL void cz_g1xyzz32_add(cz_g1xyzz32 *r, const cz_g1xyzz32 *a, const cz_g1xyzz32 *b)
{
	cz_fp32 u1, u2, s1, s2, p, rr, pp, ppp, q, t;

	if (cz_g1xyzz32_is_inf(a)) {
		*r = *b;
		return;
	}
	if (cz_g1xyzz32_is_inf(b)) {
		*r = *a;
		return;
	}
	cz_fp32_mul(&u1, &a->x, &b->zz);
	cz_fp32_mul(&u2, &b->x, &a->zz);
	cz_fp32_mul(&s1, &a->y, &b->zzz);
	cz_fp32_mul(&s2, &b->y, &a->zzz);
	cz_fp32_sub(&p, &u2, &u1);
	cz_fp32_sub(&rr, &s2, &s1);
	if (cz_fp32_is_zero(&p)) {
		if (cz_fp32_is_zero(&rr))
			cz_g1xyzz32_dbl(r, a);
		else
			cz_g1xyzz32_set_inf(r);
		return;
	}
	cz_fp32_sqr(&pp, &p);
	cz_fp32_mul(&ppp, &p, &pp);
	cz_fp32_mul(&q, &u1, &pp);
	cz_fp32_mul(&t, &a->zz, &b->zz);
	cz_fp32_mul(&r->zz, &t, &pp);
	cz_fp32_mul(&t, &a->zzz, &b->zzz);
	cz_fp32_mul(&r->zzz, &t, &ppp);
	cz_fp32_sqr(&t, &rr);
	cz_fp32_sub(&t, &t, &ppp);
	cz_fp32_sub(&t, &t, &q);
	cz_fp32_sub(&r->x, &t, &q);     /* X3 = R^2 - PPP - 2Q */
	cz_fp32_sub(&q, &q, &r->x);
	cz_fp32_mul(&q, &rr, &q);
	cz_fp32_mul(&s1, &s1, &ppp);
	cz_fp32_sub(&r->y, &q, &s1);    /* Y3 = R(Q - X3) - S1·PPP */
}

/* r = k·p for a small public k (bucket weights): double-and-add from the top
 * set bit, at most 32 doublings and additions; variable time (k is public). */
CZ_HD_CALL void cz_g1xyzz32_mul_u32(cz_g1xyzz32 *r, const cz_g1xyzz32 *p, uint32_t k)
{
	cz_g1xyzz32 acc, base = *p;

	cz_g1xyzz32_set_inf(&acc);
	int top = 31;
	while (top >= 0 && !((k >> top) & 1))
		top--;
	for (int i = top; i >= 0; i--) {
		cz_g1xyzz32_dbl(&acc, &acc);
		if ((k >> i) & 1)
			cz_g1xyzz32_add(&acc, &acc, &base);
	}
	*r = acc;
}

/* ---- Jacobian (X/Z^2, Y/Z^3) ------------------------------------------- */

CZ_HD void cz_g1jac32_set_inf(cz_g1jac32 *r)
{
	cz_fp32_set_one(&r->x);
	cz_fp32_set_one(&r->y);
	cz_fp32_set_zero(&r->z);
}

CZ_HD int cz_g1jac32_is_inf(const cz_g1jac32 *p)
{
	return cz_fp32_is_zero(&p->z);
}

/* dbl-2009-l (a = 0): 2M + 5S.  Infinity and 2-torsion give Z3 = 0. */
CZ_HD_CALL void cz_g1jac32_dbl(cz_g1jac32 *r, const cz_g1jac32 *p)
{
	cz_fp32 a, b, c, d, e, f, t;

	cz_fp32_sqr(&a, &p->x);
	cz_fp32_sqr(&b, &p->y);
	cz_fp32_sqr(&c, &b);
	cz_fp32_add(&d, &p->x, &b);
	cz_fp32_sqr(&d, &d);
	cz_fp32_sub(&d, &d, &a);
	cz_fp32_sub(&d, &d, &c);
	cz_fp32_dbl(&d, &d);            /* D = 2((X+B)^2 - A - C) = 4XY^2 */
	cz_fp32_dbl(&e, &a);
	cz_fp32_add(&e, &e, &a);        /* E = 3A */
	cz_fp32_sqr(&f, &e);
	cz_fp32_mul(&r->z, &p->y, &p->z);
	cz_fp32_dbl(&r->z, &r->z);      /* Z3 = 2YZ */
	cz_fp32_dbl(&t, &d);
	cz_fp32_sub(&r->x, &f, &t);     /* X3 = F - 2D */
	cz_fp32_sub(&t, &d, &r->x);
	cz_fp32_mul(&t, &e, &t);
	cz_fp32_dbl(&c, &c);
	cz_fp32_dbl(&c, &c);
	cz_fp32_dbl(&c, &c);
	cz_fp32_sub(&r->y, &t, &c);     /* Y3 = E(D - X3) - 8C */
}

/* madd-2007-bl: 7M + 4S; doubling when a = b. */
CZ_HD_CALL void cz_g1jac32_add_affine(cz_g1jac32 *r, const cz_g1jac32 *a, const cz_g1a32 *b)
{
	cz_fp32 z1z1, u2, s2, h, hh, i, j, rr, v, t, y1;

	if (cz_g1a32_is_inf(b)) {
		*r = *a;
		return;
	}
	if (cz_g1jac32_is_inf(a)) {
		r->x = b->x;
		r->y = b->y;
		cz_fp32_set_one(&r->z);
		return;
	}
	cz_fp32_sqr(&z1z1, &a->z);
	cz_fp32_mul(&u2, &b->x, &z1z1);
	cz_fp32_mul(&s2, &b->y, &a->z);
	cz_fp32_mul(&s2, &s2, &z1z1);
	cz_fp32_sub(&h, &u2, &a->x);
	cz_fp32_sub(&rr, &s2, &a->y);
	if (cz_fp32_is_zero(&h)) {
		if (cz_fp32_is_zero(&rr))
			cz_g1jac32_dbl(r, a);
		else
			cz_g1jac32_set_inf(r);
		return;
	}
	y1 = a->y;
	cz_fp32_dbl(&rr, &rr);          /* r = 2(S2 - Y1) */
	cz_fp32_sqr(&hh, &h);
	cz_fp32_dbl(&i, &hh);
	cz_fp32_dbl(&i, &i);            /* I = 4 HH */
	cz_fp32_mul(&j, &h, &i);
	cz_fp32_mul(&v, &a->x, &i);
	cz_fp32_add(&t, &a->z, &h);
	cz_fp32_sqr(&t, &t);
	cz_fp32_sub(&t, &t, &z1z1);
	cz_fp32_sub(&r->z, &t, &hh);    /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
	cz_fp32_sqr(&t, &rr);
	cz_fp32_sub(&t, &t, &j);
	cz_fp32_sub(&t, &t, &v);
	cz_fp32_sub(&r->x, &t, &v);     /* X3 = r^2 - J - 2V */
	cz_fp32_sub(&t, &v, &r->x);
	cz_fp32_mul(&t, &rr, &t);
	cz_fp32_mul(&y1, &y1, &j);
	cz_fp32_dbl(&y1, &y1);
	cz_fp32_sub(&r->y, &t, &y1);    /* Y3 = r(V - X3) - 2 Y1 J */
}

/* XYZZ -> Jacobian: Z = ZZ, X = X'·ZZ, Y = Y'·ZZZ (2M, no inversion). */
CZ_HD void cz_g1xyzz32_to_jac(cz_g1jac32 *r, const cz_g1xyzz32 *p)
{
	cz_fp32 zz = p->zz;

	if (cz_g1xyzz32_is_inf(p)) {
		cz_g1jac32_set_inf(r);
		return;
	}
	cz_fp32_mul(&r->x, &p->x, &zz);
	cz_fp32_mul(&r->y, &p->y, &p->zzz);
	r->z = zz;
}

#endif
