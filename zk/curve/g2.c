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

#define CG_F cz_fp2
#define CG_FP2
#define CG_GROUP cz_g2
#define CG_CONST cz_bls12_381_g2
#define CG_S cz_fr
#define CG_S_LIMBS CZ_FR_LIMBS
#include "zk/curve/curve_inst_tmpl_pvt.h"

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
