/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/pairing_tmpl_pvt.h — the Miller loop of an optimal ate pairing over a
 * sextic twist, written once for BLS12-381 (zk/curve/pairing.c) and BN254
 * (zk/curve/bn254_pairing.c).  Private to those files.
 *
 * f_{n,Q}(P) by signed double-and-add over the digits of the loop scalar n
 * (|x| for BLS12, the NAF of 6x + 2 for BN), T kept in homogeneous
 * projective coordinates on the twist E': y^2 = x^3 + b' (no inversion in
 * the loop).  Scaling the line by Fp2 factors (they die in the final
 * exponentiation, which kills every element of Fp6) leaves three Fp2
 * coefficients:
 *   tangent at T:   l0 = Y^2 - 3b' Z^2,  l1 = 3 X^2 · (-xP),  l4 = 2 Y Z · yP
 *   chord T, Q:     l0 = θ xQ - λ yQ,    l1 = θ · (-xP),      l4 = λ · yP
 *                   with θ = Y - yQ Z, λ = X - xQ Z.
 * Where they sit depends on the twist: untwisting an M-type twist
 * (x', y') -> (x'/w^2, y'/w^3) gives the line l0 + l1 w^2 + l4 w^3
 * (cz_fp12_mul_by_014), a D-type twist (x', y') -> (x' w^2, y' w^3) the line
 * l4 + l1 w + l0 w^3 (mul_by_034), both after scaling by w^3 or not at all.
 * The point update formulas are those of Costello–Lange–Naehrig (doubling
 * scaled by 4 to drop the halvings).  n pairs share one f and so one
 * squaring per digit; pairs with an infinity are skipped.
 *
 * The including file defines:
 *   PI_G1 PI_G2          the affine point types
 *   PI_FP PI_FP2 PI_FP12 the field prefixes (also the type names)
 *   PI_E_3B(r, c)        r = 3b'·c over Fp2
 *   PI_LINE(f, l0, l1, l4)  f *= the line with those coefficients
 *   PI_TOP, PI_DIGIT(b)  the index of the loop scalar's leading digit (a 1:
 *                        T starts at Q) and digit b, in {-1, 0, 1}
 *   PI_MILLER_END(f, st, m)  what follows the loop (BLS12: conjugate for
 *                        x < 0; BN: the two Frobenius lines)
 *   PI_X_ABS             the curve parameter's absolute value (64 bits)
 *   PI_MILLER_LOOP PI_FINAL_EXP PI_MULTI PI_PAIRING PI_CHECK  public names;
 *                        PI_FINAL_EXP is the including file's (its hard part
 *                        is the curve's), built on the two pieces below
 *
 * For the final exponentiation, what both curves share: its easy part,
 * t = f^((p^6 - 1)(p^2 + 1)) = conj(f)/f, then t^(p^2) · t, after which t
 * is in the cyclotomic subgroup (inversion is conjugation, squaring is
 * Granger–Scott); and there the exponentiation by the curve parameter's
 * absolute value (BLS12's |x|, BN's x: 64 bits, sparse) in plain binary.
 */
#define PI_CAT2(a, b) a##_##b
#define PI_CAT(a, b) PI_CAT2(a, b)
#define P1(n) PI_CAT(PI_FP, n)
#define P2(n) PI_CAT(PI_FP2, n)
#define P12(n) PI_CAT(PI_FP12, n)
typedef PI_FP pi_fp;
typedef PI_FP2 pi_fp2;
typedef PI_FP12 pi_fp12;
typedef PI_G1 pi_g1;
typedef PI_G2 pi_g2;

#define MAX_PAIRS 16 /* pairs per shared Miller loop; more are done in chunks */

struct pair_state {
	pi_fp2 x, y, z;    /* T, projective on the twist */
	pi_fp mxp, yp;     /* -xP, yP */
	pi_g2 q, nq;       /* Q and -Q, affine */
};

static bool g1_inf(const pi_g1 *p)
{
	return P1(is_zero)(&p->x) && P1(is_zero)(&p->y);
}

static bool g2_inf(const pi_g2 *q)
{
	return P2(is_zero)(&q->x) && P2(is_zero)(&q->y);
}

/* f *= tangent at T evaluated at P; T = 2T. */
static void dbl_step(pi_fp12 *f, struct pair_state *s)
{
	pi_fp2 B, C, E, F, J, H, t, l0, l1, l4;

	P2(sqr)(&B, &s->y);
	P2(sqr)(&C, &s->z);
	P2(sqr)(&J, &s->x);
	P2(add)(&H, &s->y, &s->z);
	P2(sqr)(&H, &H);
	P2(sub)(&H, &H, &B);
	P2(sub)(&H, &H, &C);              /* 2YZ */
	PI_E_3B(&E, &C);                     /* E = 3b' Z^2 */
	P2(add)(&F, &E, &E);
	P2(add)(&F, &F, &E);              /* F = 3E */

	P2(sub)(&l0, &B, &E);
	P2(add)(&l1, &J, &J);
	P2(add)(&l1, &l1, &J);
	P2(mul_fp)(&l1, &l1, &s->mxp);
	P2(mul_fp)(&l4, &H, &s->yp);

	/* X3 = 2XY (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H */
	P2(mul)(&t, &s->x, &s->y);
	P2(dbl)(&t, &t);
	P2(sub)(&s->x, &B, &F);
	P2(mul)(&s->x, &s->x, &t);
	P2(sqr)(&E, &E);
	P2(add)(&t, &E, &E);
	P2(add)(&E, &t, &E);
	P2(dbl)(&E, &E);
	P2(dbl)(&E, &E);                  /* 12 E^2 */
	P2(add)(&t, &B, &F);
	P2(sqr)(&t, &t);
	P2(sub)(&s->y, &t, &E);
	P2(mul)(&s->z, &B, &H);
	P2(dbl)(&s->z, &s->z);
	P2(dbl)(&s->z, &s->z);

	PI_LINE(f, &l0, &l1, &l4);
}

/* f *= chord through T and Q evaluated at P; T = T + Q (T ≠ ±Q: T = kQ
 * for 1 < k < r, k ≠ ±1 mod r). */
static void add_step(pi_fp12 *f, struct pair_state *s, const pi_g2 *q)
{
	pi_fp2 th, la, C, D, E, F, G, H, t, l0, l1, l4;

	P2(mul)(&th, &q->y, &s->z);
	P2(sub)(&th, &s->y, &th);
	P2(mul)(&la, &q->x, &s->z);
	P2(sub)(&la, &s->x, &la);

	P2(mul)(&l0, &th, &q->x);
	P2(mul)(&t, &la, &q->y);
	P2(sub)(&l0, &l0, &t);
	P2(mul_fp)(&l1, &th, &s->mxp);
	P2(mul_fp)(&l4, &la, &s->yp);

	/* X3 = λH, Y3 = θ(G - H) - Y E, Z3 = Z E with C = θ^2, D = λ^2,
	 * E = λ^3, F = Z C, G = X D, H = E + F - 2G */
	P2(sqr)(&C, &th);
	P2(sqr)(&D, &la);
	P2(mul)(&E, &la, &D);
	P2(mul)(&F, &s->z, &C);
	P2(mul)(&G, &s->x, &D);
	P2(add)(&H, &E, &F);
	P2(sub)(&H, &H, &G);
	P2(sub)(&H, &H, &G);
	P2(mul)(&s->x, &la, &H);
	P2(sub)(&t, &G, &H);
	P2(mul)(&t, &t, &th);
	P2(mul)(&s->y, &s->y, &E);
	P2(sub)(&s->y, &t, &s->y);
	P2(mul)(&s->z, &s->z, &E);

	PI_LINE(f, &l0, &l1, &l4);
}

/* f = prod f_{n,Q_i}(P_i) over at most MAX_PAIRS pairs, then the curve's
 * PI_MILLER_END. */
static void miller_chunk(pi_fp12 *f, const pi_g1 *p, const pi_g2 *q, size_t n)
{
	struct pair_state st[MAX_PAIRS];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (g1_inf(&p[i]) || g2_inf(&q[i]))
			continue;
		st[m].x = q[i].x;
		st[m].y = q[i].y;
		st[m].z = P2(one);
		P1(neg)(&st[m].mxp, &p[i].x);
		st[m].yp = p[i].y;
		st[m].q = q[i];
		st[m].nq.x = q[i].x;
		P2(neg)(&st[m].nq.y, &q[i].y);
		m++;
	}
	P12(set_one)(f);
	if (m == 0)
		return;

	const int top = PI_TOP;
	for (int b = top - 1; b >= 0; b--) {
		int d = PI_DIGIT(b);
		if (b != top - 1)
			P12(sqr)(f, f); /* f = 1 before the first step */
		for (size_t i = 0; i < m; i++)
			dbl_step(f, &st[i]);
		if (d > 0)
			for (size_t i = 0; i < m; i++)
				add_step(f, &st[i], &st[i].q);
		else if (d < 0)
			for (size_t i = 0; i < m; i++)
				add_step(f, &st[i], &st[i].nq);
	}
	PI_MILLER_END(f, st, m);
}

void PI_MILLER_LOOP(pi_fp12 *f, const pi_g1 *p, const pi_g2 *q, size_t n)
{
	size_t k = n < MAX_PAIRS ? n : MAX_PAIRS;

	miller_chunk(f, p, q, k);
	for (size_t i = k; i < n; i += MAX_PAIRS) {
		pi_fp12 g;
		k = n - i < MAX_PAIRS ? n - i : MAX_PAIRS;
		miller_chunk(&g, p + i, q + i, k);
		P12(mul)(f, f, &g);
	}
}

/* t = f^((p^6 - 1)(p^2 + 1)): the easy part; t is then cyclotomic.  s:
 * the caller's scratch.  Inlined, so the code is what each curve's final
 * exponentiation had written out (the same bytes: objdump). */
static inline __attribute__((always_inline)) void final_exp_easy(pi_fp12 *t, pi_fp12 *s, const pi_fp12 *f)
{
	P12(inv)(s, f);
	P12(conj)(t, f);
	P12(mul)(t, t, s);
	P12(frobenius)(s, t, 2);
	P12(mul)(t, t, s);
}

/* r = a^PI_X_ABS for a in the cyclotomic subgroup (plain binary). */
static void cyc_pow_x_abs(pi_fp12 *r, const pi_fp12 *a)
{
	const uint64_t e = PI_X_ABS;
	pi_fp12 acc = *a;

	for (int b = 62 - __builtin_clzll(e); b >= 0; b--) {
		P12(cyclotomic_sqr)(&acc, &acc);
		if ((e >> b) & 1)
			P12(mul)(&acc, &acc, a);
	}
	*r = acc;
}

void PI_MULTI(pi_fp12 *r, const pi_g1 *p, const pi_g2 *q, size_t n)
{
	pi_fp12 f;

	PI_MILLER_LOOP(&f, p, q, n);
	PI_FINAL_EXP(r, &f);
}

void PI_PAIRING(pi_fp12 *r, const pi_g1 *p, const pi_g2 *q)
{
	PI_MULTI(r, p, q, 1);
}

bool PI_CHECK(const pi_g1 *p, const pi_g2 *q, size_t n)
{
	pi_fp12 r;

	PI_MULTI(&r, p, q, n);
	return P12(is_one)(&r);
}
