/* SPDX-License-Identifier: MIT */
/*
 * alloc/slab.h — slab caches with per-thread magazines over hugepage
 * regions.  The design statement is at the top of alloc/slab.c.
 *
 * An arena owns one region (alloc/region.h) and carves it into 2 MiB units;
 * caches take runs of units as slabs and hand out fixed-size objects.
 * cz_slab_get/put cost a few nanoseconds when the thread's magazine has a
 * round (or room); memory returns to the OS only through cz_slab_shrink.
 * Objects come back dirty (not zeroed).  Offsets (cz_slab_off) name objects
 * across processes that map the same region.
 */
#ifndef CZ_SLAB_H
#define CZ_SLAB_H

#include "alloc/region.h"

#include <stddef.h>
#include <stdint.h>

struct cz_slab_arena;
struct cz_slab_cache;

/* cache (and arena default) flags */
#define CZ_SLAB_DEBUG 0x1u /* canary after each object, poison while free, checked at get/put */
#define CZ_SLAB_NOMAG 0x2u /* no per-thread magazines: every get/put takes the cache lock */

/* capacity: bytes of region to carve (rounded up to 2 MiB); node and
 * region_flags as for cz_region_create (CZ_REGION_LAZY is implied: slabs
 * are prefaulted as they are created); flags: default cache flags. */
struct cz_slab_arena *cz_slab_arena_create(size_t capacity, int node, unsigned region_flags,
					   unsigned flags);
/* Every cache is destroyed with it; no thread may still use them. */
void cz_slab_arena_destroy(struct cz_slab_arena *a);
const struct cz_region *cz_slab_region(const struct cz_slab_arena *a);

/* A cache of size-byte objects (the daemon makes one per buffer kind once it
 * knows the circuit).  NULL if out of memory or of cache ids (1024). */
struct cz_slab_cache *cz_slab_cache_create(struct cz_slab_arena *a, const char *name, size_t size,
					   unsigned flags);
/* Objects still out are lost; no other thread may use c concurrently. */
void cz_slab_cache_destroy(struct cz_slab_cache *c);
size_t cz_slab_cache_objsize(const struct cz_slab_cache *c); /* usable bytes per object */

void *cz_slab_get(struct cz_slab_cache *c);  /* NULL when the region is full */
void cz_slab_put(struct cz_slab_cache *c, void *p);

/* By size class (≤ 25% rounding below 1 MiB, ≤ 12.5% above); free finds
 * the cache from the address. */
void *cz_slab_alloc(struct cz_slab_arena *a, size_t size);
void cz_slab_free(struct cz_slab_arena *a, void *p);
size_t cz_slab_usable(struct cz_slab_arena *a, const void *p);

uint64_t cz_slab_off(const struct cz_slab_arena *a, const void *p);
void *cz_slab_ptr(const struct cz_slab_arena *a, uint64_t off);

/* Returns the calling thread's magazines to the depots (a worker about to
 * idle; thread exit does it too). */
void cz_slab_thread_flush(void);

/* Returns whole empty slabs, at most max_bytes of them, to the OS (punch-hole) after
 * emptying the depots and the caller's magazines; other threads' magazines
 * are left alone.  Returns bytes released.  For the control plane when idle. */
size_t cz_slab_shrink(struct cz_slab_arena *a, size_t max_bytes);

struct cz_slab_stat {
	size_t capacity;        /* region bytes */
	size_t slab_bytes;      /* bytes held by slabs (in use or cached) */
	size_t populated_bytes; /* bytes with pages present */
	size_t released_bytes;  /* given back by shrink, total */
	uint64_t grows;         /* slabs created */
	uint64_t shrinks;       /* slabs released by shrink */
	enum cz_region_kind kind;
};
void cz_slab_stat(struct cz_slab_arena *a, struct cz_slab_stat *s);

/* Called on a failed debug check (default: message on stderr, abort). */
void cz_slab_on_corruption(void (*fn)(const char *what, const void *p));

#endif
