/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp6.c — BLS12-381 Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: zk/field/fp6_tmpl_pvt.h
 * over cz_fp2, and the tower's Frobenius coefficients cz_bls12_381_frob_coeffs.
 */
#include "zk/field/fp6.h"

#define TW_FP cz_fp
#define TW_FP_LIMBS CZ_FP_LIMBS
#define TW_FP2 cz_fp2
#define TW_FP6 cz_fp6
#define TW_FROB_COEFFS cz_bls12_381_frob_coeffs
#include "zk/field/fp6_tmpl_pvt.h"
