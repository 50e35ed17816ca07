/* SPDX-License-Identifier: MIT */
/* Description: the device stage's IFMA transforms (cz_bn254_ntt_h_vec) against the scalar path: to_odd_coset on each vector, then a·b − c, for every size 2^6..2^13, 2^15 and 2^16, 1 to 3 threads, random and extreme values. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/field/bn254.h"
#include "zk/field/bn254_fr.h"
#include "zk/ntt/bn254_ntt.h"

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static const uint64_t r64[4] = CZ_BN254_R;

/* Any value below r, taken as a Montgomery form; kind 1: r - 1 (every
 * limb near its largest), kind 2: 0 and 1 (a witness's shape). */
static void fill(cz_bn254_fr *x, size_t n, int kind)
{
	for (size_t i = 0; i < n; i++) {
		if (kind == 1) {
			memcpy(x[i].l, r64, sizeof(r64));
			x[i].l[0] -= 1;
		} else if (kind == 2) {
			memset(x[i].l, 0, sizeof(x[i].l));
			x[i].l[0] = rnd() & 1;
		} else {
			for (int j = 0; j < 4; j++)
				x[i].l[j] = rnd();
			x[i].l[3] %= r64[3];   /* top limb below r's: below r */
		}
	}
}

/* The scalar path, as the prover ran it before: h = from_mont(A·B - C). */
static void reference(const struct cz_bn254_ntt_domain *d, cz_bn254_fr *a, cz_bn254_fr *b,
		      cz_bn254_fr *c, uint64_t *h, size_t n)
{
	cz_bn254_ntt_to_odd_coset(d, a, NULL);
	cz_bn254_ntt_to_odd_coset(d, b, NULL);
	cz_bn254_ntt_to_odd_coset(d, c, NULL);
	for (size_t i = 0; i < n; i++) {
		cz_bn254_fr t;
		cz_bn254_fr_mul(&t, &a[i], &b[i]);
		cz_bn254_fr_sub(&t, &t, &c[i]);
		cz_bn254_fr_from_mont(&h[4 * i], &t);
	}
}

/* One size, one input kind, every pool: 1 point. */
static void check(unsigned L, int kind, struct cz_pool **pools, int npools)
{
	size_t n = (size_t)1 << L;
	struct cz_bn254_ntt_domain *d = cz_bn254_ntt_domain_create(L);
	cz_bn254_fr *in = malloc(3 * n * sizeof(*in)), *ref = malloc(3 * n * sizeof(*ref));
	cz_bn254_fr *x = malloc(3 * n * sizeof(*x));
	uint64_t *hr = malloc(4 * n * sizeof(*hr)), *hv = malloc(4 * n * sizeof(*hv));
	bool ok = d && in && ref && x && hr && hv;
	const char *why = ok ? "" : "out of memory";

	if (ok) {
		fill(in, 3 * n, kind);
		memcpy(ref, in, 3 * n * sizeof(*in));
		reference(d, ref, ref + n, ref + 2 * n, hr, n);
	}
	for (int p = 0; ok && p < npools; p++) {
		memcpy(x, in, 3 * n * sizeof(*in));
		memset(hv, 0xa5, 4 * n * sizeof(*hv));
		if (!cz_bn254_ntt_h_vec(d, x, x + n, x + 2 * n, hv, pools[p])) {
			ok = false, why = "not taken";
		} else if (memcmp(hv, hr, 4 * n * sizeof(*hv))) {
			size_t i = 0;
			while (memcmp(&hv[4 * i], &hr[4 * i], 32))
				i++;
			ok = false;
			printf("# 2^%u kind %d pool %d: first difference at h[%zu]\n", L, kind, p, i);
			why = "differs";
		}
	}
	ct_ok(ok, "2^%u, %s values: h equals the scalar path's on 1, 2 and 3 threads%s%s", L,
	      kind == 0 ? "random" : kind == 1 ? "r - 1" : "0/1", *why ? ": " : "", why);
	cz_bn254_ntt_domain_destroy(d);
	free(in), free(ref), free(x), free(hr), free(hv);
}

int main(void)
{
	static const unsigned sizes[] = { 6, 7, 8, 9, 10, 11, 12, 13, 15, 16 };
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	struct cz_pool *pools[3] = { NULL, cz_pool_create(2), cz_pool_create(3) };

	ct_plan(2 + nsizes + 4);
	if (!__builtin_cpu_supports("avx512ifma") || !__builtin_cpu_supports("avx512f")) {
		/* What a CPU without IFMA gets: false, nothing touched. */
		struct cz_bn254_ntt_domain *d = cz_bn254_ntt_domain_create(8);
		cz_bn254_fr a[256] = { { { 7 } } };
		uint64_t h[4] = { 5 };
		ct_ok(d && !cz_bn254_ntt_h_vec(d, a, a, a, h, NULL) && a[0].l[0] == 7 && h[0] == 5,
		      "without AVX-512 IFMA: not taken, nothing written");
		cz_bn254_ntt_domain_destroy(d);
		for (int i = 1; i < 2 + nsizes + 4; i++)
			ct_skip("the CPU has no AVX-512 IFMA", "vector transforms");
		return ct_exit();
	}
	ct_ok(pools[1] && pools[2], "pools of 2 and 3 threads");
	{
		struct cz_bn254_ntt_domain *d = cz_bn254_ntt_domain_create(5);
		cz_bn254_fr a[32] = { { { 7 } } };
		uint64_t h[4] = { 5 };
		ct_ok(d && !cz_bn254_ntt_h_vec(d, a, a, a, h, NULL) && a[0].l[0] == 7 && h[0] == 5,
		      "2^5 (below 2^6): not taken, nothing written");
		cz_bn254_ntt_domain_destroy(d);
	}
	for (int i = 0; i < nsizes; i++)
		check(sizes[i], 0, pools, 3);
	check(6, 1, pools, 3);
	check(13, 1, pools, 3);
	check(10, 2, pools, 3);
	check(14, 2, pools, 2);
	cz_pool_destroy(pools[1]);
	cz_pool_destroy(pools[2]);
	return ct_exit();
}
