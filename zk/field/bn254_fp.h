/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp.h — the BN254 base field Fp (254-bit p), Montgomery form, four
 * 64-bit limbs, little-endian limb order.
 *
 * The same generic code as BLS12-381's fields (zk/field/field_tmpl_pvt.h, declared
 * by zk/field/field_decl_tmpl_pvt.h), instantiated with the constants of zk/field/bn254.h.
 * "mont" bytes are the Montgomery representation a·R mod m (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_BN254_FP_H
#define CZ_BN254_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/field/field_decl_tmpl_pvt.h"

#define CZ_BN254_FP_LIMBS 4
#define CZ_BN254_FP_BYTES 32

CZ_FIELD_DECLARE(cz_bn254_fp, cz_bn254_fp, cz_bn254_fp_wide, CZ_BN254_FP_LIMBS, CZ_BN254_FP_BYTES);

#endif
