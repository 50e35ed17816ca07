/* Description: Fp2 = Fp[u]/(u^2+1) arithmetic, inverse and sqrt vs a GMP schoolbook, on both multiplication paths. */
/* SPDX-License-Identifier: MIT */
#include "zk/field/fp2.h"

#define T2 cz_fp2
#define TB cz_fp
#define TB_LIMBS CZ_FP_LIMBS
#define TB_BYTES CZ_FP_BYTES
#define XI_A 1
#define P_HEX                                                                            \
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fe" \
	"ffffffffaaab"
#include "selftests/zk_fp2_check.h"
