/* SPDX-License-Identifier: MIT */
/* Description: the MSM with the AVX-512 IFMA flush (8 and 4 lanes) equals the MSM with the scalar one (and the vector path ran), BLS12-381 and BN254 G1 and G2, on random, 0/1-heavy, repeated-point, P/-P and infinity inputs at several sizes and plans. */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "selftests/zk_msm_test.h"
#include "zk/msm/fp_ifma.h"
#include "zk/msm/bn254_msm.h"
#include "zk/msm/msm.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x13198a2e03707344ull;

static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

/* Uniform scalars < r and small field elements, per curve. */
#define SCALARS(PFX, FR, TOP_SHIFT)                                                     \
	ZT_SCALAR_RAND(PFX##scalar_rand, FR, TOP_SHIFT)                                 \
	static FR PFX##fr_small(void)                                                   \
	{                                                                               \
		FR f;                                                                   \
		cz_scalar k = { { rnd(), rnd(), 0, 0 } };                               \
		FR##_to_mont(&f, k.l);                                                  \
		return f;                                                               \
	}

SCALARS(bls_, cz_fr, 1)
SCALARS(bn_, cz_bn254_fr, 2)

/* n points a·G + i·b·G (distinct, cheap to make). */
ZT_POINTS(g1_points, cz_g1, cz_fr, bls_fr_small)
ZT_POINTS(g2_points, cz_g2, cz_fr, bls_fr_small)
ZT_POINTS(bn254_g1_points, cz_bn254_g1, cz_bn254_fr, bn_fr_small)
ZT_POINTS(bn254_g2_points, cz_bn254_g2, cz_bn254_fr, bn_fr_small)

enum kind { RANDOM, ZERO_ONE, REPEATED, PLUS_MINUS, INFINITY_MIX, NKINDS };
static const char *kind_name[] = { "random", "0/1-heavy", "repeated points",
				   "P and -P", "infinity among the bases" };

/* Scalars and a permutation of the bases for one kind of input; base
 * indices into the pool of distinct points (negated / infinity via flags). */
static void make_case(enum kind kd, size_t n, cz_scalar *k, size_t *src, uint8_t *neg, uint8_t *inf,
		      cz_scalar (*scalar_rand)(void))
{
	for (size_t i = 0; i < n; i++) {
		k[i] = scalar_rand();
		src[i] = i;
		neg[i] = inf[i] = 0;
		switch (kd) {
		case ZERO_ONE: {
			uint64_t r = rnd() % 10;
			if (r < 4)
				k[i] = (cz_scalar){ { 0, 0, 0, 0 } };
			else if (r < 8)
				k[i] = (cz_scalar){ { 1, 0, 0, 0 } };
			break;
		}
		case REPEATED: /* 16 distinct points, small scalar set: equal points in a bucket */
			src[i] = rnd() % 16;
			if (rnd() % 2)
				k[i] = (cz_scalar){ { 1 + rnd() % 5, 0, 0, 0 } };
			break;
		case PLUS_MINUS: /* pairs P, -P: every other pair with the same
				  * scalar (buckets empty out), the rest adds -P */
			src[i] = i / 2;
			neg[i] = i % 2;
			if (i % 2 && i % 4 == 1)
				k[i] = k[i - 1];
			break;
		case INFINITY_MIX:
			inf[i] = rnd() % 3 == 0;
			break;
		default:
			break;
		}
	}
}

static struct cz_pool *pool2;

/* Plans: the automatic one, a big batch (long vector flushes), a small
 * batch in small windows (flushes just over the vector minimum, queue and
 * side buckets busy). */
static const struct cz_msm_tune tunes[] = {
	{ 0, 0, 0, 0 },
	{ 10, 0, 1, 128 },
	{ 6, 2, 1, 17 },
	{ 8, 0, 1, 32 },
};
#define NTUNES 4

/* One TAP point per (group, kind, size): every plan at 1 and 2 threads,
 * scalar flush, the 8-lane vector flush and the AVX2 one, and at 1 thread
 * the 4-lane IFMA one too; all results equal; the vector paths ran (and
 * did not when forced off). */
#define MSM_CASE(G, PFX, MSM, POINTS, NEGFN, SCALAR_RAND)                                     \
	static void G##_case(enum kind kd, size_t n)                                     \
	{                                                                                \
		PFX##_affine *pool = malloc(n * sizeof(*pool)), *b = malloc(n * sizeof(*b)); \
		cz_scalar *k = malloc(n * sizeof(*k));                                   \
		size_t *src = malloc(n * sizeof(*src));                                  \
		uint8_t *ng = malloc(n), *inf = malloc(n);                               \
		int ok = 1;                                                              \
		unsigned long fv = 0, fa = 0;                                            \
		POINTS(pool, n);                                                         \
		make_case(kd, n, k, src, ng, inf, SCALAR_RAND);                          \
		for (size_t i = 0; i < n; i++) {                                         \
			b[i] = pool[src[i]];                                             \
			if (ng[i])                                                       \
				NEGFN(&b[i].y, &b[i].y);                                 \
			if (inf[i])                                                      \
				memset(&b[i], 0, sizeof(b[i]));                          \
		}                                                                        \
		for (unsigned t = 0; t < NTUNES && ok; t++)                              \
			for (int th = 1; th <= 2 && ok; th++) {                          \
				PFX##_jac rv, rs, r4, ra;                                \
				struct cz_pool *pl = th == 2 ? pool2 : NULL;             \
				int e3 = 0, eq4 = 1, eqa = 1;                            \
				cz_ifma_force_off(false);                                \
				cz_ifma_set_lanes(8);                                    \
				unsigned long a0 = cz_msm_ifma_flush_count();            \
				int e1 = MSM##_tuned(&rv, b, k, n, pl, &tunes[t]);\
				if (th == 1 && cz_ifma_set_lanes(4)) {                   \
					e3 = MSM##_tuned(&r4, b, k, n, pl, &tunes[t]); \
					eq4 = PFX##_jac_eq(&r4, &rv);                    \
					cz_ifma_set_lanes(8);                            \
				}                                                        \
				fv += cz_msm_ifma_flush_count() - a0;                    \
				if (cz_fpv_force_avx2(true)) {                           \
					a0 = cz_msm_ifma_flush_count();                  \
					e3 |= MSM##_tuned(&ra, b, k, n, pl, &tunes[t]); \
					fa += cz_msm_ifma_flush_count() - a0;            \
					eqa = PFX##_jac_eq(&ra, &rv);                    \
					cz_fpv_force_avx2(false);                        \
				}                                                        \
				cz_ifma_force_off(true);                                 \
				a0 = cz_msm_ifma_flush_count();                          \
				int e2 = MSM##_tuned(&rs, b, k, n, pl, &tunes[t]);\
				ok = !e1 && !e2 && !e3 && PFX##_jac_eq(&rv, &rs) && eq4 && \
				     eqa && cz_msm_ifma_flush_count() == a0;             \
				if (!ok)                                                 \
					ct_diag(#G " %s n=%zu: plan %u, %d threads differ%s%s", \
						kind_name[kd], n, t, th, eq4 ? "" : " (4 lanes)", \
						eqa ? "" : " (AVX2)");                   \
			}                                                                \
		cz_ifma_force_off(false);                                                \
		/* small n: batches stay under the vector minimum (the scalar     \
		 * flush runs inside the vector path); from 1000 on it must run */  \
		ct_ok(ok && (n < 1000 || fv > 0) && (n < 1000 || !cz_avx2_have() || fa > 0), \
		      #G " %s (n=%zu): vector flush (8 lanes; 4 lanes at 1 thread; AVX2) == scalar flush, " \
		      "4 plans x 1-2 threads (%lu IFMA, %lu AVX2 vector flushes, none when forced off)", \
		      kind_name[kd], n, fv, fa);                                         \
		free(pool), free(b), free(k), free(src), free(ng), free(inf);           \
	}

MSM_CASE(g1, cz_g1, cz_msm_g1, g1_points, cz_fp_neg, bls_scalar_rand)
MSM_CASE(g2, cz_g2, cz_msm_g2, g2_points, cz_fp2_neg, bls_scalar_rand)
MSM_CASE(bn254_g1, cz_bn254_g1, cz_bn254_msm_g1, bn254_g1_points, cz_bn254_fp_neg, bn_scalar_rand)
MSM_CASE(bn254_g2, cz_bn254_g2, cz_bn254_msm_g2, bn254_g2_points, cz_bn254_fp2_neg, bn_scalar_rand)

int main(void)
{
	static const size_t g1_sizes[] = { 100, 1000, 1u << 13 };
	static const size_t g2_sizes[] = { 100, 1000, 1u << 11 };
	static void (*const cases[4])(enum kind, size_t) = { g1_case, g2_case, bn254_g1_case,
							     bn254_g2_case };
	const int npoints = 4 * NKINDS * 3;

	ct_plan(npoints);
	if (!cz_ifma_have()) {
		for (int i = 0; i < npoints; i++)
			ct_skip("this CPU has no AVX-512 IFMA", "vector MSM point %d", i + 1);
		return ct_exit();
	}
	pool2 = cz_pool_create(2);
	for (int g = 0; g < 4; g++)
		for (int kd = 0; kd < NKINDS; kd++)
			for (int s = 0; s < 3; s++)
				cases[g]((enum kind)kd, g % 2 ? g2_sizes[s] : g1_sizes[s]);
	cz_pool_destroy(pool2);
	return ct_exit();
}
