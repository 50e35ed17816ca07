/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp6.c — BN254 Fp6 = Fp2[v]/(v^3 - xi), xi = 9 + u:
 * zk/field/fp6_tmpl_pvt.h over cz_bn254_fp2, and the tower's Frobenius
 * coefficients cz_bn254_frob_coeffs.
 */
#include "zk/field/bn254_fp12.h"

#define TW_FP cz_bn254_fp
#define TW_FP_LIMBS CZ_BN254_FP_LIMBS
#define TW_FP2 cz_bn254_fp2
#define TW_FP6 cz_bn254_fp6
#define TW_FROB_COEFFS cz_bn254_frob_coeffs
#include "zk/field/fp6_tmpl_pvt.h"
