/* SPDX-License-Identifier: MIT */
/* Description: fixed-base MSM tables (zk/msm/msm_fixed.h) on BLS12-381 and BN254, G1 and G2: equal to the naive Σ k_i·P_i and to the variable-base MSM, for many windows and strides, 1-3 threads; the cost model's choice; the vector flush runs. */
/*
 * Oracles: the curve's own scalar multiplication summed point by point
 * (small n), and the variable-base MSM (zk/msm/msm.h, itself checked against
 * the naive sum by zk_msm / zk_bn254_msm) at 2^12.  Written once over the
 * curve and group with a macro.  Run again with CZ_NO_IFMA=1
 * (selftests/zk_msm_fixed_noifma.sh) for the scalar flush.
 */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "selftests/zk_msm_test.h"
#include "zk/msm/fp_ifma.h"
#include "zk/msm/msm_fixed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ct_splitmix64(&rng_state);
}

static struct cz_pool *pools[4]; /* pools[t]: t threads; pools[1] = NULL */

/* (c, stride) pairs: all windows, strides, the smallest and a wide window */
static const unsigned wins[][2] = { { 3, 1 }, { 5, 7 }, { 8, 2 }, { 11, 1 }, { 13, 3 }, { 16, 1 } };
#define NWINS (sizeof(wins) / sizeof(wins[0]))

#define FIXED_TESTS(NAME, CV, G, FR, SHIFT)                                                         \
	ZT_SCALAR_RAND(NAME##_scalar, FR, SHIFT)                                                    \
	ZT_R_MINUS(NAME##_r_minus, FR)                                                              \
	static FR NAME##_fr_odd(void) /* odd, < 2^64 */                                             \
	{                                                                                           \
		FR a;                                                                               \
		FR##_from_u64(&a, rnd() | 1);                                                       \
		return a;                                                                           \
	}                                                                                           \
	ZT_POINTS(NAME##_points, G, FR, NAME##_fr_odd)                                              \
	static void NAME##_naive(G##_jac *r, const G##_affine *b, const cz_scalar *k, size_t n)     \
	{                                                                                           \
		G##_jac p, t;                                                                       \
		G##_jac_set_inf(r);                                                                 \
		for (size_t i = 0; i < n; i++) {                                                    \
			FR f;                                                                       \
			if (!FR##_to_mont(&f, k[i].l))                                              \
				abort();                                                            \
			G##_jac_from_affine(&p, &b[i]);                                             \
			G##_mul(&t, &p, &f);                                                        \
			G##_jac_add(r, r, &t);                                                      \
		}                                                                                   \
	}                                                                                           \
	/* edge scalars and points among random ones; every (c, stride), 1-3     \
	 * threads, forced chunks; a prefix of the table's bases */                           \
	static void NAME##_small(size_t n)                                                          \
	{                                                                                           \
		G##_affine *b = malloc(n * sizeof(*b));                                             \
		cz_scalar *k = malloc(n * sizeof(*k));                                              \
		G##_jac want, wantp, got;                                                           \
		int ok = 1;                                                                         \
		NAME##_points(b, n);                                                                \
		for (size_t i = 0; i < n; i++) {                                                    \
			switch (i % 9) {                                                            \
			case 0: k[i] = (cz_scalar){ { 0 } }; break;                                 \
			case 1: k[i] = (cz_scalar){ { 1 } }; break;                                 \
			case 2: k[i] = NAME##_r_minus(1); break;                                    \
			case 3: k[i] = NAME##_r_minus(2); break;                                    \
			case 4: k[i] = (cz_scalar){ { rnd() & 0xff } }; break;                      \
			default: k[i] = NAME##_scalar();                                            \
			}                                                                           \
			if (i % 11 == 5)                                                            \
				memset(&b[i], 0, sizeof(b[i]));                                     \
			if (i % 13 == 7)                                                            \
				b[i] = b[i - 1];                                                    \
			if (i % 17 == 9)                                                            \
				G##_affine_neg(&b[i], &b[i - 1]);                                   \
		}                                                                                   \
		NAME##_naive(&want, b, k, n);                                                       \
		NAME##_naive(&wantp, b, k, n / 2);                                                  \
		for (unsigned w = 0; w < NWINS && ok; w++) {                                        \
			struct cz_msm_fixed f;                                                      \
			_Atomic uint64_t done = 0;                                                  \
			ok = !CV##_fixed_build(&f, b, n, wins[w][0], wins[w][1], pools[2], &done) && \
			     done == n && f.rows == (f.nwin + f.stride - 1) / f.stride &&           \
			     f.bytes == (uint64_t)n * f.rows * sizeof(G##_affine);                  \
			for (unsigned th = 1; th <= 3 && ok; th++)                                  \
				ok = !CV##_fixed(&got, &f, b, k, n, pools[th]) &&                   \
				     G##_jac_eq(&got, &want);                                       \
			ok = ok && !CV##_fixed_tuned(&got, &f, b, k, n, pools[2],                   \
						     &(struct cz_msm_tune){ 0, 3, 0, 2 }) &&        \
			     G##_jac_eq(&got, &want);                                               \
			ok = ok && !CV##_fixed(&got, &f, b, k, n / 2, pools[3]) &&                  \
			     G##_jac_eq(&got, &wantp);                                              \
			ok = ok && CV##_fixed(&got, &f, b, k, n + 1, NULL) == -EINVAL;              \
			/* the same table filled into the caller's memory */                        \
			struct cz_msm_fixed g;                                                      \
			ok = ok && !cz_msm_fixed_shape(&g, n, sizeof(G##_affine), wins[w][0], wins[w][1]) && \
			     g.bytes == f.bytes && !g.tab && CV##_fixed_fill(&g, b, NULL, NULL) == -EINVAL; \
			void *mem = ok ? calloc(1, g.bytes + 1) : NULL;                             \
			g.tab = mem;                                                                \
			ok = ok && mem && !CV##_fixed_fill(&g, b, pools[3], NULL) &&                \
			     !CV##_fixed(&got, &g, b, k, n, pools[2]) && G##_jac_eq(&got, &want);   \
			free(mem);                                                                  \
			if (!ok)                                                                    \
				ct_diag(#NAME " c = %u stride %u differs", wins[w][0], wins[w][1]); \
			cz_msm_fixed_free(&f);                                                      \
		}                                                                                   \
		ct_ok(ok, #NAME " n = %zu, edge scalars and points: %zu (c, stride) tables at 1-3 threads, " \
			  "forced chunks and a prefix equal the naive sum, also filled into the caller's memory", n, NWINS);               \
		free(b);                                                                            \
		free(k);                                                                            \
	}                                                                                           \
	/* 2^log2 random full-width scalars (and a third of them 0 or 1), the    \
	 * cost model's table against the variable-base MSM; the vector flush   \
	 * ran when the CPU has it */                                                         \
	static void NAME##_big(unsigned log2)                                                       \
	{                                                                                           \
		size_t n = (size_t)1 << log2;                                                       \
		G##_affine *b = malloc(n * sizeof(*b));                                             \
		cz_scalar *k = malloc(n * sizeof(*k));                                              \
		G##_jac want, got;                                                                  \
		struct cz_msm_fixed f;                                                              \
		unsigned c = 0, s = 0;                                                              \
		NAME##_points(b, n);                                                                \
		for (size_t i = 0; i < n; i++)                                                      \
			k[i] = i % 3 == 0 ? (cz_scalar){ { rnd() & 1 } } : NAME##_scalar();         \
		int ok = cz_msm_fixed_choose(n, 2, sizeof(G##_affine), UINT64_MAX, &c, &s) == 1;   \
		ok = ok && !CV(&want, b, k, n, pools[2]) &&                                         \
		     !CV##_fixed_build(&f, b, n, c, s, pools[2], NULL);                             \
		unsigned long fl0 = cz_msm_ifma_flush_count();                                      \
		for (unsigned th = 1; th <= 3 && ok; th++)                                          \
			ok = !CV##_fixed(&got, &f, b, k, n, pools[th]) && G##_jac_eq(&got, &want);  \
		bool vec = cz_msm_ifma_flush_count() > fl0;                                         \
		ok = ok && vec == cz_ifma_on;                                                       \
		cz_msm_fixed_free(&f);                                                              \
		ct_ok(ok, #NAME " 2^%u: the chosen table (c = %u, stride %u) equals the variable-base " \
			  "MSM at 1-3 threads (vector flush %s)", log2, c, s, vec ? "ran" : "off");   \
		free(b);                                                                            \
		free(k);                                                                            \
	}

FIXED_TESTS(bls_g1, cz_msm_g1, cz_g1, cz_fr, 1)
FIXED_TESTS(bls_g2, cz_msm_g2, cz_g2, cz_fr, 1)
FIXED_TESTS(bn_g1, cz_bn254_msm_g1, cz_bn254_g1, cz_bn254_fr, 2)
FIXED_TESTS(bn_g2, cz_bn254_msm_g2, cz_bn254_g2, cz_bn254_fr, 2)

static void choose(void)
{
	unsigned c = 0, s = 0;
	int ok = cz_msm_fixed_choose(1u << 16, 2, 64, UINT64_MAX, &c, &s) == 1;
	uint64_t all = cz_msm_fixed_bytes(1u << 16, 64, c, s);
	ok = ok && s >= 1 && c >= 14 && all > 0 && all <= (uint64_t)(1u << 16) * 64 * ((255 + c - 1) / c);
	ct_diag("2^16 BN254 G1, 2 threads, no memory limit: c = %u, stride %u, %llu bytes", c, s,
		(unsigned long long)all);
	unsigned c2 = 0, s2 = 0;
	uint64_t half = all / 2;
	ok = ok && cz_msm_fixed_choose(1u << 16, 2, 64, half, &c2, &s2) == 1 &&
	     cz_msm_fixed_bytes(1u << 16, 64, c2, s2) <= half;
	ct_diag("with at most %llu bytes: c = %u, stride %u", (unsigned long long)half, c2, s2);
	ok = ok && cz_msm_fixed_choose(1u << 16, 2, 64, 0, &c, &s) == 0;
	ok = ok && cz_msm_fixed_bytes(10, 64, 2, 1) == 0 && cz_msm_fixed_bytes(10, 64, 8, 0) == 0 &&
	     cz_msm_fixed_bytes(10, 64, 8, 32) == 10 * 64;
	struct cz_msm_fixed f;
	cz_g1_affine b = cz_g1_generator;
	ok = ok && cz_msm_g1_fixed_build(&f, &b, 1, 2, 1, NULL, NULL) == -EINVAL &&
	     cz_msm_g1_fixed_build(&f, &b, 1, 8, 33, NULL, NULL) == -EINVAL && !f.tab;
	ct_ok(ok, "cost model: a table at 2^16, a smaller one within half the memory, none in 0 bytes; "
		  "bad window or stride refused");
}

int main(void)
{
	ct_plan(4 * 2 + 4 + 1);
	pools[2] = cz_pool_create(2);
	pools[3] = cz_pool_create(3);
	bls_g1_small(37);
	bls_g1_small(300);
	bn_g1_small(37);
	bn_g1_small(300);
	bls_g2_small(37);
	bls_g2_small(120);
	bn_g2_small(37);
	bn_g2_small(120);
	bls_g1_big(12);
	bn_g1_big(12);
	bls_g2_big(10);
	bn_g2_big(10);
	choose();
	cz_pool_destroy(pools[2]);
	cz_pool_destroy(pools[3]);
	return ct_exit();
}
