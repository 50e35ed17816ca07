/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_inst_tmpl_pvt.h — one MSM instance (zk/msm/msm_tmpl_pvt.h) named
 * by its prefixes, so that the four instance files (zk/msm/msm_g1.c, msm_g2.c,
 * bn254_msm_g1.c, bn254_msm_g2.c) say only what differs: the curve and the
 * group.  The includer defines:
 *   MI_FP      the base field's prefix (cz_fp, cz_bn254_fp)
 *   MI_GROUP   the group's prefix (cz_g1, cz_bn254_g2): its _affine, _xyzz,
 *              _jac types and the functions of zk/curve/curve_decl_tmpl_pvt.h
 *   MI_MSM     the public name (cz_msm_g1, ...), also the prefix of _tuned
 *              and of the vector flush's _flush_ifma, _ifma_bytes (zk/msm/fp_ifma.h)
 *   MI_G2      (optional) the group lies over Fp2 = MI_FP##2, and the
 *              batch inversion runs on norms in Fp (below)
 *   MI_LAZY    (optional) the base field has MI_FP##_mul_lazy (BLS12-381, BN254),
 *              used for the products that feed only further products
 * and includes the group's header (zk/curve/g1.h, zk/msm/bn254_msm.h, ...) first.
 */
#include "zk/field/field_inline.h"

#define MI_CAT2(a, b) a##b
#define MI_CAT(a, b) MI_CAT2(a, b)
#define MI_B(n) MI_CAT(MI_FP, n)      /* the base field's functions */
#define MI_G(n) MI_CAT(MI_GROUP, n)   /* the group's */

#ifdef MI_G2
#define MI_F MI_CAT(MI_FP, 2)         /* the coordinate field, Fp2 */
#define F MI_F
#define F_ADD MI_CAT(MI_F, _add_inl)
#define F_SUB MI_CAT(MI_F, _sub_inl)
#define F_DBL MI_CAT(MI_F, _dbl_inl)
#define F_NEG MI_CAT(MI_F, _neg_inl)
#define F_MUL MI_CAT(MI_F, _mul)
#define F_SQR MI_CAT(MI_F, _sqr)
#define F_INV MI_CAT(MI_F, _inv) /* unused: N_INV inverts norms */
#else
#define F MI_FP
#define F_ADD MI_B(_add_inl)
#define F_SUB MI_B(_sub_inl)
#define F_DBL MI_B(_dbl_inl)
#define F_NEG MI_B(_neg_inl)
#define F_MUL MI_B(_mul_inl)
#ifdef MI_LAZY
#define F_MUL_LAZY MI_B(_mul_lazy)
#endif
#define F_SQR MI_B(_sqr_inl)
#define F_INV MI_B(_inv_vartime) /* bucket contents are not secret-independent anyway */
#endif
#define AFF MI_G(_affine)
#define XYZZ MI_G(_xyzz)
#define JAC MI_G(_jac)
#define XYZZ_ADD_AFF MI_G(_xyzz_add_affine)
#define XYZZ_ADD MI_G(_xyzz_add)
#define XYZZ_DBL MI_G(_xyzz_dbl)
#define XYZZ_TO_JAC MI_G(_xyzz_to_jac)
#define JAC_BATCH_TO_AFF MI_G(_jac_batch_to_affine)
#define JAC_SET_INF MI_G(_jac_set_inf)
#define JAC_IS_INF MI_G(_jac_is_inf)
#define JAC_ADD MI_G(_jac_add)
#define JAC_DBL MI_G(_jac_dbl)
#define MSM_FN MI_MSM
#define MSM_TUNED_FN MI_CAT(MI_MSM, _tuned)
#define VEC_FLUSH MI_CAT(MI_MSM, _flush_ifma)
#define VEC_BYTES MI_CAT(MI_MSM, _ifma_bytes)

#ifdef MI_G2
/*
 * Batch inversion on norms: 1/(a + bu) = (a - bu)/(a^2 + b^2), so the
 * Montgomery trick runs in Fp (3 M per element) and each inverse costs
 * 2 S + 2 M around it: 7 Fp M-equivalents instead of 3 Fp2 M (9 Fp M).
 */
static inline void den_norm(MI_FP *n, const MI_F *d)
{
	MI_FP t;
	MI_B(_sqr_inl)(n, &d->c0);
	MI_B(_sqr_inl)(&t, &d->c1);
	MI_B(_add_inl)(n, n, &t);
}

static inline void den_inv(MI_F *t, const MI_F *d, const MI_FP *ninv)
{
	MI_B(_mul_inl)(&t->c0, &d->c0, ninv);
	MI_B(_mul_inl)(&t->c1, &d->c1, ninv);
	MI_B(_neg_inl)(&t->c1, &t->c1);
}

#define N MI_FP
#define N_MUL MI_B(_mul_inl)
#ifdef MI_LAZY
#define N_MUL_LAZY MI_B(_mul_lazy)
#endif
#define N_INV MI_B(_inv_vartime)
#define DEN_NORM den_norm
#define DEN_INV den_inv
#endif

#include "zk/msm/msm_tmpl_pvt.h"
#include "zk/msm/msm_fixed_tmpl_pvt.h"  /* the same buckets over a fixed-base table */
