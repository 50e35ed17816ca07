/* SPDX-License-Identifier: MIT */
/*
 * lib/pool.h — a small fork-join thread pool for data-parallel loops
 * (NTT butterflies, MSM windows, batch conversions).
 *
 * cz_pool_for() runs fn(arg, i) for every i in [0, n) on the pool's threads
 * and the calling thread, handing out indices from one atomic counter, and
 * returns when all are done.  One loop runs at a time per pool; a second
 * caller waits.  A pool of one thread runs the loop inline.
 *
 * Scratch: each participant of a loop (the caller and every worker) owns a
 * slot of scratch memory, and the caller one more for what must outlive the
 * loop's tasks.  The slots only grow (cz_pool_scratch_reserve, called by the
 * loop's caller before the loop), so once a pool has run the largest loop
 * its user will run, a loop allocates nothing: this is how the daemon's
 * device stage keeps the heap out of every partition.  Scratch belongs to
 * the pool's one user at a time: callers that share a pool between threads
 * serialize reserve, loop and use around it (the engine does: one prove per
 * device at a time, under the device lock).  The cost is memory: every slot
 * holds the largest task ever run (an MSM window's buckets, batch and side
 * buckets: ~20 MiB per slot for G2 at 2^18, docs/BENCHMARKS.md), for the
 * pool's life.
 */
#ifndef CZ_POOL_H
#define CZ_POOL_H

#include <stddef.h>

struct cz_pool;

struct cz_pool *cz_pool_create(unsigned nthreads);  /* 0 = number of online CPUs */
/* The same, with the workers named "<prefix>.<k>" (k = 1.., at most 15
 * characters: pthread_setname_np), so top -H, perf and gdb tell them apart. */
struct cz_pool *cz_pool_create_named(unsigned nthreads, const char *prefix);
void cz_pool_destroy(struct cz_pool *p);
unsigned cz_pool_nthreads(const struct cz_pool *p); /* callers included */
void cz_pool_for(struct cz_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg);

/* Every participant's slot at least per_slot bytes and the caller's own at
 * least caller bytes (64-byte aligned, contents undefined).  Allocates only
 * when a slot grows.  0, -ENOMEM, or -EINVAL for a NULL pool. */
int cz_pool_scratch_reserve(struct cz_pool *p, size_t per_slot, size_t caller);
/* Inside a loop's fn: the calling participant's slot.  Outside a loop: the
 * caller's own (the one reserved with `caller` bytes). */
void *cz_pool_scratch(struct cz_pool *p);
/* Bytes of scratch held by the pool (all slots), for the daemon's status. */
size_t cz_pool_scratch_bytes(const struct cz_pool *p);

#endif
