/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp12.c — BN254 Fp12 = Fp6[w]/(w^2 - v): zk/field/fp12_tmpl_pvt.h over
 * cz_bn254_fp6, with its Frobenius coefficients cz_bn254_frob_coeffs.
 */
#include "zk/field/bn254_fp12.h"

#define TW_FP cz_bn254_fp
#define TW_FP_LIMBS CZ_BN254_FP_LIMBS
#define TW_FP2 cz_bn254_fp2
#define TW_FP6 cz_bn254_fp6
#define TW_FP12 cz_bn254_fp12
#define TW_FROB_COEFFS cz_bn254_frob_coeffs
#include "zk/field/fp12_tmpl_pvt.h"
