/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fixed_base.h — many scalar multiples of one base point (key generation).
 * A table of d·2^(8w)·G (w < 32, d < 256) turns each multiple into at most
 * 32 mixed additions; results are converted to affine in batches.
 * Not constant time: for setup, whose secrets are declared insecure anyway.
 */
#ifndef CZ_FIXED_BASE_H
#define CZ_FIXED_BASE_H

#include "zk/curve/g1.h"
#include "zk/curve/g2.h"
#include "zk/curve/bn254_g1.h"
#include "zk/curve/bn254_g2.h"

struct cz_pool;

/* out[i] = k[i]·G for i < n; k in Montgomery form.  0 or -ENOMEM. */
int cz_g1_fixed_base_many(cz_g1_affine *out, const cz_g1_affine *g, const cz_fr *k,
			  size_t n, struct cz_pool *pool);
int cz_g2_fixed_base_many(cz_g2_affine *out, const cz_g2_affine *g, const cz_fr *k,
			  size_t n, struct cz_pool *pool);
/* The same over BN254 (254-bit scalars: the top window stays unused). */
int cz_bn254_g1_fixed_base_many(cz_bn254_g1_affine *out, const cz_bn254_g1_affine *g,
				const cz_bn254_fr *k, size_t n, struct cz_pool *pool);
int cz_bn254_g2_fixed_base_many(cz_bn254_g2_affine *out, const cz_bn254_g2_affine *g,
				const cz_bn254_fr *k, size_t n, struct cz_pool *pool);

#endif
