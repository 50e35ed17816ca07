/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt_dif.c — the radix-2 decimation-in-frequency kernel: natural order
 * in, bit-reversed order out.
 *
 * Stage with half-size h (h = n/2, n/4, .. 1) maps each pair
 * (x, y) = (a[i], a[i+h]), i mod 2h < h, to (x + y, (x - y) * omega_{2h}^(i mod h)).
 * The stages with h >= 2^B are grouped into passes of up to K stages; the
 * rest run inside contiguous blocks of 2^B elements (see zk/ntt.c).
 *
 * Cost: one multiplication per butterfly, none when the twiddle is 1 (the
 * last stage); (L-1)/2 multiplications per element in all.
 */
#include "zk/ntt_pvt.h"

#include <string.h>

#define PASS_COLS 4          /* columns per unit: 4 * 32 bytes = two cache lines a row */
#define PASS_MAX_ROWS 256    /* 2^K rows, K <= 8 */

struct pass_job {
	const struct cz_ntt_domain *d;
	cz_fr *a;
	size_t h;        /* half-size of the pass's first stage */
	unsigned k;      /* stages in this pass */
	size_t cols;     /* columns per unit: min(PASS_COLS, q) */
};

/*
 * A pass over the stages with half-sizes h, h/2, .. q = h/2^(k-1).  The
 * elements a[blk*2h + j + m*q], m < 2^k, are closed under these stages for
 * each block blk and column j < q; a unit is `cols` adjacent columns.  At
 * stage t the butterfly at row m (bit k-1-t clear) and column j uses
 * omega_{2h_t}^(j + (m mod 2^(k-1-t)) q) with h_t = h/2^t, i.e. table entry
 * tw[(j + (m mod 2^(k-1-t)) q) * (n/2h) 2^t].
 */
static void pass_units(void *arg, size_t lo, size_t hi)
{
	const struct pass_job *p = arg;
	const struct cz_ntt_domain *d = p->d;
	size_t rows = (size_t)1 << p->k, q = p->h >> (p->k - 1), cols = p->cols;
	size_t groups = q / cols, ts0 = d->n / (2 * p->h);
	cz_fr buf[PASS_MAX_ROWS * PASS_COLS];

	for (size_t u = lo; u < hi; u++) {
		size_t j0 = (u % groups) * cols;
		cz_fr *base = p->a + (u / groups) * 2 * p->h + j0;

		for (size_t m = 0; m < rows; m++)
			memcpy(&buf[m * cols], &base[m * q], cols * sizeof(cz_fr));
		for (unsigned t = 0; t < p->k; t++) {
			size_t hm = rows >> (t + 1), ts = ts0 << t;
			for (size_t mb = 0; mb < rows; mb += 2 * hm) {
				for (size_t mm = 0; mm < hm; mm++) {
					cz_fr *x = &buf[(mb + mm) * cols], *y = x + hm * cols;
					const cz_fr *w = &d->tw[(j0 + mm * q) * ts];
					for (size_t c = 0; c < cols; c++) {
						cz_fr s;
						cz_fr_sub(&s, &x[c], &y[c]);
						cz_fr_add(&x[c], &x[c], &y[c]);
						cz_fr_mul(&y[c], &s, &w[c * ts]);
					}
				}
			}
		}
		for (size_t m = 0; m < rows; m++)
			memcpy(&base[m * q], &buf[m * cols], cols * sizeof(cz_fr));
	}
}

struct block_job {
	const struct cz_ntt_domain *d;
	cz_fr *a;
};

/* The last B stages, block by block; btw[h + j] = omega_{2h}^j. */
static void block_units(void *arg, size_t lo, size_t hi)
{
	const struct block_job *p = arg;
	const cz_fr *btw = p->d->btw;
	size_t len = (size_t)1 << p->d->block_log2;

	for (size_t b = lo; b < hi; b++) {
		cz_fr *x = p->a + b * len;
		for (size_t h = len / 2; h >= 2; h >>= 1) {
			for (size_t i = 0; i < len; i += 2 * h) {
				cz_fr s;
				/* j = 0: the twiddle is 1 */
				cz_fr_sub(&s, &x[i], &x[i + h]);
				cz_fr_add(&x[i], &x[i], &x[i + h]);
				x[i + h] = s;
				for (size_t j = 1; j < h; j++) {
					cz_fr_sub(&s, &x[i + j], &x[i + j + h]);
					cz_fr_add(&x[i + j], &x[i + j], &x[i + j + h]);
					cz_fr_mul(&x[i + j + h], &s, &btw[h + j]);
				}
			}
		}
		if (len >= 2) {
			for (size_t i = 0; i < len; i += 2) {
				cz_fr s;
				cz_fr_sub(&s, &x[i], &x[i + 1]);
				cz_fr_add(&x[i], &x[i], &x[i + 1]);
				x[i + 1] = s;
			}
		}
	}
}

void cz_ntt_dif(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	unsigned outer = d->log2n - d->block_log2;
	unsigned npass = (outer + d->radix_log2 - 1) / d->radix_log2;
	size_t h = d->n / 2;

	/* Spread the outer stages evenly over the passes: 9 = 5 + 4, not 8 + 1. */
	for (unsigned i = 0; i < npass; i++) {
		unsigned k = (outer + npass - 1 - i) / (npass - i);
		size_t q = h >> (k - 1);
		struct pass_job pj = { .d = d, .a = a, .h = h, .k = k,
				       .cols = q < PASS_COLS ? q : PASS_COLS };
		cz_ntt_par(pool, (d->n / (2 * h)) * (q / pj.cols), pass_units, &pj);
		outer -= k;
		h >>= k;
	}
	struct block_job bj = { .d = d, .a = a };
	cz_ntt_par(pool, d->n >> d->block_log2, block_units, &bj);
}
