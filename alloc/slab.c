/* SPDX-License-Identifier: MIT */
/*
 * alloc/slab.c — the cuzk memory allocator: slab caches with per-thread
 * magazines over hugepage regions.
 *
 * WHY.  A prover holds hundreds of GiB of partition buffers (witness, the
 * a/b/c vectors, NTT scratch: MiB to GiB each) and a stream of small
 * descriptors, and recycles them once per partition.  Through glibc that
 * cost seconds per partition: big blocks are mmap'd fresh, so every page
 * faults on first touch (262144 faults per GiB of 4 KiB pages), and
 * malloc_trim(0), called to give memory back, walks every arena (0.1 s at
 * 1 GiB of heap, over 1 s at 8 GiB).  Here a buffer is recycled, not
 * returned: get/put cost nanoseconds (see COSTS and BUFFER CACHES), pages
 * are faulted once when a slab is created and never again, and memory goes
 * back to the OS only when the control plane asks (cz_slab_shrink), never
 * on the hot path.
 *
 * MEMORY SOURCES (alloc/region.c).  An arena owns one region: a memfd
 * mapped shared, so another process can map it from the fd.  First choice
 * hugetlb pages (1 GiB where enough are reserved, else 2 MiB); if the pool
 * is short, transparent huge pages (MADV_HUGEPAGE; on a memfd only when
 * shmem THP is enabled); else normal pages.  The first fallback logs one
 * stderr line naming the source and how to reserve hugepages.  Pages are
 * bound to a NUMA node (mbind) before first touch.  Regions are few and
 * large so that registering them for GPU DMA later is a handful of calls.
 *
 * LAYOUT.  The region is cut into 2 MiB units.  A slab is a run of units
 * holding objects of one cache; a bit map says which units are free, a
 * second which are populated, and owner[] maps a unit to its slab, so a
 * bare address finds its cache.  All metadata lives in private memory of the
 * owning process: the region holds object bytes only, named by offset.
 *
 *   region base                                                  base+size
 *   | u0 | u1 | u2 | u3 | u4 | u5 | u6 | u7 | u8 | ... 2 MiB units ... |
 *   |<- slab: "witness", 1 obj ->|<- kmalloc-256 ->|free|<- slab ... ->|
 *   | obj 0 (5.5 MiB)      |waste|o|o|o|o|o|o|...|    |                |
 *
 *   owner[] : unit -> struct slab (private)     freemap, popmap: 1 bit/unit
 *   struct slab: cache, first object, stack of free object indices
 *
 * CACHES AND SIZE CLASSES.  cz_slab_cache_create() makes a cache of one
 * exact size (the daemon knows its buffer sizes once it knows the
 * circuit).  cz_slab_alloc() uses lazily created classes: 64 B, then 4 steps
 * per power of two up to 1 MiB (≤ 25% rounding) and 8 steps above (≤ 12.5%).
 * Slab geometry: objects up to 256 KiB share one unit; objects of 16 MiB and
 * more get a slab of their own, rounded up to units; in between, the fewest
 * objects (1..16) that waste at most 1/8 of the slab.
 *
 * MAGAZINES AND DEPOT (Bonwick & Adams, "Magazines and Vmem", 2001).  Each
 * thread has, per cache, a loaded and a previous magazine (arrays of object
 * pointers).  get pops from loaded; if it is empty and previous is full they
 * swap; put pushes likewise.  Previous is always full or empty, so after a
 * trip to the depot the thread can do a whole magazine of gets or puts
 * without returning.  The depot (per cache, one lock) keeps full and empty
 * magazines; only when it has no full one does get reach the slab layer
 * (the cache lock), and only when that has no free object is a new slab
 * carved from the arena (the arena lock) and prefaulted.  A magazine holds
 * up to 1 MiB of objects (1 to 64 rounds), so a thread hoards little.
 *
 * BUFFER CACHES.  Objects of 16 MiB and more (partition buffers) have no
 * magazines: a thread parking two 1 GiB buffers would make the next get
 * carve a slab the budget never planned for.  Their depot is instead one
 * stack of free objects (sized for all the region could hold) under the
 * depot lock, its top entry, count and lock in the cache's first cache
 * line: a put is one lock, one store, one unlock on one line.  That matters
 * because a buffer is put right after a fill of hundreds of MiB has flushed
 * the caches and TLB, and on the test VM one locked instruction on a cold
 * line costs ~1.1 us by itself (DRAM miss plus a nested page walk; cuzk
 * bench slab measures it as cold_lock_us).  Through the slab layer (slab,
 * owner map, neighbours' list links) a put after a fill took ~4 us; with the
 * stack in its own array ~1.6 us; the first-line layout brings it to the
 * one-line floor.  Warm, get+put is ~17 ns.
 *
 *   thread T: [loaded][prev] --\            depot: full mags  empty mags
 *   thread U: [loaded][prev] ---+-- lock --> [m][m][m]        [m][m]
 *                                              | miss
 *                                     slab layer: partial -> empty -> grow
 *
 * COSTS.  get/put with a round (or room) in the loaded magazine: a TLS
 * load, an index, a compare of the cache generation, a pointer move: a few
 * ns.  A depot trip: one uncontended mutex, ~20-40 ns, amortized over a
 * magazine.  The slab layer: a mutex and a free-index stack.  Growing: the
 * arena's first-fit scan plus MADV_POPULATE_WRITE (the only page faults).
 *
 * STATES.  A slab is on one of its cache's lists: partial (some objects
 * free), empty (all free), full (none free).  Empty slabs stay cached
 * until cz_slab_shrink returns them to the arena and punches their pages out
 * of the memfd (fallocate PUNCH_HOLE; MADV_DONTNEED when private); a unit so
 * released is marked unpopulated and prefaulted again if a later slab takes
 * it.  Cache destroy gives its slabs back to the arena still populated.
 *
 * THREADS.  Per-thread state is a table indexed by cache id; an entry is
 * valid while its generation equals the cache's (generations are never
 * reused; ids are).  Thread exit (a pthread key destructor) and cache
 * destroy detach entries under one global registry lock; destroy requires
 * that no other thread uses the cache any more.  Lock order: arena cfg ->
 * registry -> depot -> cache -> arena.
 *
 * FAILURE MODES.  Region full: get returns NULL (the budget, alloc/budget.c,
 * keeps the daemon from getting there).  Hugetlb pool taken by someone else
 * after a shrink: the re-populate fails and get returns NULL instead of a
 * SIGBUS later.  Magazine malloc failure: the object goes to the slab layer
 * directly.  Debug caches (CZ_SLAB_DEBUG) put a canary after each object
 * and poison the head of free objects; an overrun or a write after put is
 * reported at the next put or get.
 */
#define _GNU_SOURCE
#include "alloc/slab.h"
#include "lib/lock.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_SHIFT 21
#define UNIT ((size_t)1 << UNIT_SHIFT)
#define MAX_CACHES 1024
#define NCLASS 232            /* 64 B .. 2^41 B, see class_of() */
#define CANARY 0xc2a7c2a7deadbeefull
#define POISON 0x6b           /* "freed", as in kmem */
#define POISON_LEN 64
#define BIG_MIN ((size_t)16 << 20) /* objects this big use the buffer stack, not magazines */

struct mag {
	struct mag *next;         /* depot list */
	unsigned n;               /* rounds held */
	void *obj[];              /* magsize slots */
};

struct tcache {
	_Atomic uint64_t gen;     /* cache->gen while attached, 0 detached */
	struct cz_slab_cache *cache; /* set/cleared under reg_lock */
	struct mag *loaded;       /* owner thread only (or reg_lock holders after it stopped) */
	struct mag *prev;         /* full or empty, never in between */
	struct tcache *rnext, *rprev; /* the cache's registry, reg_lock */
};

struct slab {
	struct slab *next, *prev; /* on one of the cache's lists */
	struct cz_slab_cache *cache;
	char *mem;                /* first object */
	size_t first_unit;        /* region unit index */
	uint32_t units;           /* run length */
	uint32_t nobj;            /* objects in the slab */
	uint32_t nfree;           /* valid entries of freeidx */
	int list;                 /* L_PARTIAL, L_EMPTY, L_FULL */
	uint32_t freeidx[];       /* stack of free object indices */
};

enum { L_PARTIAL, L_EMPTY, L_FULL, NLISTS };

struct cz_slab_cache {
	/* First cache line: everything a buffer-cache get or put touches, so
	 * a put right after a fill costs one cold line, not three. */
	pthread_mutex_t dlock;    /* depot (and buffer stack) */
	unsigned flags;           /* CZ_SLAB_* */
	unsigned bn;              /* buffer caches: free objects held (dlock) */
	void **bstack;            /* buffer caches: free objects 2.., NULL otherwise */
	void *btop;               /* buffer caches: free object 1 */
	/* ---- */
	struct cz_slab_arena *a;
	char name[32];
	size_t size;              /* usable bytes */
	size_t slot;              /* stride between objects */
	unsigned id;              /* index into every thread's table */
	unsigned magsize;         /* rounds per magazine */
	uint64_t gen;             /* unique per cache ever created */
	uint32_t slab_units;      /* units per slab */
	uint32_t slab_objs;       /* objects per slab */
	struct mag *dfull;        /* depot: full magazines */
	struct mag *dempty;       /* depot: empty magazines */
	pthread_mutex_t lock;     /* slab layer */
	struct slab *lists[NLISTS];
	struct tcache *reg;       /* threads attached (reg_lock) */
	struct cz_slab_cache *anext; /* arena's cache list (arena cfg lock) */
	/* Slab headers for every slab the region could hold, made with the
	 * cache (caches of <= HDR_POOL_OBJS objects per slab: partition
	 * buffers), so a slab grown on the hot path makes no heap call. */
	char *hdrs;               /* nhdr headers of hdrsz bytes, or NULL */
	size_t nhdr, hdrsz;
	struct slab *hfree;       /* unused headers (lock) */
} __attribute__((aligned(64)));

#define HDR_POOL_OBJS 64

_Static_assert(offsetof(struct cz_slab_cache, btop) + sizeof(void *) <= 64,
	       "buffer-cache fields must share the first cache line");

/* The buffer stack, dlock held: entry 0 lives in the cache's first line. */
static void bpush(struct cz_slab_cache *c, void *p)
{
	if (c->bn)
		c->bstack[c->bn - 1] = p;
	else
		c->btop = p;
	c->bn++;
}

static void *bpop(struct cz_slab_cache *c)
{
	if (!c->bn)
		return NULL;
	c->bn--;
	return c->bn ? c->bstack[c->bn - 1] : c->btop;
}

struct cz_slab_arena {
	struct cz_region r;
	unsigned flags;           /* default cache flags */
	pthread_mutex_t cfg;      /* cache list, class creation, shrink */
	pthread_mutex_t lock;     /* unit maps and counters */
	size_t nunits;
	uint64_t *freemap;        /* 1 = unit free */
	uint64_t *popmap;         /* 1 = unit's pages present */
	struct slab **owner;      /* unit -> slab */
	struct cz_slab_cache *caches;
	struct cz_slab_cache *_Atomic cls[NCLASS];
	size_t units_used, units_populated, released;
	uint64_t grows, shrinks;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cz_slab_cache *ids[MAX_CACHES]; /* live caches by id (reg_lock) */
static uint64_t last_gen;                     /* reg_lock */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t tc_key;
static __thread struct tcache **tc_tab;       /* MAX_CACHES entries, lazily */

static void default_corruption(const char *what, const void *p)
{
	fprintf(stderr, "cuzk: slab: %s at %p\n", what, p);
	abort();
}

static void (*_Atomic on_corruption)(const char *, const void *) = default_corruption;

void cz_slab_on_corruption(void (*fn)(const char *what, const void *p))
{
	atomic_store(&on_corruption, fn ? fn : default_corruption);
}

static void corrupt(const char *what, const void *p)
{
	atomic_load(&on_corruption)(what, p);
}

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/* ---- arena: units of the region ---------------------------------------- */

static bool bit(const uint64_t *m, size_t i)
{
	return m[i / 64] >> (i % 64) & 1;
}

static void set_bits(uint64_t *m, size_t i, size_t n, bool v)
{
	for (size_t k = i; k < i + n; k++) {
		if (v)
			m[k / 64] |= 1ull << (k % 64);
		else
			m[k / 64] &= ~(1ull << (k % 64));
	}
}

/* First fit over the free map; arena lock held.  Skips full words. */
static long find_run(struct cz_slab_arena *a, size_t n)
{
	size_t i = 0;

	while (i + n <= a->nunits) {
		if (!(i % 64) && !a->freemap[i / 64]) {
			i += 64;
			continue;
		}
		if (!bit(a->freemap, i)) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < a->nunits && j - i < n && bit(a->freemap, j))
			j++;
		if (j - i == n)
			return (long)i;
		i = j;
	}
	return -1;
}

/* Punches out every populated region page overlapping units [u, u+n)
 * that is wholly free.  Arena lock held. */
static void punch_free(struct cz_slab_arena *a, size_t u, size_t n)
{
	size_t upp = a->r.page_size > UNIT ? a->r.page_size / UNIT : 1; /* units per page */
	for (size_t p = u / upp * upp; p < u + n; p += upp) {
		bool whole = true, pop = false;
		for (size_t k = p; k < p + upp && k < a->nunits; k++) {
			whole &= bit(a->freemap, k);
			pop |= bit(a->popmap, k);
		}
		if (!whole || !pop)
			continue;
		size_t len = upp * UNIT;
		if (cz_region_release(&a->r, p * UNIT, len))
			continue;
		for (size_t k = p; k < p + upp && k < a->nunits; k++)
			if (bit(a->popmap, k)) {
				set_bits(a->popmap, k, 1, false);
				a->units_populated--;
				a->released += UNIT;
			}
	}
}

/* Returns a run to the free map; with release, gives its pages back to
 * the OS.  Arena lock held. */
static void free_run(struct cz_slab_arena *a, size_t u, size_t n, bool release)
{
	set_bits(a->freemap, u, n, true);
	for (size_t k = u; k < u + n; k++)
		a->owner[k] = NULL;
	a->units_used -= n;
	if (release)
		punch_free(a, u, n);
}

/* Takes a run of n units for slab s and makes sure its pages are present.
 * The populate runs outside the arena lock: the run is already ours. */
static long take_run(struct cz_slab_arena *a, size_t n)
{
	pthread_mutex_lock(&a->lock);
	long u = find_run(a, n);
	if (u < 0) {
		pthread_mutex_unlock(&a->lock);
		return -1;
	}
	set_bits(a->freemap, (size_t)u, n, false);
	a->units_used += n;
	size_t lo = SIZE_MAX, hi = 0;
	for (size_t k = (size_t)u; k < (size_t)u + n; k++)
		if (!bit(a->popmap, k)) {
			lo = lo < k ? lo : k;
			hi = k + 1;
		}
	pthread_mutex_unlock(&a->lock);
	if (hi && cz_region_populate(&a->r, lo * UNIT, (hi - lo) * UNIT)) {
		pthread_mutex_lock(&a->lock);
		free_run(a, (size_t)u, n, false);
		pthread_mutex_unlock(&a->lock);
		return -1;
	}
	pthread_mutex_lock(&a->lock);
	for (size_t k = lo; k < hi; k++)
		if (!bit(a->popmap, k)) {
			set_bits(a->popmap, k, 1, true);
			a->units_populated++;
		}
	a->grows++;
	pthread_mutex_unlock(&a->lock);
	return u;
}

struct cz_slab_arena *cz_slab_arena_create(size_t capacity, int node, unsigned region_flags,
					   unsigned flags)
{
	struct cz_slab_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (cz_region_create(&a->r, round_up(capacity ? capacity : UNIT, UNIT), node,
			     region_flags | CZ_REGION_LAZY)) {
		free(a);
		return NULL;
	}
	a->flags = flags;
	a->nunits = a->r.size / UNIT;
	size_t words = (a->nunits + 63) / 64;
	a->freemap = calloc(words, 8);
	a->popmap = calloc(words, 8);
	a->owner = calloc(a->nunits, sizeof(*a->owner));
	if (!a->freemap || !a->popmap || !a->owner) {
		cz_slab_arena_destroy(a);
		return NULL;
	}
	set_bits(a->freemap, 0, a->nunits, true);
	pthread_mutex_init(&a->cfg, NULL);
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

const struct cz_region *cz_slab_region(const struct cz_slab_arena *a)
{
	return &a->r;
}

uint64_t cz_slab_off(const struct cz_slab_arena *a, const void *p)
{
	return cz_region_off(&a->r, p);
}

void *cz_slab_ptr(const struct cz_slab_arena *a, uint64_t off)
{
	return cz_region_ptr(&a->r, off);
}

/* ---- slab layer ---------------------------------------------------------- */

static void list_del(struct cz_slab_cache *c, struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		c->lists[s->list] = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

static void list_add(struct cz_slab_cache *c, struct slab *s, int l)
{
	s->list = l;
	s->prev = NULL;
	s->next = c->lists[l];
	if (s->next)
		s->next->prev = s;
	c->lists[l] = s;
}

static void list_move(struct cz_slab_cache *c, struct slab *s)
{
	int l = s->nfree == 0 ? L_FULL : s->nfree == s->nobj ? L_EMPTY : L_PARTIAL;
	if (l != s->list) {
		list_del(c, s);
		list_add(c, s, l);
	}
}

static void debug_init(struct cz_slab_cache *c, char *obj)
{
	uint64_t k = CANARY;
	memcpy(obj + c->size, &k, 8);
	memset(obj, POISON, c->size < POISON_LEN ? c->size : POISON_LEN);
}

/* A slab header: from the cache's pool when it has one; cache lock held. */
static struct slab *hdr_get(struct cz_slab_cache *c)
{
	struct slab *s = c->hfree;

	if (s) {
		c->hfree = s->next;
		return s;
	}
	return malloc(sizeof(*s) + c->slab_objs * sizeof(uint32_t));
}

static void hdr_put(struct cz_slab_cache *c, struct slab *s)
{
	if (c->hdrs && (char *)s >= c->hdrs && (char *)s < c->hdrs + c->nhdr * c->hdrsz) {
		s->next = c->hfree;
		c->hfree = s;
	} else {
		free(s);
	}
}

/* A new slab for c; cache lock held. */
static struct slab *grow(struct cz_slab_cache *c)
{
	struct cz_slab_arena *a = c->a;
	struct slab *s = hdr_get(c);

	if (!s)
		return NULL;
	long u = take_run(a, c->slab_units);
	if (u < 0) {
		hdr_put(c, s);
		return NULL;
	}
	*s = (struct slab){ .cache = c, .first_unit = (size_t)u, .units = c->slab_units,
			    .nobj = c->slab_objs, .nfree = c->slab_objs,
			    .mem = cz_region_ptr(&a->r, (uint64_t)u * UNIT) };
	for (uint32_t i = 0; i < s->nobj; i++)
		s->freeidx[i] = s->nobj - 1 - i; /* lowest address handed out first */
	if (c->flags & CZ_SLAB_DEBUG)
		for (uint32_t i = 0; i < s->nobj; i++)
			debug_init(c, s->mem + (size_t)i * c->slot);
	pthread_mutex_lock(&a->lock);
	for (size_t k = 0; k < s->units; k++)
		a->owner[s->first_unit + k] = s;
	pthread_mutex_unlock(&a->lock);
	list_add(c, s, L_EMPTY);
	return s;
}

static size_t reclaim(struct cz_slab_arena *a, size_t max_bytes, bool punch);

/* The slab layer.  When the arena has no room for a new slab, the calling
 * thread's magazines and every depot are emptied, the empty slabs of every
 * cache go back to the arena (still populated), and the grow is tried once
 * more.  Other threads' magazines are theirs: they stay. */
static void *slab_alloc(struct cz_slab_cache *c)
{
	struct slab *s;

	pthread_mutex_lock(&c->lock);
	s = c->lists[L_PARTIAL] ? c->lists[L_PARTIAL] : c->lists[L_EMPTY];
	if (!s && !(s = grow(c))) {
		pthread_mutex_unlock(&c->lock);
		cz_slab_thread_flush();
		if (!reclaim(c->a, SIZE_MAX, false))
			return NULL;
		pthread_mutex_lock(&c->lock);
		s = c->lists[L_PARTIAL] ? c->lists[L_PARTIAL] : c->lists[L_EMPTY];
		if (!s && !(s = grow(c))) {
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
	}
	uint32_t i = s->freeidx[--s->nfree];
	list_move(c, s);
	pthread_mutex_unlock(&c->lock);
	return s->mem + (size_t)i * c->slot;
}

static struct slab *slab_of(struct cz_slab_arena *a, const void *p)
{
	uint64_t off = cz_region_off(&a->r, p);
	if (off >= a->r.size)
		return NULL;
	return a->owner[off >> UNIT_SHIFT];
}

/* Cache lock held. */
static void slab_free_locked(struct cz_slab_cache *c, void *p)
{
	cz_mutex_assert_held(&c->lock);
	struct slab *s = slab_of(c->a, p);
	size_t i = (size_t)((char *)p - s->mem) / c->slot;

	s->freeidx[s->nfree++] = (uint32_t)i;
	list_move(c, s);
}

static void slab_free(struct cz_slab_cache *c, void *p)
{
	pthread_mutex_lock(&c->lock);
	slab_free_locked(c, p);
	pthread_mutex_unlock(&c->lock);
}

/* ---- per-thread magazines -------------------------------------------------- */

static struct mag *mag_new(struct cz_slab_cache *c)
{
	struct mag *m = malloc(sizeof(*m) + c->magsize * sizeof(void *));
	if (m)
		m->n = 0;
	return m;
}

/* Hands a thread's magazine back: full or empty to the depot, partly
 * filled ones emptied into the slab layer first.  reg_lock held. */
static void mag_return(struct cz_slab_cache *c, struct mag *m)
{
	if (!m)
		return;
	if (m->n && m->n < c->magsize) {
		pthread_mutex_lock(&c->lock);
		while (m->n)
			slab_free_locked(c, m->obj[--m->n]);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_lock(&c->dlock);
	struct mag **l = m->n ? &c->dfull : &c->dempty;
	m->next = *l;
	*l = m;
	pthread_mutex_unlock(&c->dlock);
}

/* reg_lock held. */
static void tcache_detach(struct tcache *t)
{
	struct cz_slab_cache *c = t->cache;

	mag_return(c, t->loaded);
	mag_return(c, t->prev);
	t->loaded = t->prev = NULL;
	if (t->rprev)
		t->rprev->rnext = t->rnext;
	else
		c->reg = t->rnext;
	if (t->rnext)
		t->rnext->rprev = t->rprev;
	t->cache = NULL;
	atomic_store_explicit(&t->gen, 0, memory_order_relaxed);
}

static void tc_exit(void *v)
{
	struct tcache **tab = v;

	pthread_mutex_lock(&reg_lock);
	for (unsigned i = 0; i < MAX_CACHES; i++) {
		if (!tab[i])
			continue;
		if (tab[i]->cache)
			tcache_detach(tab[i]);
		free(tab[i]);
	}
	pthread_mutex_unlock(&reg_lock);
	free(tab);
	tc_tab = NULL;
}

static void make_key(void)
{
	pthread_key_create(&tc_key, tc_exit);
}

void cz_slab_thread_flush(void)
{
	if (!tc_tab)
		return;
	pthread_mutex_lock(&reg_lock);
	for (unsigned i = 0; i < MAX_CACHES; i++) {
		struct tcache *t = tc_tab[i];
		if (t && t->cache) {
			mag_return(t->cache, t->loaded);
			mag_return(t->cache, t->prev);
			t->loaded = t->prev = NULL;
		}
	}
	pthread_mutex_unlock(&reg_lock);
}

/* The calling thread's state for c, attaching it on first use. */
static struct tcache *tcache_get(struct cz_slab_cache *c)
{
	struct tcache *t;

	if (!tc_tab) {
		pthread_once(&key_once, make_key);
		tc_tab = calloc(MAX_CACHES, sizeof(*tc_tab));
		if (!tc_tab)
			return NULL;
		pthread_setspecific(tc_key, tc_tab);
	}
	t = tc_tab[c->id];
	if (t && atomic_load_explicit(&t->gen, memory_order_relaxed) == c->gen)
		return t;
	if (!t && !(t = tc_tab[c->id] = calloc(1, sizeof(*t))))
		return NULL;
	pthread_mutex_lock(&reg_lock);
	if (t->cache) /* still attached to the cache that had this id: it is gone */
		tcache_detach(t);
	t->cache = c;
	t->rprev = NULL;
	t->rnext = c->reg;
	if (t->rnext)
		t->rnext->rprev = t;
	c->reg = t;
	atomic_store_explicit(&t->gen, c->gen, memory_order_relaxed);
	pthread_mutex_unlock(&reg_lock);
	return t;
}

/* Loaded and previous are both empty (or absent). */
static void *get_slow(struct cz_slab_cache *c)
{
	struct tcache *t;

	if ((c->flags & CZ_SLAB_NOMAG) || !(t = tcache_get(c)))
		return slab_alloc(c);
	if (t->loaded && t->loaded->n)
		return t->loaded->obj[--t->loaded->n]; /* first use after attach */
	pthread_mutex_lock(&c->dlock);
	struct mag *m = c->dfull;
	if (m) {
		c->dfull = m->next;
		if (t->prev) {
			t->prev->next = c->dempty;
			c->dempty = t->prev;
		}
		t->prev = t->loaded;
		t->loaded = m;
	}
	pthread_mutex_unlock(&c->dlock);
	if (m)
		return m->obj[--m->n];
	return slab_alloc(c);
}

/* Loaded and previous are both full (or absent). */
static void put_slow(struct cz_slab_cache *c, void *p)
{
	struct tcache *t;

	if ((c->flags & CZ_SLAB_NOMAG) || !(t = tcache_get(c))) {
		slab_free(c, p);
		return;
	}
	if (t->loaded && t->loaded->n < c->magsize) {
		t->loaded->obj[t->loaded->n++] = p; /* first use after attach */
		return;
	}
	pthread_mutex_lock(&c->dlock);
	struct mag *e = c->dempty;
	if (e)
		c->dempty = e->next;
	if (t->prev) {
		t->prev->next = c->dfull;
		c->dfull = t->prev;
		t->prev = NULL;
	}
	pthread_mutex_unlock(&c->dlock);
	if (!e && !(e = mag_new(c))) {
		slab_free(c, p);
		return;
	}
	t->prev = t->loaded;
	t->loaded = e;
	e->obj[e->n++] = p;
}

static void debug_check(struct cz_slab_cache *c, char *p, bool at_get)
{
	struct slab *s = slab_of(c->a, p);
	uint64_t k;

	if (!s || s->cache != c || (size_t)(p - s->mem) % c->slot ||
	    (size_t)(p - s->mem) / c->slot >= s->nobj) {
		corrupt(at_get ? "object not from this cache (get)" : "put of a foreign pointer", p);
		return;
	}
	memcpy(&k, p + c->size, 8);
	if (k != CANARY) {
		corrupt("canary overwritten (buffer overrun)", p);
		k = CANARY; /* report each overrun once */
		memcpy(p + c->size, &k, 8);
	}
	if (at_get) {
		size_t n = c->size < POISON_LEN ? c->size : POISON_LEN;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] != POISON) {
				corrupt("free object modified (write after put)", p);
				break;
			}
	} else {
		memset(p, POISON, c->size < POISON_LEN ? c->size : POISON_LEN);
	}
}

/* Fast path: a TLS load, a table index, a generation compare, a pop.
 * No atomics beyond a relaxed load, no lock. */
void *cz_slab_get(struct cz_slab_cache *c)
{
	struct tcache *t;
	struct mag *m;
	void *p;

	if (c->bstack) { /* buffer cache: one lock, a pop */
		pthread_mutex_lock(&c->dlock);
		p = bpop(c);
		pthread_mutex_unlock(&c->dlock);
		if (!p)
			p = slab_alloc(c);
		goto out;
	}
	if (tc_tab && (t = tc_tab[c->id]) &&
	    atomic_load_explicit(&t->gen, memory_order_relaxed) == c->gen) {
		if ((m = t->loaded) && m->n) {
			p = m->obj[--m->n];
			goto out;
		}
		if ((m = t->prev) && m->n) { /* previous is full: swap */
			t->prev = t->loaded;
			t->loaded = m;
			p = m->obj[--m->n];
			goto out;
		}
	}
	p = get_slow(c);
out:
	if (p && (c->flags & CZ_SLAB_DEBUG))
		debug_check(c, p, true);
	return p;
}

void cz_slab_put(struct cz_slab_cache *c, void *p)
{
	struct tcache *t;
	struct mag *m;

	if (!p)
		return;
	if (c->flags & CZ_SLAB_DEBUG)
		debug_check(c, p, false);
	if (c->bstack) { /* buffer cache: one lock, a push */
		pthread_mutex_lock(&c->dlock);
		bpush(c, p);
		pthread_mutex_unlock(&c->dlock);
		return;
	}
	if (tc_tab && (t = tc_tab[c->id]) &&
	    atomic_load_explicit(&t->gen, memory_order_relaxed) == c->gen) {
		if ((m = t->loaded) && m->n < c->magsize) {
			m->obj[m->n++] = p;
			return;
		}
		if ((m = t->prev) && !m->n) { /* previous is empty: swap */
			t->prev = t->loaded;
			t->loaded = m;
			m->obj[m->n++] = p;
			return;
		}
	}
	put_slow(c, p);
}

/* ---- caches ------------------------------------------------------------------ */

static void geometry(struct cz_slab_cache *c)
{
	size_t slot = c->slot;

	if (slot <= UNIT / 8) {
		c->slab_units = 1;
		c->slab_objs = (uint32_t)(UNIT / slot);
		return;
	}
	if (slot >= 8 * UNIT) {
		c->slab_units = (uint32_t)(round_up(slot, UNIT) / UNIT);
		c->slab_objs = 1;
		return;
	}
	/* The fewest objects per slab that waste at most 1/8 (a slab is only
	 * released whole, so fewer is better), else the least waste. */
	size_t best_u = 0, best_n = 0, best_waste = SIZE_MAX;
	for (size_t n = 1; n <= 16; n++) {
		size_t u = round_up(n * slot, UNIT) / UNIT;
		size_t waste = u * UNIT - n * slot;
		/* compare waste fractions: waste/(u*UNIT) */
		if (best_n == 0 || waste * best_u < best_waste * u) {
			best_u = u;
			best_n = n;
			best_waste = waste;
		}
		if (waste * 8 <= u * UNIT)
			break;
	}
	c->slab_units = (uint32_t)best_u;
	c->slab_objs = (uint32_t)best_n;
}

/* Rounds per magazine: up to 1 MiB of objects, 1 to 64 rounds.  A thread
 * holds up to two magazines per cache, so this bounds what it hoards. */
static unsigned magsize_for(size_t slot)
{
	size_t n = ((size_t)1 << 20) / slot;
	return n > 64 ? 64 : n < 1 ? 1 : (unsigned)n;
}

static struct cz_slab_cache *cache_create(struct cz_slab_arena *a, const char *name, size_t size,
					  size_t align, unsigned flags)
{
	struct cz_slab_cache *c;

	if (!size || size > a->r.size)
		return NULL;
	c = aligned_alloc(64, round_up(sizeof(*c), 64));
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->a = a;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "anon");
	c->size = size;
	c->flags = flags;
	c->slot = round_up(size + (flags & CZ_SLAB_DEBUG ? 8 : 0), align);
	if (c->slot > a->r.size) {
		free(c);
		return NULL;
	}
	c->magsize = magsize_for(c->slot);
	/* Partition buffers skip the magazines (see BUFFER CACHES above); the
	 * stack holds every object the region could ever hold, so a push
	 * never fails. */
	if (c->slot >= BIG_MIN) {
		c->bstack = malloc((a->r.size / c->slot + 1) * sizeof(void *));
		if (!c->bstack) {
			free(c);
			return NULL;
		}
	}
	geometry(c);
	if (c->slab_objs <= HDR_POOL_OBJS) {
		c->hdrsz = round_up(sizeof(struct slab) + c->slab_objs * sizeof(uint32_t), 16);
		c->nhdr = a->r.size / ((size_t)c->slab_units * UNIT) + 1;
		c->hdrs = malloc(c->nhdr * c->hdrsz);
		for (size_t i = c->nhdr; c->hdrs && i-- > 0;) {
			struct slab *h = (struct slab *)(c->hdrs + i * c->hdrsz);
			h->next = c->hfree;
			c->hfree = h;
		}
		if (!c->hdrs)
			c->nhdr = 0;    /* headers come from malloc, as for other caches */
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->dlock, NULL);
	pthread_mutex_lock(&reg_lock);
	unsigned id = 0;
	while (id < MAX_CACHES && ids[id])
		id++;
	if (id == MAX_CACHES) {
		pthread_mutex_unlock(&reg_lock);
		pthread_mutex_destroy(&c->lock);
		pthread_mutex_destroy(&c->dlock);
		free(c->hdrs);
		free(c->bstack);
		free(c);
		return NULL;
	}
	ids[id] = c;
	c->id = id;
	c->gen = ++last_gen;
	pthread_mutex_unlock(&reg_lock);
	c->anext = a->caches; /* arena cfg lock held by the caller */
	a->caches = c;
	return c;
}

struct cz_slab_cache *cz_slab_cache_create(struct cz_slab_arena *a, const char *name, size_t size,
					   unsigned flags)
{
	size_t align = size >= (64u << 10) ? 4096 : size >= 64 ? 64 : 16;

	pthread_mutex_lock(&a->cfg);
	struct cz_slab_cache *c = cache_create(a, name, size, align, flags | a->flags);
	pthread_mutex_unlock(&a->cfg);
	return c;
}

size_t cz_slab_cache_objsize(const struct cz_slab_cache *c)
{
	return c->size;
}

static void free_mags(struct mag *m)
{
	while (m) {
		struct mag *n = m->next;
		free(m);
		m = n;
	}
}

/* arena cfg lock held. */
static void cache_destroy(struct cz_slab_cache *c)
{
	struct cz_slab_arena *a = c->a;

	pthread_mutex_lock(&reg_lock);
	while (c->reg)
		tcache_detach(c->reg);
	ids[c->id] = NULL;
	pthread_mutex_unlock(&reg_lock);
	free_mags(c->dfull);
	free_mags(c->dempty);
	pthread_mutex_lock(&a->lock);
	for (int l = 0; l < NLISTS; l++)
		while (c->lists[l]) {
			struct slab *s = c->lists[l];
			c->lists[l] = s->next;
			free_run(a, s->first_unit, s->units, false);
			hdr_put(c, s);
		}
	pthread_mutex_unlock(&a->lock);
	for (struct cz_slab_cache **pp = &a->caches; *pp; pp = &(*pp)->anext)
		if (*pp == c) {
			*pp = c->anext;
			break;
		}
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->dlock);
	free(c->bstack);
	free(c->hdrs);
	free(c);
}

void cz_slab_cache_destroy(struct cz_slab_cache *c)
{
	struct cz_slab_arena *a;

	if (!c)
		return;
	a = c->a;
	pthread_mutex_lock(&a->cfg);
	for (unsigned i = 0; i < NCLASS; i++)
		if (atomic_load(&a->cls[i]) == c)
			atomic_store(&a->cls[i], NULL);
	cache_destroy(c);
	pthread_mutex_unlock(&a->cfg);
}

void cz_slab_arena_destroy(struct cz_slab_arena *a)
{
	if (!a)
		return;
	if (a->owner) {
		pthread_mutex_lock(&a->cfg);
		while (a->caches)
			cache_destroy(a->caches);
		pthread_mutex_unlock(&a->cfg);
		pthread_mutex_destroy(&a->cfg);
		pthread_mutex_destroy(&a->lock);
	}
	free(a->freemap);
	free(a->popmap);
	free(a->owner);
	cz_region_destroy(&a->r);
	free(a);
}

/* ---- size classes -------------------------------------------------------------- */

/* Class index and size for a request: 64 B; then 2^k + j*2^k/4 below 1 MiB
 * and 2^k + j*2^k/8 from 1 MiB on (k < 41).  -1 if too big. */
static int class_of(size_t s, size_t *csize)
{
	if (s <= 64) {
		*csize = 64;
		return 0;
	}
	unsigned k = 63 - (unsigned)__builtin_clzll((unsigned long long)(s - 1));
	if (k >= 41)
		return -1;
	unsigned sh = k < 20 ? 2 : 3;
	size_t step = (size_t)1 << (k - sh);
	size_t j = ((s - 1) - ((size_t)1 << k)) >> (k - sh);
	*csize = ((size_t)1 << k) + (j + 1) * step;
	if (k < 20)
		return (int)(1 + 4 * (k - 6) + j);
	return (int)(57 + 8 * (k - 20) + j);
}

void *cz_slab_alloc(struct cz_slab_arena *a, size_t size)
{
	size_t csize;
	int i = class_of(size, &csize);

	if (i < 0)
		return NULL;
	/* acquire: pairs with the release store below, so the cache's fields
	 * are visible to a thread that sees the pointer. */
	struct cz_slab_cache *c = atomic_load_explicit(&a->cls[i], memory_order_acquire);
	if (!c) {
		pthread_mutex_lock(&a->cfg);
		c = atomic_load_explicit(&a->cls[i], memory_order_relaxed);
		if (!c) {
			char name[32];
			size_t align = csize < 4096 ? 16 : 4096;
			snprintf(name, sizeof(name), "size-%zu", csize);
			c = cache_create(a, name, csize, align, a->flags);
			atomic_store_explicit(&a->cls[i], c, memory_order_release);
		}
		pthread_mutex_unlock(&a->cfg);
		if (!c)
			return NULL;
	}
	return cz_slab_get(c);
}

void cz_slab_free(struct cz_slab_arena *a, void *p)
{
	struct slab *s;

	if (!p)
		return;
	if (!(s = slab_of(a, p))) {
		corrupt("free of a pointer outside the arena", p);
		return;
	}
	cz_slab_put(s->cache, p);
}

size_t cz_slab_usable(struct cz_slab_arena *a, const void *p)
{
	struct slab *s = p ? slab_of(a, p) : NULL;
	return s ? s->cache->size : 0;
}

/* ---- shrink and stats -------------------------------------------------------- */

/* Empties every depot into the slab layer and returns whole empty slabs,
 * at most max_bytes of them, to the arena; with punch, their pages go back
 * to the OS too.  Takes the cfg lock, so it never runs beside a cache
 * create or destroy. */
static size_t reclaim(struct cz_slab_arena *a, size_t max_bytes, bool punch)
{
	size_t done = 0;

	pthread_mutex_lock(&a->cfg);
	for (struct cz_slab_cache *c = a->caches; c; c = c->anext) {
		pthread_mutex_lock(&c->dlock);
		struct mag *full = c->dfull, *empty = c->dempty;
		c->dfull = c->dempty = NULL;
		if (c->bn) { /* depot -> cache: the documented lock order */
			pthread_mutex_lock(&c->lock);
			while (c->bn)
				slab_free_locked(c, bpop(c));
			pthread_mutex_unlock(&c->lock);
		}
		pthread_mutex_unlock(&c->dlock);
		pthread_mutex_lock(&c->lock);
		for (struct mag *m = full; m; m = m->next)
			while (m->n)
				slab_free_locked(c, m->obj[--m->n]);
		struct slab *s;
		while ((s = c->lists[L_EMPTY]) && (size_t)s->units * UNIT <= max_bytes - done) {
			list_del(c, s);
			pthread_mutex_lock(&a->lock);
			free_run(a, s->first_unit, s->units, punch);
			a->shrinks += punch;
			pthread_mutex_unlock(&a->lock);
			done += (size_t)s->units * UNIT;
			hdr_put(c, s);
		}
		pthread_mutex_unlock(&c->lock);
		free_mags(full);
		free_mags(empty);
	}
	if (punch) { /* units left populated by destroyed caches */
		pthread_mutex_lock(&a->lock);
		for (size_t u = 0; u < a->nunits && done + UNIT <= max_bytes; u++)
			if (bit(a->freemap, u) && bit(a->popmap, u)) {
				size_t before = a->released;
				punch_free(a, u, 1);
				done += a->released - before;
			}
		pthread_mutex_unlock(&a->lock);
	}
	pthread_mutex_unlock(&a->cfg);
	return done;
}

size_t cz_slab_shrink(struct cz_slab_arena *a, size_t max_bytes)
{
	cz_slab_thread_flush();
	return reclaim(a, max_bytes, true);
}

void cz_slab_stat(struct cz_slab_arena *a, struct cz_slab_stat *s)
{
	pthread_mutex_lock(&a->lock);
	*s = (struct cz_slab_stat){ .capacity = a->r.size, .slab_bytes = a->units_used * UNIT,
				    .populated_bytes = a->units_populated * UNIT,
				    .released_bytes = a->released, .grows = a->grows,
				    .shrinks = a->shrinks, .kind = a->r.kind };
	pthread_mutex_unlock(&a->lock);
}
