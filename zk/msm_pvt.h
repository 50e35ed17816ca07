/* SPDX-License-Identifier: MIT */
/*
 * zk/msm_pvt.h — internal to zk/msm*.c; do not include directly.
 *
 * The plan (window size, work split, bucket kind) and the scalar recoding
 * shared by the G1 and G2 instances of the bucket code.
 */
#ifndef CZ_MSM_PVT_H
#define CZ_MSM_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include "zk/msm.h"

#define MSM_MIN_WINDOW 3   /* c = 2 would need a 129th window: see msm_plan_make */
#define MSM_MAX_WINDOW 20

struct msm_plan {
	unsigned c;          /* window bits; 2^(c-1) buckets per window */
	unsigned nwin;       /* windows, ceil(256 / c) */
	unsigned nchunks;    /* point ranges per window; tasks = nwin * nchunks */
	unsigned batch;      /* batch-affine batch size; 0 = XYZZ buckets */
	unsigned top_nb;     /* buckets the top window can reach (k < 2^255) */
	unsigned nones;      /* tasks summing the points whose scalar is 1 */
	uint64_t h[5];       /* recoding constant H = Σ_j 2^(c-1)·2^(j·c) */
};

/* Chooses the plan for nbig scalars > 1 and nones scalars == 1 on threads
 * threads; tune (may be NULL) overrides fields. */
void msm_plan_make(struct msm_plan *p, size_t nbig, size_t nones, unsigned threads,
		   const struct cz_msm_tune *tune);

/* 0 for k = 0, 1 for k = 1, 2 otherwise. */
static inline int msm_class(const cz_scalar *k)
{
	if (k->l[1] | k->l[2] | k->l[3])
		return 2;
	return k->l[0] > 1 ? 2 : (int)k->l[0];
}

/*
 * Signed digit w of k, in [-2^(c-1), 2^(c-1)): with t = k + H, whose c-bit
 * windows are t_j, k = Σ_j (t_j - 2^(c-1))·2^(j·c).  No carries between
 * windows, so any window is found from k alone (costs one 5-limb add).
 * Needs k + H < 2^(nwin·c), which holds for k < r when c >= 3.
 */
static inline int32_t msm_digit(const cz_scalar *k, const struct msm_plan *p, unsigned w)
{
	uint64_t t[5];
	unsigned __int128 s = 0;

	for (int i = 0; i < 4; i++) {
		s += (unsigned __int128)k->l[i] + p->h[i];
		t[i] = (uint64_t)s;
		s >>= 64;
	}
	t[4] = (uint64_t)s + p->h[4];
	unsigned bit = w * p->c, limb = bit / 64, off = bit % 64;
	uint64_t v = t[limb] >> off;
	if (off + p->c > 64 && limb < 4)
		v |= t[limb + 1] << (64 - off);
	v &= ((uint64_t)1 << p->c) - 1;
	return (int32_t)v - ((int32_t)1 << (p->c - 1));
}

#endif
