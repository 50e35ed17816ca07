/* SPDX-License-Identifier: MIT */
/* Description: BN254 G1/G2 multi-scalar multiplication equals the naive sum of k_i·P_i, for random and edge inputs, forced plans, 1-3 threads. */
/*
 * The oracle is the curve's scalar multiplication (zk/curve/bn254_g1.c, g2.c,
 * checked against ffjavascript by zk_bn254_g1/g2) summed point by point;
 * for 2^12 points with scalars from a small set, the grouped sum
 * Σ_v v·(Σ P_i).  Written once over the group with a macro, for G1 and G2.
 */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "selftests/zk_msm_test.h"
#include "zk/msm/bn254_msm.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng_state);
}

ZT_SCALAR_RAND(scalar_rand, cz_bn254_fr, 2)
ZT_R_MINUS(scalar_r_minus, cz_bn254_fr)

static cz_bn254_fr to_fr(const cz_scalar *k)
{
	cz_bn254_fr t;
	if (!cz_bn254_fr_to_mont(&t, k->l))
		abort();
	return t;
}

static cz_bn254_fr fr_small(void) /* < 2^128 */
{
	return to_fr(&(cz_scalar){ { rnd(), rnd(), 0, 0 } });
}

static struct cz_pool *pools[4]; /* pools[t]: t threads; pools[1] = NULL (no pool) */

static const struct cz_msm_tune tunes[] = {
	{ 0, 0, 0, 0 }, { 11, 0, 1, 64 }, { 8, 0, 2, 0 }, { 4, 0, 1, 4 }, { 3, 3, 1, 2 },
	{ 12, 2, 1, 2 },
};
#define NTUNES (sizeof(tunes) / sizeof(tunes[0]))

#define MSM_TESTS(G)                                                                          \
	/* n points a·G + i·b·G (distinct, cheap to make) */                                  \
	ZT_POINTS(G##_points, cz_bn254_##G, cz_bn254_fr, fr_small)                            \
	static void G##_naive(cz_bn254_##G##_jac *r, const cz_bn254_##G##_affine *b,         \
			      const cz_scalar *k, size_t n)                                   \
	{                                                                                     \
		cz_bn254_##G##_jac p, t;                                                      \
		cz_bn254_##G##_jac_set_inf(r);                                                \
		for (size_t i = 0; i < n; i++) {                                              \
			cz_bn254_fr f = to_fr(&k[i]);                                         \
			cz_bn254_##G##_jac_from_affine(&p, &b[i]);                            \
			cz_bn254_##G##_mul(&t, &p, &f);                                       \
			cz_bn254_##G##_jac_add(r, r, &t);                                     \
		}                                                                             \
	}                                                                                     \
	/* the automatic plan at 1..3 threads, each forced plan at one: one point */          \
	static void G##_case(const char *what, const cz_bn254_##G##_affine *b,               \
			     const cz_scalar *k, size_t n)                                    \
	{                                                                                     \
		cz_bn254_##G##_jac want, got;                                                 \
		int ok = 1;                                                                   \
		G##_naive(&want, b, k, n);                                                    \
		for (unsigned t = 0; t < NTUNES && ok; t++)                                   \
			for (unsigned th = 1; th <= (t ? 1 : 3) && ok; th++) {                \
				ok = !cz_bn254_msm_##G##_tuned(&got, b, k, n, pools[th],      \
							       &tunes[t]) &&                  \
				     cz_bn254_##G##_jac_eq(&got, &want);                      \
				if (!ok)                                                      \
					ct_diag(#G " %s: plan %u at %u threads differs", what, t, \
						th);                                          \
			}                                                                     \
		ct_ok(ok, #G " %s (n=%zu): auto plan at 1-3 threads and 5 forced plans equal the naive sum", \
		      what, n);                                                               \
	}                                                                                     \
	/* 0, 1, r - 1, r - 2 scalars, infinity, repeated points, P and -P */                 \
	static void G##_edges(void)                                                           \
	{                                                                                     \
		enum { M = 64 };                                                              \
		cz_bn254_##G##_affine b[M];                                                   \
		cz_scalar k[M];                                                               \
		G##_points(b, M);                                                             \
		for (size_t i = 0; i < M; i++) {                                              \
			switch (i % 8) {                                                      \
			case 0: k[i] = (cz_scalar){ { 0 } }; break;                           \
			case 1: k[i] = (cz_scalar){ { 1 } }; break;                           \
			case 2: k[i] = scalar_r_minus(1); break;                              \
			case 3: k[i] = scalar_r_minus(2); break;                              \
			default: k[i] = scalar_rand();                                        \
			}                                                                     \
			if (i % 11 == 5)                                                      \
				memset(&b[i], 0, sizeof(b[i])); /* infinity */                \
			if (i % 13 == 7)                                                      \
				b[i] = b[i - 1]; /* repeated */                               \
			if (i % 17 == 9)                                                      \
				cz_bn254_##G##_affine_neg(&b[i], &b[i - 1]); /* P, -P */      \
		}                                                                             \
		G##_case("edge scalars and points", b, k, M);                                 \
		for (size_t i = 0; i < M; i++)                                                \
			k[i] = (cz_scalar){ { i % 3 == 0 } }; /* only 0 and 1 */              \
		G##_case("scalars 0 and 1", b, k, M);                                         \
	}

MSM_TESTS(g1)
MSM_TESTS(g2)

/* 2^12 G1 points, 64 distinct scalars: Σ_v v·(Σ P_i) */
static void g1_grouped(void)
{
	size_t n = 1u << 12, m = 64;
	cz_bn254_g1_affine *b = malloc(n * sizeof(*b));
	cz_scalar *k = malloc(n * sizeof(*k)), vals[64];
	uint16_t *which = malloc(n * sizeof(*which));
	cz_bn254_g1_jac sum[64], want, got, t;
	int ok = 1;

	g1_points(b, n);
	for (size_t v = 0; v < m; v++) {
		vals[v] = scalar_rand();
		cz_bn254_g1_jac_set_inf(&sum[v]);
	}
	for (size_t i = 0; i < n; i++) {
		which[i] = (uint16_t)(rnd() % m);
		k[i] = vals[which[i]];
		cz_bn254_g1_jac_add_affine(&sum[which[i]], &sum[which[i]], &b[i]);
	}
	cz_bn254_g1_jac_set_inf(&want);
	for (size_t v = 0; v < m; v++) {
		cz_bn254_fr f = to_fr(&vals[v]);
		cz_bn254_g1_mul(&t, &sum[v], &f);
		cz_bn254_g1_jac_add(&want, &want, &t);
	}
	for (unsigned th = 1; th <= 3 && ok; th++)
		ok = !cz_bn254_msm_g1(&got, b, k, n, pools[th]) && cz_bn254_g1_jac_eq(&got, &want);
	ok = ok && !cz_bn254_msm_g1_tuned(&got, b, k, n, pools[2], &(struct cz_msm_tune){ 13, 3, 1, 0 }) &&
	     cz_bn254_g1_jac_eq(&got, &want);
	ok = ok && !cz_bn254_msm_g1_tuned(&got, b, k, n, NULL, &(struct cz_msm_tune){ 15, 0, 1, 0 }) &&
	     cz_bn254_g1_jac_eq(&got, &want);
	ct_ok(ok, "g1 2^12 points, 64 distinct scalars: 1-3 threads, c = 13 in chunks, c = 15 equal the grouped sum");
	free(b);
	free(k);
	free(which);
}

int main(void)
{
	enum { MAXN = 1000 };
	static cz_bn254_g1_affine b1[MAXN];
	static cz_bn254_g2_affine b2[MAXN];
	static cz_scalar k[MAXN];
	static const size_t s1[] = { 1, 2, 3, 17, 100, 1000 }, s2[] = { 1, 17, 200 };

	ct_plan(6 + 3 + 2 + 2 + 1 + 1);
	pools[2] = cz_pool_create(2);
	pools[3] = cz_pool_create(3);
	g1_points(b1, MAXN);
	g2_points(b2, MAXN);
	for (size_t s = 0; s < sizeof(s1) / sizeof(s1[0]); s++) {
		for (size_t i = 0; i < s1[s]; i++)
			k[i] = scalar_rand();
		g1_case("random", b1, k, s1[s]);
	}
	for (size_t s = 0; s < sizeof(s2) / sizeof(s2[0]); s++) {
		for (size_t i = 0; i < s2[s]; i++)
			k[i] = scalar_rand();
		g2_case("random", b2, k, s2[s]);
	}
	g1_edges();
	g2_edges();
	g1_grouped();
	cz_bn254_g1_jac r;
	int ok = !cz_bn254_msm_g1(&r, b1, k, 0, NULL) && cz_bn254_g1_jac_is_inf(&r);
	k[0] = (cz_scalar){ { 1 } };
	ok = ok && !cz_bn254_msm_g1(&r, b1, k, 1, NULL) && cz_bn254_g1_jac_eq_affine(&r, &b1[0]);
	ct_ok(ok, "n = 0 gives infinity; n = 1, k = 1 gives the base");
	cz_pool_destroy(pools[2]);
	cz_pool_destroy(pools[3]);
	return ct_exit();
}
