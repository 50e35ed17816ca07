/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fr.c — the BLS12-381 scalar field Fr: zk/field/field_tmpl_pvt.h instantiated for
 * four limbs with the constants of zk/field/bls12_381.h, plus the roots of unity
 * the NTT needs (snarkjs' choice: omega_{2^32} = 5^((r-1)/2^32)).
 */
#include "zk/field/fr.h"
#include "zk/field/bls12_381.h"

#define FIELD_N CZ_FR_LIMBS
#define FIELD_PFX cz_fr
#define FIELD_T cz_fr
#define FIELD_WIDE_T cz_fr_wide
#define FIELD_BYTES CZ_FR_BYTES
#define FIELD_MOD CZ_BLS12_381_R
#define FIELD_ONE CZ_BLS12_381_R_ONE
#define FIELD_R2 CZ_BLS12_381_R_R2
#define FIELD_R3 CZ_BLS12_381_R_R3
#define FIELD_INV CZ_BLS12_381_R_INV
#define FIELD_NQR CZ_BLS12_381_R_NQR
#define FIELD_OMEGA CZ_BLS12_381_R_OMEGA32
#define FIELD_TWO_ADICITY CZ_BLS12_381_R_TWO_ADICITY
#include "zk/field/field_tmpl_pvt.h"

_Static_assert(CZ_FR_TWO_ADICITY == CZ_BLS12_381_R_TWO_ADICITY, "Fr two-adicity");
