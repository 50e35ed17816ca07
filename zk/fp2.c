/* SPDX-License-Identifier: MIT */
/*
 * zk/fp2.c — BLS12-381 Fp2 = Fp[u]/(u^2 + 1): zk/fp2_impl.h over cz_fp,
 * with the tower's non-residue xi = 1 + u.
 */
#include "zk/fp2.h"
#include "zk/field_inline.h"
#include "zk/bls12_381.h"

#define E2_PFX cz_fp2
#define E2_B cz_fp
#define E2_N CZ_FP_LIMBS
#define E2_ONE CZ_BLS12_381_P_ONE
#define E2_XI_A 1
#include "zk/fp2_impl.h"
