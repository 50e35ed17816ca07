/* SPDX-License-Identifier: MIT */
/*
 * `cuzk bench ntt [--log2 N] [--threads T] [--iters I] [--json]`: forward,
 * inverse and the coset round trip (coset_forward then coset_inverse), in ms,
 * the best of I runs (default 3) each.  Without --log2: 2^16, 2^18, 2^20.
 * The baseline, ntt_forward_plain, is the textbook in-place loop (the same
 * butterflies level by level over the whole array, no blocking, so one
 * thread); speedup = its time / ntt_forward's.
 */
#include "tools/cuzk/cmd.h"
#include "lib/clock.h"
#include "lib/pool.h"
#include "zk/field/fr.h"
#include "zk/ntt/ntt.h"

#include <stdio.h>
#include <stdlib.h>

static double best_of(int iters, const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool,
		      void (*f)(const struct cz_ntt_domain *, cz_fr *, struct cz_pool *),
		      void (*g)(const struct cz_ntt_domain *, cz_fr *, struct cz_pool *))
{
	double best = 1e300;

	for (int i = 0; i < iters; i++) {
		double t0 = cz_now_ms();
		f(d, a, pool);
		if (g)
			g(d, a, pool);
		double t = cz_now_ms() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static int bench_one(const struct cz_bench_opts *o, unsigned log2, struct cz_pool *pool)
{
	size_t n = (size_t)1 << log2;
	int iters = o->iters > 0 ? o->iters : 3;
	unsigned threads = cz_pool_nthreads(pool);
	double t0 = cz_now_ms();
	struct cz_ntt_domain *d = cz_ntt_domain_create(log2);
	double setup = cz_now_ms() - t0;
	cz_fr *a = malloc(n * sizeof(*a));
	char extra[64];

	if (!d || !a) {
		fprintf(stderr, "cuzk bench ntt: 2^%u: out of memory\n", log2);
		cz_ntt_domain_destroy(d);
		free(a);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		cz_fr_from_u64(&a[i], i * 0x9e3779b97f4a7c15ULL);
	snprintf(extra, sizeof(extra), o->json ? "\"log2\": %u" : "log2=%u", log2);
	cz_bench_report(o, "ntt_domain", n, 1, setup, extra);
	double fwd = best_of(iters, d, a, pool, cz_ntt_forward, NULL);
	cz_bench_report(o, "ntt_forward", n, threads, fwd, extra);
	struct cz_ntt_domain *base = cz_ntt_domain_create_tuned(log2, log2 ? log2 : 1, 1);
	if (base) {
		double tb = best_of(iters, base, a, NULL, cz_ntt_forward, NULL);
		char ex2[96];
		snprintf(ex2, sizeof(ex2), o->json ? "%s, \"speedup\": %.3f" : "%s speedup=%.3f",
			 extra, tb / fwd);
		cz_bench_report(o, "ntt_forward_plain", n, 1, tb, ex2);
		cz_ntt_domain_destroy(base);
	}
	cz_bench_report(o, "ntt_inverse", n, threads,
			best_of(iters, d, a, pool, cz_ntt_inverse, NULL), extra);
	cz_bench_report(o, "ntt_coset_roundtrip", n, threads,
			best_of(iters, d, a, pool, cz_ntt_coset_forward, cz_ntt_coset_inverse),
			extra);
	cz_bench_report(o, "ntt_to_odd_coset", n, threads,
			best_of(iters, d, a, pool, cz_ntt_to_odd_coset, NULL), extra);
	cz_ntt_domain_destroy(d);
	free(a);
	return 0;
}

int cz_bench_ntt(const struct cz_bench_opts *o)
{
	static const unsigned sweep[] = { 16, 18, 20 };
	int rc = 0;

	if (o->log2 < 0 || o->log2 > CZ_NTT_MAX_LOG2) {
		fprintf(stderr, "cuzk bench ntt: --log2 must be 0..%d\n", CZ_NTT_MAX_LOG2);
		return 2;
	}
	struct cz_pool *pool = cz_pool_create(o->threads);
	if (!pool) {
		fprintf(stderr, "cuzk bench ntt: cannot create the thread pool\n");
		return 1;
	}
	if (o->log2)
		rc = bench_one(o, (unsigned)o->log2, pool);
	else
		for (size_t i = 0; i < sizeof(sweep) / sizeof(sweep[0]) && !rc; i++)
			rc = bench_one(o, sweep[i], pool);
	cz_pool_destroy(pool);
	return rc;
}
