/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fr.c — the BN254 scalar field Fr (254-bit r): zk/field/field_tmpl_pvt.h
 * instantiated for four limbs with the constants of zk/field/bn254.h and the
 * same 4-limb x86-64 kernels as BLS12-381's Fr.
 */
#include "zk/field/bn254_fr.h"
#include "zk/field/bn254.h"

#define FIELD_N CZ_BN254_FR_LIMBS
#define FIELD_PFX cz_bn254_fr
#define FIELD_T cz_bn254_fr
#define FIELD_WIDE_T cz_bn254_fr_wide
#define FIELD_BYTES CZ_BN254_FR_BYTES
#define FIELD_MOD CZ_BN254_R
#define FIELD_ONE CZ_BN254_R_ONE
#define FIELD_R2 CZ_BN254_R_R2
#define FIELD_R3 CZ_BN254_R_R3
#define FIELD_INV CZ_BN254_R_INV
#define FIELD_NQR CZ_BN254_R_NQR
#define FIELD_OMEGA CZ_BN254_R_OMEGA28
#define FIELD_TWO_ADICITY CZ_BN254_R_TWO_ADICITY
#include "zk/field/field_tmpl_pvt.h"

_Static_assert(CZ_BN254_FR_TWO_ADICITY == CZ_BN254_R_TWO_ADICITY, "Fr two-adicity");
