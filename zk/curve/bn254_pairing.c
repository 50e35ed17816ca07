/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_pairing.c — the optimal ate pairing of BN254 (x = 0x44e992b44a6909f1
 * > 0, D-type twist).
 *
 * Miller loop (zk/curve/pairing_tmpl_pvt.h): f_{6x+2,Q}(P) over the NAF of 6x + 2
 * (66 digits, 22 of them non-zero), lines l4 + l1 w + l0 w^3
 * (cz_bn254_fp12_mul_by_034), 3b' = 9/xi by one Fp2 multiplication; then
 * the two lines of the optimal ate pairing, through T = (6x+2)Q and
 * Q1 = psi(Q), and through T + Q1 and -Q2 = -psi^2(Q) (psi = the
 * untwist-Frobenius-twist map of zk/curve/bn254_g2.c, which on G2 is
 * multiplication by p).
 *
 * Final exponentiation by (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) · d,
 * d = (p^4 - p^2 + 1)/r.  Easy part as for BLS12: t = conj(f)/f, then
 * t = t^(p^2) · t, now in the cyclotomic subgroup.  Hard part (Scott,
 * Benger, Charlemagne, Dominguez Perez, Kachisa, "On the final
 * exponentiation for calculating pairings on ordinary elliptic curves",
 * 2009): d = l0 + l1 p + l2 p^2 + p^3 with l2 = 6x^2 + 1,
 * l1 = -36x^3 - 18x^2 - 12x + 1, l0 = -36x^3 - 30x^2 - 18x - 2, computed
 * from t^x, t^(x^2), t^(x^3) (three 63-bit exponentiations by cyclotomic
 * squaring) and Frobenius maps with the addition chain below (13 Fp12 mul,
 * 4 cyclotomic sqr), exactly d, no multiple.  selftests/zk_bn254_pairing.c
 * compares the result with a generic f^((p^12 - 1)/r) computed from GMP's
 * exponent and with ffjavascript's pairing.
 */
#include "zk/curve/bn254_pairing.h"

#include "zk/curve/bn254_curve.h"

/* The NAF of 6x + 2 = 29793968203157093288, least significant digit first. */
static const int8_t ate_naf[66] = {
	0, 0, 0, 1, 0, 1, 0, -1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 0, 0, 0,
	1, 0, -1, 0, 0, 0, 0, -1, 0, 0, 1, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, -1, 0,
	0, -1, 0, 1, 0, -1, 0, 0, 0, -1, 0, -1, 0, 0, 0, 1, 0, -1, 0, 1,
};

/* psi on an affine point (psi keeps Z = 1). */
static void psi_affine(cz_bn254_g2_affine *r, const cz_bn254_g2_affine *q)
{
	cz_bn254_g2_jac j = { q->x, q->y, cz_bn254_fp2_one };
	cz_bn254_g2_psi(&j, &j);
	r->x = j.x;
	r->y = j.y;
}

#define PI_G1 cz_bn254_g1_affine
#define PI_G2 cz_bn254_g2_affine
#define PI_FP cz_bn254_fp
#define PI_FP2 cz_bn254_fp2
#define PI_FP12 cz_bn254_fp12
#define PI_E_3B(r, c) cz_bn254_fp2_mul((r), (c), &cz_bn254_g2_b3)
#define PI_LINE(f, l0, l1, l4) cz_bn254_fp12_mul_by_034((f), (f), (l4), (l1), (l0))
#define PI_TOP 65 /* the leading digit */
#define PI_DIGIT(b) ate_naf[b]
#define PI_MILLER_END(f, st, m)                                                      \
	do {                                                                         \
		for (size_t i_ = 0; i_ < (m); i_++) {                                \
			cz_bn254_g2_affine q1_, q2_;                                 \
			psi_affine(&q1_, &(st)[i_].q);                               \
			psi_affine(&q2_, &q1_);                                      \
			cz_bn254_fp2_neg(&q2_.y, &q2_.y);                            \
			add_step((f), &(st)[i_], &q1_);                              \
			add_step((f), &(st)[i_], &q2_);                              \
		}                                                                    \
	} while (0)
#define PI_X_ABS CZ_BN254_X
#define PI_MILLER_LOOP cz_bn254_pairing_miller_loop
#define PI_FINAL_EXP cz_bn254_pairing_final_exp
#define PI_MULTI cz_bn254_multi_pairing
#define PI_PAIRING cz_bn254_pairing
#define PI_CHECK cz_bn254_pairing_check
#include "zk/curve/pairing_tmpl_pvt.h"

/* r = a^x for a in the cyclotomic subgroup (x > 0). */
#define cyc_pow_x cyc_pow_x_abs

void cz_bn254_pairing_final_exp(cz_bn254_fp12 *r, const cz_bn254_fp12 *f)
{
	cz_bn254_fp12 t, s, fx, fx2, fx3, y0, y1, y2, y3, y4, y5, y6, t0, t1;

	final_exp_easy(&t, &s, f);        /* t = f^((p^6 - 1)(p^2 + 1)) */

	/* hard part: t^d, d = l0 + l1 p + l2 p^2 + p^3 (inverses are conjugates) */
	cyc_pow_x(&fx, &t);
	cyc_pow_x(&fx2, &fx);
	cyc_pow_x(&fx3, &fx2);
	cz_bn254_fp12_frobenius(&y0, &t, 1);          /* y0 = t^(p + p^2 + p^3) */
	cz_bn254_fp12_frobenius(&s, &t, 2);
	cz_bn254_fp12_mul(&y0, &y0, &s);
	cz_bn254_fp12_frobenius(&s, &t, 3);
	cz_bn254_fp12_mul(&y0, &y0, &s);
	cz_bn254_fp12_conj(&y1, &t);                  /* y1 = t^-1 */
	cz_bn254_fp12_frobenius(&y2, &fx2, 2);        /* y2 = t^(x^2 p^2) */
	cz_bn254_fp12_frobenius(&y3, &fx, 1);
	cz_bn254_fp12_conj(&y3, &y3);                 /* y3 = t^(-x p) */
	cz_bn254_fp12_frobenius(&y4, &fx2, 1);
	cz_bn254_fp12_mul(&y4, &y4, &fx);
	cz_bn254_fp12_conj(&y4, &y4);                 /* y4 = t^(-(x + x^2 p)) */
	cz_bn254_fp12_conj(&y5, &fx2);                /* y5 = t^(-x^2) */
	cz_bn254_fp12_frobenius(&y6, &fx3, 1);
	cz_bn254_fp12_mul(&y6, &y6, &fx3);
	cz_bn254_fp12_conj(&y6, &y6);                 /* y6 = t^(-(x^3 + x^3 p)) */

	cz_bn254_fp12_cyclotomic_sqr(&t0, &y6);
	cz_bn254_fp12_mul(&t0, &t0, &y4);
	cz_bn254_fp12_mul(&t0, &t0, &y5);
	cz_bn254_fp12_mul(&t1, &y3, &y5);
	cz_bn254_fp12_mul(&t1, &t1, &t0);
	cz_bn254_fp12_mul(&t0, &t0, &y2);
	cz_bn254_fp12_cyclotomic_sqr(&t1, &t1);
	cz_bn254_fp12_mul(&t1, &t1, &t0);
	cz_bn254_fp12_cyclotomic_sqr(&t1, &t1);
	cz_bn254_fp12_mul(&t0, &t1, &y1);
	cz_bn254_fp12_mul(&t1, &t1, &y0);
	cz_bn254_fp12_cyclotomic_sqr(&t0, &t0);
	cz_bn254_fp12_mul(r, &t0, &t1);
}
