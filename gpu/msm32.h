/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm32.h — the per-thread bodies of the device G1 MSM (gpu/msm.cu), as
 * CZ_HD functions, so the host selftest (selftests/gpu_kernels.c) runs the
 * same steps in loops, with qsort standing in for CUB's radix sort and a
 * loop for its scan, and compares the result with zk/'s MSM.  Written once
 * for both curves: the curve-free index math here, the point steps in
 * gpu/msm32_impl.h (cz_msm32_* for BLS12-381, cz_bn254_msm32_* for BN254).
 *
 * The pipeline (Pippenger's bucket method, c-bit signed windows):
 *   1. classify   each scalar: 0 (dropped), 1 (the "ones" list: its bases
 *                 are summed directly, no windows) or other (the "big" list).
 *                 Groth16 witnesses are mostly 0 and 1, so this is what makes
 *                 them cheap, and keeps them out of one giant bucket.
 *   2. pairs      one thread per big scalar recodes it into signed digits
 *                 d_w in (-2^(c-1), 2^(c-1)] (a digit above half borrows
 *                 2^c from the next window), and for each window w of the
 *                 batch [w0, w1) writes key = (w - w0)·K + |d_w| - 1,
 *                 K = 2^(c-1), value = the base's index with the sign in bit
 *                 31; a zero digit gets the key past the batch's buckets.
 *                 Signed digits halve the buckets (K instead of 2^c - 1) at
 *                 the cost of one negation of y per negative point.
 *   3. sort       the pairs by key (CUB radix sort on the key's low bits).
 *   4. bounds     start/end of each key's run in the sorted array.
 *   5. bucket     one thread per bucket sums its run (XYZZ mixed additions,
 *                 8M + 2S each) — when no run is longer than the hot limit T.
 *                 A longer run (a scalar repeated many times, other than 0
 *                 and 1) would be one slow thread, so then the runs are cut
 *                 into chunks of at most T entries, one thread per chunk,
 *                 and the chunks' sums are chunked again until every bucket
 *                 has at most T of them (hot-bucket splitting, step 5h).
 *   6. segments   one thread per (window, segment of G buckets): the running
 *                 sum trick gives Σ (d - lo + 1)·B_d and Σ B_d over the
 *                 segment; plus (lo - 1)·Σ B_d that is Σ d·B_d.
 *   7. groups     segment results summed in groups of up to 16, per window,
 *                 until one per window remains; the ones list likewise.
 *   8. horner     Σ_w 2^(c·w)·W_w plus the ones' sum: on the host, from the
 *                 nwin + 1 sums copied back (gpu/msm_host.c), where zk/'s
 *                 arithmetic does c·nwin doublings in well under a
 *                 millisecond instead of one device thread's several.
 */
#ifndef CZ_GPU_MSM32_H
#define CZ_GPU_MSM32_H

#include "gpu/g1_32.h"

#define CZ_MSM32_GROUP 16
#define CZ_MSM32_MAXWIN 64      /* nwin for the smallest window, c = 4 */
#define CZ_MSM32_HOT 32         /* the longest run one thread sums (step 5) */
#define CZ_MSM32_NEG 0x80000000u /* the sign bit of a pair's value */

enum { CZ_MSM32_ZERO = 0, CZ_MSM32_ONE = 1, CZ_MSM32_BIG = 2 };

/* s: a standard-form scalar's 8 little-endian 32-bit limbs. */
CZ_HD int cz_msm32_class_l(const uint32_t *s)
{
	uint32_t hi = 0;
	CZ_UNROLL
	for (int j = 1; j < 8; j++)
		hi |= s[j];
	if (hi || s[0] > 1)
		return CZ_MSM32_BIG;
	return (int)s[0];
}

/* Bits [w·c, w·c + c) of the 256-bit s; c <= 24. */
CZ_HD uint32_t cz_msm32_digit_l(const uint32_t *s, unsigned w, unsigned c)
{
	unsigned o = w * c, limb = o / 32, sh = o % 32;
	if (limb >= 8)
		return 0;
	uint32_t v = s[limb] >> sh;

	if (sh && limb + 1 < 8)
		v |= s[limb + 1] << (32 - sh);
	return v & (((uint32_t)1 << c) - 1);
}

/* Windows for c-bit signed digits of a scalar below 2^bits: the top window
 * must take the last borrow without one of its own, so c·nwin >= bits + 1
 * (its raw digit is then below 2^(c-1), plus a borrow at most 2^(c-1)). */
CZ_HD unsigned cz_msm32_nwin_bits(unsigned c, unsigned bits)
{
	return (bits + 1 + c - 1) / c;
}

/*
 * Window size for m big scalars: the c in [8, 20] minimizing the model
 * nwin·(8·m + 28·2^(c-1)) — per window, m mixed additions (8 multiplications
 * each) into the buckets and, per bucket, two full additions of the running
 * sum (14).  It grows c with log2(m) but stops before the buckets dominate;
 * m = 2^20 gives 16, m = 2^24 gives 20.  The device check prints the
 * times, which is where the model is to be corrected.
 */
CZ_HD unsigned cz_msm32_window_bits(uint64_t m, unsigned bits)
{
	unsigned best = 8;
	double bc = 0;

	for (unsigned c = 8; c <= 20; c++) {
		double cost = (double)cz_msm32_nwin_bits(c, bits) *
			      (8.0 * (double)m + 28.0 * (double)((uint64_t)1 << (c - 1)));
		if (c == 8 || cost < bc) {
			bc = cost;
			best = c;
		}
	}
	return best;
}

/* Buckets per window: signed digits' magnitudes 1 .. 2^(c-1). */
CZ_HD uint32_t cz_msm32_nbuckets(unsigned c)
{
	return (uint32_t)1 << (c - 1);
}

/* Segments per window for step 6 (each of at most CZ_MSM32_GROUP buckets). */
CZ_HD uint32_t cz_msm32_nseg(unsigned c)
{
	uint32_t k = cz_msm32_nbuckets(c);
	return k > CZ_MSM32_GROUP ? k / CZ_MSM32_GROUP : 1;
}

/*
 * Threads for the ones' partial sums: enough to fill the device (sms
 * multiprocessors, 4 blocks of `threads` each), but at least 16 points a
 * thread, so the partial sums (reduced in groups of 16 afterwards) stay a
 * small part of the work; 1 when there are no ones.  (A fixed 8192 threads
 * was 64 blocks: half of a 132-SM H200 had none.)
 */
CZ_HD size_t cz_msm32_ones_threads(unsigned sms, unsigned threads, size_t nones)
{
	size_t fill = (size_t)(sms ? sms : 1) * 4 * (threads ? threads : 1);
	size_t need = (nones + 15) / 16;

	if (need < 1)
		need = 1;
	return need < fill ? need : fill;
}

/* Step 4: start/end (zeroed beforehand) of the run that sorted entry i is in. */
CZ_HD void cz_msm32_bounds(uint32_t *start, uint32_t *end, const uint32_t *key, size_t nent,
			   size_t i)
{
	uint32_t k = key[i];

	if (i == 0 || key[i - 1] != k)
		start[k] = (uint32_t)i;
	if (i + 1 == nent || key[i + 1] != k)
		end[k] = (uint32_t)(i + 1);
}

/* The longest run: a reduction over these (CUB's max on the device). */
CZ_HD uint32_t cz_msm32_runlen(const uint32_t *start, const uint32_t *end, size_t b)
{
	return end[b] - start[b];
}

/* Step 5h: the chunks of at most T entries bucket b's run is cut into;
 * their exclusive prefix sum off[] (nbk + 1 entries) numbers them. */
CZ_HD void cz_msm32_nchunks(uint32_t *nch, const uint32_t *start, const uint32_t *end, size_t b,
			    uint32_t T)
{
	nch[b] = (end[b] - start[b] + T - 1) / T;
}

/* The bucket chunk j belongs to: the largest b with off[b] <= j (off has
 * nbk + 1 entries, off[nbk] the chunk count; empty buckets repeat an off
 * value, and the largest of equal ones is the bucket that has the chunk). */
CZ_HD uint32_t cz_msm32_chunk_bucket(const uint32_t *off, size_t nbk, uint32_t j)
{
	size_t lo = 0, hi = nbk;   /* off[lo] <= j < off[hi] */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (off[mid] <= j)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* Step 5h, after a level: bucket b's run is now its chunks' sums. */
CZ_HD void cz_msm32_runs_next(uint32_t *start, uint32_t *end, const uint32_t *off, size_t b)
{
	start[b] = off[b];
	end[b] = off[b + 1];
}

/* The levels of chunking a longest run of maxrun needs before every bucket
 * has at most T sums for its thread: 0 when maxrun <= T. */
CZ_HD unsigned cz_msm32_hot_levels(uint64_t maxrun, uint32_t T)
{
	unsigned lv = 0;

	while (maxrun > T) {
		maxrun = (maxrun + T - 1) / T;
		lv++;
	}
	return lv;
}

#define M32(n) cz_msm32_##n
#define M32_P(n) cz_g1##n
#define M32_FR cz_fr32
#define M32_FP(n) cz_fp32_##n
#define M32_BITS 255
#include "gpu/msm32_impl.h"
#undef M32
#undef M32_P
#undef M32_FR
#undef M32_FP
#undef M32_BITS

#define M32(n) cz_bn254_msm32_##n
#define M32_P(n) cz_bn254_g1##n
#define M32_FR cz_bn254_fr32
#define M32_FP(n) cz_bn254_fp32_##n
#define M32_BITS 254
#include "gpu/msm32_impl.h"
#undef M32
#undef M32_P
#undef M32_FR
#undef M32_FP
#undef M32_BITS

#endif
