/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fr.h — the BN254 scalar field Fr (254-bit r), Montgomery form, four
 * 64-bit limbs, little-endian limb order.
 *
 * The same generic code as BLS12-381's fields (zk/field/field_tmpl_pvt.h, declared
 * by zk/field/field_decl_tmpl_pvt.h), instantiated with the constants of zk/field/bn254.h.
 * "mont" bytes are the Montgomery representation a·R mod m (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_BN254_FR_H
#define CZ_BN254_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/field/field_decl_tmpl_pvt.h"

#define CZ_BN254_FR_LIMBS 4
#define CZ_BN254_FR_BYTES 32

CZ_FIELD_DECLARE(cz_bn254_fr, cz_bn254_fr, cz_bn254_fr_wide, CZ_BN254_FR_LIMBS, CZ_BN254_FR_BYTES);

/* Roots of unity, as snarkjs defines them: omega_{2^28} = 5^((r-1)/2^28);
 * cz_bn254_fr_root_of_unity(r, k) gives a primitive 2^k-th root, k <= 28. */
#define CZ_BN254_FR_TWO_ADICITY 28
CZ_FIELD_DECLARE_ROOTS(cz_bn254_fr, cz_bn254_fr);

#endif
