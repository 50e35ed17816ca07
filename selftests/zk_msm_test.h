/* SPDX-License-Identifier: MIT */
/*
 * selftests/zk_msm_test.h — the MSM tests' inputs (zk_msm.c, zk_bn254_msm.c,
 * zk_msm_fixed.c, zk_msm_ifma.c), written once over the scalar field FR and
 * the group G with a macro each; the includer defines rnd() (its own seed,
 * so each test's inputs stay its own) before using them.
 *
 *   ZT_SCALAR_RAND(name, FR, shift)  cz_scalar name(void): uniform < r, by
 *       rejection (FR_to_mont refuses k >= r); shift clears the top limb's
 *       bits above r's (1 for BLS12-381, 2 for BN254).
 *   ZT_R_MINUS(name, FR)             cz_scalar name(uint64_t v): r - v, v >= 1.
 *   ZT_POINTS(name, G, FR, make)     void name(G_affine *out, size_t n):
 *       a·G + i·b·G for i < n, a = make() then b = make() (FR make(void)):
 *       distinct points for b != 0, cheap to make.
 */
#ifndef ZK_MSM_TEST_H
#define ZK_MSM_TEST_H

#include <stdlib.h>

#define ZT_SCALAR_RAND(NAME, FR, SHIFT)                                                       \
	static cz_scalar NAME(void)                                                          \
	{                                                                                     \
		cz_scalar k;                                                                  \
		FR t;                                                                         \
		do {                                                                          \
			for (int i = 0; i < 4; i++)                                           \
				k.l[i] = rnd();                                               \
			k.l[3] >>= SHIFT;                                                     \
		} while (!FR##_to_mont(&t, k.l));                                             \
		return k;                                                                     \
	}

#define ZT_R_MINUS(NAME, FR)                                                                  \
	static cz_scalar NAME(uint64_t v)                                                     \
	{                                                                                     \
		FR t, s;                                                                      \
		cz_scalar k;                                                                  \
		FR##_from_u64(&s, v);                                                         \
		FR##_neg(&t, &s);                                                             \
		FR##_from_mont(k.l, &t);                                                      \
		return k;                                                                     \
	}

#define ZT_POINTS(NAME, G, FR, MAKE)                                                          \
	static void NAME(G##_affine *out, size_t n)                                           \
	{                                                                                     \
		G##_jac g, p, q, *j = malloc(n * sizeof(*j));                                 \
		FR a = MAKE(), b = MAKE();                                                    \
		G##_jac_from_affine(&g, &G##_generator);                                      \
		G##_mul(&p, &g, &a);                                                          \
		G##_mul(&q, &g, &b);                                                          \
		for (size_t i = 0; i < n; i++) {                                              \
			j[i] = p;                                                             \
			G##_jac_add(&p, &p, &q);                                              \
		}                                                                             \
		G##_jac_batch_to_affine(out, j, n);                                           \
		free(j);                                                                      \
	}

#endif
