/* SPDX-License-Identifier: MIT */
/* Description: slab caches never hand out overlapping memory (interval and occupancy-bitmap oracles, stamps on every object), survive many threads, recycle without page faults, shrink, and catch overruns in debug mode. */
#define _GNU_SOURCE
#include "alloc/slab.h"
#include "selftests/cz_test.h"
#include "lib/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
/* Room for the stress test's worst case, which is not its live set (at most
 * 160 objects, ~240 MiB if all were the largest) but what the slab keeps
 * per size class: cz_slab_alloc's sizes up to 512 KiB touch ~52 classes, each
 * holding at least one 2 MiB slab, and every thread's magazines (up to 1 MiB
 * each, two per class) keep free objects out of the arena, and other
 * threads' magazines are not reclaimed (alloc/slab.c, slab_alloc).  At
 * 256 MiB 2 of 8 runs on the loaded 2-core machine got one NULL; at 512 MiB
 * 0 of 13 (2026-12-01).  That fits the arena running out, not a defect, but
 * it is the reading of the figures, not a proof. */
#define ARENA (512 * MiB)
#define GRAN 16 /* occupancy granule: every object starts 16-aligned */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- stamps: owner-unique content at head, middle and tail ---- */

static void stamp(unsigned char *p, size_t n, uint64_t tag)
{
	uint64_t nt = ~tag;
	memcpy(p, &tag, 8);
	memcpy(p + n - 8, &nt, 8);
	if (n <= 1024)
		memset(p + 8, (int)(tag >> 56), n - 16);
	else
		memcpy(p + (n / 2 & ~(size_t)7), &tag, 8);
}

static int stamp_ok(const unsigned char *p, size_t n, uint64_t tag)
{
	uint64_t a, b;
	memcpy(&a, p, 8);
	memcpy(&b, p + n - 8, 8);
	if (a != tag || b != ~tag)
		return 0;
	if (n <= 1024) {
		for (size_t i = 8; i < n - 8; i++)
			if (p[i] != (unsigned char)(tag >> 56))
				return 0;
	} else {
		memcpy(&a, p + (n / 2 & ~(size_t)7), 8);
		if (a != tag)
			return 0;
	}
	return 1;
}

/* ---- occupancy bitmap: one bit per 16 bytes of the region; a live object
 * sets its bits, and finding one already set is an overlap. ---- */

static _Atomic uint64_t *occ;
static atomic_int overlaps;

static void occ_mark(struct cz_slab_arena *a, const void *p, size_t n, int on)
{
	uint64_t off = cz_slab_off(a, p);
	size_t g0 = off / GRAN, g1 = (off + n + GRAN - 1) / GRAN;

	for (size_t g = g0; g < g1;) {
		size_t w = g / 64, lo = g % 64, hi = (g1 - w * 64) < 64 ? g1 - w * 64 : 64;
		uint64_t m = (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
		if (on) {
			if (atomic_fetch_or(&occ[w], m) & m)
				atomic_fetch_add(&overlaps, 1);
		} else {
			if ((atomic_fetch_and(&occ[w], ~m) & m) != m)
				atomic_fetch_add(&overlaps, 1);
		}
		g = w * 64 + hi;
	}
}

/* ---- single-thread geometry ---- */

struct iv {
	uint64_t off, len;
};

static int cmp_iv(const void *x, const void *y)
{
	const struct iv *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

static void test_exact(struct cz_slab_arena *a, const char *what)
{
	static const size_t sizes[] = { 48, 5000, 3 * MiB, 20 * MiB };
	static const unsigned counts[] = { 3000, 600, 12, 3 };
	enum { NS = 4, MAXN = 3000 + 600 + 12 + 3 };
	struct cz_slab_cache *c[NS];
	static void *objs[MAXN];
	static struct iv iv[MAXN];
	const struct cz_region *r = cz_slab_region(a);
	unsigned n = 0, bounds = 1;

	for (int k = 0; k < NS; k++) {
		c[k] = cz_slab_cache_create(a, "t", sizes[k], 0);
		for (unsigned i = 0; i < counts[k] && c[k]; i++) {
			void *p = cz_slab_get(c[k]);
			if (!p) {
				bounds = 0;
				break;
			}
			uint64_t off = cz_slab_off(a, p);
			size_t align = sizes[k] >= 65536 ? 4096 : sizes[k] >= 64 ? 64 : 16;
			bounds &= off + sizes[k] <= r->size && off % align == 0 &&
				  cz_slab_ptr(a, off) == p && cz_slab_usable(a, p) == sizes[k];
			stamp(p, sizes[k], ((uint64_t)k << 56) ^ (n * 0x9e3779b97f4a7c15ull));
			objs[n] = p;
			iv[n++] = (struct iv){ off, sizes[k] };
		}
	}
	ct_ok(bounds && n == MAXN, "%s: %u objects of 4 exact caches inside the region, aligned, offsets round-trip",
	      what, n);
	int ok = 1;
	for (unsigned i = 0; i < n; i++) {
		int k = i < 3000 ? 0 : i < 3600 ? 1 : i < 3612 ? 2 : 3;
		ok &= stamp_ok(objs[i], sizes[k], ((uint64_t)k << 56) ^ (i * 0x9e3779b97f4a7c15ull));
	}
	qsort(iv, n, sizeof(iv[0]), cmp_iv);
	for (unsigned i = 1; i < n; i++)
		ok &= iv[i - 1].off + iv[i - 1].len <= iv[i].off;
	ct_ok(ok, "%s: no two objects overlap (sorted intervals) and every stamp survived", what);

	struct cz_slab_stat s0, s1;
	cz_slab_stat(a, &s0);
	for (int round = 0; round < 3; round++) {
		for (unsigned i = 0; i < n; i++) {
			int k = i < 3000 ? 0 : i < 3600 ? 1 : i < 3612 ? 2 : 3;
			cz_slab_put(c[k], objs[i]);
		}
		for (unsigned i = 0; i < n; i++) {
			int k = i < 3000 ? 0 : i < 3600 ? 1 : i < 3612 ? 2 : 3;
			objs[i] = cz_slab_get(c[k]);
		}
	}
	cz_slab_stat(a, &s1);
	ct_ok(s1.slab_bytes == s0.slab_bytes && s1.grows == s0.grows && s1.populated_bytes == s0.populated_bytes,
	      "%s: 3 rounds of put-all/get-all recycle: no new slab (%zu MiB in slabs)", what,
	      s1.slab_bytes / MiB);
	for (unsigned i = 0; i < n; i++) {
		int k = i < 3000 ? 0 : i < 3600 ? 1 : i < 3612 ? 2 : 3;
		cz_slab_put(c[k], objs[i]);
	}
	for (int k = 0; k < NS; k++)
		cz_slab_cache_destroy(c[k]);
}

static void test_classes(struct cz_slab_arena *a, const char *what)
{
	enum { N = 400 };
	static void *p[N];
	static size_t sz[N];
	uint64_t s = 12345;
	int ok = 1;

	for (int i = 0; i < N; i++) {
		int big = i % 20 == 0;
		sz[i] = 1 + next_rand(&s) % (big ? 4 * MiB : 20000);
		p[i] = cz_slab_alloc(a, sz[i]);
		size_t u = p[i] ? cz_slab_usable(a, p[i]) : 0;
		/* class rounding: 64 B minimum, then at most a quarter more */
		ok &= p[i] && u >= sz[i] && u <= (sz[i] < 64 ? 64 : sz[i] + sz[i] / 4 + 16);
		if (p[i]) {
			occ_mark(a, p[i], u, 1);
			if (u >= 16)
				stamp(p[i], u, (uint64_t)i * 0x51ed2701ull + 7);
		}
	}
	for (int i = 0; i < N; i++) {
		if (!p[i])
			continue;
		size_t u = cz_slab_usable(a, p[i]);
		if (u >= 16)
			ok &= stamp_ok(p[i], u, (uint64_t)i * 0x51ed2701ull + 7);
		occ_mark(a, p[i], u, 0);
		cz_slab_free(a, p[i]);
	}
	cz_slab_thread_flush(); /* as a worker does before it idles */
	ct_ok(ok && !atomic_load(&overlaps),
	      "%s: %d size-class allocations (1 B..4 MiB): usable >= asked, <= 25%% over, disjoint", what, N);
}

/* ---- many threads, objects handed across threads ---- */

struct stress {
	struct cz_slab_arena *a;
	struct cz_slab_cache *c[3];
	_Atomic(void *) swap[64];   /* objects in flight between threads */
	atomic_int stop;
	atomic_long ops, bad, nulls;
};

static const size_t stress_sizes[3] = { 64, 4000, 1536 * 1024 };

/* Objects carry their own size and tag in the first 16 bytes. */
static void *obj_new(struct stress *st, uint64_t *rng)
{
	uint64_t r = next_rand(rng);
	static const unsigned kind[8] = { 0, 0, 0, 1, 1, 2, 3, 3 };
	unsigned k = kind[r % 8];
	void *p;
	size_t n;

	if (k < 3) {
		p = cz_slab_get(st->c[k]);
		n = stress_sizes[k];
	} else {
		n = 16 + (r >> 8) % ((r & 0xf00) == 0 ? MiB / 2 : 3000);
		p = cz_slab_alloc(st->a, n);
		n = p ? cz_slab_usable(st->a, p) : 0;
	}
	if (!p) {
		atomic_fetch_add(&st->nulls, 1);
		return NULL;
	}
	occ_mark(st->a, p, n, 1);
	stamp((unsigned char *)p + 16, n - 16, r | 1);
	uint64_t hdr[2] = { n | (uint64_t)k << 60, r | 1 };
	memcpy(p, hdr, 16);
	return p;
}

static void obj_free(struct stress *st, void *p)
{
	uint64_t hdr[2];
	memcpy(hdr, p, 16);
	size_t n = hdr[0] & ((1ull << 60) - 1);
	unsigned k = (unsigned)(hdr[0] >> 60);
	if (k > 3 || n < 32 || !stamp_ok((unsigned char *)p + 16, n - 16, hdr[1])) {
		atomic_fetch_add(&st->bad, 1);
		return; /* leak it: its memory is suspect */
	}
	occ_mark(st->a, p, n, 0);
	if (k < 3)
		cz_slab_put(st->c[k], p);
	else
		cz_slab_free(st->a, p);
}

static void *stress_thread(void *v)
{
	struct stress *st = v;
	uint64_t rng = (uint64_t)(uintptr_t)&rng * 0x9e3779b97f4a7c15ull | 1;
	void *mine[16] = { 0 };
	long ops = 0;

	while (!atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		uint64_t r = next_rand(&rng);
		unsigned i = (unsigned)(r >> 16) % 16;
		if (r % 5 == 0) { /* trade with another thread */
			void *x = atomic_exchange(&st->swap[(r >> 24) % 64], mine[i]);
			mine[i] = x;
		} else if (mine[i]) {
			obj_free(st, mine[i]);
			mine[i] = NULL;
		} else {
			mine[i] = obj_new(st, &rng);
		}
		ops++;
	}
	for (unsigned i = 0; i < 16; i++)
		if (mine[i])
			obj_free(st, mine[i]);
	atomic_fetch_add(&st->ops, ops);
	return NULL;
}

static void test_threads(struct cz_slab_arena *a, const char *what, double secs)
{
	enum { T = 6 };
	static struct stress st;
	pthread_t th[T];

	memset(&st, 0, sizeof(st));
	st.a = a;
	for (int k = 0; k < 3; k++)
		st.c[k] = cz_slab_cache_create(a, "stress", stress_sizes[k], 0);
	for (int i = 0; i < T; i++)
		pthread_create(&th[i], NULL, stress_thread, &st);
	double t0 = cz_now_ns() / 1e9;
	while (cz_now_ns() / 1e9 - t0 < secs)
		usleep(20000);
	atomic_store(&st.stop, 1);
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 64; i++) {
		void *p = atomic_load(&st.swap[i]);
		if (p)
			obj_free(&st, p);
	}
	ct_ok(!atomic_load(&st.bad) && !atomic_load(&overlaps) && !atomic_load(&st.nulls),
	      "%s: %d threads, %.1f s, %ld random gets/puts/trades: 0 overlaps, 0 bad stamps, 0 NULLs "
	      "(%d, %ld, %ld)",
	      what, T, secs, atomic_load(&st.ops), atomic_load(&overlaps), atomic_load(&st.bad),
	      atomic_load(&st.nulls));
	for (int k = 0; k < 3; k++)
		cz_slab_cache_destroy(st.c[k]);
}

/* ---- page faults and shrink ---- */

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static void test_faults_and_shrink(struct cz_slab_arena *a, const char *what)
{
	struct cz_slab_cache *c = cz_slab_cache_create(a, "buf", 8 * MiB, 0);
	struct cz_slab_stat s0, s1, s2;

	for (int i = 0; i < 3; i++) { /* warm-up: slab creation prefaults */
		void *p = cz_slab_get(c);
		memset(p, i, 8 * MiB);
		cz_slab_put(c, p);
	}
	long f0 = minflt();
	for (int i = 0; i < 50; i++) {
		void *p = cz_slab_get(c);
		memset(p, i, 8 * MiB);
		cz_slab_put(c, p);
	}
	long f = minflt() - f0;
	if (SANITIZED && f)
		ct_skip("sanitizer shadow memory faults on its own", "%s: faults after warm-up: %ld", what, f);
	else
		ct_ok(f == 0, "%s: 50 get+fill(8 MiB)+put cycles after warm-up: %ld minor page faults", what, f);

	cz_slab_stat(a, &s0);
	size_t rel = cz_slab_shrink(a, SIZE_MAX);
	cz_slab_stat(a, &s1);
	void *p = cz_slab_get(c);
	memset(p, 0x77, 8 * MiB);
	int rw = ((unsigned char *)p)[8 * MiB - 1] == 0x77;
	cz_slab_stat(a, &s2);
	cz_slab_put(c, p);
	ct_ok(rel > 0 && rel >= s0.slab_bytes && s1.slab_bytes == 0 && s1.populated_bytes == 0 &&
		      s1.released_bytes >= rel && rw && s2.populated_bytes > 0,
	      "%s: shrink released %zu MiB, all slabs empty or free (populated %zu -> %zu MiB); "
	      "a later get re-populates",
	      what, rel / MiB, s0.populated_bytes / MiB, s1.populated_bytes / MiB);
	/* bounded: three 8 MiB objects (three slabs), shrink 20 MiB: two go */
	void *q[3];
	for (int i = 0; i < 3; i++)
		q[i] = cz_slab_get(c);
	for (int i = 0; i < 3; i++)
		cz_slab_put(c, q[i]);
	rel = cz_slab_shrink(a, 20 * MiB);
	cz_slab_stat(a, &s1);
	ct_ok(rel == 16 * MiB && s1.slab_bytes == 8 * MiB, "%s: bounded shrink(20 MiB) released %zu MiB, kept %zu MiB",
	      what, rel / MiB, s1.slab_bytes / MiB);
	cz_slab_cache_destroy(c);
}

/* ---- debug mode, arena full, cache id reuse ---- */

static atomic_int corruptions;
static const char *last_what;
static void count_corruption(const char *what, const void *p)
{
	(void)p;
	last_what = what;
	atomic_fetch_add(&corruptions, 1);
}

static void test_debug(struct cz_slab_arena *a)
{
	struct cz_slab_cache *c = cz_slab_cache_create(a, "dbg", 100, CZ_SLAB_DEBUG);
	unsigned char *p = cz_slab_get(c), *q = cz_slab_get(c);

	cz_slab_on_corruption(count_corruption);
	memset(p, 1, 100);
	cz_slab_put(c, p);
	int clean = atomic_load(&corruptions) == 0;
	q[100] = 0; /* one byte past the end */
	cz_slab_put(c, q);
	int over = atomic_load(&corruptions) == 1;
	ct_ok(clean && over, "debug cache: a clean put passes, a 1-byte overrun is reported (%s)",
	      last_what ? last_what : "nothing");
	unsigned char *r = cz_slab_get(c); /* LIFO: q again, canary restored */
	int again = atomic_load(&corruptions) == 1;
	cz_slab_put(c, r);
	r[5] = 9; /* write after put */
	unsigned char *t = cz_slab_get(c);
	ct_ok(again && t == r && atomic_load(&corruptions) == 2,
	      "debug cache: a write after put is reported at the next get (%d reports)",
	      atomic_load(&corruptions));
	cz_slab_put(c, t);
	cz_slab_on_corruption(NULL);
	cz_slab_cache_destroy(c);
}

static void test_full(void)
{
	struct cz_slab_arena *a = cz_slab_arena_create(64 * MiB, CZ_REGION_NODE_NONE,
						       CZ_REGION_NO_HUGETLB | CZ_REGION_QUIET, 0);
	struct cz_slab_cache *c = a ? cz_slab_cache_create(a, "big", 40 * MiB, 0) : NULL;
	void *p = c ? cz_slab_get(c) : NULL, *q = c ? cz_slab_get(c) : NULL;
	ct_ok(p && !q, "a full arena returns NULL, not a crash");
	cz_slab_put(c, p);
	cz_slab_arena_destroy(a);
}

struct idarg {
	struct cz_slab_cache *volatile c;
	pthread_barrier_t bar;
	int ok;
};

static void *id_thread(void *v)
{
	struct idarg *x = v;
	void *p = cz_slab_get(x->c);
	cz_slab_put(x->c, p); /* stays in this thread's magazine */
	pthread_barrier_wait(&x->bar); /* main destroys the cache, makes a new one */
	pthread_barrier_wait(&x->bar);
	void *q = cz_slab_get(x->c);
	x->ok = q && cz_slab_cache_objsize(x->c) == 1000;
	if (q) {
		memset(q, 3, 1000);
		cz_slab_put(x->c, q);
	}
	return NULL; /* exit flushes the magazine */
}

static void test_id_reuse(struct cz_slab_arena *a)
{
	struct idarg x = { .c = cz_slab_cache_create(a, "old", 500, 0) };
	pthread_t th;
	struct cz_slab_stat s;

	pthread_barrier_init(&x.bar, NULL, 2);
	pthread_create(&th, NULL, id_thread, &x);
	pthread_barrier_wait(&x.bar);
	cz_slab_cache_destroy(x.c);
	x.c = cz_slab_cache_create(a, "new", 1000, 0);
	pthread_barrier_wait(&x.bar);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&x.bar);
	cz_slab_shrink(a, SIZE_MAX);
	cz_slab_stat(a, &s);
	ct_ok(x.ok && s.slab_bytes == 0,
	      "a thread that used a destroyed cache uses its successor; its exit returns the magazine "
	      "(slabs left %zu)",
	      s.slab_bytes);
	cz_slab_cache_destroy(x.c);
}

static void run_arena(struct cz_slab_arena *a, const char *what, int extras)
{
	test_exact(a, what);
	test_classes(a, what);
	test_threads(a, what, 1.5);
	cz_slab_thread_flush();
	/* everything is back: every slab empty, so a full shrink empties the arena */
	test_faults_and_shrink(a, what);
	if (extras) {
		test_debug(a);
		test_id_reuse(a);
	}
}

int main(void)
{
	long added = 0;

	ct_plan(21);
	occ = calloc(ARENA / GRAN / 64, sizeof(*occ));

	/* hugetlb arena: needs 256 pages of 2 MiB; reserve them when root. */
	if (geteuid() == 0 && !cz_region_hugepages_add(ARENA / (2 * MiB) + 8, NULL))
		added = ARENA / (2 * MiB) + 8;
	struct cz_slab_arena *a = NULL;
	if (added || cz_region_hugepages_free(2 * MiB) >= (long)(ARENA / (2 * MiB)))
		a = cz_slab_arena_create(ARENA, CZ_REGION_NODE_LOCAL, CZ_REGION_NO_1G | CZ_REGION_QUIET, 0);
	if (a && cz_slab_region(a)->kind == CZ_REGION_HUGETLB_2M) {
		run_arena(a, "hugetlb arena", 0);
	} else {
		const char *why = geteuid() ? "not root and too few free hugepages (256 needed)"
					    : "hugepages could not be reserved";
		for (int i = 0; i < 8; i++)
			ct_skip(why, "hugetlb arena point %d", i + 1);
	}
	cz_slab_arena_destroy(a);
	if (added)
		cz_region_hugepages_add(-added, NULL);

	a = cz_slab_arena_create(ARENA, CZ_REGION_NODE_LOCAL, CZ_REGION_NO_HUGETLB | CZ_REGION_QUIET, 0);
	if (!ct_ok(a != NULL, "fallback arena of %zu MiB created (%s)", ARENA / MiB,
		   a ? cz_region_kind_name(cz_slab_region(a)->kind) : "-"))
		return ct_exit();
	run_arena(a, "fallback arena", 1);
	cz_slab_arena_destroy(a);
	test_full();
	free(occ);
	return ct_exit();
}
