/* SPDX-License-Identifier: MIT */
/* zk/msm/bn254_msm_g1.c — the MSM bucket code (zk/msm/msm_tmpl_pvt.h) instantiated for BN254 G1 over its Fp. */
#include "zk/msm/bn254_msm.h"
#include "zk/field/field_inline.h"

#define F cz_bn254_fp
#define F_ADD cz_bn254_fp_add_inl
#define F_SUB cz_bn254_fp_sub_inl
#define F_DBL cz_bn254_fp_dbl_inl
#define F_NEG cz_bn254_fp_neg_inl
#define F_MUL cz_bn254_fp_mul_inl
#define F_SQR cz_bn254_fp_sqr_inl
#define F_INV cz_bn254_fp_inv_vartime /* bucket contents are not secret-independent anyway */
#define AFF cz_bn254_g1_affine
#define XYZZ cz_bn254_g1_xyzz
#define JAC cz_bn254_g1_jac
#define XYZZ_ADD_AFF cz_bn254_g1_xyzz_add_affine
#define XYZZ_ADD cz_bn254_g1_xyzz_add
#define XYZZ_DBL cz_bn254_g1_xyzz_dbl
#define XYZZ_TO_JAC cz_bn254_g1_xyzz_to_jac
#define JAC_BATCH_TO_AFF cz_bn254_g1_jac_batch_to_affine
#define JAC_SET_INF cz_bn254_g1_jac_set_inf
#define JAC_IS_INF cz_bn254_g1_jac_is_inf
#define JAC_ADD cz_bn254_g1_jac_add
#define JAC_DBL cz_bn254_g1_jac_dbl
#define MSM_FN cz_bn254_msm_g1
#define MSM_TUNED_FN cz_bn254_msm_g1_tuned
#define VEC_FLUSH cz_bn254_msm_g1_flush_ifma
#define VEC_BYTES cz_bn254_msm_g1_ifma_bytes

#include "zk/msm/msm_tmpl_pvt.h"
