/* SPDX-License-Identifier: MIT */
/*
 * gpu/ntt32.h — the per-thread bodies of the device NTT (gpu/ntt.cu), as
 * CZ_HD functions so the host selftest (selftests/gpu_kernels.c) runs the
 * very same index arithmetic in loops and compares it with zk/'s NTTs.
 * Written once for both curves' Fr: the index math here, the field steps in
 * gpu/ntt32_impl.h (cz_ntt32_* for BLS12-381, cz_bn254_ntt32_* for BN254).
 *
 * The transform is zk/ntt/ntt.c's: a radix-2 decimation in frequency (natural
 * order in, bit-reversed out) with tw[j] = omega_n^j, j < n/2, the snarkjs
 * root (generator 5).  A stage with half-size h = 2^hlog has n/2
 * butterflies; butterfly t touches elements base and base + h with
 *     j = t mod h,  base = (t / h)·2h + j,  twiddle tw[j·n/(2h)].
 * The formula does not care whether a is the whole array (global stages) or
 * a 2^B-element block in shared memory (the last B stages, where t is the
 * block-local index): the block is aligned, so j is the same.
 *
 * Shared memory layout (k_block).  An element is 8 words; stored whole
 * (32-byte stride) a warp's 32 loads of one limb hit 4 banks, 8 ways each.
 * So the block is kept limb-major — limb k of element i at word
 * k·2^B + swz(i) — and swz(i) = i XOR (31 if bit 5 of i is set) spreads
 * every stage's warp over the 32 banks: for h >= 32 a warp reads 32
 * consecutive elements (one aligned group of 32, which the XOR permutes);
 * for h < 32 its 32 bases lie in [64q, 64q + 64), the first 32 with bit
 * hlog clear, and the XOR sets that bit in the second group's banks, so
 * the two groups' banks are disjoint.  selftests/gpu_kernels.c counts the
 * banks for every stage and block size.
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

#define CZ_NTT32_WORDS 8        /* 32-bit words of an Fr element, both curves */

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

/* Butterfly t of the stage with half-size 2^hlog: its two elements. */
CZ_HD void cz_ntt32_pair(uint32_t *x, uint32_t *y, uint32_t *j, uint32_t t, unsigned hlog)
{
	uint32_t h = (uint32_t)1 << hlog;

	*j = t & (h - 1);
	*x = ((t >> hlog) << (hlog + 1)) + *j;
	*y = *x + h;
}

/* k_block's word for limb k of block element i (2^B elements). */
CZ_HD uint32_t cz_ntt32_sh_word(uint32_t i, unsigned k, unsigned B)
{
	uint32_t swz = i ^ (((i >> 5) & 1) * 31u);
	return ((uint32_t)k << B) + swz;
}

#define N32(n) cz_ntt32_##n
#define N32_T cz_fr32
#define N32_F(n) cz_fr32_##n
#include "gpu/ntt32_impl.h"
#undef N32
#undef N32_T
#undef N32_F

#define N32(n) cz_bn254_ntt32_##n
#define N32_T cz_bn254_fr32
#define N32_F(n) cz_bn254_fr32_##n
#include "gpu/ntt32_impl.h"
#undef N32
#undef N32_T
#undef N32_F

#endif
