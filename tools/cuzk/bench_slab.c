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
 * malloc_trim(0) costs what the heap it walks holds: the daemon's heap is
 * hundreds of GiB of small and medium blocks, so the glibc side first builds
 * a model heap (default 1 GiB of 8 KiB blocks, every other one freed, so
 * trim has free chunks to walk and madvise on every call).  The figure that
 * motivated this allocator: 0.1 s per trim at 1 GiB, over 1 s at 8 GiB.
 *
 * --log2 N: one buffer size of 2^N bytes instead of 64 MiB, 256 MiB, 1 GiB.
 * --iters N: measured cycles per size (default 12, 6, 3; get+put is the median).
 * heap=MIB (positional): the model heap's size; heap=0 for a bare heap.
 * Timer overhead (one clock reading, calibrated here) is subtracted from
 * the get+put figure, which is two short intervals per cycle.  cold_lock_us
 * is one mutex lock+unlock on a cold line right after a fill: the floor
 * under any get/put that follows one, shown so the two can be compared.
 */
#define _GNU_SOURCE
#include "alloc/slab.h"
#include "tools/cuzk/cmd.h"
#include "lib/clock.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static double timer_cost; /* ns per clock reading */

struct side {
	double cycle_ns;  /* whole cycle */
	double alloc_ns;  /* get+put, or malloc+free+trim */
	double fill_ns;   /* memset */
	double trim_ns;   /* malloc_trim alone (glibc) */
	double faults;    /* minor faults per cycle */
	double max_ns;    /* slowest get+put */
	double get_ns;    /* median get (it follows a put) */
	double put_ns;    /* median put (it follows a fill) */
};

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static void run_slab(struct cz_slab_cache *c, size_t size, int iters, struct side *s)
{
	for (int i = 0; i < 2; i++) { /* warm-up: the first get creates the slab */
		void *p = cz_slab_get(c);
		memset(p, i, size);
		cz_slab_put(c, p);
	}
	double fi = 0, gp[64], gt[64], pt[64];
	long f0 = minflt();
	double t0 = cz_now_ns();
	for (int i = 0; i < iters; i++) {
		double a = cz_now_ns();
		void *p = cz_slab_get(c);
		double b = cz_now_ns();
		memset(p, i + 1, size);
		double d = cz_now_ns();
		cz_slab_put(c, p);
		double e = cz_now_ns();
		gt[i % 64] = (b - a) - timer_cost;
		pt[i % 64] = (e - d) - timer_cost;
		gp[i % 64] = gt[i % 64] + pt[i % 64];
		fi += d - b;
	}
	double t1 = cz_now_ns();
	/* The median get+put: on a shared machine a mean is mostly preemption. */
	int m = iters < 64 ? iters : 64;
	qsort(gp, (size_t)m, sizeof(gp[0]), cmp_double);
	qsort(gt, (size_t)m, sizeof(gt[0]), cmp_double);
	qsort(pt, (size_t)m, sizeof(pt[0]), cmp_double);
	*s = (struct side){ .cycle_ns = (t1 - t0) / iters, .alloc_ns = gp[m / 2], .fill_ns = fi / iters,
			    .faults = (double)(minflt() - f0) / iters, .max_ns = gp[m - 1],
			    .get_ns = gt[m / 2], .put_ns = pt[m / 2] };
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
	double t0 = cz_now_ns();
	for (int i = 0; i < iters; i++) {
		double a = cz_now_ns();
		char *p = malloc(size);
		double b = cz_now_ns();
		memset(p, i + 1, size);
		__asm__ volatile("" : : "r"(p) : "memory"); /* keep malloc/memset/free from being elided */
		double d = cz_now_ns();
		free(p);
		double e = cz_now_ns();
		malloc_trim(0);
		double f = cz_now_ns();
		al += (b - a) + (f - d);
		fi += d - b;
		tr += f - e;
	}
	double t1 = cz_now_ns();
	*s = (struct side){ .cycle_ns = (t1 - t0) / iters, .alloc_ns = al / iters, .fill_ns = fi / iters,
			    .trim_ns = tr / iters, .faults = (double)(minflt() - f0) / iters };
}

/* The model heap: n blocks of 8 KiB, the odd ones freed (their neighbours
 * live, so they stay separate free chunks in the bins). */
static void **heap_build(size_t mib, size_t *n)
{
	*n = mib * MiB / 8192;
	void **v = calloc(*n ? *n : 1, sizeof(*v));
	for (size_t i = 0; v && i < *n; i++) {
		v[i] = malloc(8192 - 16);
		if (v[i])
			memset(v[i], 1, 8192 - 16);
	}
	for (size_t i = 1; v && i < *n; i += 2) {
		free(v[i]);
		v[i] = NULL;
	}
	return v;
}

static void heap_free(void **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
	malloc_trim(0);
}

/* The cost of one clock reading: the least of many back-to-back pairs. */
static double timer_ns(void)
{
	double best = 1e9;
	for (int i = 0; i < 10000; i++) {
		double a = cz_now_ns(), b = cz_now_ns();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

/* What one locked instruction on a cold line costs here right after a
 * fill of size bytes: the floor under any get/put that follows a fill. */
static double cold_lock_ns(size_t size, int iters)
{
	char *buf = malloc(size);
	pthread_mutex_t *m = malloc(sizeof(*m));
	double v[16];
	int n = iters < 16 ? iters : 16;

	if (!buf || !m) {
		free(buf);
		free(m);
		return 0;
	}
	pthread_mutex_init(m, NULL);
	memset(buf, 0, size);
	for (int i = 0; i < n; i++) {
		memset(buf, i, size);
		__asm__ volatile("" : : "r"(buf) : "memory"); /* the fill must happen */
		double a = cz_now_ns();
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
		v[i] = cz_now_ns() - a - timer_cost;
	}
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	pthread_mutex_destroy(m);
	free(m);
	free(buf);
	return v[n / 2];
}

/* get+put pairs in a tight loop, for a per-call figure below timer noise. */
static double getput_ns(struct cz_slab_cache *c, int n)
{
	double t0 = cz_now_ns();
	for (int i = 0; i < n; i++) {
		void *p = cz_slab_get(c);
		__asm__ volatile("" : : "r"(p) : "memory");
		cz_slab_put(c, p);
	}
	return (cz_now_ns() - t0) / n;
}

int cz_bench_slab(const struct cz_bench_opts *o)
{
	size_t sizes[3] = { 64 * MiB, 256 * MiB, 1024 * MiB };
	int iters[3] = { 12, 6, 3 }, nsizes = 3;
	char extra[512];
	size_t heap_mib = 1024, nheap = 0;

	for (int i = 0; i < o->npos; i++) {
		if (!strncmp(o->pos[i], "heap=", 5)) {
			heap_mib = strtoul(o->pos[i] + 5, NULL, 10);
		} else {
			fprintf(stderr, "cuzk bench slab: unknown argument '%s' (heap=MIB)\n", o->pos[i]);
			return 2;
		}
	}
	timer_cost = timer_ns();

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
	snprintf(extra, sizeof(extra), "\"get_put_ns\": %.1f, \"kind\": \"%s\", \"what\": \"%zu MiB buffer, buffer stack\"",
		 gp_big, kind, sizes[0] / MiB);
	cz_bench_report(o, "slab-getput-buf", 200000, 1, gp_big * 200000 / 1e6, extra);
	cz_slab_cache_destroy(big);

	int rc = 0;
	void **heap = heap_build(heap_mib, &nheap);
	for (int i = 0; i < nsizes; i++) {
		struct side s, g;
		struct cz_slab_cache *c = cz_slab_cache_create(a, "buf", sizes[i], 0);
		char op[32];
		if (!c) {
			rc = 1;
			break;
		}
		run_slab(c, sizes[i], iters[i], &s);
		double cold = cold_lock_ns(sizes[i] < 256 * MiB ? sizes[i] : 256 * MiB, 5);
		cz_slab_cache_destroy(c);
		cz_slab_shrink(a, SIZE_MAX); /* give the memory back before glibc's turn */
		run_glibc(sizes[i], iters[i], &g);
		double nonfill = g.cycle_ns - s.fill_ns;
		snprintf(op, sizeof(op), "slab-%zuM", sizes[i] / MiB);
		snprintf(extra, sizeof(extra),
			 "\"kind\": \"%s\", \"get_put_us\": %.3f, \"get_us\": %.3f, \"put_us\": %.3f, "
			 "\"get_put_max_us\": %.3f, \"fill_ms\": %.2f, \"minflt_per_cycle\": %.1f, "
			 "\"speedup_cycle\": %.2f, \"speedup_alloc\": %.0f, \"cold_lock_us\": %.3f",
			 kind, s.alloc_ns / 1e3, s.get_ns / 1e3, s.put_ns / 1e3, s.max_ns / 1e3, s.fill_ns / 1e6, s.faults, g.cycle_ns / s.cycle_ns,
			 nonfill / (s.alloc_ns > 1 ? s.alloc_ns : 1), cold / 1e3);
		cz_bench_report(o, op, (uint64_t)iters[i], 1, s.cycle_ns / 1e6, extra);
		snprintf(op, sizeof(op), "glibc-%zuM", sizes[i] / MiB);
		snprintf(extra, sizeof(extra),
			 "\"malloc_free_trim_ms\": %.3f, \"trim_ms\": %.3f, \"fill_ms\": %.2f, "
			 "\"nonfill_ms\": %.2f, \"minflt_per_cycle\": %.1f, \"heap_mib\": %zu",
			 g.alloc_ns / 1e6, g.trim_ns / 1e6, g.fill_ns / 1e6, nonfill / 1e6, g.faults,
			 heap_mib);
		cz_bench_report(o, op, (uint64_t)iters[i], 1, g.cycle_ns / 1e6, extra);
	}
	heap_free(heap, nheap);
	cz_slab_cache_destroy(small);
	cz_slab_arena_destroy(a);
	if (added)
		cz_region_hugepages_add(-added, NULL);
	return rc;
}
