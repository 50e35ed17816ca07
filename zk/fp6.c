/* SPDX-License-Identifier: MIT */
/*
 * zk/fp6.c — BLS12-381 Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: zk/fp6_impl.h
 * over cz_fp2.
 */
#include "zk/fp6.h"
#include "zk/fp12.h"

#define TW_FP2 cz_fp2
#define TW_FP6 cz_fp6
#define TW_FP12 cz_fp12
#define TW_FROB_COEFFS cz_bls12_381_frob_coeffs
#include "zk/fp6_impl.h"
