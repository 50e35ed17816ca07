/* SPDX-License-Identifier: MIT */
/*
 * gpu/ntt32.h — the per-thread bodies of the device NTT (gpu/ntt.cu), as
 * CZ_HD functions so the host selftest (selftests/gpu_kernels.c) runs the
 * very same index arithmetic in loops and compares it with zk/ntt.
 *
 * The transform is zk/ntt.c's: a radix-2 decimation in frequency (natural
 * order in, bit-reversed out) with tw[j] = omega_n^j, j < n/2, the snarkjs
 * root (generator 5).  A stage with half-size h = 2^hlog has n/2
 * butterflies; butterfly t touches elements base and base + h with
 *     j = t mod h,  base = (t / h)·2h + j,  twiddle tw[j·n/(2h)].
 * The formula does not care whether a is the whole array (global stages) or
 * a 2^B-element block copied to shared memory (the last B stages, where
 * t is the block-local index): the block is aligned, so j is the same.
 *
 * Every other step is one gather-and-scale pass, out-of-place:
 *     dst[k] = src[idx(k)] · c·z^k
 * with idx(k) = bitrev(k) and/or (n - k) mod n, and c·z^k = hi[k >> S]·lo[k & (2^S - 1)]
 * from two small tables (2·2^(L/2) entries) instead of an n-entry table.
 * The same two-table product builds the twiddle table on the device.
 */
#ifndef CZ_GPU_NTT32_H
#define CZ_GPU_NTT32_H

#include "gpu/field32.h"

enum {
	CZ_NTT32_BITREV = 1,    /* read src[bitrev(k)] */
	CZ_NTT32_NEGATE = 2,    /* read src[(n - k) mod n] (applied before bitrev) */
	CZ_NTT32_SCALE = 4,     /* multiply by hi[k >> S]·lo[k & mask] */
};

CZ_HD uint32_t cz_ntt32_bitrev(uint32_t x, unsigned log2n)
{
	if (log2n == 0)
		return 0;
#if defined(__CUDA_ARCH__)
	return __brev(x) >> (32 - log2n);
#else
	uint32_t r = 0;
	for (unsigned i = 0; i < log2n; i++, x >>= 1)
		r = (r << 1) | (x & 1);
	return r;
#endif
}

/* One DIF butterfly: see the header comment.  log2n = L, hlog < L. */
CZ_HD void cz_ntt32_bfly(cz_fr32 *a, uint32_t t, unsigned hlog, const cz_fr32 *tw, unsigned log2n)
{
	uint32_t h = (uint32_t)1 << hlog, j = t & (h - 1);
	uint32_t base = ((t >> hlog) << (hlog + 1)) + j;
	cz_fr32 x = a[base], y = a[base + h], s, d;

	cz_fr32_add(&s, &x, &y);
	cz_fr32_sub(&d, &x, &y);
	if (j)  /* tw[0] = 1 */
		cz_fr32_mul(&d, &d, &tw[(size_t)j << (log2n - 1 - hlog)]);
	a[base] = s;
	a[base + h] = d;
}

/* out = hi[k >> s]·lo[k & (2^s - 1)]. */
CZ_HD void cz_ntt32_pow2tab(cz_fr32 *out, uint32_t k, const cz_fr32 *hi, const cz_fr32 *lo,
			    unsigned s)
{
	cz_fr32_mul(out, &hi[k >> s], &lo[k & (((uint32_t)1 << s) - 1)]);
}

CZ_HD void cz_ntt32_gather(cz_fr32 *dst, const cz_fr32 *src, uint32_t k, unsigned log2n,
			   unsigned flags, const cz_fr32 *hi, const cz_fr32 *lo, unsigned s)
{
	uint32_t mask = ((uint32_t)1 << log2n) - 1, i = k;

	if (flags & CZ_NTT32_NEGATE)
		i = (0u - i) & mask;
	if (flags & CZ_NTT32_BITREV)
		i = cz_ntt32_bitrev(i, log2n);
	cz_fr32 v = src[i];
	if (flags & CZ_NTT32_SCALE) {
		cz_fr32 f;
		cz_ntt32_pow2tab(&f, k, hi, lo, s);
		cz_fr32_mul(&v, &v, &f);
	}
	dst[k] = v;
}

/* Groth16's quotient numerator at point k, from a, b, c evaluated on the
 * odd coset and left in bit-reversed order by the second DIF: standard-form
 * scalar h[k] = a·b - c, the H MSM's input. */
CZ_HD void cz_ntt32_abc(cz_fr32 *h, const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c,
			uint32_t k, unsigned log2n)
{
	uint32_t i = cz_ntt32_bitrev(k, log2n);
	cz_fr32 x;

	cz_fr32_mul(&x, &a[i], &b[i]);
	cz_fr32_sub(&x, &x, &c[i]);
	cz_fr32_from_mont(&h[k], &x);
}

#endif
