/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp12_tmpl_pvt.h — Fp12 = Fp6[w]/(w^2 - v), the pairing target field, over
 * either curve's tower, written once.  Private to the instance files
 * (zk/field/fp12.c, zk/field/bn254_fp12.c), which define TW_FP2, TW_FP6, TW_FP12
 * and TW_FROB_COEFFS (the public name of the Frobenius coefficient table,
 * which zk/field/fp6_tmpl_pvt.h defines), then include this file.
 *
 * Costs in Fp2 multiplications (M) and squarings (S): mul 18M (Karatsuba
 * over Fp6), sqr 12M (complex method), the line products mul_by_014
 * (M-type twist, BLS12-381) and mul_by_034 (D-type, BN254) 13M, cyclotomic
 * squaring 9S.  Inversion is one Fp2 inversion plus ~40M.
 * Every function computes into temporaries first, so r may alias an input.
 */
#define TW_CAT2(a, b) a##_##b
#define TW_CAT(a, b) TW_CAT2(a, b)
#define S2(n) TW_CAT(TW_FP2, n)
#define S6(n) TW_CAT(TW_FP6, n)
#define S12(n) TW_CAT(TW_FP12, n)
typedef TW_FP2 s2_t;
typedef TW_FP6 s6_t;
typedef TW_FP12 s12_t;

const s12_t S12(zero);

void S12(set_one)(s12_t *r)
{
	S6(set_one)(&r->c0);
	r->c1 = S6(zero);
}

void S12(add)(s12_t *r, const s12_t *a, const s12_t *b)
{
	S6(add)(&r->c0, &a->c0, &b->c0);
	S6(add)(&r->c1, &a->c1, &b->c1);
}

void S12(sub)(s12_t *r, const s12_t *a, const s12_t *b)
{
	S6(sub)(&r->c0, &a->c0, &b->c0);
	S6(sub)(&r->c1, &a->c1, &b->c1);
}

void S12(conj)(s12_t *r, const s12_t *a)
{
	r->c0 = a->c0;
	S6(neg)(&r->c1, &a->c1);
}

/* (a0 + a1 w)(b0 + b1 w) = (t0 + v t1) + ((a0 + a1)(b0 + b1) - t0 - t1) w */
void S12(mul)(s12_t *r, const s12_t *a, const s12_t *b)
{
	s6_t t0, t1, s, u;

	S6(mul)(&t0, &a->c0, &b->c0);
	S6(mul)(&t1, &a->c1, &b->c1);
	S6(add)(&s, &a->c0, &a->c1);
	S6(add)(&u, &b->c0, &b->c1);
	S6(mul)(&s, &s, &u);
	S6(sub)(&s, &s, &t0);
	S6(sub)(&r->c1, &s, &t1);
	S6(mul_by_v)(&t1, &t1);
	S6(add)(&r->c0, &t0, &t1);
}

/* (a + b w)^2 = ((a + b)(a + v b) - ab - v ab) + 2ab w */
void S12(sqr)(s12_t *r, const s12_t *x)
{
	s6_t ab, s, u;

	S6(mul)(&ab, &x->c0, &x->c1);
	S6(add)(&s, &x->c0, &x->c1);
	S6(mul_by_v)(&u, &x->c1);
	S6(add)(&u, &u, &x->c0);
	S6(mul)(&s, &s, &u);
	S6(sub)(&s, &s, &ab);
	S6(mul_by_v)(&u, &ab);
	S6(sub)(&r->c0, &s, &u);
	S6(dbl)(&r->c1, &ab);
}

/* a·(L0 + L1 w), L0 = l0 + l1 v, L1 = l4 v: Karatsuba with sparse factors,
 * 5M (a0 L0) + 3M (a1 L1) + 5M ((a0 + a1)(L0 + L1)). */
void S12(mul_by_014)(s12_t *r, const s12_t *a, const s2_t *l0, const s2_t *l1,
			const s2_t *l4)
{
	s6_t t0, t1, s;
	s2_t m;

	S6(mul_by_01)(&t0, &a->c0, l0, l1);
	S6(mul_by_1)(&t1, &a->c1, l4);
	S6(add)(&s, &a->c0, &a->c1);
	S2(add)(&m, l1, l4);
	S6(mul_by_01)(&s, &s, l0, &m);
	S6(sub)(&s, &s, &t0);
	S6(sub)(&r->c1, &s, &t1);
	S6(mul_by_v)(&t1, &t1);
	S6(add)(&r->c0, &t0, &t1);
}

/* a·(L0 + L1 w), L0 = l0, L1 = l3 + l4 v (the D-type twist's line
 * l0 + l3 w + l4 w^3): 3M (a0 L0) + 5M (a1 L1) + 5M ((a0 + a1)(L0 + L1)). */
void S12(mul_by_034)(s12_t *r, const s12_t *a, const s2_t *l0, const s2_t *l3,
		     const s2_t *l4)
{
	s6_t t0, t1, s;
	s2_t m;

	S2(mul)(&t0.c0, &a->c0.c0, l0);
	S2(mul)(&t0.c1, &a->c0.c1, l0);
	S2(mul)(&t0.c2, &a->c0.c2, l0);
	S6(mul_by_01)(&t1, &a->c1, l3, l4);
	S6(add)(&s, &a->c0, &a->c1);
	S2(add)(&m, l0, l3);
	S6(mul_by_01)(&s, &s, &m, l4);
	S6(sub)(&s, &s, &t0);
	S6(sub)(&r->c1, &s, &t1);
	S6(mul_by_v)(&t1, &t1);
	S6(add)(&r->c0, &t0, &t1);
}

/* (a + b w)^-1 = (a - b w) / (a^2 - v b^2) */
void S12(inv)(s12_t *r, const s12_t *x)
{
	s6_t t0, t1;

	S6(sqr)(&t0, &x->c0);
	S6(sqr)(&t1, &x->c1);
	S6(mul_by_v)(&t1, &t1);
	S6(sub)(&t0, &t0, &t1);
	S6(inv)(&t0, &t0);
	S6(mul)(&r->c0, &x->c0, &t0);
	S6(mul)(&r->c1, &x->c1, &t0);
	S6(neg)(&r->c1, &r->c1);
}

void S12(pow)(s12_t *r, const s12_t *a, const uint64_t *e, size_t elimbs)
{
	s12_t base = *a, acc;

	S12(set_one)(&acc);
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			S12(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1)
				S12(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

/* g_i w^i -> frob^k(g_i) gamma_k[i] w^i, 0 < k <= 3. */
static void frob_1to3(s12_t *r, const s12_t *a, unsigned k)
{
	const s2_t *g = TW_FROB_COEFFS(k);
	s6_t t = a->c1;

	S6(frobenius)(&r->c0, &a->c0, k);
	if (k & 1) {
		S2(conj)(&t.c0, &t.c0);
		S2(conj)(&t.c1, &t.c1);
		S2(conj)(&t.c2, &t.c2);
	}
	S2(mul)(&r->c1.c0, &t.c0, &g[1]);
	S2(mul)(&r->c1.c1, &t.c1, &g[3]);
	S2(mul)(&r->c1.c2, &t.c2, &g[5]);
}

void S12(frobenius)(s12_t *r, const s12_t *a, unsigned k)
{
	k %= 12;
	*r = *a;
	for (; k > 3; k -= 3)
		frob_1to3(r, r, 3);
	if (k)
		frob_1to3(r, r, k);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): 3S. */
static void fp4_sqr(s2_t *r0, s2_t *r1, const s2_t *x, const s2_t *y)
{
	s2_t t0, t1, t2;

	S2(sqr)(&t0, x);
	S2(sqr)(&t1, y);
	S2(add)(&t2, x, y);
	S2(sqr)(&t2, &t2);
	S2(sub)(&t2, &t2, &t0);
	S2(sub)(r1, &t2, &t1);
	S2(mul_nonres)(&t1, &t1);
	S2(add)(r0, &t0, &t1);
}

/* r = 3t - 2x and r = 3t + 2x */
static void three_minus_two(s2_t *r, const s2_t *t, const s2_t *x)
{
	s2_t z;

	S2(sub)(&z, t, x);
	S2(dbl)(&z, &z);
	S2(add)(r, &z, t);
}

static void three_plus_two(s2_t *r, const s2_t *t, const s2_t *x)
{
	s2_t z;

	S2(add)(&z, t, x);
	S2(dbl)(&z, &z);
	S2(add)(r, &z, t);
}

/*
 * Granger–Scott: view Fp12 as Fp4[w]/(w^3 - s), s = w^3, Fp4 = Fp2[s]/(s^2 - xi),
 * f = A0 + A1 w + A2 w^2 with A0 = g0 + g3 s, A1 = g1 + g4 s, A2 = g2 + g5 s.
 * For f in the cyclotomic subgroup,
 *   f^2 = (3 A0^2 - 2 conj A0) + (3 s A2^2 + 2 conj A1) w + (3 A1^2 - 2 conj A2) w^2,
 * conj being s -> -s.  Three Fp4 squarings: 9S.
 */
void S12(cyclotomic_sqr)(s12_t *r, const s12_t *a)
{
	s2_t x0 = a->c0.c0, y0 = a->c1.c1; /* A0 */
	s2_t x1 = a->c1.c0, y1 = a->c0.c2; /* A1 */
	s2_t x2 = a->c0.c1, y2 = a->c1.c2; /* A2 */
	s2_t t0, t1, u0, u1, v0, v1;

	fp4_sqr(&t0, &t1, &x0, &y0);
	fp4_sqr(&v0, &v1, &x1, &y1);
	fp4_sqr(&u0, &u1, &x2, &y2);

	three_minus_two(&r->c0.c0, &t0, &x0);
	three_plus_two(&r->c1.c1, &t1, &y0);

	S2(mul_nonres)(&u1, &u1); /* s·A2^2 = xi u1 + u0 s */
	three_plus_two(&r->c1.c0, &u1, &x1);
	three_minus_two(&r->c0.c2, &u0, &y1);

	three_minus_two(&r->c0.c1, &v0, &x2);
	three_plus_two(&r->c1.c2, &v1, &y2);
}

bool S12(is_zero)(const s12_t *a)
{
	return S6(is_zero)(&a->c0) && S6(is_zero)(&a->c1);
}

bool S12(is_one)(const s12_t *a)
{
	s12_t one;

	S12(set_one)(&one);
	return S12(eq)(a, &one);
}

bool S12(eq)(const s12_t *a, const s12_t *b)
{
	return S6(eq)(&a->c0, &b->c0) && S6(eq)(&a->c1, &b->c1);
}

#undef S2
#undef S6
#undef S12
