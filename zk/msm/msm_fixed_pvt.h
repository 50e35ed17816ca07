/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_fixed_pvt.h — internal to zk/msm/: what the fixed-base MSM
 * (zk/msm/msm_fixed.c, zk/msm/msm_fixed_tmpl_pvt.h) takes from the
 * variable-base plan (zk/msm/msm.c).
 */
#ifndef CZ_MSM_FIXED_PVT_H
#define CZ_MSM_FIXED_PVT_H

#include "zk/msm/msm_fixed.h"
#include "zk/msm/msm_pvt.h"

/* zk/msm/msm.c: the window fields of a plan (c, nwin, h, top_nb), and the
 * cost model's price of one task of m adds into nb buckets. */
void cz_msm_plan_window(struct msm_plan *p, unsigned c);
double cz_msm_task_cost(size_t m, unsigned batch, double nb, size_t aff_bytes);

/* The plan of an MSM over table f for nbig scalars > 1 and nones == 1 on
 * threads: the window fields as cz_msm_plan_window(f->c), nchunks point
 * ranges per column of windows (tasks = f->stride · nchunks), the batch,
 * and top_nb set to the one bucket count every task uses (the largest
 * digit of any window).  tune (may be NULL) overrides chunks and batch. */
void cz_msm_fixed_plan(struct msm_plan *p, const struct cz_msm_fixed *f, size_t nbig, size_t nones,
		       unsigned threads, size_t aff_bytes, const struct cz_msm_tune *tune);

#endif
