/* SPDX-License-Identifier: MIT */
/* Description: G1/G2 multi-scalar multiplication equals the naive Σ k_i·P_i, for random and edge inputs, at 1-3 threads. */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "selftests/zk_msm_test.h"
#include "zk/msm/msm.h"

#include <string.h>

/* ---- inputs ------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng_state);
}

ZT_SCALAR_RAND(scalar_rand, cz_fr, 1)

static cz_scalar scalar_u64(uint64_t v)
{
	return (cz_scalar){ { v, 0, 0, 0 } };
}

ZT_R_MINUS(scalar_r_minus, cz_fr)

static cz_fr to_fr(const cz_scalar *k)
{
	cz_fr t;
	cz_fr_to_mont(&t, k->l);
	return t;
}

/* n distinct-ish points: a·G + i·b·G (a progression: cheap, and the oracle
 * does not care how the points were made). */
static cz_fr fr_small(void) /* < 2^128 */
{
	return to_fr(&(cz_scalar){ { rnd(), rnd(), 0, 0 } });
}

ZT_POINTS(g1_points, cz_g1, cz_fr, fr_small)
ZT_POINTS(g2_points, cz_g2, cz_fr, fr_small)

/* ---- oracles: Σ k_i·P_i with the curve's scalar multiplication ------------ */

static void g1_naive(cz_g1_jac *r, const cz_g1_affine *b, const cz_scalar *k, size_t n)
{
	cz_g1_jac p, t;
	cz_g1_jac_set_inf(r);
	for (size_t i = 0; i < n; i++) {
		cz_fr f = to_fr(&k[i]);
		cz_g1_jac_from_affine(&p, &b[i]);
		cz_g1_mul(&t, &p, &f);
		cz_g1_jac_add(r, r, &t);
	}
}

static void g2_naive(cz_g2_jac *r, const cz_g2_affine *b, const cz_scalar *k, size_t n)
{
	cz_g2_jac p, t;
	cz_g2_jac_set_inf(r);
	for (size_t i = 0; i < n; i++) {
		cz_fr f = to_fr(&k[i]);
		cz_g2_jac_from_affine(&p, &b[i]);
		cz_g2_mul(&t, &p, &f);
		cz_g2_jac_add(r, r, &t);
	}
}

/* For large n with scalars drawn from a small set {v_0..v_m}: Σ_v v·(Σ P_i). */
static void g1_grouped(cz_g1_jac *r, const cz_g1_affine *b, const uint16_t *which,
		       const cz_scalar *vals, size_t m, size_t n)
{
	cz_g1_jac *sum = malloc(m * sizeof(*sum)), t;
	for (size_t v = 0; v < m; v++)
		cz_g1_jac_set_inf(&sum[v]);
	for (size_t i = 0; i < n; i++)
		cz_g1_jac_add_affine(&sum[which[i]], &sum[which[i]], &b[i]);
	cz_g1_jac_set_inf(r);
	for (size_t v = 0; v < m; v++) {
		cz_fr f = to_fr(&vals[v]);
		cz_g1_mul(&t, &sum[v], &f);
		cz_g1_jac_add(r, r, &t);
	}
	free(sum);
}

static void g2_grouped(cz_g2_jac *r, const cz_g2_affine *b, const uint16_t *which,
		       const cz_scalar *vals, size_t m, size_t n)
{
	cz_g2_jac *sum = malloc(m * sizeof(*sum)), t;
	for (size_t v = 0; v < m; v++)
		cz_g2_jac_set_inf(&sum[v]);
	for (size_t i = 0; i < n; i++)
		cz_g2_jac_add_affine(&sum[which[i]], &sum[which[i]], &b[i]);
	cz_g2_jac_set_inf(r);
	for (size_t v = 0; v < m; v++) {
		cz_fr f = to_fr(&vals[v]);
		cz_g2_mul(&t, &sum[v], &f);
		cz_g2_jac_add(r, r, &t);
	}
	free(sum);
}

/* ---- checks ------------------------------------------------------------- */

static struct cz_pool *pools[4]; /* pools[t]: t threads; pools[1] = NULL (no pool) */

static int g1_check(const cz_g1_affine *b, const cz_scalar *k, size_t n, unsigned threads,
		    const struct cz_msm_tune *tune, const cz_g1_jac *want)
{
	cz_g1_jac got;
	if (cz_msm_g1_tuned(&got, b, k, n, pools[threads], tune))
		return 0;
	return cz_g1_jac_eq(&got, want);
}

static int g2_check(const cz_g2_affine *b, const cz_scalar *k, size_t n, unsigned threads,
		    const struct cz_msm_tune *tune, const cz_g2_jac *want)
{
	cz_g2_jac got;
	if (cz_msm_g2_tuned(&got, b, k, n, pools[threads], tune))
		return 0;
	return cz_g2_jac_eq(&got, want);
}

/* Plans worth forcing: batch-affine with a roomy batch (lane reduction),
 * XYZZ, batch-affine in tiny windows and batches (queue and side buckets
 * busy), and tiny batches with lanes (side buckets next to lanes). */
static const struct cz_msm_tune tunes[] = {
	{ 0, 0, 0, 0 },
	{ 11, 0, 1, 64 },
	{ 8, 0, 2, 0 },
	{ 4, 0, 1, 4 },
	{ 3, 3, 1, 2 },
	{ 12, 2, 1, 2 },
};
#define NTUNES (sizeof(tunes) / sizeof(tunes[0]))

/* Runs the automatic plan at 1..3 threads and each forced plan at one
 * thread (plans 4 and 5 split points into chunks); one TAP point. */
static void g1_case(const char *what, const cz_g1_affine *b, const cz_scalar *k, size_t n)
{
	cz_g1_jac want;
	int ok = 1;
	g1_naive(&want, b, k, n);
	for (unsigned t = 0; t < NTUNES && ok; t++)
		for (unsigned th = 1; th <= (t ? 1 : 3) && ok; th++) {
			ok = g1_check(b, k, n, th, &tunes[t], &want);
			if (!ok)
				ct_diag("g1 %s: plan %u at %u threads differs", what, t, th);
		}
	ct_ok(ok, "g1 %s (n=%zu): auto plan at 1-3 threads and 5 forced plans equal the naive sum", what, n);
}

static void g2_case(const char *what, const cz_g2_affine *b, const cz_scalar *k, size_t n)
{
	cz_g2_jac want;
	int ok = 1;
	g2_naive(&want, b, k, n);
	for (unsigned t = 0; t < NTUNES && ok; t++)
		for (unsigned th = 1; th <= (t ? 1 : 3) && ok; th++) {
			ok = g2_check(b, k, n, th, &tunes[t], &want);
			if (!ok)
				ct_diag("g2 %s: plan %u at %u threads differs", what, t, th);
		}
	ct_ok(ok, "g2 %s (n=%zu): auto plan at 1-3 threads and 5 forced plans equal the naive sum", what, n);
}

#define MAXN 1000

int main(void)
{
	static cz_g1_affine b1[MAXN], e1[MAXN];
	static cz_g2_affine b2[MAXN], e2[MAXN];
	static cz_scalar k[MAXN];
	static const size_t sizes[] = { 1, 2, 3, 17, 100, 1000 };

	ct_plan(6 + 1 + 10 + 4 + 1 + 4 + 2);
	pools[2] = cz_pool_create(2);
	pools[3] = cz_pool_create(3);
	g1_points(b1, MAXN);
	g2_points(b2, MAXN);

	/* Random inputs. */
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		char what[32];
		for (size_t i = 0; i < sizes[s]; i++)
			k[i] = scalar_rand();
		snprintf(what, sizeof(what), "random");
		g1_case(what, b1, k, sizes[s]);
	}

	/* 2^14 points, 256 distinct random scalars: the grouped oracle. */
	{
		size_t n = 1u << 14, m = 256;
		cz_g1_affine *b = malloc(n * sizeof(*b));
		cz_scalar *kk = malloc(n * sizeof(*kk)), vals[256];
		uint16_t *which = malloc(n * sizeof(*which));
		cz_g1_jac want;
		int ok = 1;
		g1_points(b, n);
		for (size_t v = 0; v < m; v++)
			vals[v] = scalar_rand();
		for (size_t i = 0; i < n; i++) {
			which[i] = (uint16_t)(rnd() % m);
			kk[i] = vals[which[i]];
		}
		g1_grouped(&want, b, which, vals, m, n);
		for (unsigned th = 1; th <= 3 && ok; th++)
			ok = g1_check(b, kk, n, th, NULL, &want);
		ok = ok && g1_check(b, kk, n, 2, &(struct cz_msm_tune){ 13, 3, 1, 0 }, &want);
		/* 255 = 17·15: a 15-bit top window with 29677 buckets, partial lane */
		ok = ok && g1_check(b, kk, n, 2, &(struct cz_msm_tune){ 15, 2, 1, 0 }, &want);
		ct_ok(ok, "g1 2^14 points, 256 distinct scalars: 1-3 threads, c = 13 and 15 in chunks equal the grouped sum");
		free(b);
		free(kk);
		free(which);
	}

	/* Edge inputs, G1. */
	size_t n = 300;
	for (size_t i = 0; i < n; i++)
		k[i] = scalar_u64(0);
	g1_case("all-zero scalars", b1, k, n);
	for (size_t i = 0; i < n; i++)
		k[i] = scalar_u64(1);
	g1_case("all-one scalars", b1, k, n);
	for (size_t i = 0; i < n; i++) {
		k[i] = scalar_rand();
		e1[i] = b1[i % 3]; /* three points, each a hundred times */
	}
	g1_case("repeated points, random scalars", e1, k, n);
	for (size_t i = 0; i < n; i++)
		k[i] = i % 2 ? scalar_u64(1) : scalar_u64(5); /* same bucket: doublings */
	g1_case("repeated points, scalars 1 and 5", e1, k, n);
	for (size_t i = 0; i < n; i++) {
		e1[i] = b1[i / 2];
		if (i % 2)
			cz_g1_affine_neg(&e1[i], &e1[i]); /* P, -P: buckets empty again */
		k[i] = i % 4 < 2 ? scalar_u64(7) : scalar_rand();
		if (i % 4 == 3)
			k[i] = k[i - 1];
	}
	g1_case("P and -P with equal scalars", e1, k, n);
	for (size_t i = 0; i < n; i++) {
		e1[i] = b1[i];
		if (i % 5 == 0)
			memset(&e1[i], 0, sizeof(e1[i]));
		k[i] = scalar_rand();
	}
	g1_case("infinity among the bases", e1, k, n);
	for (size_t i = 0; i < n; i++)
		k[i] = scalar_r_minus(1 + i % 2);
	g1_case("scalars r-1 and r-2", b1, k, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = rnd() % 4;
		k[i] = c == 0 ? scalar_u64(0) : c == 1 ? scalar_u64(1) : scalar_rand();
	}
	g1_case("mixed 0, 1 and random scalars", b1, k, n);
	for (size_t i = 0; i < n; i++) {
		k[i] = scalar_r_minus(1 + rnd() % 1000);     /* top bits set, */
		k[i].l[0] ^= (uint64_t)1 << (rnd() % 64);     /* low bits varied, */
		if (k[i].l[3] > scalar_r_minus(1).l[3] - 1)   /* still < r */
			k[i].l[3]--;
	}
	g1_case("scalars with the top bits set", b1, k, n);
	for (size_t i = 0; i < n; i++)
		k[i] = scalar_u64(1 + rnd() % 300); /* small: hot buckets in window 0 */
	g1_case("small scalars 1..300", b1, k, n);

	/* G2. */
	static const size_t sizes2[] = { 1, 5, 40, 200 };
	for (size_t s = 0; s < 4; s++) {
		for (size_t i = 0; i < sizes2[s]; i++)
			k[i] = scalar_rand();
		g2_case("random", b2, k, sizes2[s]);
	}
	/* 2^12 G2 points, 64 distinct scalars: full batches, lanes, norms. */
	{
		size_t nn = 1u << 12, m = 64;
		cz_g2_affine *b = malloc(nn * sizeof(*b));
		cz_scalar *kk = malloc(nn * sizeof(*kk)), vals[64];
		uint16_t *which = malloc(nn * sizeof(*which));
		cz_g2_jac want;
		int ok = 1;
		g2_points(b, nn);
		for (size_t v = 0; v < m; v++)
			vals[v] = scalar_rand();
		for (size_t i = 0; i < nn; i++) {
			which[i] = (uint16_t)(rnd() % m);
			kk[i] = vals[which[i]];
		}
		g2_grouped(&want, b, which, vals, m, nn);
		for (unsigned th = 1; th <= 3 && ok; th++)
			ok = g2_check(b, kk, nn, th, NULL, &want);
		ok = ok && g2_check(b, kk, nn, 2, &(struct cz_msm_tune){ 12, 2, 1, 0 }, &want);
		ct_ok(ok, "g2 2^12 points, 64 distinct scalars: 1-3 threads and c = 12 in chunks equal the grouped sum");
		free(b);
		free(kk);
		free(which);
	}
	n = 100;
	for (size_t i = 0; i < n; i++)
		k[i] = scalar_u64(1);
	g2_case("all-one scalars", b2, k, n);
	for (size_t i = 0; i < n; i++) {
		e2[i] = b2[i % 3];
		if (i % 7 == 0)
			memset(&e2[i], 0, sizeof(e2[i]));
		k[i] = i % 2 ? scalar_u64(1) : scalar_rand();
	}
	g2_case("repeated points, infinity, 1s", e2, k, n);
	for (size_t i = 0; i < n; i++) {
		e2[i] = b2[i / 2];
		if (i % 2)
			cz_g2_affine_neg(&e2[i], &e2[i]);
		k[i] = i % 4 < 2 ? scalar_u64(9) : scalar_r_minus(1 + i);
	}
	g2_case("P and -P, scalars 9 and near r", e2, k, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = rnd() % 3;
		k[i] = c == 0 ? scalar_u64(0) : c == 1 ? scalar_u64(1) : scalar_r_minus(1);
	}
	g2_case("mixed 0, 1 and r-1", b2, k, n);

	/* API edges. */
	{
		cz_g1_jac r1;
		cz_g2_jac r2;
		int ok = cz_msm_g1(&r1, b1, k, 0, NULL) == 0 && cz_g1_jac_is_inf(&r1);
		ok = ok && cz_msm_g2(&r2, b2, k, 0, pools[2]) == 0 && cz_g2_jac_is_inf(&r2);
		ct_ok(ok, "n = 0 gives infinity");
		k[0] = scalar_u64(1);
		cz_g1_jac g;
		cz_g1_jac_from_affine(&g, &b1[0]);
		ok = cz_msm_g1(&r1, b1, k, 1, NULL) == 0 && cz_g1_jac_eq(&r1, &g);
		ct_ok(ok, "n = 1, k = 1 gives the base");
	}

	cz_pool_destroy(pools[2]);
	cz_pool_destroy(pools[3]);
	return ct_exit();
}
