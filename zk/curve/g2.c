/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/g2.c — BLS12-381 G2, y^2 = x^3 + 4(1 + u) over Fp2 (M-type twist).
 *
 * The formulas are zk/curve/curve_tmpl_pvt.h instantiated over Fp2; this file adds what
 * is special to G2: the psi endomorphism, the subgroup check and cofactor
 * clearing.
 *
 * Subgroup check (Scott 2021, as for G1): psi = untwist∘Frobenius∘twist acts
 * on G2 as multiplication by x, and for BLS12 curves psi(P) = x·P holds only
 * on G2.  Cost: one 64-bit public-scalar multiplication and a Frobenius
 * (about 65 doublings and 6 additions) instead of a 255-bit one.
 * selftests/zk_g2.c compares it with r·P = O on points inside and outside G2.
 */
#include "zk/curve/g2.h"

#include "zk/curve/bls12_381_curve.h"
#include "zk/field/field_inline.h"

#define CI_F cz_fp2
#define CI_F_ADD cz_fp2_add_inl
#define CI_F_SUB cz_fp2_sub_inl
#define CI_F_DBL cz_fp2_dbl_inl
#define CI_F_NEG cz_fp2_neg_inl
#define CI_F_MUL cz_fp2_mul
#define CI_F_SQR cz_fp2_sqr
#define CI_F_INV cz_fp2_inv
#define CI_F_IS_ZERO cz_fp2_is_zero
#define CI_F_EQ cz_fp2_eq
#define CI_F_ZERO (&cz_fp2_zero)
#define CI_F_ONE (&cz_fp2_one)
#define CI_B (&cz_bls12_381_g2_b)
#define CI_B3 (&cz_bls12_381_g2_b3)
#define CI_AFF cz_g2_affine
#define CI_JAC cz_g2_jac
#define CI_XYZZ cz_g2_xyzz
#define CI_NAME(n) cz_g2_##n
#define CI_S cz_fr
#define CI_S_LIMBS CZ_FR_LIMBS
#define CI_S_FROM_MONT cz_fr_from_mont
#include "zk/curve/curve_tmpl_pvt.h"

/* psi(X, Y, Z) = (conj(X)·cx, conj(Y)·cy, conj(Z)) in Jacobian coordinates
 * (Frobenius commutes with the Z scaling, the constants are affine). */
void cz_g2_psi(cz_g2_jac *r, const cz_g2_jac *p)
{
	cz_fp2_conj(&r->x, &p->x);
	cz_fp2_mul(&r->x, &r->x, &cz_bls12_381_g2_psi_cx);
	cz_fp2_conj(&r->y, &p->y);
	cz_fp2_mul(&r->y, &r->y, &cz_bls12_381_g2_psi_cy);
	cz_fp2_conj(&r->z, &p->z);
}

bool cz_g2_affine_in_subgroup(const cz_g2_affine *p)
{
	static const uint64_t xabs = CZ_BLS12_381_X_ABS;
	cz_g2_jac pj, q, s;

	if (cz_g2_affine_is_inf(p))
		return true;
	if (!cz_g2_affine_on_curve(p))
		return false;
	cz_g2_jac_from_affine(&pj, p);
	cz_g2_mul_vartime(&q, &pj, &xabs, 1);
	if (CZ_BLS12_381_X_IS_NEG)
		cz_g2_jac_neg(&q, &q);            /* x·P */
	cz_g2_psi(&s, &pj);
	return cz_g2_jac_eq(&s, &q);
}

/* Multiplication by the cofactor h2 maps E'(Fp2) onto G2 (507-bit scalar:
 * slow, for tests and setup; the faster effective cofactor is not needed). */
void cz_g2_clear_cofactor(cz_g2_jac *r, const cz_g2_jac *p)
{
	cz_g2_mul_vartime(r, p, cz_bls12_381_g2_cofactor, CZ_BLS12_381_H2_LIMBS);
}
