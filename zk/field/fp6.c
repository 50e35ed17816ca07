/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp6.c — BLS12-381 Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: zk/field/fp6_tmpl_pvt.h
 * over cz_fp2.
 */
#include "zk/field/fp6.h"
#include "zk/field/fp12.h"

#define TW_FP2 cz_fp2
#define TW_FP6 cz_fp6
#define TW_FP12 cz_fp12
#define TW_FROB_COEFFS cz_bls12_381_frob_coeffs
#include "zk/field/fp6_tmpl_pvt.h"
