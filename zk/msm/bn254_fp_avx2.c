/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/bn254_fp_avx2.c — the BN254 instance of the vector field and MSM flush
 * (zk/msm/fp_ifma.h) for CPUs with AVX2 but no AVX-512 IFMA: four lanes on
 * ymm, 9 limbs of 29 bits for the 254-bit p (261 bits, S = 5), vpmuludq
 * products (zk/field/fpv_tmpl_pvt.h, FV_AVX2), the constants of
 * zk/field/bn254.h (zk/msm/fpv_curve_pvt.h).  The code is
 * zk/msm/fpv_inst_tmpl_pvt.h's, as for IFMA.
 */

#define FV_BN254 1
#define FV_AVX2 1
#define FV_L 4
#define FV_N 9
#define FV_OPS cz_fpv_bn254_avx2
#include "zk/msm/fpv_curve_pvt.h"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
