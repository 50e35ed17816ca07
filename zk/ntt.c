/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt.c — NTT domains and the public transforms (see zk/ntt.h).
 *
 * Design.  Every transform is built from one kernel, the forward DFT done
 * as in-place radix-2 Cooley-Tukey butterflies with natural order in and
 * bit-reversed order out (zk/ntt_kernel.c), followed by a bit-reversal
 * permutation (zk/ntt_perm.c).  The others reuse it:
 *
 *   inverse        DFT^-1(a)[k] = (1/n) DFT(a)[(n-k) mod n]: forward, then one
 *                  pass that reverses indices and scales by 1/n.
 *   coset_forward  a[k] *= g^k, then forward.
 *   coset_inverse  forward, then a[k] <- a[(n-k) mod n] * g^-k / n.
 *   to_odd_coset   forward, a[k] <- a[(n-k) mod n] * g^k / n, forward.
 *
 * Cache blocking.  The first L-B levels (strides >= 2^B) run as passes of up
 * to K levels each: a pass gathers 2^K rows of 4 adjacent columns (32 KiB at
 * K = 8) into a buffer, does its K levels there and scatters them back, so
 * every pass streams the array once.  The last B levels run inside
 * contiguous blocks of 2^B elements (128 KiB at B = 12), which stay in L2.
 * n = 2^20 thus costs three streaming passes (one radix-2^8 pass, the
 * blocks, the permutation) instead of twenty.
 *
 * Cost, in Fr multiplications per element (L = log2 n): forward L/2 - 1
 * (one per butterfly, none in each level's block 0, whose twiddle is 1);
 * inverse L/2; coset_forward and coset_inverse L/2 + 1; to_odd_coset L.
 * Each butterfly also costs one addition and one subtraction.
 *
 * Twiddles.  tw[k] = omega_n^rev(k) for k < n/2 (rev over L-1 bits),
 * computed once per domain: n/2 multiplications and 16n bytes (4 GiB at
 * n = 2^28, half the data).  With the twiddles in bit-reversed order the
 * level with m blocks uses exactly tw[0 .. m), one per block, so every pass
 * reads the table sequentially and the columns of a pass share their
 * twiddles; no per-level copies are needed.
 *
 * Roots.  omega_{2^k} is snarkjs's (cz_fr_root_of_unity: 5^((r-1)/2^32)
 * squared 32-k times), not the generator-7 root of other libraries: both
 * give valid transforms, only this one gives snarkjs-compatible proofs.
 *
 * Threads.  Each pass is split into independent chunks of whole units
 * (column groups, blocks, tile pairs, index ranges) on the pool; passes are
 * separated by cz_pool_for's return.  Every element's arithmetic is the same
 * whatever the split, so results do not depend on the thread count.
 *
 * Failure modes: domain creation fails for log2n > 28 (EINVAL) or when the
 * table cannot be allocated (ENOMEM); transforms cannot fail.
 */
#include "zk/ntt_pvt.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BLOCK_LOG2 12
#define DEFAULT_RADIX_LOG2 8

static cz_fr *alloc_fr(size_t count)
{
	size_t bytes = (count * sizeof(cz_fr) + 63) & ~(size_t)63;
	return aligned_alloc(64, bytes);
}

struct cz_ntt_domain *cz_ntt_domain_create_tuned(unsigned log2n, unsigned block_log2,
						 unsigned radix_log2)
{
	if (log2n > CZ_NTT_MAX_LOG2) {
		errno = EINVAL;
		return NULL;
	}
	struct cz_ntt_domain *d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	size_t n = (size_t)1 << log2n;
	unsigned b = block_log2 ? block_log2 : DEFAULT_BLOCK_LOG2;
	unsigned k = radix_log2 ? radix_log2 : DEFAULT_RADIX_LOG2;

	d->log2n = log2n;
	d->n = n;
	d->block_log2 = b < log2n ? b : log2n;
	d->radix_log2 = k < 8 ? k : 8;  /* the pass buffer holds 2^8 rows */
	d->tw = alloc_fr(n > 1 ? n / 2 : 1);
	if (!d->tw) {
		cz_ntt_domain_destroy(d);
		errno = ENOMEM;
		return NULL;
	}

	/* tw[m + k] = tw[k] * omega_{4m} for k < m: rev(m + k) = rev(k) + n/4m. */
	d->tw[0] = cz_fr_one;
	for (unsigned lvl = 0; lvl + 1 < log2n; lvl++) {
		size_t m = (size_t)1 << lvl;
		cz_fr z;
		cz_fr_root_of_unity(&z, lvl + 2);
		for (size_t i = 0; i < m; i++)
			cz_fr_mul(&d->tw[m + i], &d->tw[i], &z);
	}

	cz_fr nn;
	cz_fr_from_u64(&nn, n);
	cz_fr_inv(&d->n_inv, &nn);
	cz_fr_root_of_unity(&d->g, log2n + 1);
	cz_fr_inv(&d->g_inv, &d->g);
	return d;
}

struct cz_ntt_domain *cz_ntt_domain_create(unsigned log2n)
{
	return cz_ntt_domain_create_tuned(log2n, 0, 0);
}

void cz_ntt_domain_destroy(struct cz_ntt_domain *d)
{
	if (!d)
		return;
	free(d->tw);
	free(d);
}

size_t cz_ntt_domain_bytes(const struct cz_ntt_domain *d)
{
	return sizeof(*d) + (d->n > 1 ? d->n / 2 : 1) * sizeof(cz_fr);   /* as alloc_fr above */
}

unsigned cz_ntt_domain_log2(const struct cz_ntt_domain *d)
{
	return d->log2n;
}

size_t cz_ntt_domain_size(const struct cz_ntt_domain *d)
{
	return d->n;
}

struct par {
	size_t units, nchunks;
	void (*body)(void *job, size_t lo, size_t hi);
	void *job;
};

static void par_chunk(void *arg, size_t c)
{
	const struct par *p = arg;
	size_t lo = p->units * c / p->nchunks, hi = p->units * (c + 1) / p->nchunks;

	if (lo < hi)
		p->body(p->job, lo, hi);
}

/* Waking the pool costs tens of microseconds: a few thousand multiplications. */
#define PAR_MIN_MULS 4096

void cz_ntt_par(struct cz_pool *pool, size_t units, size_t muls,
		void (*body)(void *job, size_t lo, size_t hi), void *job)
{
	size_t t = cz_pool_nthreads(pool);

	if (units == 0)
		return;
	if (t <= 1 || units == 1 || muls < PAR_MIN_MULS) {
		body(job, 0, units);
		return;
	}
	/* A few chunks per thread absorb uneven progress (the 2 cores are shared). */
	struct par p = { .units = units, .nchunks = units < 4 * t ? units : 4 * t,
			 .body = body, .job = job };
	cz_pool_for(pool, p.nchunks, par_chunk, &p);
}

void cz_ntt_forward(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	cz_ntt_kernel(d, a, pool);
	cz_ntt_bitrev(d, a, pool);
}

void cz_ntt_inverse(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	cz_ntt_forward(d, a, pool);
	cz_ntt_reverse_scale(d, a, &d->n_inv, NULL, NULL, pool);
}

void cz_ntt_coset_forward(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	cz_ntt_scale_pow(d, a, &d->g, pool);
	cz_ntt_forward(d, a, pool);
}

void cz_ntt_coset_inverse(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	cz_ntt_forward(d, a, pool);
	cz_ntt_reverse_scale(d, a, &d->n_inv, &d->g_inv, &d->g, pool);
}

void cz_ntt_to_odd_coset(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	cz_ntt_forward(d, a, pool);
	cz_ntt_reverse_scale(d, a, &d->n_inv, &d->g, &d->g_inv, pool);
	cz_ntt_forward(d, a, pool);
}
