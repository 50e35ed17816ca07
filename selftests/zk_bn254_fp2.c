/* Description: BN254 Fp2 = Fp[u]/(u^2+1) arithmetic, xi = 9 + u, inverse and sqrt vs a GMP schoolbook, on both paths. */
/* SPDX-License-Identifier: MIT */
#include "zk/field/bn254_fp2.h"
#include "zk/field/fp.h" /* cz_fp_have_adx, cz_field_force_portable: all fields */

#define T2 cz_bn254_fp2
#define TB cz_bn254_fp
#define TB_LIMBS CZ_BN254_FP_LIMBS
#define TB_BYTES CZ_BN254_FP_BYTES
#define XI_A 9
/* p from the BN254 (alt_bn128) specification, EIP-196 */
#define P_HEX "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47"
#include "selftests/zk_fp2_check.h"
