/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm.h — multi-scalar multiplication Σ k_i·P_i over BLS12-381 G1 and G2
 * (Pippenger's bucket method, multithreaded).  Design and cost model:
 * zk/msm/msm.c.
 *
 * Scalars are plain integers < r (standard form, not Montgomery), four
 * little-endian 64-bit limbs.  Bases are affine; (0, 0) is the point at
 * infinity and may appear anywhere, as may repeated points.  The result is
 * not constant time in the scalars (bucket indices are data-dependent
 * memory accesses), like every fast MSM.
 */
#ifndef CZ_MSM_H
#define CZ_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "zk/curve/g1.h"
#include "zk/curve/g2.h"

struct cz_pool;

typedef struct { uint64_t l[4]; } cz_scalar;

/* r = Σ scalars[i]·bases[i], i < n.  pool may be NULL (one thread); the
 * MSM runs one cz_pool_for loop on it, so it must not be called from inside
 * a loop of the same pool.  Returns 0, or -ENOMEM (r is then infinity).
 * Scratch comes from the pool's slots (lib/pool.h), grown to this plan's
 * largest task on first need and kept: a pool that has run an MSM of a
 * key once runs it again with no heap call.  With no pool, one block is
 * allocated per call. */
int cz_msm_g1(cz_g1_jac *r, const cz_g1_affine *bases, const cz_scalar *scalars, size_t n,
	      struct cz_pool *pool);
int cz_msm_g2(cz_g2_jac *r, const cz_g2_affine *bases, const cz_scalar *scalars, size_t n,
	      struct cz_pool *pool);

/* For tests and benches: override the plan the cost model would choose.
 * Zero fields keep the automatic choice. */
struct cz_msm_tune {
	unsigned window;   /* window bits c, 3..20 */
	unsigned chunks;   /* point ranges per window */
	int buckets;       /* 0 auto, 1 batch-affine buckets, 2 XYZZ buckets */
	unsigned batch;    /* batch-affine batch size (>= 1) */
};
int cz_msm_g1_tuned(cz_g1_jac *r, const cz_g1_affine *bases, const cz_scalar *scalars, size_t n,
		    struct cz_pool *pool, const struct cz_msm_tune *tune);
int cz_msm_g2_tuned(cz_g2_jac *r, const cz_g2_affine *bases, const cz_scalar *scalars, size_t n,
		    struct cz_pool *pool, const struct cz_msm_tune *tune);

#endif
