/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp.c — the BLS12-381 base field Fp: zk/field/field_tmpl_pvt.h instantiated for
 * six limbs with the constants of zk/field/bls12_381.h.  p ≡ 3 (mod 4), so
 * cz_fp_sqrt is one exponentiation a^((p+1)/4) and a check.
 */
#include "zk/field/fp.h"
#include "zk/field/bls12_381.h"

#define FIELD_N CZ_FP_LIMBS
#define FIELD_PFX cz_fp
#define FIELD_T cz_fp
#define FIELD_WIDE_T cz_fp_wide
#define FIELD_BYTES CZ_FP_BYTES
#define FIELD_MOD CZ_BLS12_381_P
#define FIELD_ONE CZ_BLS12_381_P_ONE
#define FIELD_R2 CZ_BLS12_381_P_R2
#define FIELD_R3 CZ_BLS12_381_P_R3
#define FIELD_INV CZ_BLS12_381_P_INV
#define FIELD_NQR CZ_BLS12_381_P_NQR
#include "zk/field/field_tmpl_pvt.h"
