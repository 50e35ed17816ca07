/* SPDX-License-Identifier: MIT */
/*
 * `cuzk bench ntt [--log2 N] [--threads T] [--iters I] [--json]`: forward,
 * inverse and the coset round trip (coset_forward then coset_inverse), in ms,
 * the best of I runs (default 3) each.  Without --log2: 2^16, 2^18, 2^20.
 * The baseline, ntt_forward_plain, is the textbook in-place loop (the same
 * butterflies level by level over the whole array, no blocking, so one
 * thread); speedup = its time / ntt_forward's.
 * Then each curve's device-stage transforms, both paths alternately,
 * iteration by iteration: bls12_381_device_scalar / bn254_device_scalar
 * (to_odd_coset on a, b, c and h = a·b - c), ..._device_vec (PFX_h_vec: the
 * same on AVX-512 IFMA; absent where the CPU has none), speedup = scalar /
 * vec.
 */
#include "tools/cuzk/cmd.h"
#include "lib/clock.h"
#include "lib/pool.h"
#include "zk/field/bn254_fr.h"
#include "zk/field/fr.h"
#include "zk/ntt/bn254_ntt.h"
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

/* The device stage's transforms, scalar (as zk/groth16 runs them: the three
 * to_odd_coset and h = a·b - c on the pool) against PFX_h_vec, alternately:
 * NAME_device_scalar / NAME_device_vec lines.  Written once over a curve. */
#define DEVICE_BENCH(NAME, LABEL, P, D, FR, MAXLOG)                                      \
	struct NAME##_dsub_job {                                                         \
		const FR *x;                                                             \
		uint64_t *h;                                                             \
		size_t n;                                                                \
	};                                                                               \
                                                                                         \
	static void NAME##_dsub_chunk(void *arg, size_t c)                               \
	{                                                                                \
		const struct NAME##_dsub_job *j = arg;                                   \
		size_t end = (c + 1) * 4096 < j->n ? (c + 1) * 4096 : j->n;              \
		for (size_t i = c * 4096; i < end; i++) {                                \
			FR t;                                                            \
			NAME##_mul(&t, &j->x[i], &j->x[j->n + i]);                       \
			NAME##_sub(&t, &t, &j->x[2 * j->n + i]);                         \
			NAME##_from_mont(&j->h[4 * i], &t);                              \
		}                                                                        \
	}                                                                                \
                                                                                         \
	static void NAME##_fill(FR *x, size_t n)                                         \
	{                                                                                \
		for (size_t i = 0; i < n; i++)                                           \
			NAME##_from_u64(&x[i], i * 0x9e3779b97f4a7c15ULL);               \
	}                                                                                \
                                                                                         \
	static int NAME##_device_bench(const struct cz_bench_opts *o, unsigned log2,     \
				       struct cz_pool *pool)                             \
	{                                                                                \
		size_t n = (size_t)1 << log2;                                            \
		int iters = o->iters > 0 ? o->iters : 3;                                 \
		if (log2 > MAXLOG)                                                       \
			return 0;                                                        \
		struct D *d = P##_domain_create(log2);                                   \
		FR *x = malloc(3 * n * sizeof(*x));                                      \
		uint64_t *h = malloc(4 * n * sizeof(*h));                                \
		double ts = 1e300, tv = 1e300;                                           \
		bool vec = true;                                                         \
		char extra[96];                                                          \
                                                                                         \
		if (!d || !x || !h) {                                                    \
			fprintf(stderr, "cuzk bench ntt: %s 2^%u: out of memory\n", LABEL, log2); \
			P##_domain_destroy(d);                                           \
			free(x);                                                         \
			free(h);                                                         \
			return 1;                                                        \
		}                                                                        \
		for (int i = 0; i < iters; i++) {                                        \
			struct NAME##_dsub_job j = { x, h, n };                          \
			NAME##_fill(x, 3 * n);                                           \
			double t0 = cz_now_ms();                                         \
			for (int k = 0; k < 3; k++)                                      \
				P##_to_odd_coset(d, x + (size_t)k * n, pool);            \
			cz_pool_for(pool, (n + 4095) / 4096, NAME##_dsub_chunk, &j);     \
			double t1 = cz_now_ms();                                         \
			ts = t1 - t0 < ts ? t1 - t0 : ts;                                \
			NAME##_fill(x, 3 * n);                                           \
			t0 = cz_now_ms();                                                \
			vec = vec && P##_h_vec(d, x, x + n, x + 2 * n, h, pool);         \
			t1 = cz_now_ms();                                                \
			tv = t1 - t0 < tv ? t1 - t0 : tv;                                \
		}                                                                        \
		unsigned threads = cz_pool_nthreads(pool);                               \
		snprintf(extra, sizeof(extra), o->json ? "\"log2\": %u" : "log2=%u", log2); \
		cz_bench_report(o, LABEL "_device_scalar", n, threads, ts, extra);       \
		if (vec) {                                                               \
			snprintf(extra, sizeof(extra),                                   \
				 o->json ? "\"log2\": %u, \"speedup\": %.3f" : "log2=%u speedup=%.3f", \
				 log2, ts / tv);                                         \
			cz_bench_report(o, LABEL "_device_vec", n, threads, tv, extra);  \
		}                                                                        \
		P##_domain_destroy(d);                                                   \
		free(x);                                                                 \
		free(h);                                                                 \
		return 0;                                                                \
	}

DEVICE_BENCH(cz_bn254_fr, "bn254", cz_bn254_ntt, cz_bn254_ntt_domain, cz_bn254_fr,
	     CZ_BN254_NTT_MAX_LOG2)
DEVICE_BENCH(cz_fr, "bls12_381", cz_ntt, cz_ntt_domain, cz_fr, CZ_NTT_MAX_LOG2)

static int bench_devices(const struct cz_bench_opts *o, unsigned log2, struct cz_pool *pool)
{
	return cz_fr_device_bench(o, log2, pool) || cz_bn254_fr_device_bench(o, log2, pool);
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
		rc = bench_one(o, (unsigned)o->log2, pool) || bench_devices(o, (unsigned)o->log2, pool);
	else
		for (size_t i = 0; i < sizeof(sweep) / sizeof(sweep[0]) && !rc; i++)
			rc = bench_one(o, sweep[i], pool) || bench_devices(o, sweep[i], pool);
	cz_pool_destroy(pool);
	return rc;
}
