/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt_pvt.h — the NTT's internals, shared by zk/ntt*.c.  Do not include
 * from outside zk/ntt*.c.
 */
#ifndef CZ_NTT_PVT_H
#define CZ_NTT_PVT_H

#include "zk/ntt.h"

struct cz_ntt_domain {
	unsigned log2n;        /* L */
	size_t n;              /* 2^L */
	unsigned block_log2;   /* B: the last B levels run inside blocks of 2^B */
	unsigned radix_log2;   /* K_max: the levels before them, at most K_max per pass */
	cz_fr *tw;             /* tw[k] = omega_n^rev_{L-1}(k), k < n/2 (one entry when n = 1) */
	cz_fr n_inv;           /* 1/n */
	cz_fr g, g_inv;        /* the coset shift omega_{2n} and its inverse */
};

/* Runs body(job, lo, hi) over [0, units) cut into a few chunks per thread;
 * on the calling thread alone when the loop's cost (about `muls` field
 * multiplications) would not pay for waking the pool. */
void cz_ntt_par(struct cz_pool *pool, size_t units, size_t muls,
		void (*body)(void *job, size_t lo, size_t hi), void *job);

/* The forward DFT, natural order in, bit-reversed order out. */
void cz_ntt_kernel(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
/* a[i] <-> a[bitreverse_L(i)]. */
void cz_ntt_bitrev(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
/* a[k] <- a[k] * z^k. */
void cz_ntt_scale_pow(const struct cz_ntt_domain *d, cz_fr *a, const cz_fr *z,
		      struct cz_pool *pool);
/* a[k] <- a[(n-k) mod n] * c * z^k (z may be NULL: z = 1); zinv = 1/z. */
void cz_ntt_reverse_scale(const struct cz_ntt_domain *d, cz_fr *a, const cz_fr *c,
			  const cz_fr *z, const cz_fr *zinv, struct cz_pool *pool);

#endif
