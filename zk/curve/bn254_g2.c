/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g2.c — BN254 G2, y^2 = x^3 + 3/(9 + u) over Fp2 (D-type twist):
 * zk/curve/curve_tmpl_pvt.h over cz_bn254_fp2, plus psi, the subgroup check and
 * cofactor clearing (zk/curve/curve_inst_tmpl_pvt.h, the same code as
 * BLS12-381's G2); this file says the scalar psi multiplies by, the cofactor
 * and why the check holds.
 *
 * Subgroup check (El Housni, Guillevic, Piellard, "Co-factor clearing and
 * subgroup membership testing on pairing-friendly curves", 2022, for BN
 * curves): psi acts on G2 as multiplication by p ≡ 6x^2 (mod r), and
 * psi(P) = 6x^2·P holds only on G2.  Cost: one 127-bit public-scalar
 * multiplication and a Frobenius (about 127 doublings and 60 additions)
 * instead of a 254-bit one.  selftests/zk_bn254_g2.c compares it with
 * r·P = O on points inside and outside G2.
 */
#include "zk/curve/bn254_g2.h"

#include "zk/curve/bn254_curve.h"

#define CG_F cz_bn254_fp2
#define CG_FP2
#define CG_GROUP cz_bn254_g2
#define CG_CONST cz_bn254_g2
#define CG_S cz_bn254_fr
#define CG_S_LIMBS CZ_BN254_FR_LIMBS
#define CG_PSI_SCALAR CZ_BN254_6X2      /* psi(P) = 6x^2·P on G2 */
#define CG_PSI_LIMBS 2
#define CG_PSI_NEG 0
#define CG_H_LIMBS CZ_BN254_H2_LIMBS   /* h2 = 2p - r */
#include "zk/curve/curve_inst_tmpl_pvt.h"
