/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/bn254_fp_ifma256.c — the BN254 instance of the vector field and MSM
 * flush (zk/msm/fp_ifma.h), four lanes on ymm (AVX-512VL): 5 limbs of 52 bits
 * for the 254-bit p (260 bits, S = 4), the constants of zk/field/bn254.h.  The
 * code is zk/msm/fpv_inst_tmpl_pvt.h's, the same as BLS12-381's and as eight lanes'.
 */

#define FV_BN254 1
#define FV_L 4
#define FV_N 5
#define FV_OPS cz_fpv_bn254_4
#include "zk/msm/fpv_curve_pvt.h"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
