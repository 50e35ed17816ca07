/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_pvt.h — internal to zk/msm/; do not include directly.
 *
 * The plan (window size, work split, bucket kind) and the scalar recoding
 * shared by the G1 and G2 instances of the bucket code.
 */
#ifndef CZ_MSM_PVT_H
#define CZ_MSM_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include "zk/msm/msm.h"

#define MSM_MIN_WINDOW 3   /* smaller windows never pay */
#define MSM_MAX_WINDOW 20

struct msm_plan {
	unsigned c;          /* window bits; 2^(c-1) buckets per window */
	unsigned nwin;       /* windows, ceil(255 / c) */
	unsigned nchunks;    /* point ranges per window; tasks = nwin * nchunks */
	unsigned batch;      /* batch-affine batch size; 0 = XYZZ buckets */
	unsigned top_nb;     /* buckets of the top window (its largest digit) */
	unsigned top_batch;  /* the top window's batch size; 0 = XYZZ buckets */
	unsigned nones;      /* tasks summing the points whose scalar is 1 */
	uint64_t h[5];       /* recoding constant H = Σ_{j<nwin-1} 2^(c-1)·2^(j·c) */
};

/* One pending "bucket b += (neg ? -p : p)" of a batch-affine batch; dbl:
 * bucket == the added point, a doubling.  p is the template's AFF.  Shared
 * with the vector flush (zk/msm/fp_ifma.h), which reads the same entries. */
struct msm_ent {
	const void *p;
	uint32_t b;
	uint8_t dbl;
	uint8_t neg;
};

/* Chooses the plan for nbig scalars > 1 and nones scalars == 1 on threads
 * threads, for affine points of aff_bytes; tune (may be NULL) overrides
 * fields. */
void cz_msm_plan_make(struct msm_plan *p, size_t nbig, size_t nones, unsigned threads,
		      size_t aff_bytes, const struct cz_msm_tune *tune);

/* 0 for k = 0, 1 for k = 1, 2 otherwise. */
static inline int msm_class(const cz_scalar *k)
{
	if (k->l[1] | k->l[2] | k->l[3])
		return 2;
	return k->l[0] > 1 ? 2 : (int)k->l[0];
}

/*
 * Digit w of k (msm_digit = msm_recode, then msm_digit_of).  With
 * t = k + H (msm_recode) and t_j its c-bit windows (the top one
 * taking every bit from (nwin-1)·c up),
 *   k = Σ_{j<nwin-1} (t_j - 2^(c-1))·2^(j·c) + t_top·2^((nwin-1)·c):
 * signed digits in [-2^(c-1), 2^(c-1)) below, an unsigned one on top (so
 * 255 = 17·15 bits need 17 windows of 15, not an 18th for the carry).
 * No carries between windows, so any window is found from k alone (one
 * 5-limb add).  t < 2^256 since k < 2^255 and H < 2^254.
 */
static inline void msm_recode(uint64_t t[5], const cz_scalar *k, const struct msm_plan *p)
{
	unsigned __int128 s = 0;

	for (int i = 0; i < 4; i++) {
		s += (unsigned __int128)k->l[i] + p->h[i];
		t[i] = (uint64_t)s;
		s >>= 64;
	}
	t[4] = (uint64_t)s + p->h[4];
}

/* Digit w from t = k + H (msm_recode): a caller that wants several
 * windows of one scalar recodes it once. */
static inline int32_t msm_digit_of(const uint64_t t[5], const struct msm_plan *p, unsigned w)
{
	bool top = w + 1 == p->nwin;
	unsigned bit = w * p->c, limb = bit / 64, off = bit % 64;
	unsigned width = top ? 256 - bit : p->c; /* <= c + 1 <= 21 */
	uint64_t v = t[limb] >> off;
	if (off + width > 64 && limb < 4)
		v |= t[limb + 1] << (64 - off);
	v &= ((uint64_t)1 << width) - 1;
	return top ? (int32_t)v : (int32_t)v - ((int32_t)1 << (p->c - 1));
}

static inline int32_t msm_digit(const cz_scalar *k, const struct msm_plan *p, unsigned w)
{
	uint64_t t[5];

	msm_recode(t, k, p);
	return msm_digit_of(t, p, w);
}

#endif
