/* SPDX-License-Identifier: MIT */
/* zk/msm/msm_g2.c — the MSM bucket code (zk/msm/msm_tmpl_pvt.h) instantiated for G2 over Fp2
 * (zk/msm/msm_inst_tmpl_pvt.h). */
#include "zk/curve/g2.h"

#define MI_FP cz_fp
#define MI_GROUP cz_g2
#define MI_MSM cz_msm_g2
#define MI_G2
#define MI_LAZY
#include "zk/msm/msm_inst_tmpl_pvt.h"
