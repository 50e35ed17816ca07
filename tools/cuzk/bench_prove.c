/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_prove.c — `cuzk bench prove ZKEY WTNS [--threads T]
 * [--iters N] [--json]`: one whole Groth16 proof (what `cuzk prove` does),
 * timed per stage (struct cz_groth16_times): key and witness load, synthesis,
 * NTTs, the five MSMs, finalize, the built-in verification, and the total;
 * then the process's peak RSS (getrusage ru_maxrss) against the issue's
 * bound 1.5 × (zkey size + 8·n·32 bytes).
 *
 * With --iters N > 1 each stage's figure is its median over N proofs (the
 * key is loaded once).  n in the report is the domain size 2^K.  The load
 * and total lines also carry cpu_ms, the process's CPU time (all threads),
 * which a loaded machine disturbs much less than wall time.  The key's
 * primes pick the curve (BLS12-381 or BN254), as for `cuzk prove`.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "lib/pool.h"
#include "synth/synth.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"
#include "zk/io/groth16_io.h"
#include "zk/io/iden3bin.h" /* CZ_ERRLEN */
#include "zk/io/zkey.h"
#include "lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NSTAGE 10

static const char *const stage_name[NSTAGE] = {
	"prove.synth", "prove.ntt", "prove.msm_a", "prove.msm_b1", "prove.msm_b2",
	"prove.msm_c", "prove.msm_h", "prove.finalize", "prove.verify", "prove.total",
};

static void stages(double out[NSTAGE], const struct cz_groth16_times *t, double total)
{
	const double v[NSTAGE] = { t->synth, t->ntt, t->msm_a, t->msm_b1, t->msm_b2,
				   t->msm_c, t->msm_h, t->finalize, t->verify, total };
	memcpy(out, v, sizeof(v));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One body for both curves: G16 the prover's prefix, FR the scalar field,
 * LOAD WTNS SYNTH the key loader, witness reader and synthesis. */
#define BENCH_FN(NAME, G16, FR, LOAD, WTNS, SYNTH)                                   \
static int NAME(const struct cz_bench_opts *o, struct cz_pool *pool, const struct stat *stp) \
{                                                                                     \
	char err[CZ_ERRLEN] = "", extra[256];                                         \
	struct G16##_key k;                                                           \
	struct G16##_proof p;                                                         \
	struct cz_groth16_times t;                                                    \
	struct stat st = *stp;                                                        \
	int iters = o->iters > 0 ? o->iters : 1, ret = 2;                             \
	double *ms = NULL, *cpu = NULL, t0, c0;                                       \
	cz_scalar *w = NULL;                                                          \
	FR *abc = NULL;                                                               \
	t0 = cz_now_ms();                                                                    \
	c0 = cz_cpu_ms();                                                                    \
	if (LOAD(&k, o->pos[0], pool, err, sizeof(err))) {                                   \
		fprintf(stderr, "cuzk bench prove: %s\n", err);                                     \
		return 2;                                                                           \
	}                                                                                    \
	double load_ms = cz_now_ms() - t0, load_cpu = cz_cpu_ms() - c0;                      \
	uint64_t n = 1ull << k.log2n;                                                        \
	w = malloc((size_t)k.nvars * sizeof(*w));                                            \
	ms = malloc((size_t)iters * NSTAGE * sizeof(*ms));                                   \
	cpu = malloc((size_t)iters * sizeof(*cpu));                                          \
	abc = malloc(3 * (size_t)n * sizeof(*abc));                                          \
	if (!w || !ms || !cpu || !abc) {                                                     \
		fprintf(stderr, "cuzk bench prove: out of memory\n");                               \
		goto out;                                                                           \
	}                                                                                    \
	t0 = cz_now_ms();                                                                    \
	if (WTNS(o->pos[1], k.nvars, w, err, sizeof(err))) {                                 \
		fprintf(stderr, "cuzk bench prove: %s\n", err);                                     \
		goto out;                                                                           \
	}                                                                                    \
	double wtns_ms = cz_now_ms() - t0;                                                   \
	unsigned nt = cz_pool_nthreads(pool);                                                \
                                                                                      \
	for (int i = 0; i < iters; i++) {                                                    \
		memset(&t, 0, sizeof(t));                                                           \
		t0 = cz_now_ms();                                                                   \
		c0 = cz_cpu_ms();                                                                   \
		SYNTH(&k, w, abc, abc + n, abc + 2 * n, pool);                                      \
		t.synth = cz_now_ms() - t0;                                                         \
		int rc = G16##_prove(&k, w, abc, abc + n, abc + 2 * n, &p, pool, &t);               \
		double total = cz_now_ms() - t0;                                                    \
		cpu[i] = cz_cpu_ms() - c0;                                                          \
		if (rc) {                                                                           \
			fprintf(stderr, "cuzk bench prove: %s\n",                                          \
				rc == CZ_GROTH16_UNSAT ? "witness does not satisfy the circuit"                   \
						       : "out of memory");                                                      \
			ret = rc == CZ_GROTH16_UNSAT ? 1 : 2;                                              \
			goto out;                                                                          \
		}                                                                                   \
		stages(ms + (size_t)i * NSTAGE, &t, total);                                         \
	}                                                                                    \
                                                                                      \
	snprintf(extra, sizeof(extra), "\"nvars\": %u, \"zkey_bytes\": %llu, \"cpu_ms\": %.1f",\
		 k.nvars, (unsigned long long)st.st_size, load_cpu);                                \
	cz_bench_report(o, "prove.load_zkey", n, 1, load_ms, extra);                         \
	cz_bench_report(o, "prove.load_wtns", n, 1, wtns_ms, NULL);                          \
	for (int s = 0; s < NSTAGE; s++) {                                                   \
		double v[iters];                                                                    \
		for (int i = 0; i < iters; i++)                                                     \
			v[i] = ms[(size_t)i * NSTAGE + s];                                                 \
		double med = median(v, iters);                                                      \
		if (s == NSTAGE - 1) {                                                              \
			uint64_t rss = cz_cli_peak_rss();                                                  \
			double bound = 1.5 * ((double)st.st_size + 8.0 * (double)n * 32);                  \
			snprintf(extra, sizeof(extra),                                                     \
				 "\"cpu_ms\": %.1f, \"iters\": %d, \"peak_rss_mb\": %.1f, "                       \
				 "\"rss_bound_mb\": %.1f, \"rss_ok\": %s", median(cpu, iters), iters,             \
				 rss / 1048576.0, bound / 1048576.0, rss <= bound ? "true" : "false");            \
			cz_bench_report(o, stage_name[s], n, nt, med, extra);                              \
		} else {                                                                            \
			cz_bench_report(o, stage_name[s], n, nt, med, NULL);                               \
		}                                                                                   \
	}                                                                                    \
	ret = 0;                                                                             \
out:                                                                                  \
	free(ms);                                                                            \
	free(cpu);                                                                           \
	free(abc);                                                                           \
	free(w);                                                                             \
	G16##_key_free(&k);                                                                  \
	return ret;                                                                          \
}

BENCH_FN(bench_bls12_381, cz_groth16, cz_fr, cz_groth16_key_load, cz_wtns_read_path, cz_synth_abc)
BENCH_FN(bench_bn254, cz_bn254_groth16, cz_bn254_fr, cz_bn254_groth16_key_load,
	 cz_bn254_wtns_read_path, cz_bn254_synth_abc)

int cz_bench_prove(const struct cz_bench_opts *o)
{
	char err[CZ_ERRLEN] = "";
	enum cz_curve curve;
	struct stat st;

	if (o->npos != 2) {
		fprintf(stderr, "usage: cuzk bench prove ZKEY WTNS [--threads T] [--iters N] [--json]\n");
		return 2;
	}
	if (stat(o->pos[0], &st)) {
		fprintf(stderr, "cuzk bench prove: %s: cannot stat\n", o->pos[0]);
		return 2;
	}
	if (cz_zkey_curve(o->pos[0], &curve, err)) {
		fprintf(stderr, "cuzk bench prove: %s\n", err);
		return 2;
	}
	struct cz_pool *pool = cz_pool_create(o->threads);
	if (!pool) {
		fprintf(stderr, "cuzk bench prove: cannot start threads\n");
		return 2;
	}
	int ret = curve == CZ_CURVE_BN254 ? bench_bn254(o, pool, &st) : bench_bls12_381(o, pool, &st);
	cz_pool_destroy(pool);
	return ret;
}
