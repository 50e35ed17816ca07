/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/bn254_msm.h — multi-scalar multiplication over BN254 G1 and G2: the
 * same Pippenger code, plan and contracts as zk/msm/msm.h (BLS12-381), whose
 * cz_scalar (plain integers < r, four little-endian limbs) and
 * struct cz_msm_tune it shares.  The plan's windows cover 255 bits, which
 * BN254's 254-bit scalars fit (the top window just has spare buckets).
 */
#ifndef CZ_BN254_MSM_H
#define CZ_BN254_MSM_H

#include "zk/curve/bn254_g1.h"
#include "zk/curve/bn254_g2.h"
#include "zk/msm/msm.h"

int cz_bn254_msm_g1(cz_bn254_g1_jac *r, const cz_bn254_g1_affine *bases, const cz_scalar *scalars,
		    size_t n, struct cz_pool *pool);
int cz_bn254_msm_g2(cz_bn254_g2_jac *r, const cz_bn254_g2_affine *bases, const cz_scalar *scalars,
		    size_t n, struct cz_pool *pool);
int cz_bn254_msm_g1_tuned(cz_bn254_g1_jac *r, const cz_bn254_g1_affine *bases,
			  const cz_scalar *scalars, size_t n, struct cz_pool *pool,
			  const struct cz_msm_tune *tune);
int cz_bn254_msm_g2_tuned(cz_bn254_g2_jac *r, const cz_bn254_g2_affine *bases,
			  const cz_scalar *scalars, size_t n, struct cz_pool *pool,
			  const struct cz_msm_tune *tune);

#endif
