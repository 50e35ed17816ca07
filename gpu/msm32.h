/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm32.h — the per-thread bodies of the device G1 MSM (gpu/msm.cu), as
 * CZ_HD functions, so the host selftest (selftests/gpu_kernels.c) runs the
 * same steps in loops, with qsort standing in for CUB's radix sort, and
 * compares the result with zk/'s cz_msm_g1.
 *
 * The pipeline (Pippenger's bucket method, c-bit unsigned windows):
 *   1. classify   each scalar: 0 (dropped), 1 (the "ones" list: its bases
 *                 are summed directly, no windows) or other (the "big" list).
 *                 Groth16 witnesses are mostly 0 and 1, so this is what makes
 *                 them cheap, and keeps them out of one giant bucket.
 *   2. pairs      for each big scalar t and window w: key = (w - w0)·2^c + digit,
 *                 value = the base's index; windows go in batches [w0, w1)
 *                 so one sort stays under 2^30 entries.
 *   3. sort       the pairs by key (CUB radix sort on the key's low bits).
 *   4. bounds     start/end of each key's run in the sorted array.
 *   5. bucket     one thread per bucket (w, d), d != 0, sums its bases in
 *                 XYZZ (mixed additions, 8M + 2S each).
 *   6. segments   one thread per (window, segment of G buckets): the running
 *                 sum trick gives Σ (d - lo + 1)·B_d and Σ B_d over the
 *                 segment; plus (lo - 1)·Σ B_d that is Σ d·B_d.
 *   7. groups     segment results summed in groups of up to 16, per window,
 *                 until one per window remains; the ones list likewise.
 *   8. horner     one thread: Σ_w 2^(c·w)·W_w, plus the ones' sum.
 * Load balance: a bucket's thread loops over its run, so a scalar repeated
 * many times (other than 0 and 1) makes one slow thread; witnesses do not do
 * that, and the result is right regardless.
 */
#ifndef CZ_GPU_MSM32_H
#define CZ_GPU_MSM32_H

#include "gpu/g1_32.h"

#define CZ_MSM32_SCALAR_BITS 255
#define CZ_MSM32_GROUP 16

enum { CZ_MSM32_ZERO = 0, CZ_MSM32_ONE = 1, CZ_MSM32_BIG = 2 };

/* s: a standard-form scalar (cz_scalar's bytes). */
CZ_HD int cz_msm32_class(const cz_fr32 *s)
{
	uint32_t hi = 0;
	CZ_UNROLL
	for (int j = 1; j < CZ_FR32_LIMBS; j++)
		hi |= s->l[j];
	if (hi || s->l[0] > 1)
		return CZ_MSM32_BIG;
	return (int)s->l[0];
}

/* Bits [w·c, w·c + c) of s; c <= 24. */
CZ_HD uint32_t cz_msm32_digit(const cz_fr32 *s, unsigned w, unsigned c)
{
	unsigned o = w * c, limb = o / 32, sh = o % 32;
	uint32_t v = s->l[limb] >> sh;

	if (sh && limb + 1 < CZ_FR32_LIMBS)
		v |= s->l[limb + 1] << (32 - sh);
	return v & (((uint32_t)1 << c) - 1);
}

/* Window size for m big scalars: about log2(m) - 3 (a few points per
 * bucket), clamped to [8, 16]; the bucket arrays are nwin·2^c entries. */
CZ_HD unsigned cz_msm32_window(uint64_t m)
{
	unsigned lg = 0;
	while (lg < 63 && ((uint64_t)1 << (lg + 1)) <= m)
		lg++;
	unsigned c = lg > 3 ? lg - 3 : 1;
	return c < 8 ? 8 : c > 16 ? 16 : c;
}

CZ_HD unsigned cz_msm32_nwin(unsigned c)
{
	return (CZ_MSM32_SCALAR_BITS + c - 1) / c;
}

/* Step 2: entry t (of m) of window w in batch [w0, ...). */
CZ_HD void cz_msm32_pair(uint32_t *key, uint32_t *val, const cz_fr32 *scalars,
			 const uint32_t *big, uint32_t m, uint32_t t, unsigned w, unsigned w0,
			 unsigned c)
{
	uint32_t i = big[t];
	size_t at = (size_t)(w - w0) * m + t;

	key[at] = ((uint32_t)(w - w0) << c) | cz_msm32_digit(&scalars[i], w, c);
	val[at] = i;
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

/* Step 5: bucket b of the batch (b = (w - w0)·2^c + d) into buckets[w·2^c + d]. */
CZ_HD void cz_msm32_bucket(cz_g1xyzz32 *buckets, const uint32_t *start, const uint32_t *end,
			   const uint32_t *val, const cz_g1a32 *bases, uint32_t b, unsigned w0,
			   unsigned c)
{
	cz_g1xyzz32 acc;

	cz_g1xyzz32_set_inf(&acc);
	if (b & (((uint32_t)1 << c) - 1))  /* digit 0 weighs nothing */
		for (uint32_t e = start[b]; e < end[b]; e++)
			cz_g1xyzz32_add_affine(&acc, &acc, &bases[val[e]]);
	buckets[((size_t)w0 << c) + b] = acc;
}

/* Step 6: window w, segment s of nseg (nseg divides 2^c): digits
 * lo = s·G + 1 .. min((s + 1)·G, 2^c - 1), G = 2^c / nseg. */
CZ_HD void cz_msm32_segment(cz_g1xyzz32 *out, const cz_g1xyzz32 *buckets, unsigned w,
			    uint32_t s, uint32_t nseg, unsigned c)
{
	uint32_t g = ((uint32_t)1 << c) / nseg, lo = s * g + 1, hi = (s + 1) * g;
	const cz_g1xyzz32 *bw = buckets + ((size_t)w << c);
	cz_g1xyzz32 run, acc, t;

	if (hi > ((uint32_t)1 << c) - 1)
		hi = ((uint32_t)1 << c) - 1;
	cz_g1xyzz32_set_inf(&run);
	cz_g1xyzz32_set_inf(&acc);
	for (uint32_t d = hi; d >= lo; d--) {  /* acc = Σ (d - lo + 1)·B_d */
		cz_g1xyzz32_add(&run, &run, &bw[d]);
		cz_g1xyzz32_add(&acc, &acc, &run);
	}
	cz_g1xyzz32_mul_u32(&t, &run, lo - 1);
	cz_g1xyzz32_add(&out[(size_t)w * nseg + s], &acc, &t);
}

/* Step 7: out[g] = Σ in[g·k + i], i < k, in[] of count entries. */
CZ_HD void cz_msm32_group(cz_g1xyzz32 *out, const cz_g1xyzz32 *in, size_t count, size_t g,
			  unsigned k)
{
	cz_g1xyzz32 acc;

	cz_g1xyzz32_set_inf(&acc);
	for (size_t i = g * k; i < count && i < (g + 1) * k; i++)
		cz_g1xyzz32_add(&acc, &acc, &in[i]);
	out[g] = acc;
}

/* Step 7 for the ones: thread t of nt sums bases[ones[t + j·nt]]. */
CZ_HD void cz_msm32_ones(cz_g1xyzz32 *out, const cz_g1a32 *bases, const uint32_t *ones,
			 size_t nones, size_t t, size_t nt)
{
	cz_g1xyzz32 acc;

	cz_g1xyzz32_set_inf(&acc);
	for (size_t i = t; i < nones; i += nt)
		cz_g1xyzz32_add_affine(&acc, &acc, &bases[ones[i]]);
	out[t] = acc;
}

/* Step 8: r = Σ_w 2^(c·w)·win[w] + extra. */
CZ_HD void cz_msm32_horner(cz_g1xyzz32 *r, const cz_g1xyzz32 *win, unsigned nwin, unsigned c,
			   const cz_g1xyzz32 *extra)
{
	cz_g1xyzz32 acc = win[nwin - 1];

	for (int w = (int)nwin - 2; w >= 0; w--) {
		for (unsigned i = 0; i < c; i++)
			cz_g1xyzz32_dbl(&acc, &acc);
		cz_g1xyzz32_add(&acc, &acc, &win[w]);
	}
	cz_g1xyzz32_add(r, &acc, extra);
}

#endif
