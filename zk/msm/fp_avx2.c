/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fp_avx2.c — the BLS12-381 instance of the vector field and MSM flush
 * (zk/msm/fp_ifma.h) for CPUs with AVX2 but no AVX-512 IFMA: four lanes on
 * ymm, 14 limbs of 29 bits for the 381-bit p (406 bits, S = 22), vpmuludq
 * products (zk/field/fpv_tmpl_pvt.h, FV_AVX2), the constants of
 * zk/field/bls12_381.h.  The code is zk/msm/fpv_inst_tmpl_pvt.h's.
 */

#define FV_BLS12_381 1
#define FV_AVX2 1
#define FV_L 4
#define FV_N 14
#define FV_OPS cz_fpv_bls12_381_avx2
#include "zk/msm/fpv_curve_pvt.h"
#include "zk/msm/fpv_inst_tmpl_pvt.h"
