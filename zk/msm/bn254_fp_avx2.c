/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/bn254_fp_avx2.c — the BN254 instance of the vector field and MSM flush
 * (zk/msm/fp_ifma.h) for CPUs with AVX2 but no AVX-512 IFMA: four lanes on
 * ymm, 9 limbs of 29 bits for the 254-bit p (261 bits, S = 5), vpmuludq
 * products (zk/msm/fpv_tmpl_pvt.h, FV_AVX2), the constants of
 * zk/field/bn254.h.  The code is zk/msm/fpv_inst_tmpl_pvt.h's, as for IFMA.
 */
#include "zk/field/bn254.h"
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fp2.h"

#define FV_AVX2 1
#define FV_L 4
#define FV_N 9
#define FV_SN CZ_BN254_FP_LIMBS
#define FV_MOD CZ_BN254_P
#define FV_ONE CZ_BN254_P_ONE
#define FV_INV CZ_BN254_P_INV
#define FV_ST cz_bn254_fp
#define FV_ST2 cz_bn254_fp2
#define FV_SMUL cz_bn254_fp_mul
#define FV_SINV cz_bn254_fp_inv_vartime
#define FV_OPS cz_fpv_bn254_avx2
#define FV_CURVE "bn254"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
