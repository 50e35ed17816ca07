/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/g1.c — BLS12-381 G1, y^2 = x^3 + 4 over Fp.
 *
 * The formulas are zk/curve/curve_tmpl_pvt.h instantiated over Fp; this file adds what
 * is special to G1: the subgroup check and cofactor clearing.
 *
 * Subgroup check (Scott, "A note on group membership tests for G1, G2 and
 * GT on BLS pairing-friendly curves", 2021): sigma(x, y) = (beta·x, y) is an
 * endomorphism of E(Fp) acting on G1 as the scalar -x^2 (x the BLS
 * parameter), and for BLS12-381 sigma(P) = -x^2·P holds only on G1.  Cost: two
 * 64-bit public-scalar multiplications (about 130 doublings and 10
 * additions) instead of a 255-bit one.  selftests/zk_g1.c compares it with
 * r·P = O on points inside and outside G1.
 */
#include "zk/curve/g1.h"

#include "zk/curve/bls12_381_curve.h"

#define CG_F cz_fp
#define CG_LAZY
#define CG_GROUP cz_g1
#define CG_CONST cz_bls12_381_g1
#define CG_S cz_fr
#define CG_S_LIMBS CZ_FR_LIMBS
#include "zk/curve/curve_inst_tmpl_pvt.h"

bool cz_g1_affine_in_subgroup(const cz_g1_affine *p)
{
	static const uint64_t xabs = CZ_BLS12_381_X_ABS;
	cz_g1_jac pj, q, s;

	if (cz_g1_affine_is_inf(p))
		return true;
	if (!cz_g1_affine_on_curve(p))
		return false;
	cz_g1_jac_from_affine(&pj, p);
	cz_g1_mul_vartime(&q, &pj, &xabs, 1);
	cz_g1_mul_vartime(&q, &q, &xabs, 1);   /* x^2·P (the sign of x squares away) */
	cz_g1_jac_neg(&q, &q);
	s = pj;
	cz_fp_mul(&s.x, &s.x, &cz_bls12_381_g1_beta); /* sigma(P) */
	return cz_g1_jac_eq(&s, &q);
}

/* Multiplication by the cofactor h1 maps E(Fp) onto G1. */
void cz_g1_clear_cofactor(cz_g1_jac *r, const cz_g1_jac *p)
{
	cz_g1_mul_vartime(r, p, cz_bls12_381_g1_cofactor, CZ_BLS12_381_H1_LIMBS);
}
