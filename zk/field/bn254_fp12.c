/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp12.c — BN254 Fp12 = Fp6[w]/(w^2 - v): zk/field/fp12_tmpl_pvt.h over
 * cz_bn254_fp6; its Frobenius coefficients cz_bn254_frob_coeffs are
 * zk/field/bn254_fp6.c's.
 */
#include "zk/field/bn254_fp12.h"

#define TW_FP2 cz_bn254_fp2
#define TW_FP6 cz_bn254_fp6
#define TW_FP12 cz_bn254_fp12
#define TW_FROB_COEFFS cz_bn254_frob_coeffs
#include "zk/field/fp12_tmpl_pvt.h"
