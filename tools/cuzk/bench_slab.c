/* SPDX-License-Identifier: MIT */
/*
 * cuzk bench slab — partition-buffer recycling: slab get+fill+put against
 * glibc malloc+memset+free+malloc_trim(0) (what the upstream daemon did),
 * both measured in the same run, per cycle, with minor page faults.
 *
 * The fill is the same memset on both sides; the slab side reports its
 * get+put time apart from the fill, and the glibc side its non-fill time
 * (cycle minus the slab's warm fill: page faults, kernel zeroing, munmap,
 * trim).  As root it reserves the hugepages the arena needs through
 * /proc/sys/vm/nr_hugepages and gives them back at the end.
 *
 * --log2 N: one buffer size of 2^N bytes instead of 64 MiB, 256 MiB, 1 GiB.
 * --iters N: measured cycles per size (default 12, 6, 3).
 */
#define _GNU_SOURCE
#include "alloc/slab.h"
#include "tools/cuzk/cmd.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

struct side {
	double cycle_ns;  /* whole cycle */
	double alloc_ns;  /* get+put, or malloc+free+trim */
	double fill_ns;   /* memset */
	double trim_ns;   /* malloc_trim alone (glibc) */
	double faults;    /* minor faults per cycle */
};

static void run_slab(struct cz_slab_cache *c, size_t size, int iters, struct side *s)
{
	for (int i = 0; i < 2; i++) { /* warm-up: the first get creates the slab */
		void *p = cz_slab_get(c);
		memset(p, i, size);
		cz_slab_put(c, p);
	}
	double ga = 0, fi = 0;
	long f0 = minflt();
	double t0 = now_ns();
	for (int i = 0; i < iters; i++) {
		double a = now_ns();
		void *p = cz_slab_get(c);
		double b = now_ns();
		memset(p, i + 1, size);
		double d = now_ns();
		cz_slab_put(c, p);
		double e = now_ns();
		ga += (b - a) + (e - d);
		fi += d - b;
	}
	double t1 = now_ns();
	*s = (struct side){ .cycle_ns = (t1 - t0) / iters, .alloc_ns = ga / iters, .fill_ns = fi / iters,
			    .faults = (double)(minflt() - f0) / iters };
}

static void run_glibc(size_t size, int iters, struct side *s)
{
	{ /* one warm-up cycle, as on the slab side */
		char *p = malloc(size);
		memset(p, 0, size);
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
		malloc_trim(0);
	}
	double al = 0, fi = 0, tr = 0;
	long f0 = minflt();
	double t0 = now_ns();
	for (int i = 0; i < iters; i++) {
		double a = now_ns();
		char *p = malloc(size);
		double b = now_ns();
		memset(p, i + 1, size);
		__asm__ volatile("" : : "r"(p) : "memory"); /* keep malloc/memset/free from being elided */
		double d = now_ns();
		free(p);
		double e = now_ns();
		malloc_trim(0);
		double f = now_ns();
		al += (b - a) + (f - d);
		fi += d - b;
		tr += f - e;
	}
	double t1 = now_ns();
	*s = (struct side){ .cycle_ns = (t1 - t0) / iters, .alloc_ns = al / iters, .fill_ns = fi / iters,
			    .trim_ns = tr / iters, .faults = (double)(minflt() - f0) / iters };
}

/* get+put pairs in a tight loop, for a per-call figure below timer noise. */
static double getput_ns(struct cz_slab_cache *c, int n)
{
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		void *p = cz_slab_get(c);
		__asm__ volatile("" : : "r"(p) : "memory");
		cz_slab_put(c, p);
	}
	return (now_ns() - t0) / n;
}

int cz_bench_slab(const struct cz_bench_opts *o)
{
	size_t sizes[3] = { 64 * MiB, 256 * MiB, 1024 * MiB };
	int iters[3] = { 12, 6, 3 }, nsizes = 3;
	char extra[512];

	if (o->log2) {
		if (o->log2 < 12 || o->log2 > 34) {
			fprintf(stderr, "cuzk bench slab: --log2 must be 12..34\n");
			return 2;
		}
		sizes[0] = (size_t)1 << o->log2;
		iters[0] = sizes[0] >= 512 * MiB ? 3 : 8;
		nsizes = 1;
	}
	size_t cap = 0;
	for (int i = 0; i < nsizes; i++) {
		cap += (sizes[i] + 2 * MiB - 1) / (2 * MiB) * (2 * MiB);
		if (o->iters > 0)
			iters[i] = o->iters;
	}
	cap += 4 * MiB; /* the small cache used for the tight loop */
	long added = 0;
	if (geteuid() == 0 && !cz_region_hugepages_add((long)(cap / (2 * MiB)) + 8, NULL))
		added = (long)(cap / (2 * MiB)) + 8;
	struct cz_slab_arena *a = cz_slab_arena_create(cap, CZ_REGION_NODE_LOCAL, CZ_REGION_NO_1G, 0);
	if (!a) {
		fprintf(stderr, "cuzk bench slab: cannot create a %zu MiB arena\n", cap / MiB);
		if (added)
			cz_region_hugepages_add(-added, NULL);
		return 1;
	}
	const char *kind = cz_region_kind_name(cz_slab_region(a)->kind);
	struct cz_slab_cache *small = cz_slab_cache_create(a, "desc", 256, 0);
	struct cz_slab_cache *big = cz_slab_cache_create(a, "buf", sizes[0], 0);
	getput_ns(small, 100000);
	double gp_small = getput_ns(small, 2000000);
	getput_ns(big, 1000);
	double gp_big = getput_ns(big, 200000);
	snprintf(extra, sizeof(extra), "\"get_put_ns\": %.1f, \"kind\": \"%s\", \"what\": \"256 B descriptor, magazine\"",
		 gp_small, kind);
	cz_bench_report(o, "slab-getput-256", 2000000, 1, gp_small * 2000000 / 1e6, extra);
	snprintf(extra, sizeof(extra), "\"get_put_ns\": %.1f, \"kind\": \"%s\", \"what\": \"%zu MiB buffer, slab layer\"",
		 gp_big, kind, sizes[0] / MiB);
	cz_bench_report(o, "slab-getput-buf", 200000, 1, gp_big * 200000 / 1e6, extra);
	cz_slab_cache_destroy(big);

	int rc = 0;
	for (int i = 0; i < nsizes; i++) {
		struct side s, g;
		struct cz_slab_cache *c = cz_slab_cache_create(a, "buf", sizes[i], 0);
		char op[32];
		if (!c) {
			rc = 1;
			break;
		}
		run_slab(c, sizes[i], iters[i], &s);
		cz_slab_cache_destroy(c);
		cz_slab_shrink(a, SIZE_MAX); /* give the memory back before glibc's turn */
		run_glibc(sizes[i], iters[i], &g);
		double nonfill = g.cycle_ns - s.fill_ns;
		snprintf(op, sizeof(op), "slab-%zuM", sizes[i] / MiB);
		snprintf(extra, sizeof(extra),
			 "\"kind\": \"%s\", \"get_put_us\": %.3f, \"fill_ms\": %.2f, \"minflt_per_cycle\": %.1f, "
			 "\"speedup_cycle\": %.2f, \"speedup_alloc\": %.0f",
			 kind, s.alloc_ns / 1e3, s.fill_ns / 1e6, s.faults, g.cycle_ns / s.cycle_ns,
			 nonfill / (s.alloc_ns > 1 ? s.alloc_ns : 1));
		cz_bench_report(o, op, (uint64_t)iters[i], 1, s.cycle_ns / 1e6, extra);
		snprintf(op, sizeof(op), "glibc-%zuM", sizes[i] / MiB);
		snprintf(extra, sizeof(extra),
			 "\"malloc_free_trim_ms\": %.3f, \"trim_ms\": %.3f, \"fill_ms\": %.2f, "
			 "\"nonfill_ms\": %.2f, \"minflt_per_cycle\": %.1f",
			 g.alloc_ns / 1e6, g.trim_ns / 1e6, g.fill_ns / 1e6, nonfill / 1e6, g.faults);
		cz_bench_report(o, op, (uint64_t)iters[i], 1, g.cycle_ns / 1e6, extra);
	}
	cz_slab_cache_destroy(small);
	cz_slab_arena_destroy(a);
	if (added)
		cz_region_hugepages_add(-added, NULL);
	return rc;
}
