/* SPDX-License-Identifier: MIT */
/* zk/msm_g2.c — the MSM bucket code (zk/msm_tmpl_pvt.h) instantiated for G2 over Fp2. */
#include "zk/g2.h"

#define F cz_fp2
#define F_ADD cz_fp2_add
#define F_SUB cz_fp2_sub
#define F_DBL cz_fp2_dbl
#define F_NEG cz_fp2_neg
#define F_MUL cz_fp2_mul
#define F_SQR cz_fp2_sqr
#define F_INV cz_fp2_inv
#define AFF cz_g2_affine
#define XYZZ cz_g2_xyzz
#define JAC cz_g2_jac
#define XYZZ_ADD_AFF cz_g2_xyzz_add_affine
#define XYZZ_ADD cz_g2_xyzz_add
#define XYZZ_TO_JAC cz_g2_xyzz_to_jac
#define JAC_SET_INF cz_g2_jac_set_inf
#define JAC_IS_INF cz_g2_jac_is_inf
#define JAC_ADD cz_g2_jac_add
#define JAC_DBL cz_g2_jac_dbl
#define MSM_FN cz_msm_g2
#define MSM_TUNED_FN cz_msm_g2_tuned

#include "zk/msm_tmpl_pvt.h"
