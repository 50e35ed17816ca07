/* SPDX-License-Identifier: MIT */
/* Description: the MSM with the AVX-512 IFMA flush equals the MSM with the scalar one (and the vector path ran), G1 and G2, on random, 0/1-heavy, repeated-point, P/-P and infinity inputs at several sizes and plans. */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/fp_ifma.h"
#include "zk/msm.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x13198a2e03707344ull;

static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

static cz_scalar scalar_rand(void) /* uniform < r */
{
	cz_scalar k;
	cz_fr t;
	do {
		for (int i = 0; i < 4; i++)
			k.l[i] = rnd();
		k.l[3] >>= 1;
	} while (!cz_fr_to_mont(&t, k.l));
	return k;
}

static cz_fr fr_small(void)
{
	cz_fr f;
	cz_scalar k = { { rnd(), rnd(), 0, 0 } };
	cz_fr_to_mont(&f, k.l);
	return f;
}

static void g1_points(cz_g1_affine *out, size_t n)
{
	cz_g1_jac g, p, q, *j = malloc(n * sizeof(*j));
	cz_fr a = fr_small(), b = fr_small();
	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	cz_g1_mul(&p, &g, &a);
	cz_g1_mul(&q, &g, &b);
	for (size_t i = 0; i < n; i++) {
		j[i] = p;
		cz_g1_jac_add(&p, &p, &q);
	}
	cz_g1_jac_batch_to_affine(out, j, n);
	free(j);
}

static void g2_points(cz_g2_affine *out, size_t n)
{
	cz_g2_jac g, p, q, *j = malloc(n * sizeof(*j));
	cz_fr a = fr_small(), b = fr_small();
	cz_g2_jac_from_affine(&g, &cz_g2_generator);
	cz_g2_mul(&p, &g, &a);
	cz_g2_mul(&q, &g, &b);
	for (size_t i = 0; i < n; i++) {
		j[i] = p;
		cz_g2_jac_add(&p, &p, &q);
	}
	cz_g2_jac_batch_to_affine(out, j, n);
	free(j);
}

enum kind { RANDOM, ZERO_ONE, REPEATED, PLUS_MINUS, INFINITY_MIX, NKINDS };
static const char *kind_name[] = { "random", "0/1-heavy", "repeated points",
				   "P and -P", "infinity among the bases" };

/* Scalars and a permutation of the bases for one kind of input; base
 * indices into the pool of distinct points (negated / infinity via flags). */
static void make_case(enum kind kd, size_t n, cz_scalar *k, size_t *src, uint8_t *neg, uint8_t *inf)
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
 * vector flush on and off, results equal; the vector path ran. */
#define G1_CASE(G, AFF, JAC, POINTS, NEGFN)                                             \
	static void G##_case(enum kind kd, size_t n)                                     \
	{                                                                                \
		AFF *pool = malloc(n * sizeof(*pool)), *b = malloc(n * sizeof(*b));     \
		cz_scalar *k = malloc(n * sizeof(*k));                                   \
		size_t *src = malloc(n * sizeof(*src));                                  \
		uint8_t *ng = malloc(n), *inf = malloc(n);                               \
		int ok = 1;                                                              \
		unsigned long f0 = cz_msm_ifma_flush_count(), fv = 0;                    \
		POINTS(pool, n);                                                         \
		make_case(kd, n, k, src, ng, inf);                                       \
		for (size_t i = 0; i < n; i++) {                                         \
			b[i] = pool[src[i]];                                             \
			if (ng[i])                                                       \
				NEGFN(&b[i].y, &b[i].y);                                 \
			if (inf[i])                                                      \
				memset(&b[i], 0, sizeof(b[i]));                          \
		}                                                                        \
		for (unsigned t = 0; t < NTUNES && ok; t++)                              \
			for (int th = 1; th <= 2 && ok; th++) {                          \
				JAC rv, rs;                                              \
				struct cz_pool *pl = th == 2 ? pool2 : NULL;             \
				cz_ifma_force_off(false);                                \
				unsigned long a0 = cz_msm_ifma_flush_count();            \
				int e1 = cz_msm_##G##_tuned(&rv, b, k, n, pl, &tunes[t]);\
				fv += cz_msm_ifma_flush_count() - a0;                    \
				cz_ifma_force_off(true);                                 \
				a0 = cz_msm_ifma_flush_count();                          \
				int e2 = cz_msm_##G##_tuned(&rs, b, k, n, pl, &tunes[t]);\
				ok = !e1 && !e2 && cz_##G##_jac_eq(&rv, &rs) &&          \
				     cz_msm_ifma_flush_count() == a0;                    \
				if (!ok)                                                 \
					ct_diag(#G " %s n=%zu: plan %u, %d threads differ", \
						kind_name[kd], n, t, th);                \
			}                                                                \
		cz_ifma_force_off(false);                                                \
		/* small n: batches stay under the vector minimum (the scalar     \
		 * flush runs inside the vector path); from 1000 on it must run */  \
		ct_ok(ok && (n < 1000 || fv > 0),                                        \
		      #G " %s (n=%zu): vector flush == scalar flush, 4 plans x 1-2 threads "  \
		      "(%lu vector flushes, none when forced off)",                      \
		      kind_name[kd], n, fv);                                             \
		(void)f0;                                                                \
		free(pool), free(b), free(k), free(src), free(ng), free(inf);           \
	}

G1_CASE(g1, cz_g1_affine, cz_g1_jac, g1_points, cz_fp_neg)
G1_CASE(g2, cz_g2_affine, cz_g2_jac, g2_points, cz_fp2_neg)

int main(void)
{
	static const size_t g1_sizes[] = { 100, 1000, 1u << 13 };
	static const size_t g2_sizes[] = { 100, 1000, 1u << 11 };
	const int npoints = NKINDS * 3 * 2;

	ct_plan(npoints);
	if (!cz_ifma_have()) {
		for (int i = 0; i < npoints; i++)
			ct_skip("this CPU has no AVX-512 IFMA", "vector MSM point %d", i + 1);
		return ct_exit();
	}
	pool2 = cz_pool_create(2);
	for (int kd = 0; kd < NKINDS; kd++)
		for (int s = 0; s < 3; s++)
			g1_case((enum kind)kd, g1_sizes[s]);
	for (int kd = 0; kd < NKINDS; kd++)
		for (int s = 0; s < 3; s++)
			g2_case((enum kind)kd, g2_sizes[s]);
	cz_pool_destroy(pool2);
	return ct_exit();
}
