/* SPDX-License-Identifier: MIT */
/* zk/msm/bn254_msm_g2.c — the MSM bucket code (zk/msm/msm_tmpl_pvt.h) instantiated for BN254 G2 over its Fp2
 * (zk/msm/msm_inst_tmpl_pvt.h). */
#include "zk/msm/bn254_msm.h"

#define MI_FP cz_bn254_fp
#define MI_GROUP cz_bn254_g2
#define MI_MSM cz_bn254_msm_g2
#define MI_G2
#define MI_LAZY
#include "zk/msm/msm_inst_tmpl_pvt.h"
