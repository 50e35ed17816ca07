/* SPDX-License-Identifier: MIT */
/* Description: the device stage's IFMA transforms (cz_bn254_ntt_h_vec, cz_ntt_h_vec) against the scalar path on both curves: to_odd_coset on each vector, then a·b − c, for every size 2^6..2^13, 2^15 and 2^16, 1 to 3 threads, random and extreme values. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/field/bls12_381.h"
#include "zk/field/bn254.h"
#include "zk/field/bn254_fr.h"
#include "zk/field/fr.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/ntt/ntt.h"

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* One curve's checks, written once: P the NTT prefix, D the domain tag, FR
 * the field, R its modulus (64-bit limbs); LABEL names it in the points. */
#define VEC_CHECKS(NAME, LABEL, P, D, FR, R)                                                  \
	static const uint64_t NAME##_r64[4] = R;                                          \
                                                                                          \
	/* Any value below r, as a Montgomery form; kind 1: r - 1 (every limb near       \
	 * its largest), kind 2: 0 and 1 (a witness's shape). */                         \
	static void NAME##_fill(FR *x, size_t n, int kind)                               \
	{                                                                                 \
		for (size_t i = 0; i < n; i++) {                                          \
			if (kind == 1) {                                                  \
				memcpy(x[i].l, NAME##_r64, sizeof(NAME##_r64));           \
				x[i].l[0] -= 1;                                           \
			} else if (kind == 2) {                                           \
				memset(x[i].l, 0, sizeof(x[i].l));                        \
				x[i].l[0] = rnd() & 1;                                    \
			} else {                                                          \
				for (int j = 0; j < 4; j++)                               \
					x[i].l[j] = rnd();                                \
				x[i].l[3] %= NAME##_r64[3]; /* top limb below r's */      \
			}                                                                 \
		}                                                                         \
	}                                                                                 \
                                                                                          \
	/* The scalar path, as the prover ran it before: h = from_mont(A·B - C). */      \
	static void NAME##_reference(const struct D *d, FR *a, FR *b, FR *c, uint64_t *h, \
				     size_t n)                                            \
	{                                                                                 \
		P##_to_odd_coset(d, a, NULL);                                             \
		P##_to_odd_coset(d, b, NULL);                                             \
		P##_to_odd_coset(d, c, NULL);                                             \
		for (size_t i = 0; i < n; i++) {                                          \
			FR t;                                                             \
			NAME##_mul(&t, &a[i], &b[i]);                                     \
			NAME##_sub(&t, &t, &c[i]);                                        \
			NAME##_from_mont(&h[4 * i], &t);                                  \
		}                                                                         \
	}                                                                                 \
                                                                                          \
	/* One size, one input kind, every pool: 1 point. */                             \
	static void NAME##_check(unsigned L, int kind, struct cz_pool **pools, int npools) \
	{                                                                                 \
		size_t n = (size_t)1 << L;                                                \
		struct D *d = P##_domain_create(L);                                       \
		FR *in = malloc(3 * n * sizeof(*in)), *ref = malloc(3 * n * sizeof(*ref)); \
		FR *x = malloc(3 * n * sizeof(*x));                                       \
		uint64_t *hr = malloc(4 * n * sizeof(*hr)), *hv = malloc(4 * n * sizeof(*hv)); \
		bool ok = d && in && ref && x && hr && hv;                                \
		const char *why = ok ? "" : "out of memory";                              \
                                                                                          \
		if (ok) {                                                                 \
			NAME##_fill(in, 3 * n, kind);                                     \
			memcpy(ref, in, 3 * n * sizeof(*in));                             \
			NAME##_reference(d, ref, ref + n, ref + 2 * n, hr, n);            \
		}                                                                         \
		for (int p = 0; ok && p < npools; p++) {                                  \
			memcpy(x, in, 3 * n * sizeof(*in));                               \
			memset(hv, 0xa5, 4 * n * sizeof(*hv));                            \
			if (!P##_h_vec(d, x, x + n, x + 2 * n, hv, pools[p])) {           \
				ok = false, why = "not taken";                            \
			} else if (memcmp(hv, hr, 4 * n * sizeof(*hv))) {                 \
				size_t i = 0;                                             \
				while (memcmp(&hv[4 * i], &hr[4 * i], 32))                \
					i++;                                              \
				ok = false;                                               \
				printf("# %s 2^%u kind %d pool %d: first difference at h[%zu]\n", \
				       LABEL, L, kind, p, i);                             \
				why = "differs";                                          \
			}                                                                 \
		}                                                                         \
		ct_ok(ok, "%s 2^%u, %s values: h equals the scalar path's on 1, 2 and 3 " \
		      "threads%s%s", LABEL, L,                                            \
		      kind == 0 ? "random" : kind == 1 ? "r - 1" : "0/1", *why ? ": " : "", why); \
		P##_domain_destroy(d);                                                    \
		free(in), free(ref), free(x), free(hr), free(hv);                        \
	}                                                                                 \
                                                                                          \
	/* Below 2^6 the scalar path runs: false, nothing written. */                    \
	static int NAME##_small_untouched(unsigned L)                                     \
	{                                                                                 \
		struct D *d = P##_domain_create(L);                                       \
		FR a[256] = { { { 7 } } };                                                \
		uint64_t h[4] = { 5 };                                                    \
		int ok = d && !P##_h_vec(d, a, a, a, h, NULL) && a[0].l[0] == 7 && h[0] == 5; \
		P##_domain_destroy(d);                                                    \
		return ok;                                                                \
	}

VEC_CHECKS(cz_bn254_fr, "bn254", cz_bn254_ntt, cz_bn254_ntt_domain, cz_bn254_fr, CZ_BN254_R)
VEC_CHECKS(cz_fr, "bls12-381", cz_ntt, cz_ntt_domain, cz_fr, CZ_BLS12_381_R)

static const unsigned sizes[] = { 6, 7, 8, 9, 10, 11, 12, 13, 15, 16 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define PER_CURVE (1 + NSIZES + 4)

static void curve_checks(void (*check)(unsigned, int, struct cz_pool **, int),
			 int (*small)(unsigned), const char *name, struct cz_pool **pools)
{
	ct_ok(small(5), "%s 2^5 (below 2^6): not taken, nothing written", name);
	for (int i = 0; i < NSIZES; i++)
		check(sizes[i], 0, pools, 3);
	check(6, 1, pools, 3);
	check(13, 1, pools, 3);
	check(10, 2, pools, 3);
	check(14, 2, pools, 2);
}

int main(void)
{
	struct cz_pool *pools[3] = { NULL, cz_pool_create(2), cz_pool_create(3) };

	ct_plan(1 + 2 * PER_CURVE);
	if (!__builtin_cpu_supports("avx512ifma") || !__builtin_cpu_supports("avx512f")) {
		/* What a CPU without IFMA gets: false, nothing touched, any size. */
		ct_ok(cz_bn254_fr_small_untouched(8) && cz_fr_small_untouched(8),
		      "without AVX-512 IFMA: not taken on either curve, nothing written");
		for (int i = 1; i < 1 + 2 * PER_CURVE; i++)
			ct_skip("the CPU has no AVX-512 IFMA", "vector transforms");
		return ct_exit();
	}
	ct_ok(pools[1] && pools[2], "pools of 2 and 3 threads");
	curve_checks(cz_bn254_fr_check, cz_bn254_fr_small_untouched, "bn254", pools);
	curve_checks(cz_fr_check, cz_fr_small_untouched, "bls12-381", pools);
	cz_pool_destroy(pools[1]);
	cz_pool_destroy(pools[2]);
	return ct_exit();
}
