/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fp_ifma256.c — the BLS12-381 instance of the vector field and MSM
 * flush (zk/msm/fp_ifma.h), four lanes on ymm (AVX-512VL): 8 limbs of 52 bits
 * for the 381-bit p, the constants of zk/field/bls12_381.h.  The code is
 * zk/msm/fpv_inst_tmpl_pvt.h's, the same as eight lanes'.
 */

#define FV_BLS12_381 1
#define FV_L 4
#define FV_N 8
#define FV_OPS cz_fpv_bls12_381_4
#include "zk/msm/fpv_curve_pvt.h"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
