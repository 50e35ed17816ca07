/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp.c — the BN254 base field Fp (254-bit p): zk/field/field_tmpl_pvt.h
 * instantiated for four limbs with the constants of zk/field/bn254.h and the
 * same 4-limb x86-64 kernels as BLS12-381's Fr.
 */
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254.h"

#define FIELD_N CZ_BN254_FP_LIMBS
#define FIELD_PFX cz_bn254_fp
#define FIELD_T cz_bn254_fp
#define FIELD_WIDE_T cz_bn254_fp_wide
#define FIELD_BYTES CZ_BN254_FP_BYTES
#define FIELD_MOD CZ_BN254_P
#define FIELD_ONE CZ_BN254_P_ONE
#define FIELD_R2 CZ_BN254_P_R2
#define FIELD_R3 CZ_BN254_P_R3
#define FIELD_INV CZ_BN254_P_INV
#define FIELD_NQR CZ_BN254_P_NQR
#include "zk/field/field_tmpl_pvt.h"
