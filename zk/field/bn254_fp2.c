/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp2.c — BN254 Fp2 = Fp[u]/(u^2 + 1): zk/field/fp2_tmpl_pvt.h over
 * cz_bn254_fp, with the tower's non-residue xi = 9 + u.
 */
#include "zk/field/bn254_fp2.h"
#include "zk/field/field_inline.h"
#include "zk/field/bn254.h"

#define E2_PFX cz_bn254_fp2
#define E2_B cz_bn254_fp
#define E2_N CZ_BN254_FP_LIMBS
#define E2_ONE CZ_BN254_P_ONE
#define E2_XI_A 9
#include "zk/field/fp2_tmpl_pvt.h"
