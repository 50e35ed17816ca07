/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_msm.c — `cuzk bench msm [--log2 N] [--threads T]
 * [--group g1|g2|bn254-g1|bn254-g2] [--iters I]
 * [--path scalar|ifma|ifma8|ifma4|avx2|both|all] [--window C] [--batch B] [--json]`: Pippenger MSM time
 * for 2^N random bases and uniformly random scalars < r, for either curve's
 * groups (BLS12-381's g1/g2, BN254's bn254-g1/bn254-g2; both have the IFMA
 * path).  Without --log2, sweeps 2^10..2^16
 * in steps of 2.  Bases are a progression a·G + i·b·G (cheap to make; the
 * MSM's cost does not depend on how the bases relate).
 * Reports wall ms (best of --iters), process CPU ms, and cpu_spread: Σ/max
 * of the threads' CPU time, the speed-up an idle machine would give.
 * --path both runs the scalar and the AVX-512 IFMA flush (zk/msm/fp_ifma.h, the
 * lane count chosen at start-up) alternately, iteration by iteration, so
 * both see the same machine load, and gives the IFMA line a speedup (best
 * scalar / best IFMA, CPU time); --path all runs scalar, 8 lanes and
 * 4 lanes (and AVX2 where the CPU has it) the same way (ifma8 / ifma4: one
 * lane count alone; avx2: the AVX2 flush alone, zk/msm/bn254_fp_avx2.c).
 * --window / --batch override the plan's window and batch-affine batch
 * (cz_msm_*_tuned), to measure the batch shape.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"
#include "tools/cuzk/cmd.h"
#include "zk/msm/bn254_msm.h"
#include "zk/msm/fp_ifma.h"
#include "zk/msm/msm.h"
#include "lib/clock.h"

static uint64_t st = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void) /* splitmix64 */
{
	uint64_t z = (st += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void scalars_rand(cz_scalar *k, size_t n)
{
	cz_fr t;
	for (size_t i = 0; i < n; i++)
		do {
			for (int j = 0; j < 4; j++)
				k[i].l[j] = rnd();
			k[i].l[3] >>= 1;
		} while (!cz_fr_to_mont(&t, k[i].l));
}

/*
 * CPU seconds of each thread of this process (/proc/self/task/TID/stat,
 * utime + stime in clock ticks).  Σ over threads / max over threads of the
 * CPU an MSM used is the speed-up an idle machine would show (the pool
 * hands tasks out dynamically, so a thread that did less work waited);
 * on a shared machine a descheduled thread lowers it, so it is a floor.
 */
#define MAXTHREADS 512

struct tick { long tid; long long ticks; };

static int thread_ticks(struct tick *out, int cap)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < cap) {
		char path[64], buf[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		const char *p = strrchr(buf, ')'); /* comm may hold spaces */
		unsigned long long ut = 0, st = 0;
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&ut, &st) == 2)
			out[n++] = (struct tick){ atol(e->d_name), (long long)(ut + st) };
	}
	closedir(d);
	return n;
}

/* Σ / max of the per-thread CPU between two snapshots; 0 if unknown. */
static double par_ratio(const struct tick *a, int na, const struct tick *b, int nb)
{
	long long sum = 0, max = 0;

	for (int i = 0; i < nb; i++) {
		long long d = b[i].ticks;
		for (int k = 0; k < na; k++)
			if (a[k].tid == b[i].tid)
				d -= a[k].ticks;
		sum += d;
		max = d > max ? d : max;
	}
	return max ? (double)sum / (double)max : 0;
}

#define CHUNK 4096

/* n bases a·G + i·b·G for group G (prefix), built in chunks of CHUNK. */
#define BASES_FN(NAME, G, FR)                                                         \
	static int NAME(G##_affine *out, size_t n)                                    \
	{                                                                             \
		G##_jac g, p, q, *j = malloc(CHUNK * sizeof(*j));                     \
		cz_scalar ka, kb;                                                     \
		FR a, b;                                                              \
		if (!j)                                                               \
			return -1;                                                    \
		do                                                                    \
			scalars_rand(&ka, 1);                                         \
		while (!FR##_to_mont(&a, ka.l));                                      \
		do                                                                    \
			scalars_rand(&kb, 1);                                         \
		while (!FR##_to_mont(&b, kb.l));                                      \
		G##_jac_from_affine(&g, &G##_generator);                              \
		G##_mul(&p, &g, &a);                                                  \
		G##_mul(&q, &g, &b);                                                  \
		for (size_t i = 0; i < n; i += CHUNK) {                               \
			size_t m = n - i < CHUNK ? n - i : CHUNK;                     \
			for (size_t t = 0; t < m; t++) {                              \
				j[t] = p;                                             \
				G##_jac_add(&p, &p, &q);                              \
			}                                                             \
			G##_jac_batch_to_affine(out + i, j, m);                       \
		}                                                                     \
		free(j);                                                              \
		return 0;                                                             \
	}

BASES_FN(g1_bases, cz_g1, cz_fr)
BASES_FN(g2_bases, cz_g2, cz_fr)
BASES_FN(bn254_g1_bases, cz_bn254_g1, cz_bn254_fr)
BASES_FN(bn254_g2_bases, cz_bn254_g2, cz_bn254_fr)

/* The groups --group names. */
enum grp { GRP_G1, GRP_G2, GRP_BN254_G1, GRP_BN254_G2 };
static const char *const grp_names[] = { "g1", "g2", "bn254-g1", "bn254-g2" };
static const char *const grp_ops[] = { "msm_g1", "msm_g2", "msm_bn254_g1", "msm_bn254_g2" };
static const size_t grp_aff[] = { sizeof(cz_g1_affine), sizeof(cz_g2_affine),
				  sizeof(cz_bn254_g1_affine), sizeof(cz_bn254_g2_affine) };

/* Uniform scalars < BN254's r (scalars_rand draws them < BLS12-381's). */
static void bn254_scalars(cz_scalar *k, size_t n)
{
	cz_bn254_fr t;
	for (size_t i = 0; i < n; i++)
		do {
			for (int j = 0; j < 4; j++)
				k[i].l[j] = rnd();
			k[i].l[3] >>= 2;
		} while (!cz_bn254_fr_to_mont(&t, k[i].l));
}

static int make_bases(enum grp g, void *b, size_t n)
{
	switch (g) {
	case GRP_G1: return g1_bases(b, n);
	case GRP_G2: return g2_bases(b, n);
	case GRP_BN254_G1: return bn254_g1_bases(b, n);
	default: return bn254_g2_bases(b, n);
	}
}

static int run_msm(enum grp g, const void *b, const cz_scalar *k, size_t n, struct cz_pool *pool,
		   const struct cz_msm_tune *t)
{
	switch (g) {
	case GRP_G1: { cz_g1_jac r; return cz_msm_g1_tuned(&r, b, k, n, pool, t); }
	case GRP_G2: { cz_g2_jac r; return cz_msm_g2_tuned(&r, b, k, n, pool, t); }
	case GRP_BN254_G1: { cz_bn254_g1_jac r; return cz_bn254_msm_g1_tuned(&r, b, k, n, pool, t); }
	default: { cz_bn254_g2_jac r; return cz_bn254_msm_g2_tuned(&r, b, k, n, pool, t); }
	}
}

/* The flush paths to run: bit 0 scalar, bit 1 IFMA on 8 lanes, bit 2 on
 * 4 lanes, bit 3 AVX2 (4 lanes); 0 = bad --path (or a path this CPU lacks). */
#define PATHS 4
static const unsigned path_lanes[PATHS] = { 0, 8, 4, 4 };
static const char *const path_names[PATHS] = { "scalar", "ifma", "ifma", "avx2" };

static int bench_paths(const struct cz_bench_opts *o)
{
	int chosen = cz_ifma_lanes == 4 ? 4 : 2;
	int have = (cz_ifma_have_lanes(8) ? 2 : 0) | (cz_ifma_have_lanes(4) ? 4 : 0);
	if (!o->path)
		return cz_fpv_avx2 ? 8 : cz_ifma_on ? chosen : 1;
	if (!strcmp(o->path, "scalar"))
		return 1;
	if (!strcmp(o->path, "avx2"))
		return cz_avx2_have() ? 8 : 0;
	if (!strcmp(o->path, "ifma"))
		return have ? chosen : 0;
	if (!strcmp(o->path, "ifma8"))
		return have & 2;
	if (!strcmp(o->path, "ifma4"))
		return have & 4;
	if (!strcmp(o->path, "both"))
		return have ? 1 | chosen : 0;
	if (!strcmp(o->path, "all"))
		return have || cz_avx2_have() ? 1 | have | (cz_avx2_have() ? 8 : 0) : 0;
	return 0;
}

static int bench_one(const struct cz_bench_opts *o, struct cz_pool *pool, enum grp g, int log2)
{
	size_t n = (size_t)1 << log2;
	unsigned iters = o->iters > 0 ? (unsigned)o->iters : 1;
	cz_scalar *k = malloc(n * sizeof(*k));
	void *b = malloc(n * grp_aff[g]);
	double best[PATHS] = { -1, -1, -1, -1 }, best_cpu[PATHS] = { -1, -1, -1, -1 }, par[PATHS] = { 0 };
	int rc = 0, paths = bench_paths(o);
	bool was_on = cz_ifma_on, was_avx2 = cz_fpv_avx2;
	unsigned was_lanes = cz_ifma_lanes;
	/* --window / --batch: the plan's other choices stay automatic; a batch
	 * forces batch-affine buckets */
	struct cz_msm_tune tu = { o->window, 0, o->batch ? 1 : 0, o->batch };
	const struct cz_msm_tune *tune = o->window || o->batch ? &tu : NULL;

	if (!k || !b || make_bases(g, b, n)) {
		fprintf(stderr, "cuzk bench msm: out of memory for 2^%d points\n", log2);
		free(k);
		free(b);
		return 1;
	}
	if (g >= GRP_BN254_G1)
		bn254_scalars(k, n);
	else
		scalars_rand(k, n);
	static struct tick ta[MAXTHREADS], tb[MAXTHREADS];
	for (unsigned it = 0; it < iters && !rc; it++) {
		for (int v = 0; v < PATHS && !rc; v++) {
			if (!(paths >> v & 1))
				continue;
			cz_ifma_force_off(v == 0);
			if (v == 3)
				cz_fpv_force_avx2(true);
			else if (v)
				cz_ifma_set_lanes(path_lanes[v]);
			int na = thread_ticks(ta, MAXTHREADS);
			double t0 = cz_now_ms(), c0 = cz_cpu_ms();
			rc = run_msm(g, b, k, n, pool, tune);
			double ms = cz_now_ms() - t0, cpu = cz_cpu_ms() - c0;
			int nb = thread_ticks(tb, MAXTHREADS);
			double pr = par_ratio(ta, na, tb, nb);
			par[v] = pr > par[v] ? pr : par[v];
			if (best[v] < 0 || ms < best[v])
				best[v] = ms;
			if (best_cpu[v] < 0 || cpu < best_cpu[v])
				best_cpu[v] = cpu;
		}
	}
	cz_ifma_force_off(!was_on);
	cz_ifma_set_lanes(was_lanes);
	if (was_avx2)
		cz_fpv_force_avx2(true);
	if (rc) {
		fprintf(stderr, "cuzk bench msm: cz_msm failed (%d)\n", rc);
	} else {
		for (int v = 0; v < PATHS; v++) {
			char extra[224], sp[64] = "";
			if (!(paths >> v & 1))
				continue;
			if (v && (paths & 1))
				snprintf(sp, sizeof(sp), o->json ? ", \"speedup\": %.2f" : " speedup=%.2f",
					 best_cpu[0] / best_cpu[v]);
			snprintf(extra, sizeof(extra),
				 o->json ? "\"log2\": %d, \"cpu_ms\": %.3f, \"cpu_spread\": %.2f, \"path\": \"%s\", \"lanes\": %u%s"
					 : "log2=%d cpu=%.1fms cpu_spread=%.2f path=%s lanes=%u%s",
				 log2, best_cpu[v], par[v], path_names[v], path_lanes[v], sp);
			cz_bench_report(o, grp_ops[g], n, cz_pool_nthreads(pool), best[v],
					extra);
		}
	}
	free(k);
	free(b);
	return rc ? 1 : 0;
}

int cz_bench_msm(const struct cz_bench_opts *o)
{
	int rc = 0, g = -1;

	for (int i = 0; i < 4; i++)
		if (!strcmp(o->group, grp_names[i]))
			g = i;
	if (g < 0) {
		fprintf(stderr, "cuzk bench msm: --group must be g1, g2, bn254-g1 or bn254-g2, not '%s'\n",
			o->group);
		return 2;
	}
	if (!bench_paths(o)) {
		fprintf(stderr, "cuzk bench msm: --path must be scalar, ifma, ifma8, ifma4, avx2, both or all (ifma needs a CPU with AVX-512 IFMA, ifma4 AVX-512VL too, avx2 AVX2), not '%s'\n",
			o->path);
		return 2;
	}
	if ((o->window && (o->window < 3 || o->window > 20)) || o->batch > (1u << 20)) {
		fprintf(stderr, "cuzk bench msm: --window must be 3..20 and --batch 1..2^20\n");
		return 2;
	}
	if (o->log2 < 0 || o->log2 > 28) {
		fprintf(stderr, "cuzk bench msm: --log2 must be 0..28\n");
		return 2;
	}
	struct cz_pool *pool = cz_pool_create(o->threads);
	if (!pool) {
		fprintf(stderr, "cuzk bench msm: cannot create a thread pool\n");
		return 1;
	}
	if (o->log2)
		rc = bench_one(o, pool, (enum grp)g, o->log2);
	else
		for (int l = 10; l <= 16 && !rc; l += 2)
			rc = bench_one(o, pool, (enum grp)g, l);
	cz_pool_destroy(pool);
	return rc;
}
