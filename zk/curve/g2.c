/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/g2.c — BLS12-381 G2, y^2 = x^3 + 4(1 + u) over Fp2 (M-type twist).
 *
 * The formulas are zk/curve/curve_tmpl_pvt.h instantiated over Fp2, and so
 * are G2's psi endomorphism, subgroup check and cofactor clearing
 * (zk/curve/curve_inst_tmpl_pvt.h, the same code as BN254's); this file says
 * what is special to BLS12-381's G2: the scalar psi multiplies by, the
 * cofactor, and why the check holds.
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
#define CG_PSI_SCALAR { CZ_BLS12_381_X_ABS }      /* psi(P) = x·P on G2, x = -|x| */
#define CG_PSI_LIMBS 1
#define CG_PSI_NEG CZ_BLS12_381_X_IS_NEG
#define CG_H_LIMBS CZ_BLS12_381_H2_LIMBS       /* h2: 507 bits, slow (tests and setup) */
#include "zk/curve/curve_inst_tmpl_pvt.h"
