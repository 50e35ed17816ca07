/* SPDX-License-Identifier: MIT */
/* zk/msm/bn254_msm_g2.c — the MSM bucket code (zk/msm/msm_tmpl_pvt.h) instantiated for BN254 G2 over its Fp2. */
#include "zk/msm/bn254_msm.h"
#include "zk/field/field_inline.h"

#define F cz_bn254_fp2
#define F_ADD cz_bn254_fp2_add_inl
#define F_SUB cz_bn254_fp2_sub_inl
#define F_DBL cz_bn254_fp2_dbl_inl
#define F_NEG cz_bn254_fp2_neg_inl
#define F_MUL cz_bn254_fp2_mul
#define F_SQR cz_bn254_fp2_sqr
#define F_INV cz_bn254_fp2_inv /* unused: N_INV inverts norms */
#define AFF cz_bn254_g2_affine
#define XYZZ cz_bn254_g2_xyzz
#define JAC cz_bn254_g2_jac
#define XYZZ_ADD_AFF cz_bn254_g2_xyzz_add_affine
#define XYZZ_ADD cz_bn254_g2_xyzz_add
#define XYZZ_DBL cz_bn254_g2_xyzz_dbl
#define XYZZ_TO_JAC cz_bn254_g2_xyzz_to_jac
#define JAC_BATCH_TO_AFF cz_bn254_g2_jac_batch_to_affine
#define JAC_SET_INF cz_bn254_g2_jac_set_inf
#define JAC_IS_INF cz_bn254_g2_jac_is_inf
#define JAC_ADD cz_bn254_g2_jac_add
#define JAC_DBL cz_bn254_g2_jac_dbl
#define MSM_FN cz_bn254_msm_g2
#define MSM_TUNED_FN cz_bn254_msm_g2_tuned
#define VEC_FLUSH cz_bn254_msm_g2_flush_ifma
#define VEC_BYTES cz_bn254_msm_g2_ifma_bytes

/*
 * Batch inversion on norms: 1/(a + bu) = (a - bu)/(a^2 + b^2), so the
 * Montgomery trick runs in Fp (3 M per element) and each inverse costs
 * 2 S + 2 M around it: 7 Fp M-equivalents instead of 3 Fp2 M (9 Fp M).
 */
static inline void den_norm(cz_bn254_fp *n, const cz_bn254_fp2 *d)
{
	cz_bn254_fp t;
	cz_bn254_fp_sqr_inl(n, &d->c0);
	cz_bn254_fp_sqr_inl(&t, &d->c1);
	cz_bn254_fp_add_inl(n, n, &t);
}

static inline void den_inv(cz_bn254_fp2 *t, const cz_bn254_fp2 *d, const cz_bn254_fp *ninv)
{
	cz_bn254_fp_mul_inl(&t->c0, &d->c0, ninv);
	cz_bn254_fp_mul_inl(&t->c1, &d->c1, ninv);
	cz_bn254_fp_neg_inl(&t->c1, &t->c1);
}

#define N cz_bn254_fp
#define N_MUL cz_bn254_fp_mul_inl
#define N_INV cz_bn254_fp_inv_vartime
#define DEN_NORM den_norm
#define DEN_INV den_inv

#include "zk/msm/msm_tmpl_pvt.h"
