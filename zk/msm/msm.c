/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm.c — multi-scalar multiplication: design and plan.
 *
 * What: R = Σ k_i·P_i for n affine bases and scalars < r, on G1 and G2, the
 * single largest cost of a Groth16 proof (A, B, C and the H query).
 *
 * Algorithm (Pippenger with signed windows):
 *  - Each scalar is recoded into nwin = ceil(255/c) c-bit digits, signed in
 *    [-2^(c-1), 2^(c-1)) except the top one (zk/msm/msm_pvt.h: add a constant
 *    H, read windows; no carry chain, so any window's digit is found from k
 *    alone).  Digit d adds ±P to bucket |d|: 2^(c-1) buckets per window
 *    instead of 2^c - 1; the top window has as many as its largest digit.
 *  - Scalars 0 are skipped; scalars 1 (witnesses are full of 0/1) are summed
 *    once, not once per window: round-robin over 256 buckets so a batch never
 *    collides, then the buckets are added up.
 *  - Buckets are affine and each window's additions are batched: a batch of
 *    up to `batch` independent "bucket += point" additions shares one field
 *    inversion (Montgomery's trick).  A point whose bucket already has an add
 *    pending waits in a queue for the next batch; if the queue is full it is
 *    added to a side XYZZ bucket instead (so a hot bucket — many equal small
 *    digits — degrades to XYZZ cost, never to one inversion per add).
 *    Equal points become a doubling, opposite points empty the bucket.
 *  - For small windows (few buckets, batches would collide) buckets are XYZZ.
 *  - Each window's buckets are summed by the running-sum trick,
 *    Σ_j j·B_j = Σ_j (B_top + ... + B_j), made batch-affine by cutting the
 *    buckets into lanes that advance together (zk/msm/msm_tmpl_pvt.h,
 *    reduce_lanes); windows are combined by Horner (c doublings each).
 *  - Threads: the work is nwin × nchunks tasks (window, point range), each
 *    with its own buckets and running sum; their results are added per
 *    window.  nchunks > 1 only when windows alone would leave threads idle
 *    or unbalanced, since each chunk repeats the running sum.
 *
 * Cost model (M = one base-field multiplication; a squaring ~ 0.9 M):
 *   batch-affine add   5M + 1S + inv/batch     (prefix product 1M, back pass
 *                                                2M, λ 1M, x3 1S, y3 1M)
 *   XYZZ mixed add     8M + 2S                  (the alternative bucket kind)
 *   running sum        two batch-affine adds per bucket in lanes ~ 16M
 *                      (classic XYZZ: one mixed + one full add ~ 24M)
 *   per window task    m·(add) + 2^(c-1)·16M,   m = points in the range
 *   total              ceil(nwin·nchunks / T) · task
 * Measured (thread CPU time, M = 45 ns): a batch-affine add with its share
 * of recoding and queueing is 345 ns ~ 7.7M.  With n = 2^16, c = 13:
 * 20 windows × (2^16·7.7M + 2^12·16M) ≈ 11.4·10^6 M ≈ 0.51 s (measured
 * 0.47 s); the bucket additions are ~85%, the running sums ~12%.  perf:
 * Fp mul/sqr ~65% of cycles, Fp sub ~19% (6 per add), our own code ~9%.
 * Not done, and why: GLV (two 128-bit halves) leaves the point-window count
 * unchanged (2n points × half the windows) and only halves the running
 * sums, ~5% at 2^16 and less above.  Fixed-base tables (2^(j·c)·P for
 * every window j, one shared bucket set: no running sum per window, a wider
 * window) are zk/msm/msm_fixed.c, for keys a daemon keeps resident; they
 * cost nwin× the bases' memory and ~255 doublings per base to build.
 *
 * Vector flush: on a CPU with AVX-512 IFMA (zk/msm/fp_ifma.h, unless CZ_NO_IFMA)
 * a batch of 16 or more adds runs eight at a time (zk/msm/msm_ifma_tmpl_pvt.h;
 * four with CZ_IFMA_LANES=4): lane k of group g is entry 8g + k, the prefix
 * products are eight chains that meet in one scalar inversion, points are
 * gathered from the buckets and bases and scattered back in canonical form,
 * so buckets are bit-for-bit those of the scalar flush.  The queue, side
 * buckets, recoding and the special cases before the batch (empty bucket,
 * P + -P) stay scalar.  BLS12-381 and BN254 share the code (their instance
 * files give only constants).  Measured: G1 and G2 MSM 2^16 on one thread
 * 2.2-2.3x the scalar flush for both curves (docs/BENCHMARKS.md); an 8-lane
 * product is ~27 cycles per lane against ~100 for the mulx kernel
 * (BLS12-381; BN254 ~15 against ~48).  The plan (window, batch) is the
 * scalar path's: with the vector flush, batches of 256 and more are on the
 * flat end (`cuzk bench msm --batch`, docs/BENCHMARKS.md), and the plan's
 * 1024 is there.
 *
 * Invariants: buckets hold reduced affine points or are empty (state byte);
 * a bucket has at most one pending add per batch.  Failure: -ENOMEM from any
 * task's allocation; the result is then infinity.  Not constant time.
 */
#include "zk/msm/msm_pvt.h"
#include "zk/field/fr.h"

#include <string.h>

/* Relative costs, in M, measured (thread CPU time) with the mulx/adx Fp:
 * M = 45 ns, a batch-affine add 345 ns, XYZZ mixed add 460 ns, inversion
 * 9.5 us.  G2 scales all by about the same factor. */
#define COST_AFF 7.3
#define COST_INV 210.0
#define COST_XYZZ_MADD 10.2
#define COST_BUCKET 24.0       /* classic running sum */
#define COST_BUCKET_LANES 16.0 /* batch-affine lanes, 1024 buckets or more */
#define COST_SCAN 0.4      /* classify, recode, skip: per point and window */
#define COST_FAR 0.6       /* per add, buckets beyond L2 (> 4 MiB) */
#define COST_VERY_FAR 1.5  /* per add, buckets beyond 32 MiB */
#define COST_TASK 2000.0   /* allocation, finish, combine: per task */

static unsigned auto_batch(unsigned c)
{
	/* ~12% of adds find their bucket busy and wait one batch in the queue */
	unsigned b = (1u << (c - 1)) / 4;
	return b > 1024 ? 1024 : b;
}

static double task_cost(size_t m, unsigned batch, double nb, size_t aff_bytes)
{
	double add = batch ? COST_AFF + COST_INV / batch : COST_XYZZ_MADD;
	double bytes = nb * (double)aff_bytes;
	add += bytes > 32e6 ? COST_VERY_FAR : bytes > 4e6 ? COST_FAR : 0;
	double red = batch && nb >= 1024 ? COST_BUCKET_LANES : COST_BUCKET;
	return (double)m * (add + COST_SCAN) + nb * red + COST_TASK;
}

/* (r - 1 + h) >> bit, the top window's largest digit; r from Fr itself. */
static unsigned top_digit_max(const uint64_t h[5], unsigned bit)
{
	uint64_t rm1[4], t[5];
	cz_fr m1;
	unsigned __int128 s = 0;

	cz_fr_neg(&m1, &cz_fr_one);
	cz_fr_from_mont(rm1, &m1);
	for (int i = 0; i < 4; i++) {
		s += (unsigned __int128)rm1[i] + h[i];
		t[i] = (uint64_t)s;
		s >>= 64;
	}
	t[4] = (uint64_t)s + h[4];
	unsigned limb = bit / 64, off = bit % 64;
	uint64_t v = t[limb] >> off;
	if (off && limb < 4)
		v |= t[limb + 1] << (64 - off);
	return (unsigned)v;
}

static void plan_window(struct msm_plan *p, unsigned c)
{
	p->c = c;
	p->nwin = (255 + c - 1) / c;
	memset(p->h, 0, sizeof(p->h));
	/* H = Σ_{j<nwin-1} 2^(c-1)·2^(j·c): bit j·c + c - 1 for each signed window. */
	for (unsigned j = 0; j + 1 < p->nwin; j++) {
		unsigned bit = j * c + c - 1;
		p->h[bit / 64] |= (uint64_t)1 << (bit % 64);
	}
	p->top_nb = top_digit_max(p->h, (p->nwin - 1) * c);
	if (p->top_nb == 0)
		p->top_nb = 1;
}

void cz_msm_plan_make(struct msm_plan *p, size_t nbig, size_t nones, unsigned threads,
		      size_t aff_bytes, const struct cz_msm_tune *tune)
{
	struct cz_msm_tune none = { 0 };
	struct msm_plan t;
	double best = -1;

	if (!tune)
		tune = &none;
	if (tune->window && (tune->window < MSM_MIN_WINDOW || tune->window > MSM_MAX_WINDOW)) {
		none = *tune;
		none.window = 0; /* out of range: choose it */
		tune = &none;
	}
	if (threads == 0)
		threads = 1;
	memset(p, 0, sizeof(*p));
	memset(&t, 0, sizeof(t));
	for (unsigned c = MSM_MIN_WINDOW; c <= MSM_MAX_WINDOW; c++) {
		if (tune->window && c != tune->window)
			continue;
		plan_window(&t, c);
		unsigned kmax = tune->chunks ? tune->chunks : 4 * threads;
		for (unsigned k = tune->chunks ? tune->chunks : 1; k <= kmax; k++) {
			size_t m = (nbig + k - 1) / k;
			for (int kind = 1; kind <= 2; kind++) {
				if (tune->buckets && kind != tune->buckets)
					continue;
				unsigned batch = 0;
				if (kind == 1) {
					batch = tune->batch ? tune->batch : auto_batch(c);
					if (batch < 16 && !tune->buckets)
						continue;
				}
				/* Rounds of the slowest thread; the top window
				 * counts with its own bucket count. */
				double rounds = (double)((t.nwin * k + threads - 1) / threads);
				double nb = (double)(1u << (c - 1));
				double top = task_cost(m, batch, t.top_nb, aff_bytes) -
					     task_cost(m, batch, nb, aff_bytes);
				double cost = rounds * task_cost(m, batch, nb, aff_bytes) +
					      (top > 0 ? top * k : 0);
				if (best < 0 || cost < best) {
					best = cost;
					t.nchunks = k;
					t.batch = batch;
					*p = t;
				}
			}
		}
	}
	/* The top window has top_nb buckets: a batch a quarter of that, or
	 * XYZZ buckets when the batch would be too short to pay. */
	p->top_batch = p->batch;
	if (p->batch && p->top_nb < 4 * p->batch) {
		p->top_batch = p->top_nb / 4;
		if (!tune->buckets &&
		    (p->top_batch < 16 || COST_AFF + COST_INV / p->top_batch > COST_XYZZ_MADD))
			p->top_batch = 0;
		if (tune->buckets && p->top_batch == 0)
			p->top_batch = 1;
	}
	/* Scalars 1: one task per thread once there is enough to share. */
	p->nones = 0;
	if (nones)
		p->nones = nones < 4096 ? 1 : threads;
}

/* For the fixed-base MSM (zk/msm/msm_fixed_pvt.h): the same window recoding
 * and the same price of a task. */
void cz_msm_plan_window(struct msm_plan *p, unsigned c)
{
	plan_window(p, c);
}

double cz_msm_task_cost(size_t m, unsigned batch, double nb, size_t aff_bytes)
{
	return task_cost(m, batch, nb, aff_bytes);
}
