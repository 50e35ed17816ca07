/* SPDX-License-Identifier: MIT */
/*
 * zk/bn254_fp2.c — BN254 Fp2 = Fp[u]/(u^2 + 1): zk/fp2_impl.h over
 * cz_bn254_fp, with the tower's non-residue xi = 9 + u.
 */
#include "zk/bn254_fp2.h"
#include "zk/field_inline.h"
#include "zk/bn254.h"

#define E2_PFX cz_bn254_fp2
#define E2_B cz_bn254_fp
#define E2_N CZ_BN254_FP_LIMBS
#define E2_ONE CZ_BN254_P_ONE
#define E2_XI_A 9
#include "zk/fp2_impl.h"
