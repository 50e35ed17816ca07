/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt_kernel.c — the forward DFT's butterflies: natural order in,
 * bit-reversed order out, in place.
 *
 * Cooley-Tukey butterflies with one twiddle per block: the level with
 * half-size h (h = n/2, n/4, .. 1) has m = n/2h blocks of 2h elements, and
 * block k maps each pair (x, y) = (a[2hk + j], a[2hk + j + h]), j < h, to
 * (x + w y, x - w y) with w = omega_2m^rev(k) = tw[k], where
 * tw[k] = omega_n^rev_{L-1}(k) (ntt.c).  (Block k holds the residue of the
 * polynomial modulo X^2h - omega_m^rev(k); the butterfly splits it in two.)
 * A level reads the prefix tw[0 .. m) in order, so the table is read
 * sequentially, and a pass's columns all share the same few twiddles.
 *
 * Cost: one multiplication per butterfly except in block 0 (w = 1):
 * L n/2 - (n - 1) in all, about L/2 - 1 per element.
 */
#include "zk/ntt_pvt.h"
#include "zk/field_inline.h"

#include <string.h>

#define PASS_COLS 4          /* columns per unit: 4 * 32 bytes = two cache lines a row */
#define PASS_MAX_ROWS 256    /* 2^K rows, K <= 8 */

/* (x, y) <- (x + w y, x - w y); w NULL means 1. */
static inline void butterfly(cz_fr *x, cz_fr *y, const cz_fr *w)
{
	cz_fr t;

	if (w)
		cz_fr_mul_inl(&t, y, w);
	else
		t = *y;
	cz_fr_sub_inl(y, x, &t);
	cz_fr_add_inl(x, x, &t);
}

struct pass_job {
	const struct cz_ntt_domain *d;
	cz_fr *a;
	size_t h;        /* half-size of the pass's first level */
	unsigned k;      /* levels in this pass */
	size_t cols;     /* columns per unit: min(PASS_COLS, q) */
};

/*
 * A pass over the levels with half-sizes h, h/2, .. q = h/2^(k-1).  The
 * elements a[blk*2h + j + r*q], r < 2^k, are closed under these levels for
 * each top block blk and column j < q; a unit is `cols` adjacent columns,
 * gathered into a buffer of 2^k rows.  At level t, row r lies in block
 * blk*2^t + (r >> (k-t)), whatever the column.
 */
static void pass_units(void *arg, size_t lo, size_t hi)
{
	const struct pass_job *p = arg;
	const cz_fr *tw = p->d->tw;
	size_t rows = (size_t)1 << p->k, q = p->h >> (p->k - 1), cols = p->cols;
	size_t groups = q / cols;
	cz_fr buf[PASS_MAX_ROWS * PASS_COLS];

	for (size_t u = lo; u < hi; u++) {
		size_t blk = u / groups, j0 = (u % groups) * cols;
		cz_fr *base = p->a + blk * 2 * p->h + j0;

		for (size_t r = 0; r < rows; r++)
			memcpy(&buf[r * cols], &base[r * q], cols * sizeof(cz_fr));
		for (unsigned t = 0; t < p->k; t++) {
			size_t hr = rows >> (t + 1);  /* half-size in rows */
			for (size_t rb = 0, kb = blk << t; rb < rows; rb += 2 * hr, kb++) {
				const cz_fr *w = kb ? &tw[kb] : NULL;
				for (size_t r = rb; r < rb + hr; r++) {
					cz_fr *x = &buf[r * cols], *y = x + hr * cols;
					for (size_t c = 0; c < cols; c++)
						butterfly(&x[c], &y[c], w);
				}
			}
		}
		for (size_t r = 0; r < rows; r++)
			memcpy(&base[r * q], &buf[r * cols], cols * sizeof(cz_fr));
	}
}

struct block_job {
	const struct cz_ntt_domain *d;
	cz_fr *a;
};

/* The last B levels inside contiguous blocks of 2^B elements. */
static void block_units(void *arg, size_t lo, size_t hi)
{
	const struct block_job *p = arg;
	const cz_fr *tw = p->d->tw;
	size_t len = (size_t)1 << p->d->block_log2;

	for (size_t b = lo; b < hi; b++) {
		cz_fr *x = p->a + b * len;
		for (size_t h = len / 2; h >= 1; h >>= 1) {
			size_t k = b * (len / (2 * h));  /* the first sub-block's index at this level */
			for (size_t i = 0; i < len; i += 2 * h, k++) {
				const cz_fr *w = k ? &tw[k] : NULL;
				for (size_t j = i; j < i + h; j++)
					butterfly(&x[j], &x[j + h], w);
			}
		}
	}
}

void cz_ntt_kernel(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	unsigned outer = d->log2n - d->block_log2;
	unsigned npass = (outer + d->radix_log2 - 1) / d->radix_log2;
	size_t h = d->n / 2;

	/* Spread the outer levels evenly over the passes: 9 = 5 + 4, not 8 + 1. */
	for (unsigned i = 0; i < npass; i++) {
		unsigned k = (outer + npass - 1 - i) / (npass - i);
		size_t q = h >> (k - 1);
		struct pass_job pj = { .d = d, .a = a, .h = h, .k = k,
				       .cols = q < PASS_COLS ? q : PASS_COLS };
		cz_ntt_par(pool, (d->n / (2 * h)) * (q / pj.cols), d->n / 2 * k, pass_units, &pj);
		outer -= k;
		h >>= k;
	}
	struct block_job bj = { .d = d, .a = a };
	cz_ntt_par(pool, d->n >> d->block_log2, d->n / 2 * d->block_log2, block_units, &bj);
}
