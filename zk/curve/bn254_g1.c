/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g1.c — BN254 G1, y^2 = x^3 + 3 over Fp: zk/curve/curve_tmpl_pvt.h over
 * cz_bn254_fp.  #E(Fp) = r (cofactor 1), so a point on the curve is in G1
 * and clearing the cofactor is the identity; selftests/zk_bn254_g1.c checks
 * r·P = O for random curve points.
 */
#include "zk/curve/bn254_g1.h"

#include "zk/curve/bn254_curve.h"

#define CG_F cz_bn254_fp
#define CG_GROUP cz_bn254_g1
#define CG_CONST cz_bn254_g1
#define CG_S cz_bn254_fr
#define CG_S_LIMBS CZ_BN254_FR_LIMBS
#include "zk/curve/curve_inst_tmpl_pvt.h"

bool cz_bn254_g1_affine_in_subgroup(const cz_bn254_g1_affine *p)
{
	return cz_bn254_g1_affine_on_curve(p); /* cofactor 1; infinity: true */
}

void cz_bn254_g1_clear_cofactor(cz_bn254_g1_jac *r, const cz_bn254_g1_jac *p)
{
	*r = *p;
}
