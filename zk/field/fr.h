/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fr.h — the BLS12-381 scalar field Fr (255-bit r), Montgomery form,
 * four 64-bit limbs, little-endian limb order.
 *
 * The code is generic over the limb count (zk/field/field_tmpl_pvt.h); this header is
 * the BLS12-381 instance.  Values are always fully reduced (< r).
 * "mont" bytes are the Montgomery representation a·R mod r (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_FR_H
#define CZ_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/field/field_decl_tmpl_pvt.h"

#define CZ_FR_LIMBS 4
#define CZ_FR_BYTES 32

/* The API every field has (zk/field/field_decl_tmpl_pvt.h lists and explains it). */
CZ_FIELD_DECLARE(cz_fr, cz_fr, cz_fr_wide, CZ_FR_LIMBS, CZ_FR_BYTES);

/* Roots of unity, as snarkjs defines them: omega_{2^32} = 5^((r-1)/2^32).
 * cz_fr_root_of_unity(r, k) gives a primitive 2^k-th root, 0 <= k <= 32. */
#define CZ_FR_TWO_ADICITY 32
CZ_FIELD_DECLARE_ROOTS(cz_fr, cz_fr);

#endif
