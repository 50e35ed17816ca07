/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fp_avx2.c — the BLS12-381 instance of the vector field and MSM flush
 * (zk/msm/fp_ifma.h) for CPUs with AVX2 but no AVX-512 IFMA: four lanes on
 * ymm, 14 limbs of 29 bits for the 381-bit p (406 bits, S = 22), vpmuludq
 * products (zk/msm/fpv_tmpl_pvt.h, FV_AVX2), the constants of
 * zk/field/bls12_381.h.  The code is zk/msm/fpv_inst_tmpl_pvt.h's.
 */
#include "zk/field/bls12_381.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"

#define FV_AVX2 1
#define FV_L 4
#define FV_N 14
#define FV_SN CZ_FP_LIMBS
#define FV_MOD CZ_BLS12_381_P
#define FV_ONE CZ_BLS12_381_P_ONE
#define FV_INV CZ_BLS12_381_P_INV
#define FV_ST cz_fp
#define FV_ST2 cz_fp2
#define FV_SMUL cz_fp_mul
#define FV_SINV cz_fp_inv_vartime
#define FV_OPS cz_fpv_bls12_381_avx2
#define FV_CURVE "bls12-381"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
