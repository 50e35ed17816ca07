/* SPDX-License-Identifier: MIT */
/* zk/msm/msm_g1.c — the MSM bucket code (zk/msm/msm_tmpl_pvt.h) instantiated for G1 over Fp
 * (zk/msm/msm_inst_tmpl_pvt.h). */
#include "zk/curve/g1.h"

#define MI_FP cz_fp
#define MI_GROUP cz_g1
#define MI_MSM cz_msm_g1
#define MI_LAZY
#include "zk/msm/msm_inst_tmpl_pvt.h"
