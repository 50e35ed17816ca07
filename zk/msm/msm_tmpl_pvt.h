/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_tmpl_pvt.h — internal to zk/msm/msm_g1.c, zk/msm/msm_g2.c and their BN254
 * twins zk/msm/bn254_msm_g1.c, bn254_msm_g2.c (through zk/msm/msm_inst_tmpl_pvt.h); do not include directly.  The bucket code, written once over a group; the
 * includer defines:
 *   F, F_ADD, F_SUB, F_DBL, F_NEG, F_MUL, F_SQR, F_INV      the coordinate field
 *   AFF, XYZZ, JAC, XYZZ_ADD_AFF, XYZZ_ADD, XYZZ_DBL, XYZZ_TO_JAC, JAC_BATCH_TO_AFF,
 *   JAC_SET_INF, JAC_IS_INF, JAC_ADD, JAC_DBL                the group
 *   MSM_FN, MSM_TUNED_FN                                     the public names
 * and optionally, to batch-invert in a subfield (G2: norms in Fp, see
 * zk/msm/msm_inst_tmpl_pvt.h), N, N_MUL, N_INV, DEN_NORM(n, d), DEN_INV(t, d, ninv):
 * n = N(d) in the subfield, t = 1/d from d and 1/N(d).
 * Optional lazy products (default: the reduced ones): F_MUL_LAZY, N_MUL_LAZY
 * may leave their result unreduced (Fp: < 2p, zk/field/field_inline.h); they are
 * used only where the result feeds nothing but further products (the
 * batch-inversion chains and the slope), so add/sub/eq never see one.
 * Optional vector flush (zk/msm/fp_ifma.h, the curve's cz_*_flush_ifma):
 * VEC_FLUSH(ent, n, bkt, scratch) does what acc_flush does for n >= VEC_MIN
 * entries when cz_ifma_on, with VEC_BYTES(cap) bytes of scratch taken
 * beside the batch's own.
 * Design, cost model and invariants: zk/msm/msm.c.
 *
 * Memory: no task allocates.  Each takes its buckets, batch and side
 * buckets from its pool slot's scratch (lib/pool.h) with a bump pointer
 * (one add), sized before the loop by task_bytes() for the plan's largest
 * task; the window results live in the caller's scratch.  A pool that has
 * run a key's MSMs once runs them again with no heap call at all.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"
#include "zk/msm/msm_pvt.h"

#ifndef F_MUL_LAZY
#define F_MUL_LAZY F_MUL
#endif
#ifndef N /* invert in F itself: the "norms" are the denominators */
#define N F
#define N_MUL F_MUL
#define N_MUL_LAZY F_MUL_LAZY
#define N_INV F_INV
#define DEN_NORM(n, d) ((void)(n), (void)(d))
#define DEN_INV(t, d, ninv) (*(t) = *(ninv))
#define NRM(a, i) (&(a)->den[i])
#else
#define NRM(a, i) (&(a)->nrm[i])
#ifndef N_MUL_LAZY
#define N_MUL_LAZY N_MUL
#endif
#endif

#define ST_HAS 1u   /* bucket holds a point */
#define ST_BUSY 2u  /* an add into this bucket is in the current batch */

#define ONES_BUCKETS 256u
#define ONES_BATCH 128u
#define BLOCK 64    /* points recoded (and buckets prefetched) ahead of use */

/* Field elements and points are plain limb arrays: a zero test is an OR. */
static inline bool f_is_zero(const F *a)
{
	const uint64_t *w = (const uint64_t *)a;
	uint64_t acc = 0;
	for (size_t i = 0; i < sizeof(F) / 8; i++)
		acc |= w[i];
	return acc == 0;
}

static inline bool f_eq(const F *a, const F *b)
{
	return memcmp(a, b, sizeof(F)) == 0; /* fully reduced: equal iff same limbs */
}

static inline bool aff_is_inf(const AFF *p)
{
	return f_is_zero(&p->x) && f_is_zero(&p->y);
}

#define ent msm_ent /* zk/msm/msm_pvt.h: p (an AFF), bucket, dbl, neg */

#ifdef VEC_FLUSH
#include "zk/msm/fp_ifma.h"
/* Below this many adds the idle lanes cost more than the vector saves. */
#define VEC_MIN 16
static size_t vec_bytes(uint32_t cap)
{
	return cz_ifma_on && cap >= VEC_MIN ? VEC_BYTES(cap) : 0;
}
#else
static size_t vec_bytes(uint32_t cap)
{
	(void)cap;
	return 0;
}
#endif

struct qent {
	const AFF *p;
	uint32_t b;
	uint32_t neg;
};

/* A task's scratch: a bump pointer over its pool slot (no free: the task
 * ends and the next one starts from the bottom). */
struct scr {
	char *p, *end;
};

#define SCR_ALIGN(x) (((x) + 63) & ~(size_t)63)

static void *scr_take(struct scr *s, size_t bytes)
{
	bytes = SCR_ALIGN(bytes ? bytes : 1);
	if (!s->p || (size_t)(s->end - s->p) < bytes)
		return NULL;   /* task_bytes() undercounted: reported as -ENOMEM */
	void *r = s->p;
	s->p += bytes;
	return r;
}

/* One window's (or the ones') buckets and the pending batch. */
struct acc {
	AFF *bkt;           /* bucket values, valid where st & ST_HAS */
	uint8_t *st;        /* ST_* per bucket */
	XYZZ *side;         /* overflow buckets, allocated on first use (zero = infinity) */
	uint32_t nb;        /* buckets */
	uint32_t cap;       /* batch size */
	uint32_t ne, nq;    /* entries in the batch, in the queue */
	struct ent *ent;    /* [cap] */
	F *den;             /* [cap] denominators d_i */
	N *nrm;             /* [cap] their norms (unused when N is F) */
	N *pre;             /* [cap] prefix products of the norms */
	struct qent *q, *q2;/* [cap] queue and its swap buffer */
	void *vec;          /* the vector flush's scratch, or NULL */
	struct scr *scr;    /* where side buckets come from */
	bool oom;
};

/* Scratch bytes of acc_init(nb, cap), of the side buckets and of their merge. */
static size_t acc_bytes(uint32_t nb, uint32_t cap)
{
	return SCR_ALIGN((size_t)nb * sizeof(AFF)) + SCR_ALIGN(nb) +
	       SCR_ALIGN((size_t)cap * sizeof(struct ent)) + SCR_ALIGN((size_t)cap * sizeof(F)) +
	       2 * SCR_ALIGN((size_t)cap * sizeof(N)) + 2 * SCR_ALIGN((size_t)cap * sizeof(struct qent)) +
	       SCR_ALIGN(vec_bytes(cap));
}

static size_t side_bytes(uint32_t nb)
{
	return SCR_ALIGN((size_t)nb * sizeof(XYZZ)) + SCR_ALIGN((size_t)nb * sizeof(JAC)) +
	       SCR_ALIGN((size_t)nb * sizeof(AFF));
}

static int acc_init(struct acc *a, uint32_t nb, uint32_t cap, struct scr *s)
{
	memset(a, 0, sizeof(*a));
	a->nb = nb;
	a->cap = cap;
	a->scr = s;
	a->bkt = scr_take(s, (size_t)nb * sizeof(AFF));
	a->st = scr_take(s, nb);
	a->ent = scr_take(s, (size_t)cap * sizeof(*a->ent));
	a->den = scr_take(s, (size_t)cap * sizeof(F));
	a->nrm = scr_take(s, (size_t)cap * sizeof(N));
	a->pre = scr_take(s, (size_t)cap * sizeof(N));
	a->q = scr_take(s, (size_t)cap * sizeof(*a->q));
	a->q2 = scr_take(s, (size_t)cap * sizeof(*a->q2));
	if (!a->bkt || !a->st || !a->ent || !a->den || !a->nrm || !a->pre || !a->q || !a->q2)
		return -ENOMEM;
	if (vec_bytes(cap) && !(a->vec = scr_take(s, vec_bytes(cap))))
		return -ENOMEM;
	memset(a->st, 0, nb);
	return 0;
}

static void side_add(struct acc *a, uint32_t b, const AFF *p, bool neg)
{
	AFF t;

	if (!a->side) {
		a->side = scr_take(a->scr, (size_t)a->nb * sizeof(XYZZ));
		if (!a->side) {
			a->oom = true;
			return;
		}
		memset(a->side, 0, (size_t)a->nb * sizeof(XYZZ));   /* zero = infinity */
	}
	if (neg) {
		t.x = p->x;
		F_NEG(&t.y, &p->y);
		p = &t;
	}
	XYZZ_ADD_AFF(&a->side[b], &a->side[b], p);
}

/*
 * Executes the batch: bucket_i += point_i for all entries at once.
 * Cost per entry: 5M + 1S and 6 add/sub, plus one inversion per batch
 * (G2: the trick runs on norms in Fp, 7 Fp M instead of 3 Fp2 M = 9).
 */
static void acc_flush(struct acc *a)
{
	uint32_t n = a->ne;
	F d, t, lam, x3;
	N acc, inv, ni;

	if (!n)
		return;
#ifdef VEC_FLUSH
	if (a->vec && n >= VEC_MIN && cz_ifma_on) {
		VEC_FLUSH(a->ent, n, a->bkt, a->vec);
		for (uint32_t i = 0; i < n; i++)
			a->st[a->ent[i].b] = ST_HAS;
		a->ne = 0;
		return;
	}
#endif
	for (uint32_t i = 0; i < n; i++) {
		const struct ent *e = &a->ent[i];
		const AFF *bk = &a->bkt[e->b];
		const AFF *pt = e->p;
		if (e->dbl)
			F_DBL(&a->den[i], &bk->y);
		else
			F_SUB(&a->den[i], &pt->x, &bk->x);
		DEN_NORM(NRM(a, i), &a->den[i]);
		if (i == 0) {
			acc = *NRM(a, 0);
		} else {
			a->pre[i] = acc;
			if (i + 1 < n)   /* the last one goes to N_INV: reduced */
				N_MUL_LAZY(&acc, &acc, NRM(a, i));
			else
				N_MUL(&acc, &acc, NRM(a, i));
		}
	}
	N_INV(&inv, &acc);
	for (uint32_t i = n; i-- > 0;) {
		const struct ent *e = &a->ent[i];
		const AFF *pt = e->p;
		AFF *bk = &a->bkt[e->b];
		if (i > 0) {
			N_MUL_LAZY(&ni, &inv, &a->pre[i]);  /* 1/n_i */
			N_MUL_LAZY(&inv, &inv, NRM(a, i));  /* 1/(n_0···n_{i-1}) */
		} else {
			ni = inv;
		}
		DEN_INV(&t, &a->den[i], &ni);      /* 1/d_i */
		/* For -p, λ' = (y_p + y_b)/d = -λ: x3 is unchanged and
		 * y3 = λ'·(x3 - x_b) - y_b, which saves negating. */
		if (e->dbl) {
			F_SQR(&lam, &bk->x);
			F_DBL(&d, &lam);
			F_ADD(&d, &d, &lam);         /* 3x^2 */
		} else if (e->neg) {
			F_ADD(&d, &pt->y, &bk->y);
		} else {
			F_SUB(&d, &pt->y, &bk->y);
		}
		F_MUL_LAZY(&lam, &d, &t);   /* feeds only the two products below */
		F_SQR(&x3, &lam);
		F_SUB(&x3, &x3, &bk->x);
		F_SUB(&x3, &x3, e->dbl ? &bk->x : &pt->x);
		if (e->neg && !e->dbl)
			F_SUB(&d, &x3, &bk->x);
		else
			F_SUB(&d, &bk->x, &x3);
		F_MUL(&d, &d, &lam);
		F_SUB(&bk->y, &d, &bk->y);
		bk->x = x3;
		a->st[e->b] = ST_HAS;
	}
	a->ne = 0;
}

/* Puts bucket b += (neg ? -p : p) into the batch, or settles it at once. */
static inline void acc_put(struct acc *a, uint32_t b, const AFF *p, bool neg)
{
	uint8_t st = a->st[b];

	if (st & ST_BUSY) {
		if (a->nq < a->cap)
			a->q[a->nq++] = (struct qent){ p, b, neg };
		else
			side_add(a, b, p, neg);
		return;
	}
	AFF *bk = &a->bkt[b];
	if (!(st & ST_HAS)) {
		bk->x = p->x;
		if (neg)
			F_NEG(&bk->y, &p->y);
		else
			bk->y = p->y;
		a->st[b] = ST_HAS;
		return;
	}
	uint8_t dbl = 0;
	if (f_eq(&bk->x, &p->x)) {
		F ny;
		if (neg) {
			F_NEG(&ny, &p->y);
			dbl = f_eq(&bk->y, &ny);
		} else {
			dbl = f_eq(&bk->y, &p->y);
		}
		if (!dbl) { /* P + (-P) */
			a->st[b] = 0;
			return;
		}
	}
	a->ent[a->ne++] = (struct ent){ p, b, dbl, neg };
	a->st[b] = ST_HAS | ST_BUSY;
}

/* Moves the queue into the batch (flushing as it fills); what still finds
 * its bucket busy goes back to the queue. */
static void acc_drain(struct acc *a)
{
	uint32_t nq = a->nq;
	struct qent *q = a->q;

	a->q = a->q2;
	a->q2 = q;
	a->nq = 0;
	for (uint32_t i = 0; i < nq; i++) {
		acc_put(a, q[i].b, q[i].p, q[i].neg);
		if (a->ne == a->cap)
			acc_flush(a);
	}
}

static inline void acc_add(struct acc *a, uint32_t b, const AFF *p, bool neg)
{
	acc_put(a, b, p, neg);
	if (a->ne == a->cap) {
		acc_flush(a);
		acc_drain(a);
	}
}

/*
 * Folds the side buckets back into the affine ones: normalize the used ones
 * with one batch inversion, then one batch of adds (each bucket at most
 * once, so no collisions).  Costs ~ one add per used side bucket.
 */
static void acc_merge_side(struct acc *a)
{
	uint32_t m = 0, k = 0;

	if (!a->side)
		return;
	for (uint32_t b = 0; b < a->nb; b++)
		m += !f_is_zero(&a->side[b].zz);
	JAC *j = scr_take(a->scr, (size_t)m * sizeof(JAC));
	AFF *p = scr_take(a->scr, (size_t)m * sizeof(AFF));
	if (m && (!j || !p)) {
		a->oom = true;
	} else {
		for (uint32_t b = 0; b < a->nb; b++)
			if (!f_is_zero(&a->side[b].zz))
				XYZZ_TO_JAC(&j[k++], &a->side[b]);
		JAC_BATCH_TO_AFF(p, j, m);
		k = 0;
		for (uint32_t b = 0; b < a->nb; b++) {
			if (f_is_zero(&a->side[b].zz))
				continue;
			acc_put(a, b, &p[k++], false);
			if (a->ne == a->cap)
				acc_flush(a);
		}
		acc_flush(a);
	}
	a->side = NULL;
}

/* Settles every pending add; the last stragglers (all aimed at busy, hot
 * buckets) go to the side buckets rather than costing an inversion each,
 * and the side buckets are folded back: afterwards every bucket is affine. */
static void acc_finish(struct acc *a)
{
	acc_flush(a);
	acc_drain(a);
	acc_flush(a);
	for (uint32_t i = 0; i < a->nq; i++)
		side_add(a, a->q[i].b, a->q[i].p, a->q[i].neg);
	a->nq = 0;
	acc_merge_side(a);
}

/* The curve code allows results to alias inputs (zk/curve/curve_tmpl_pvt.h). */
static inline void xyzz_acc_aff(XYZZ *r, const AFF *p)
{
	XYZZ_ADD_AFF(r, r, p);
}

static inline void xyzz_acc(XYZZ *r, const XYZZ *p)
{
	XYZZ_ADD(r, r, p);
}

/* Σ_b (b+1)·bucket_b by running sums: ~ one mixed and one full add per
 * bucket (24M).  For windows too small for lanes. */
static void reduce_classic(XYZZ *out, const struct acc *a)
{
	XYZZ run, tot;
	bool any = false;

	memset(&run, 0, sizeof(run));
	memset(&tot, 0, sizeof(tot));
	for (uint32_t b = a->nb; b-- > 0;) {
		if (a->st[b] & ST_HAS) {
			xyzz_acc_aff(&run, &a->bkt[b]);
			any = true;
		}
		if (any)
			xyzz_acc(&tot, &run);
	}
	*out = tot;
}

/*
 * Σ_b (b+1)·bucket_b for the affine buckets, with the running sums made
 * batch-affine: the m buckets are cut into L = ceil(m/s) lanes of s (a power
 * of two); each step advances every lane's run_l += B and tot_l += run_l
 * as two batches of L independent affine adds (one inversion each).  Then
 *   Σ = Σ_l tot_l + s·Σ_l l·run_l    (lane l starts at bucket l·s).
 * Cost: 2m batch-affine adds (~7.5M) + 2s inversions + ~3L XYZZ adds,
 * against 24M per bucket for reduce_classic; s ~ sqrt(m)/4 balances the
 * inversions against the lane combine.  Returns -ENOMEM or 0.
 */
static int reduce_lanes(XYZZ *out, const struct acc *a, uint32_t s)
{
	uint32_t m = a->nb, lanes = (m + s - 1) / s;
	struct acc run, tot;
	XYZZ r, lr, lt;

	if (acc_init(&run, lanes, lanes, a->scr) || acc_init(&tot, lanes, lanes, a->scr))
		return -ENOMEM;
	for (uint32_t i = s; i-- > 0;) {
		for (uint32_t l = 0, b = i; l < lanes && b < m; l++, b += s)
			if (a->st[b] & ST_HAS)
				acc_put(&run, l, &a->bkt[b], false);
		acc_flush(&run); /* one add per lane per step: nothing was queued */
		for (uint32_t l = 0; l < lanes; l++)
			if (run.st[l] & ST_HAS)
				acc_put(&tot, l, &run.bkt[l], false);
		acc_flush(&tot);
	}
	memset(&r, 0, sizeof(r));
	memset(&lr, 0, sizeof(lr));
	memset(&lt, 0, sizeof(lt));
	bool any = false;
	for (uint32_t l = lanes; l-- > 0;) {
		if (tot.st[l] & ST_HAS)
			xyzz_acc_aff(&r, &tot.bkt[l]);
		if (l == 0)
			break;
		if (run.st[l] & ST_HAS) {
			xyzz_acc_aff(&lr, &run.bkt[l]);
			any = true;
		}
		if (any)
			xyzz_acc(&lt, &lr); /* lt = Σ_l l·run_l */
	}
	for (uint32_t k = s; k > 1; k >>= 1)
		XYZZ_DBL(&lt, &lt);
	xyzz_acc(&r, &lt);
	*out = r;
	return 0;
}

/* Lane length for m buckets, a power of two near sqrt(m)/4; 0: classic. */
static uint32_t lane_len(uint32_t m)
{
	if (m < 1024)
		return 0;
	uint32_t s = 1;
	while ((uint64_t)(4 * s) * (4 * s) * 2 <= m) /* (4s)^2 <= m/2 */
		s <<= 1;
	return s;
}

static int acc_reduce_weighted(XYZZ *out, const struct acc *a)
{
	uint32_t s = lane_len(a->nb);

	if (s)
		return reduce_lanes(out, a, s);
	reduce_classic(out, a);
	return 0;
}

static void acc_reduce_plain(XYZZ *out, const struct acc *a)
{
	XYZZ tot;

	memset(&tot, 0, sizeof(tot));
	for (uint32_t b = 0; b < a->nb; b++)
		if (a->st[b] & ST_HAS)
			xyzz_acc_aff(&tot, &a->bkt[b]);
	*out = tot;
}

/* Scratch for a batch-affine window of nb buckets and batch cap: the
 * accumulator, its side buckets and their merge, then the lane reduction's
 * two accumulators (taken after the merge, so the sum is an upper bound). */
static size_t affine_task_bytes(uint32_t nb, uint32_t cap)
{
	size_t b = acc_bytes(nb, cap) + side_bytes(nb);
	uint32_t s = lane_len(nb);
	if (s) {
		uint32_t lanes = (nb + s - 1) / s;
		b += 2 * acc_bytes(lanes, lanes);
	}
	return b;
}

/* The largest scratch any task of plan p takes. */
static size_t task_bytes(const struct msm_plan *p, bool big)
{
	size_t b = acc_bytes(ONES_BUCKETS, ONES_BATCH) + side_bytes(ONES_BUCKETS), t;
	uint32_t nb = 1u << (p->c - 1);

	if (!big)
		return b;
	t = p->batch ? affine_task_bytes(nb, p->batch) : SCR_ALIGN((size_t)nb * sizeof(XYZZ));
	b = t > b ? t : b;
	if (p->batch && p->top_batch)
		t = affine_task_bytes(p->top_nb, p->top_batch);
	else
		t = SCR_ALIGN((size_t)p->top_nb * sizeof(XYZZ));
	return t > b ? t : b;
}

struct job {
	const AFF *bases;
	const cz_scalar *sc;
	size_t n;
	struct msm_plan plan;
	JAC *res;         /* nwin·nchunks window results, then plan.nones ones results */
	struct cz_pool *pool;
	char *solo;       /* no pool: one slot of solo_bytes, the tasks run inline */
	size_t slot_bytes;
	atomic_int err;
};

/* The calling task's scratch. */
static struct scr task_scr(struct job *j)
{
	char *m = j->solo ? j->solo : cz_pool_scratch(j->pool);
	return (struct scr){ m, m ? m + j->slot_bytes : NULL };
}

static void range_of(size_t n, size_t parts, size_t k, size_t *lo, size_t *hi)
{
	*lo = n / parts * k + (k < n % parts ? k : n % parts);
	*hi = *lo + n / parts + (k < n % parts);
}

/* Window w over points [lo, hi), XYZZ buckets (small windows). */
static int window_xyzz(struct job *j, unsigned w, size_t lo, size_t hi, XYZZ *out)
{
	const struct msm_plan *p = &j->plan;
	uint32_t nb = w + 1 == p->nwin ? p->top_nb : 1u << (p->c - 1);
	struct scr s = task_scr(j);
	XYZZ *bk = scr_take(&s, (size_t)nb * sizeof(XYZZ));
	XYZZ run, tot;
	AFF t;
	bool any = false;

	if (!bk)
		return -ENOMEM;
	memset(bk, 0, (size_t)nb * sizeof(XYZZ));
	for (size_t i = lo; i < hi; i++) {
		if (msm_class(&j->sc[i]) != 2 || aff_is_inf(&j->bases[i]))
			continue;
		int32_t d = msm_digit(&j->sc[i], p, w);
		if (!d)
			continue;
		const AFF *q = &j->bases[i];
		if (d < 0) {
			t.x = q->x;
			F_NEG(&t.y, &q->y);
			q = &t;
		}
		xyzz_acc_aff(&bk[(d < 0 ? -d : d) - 1], q);
	}
	memset(&run, 0, sizeof(run));
	memset(&tot, 0, sizeof(tot));
	for (uint32_t b = nb; b-- > 0;) {
		if (!f_is_zero(&bk[b].zz)) {
			xyzz_acc(&run, &bk[b]);
			any = true;
		}
		if (any)
			xyzz_acc(&tot, &run);
	}
	*out = tot;
	return 0;
}

/* Window w over points [lo, hi), batch-affine buckets. */
static int window_affine(struct job *j, unsigned w, size_t lo, size_t hi, XYZZ *out)
{
	const struct msm_plan *p = &j->plan;
	struct acc a;
	uint32_t bi[BLOCK];
	size_t pi[BLOCK];
	uint8_t sg[BLOCK];
	struct scr s = task_scr(j);

	uint32_t nb = 1u << (p->c - 1), batch = p->batch;

	if (w + 1 == p->nwin) { /* the top window: as many buckets as digits */
		nb = p->top_nb;
		batch = p->top_batch;
		if (!batch)
			return window_xyzz(j, w, lo, hi, out);
	}
	if (acc_init(&a, nb, batch, &s))
		return -ENOMEM;
	for (size_t i = lo; i < hi;) {
		unsigned m = 0;
		for (; i < hi && m < BLOCK; i++) {
			if (msm_class(&j->sc[i]) != 2 || aff_is_inf(&j->bases[i]))
				continue;
			int32_t d = msm_digit(&j->sc[i], p, w);
			if (!d)
				continue;
			bi[m] = (uint32_t)(d < 0 ? -d : d) - 1;
			sg[m] = d < 0;
			pi[m] = i;
			/* a bucket spans two cache lines: fetch both */
			__builtin_prefetch(&a.bkt[bi[m]]);
			__builtin_prefetch((const char *)&a.bkt[bi[m] + 1] - 1);
			m++;
		}
		for (unsigned t = 0; t < m; t++)
			acc_add(&a, bi[t], &j->bases[pi[t]], sg[t]);
	}
	acc_finish(&a);
	int rc = acc_reduce_weighted(out, &a);
	if (a.oom)
		rc = -ENOMEM;
	return rc;
}

/* Σ of the bases whose scalar is 1, over [lo, hi): round-robin buckets,
 * so consecutive adds never share a bucket and batches never stall. */
static int ones_sum(struct job *j, size_t lo, size_t hi, XYZZ *out)
{
	struct acc a;
	uint32_t b = 0;
	struct scr s = task_scr(j);

	if (acc_init(&a, ONES_BUCKETS, ONES_BATCH, &s))
		return -ENOMEM;
	for (size_t i = lo; i < hi; i++) {
		if (msm_class(&j->sc[i]) != 1 || aff_is_inf(&j->bases[i]))
			continue;
		acc_add(&a, b, &j->bases[i], false);
		b = (b + 1) % ONES_BUCKETS;
	}
	acc_finish(&a);
	acc_reduce_plain(out, &a);
	return a.oom ? -ENOMEM : 0;
}

/* Task t >= ncolt (the column tasks): the ones' sum of its share. */
static inline int job_ones(struct job *j, size_t t, size_t ncolt, XYZZ *r)
{
	size_t lo, hi;

	range_of(j->n, j->plan.nones, t - ncolt, &lo, &hi);
	return ones_sum(j, lo, hi, r);
}

/* Task t's end: its sum r into res[t] (infinity when it failed), its error
 * rc into j->err. */
static inline void job_put(struct job *j, size_t t, int rc, const XYZZ *r)
{
	if (rc)
		atomic_store(&j->err, rc);
	XYZZ_TO_JAC(&j->res[t], r);
}

static void job_task(void *arg, size_t t)
{
	struct job *j = arg;
	const struct msm_plan *p = &j->plan;
	size_t nwt = (size_t)p->nwin * p->nchunks, lo, hi;
	XYZZ r;
	int rc;

	memset(&r, 0, sizeof(r)); /* infinity, should the task fail */
	if (t < nwt) {
		range_of(j->n, p->nchunks, t % p->nchunks, &lo, &hi);
		if (p->batch)
			rc = window_affine(j, (unsigned)(t / p->nchunks), lo, hi, &r);
		else
			rc = window_xyzz(j, (unsigned)(t / p->nchunks), lo, hi, &r);
	} else {
		rc = job_ones(j, t, nwt, &r);
	}
	job_put(j, t, rc, &r);
}

/* Counts the scalars > 1 (nbig) and == 1 (nones) among n. */
static inline void job_count(const cz_scalar *scalars, size_t n, size_t *nbig, size_t *nones)
{
	for (size_t i = 0; i < n; i++) {
		int c = msm_class(&scalars[i]);
		*nbig += c == 2;
		*nones += c == 1;
	}
}

/*
 * Runs ntask tasks over j on j->pool (j->plan and j->slot_bytes set): ncol
 * columns of plan.nchunks results when nct (= ncol·nchunks) is not 0, then
 * the ones' sums; *r = Horner over the columns, top first (c doublings
 * each), plus the ones' sums.  The variable-base MSM's columns are its
 * windows, the fixed-base one's its stride's.  Scratch: grown once per pool
 * to the largest plan seen, then reused (pool.h); without a pool, one block
 * for this call.
 */
static int job_run(JAC *r, struct job *j, void (*task)(void *, size_t), void *arg, unsigned ncol,
		   size_t nct, size_t ntask)
{
	const struct msm_plan *p = &j->plan;
	size_t res_bytes = SCR_ALIGN(ntask * sizeof(JAC));

	if (cz_pool_scratch_reserve(j->pool, j->slot_bytes, res_bytes) == 0) {
		j->res = cz_pool_scratch(j->pool);
	} else if (j->pool) {
		return -ENOMEM;
	} else {
		j->solo = aligned_alloc(64, j->slot_bytes + res_bytes);
		if (!j->solo)
			return -ENOMEM;
		j->res = (JAC *)(j->solo + j->slot_bytes);
	}
	atomic_init(&j->err, 0);
	cz_pool_for(j->pool, ntask, task, arg);
	int rc = atomic_load(&j->err);
	if (rc) {
		free(j->solo);
		return rc;
	}
	JAC acc;
	JAC_SET_INF(&acc);
	for (unsigned w = nct ? ncol : 0; w-- > 0;) {
		if (!JAC_IS_INF(&acc))
			for (unsigned k = 0; k < p->c; k++)
				JAC_DBL(&acc, &acc);
		for (unsigned k = 0; k < p->nchunks; k++)
			JAC_ADD(&acc, &acc, &j->res[(size_t)w * p->nchunks + k]);
	}
	for (size_t t = nct; t < ntask; t++)
		JAC_ADD(&acc, &acc, &j->res[t]);
	free(j->solo);
	*r = acc;
	return 0;
}

int MSM_TUNED_FN(JAC *r, const AFF *bases, const cz_scalar *scalars, size_t n,
		 struct cz_pool *pool, const struct cz_msm_tune *tune)
{
	struct job j = { .bases = bases, .sc = scalars, .n = n, .pool = pool };
	size_t nbig = 0, nones = 0;

	JAC_SET_INF(r);
	job_count(scalars, n, &nbig, &nones);
	if (!nbig && !nones)
		return 0;
	cz_msm_plan_make(&j.plan, nbig, nones, cz_pool_nthreads(pool), sizeof(AFF), tune);
	const struct msm_plan *p = &j.plan;
	size_t nwt = nbig ? (size_t)p->nwin * p->nchunks : 0;
	if (!nbig)
		j.plan.nchunks = 0;
	size_t ntask = nwt + p->nones;
	j.slot_bytes = task_bytes(p, nbig != 0);
	return job_run(r, &j, job_task, &j, p->nwin, nwt, ntask);
}

int MSM_FN(JAC *r, const AFF *bases, const cz_scalar *scalars, size_t n, struct cz_pool *pool)
{
	return MSM_TUNED_FN(r, bases, scalars, n, pool, NULL);
}
