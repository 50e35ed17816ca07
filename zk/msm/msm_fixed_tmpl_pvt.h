/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_fixed_tmpl_pvt.h — the fixed-base MSM over a table
 * (zk/msm/msm_fixed.h), written once over a group; included by
 * zk/msm/msm_inst_tmpl_pvt.h after zk/msm/msm_tmpl_pvt.h, whose bucket code
 * (acc_*, the lane reduction, the ones' sum, the task scratch) and job code
 * (job_count, job_run: the scratch, the pool run, Horner) it reuses
 * unchanged, as it does msm_pvt.h's recoding (msm_recode, msm_digit_of), so
 * its additions are the variable-base MSM's, scalar or vector flush alike.
 * Design and cost model: zk/msm/msm_fixed.c.
 */
#include "zk/msm/msm_fixed_pvt.h"

#define FX_NAME(n) MI_CAT(MI_MSM, n)
#define FX_BUILD_CHUNK 256   /* bases per build task */
#define FX_MAX_ROWS ((255 + MSM_MIN_WINDOW - 1) / MSM_MIN_WINDOW)

struct fx_build {
	const AFF *bases;
	AFF *tab;
	size_t n;
	unsigned rows, dbl;     /* dbl = stride·c doublings between rows */
	_Atomic uint64_t *done;
	atomic_int err;
};

static void fx_build_chunk(void *v, size_t ci)
{
	struct fx_build *b = v;
	size_t lo = ci * FX_BUILD_CHUNK, hi = lo + FX_BUILD_CHUNK < b->n ? lo + FX_BUILD_CHUNK : b->n;
	JAC *jj = malloc((hi - lo) * b->rows * sizeof(JAC));

	if (!jj) {
		atomic_store(&b->err, -ENOMEM);
		return;
	}
	for (size_t i = lo; i < hi; i++) {
		JAC p;
		JAC *row = &jj[(i - lo) * b->rows];
		MI_G(_jac_from_affine)(&p, &b->bases[i]);
		row[0] = p;
		for (unsigned r = 1; r < b->rows; r++) {
			for (unsigned k = 0; k < b->dbl && !JAC_IS_INF(&p); k++)
				JAC_DBL(&p, &p);
			row[r] = p;
		}
	}
	/* one inversion for the chunk's rows·(hi-lo) points */
	JAC_BATCH_TO_AFF(b->tab + lo * b->rows, jj, (hi - lo) * b->rows);
	free(jj);
	if (b->done)
		atomic_fetch_add(b->done, hi - lo);
}

int FX_NAME(_fixed_fill)(struct cz_msm_fixed *f, const AFF *bases, struct cz_pool *pool,
			 _Atomic uint64_t *done)
{
	if (!f->tab || f->bytes != cz_msm_fixed_bytes(f->n, sizeof(AFF), f->c, f->stride))
		return -EINVAL;
	struct fx_build b = { .bases = bases, .tab = f->tab, .n = f->n, .rows = f->rows,
			      .dbl = f->stride * f->c, .done = done };
	atomic_init(&b.err, 0);
	cz_pool_for(pool, (f->n + FX_BUILD_CHUNK - 1) / FX_BUILD_CHUNK, fx_build_chunk, &b);
	return atomic_load(&b.err);
}

int FX_NAME(_fixed_build)(struct cz_msm_fixed *f, const AFF *bases, size_t n, unsigned c, unsigned s,
			  struct cz_pool *pool, _Atomic uint64_t *done)
{
	int rc = cz_msm_fixed_shape(f, n, sizeof(AFF), c, s);
	if (rc)
		return rc;
	f->tab = aligned_alloc(64, SCR_ALIGN(f->bytes ? f->bytes : 1));
	if (!f->tab)
		return -ENOMEM;
	rc = FX_NAME(_fixed_fill)(f, bases, pool, done);
	if (rc)
		cz_msm_fixed_free(f);
	return rc;
}

struct fx_job {
	struct job j;           /* bases, scalars, plan (c, nwin, h; top_nb = buckets), scratch */
	const struct cz_msm_fixed *f;
};

/* Column sub (windows sub, sub + stride, ...) over points [lo, hi): every
 * row's digit into one bucket set, then one running sum. */
static int fx_column(struct fx_job *fj, unsigned sub, size_t lo, size_t hi, XYZZ *out)
{
	struct job *j = &fj->j;
	const struct msm_plan *p = &j->plan;
	const AFF *tab = fj->f->tab;
	unsigned rows = fj->f->rows, stride = fj->f->stride;
	struct scr s = task_scr(j);
	struct acc a;
	/* a block of at least BLOCK adds, ending with a whole point's rows */
	uint32_t bi[BLOCK + FX_MAX_ROWS];
	const AFF *pp[BLOCK + FX_MAX_ROWS];
	uint8_t sg[BLOCK + FX_MAX_ROWS];

	if (acc_init(&a, p->top_nb, p->batch, &s))
		return -ENOMEM;
	for (size_t i = lo; i < hi;) {
		unsigned m = 0;
		for (; i < hi && m < BLOCK; i++) {
			if (msm_class(&j->sc[i]) != 2 || aff_is_inf(&j->bases[i]))
				continue;
			uint64_t t[5];
			msm_recode(t, &j->sc[i], p);
			const AFF *row = &tab[i * rows];
			for (unsigned r = 0, w = sub; r < rows && w < p->nwin; r++, w += stride) {
				int32_t d = msm_digit_of(t, p, w);
				if (!d)
					continue;
				bi[m] = (uint32_t)(d < 0 ? -d : d) - 1;
				sg[m] = d < 0;
				pp[m] = &row[r];
				__builtin_prefetch(&a.bkt[bi[m]]);
				__builtin_prefetch((const char *)&a.bkt[bi[m] + 1] - 1);
				m++;
			}
		}
		for (unsigned k = 0; k < m; k++)
			acc_add(&a, bi[k], pp[k], sg[k]);
	}
	acc_finish(&a);
	int rc = acc_reduce_weighted(out, &a);
	if (a.oom)
		rc = -ENOMEM;
	return rc;
}

static void fx_task(void *arg, size_t t)
{
	struct fx_job *fj = arg;
	struct job *j = &fj->j;
	const struct msm_plan *p = &j->plan;
	size_t nct = (size_t)fj->f->stride * p->nchunks, lo, hi;
	XYZZ r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (t < nct) {
		range_of(j->n, p->nchunks, t % p->nchunks, &lo, &hi);
		rc = fx_column(fj, (unsigned)(t / p->nchunks), lo, hi, &r);
	} else {
		rc = job_ones(j, t, nct, &r);
	}
	job_put(j, t, rc, &r);
}

int FX_NAME(_fixed_tuned)(JAC *r, const struct cz_msm_fixed *f, const AFF *bases,
			  const cz_scalar *scalars, size_t n, struct cz_pool *pool,
			  const struct cz_msm_tune *tune)
{
	struct fx_job fj = { .j = { .bases = bases, .sc = scalars, .n = n, .pool = pool }, .f = f };
	struct job *j = &fj.j;
	size_t nbig = 0, nones = 0;

	JAC_SET_INF(r);
	if (!f || !f->tab || n > f->n)
		return -EINVAL;
	job_count(scalars, n, &nbig, &nones);
	if (!nbig && !nones)
		return 0;
	cz_msm_fixed_plan(&j->plan, f, nbig, nones, cz_pool_nthreads(pool), sizeof(AFF), tune);
	const struct msm_plan *p = &j->plan;
	size_t nct = nbig ? (size_t)f->stride * p->nchunks : 0;
	if (!nbig)
		j->plan.nchunks = 0;
	size_t ntask = nct + p->nones;
	size_t big = nbig ? affine_task_bytes(p->top_nb, p->batch) : 0;
	j->slot_bytes = task_bytes(p, false);
	if (big > j->slot_bytes)
		j->slot_bytes = big;
	return job_run(r, j, fx_task, &fj, f->stride, nct, ntask);
}

int FX_NAME(_fixed)(JAC *r, const struct cz_msm_fixed *f, const AFF *bases, const cz_scalar *scalars,
		    size_t n, struct cz_pool *pool)
{
	return FX_NAME(_fixed_tuned)(r, f, bases, scalars, n, pool, NULL);
}
