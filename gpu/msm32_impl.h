/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm32_impl.h — the MSM's per-thread point steps, written once for both
 * curves; private to gpu/msm32.h (the pipeline and its reasons are there),
 * which includes it once per curve after defining:
 *   M32(n)     this curve's name of step n (cz_msm32_##n)
 *   M32_P(n)   its G1 types and operations (cz_g1##n: cz_g1xyzz32, ...)
 *   M32_FR     its 32-bit scalar type (standard form: digits are its bits)
 *   M32_FP(n)  its base field's operations (cz_fp32_##n)
 *   M32_BITS   bits of the group order (scalars are below 2^M32_BITS)
 */
#ifndef M32
#error "gpu/msm32_impl.h is private to gpu/msm32.h"
#endif

CZ_HD int M32(class)(const M32_FR *s)
{
	return cz_msm32_class_l(s->l);
}

CZ_HD uint32_t M32(digit)(const M32_FR *s, unsigned w, unsigned c)
{
	return cz_msm32_digit_l(s->l, w, c);
}

CZ_HD unsigned M32(window)(uint64_t m)
{
	return cz_msm32_window_bits(m, M32_BITS);
}

CZ_HD unsigned M32(nwin)(unsigned c)
{
	return cz_msm32_nwin_bits(c, M32_BITS);
}

/*
 * Step 2, for big scalar t (of m) and the nw windows from w0: recode from
 * window 0 (the borrow chain needs every lower window), write the batch's.
 * Entry (w, t) goes to (w - w0)·m + t, so a warp's stores are contiguous.
 * A zero digit's key is nw·K, past every bucket of the batch.
 */
CZ_HD void M32(pairs)(uint32_t *key, uint32_t *val, const M32_FR *scalars, const uint32_t *big,
		      uint32_t m, uint32_t t, unsigned w0, unsigned nw, unsigned c)
{
	uint32_t i = big[t], K = cz_msm32_nbuckets(c), borrow = 0;
	const M32_FR *s = &scalars[i];

	for (unsigned w = 0; w < w0 + nw; w++) {
		uint32_t d = M32(digit)(s, w, c) + borrow;   /* <= 2^c */
		uint32_t neg = d > K;
		borrow = neg;
		uint32_t mag = neg ? ((uint32_t)1 << c) - d : d;  /* |d - 2^c| */
		if (w < w0)
			continue;
		size_t at = (size_t)(w - w0) * m + t;
		key[at] = mag ? (uint32_t)(w - w0) * K + mag - 1 : (uint32_t)nw * K;
		val[at] = i | (neg ? CZ_MSM32_NEG : 0);
	}
}

/* Base val's point, negated when the pair's digit was negative. */
CZ_HD void M32(base)(M32_P(a32) *r, const M32_P(a32) *bases, uint32_t val)
{
	*r = bases[val & ~CZ_MSM32_NEG];
	if (val & CZ_MSM32_NEG)
		M32_FP(neg)(&r->y, &r->y);
}

/* Step 5: bucket b of the batch into buckets[w0·K + b], its whole run. */
CZ_HD void M32(bucket)(M32_P(xyzz32) *buckets, const uint32_t *start, const uint32_t *end,
		       const uint32_t *val, const M32_P(a32) *bases, uint32_t b, size_t w0k)
{
	M32_P(xyzz32) acc;
	M32_P(a32) p;

	M32_P(xyzz32_set_inf)(&acc);
	for (uint32_t e = start[b]; e < end[b]; e++) {
		M32(base)(&p, bases, val[e]);
		M32_P(xyzz32_add_affine)(&acc, &acc, &p);
	}
	buckets[w0k + b] = acc;
}

/* Step 5h, first level: chunk j's sum of at most T pairs of its bucket. */
CZ_HD void M32(chunk_affine)(M32_P(xyzz32) *out, const uint32_t *off, size_t nbk,
			     const uint32_t *start, const uint32_t *end, const uint32_t *val,
			     const M32_P(a32) *bases, uint32_t j, uint32_t T)
{
	uint32_t b = cz_msm32_chunk_bucket(off, nbk, j);
	uint32_t e0 = start[b] + (j - off[b]) * T, e1 = e0 + T < end[b] ? e0 + T : end[b];
	M32_P(xyzz32) acc;
	M32_P(a32) p;

	M32_P(xyzz32_set_inf)(&acc);
	for (uint32_t e = e0; e < e1; e++) {
		M32(base)(&p, bases, val[e]);
		M32_P(xyzz32_add_affine)(&acc, &acc, &p);
	}
	out[j] = acc;
}

/* Step 5h, later levels: chunk j's sum of at most T of the last level's sums. */
CZ_HD void M32(chunk_xyzz)(M32_P(xyzz32) *out, const uint32_t *off, size_t nbk,
			   const uint32_t *start, const uint32_t *end, const M32_P(xyzz32) *in,
			   uint32_t j, uint32_t T)
{
	uint32_t b = cz_msm32_chunk_bucket(off, nbk, j);
	uint32_t e0 = start[b] + (j - off[b]) * T, e1 = e0 + T < end[b] ? e0 + T : end[b];
	M32_P(xyzz32) acc;

	M32_P(xyzz32_set_inf)(&acc);
	for (uint32_t e = e0; e < e1; e++)
		M32_P(xyzz32_add)(&acc, &acc, &in[e]);
	out[j] = acc;
}

/* Step 5h, last: bucket b from its (at most T) chunk sums. */
CZ_HD void M32(bucket_xyzz)(M32_P(xyzz32) *buckets, const uint32_t *start, const uint32_t *end,
			    const M32_P(xyzz32) *in, uint32_t b, size_t w0k)
{
	M32_P(xyzz32) acc;

	M32_P(xyzz32_set_inf)(&acc);
	for (uint32_t e = start[b]; e < end[b]; e++)
		M32_P(xyzz32_add)(&acc, &acc, &in[e]);
	buckets[w0k + b] = acc;
}

/* Step 6: window w, segment s of nseg: magnitudes lo = s·G + 1 .. (s + 1)·G,
 * G = K / nseg, where magnitude d's bucket is buckets[w·K + d - 1]. */
CZ_HD void M32(segment)(M32_P(xyzz32) *out, const M32_P(xyzz32) *buckets, unsigned w, uint32_t s,
			uint32_t nseg, unsigned c)
{
	uint32_t K = cz_msm32_nbuckets(c), g = K / nseg, lo = s * g + 1, hi = (s + 1) * g;
	const M32_P(xyzz32) *bw = buckets + (size_t)w * K;
	M32_P(xyzz32) run, acc, t;

	M32_P(xyzz32_set_inf)(&run);
	M32_P(xyzz32_set_inf)(&acc);
	for (uint32_t d = hi; d >= lo; d--) {  /* acc = Σ (d - lo + 1)·B_d */
		M32_P(xyzz32_add)(&run, &run, &bw[d - 1]);
		M32_P(xyzz32_add)(&acc, &acc, &run);
	}
	M32_P(xyzz32_mul_u32)(&t, &run, lo - 1);
	M32_P(xyzz32_add)(&out[(size_t)w * nseg + s], &acc, &t);
}

/* Step 7: out[g] = Σ in[g·k + i], i < k, in[] of count entries. */
CZ_HD void M32(group)(M32_P(xyzz32) *out, const M32_P(xyzz32) *in, size_t count, size_t g,
		      unsigned k)
{
	M32_P(xyzz32) acc;

	M32_P(xyzz32_set_inf)(&acc);
	for (size_t i = g * k; i < count && i < (g + 1) * k; i++)
		M32_P(xyzz32_add)(&acc, &acc, &in[i]);
	out[g] = acc;
}

/* Step 7 for the ones: thread t of nt sums bases[ones[t + j·nt]]. */
CZ_HD void M32(ones)(M32_P(xyzz32) *out, const M32_P(a32) *bases, const uint32_t *ones,
		     size_t nones, size_t t, size_t nt)
{
	M32_P(xyzz32) acc;

	M32_P(xyzz32_set_inf)(&acc);
	for (size_t i = t; i < nones; i += nt)
		M32_P(xyzz32_add_affine)(&acc, &acc, &bases[ones[i]]);
	out[t] = acc;
}
