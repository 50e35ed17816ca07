/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp12.c — BLS12-381 Fp12 = Fp6[w]/(w^2 - v): zk/field/fp12_tmpl_pvt.h over
 * cz_fp6; its Frobenius coefficients cz_bls12_381_frob_coeffs are zk/field/fp6.c's.
 */
#include "zk/field/fp12.h"

#define TW_FP2 cz_fp2
#define TW_FP6 cz_fp6
#define TW_FP12 cz_fp12
#define TW_FROB_COEFFS cz_bls12_381_frob_coeffs
#include "zk/field/fp12_tmpl_pvt.h"
