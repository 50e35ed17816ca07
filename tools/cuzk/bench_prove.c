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
 *
 * --tables auto|SIZE builds the key's fixed-base tables (zk/msm/msm_fixed.h,
 * what cuzkd --fixed-tables keeps for a resident key) after the load, timed
 * as prove.tables, and proves with them; --tables both proves alternately
 * with (even iterations) and without them (odd), each stage's median over
 * its own iterations, the ones with tables reported as prove.*.tables, so
 * both see the same machine load.  Default off (what `cuzk prove` does).
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
#include "engine/engine.h" /* cz_engine_parse_tables */

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

/* Each stage's median over the iterations of pass (with --tables both:
 * pass 0 the even ones, with tables, pass 1 the odd ones; else all);
 * names end in .tables when the tables served them. */
static void report_stages(const struct cz_bench_opts *o, const double *ms, const double *cpu, int iters,
			  bool both, int pass, uint64_t n, unsigned nt, double zkey_bytes, bool tabbed)
{
	char extra[256], name[64];
	int m = 0;
	double v[iters], c[iters];
	for (int s = 0; s < NSTAGE; s++) {
		m = 0;
		for (int i = both ? pass : 0; i < iters; i += both ? 2 : 1) {
			v[m] = ms[(size_t)i * NSTAGE + s];
			c[m++] = cpu[i];
		}
		double med = median(v, m);
		snprintf(name, sizeof(name), "%s%s", stage_name[s], tabbed ? ".tables" : "");
		if (s == NSTAGE - 1) {
			uint64_t rss = cz_cli_peak_rss();
			double bound = 1.5 * (zkey_bytes + 8.0 * (double)n * 32);
			snprintf(extra, sizeof(extra),
				 "\"cpu_ms\": %.1f, \"iters\": %d, \"peak_rss_mb\": %.1f, "
				 "\"rss_bound_mb\": %.1f, \"rss_ok\": %s", median(c, m), m,
				 rss / 1048576.0, bound / 1048576.0, rss <= bound ? "true" : "false");
			cz_bench_report(o, name, n, nt, med, extra);
		} else {
			cz_bench_report(o, name, n, nt, med, NULL);
		}
	}
}

/* One body for both curves: G16 the prover's prefix, FR the scalar field,
 * LOAD WTNS SYNTH the key loader, witness reader and synthesis. */
#define BENCH_FN(NAME, G16, FR, LOAD, WTNS, SYNTH)                                   \
static int NAME(const struct cz_bench_opts *o, struct cz_pool *pool, const struct stat *stp, \
		bool tabs, bool both, uint64_t tmax)                                          \
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
	struct cz_msm_fixed fx[CZ_G16_FX], none[CZ_G16_FX];                                  \
	memset(none, 0, sizeof(none));                                                       \
	if (tabs) {                                                                          \
		uint64_t tot = 0;                                                                   \
		t0 = cz_now_ms();                                                                   \
		c0 = cz_cpu_ms();                                                                   \
		if (G16##_key_tables(&k, tmax, nt, pool, NULL, &tot)) {                             \
			fprintf(stderr, "cuzk bench prove: out of memory for the tables\n");              \
			goto out;                                                                          \
		}                                                                                   \
		uint64_t tb = 0;                                                                    \
		for (int q = 0; q < CZ_G16_FX; q++)                                                 \
			tb += k.fx[q].tab ? k.fx[q].bytes : 0;                                             \
		snprintf(extra, sizeof(extra), "\"tables_bytes\": %llu, \"bases\": %llu, \"cpu_ms\": %.1f", \
			 (unsigned long long)tb, (unsigned long long)tot, cz_cpu_ms() - c0);               \
		cz_bench_report(o, "prove.tables", n, nt, cz_now_ms() - t0, extra);                 \
	}                                                                                    \
	memcpy(fx, k.fx, sizeof(fx));                                                        \
                                                                                      \
	for (int i = 0; i < iters; i++) {                                                    \
		memset(&t, 0, sizeof(t));                                                           \
		memcpy(k.fx, both && i % 2 ? none : fx, sizeof(fx));  /* odd: without */            \
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
	memcpy(k.fx, fx, sizeof(fx));   /* freed with the key */                             \
                                                                                      \
	snprintf(extra, sizeof(extra), "\"nvars\": %u, \"zkey_bytes\": %llu, \"cpu_ms\": %.1f",\
		 k.nvars, (unsigned long long)st.st_size, load_cpu);                                \
	cz_bench_report(o, "prove.load_zkey", n, 1, load_ms, extra);                         \
	cz_bench_report(o, "prove.load_wtns", n, 1, wtns_ms, NULL);                          \
	for (int pass = 0; pass < (both ? 2 : 1); pass++)                                    \
		report_stages(o, ms, cpu, iters, both, pass, n, nt, (double)st.st_size,            \
			      tabs && (!both || pass == 0));                                          \
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
		fprintf(stderr, "usage: cuzk bench prove ZKEY WTNS [--threads T] [--iters N] "
			"[--tables auto|off|both|SIZE] [--json]\n");
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
	uint64_t tmax = CZ_FIXED_TABLES_OFF;
	bool both = o->tables && !strcmp(o->tables, "both");
	if (both)
		tmax = CZ_FIXED_TABLES_AUTO;
	else if (o->tables && cz_engine_parse_tables(o->tables, &tmax)) {
		fprintf(stderr, "cuzk bench prove: --tables '%s': expected auto, off, both or a size\n", o->tables);
		cz_pool_destroy(pool);
		return 2;
	}
	bool tabs = tmax != CZ_FIXED_TABLES_OFF;
	int ret = curve == CZ_CURVE_BN254 ? bench_bn254(o, pool, &st, tabs, both, tmax)
					  : bench_bls12_381(o, pool, &st, tabs, both, tmax);
	cz_pool_destroy(pool);
	return ret;
}
