/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_fixed.c — fixed-base MSM tables: design, layout, plan.
 *
 * What: the Groth16 MSMs run over the key's bases (A, B1, B2 over the
 * witness, C, H), which a daemon keeps resident for many proofs.  Stored
 * with each base P_i its multiples 2^(r·s·c)·P_i for rows r < ceil(nwin/s),
 * the windows r·s + j (one per row, j < s fixed) become one window over
 * rows× as many points: digit d_{r·s+j}(k_i) adds ±2^(r·s·c)·P_i to bucket
 * |d|.  So s bucket sets (columns j) serve all nwin windows: s running sums
 * instead of nwin, s·c doublings of Horner instead of nwin·c.  s = 1 (all
 * windows tabulated) needs nwin× the bases' memory; s = 2 half of it, for
 * twice the running sums.  The freed running sums pay for a wider window
 * (c + 2 or + 3 against the variable MSM's), which is fewer point
 * additions: nwin·n of them, ceil(255/c)·n.
 *
 * Layout: point-major, tab[i·rows + r]; row 0 is P_i itself (a copy of the
 * base, so one pass over the points reads the table once, in order; the
 * key's own bases still serve the scalars equal to 1, summed as the
 * variable MSM does).
 *
 * The additions are the variable MSM's own bucket code (zk/msm/msm_tmpl_pvt.h:
 * batch-affine buckets, queue and side buckets, batch-affine lane running
 * sums, the scalar or IFMA flush), included for each group by
 * zk/msm/msm_fixed_tmpl_pvt.h.  Tasks are (column j, point range): each
 * with its own buckets and running sum, added up per column, then Horner
 * over the s columns.
 *
 * Cost model (the variable MSM's, zk/msm/msm.c, task_cost): an MSM of n
 * full-width scalars costs
 *   ceil(s·k / T) · task(rows·n/k adds, nb = max(2^(c-1), top digit) buckets)
 * for k point ranges on T threads; cz_msm_fixed_choose tries every c and s
 * whose table fits the memory allowed, and the best k, against the same
 * model's variable-base plan (s = nwin, one row: the table would be the bases).
 * BN254 G1 at 2^16 on 2 threads: c = 16, s = 1 (16 rows: 64 MiB for 4 MiB of
 * bases), ~8.9·10^6 M of adds and 2 running sums of 0.5·10^6 M, against
 * c = 13's 20 windows: 10.4·10^6 M of adds and 1.3·10^6 M of running sums.
 *
 * Building: 255 doublings per base in all (s·c between rows), Jacobian,
 * then one batch conversion to affine per 256 bases: ~1700 M per base, about
 * 200× one proof's MSM work per base, so a table pays after a few hundred
 * proofs of the key; the one-shot CLI does not build them.
 *
 * Invariants: a table is built from exactly the bases it is used with (the
 * caller's to keep); entries are reduced affine points or (0, 0).
 * Failure: -ENOMEM from a build (nothing kept) or an MSM (result infinity).
 */
#include "zk/msm/msm_fixed_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t cz_msm_fixed_bytes(size_t n, size_t aff_bytes, unsigned c, unsigned s)
{
	if (c < MSM_MIN_WINDOW || c > MSM_MAX_WINDOW || s == 0)
		return 0;
	unsigned nwin = (255 + c - 1) / c, rows = (nwin + s - 1) / s;
	return (uint64_t)n * rows * aff_bytes;
}

int cz_msm_fixed_shape(struct cz_msm_fixed *f, size_t n, size_t aff_bytes, unsigned c, unsigned s)
{
	memset(f, 0, sizeof(*f));
	if (c < MSM_MIN_WINDOW || c > MSM_MAX_WINDOW)
		return -EINVAL;
	unsigned nwin = (255 + c - 1) / c;
	if (s < 1 || s > nwin)
		return -EINVAL;
	f->n = n;
	f->c = c;
	f->nwin = nwin;
	f->stride = s;
	f->rows = (nwin + s - 1) / s;
	f->bytes = cz_msm_fixed_bytes(n, aff_bytes, c, s);
	return 0;
}

void cz_msm_fixed_free(struct cz_msm_fixed *f)
{
	if (!f)
		return;
	free(f->tab);
	memset(f, 0, sizeof(*f));
}

static unsigned fx_batch(unsigned nb)
{
	unsigned b = nb / 4;
	return b < 1 ? 1 : b > 1024 ? 1024 : b;
}

/* The model's price of a column MSM: the best k and its cost. */
static double fx_cost(size_t nbig, unsigned threads, size_t aff_bytes, unsigned nwin, unsigned s,
		      unsigned nb, unsigned batch, unsigned chunks, unsigned *best_k)
{
	unsigned rows = (nwin + s - 1) / s;
	double best = -1;
	unsigned k0 = chunks ? chunks : 1, k1 = chunks ? chunks : 4 * threads;
	for (unsigned k = k0; k <= k1; k++) {
		size_t m = (nbig + k - 1) / k;
		double rounds = (double)(((size_t)s * k + threads - 1) / threads);
		double cost = rounds * cz_msm_task_cost(m * rows, batch, nb, aff_bytes);
		if (best < 0 || cost < best) {
			best = cost;
			*best_k = k;
		}
	}
	return best;
}

void cz_msm_fixed_plan(struct msm_plan *p, const struct cz_msm_fixed *f, size_t nbig, size_t nones,
		       unsigned threads, size_t aff_bytes, const struct cz_msm_tune *tune)
{
	if (threads == 0)
		threads = 1;
	memset(p, 0, sizeof(*p));
	cz_msm_plan_window(p, f->c);
	unsigned nb = 1u << (f->c - 1);
	if (p->top_nb > nb)
		nb = p->top_nb;
	p->top_nb = nb;
	p->batch = tune && tune->batch ? tune->batch : fx_batch(nb);
	p->top_batch = p->batch;
	fx_cost(nbig, threads, aff_bytes, f->nwin, f->stride, nb, p->batch, tune ? tune->chunks : 0,
		&p->nchunks);
	p->nones = nones ? (nones < 4096 ? 1 : threads) : 0;
}

int cz_msm_fixed_choose(size_t n, unsigned threads, size_t aff_bytes, uint64_t max_bytes,
			unsigned *c_out, unsigned *s_out)
{
	double best = -1;
	unsigned bc = 0, bs = 0, k;

	if (threads == 0)
		threads = 1;
	for (unsigned c = MSM_MIN_WINDOW; c <= MSM_MAX_WINDOW; c++) {
		struct msm_plan p;
		cz_msm_plan_window(&p, c);
		unsigned nb = 1u << (c - 1);
		if (p.top_nb > nb)
			nb = p.top_nb;
		for (unsigned s = 1; s <= p.nwin; s++) {
			unsigned rows = (p.nwin + s - 1) / s;
			if (rows > 1 && cz_msm_fixed_bytes(n, aff_bytes, c, s) > max_bytes)
				continue;
			if (s > 1 && rows == (p.nwin + s - 2) / (s - 1))
				continue;   /* same rows as s - 1, more columns */
			double cost = fx_cost(n, threads, aff_bytes, p.nwin, s, nb, fx_batch(nb), 0, &k);
			if (best < 0 || cost < best) {
				best = cost;
				bc = c;
				bs = s;
			}
		}
	}
	if (!bc || (255 + bc - 1) / bc <= bs)
		return 0;   /* one row: the variable-base MSM */
	*c_out = bc;
	*s_out = bs;
	return 1;
}
