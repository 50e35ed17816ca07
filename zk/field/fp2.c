/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp2.c — BLS12-381 Fp2 = Fp[u]/(u^2 + 1): zk/field/fp2_tmpl_pvt.h over cz_fp,
 * with the tower's non-residue xi = 1 + u.
 */
#include "zk/field/fp2.h"
#include "zk/field/field_inline.h"
#include "zk/field/bls12_381.h"

#define E2_PFX cz_fp2
#define E2_B cz_fp
#define E2_N CZ_FP_LIMBS
#define E2_ONE CZ_BLS12_381_P_ONE
#define E2_XI_A 1
#include "zk/field/fp2_tmpl_pvt.h"
