/* SPDX-License-Identifier: MIT */
/*
 * gpu/g1_32_impl.h — G1 point arithmetic on 32-bit limbs, written once for
 * both curves (y^2 = x^3 + b: no formula here needs b); private to
 * gpu/g1_32.h, which includes it once per curve after defining G32(n) (the
 * name of n: cz_g1##n), G32_F (the base field's 32-bit type, also its
 * prefix).  The design is gpu/g1_32.h's.
 */
#ifndef G32
#error "gpu/g1_32_impl.h is private to gpu/g1_32.h"
#endif

#define G32_CAT2(a, b) a##_##b
#define G32_CAT(a, b) G32_CAT2(a, b)
#define F32F(n) G32_CAT(G32_F, n)

typedef struct { G32_F x, y; } G32(a32);
typedef struct { G32_F x, y, zz, zzz; } G32(xyzz32);
typedef struct { G32_F x, y, z; } G32(jac32);

CZ_HD int G32(a32_is_inf)(const G32(a32) *p)
{
	return F32F(is_zero)(&p->x) & F32F(is_zero)(&p->y);
}

CZ_HD void G32(xyzz32_set_inf)(G32(xyzz32) *r)
{
	F32F(set_one)(&r->x);
	F32F(set_one)(&r->y);
	F32F(set_zero)(&r->zz);
	F32F(set_zero)(&r->zzz);
}

CZ_HD int G32(xyzz32_is_inf)(const G32(xyzz32) *p)
{
	return F32F(is_zero)(&p->zz);
}

CZ_HD void G32(xyzz32_from_affine)(G32(xyzz32) *r, const G32(a32) *p)
{
	if (G32(a32_is_inf)(p)) {
		G32(xyzz32_set_inf)(r);
		return;
	}
	r->x = p->x;
	r->y = p->y;
	F32F(set_one)(&r->zz);
	F32F(set_one)(&r->zzz);
}

/* dbl-2008-s-1 (a = 0): 6M + 3S.  Infinity stays infinity (ZZ = 0). */
CZ_HD_CALL void G32(xyzz32_dbl)(G32(xyzz32) *r, const G32(xyzz32) *p)
{
	G32_F u, v, w, s, m, t;

	F32F(dbl)(&u, &p->y);
	F32F(sqr)(&v, &u);
	F32F(mul)(&w, &u, &v);
	F32F(mul)(&s, &p->x, &v);
	F32F(sqr)(&m, &p->x);
	F32F(dbl)(&t, &m);
	F32F(add)(&m, &m, &t);        /* M = 3 X^2 */
	F32F(mul)(&r->zz, &v, &p->zz);
	F32F(mul)(&r->zzz, &w, &p->zzz);
	F32F(mul)(&w, &w, &p->y);     /* W·Y1, before Y1 is overwritten */
	F32F(sqr)(&t, &m);
	F32F(sub)(&t, &t, &s);
	F32F(sub)(&r->x, &t, &s);     /* X3 = M^2 - 2S */
	F32F(sub)(&t, &s, &r->x);
	F32F(mul)(&t, &m, &t);
	F32F(sub)(&r->y, &t, &w);     /* Y3 = M(S - X3) - W·Y1 */
}

/* mdbl-2008-s-1: an affine point doubled into XYZZ, 2M + 3S. */
CZ_HD_CALL void G32(xyzz32_dbl_affine)(G32(xyzz32) *r, const G32(a32) *p)
{
	G32_F u, v, w, s, m, t;

	F32F(dbl)(&u, &p->y);
	F32F(sqr)(&v, &u);
	F32F(mul)(&w, &u, &v);
	F32F(mul)(&s, &p->x, &v);
	F32F(sqr)(&m, &p->x);
	F32F(dbl)(&t, &m);
	F32F(add)(&m, &m, &t);
	G32_F y = p->y;
	r->zz = v;
	r->zzz = w;
	F32F(mul)(&w, &w, &y);
	F32F(sqr)(&t, &m);
	F32F(sub)(&t, &t, &s);
	F32F(sub)(&r->x, &t, &s);
	F32F(sub)(&t, &s, &r->x);
	F32F(mul)(&t, &m, &t);
	F32F(sub)(&r->y, &t, &w);
}

/* madd-2008-s: 8M + 2S; doubling when a = b, infinity when a = -b. */
CZ_HD_CALL void G32(xyzz32_add_affine)(G32(xyzz32) *r, const G32(xyzz32) *a, const G32(a32) *b)
{
	G32_F p, rr, pp, ppp, q, t;

	if (G32(a32_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (G32(xyzz32_is_inf)(a)) {
		G32(xyzz32_from_affine)(r, b);
		return;
	}
	F32F(mul)(&p, &b->x, &a->zz);
	F32F(sub)(&p, &p, &a->x);     /* P = X2·ZZ1 - X1 */
	F32F(mul)(&rr, &b->y, &a->zzz);
	F32F(sub)(&rr, &rr, &a->y);   /* R = Y2·ZZZ1 - Y1 */
	if (F32F(is_zero)(&p)) {
		if (F32F(is_zero)(&rr))
			G32(xyzz32_dbl_affine)(r, b);
		else
			G32(xyzz32_set_inf)(r);
		return;
	}
	F32F(sqr)(&pp, &p);
	F32F(mul)(&ppp, &p, &pp);
	F32F(mul)(&q, &a->x, &pp);
	F32F(mul)(&t, &a->y, &ppp);   /* Y1·PPP, before Y1 is overwritten */
	F32F(mul)(&r->zz, &a->zz, &pp);
	F32F(mul)(&r->zzz, &a->zzz, &ppp);
	F32F(sqr)(&p, &rr);
	F32F(sub)(&p, &p, &ppp);
	F32F(sub)(&p, &p, &q);
	F32F(sub)(&r->x, &p, &q);     /* X3 = R^2 - PPP - 2Q */
	F32F(sub)(&q, &q, &r->x);
	F32F(mul)(&q, &rr, &q);
	F32F(sub)(&r->y, &q, &t);     /* Y3 = R(Q - X3) - Y1·PPP */
}

/* add-2008-s: 12M + 2S; doubling when a = b, infinity when a = -b. */
CZ_HD_CALL void G32(xyzz32_add)(G32(xyzz32) *r, const G32(xyzz32) *a, const G32(xyzz32) *b)
{
	G32_F u1, u2, s1, s2, p, rr, pp, ppp, q, t;

	if (G32(xyzz32_is_inf)(a)) {
		*r = *b;
		return;
	}
	if (G32(xyzz32_is_inf)(b)) {
		*r = *a;
		return;
	}
	F32F(mul)(&u1, &a->x, &b->zz);
	F32F(mul)(&u2, &b->x, &a->zz);
	F32F(mul)(&s1, &a->y, &b->zzz);
	F32F(mul)(&s2, &b->y, &a->zzz);
	F32F(sub)(&p, &u2, &u1);
	F32F(sub)(&rr, &s2, &s1);
	if (F32F(is_zero)(&p)) {
		if (F32F(is_zero)(&rr))
			G32(xyzz32_dbl)(r, a);
		else
			G32(xyzz32_set_inf)(r);
		return;
	}
	F32F(sqr)(&pp, &p);
	F32F(mul)(&ppp, &p, &pp);
	F32F(mul)(&q, &u1, &pp);
	F32F(mul)(&t, &a->zz, &b->zz);
	F32F(mul)(&r->zz, &t, &pp);
	F32F(mul)(&t, &a->zzz, &b->zzz);
	F32F(mul)(&r->zzz, &t, &ppp);
	F32F(sqr)(&t, &rr);
	F32F(sub)(&t, &t, &ppp);
	F32F(sub)(&t, &t, &q);
	F32F(sub)(&r->x, &t, &q);     /* X3 = R^2 - PPP - 2Q */
	F32F(sub)(&q, &q, &r->x);
	F32F(mul)(&q, &rr, &q);
	F32F(mul)(&s1, &s1, &ppp);
	F32F(sub)(&r->y, &q, &s1);    /* Y3 = R(Q - X3) - S1·PPP */
}

/* r = k·p for a small public k (bucket weights): double-and-add from the top
 * set bit, at most 32 doublings and additions; variable time (k is public). */
CZ_HD_CALL void G32(xyzz32_mul_u32)(G32(xyzz32) *r, const G32(xyzz32) *p, uint32_t k)
{
	G32(xyzz32) acc, base = *p;

	G32(xyzz32_set_inf)(&acc);
	int top = 31;
	while (top >= 0 && !((k >> top) & 1))
		top--;
	for (int i = top; i >= 0; i--) {
		G32(xyzz32_dbl)(&acc, &acc);
		if ((k >> i) & 1)
			G32(xyzz32_add)(&acc, &acc, &base);
	}
	*r = acc;
}

/* ---- Jacobian (X/Z^2, Y/Z^3) ------------------------------------------- */

CZ_HD void G32(jac32_set_inf)(G32(jac32) *r)
{
	F32F(set_one)(&r->x);
	F32F(set_one)(&r->y);
	F32F(set_zero)(&r->z);
}

CZ_HD int G32(jac32_is_inf)(const G32(jac32) *p)
{
	return F32F(is_zero)(&p->z);
}

/* dbl-2009-l (a = 0): 2M + 5S.  Infinity and 2-torsion give Z3 = 0. */
CZ_HD_CALL void G32(jac32_dbl)(G32(jac32) *r, const G32(jac32) *p)
{
	G32_F a, b, c, d, e, f, t;

	F32F(sqr)(&a, &p->x);
	F32F(sqr)(&b, &p->y);
	F32F(sqr)(&c, &b);
	F32F(add)(&d, &p->x, &b);
	F32F(sqr)(&d, &d);
	F32F(sub)(&d, &d, &a);
	F32F(sub)(&d, &d, &c);
	F32F(dbl)(&d, &d);            /* D = 2((X+B)^2 - A - C) = 4XY^2 */
	F32F(dbl)(&e, &a);
	F32F(add)(&e, &e, &a);        /* E = 3A */
	F32F(sqr)(&f, &e);
	F32F(mul)(&r->z, &p->y, &p->z);
	F32F(dbl)(&r->z, &r->z);      /* Z3 = 2YZ */
	F32F(dbl)(&t, &d);
	F32F(sub)(&r->x, &f, &t);     /* X3 = F - 2D */
	F32F(sub)(&t, &d, &r->x);
	F32F(mul)(&t, &e, &t);
	F32F(dbl)(&c, &c);
	F32F(dbl)(&c, &c);
	F32F(dbl)(&c, &c);
	F32F(sub)(&r->y, &t, &c);     /* Y3 = E(D - X3) - 8C */
}

/* madd-2007-bl: 7M + 4S; doubling when a = b. */
CZ_HD_CALL void G32(jac32_add_affine)(G32(jac32) *r, const G32(jac32) *a, const G32(a32) *b)
{
	G32_F z1z1, u2, s2, h, hh, i, j, rr, v, t, y1;

	if (G32(a32_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (G32(jac32_is_inf)(a)) {
		r->x = b->x;
		r->y = b->y;
		F32F(set_one)(&r->z);
		return;
	}
	F32F(sqr)(&z1z1, &a->z);
	F32F(mul)(&u2, &b->x, &z1z1);
	F32F(mul)(&s2, &b->y, &a->z);
	F32F(mul)(&s2, &s2, &z1z1);
	F32F(sub)(&h, &u2, &a->x);
	F32F(sub)(&rr, &s2, &a->y);
	if (F32F(is_zero)(&h)) {
		if (F32F(is_zero)(&rr))
			G32(jac32_dbl)(r, a);
		else
			G32(jac32_set_inf)(r);
		return;
	}
	y1 = a->y;
	F32F(dbl)(&rr, &rr);          /* r = 2(S2 - Y1) */
	F32F(sqr)(&hh, &h);
	F32F(dbl)(&i, &hh);
	F32F(dbl)(&i, &i);            /* I = 4 HH */
	F32F(mul)(&j, &h, &i);
	F32F(mul)(&v, &a->x, &i);
	F32F(add)(&t, &a->z, &h);
	F32F(sqr)(&t, &t);
	F32F(sub)(&t, &t, &z1z1);
	F32F(sub)(&r->z, &t, &hh);    /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
	F32F(sqr)(&t, &rr);
	F32F(sub)(&t, &t, &j);
	F32F(sub)(&t, &t, &v);
	F32F(sub)(&r->x, &t, &v);     /* X3 = r^2 - J - 2V */
	F32F(sub)(&t, &v, &r->x);
	F32F(mul)(&t, &rr, &t);
	F32F(mul)(&y1, &y1, &j);
	F32F(dbl)(&y1, &y1);
	F32F(sub)(&r->y, &t, &y1);    /* Y3 = r(V - X3) - 2 Y1 J */
}

/* XYZZ -> Jacobian: Z = ZZ, X = X'·ZZ, Y = Y'·ZZZ (2M, no inversion). */
CZ_HD void G32(xyzz32_to_jac)(G32(jac32) *r, const G32(xyzz32) *p)
{
	G32_F zz = p->zz;

	if (G32(xyzz32_is_inf)(p)) {
		G32(jac32_set_inf)(r);
		return;
	}
	F32F(mul)(&r->x, &p->x, &zz);
	F32F(mul)(&r->y, &p->y, &p->zzz);
	r->z = zz;
}


#undef F32F
