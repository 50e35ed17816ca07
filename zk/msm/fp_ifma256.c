/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fp_ifma256.c — the BLS12-381 instance of the vector field and MSM
 * flush (zk/msm/fp_ifma.h), four lanes on ymm (AVX-512VL): 8 limbs of 52 bits
 * for the 381-bit p, the constants of zk/field/bls12_381.h.  The code is
 * zk/msm/fpv_inst_tmpl_pvt.h's, the same as eight lanes'.
 */
#include "zk/field/bls12_381.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"

#define FV_L 4
#define FV_N 8
#define FV_SN CZ_FP_LIMBS
#define FV_MOD CZ_BLS12_381_P
#define FV_ONE CZ_BLS12_381_P_ONE
#define FV_INV CZ_BLS12_381_P_INV
#define FV_ST cz_fp
#define FV_ST2 cz_fp2
#define FV_SMUL cz_fp_mul
#define FV_SINV cz_fp_inv_vartime
#define FV_OPS cz_fpv_bls12_381_4
#define FV_CURVE "bls12-381"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
