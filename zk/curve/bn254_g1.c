/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g1.c — BN254 G1, y^2 = x^3 + 3 over Fp: zk/curve/curve_tmpl_pvt.h over
 * cz_bn254_fp.  #E(Fp) = r (cofactor 1), so a point on the curve is in G1
 * and clearing the cofactor is the identity; selftests/zk_bn254_g1.c checks
 * r·P = O for random curve points.
 */
#include "zk/curve/bn254_g1.h"

#include "zk/curve/bn254_curve.h"
#include "zk/field/field_inline.h"

#define CI_F cz_bn254_fp
#define CI_F_ADD cz_bn254_fp_add_inl
#define CI_F_SUB cz_bn254_fp_sub_inl
#define CI_F_DBL cz_bn254_fp_dbl_inl
#define CI_F_NEG cz_bn254_fp_neg_inl
#define CI_F_MUL cz_bn254_fp_mul_inl
#define CI_F_SQR cz_bn254_fp_sqr_inl
#define CI_F_INV cz_bn254_fp_inv
#define CI_F_IS_ZERO cz_bn254_fp_is_zero
#define CI_F_EQ cz_bn254_fp_eq
#define CI_F_ZERO (&cz_bn254_fp_zero)
#define CI_F_ONE (&cz_bn254_fp_one)
#define CI_B (&cz_bn254_g1_b)
#define CI_B3 (&cz_bn254_g1_b3)
#define CI_AFF cz_bn254_g1_affine
#define CI_JAC cz_bn254_g1_jac
#define CI_XYZZ cz_bn254_g1_xyzz
#define CI_NAME(n) cz_bn254_g1_##n
#define CI_S cz_bn254_fr
#define CI_S_LIMBS CZ_BN254_FR_LIMBS
#define CI_S_FROM_MONT cz_bn254_fr_from_mont
#include "zk/curve/curve_tmpl_pvt.h"

bool cz_bn254_g1_affine_in_subgroup(const cz_bn254_g1_affine *p)
{
	return cz_bn254_g1_affine_on_curve(p); /* cofactor 1; infinity: true */
}

void cz_bn254_g1_clear_cofactor(cz_bn254_g1_jac *r, const cz_bn254_g1_jac *p)
{
	*r = *p;
}
