/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_ifma_tmpl_pvt.h — the MSM's batch-affine flush (zk/msm/msm_tmpl_pvt.h,
 * acc_flush) FV_L additions at a time (8 on zmm, 4 on ymm) on the vector
 * field of zk/field/fpv_tmpl_pvt.h.  Private to the vector instance files
 * (zk/msm/fpv_inst_tmpl_pvt.h); include after zk/field/fpv_tmpl_pvt.h, inside its target
 * pragma.  The instance defines:
 *   FV_ST, FV_SMUL(r, a, b), FV_SINV(r, a)   the scalar field, for the one
 *                                            inversion per batch
 * and gets fv_g1_flush, fv_g2_flush (static: the instance exports them in
 * its struct cz_fpv_ops).
 *
 * Entries are struct msm_ent (zk/msm/msm_pvt.h): bucket index, point, and the
 * doubling / negation flags acc_put decided.  Lane k of group g is entry
 * FV_L·g + k, so the batch inversion's prefix products run as FV_L
 * independent chains (one per lane) and meet in a scalar Montgomery trick
 * over the FV_L lane products.  Points are gathered from the buckets and
 * bases (one vpgatherqq per 64-bit word), results scattered back; a bucket
 * has at most one add per batch, so no two lanes write the same one.
 *
 * Each formula is the scalar one (same λ, same special cases: the
 * doubling's 3x^2/2y, the negated point's y), and the results are reduced
 * to the canonical residue before the scatter, so buckets are bit-for-bit
 * what the scalar path writes.
 *
 * Scratch: per group of FV_L, the denominators (or norms) and the prefix
 * products, fv each (G2: the Fp2 denominators, their norms and the
 * prefix products): FV_GROUP_BYTES_G1 / _G2 per group.
 */

/* Flushes run (tests check the vector path ran); relaxed, once a batch. */
static _Atomic unsigned long fv_flushes;

#define FV_GROUP_BYTES_G1 (2 * sizeof(fv))
#define FV_GROUP_BYTES_G2 (sizeof(fv2) + 2 * sizeof(fv))

/* Lane mask, bucket and point offsets (bytes from bkt) of group g. */
static inline __mmask8 fv_group(const struct msm_ent *e, uint32_t n, uint32_t g, size_t aff,
				const void *bkt, fvw *bi, fvw *pi, __mmask8 *dbl,
				__mmask8 *neg)
{
	int64_t b[FV_L] = { 0 }, p[FV_L] = { 0 };
	__mmask8 m = 0, d = 0, s = 0;
	for (uint32_t k = 0; k < FV_L && FV_L * g + k < n; k++) {
		const struct msm_ent *x = &e[FV_L * g + k];
		b[k] = (int64_t)((size_t)x->b * aff);
		p[k] = (int64_t)((uintptr_t)x->p - (uintptr_t)bkt);
		m |= (__mmask8)(1u << k);
		d |= (__mmask8)((unsigned)x->dbl << k);
		s |= (__mmask8)((unsigned)x->neg << k);
	}
	*bi = fvw_loadu(b);
	*pi = fvw_loadu(p);
	*dbl = d;
	*neg = s;
	return m;
}

/* The FV_L lane products (< 2m) to their inverses: one scalar inversion. */
static inline void fv_lane_inv(fv *inv, const fv *prod)
{
	fv c;
	fvw w[FV_SN];
	FV_ST pk[FV_L], ck[FV_L], iv, ik[FV_L];
	uint64_t lanes[FV_SN][FV_L];

	fv_canon(&c, prod, 2);
	fv_to64(w, &c);
	for (int i = 0; i < FV_SN; i++)
		fvw_storeu(lanes[i], w[i]);
	for (int k = 0; k < FV_L; k++)
		for (int i = 0; i < FV_SN; i++)
			pk[k].l[i] = lanes[i][k];
	ck[0] = pk[0];
	for (int k = 1; k < FV_L; k++)
		FV_SMUL(&ck[k], &ck[k - 1], &pk[k]);
	FV_SINV(&iv, &ck[FV_L - 1]);
	for (int k = FV_L - 1; k > 0; k--) {
		FV_SMUL(&ik[k], &iv, &ck[k - 1]);
		FV_SMUL(&iv, &iv, &pk[k]);
	}
	ik[0] = iv;
	for (int k = 0; k < FV_L; k++)
		for (int i = 0; i < FV_SN; i++)
			lanes[i][k] = ik[k].l[i];
	for (int i = 0; i < FV_SN; i++)
		w[i] = fvw_loadu(lanes[i]);
	fv_from64(inv, w);
}

/* 3x^2 from x < m: x·(3x), operands x < m and 3x < 3m (3 <= FV_HEAD). */
static inline void fv_three_sq(fv *r, const fv *x)
{
	fv t;
	fv_add(&t, x, x);
	fv_add(&t, &t, x);
	fv_mul(r, x, &t);
}

static void fv_g1_flush(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch)
{
	atomic_fetch_add_explicit(&fv_flushes, 1, memory_order_relaxed);
	const size_t aff = 2 * 8 * FV_SN, yo = 8 * FV_SN;
	uint32_t ng = (n + FV_L - 1) / FV_L;
	fv *den = scratch, *pre = den + ng;
	fv acc, one, xb, xp, yb, yp, d, t, lam, x3, y3;
	fvw bi, pi;
	__mmask8 m, dbl, neg;

	fv_set_one(&one);
	acc = one;
	for (uint32_t g = 0; g < ng; g++) {
		m = fv_group(e, n, g, aff, bkt, &bi, &pi, &dbl, &neg);
		fv_gather(&xb, m, bi, bkt);
		fv_gather(&xp, m, pi, bkt);
		fv_sub(&d, &xp, &xb, 1);               /* < 2m */
		if (dbl) {
			fv_gather(&yb, dbl, bi, (const char *)bkt + yo);
			fv_add(&t, &yb, &yb);
			fv_blend(&d, dbl, &d, &t);
		}
		fv_blend(&d, (__mmask8)~m, &d, &one);    /* idle lanes: 1 */
		den[g] = d;
		pre[g] = acc;
		fv_mul(&acc, &acc, &d);
	}
	fv inv;
	fv_lane_inv(&inv, &acc);
	for (uint32_t g = ng; g-- > 0;) {
		m = fv_group(e, n, g, aff, bkt, &bi, &pi, &dbl, &neg);
		fv_mul(&t, &inv, &pre[g]);             /* 1/d */
		fv_mul(&inv, &inv, &den[g]);
		fv_gather(&xb, m, bi, bkt);
		fv_gather(&yb, m, bi, (const char *)bkt + yo);
		fv_gather(&xp, m, pi, bkt);
		fv_gather(&yp, m, pi, (const char *)bkt + yo);
		if (neg) {
			fv_set_zero(&d);
			fv_sub(&d, &d, &yp, 1);        /* m - y <= m */
			fv_blend(&yp, neg, &yp, &d);
		}
		fv_sub(&d, &yp, &yb, 1);               /* <= 2m */
		if (dbl) {
			fv_three_sq(&lam, &xb);
			fv_blend(&d, dbl, &d, &lam);
		}
		fv_mul(&lam, &d, &t);                  /* < 2m */
		fv_sqr(&x3, &lam);
		fv_add(&d, &xb, &xp);                  /* < 2m */
		fv_sub(&x3, &x3, &d, 2);               /* < 4m */
		fv_canon(&x3, &x3, 4);
		fv_sub(&d, &xb, &x3, 1);               /* < 2m */
		fv_mul(&y3, &lam, &d);
		fv_sub(&y3, &y3, &yb, 1);              /* < 3m */
		fv_canon(&y3, &y3, 4);
		fv_scatter(bkt, m, bi, &x3);
		fv_scatter((char *)bkt + yo, m, bi, &y3);
	}
}

/* Fp2 points: x.c0, x.c1, y.c0, y.c1, FV_SN words each.  The batch
 * inversion runs on norms N(d) = d0^2 + d1^2 in the base field, like the
 * scalar path (zk/msm/msm_g2.c). */
static inline void fv2_gather(fv2 *r, __mmask8 k, fvw idx, const void *base)
{
	fv_gather(&r->c0, k, idx, base);
	fv_gather(&r->c1, k, idx, (const char *)base + 8 * FV_SN);
}

static inline void fv2_scatter(void *base, __mmask8 k, fvw idx, const fv2 *a)
{
	fv_scatter(base, k, idx, &a->c0);
	fv_scatter((char *)base + 8 * FV_SN, k, idx, &a->c1);
}

static inline void fv2_blend(fv2 *r, __mmask8 k, const fv2 *a, const fv2 *b)
{
	fv_blend(&r->c0, k, &a->c0, &b->c0);
	fv_blend(&r->c1, k, &a->c1, &b->c1);
}

static void fv_g2_flush(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch)
{
	atomic_fetch_add_explicit(&fv_flushes, 1, memory_order_relaxed);
	const size_t aff = 4 * 8 * FV_SN, yo = 2 * 8 * FV_SN;
	uint32_t ng = (n + FV_L - 1) / FV_L;
	fv2 *den = scratch;
	fv *nrm = (fv *)(den + ng), *pre = nrm + ng;
	fv acc, one, nr, s;
	fv2 xb, xp, yb, yp, d, t, lam, x3, y3;
	fvw bi, pi;
	__mmask8 m, dbl, neg;

	fv_set_one(&one);
	acc = one;
	for (uint32_t g = 0; g < ng; g++) {
		m = fv_group(e, n, g, aff, bkt, &bi, &pi, &dbl, &neg);
		fv2_gather(&xb, m, bi, bkt);
		fv2_gather(&xp, m, pi, bkt);
		fv_sub(&d.c0, &xp.c0, &xb.c0, 1);
		fv_sub(&d.c1, &xp.c1, &xb.c1, 1);
		if (dbl) {
			fv2_gather(&yb, dbl, bi, (const char *)bkt + yo);
			fv_add(&t.c0, &yb.c0, &yb.c0);
			fv_add(&t.c1, &yb.c1, &yb.c1);
			fv2_blend(&d, dbl, &d, &t);
		}
		fv_blend(&d.c0, (__mmask8)~m, &d.c0, &one); /* idle lanes: 1, norm 1 */
		fv_set_zero(&s);
		fv_blend(&d.c1, (__mmask8)~m, &d.c1, &s);
		fv_sqr(&nr, &d.c0);
		fv_sqr(&s, &d.c1);
		fv_add(&nr, &nr, &s);                      /* < 4m */
		if (fv_c.head < 8)
			fv_csub(&nr, &nr, 2);
		den[g] = d;
		nrm[g] = nr;
		pre[g] = acc;
		fv_mul(&acc, &acc, &nr);
	}
	fv inv, ni;
	fv_lane_inv(&inv, &acc);
	for (uint32_t g = ng; g-- > 0;) {
		m = fv_group(e, n, g, aff, bkt, &bi, &pi, &dbl, &neg);
		fv_mul(&ni, &inv, &pre[g]);                /* 1/N(d) */
		fv_mul(&inv, &inv, &nrm[g]);
		/* 1/d = (d0 - d1·u)/N(d) */
		fv_mul(&t.c0, &den[g].c0, &ni);
		fv_mul(&s, &den[g].c1, &ni);
		fv_set_zero(&t.c1);
		fv_sub(&t.c1, &t.c1, &s, 2);               /* <= 2m */
		fv2_gather(&xb, m, bi, bkt);
		fv2_gather(&yb, m, bi, (const char *)bkt + yo);
		fv2_gather(&xp, m, pi, bkt);
		fv2_gather(&yp, m, pi, (const char *)bkt + yo);
		if (neg) {
			fv2 z;
			fv_set_zero(&z.c0);
			fv_sub(&z.c1, &z.c0, &yp.c1, 1);
			fv_sub(&z.c0, &z.c0, &yp.c0, 1);
			fv2_blend(&yp, neg, &yp, &z);
		}
		fv_sub(&d.c0, &yp.c0, &yb.c0, 1);          /* <= 2m */
		fv_sub(&d.c1, &yp.c1, &yb.c1, 1);
		if (dbl) {
			/* 3x^2 = x·(3x): schoolbook, x < m and 3x < 3m */
			fv2 x3b;
			fv a0, a1, b0, b1;
			fv_add(&x3b.c0, &xb.c0, &xb.c0);
			fv_add(&x3b.c0, &x3b.c0, &xb.c0);
			fv_add(&x3b.c1, &xb.c1, &xb.c1);
			fv_add(&x3b.c1, &x3b.c1, &xb.c1);
			fv_mul(&a0, &xb.c0, &x3b.c0);
			fv_mul(&a1, &xb.c1, &x3b.c1);
			fv_mul(&b0, &xb.c0, &x3b.c1);
			fv_mul(&b1, &xb.c1, &x3b.c0);
			fv_sub(&lam.c0, &a0, &a1, 2);      /* < 4m */
			fv_csub(&lam.c0, &lam.c0, 2);
			fv_add(&lam.c1, &b0, &b1);         /* < 4m */
			fv_csub(&lam.c1, &lam.c1, 2);
			fv2_blend(&d, dbl, &d, &lam);
		}
		fv2_mul(&lam, &d, &t);                     /* < 2m */
		fv2_sqr(&x3, &lam);
		fv_add(&s, &xb.c0, &xp.c0);
		fv_sub(&x3.c0, &x3.c0, &s, 2);             /* < 4m */
		fv_canon(&x3.c0, &x3.c0, 4);
		fv_add(&s, &xb.c1, &xp.c1);
		fv_sub(&x3.c1, &x3.c1, &s, 2);
		fv_canon(&x3.c1, &x3.c1, 4);
		fv_sub(&d.c0, &xb.c0, &x3.c0, 1);          /* < 2m */
		fv_sub(&d.c1, &xb.c1, &x3.c1, 1);
		fv2_mul(&y3, &lam, &d);
		fv_sub(&y3.c0, &y3.c0, &yb.c0, 1);         /* < 3m */
		fv_canon(&y3.c0, &y3.c0, 4);
		fv_sub(&y3.c1, &y3.c1, &yb.c1, 1);
		fv_canon(&y3.c1, &y3.c1, 4);
		fv2_scatter(bkt, m, bi, &x3);
		fv2_scatter((char *)bkt + yo, m, bi, &y3);
	}
}
