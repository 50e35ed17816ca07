/* SPDX-License-Identifier: MIT */
/*
 * lib/pool.h — a small fork-join thread pool for data-parallel loops
 * (NTT butterflies, MSM windows, batch conversions).
 *
 * cz_pool_for() runs fn(arg, i) for every i in [0, n) on the pool's threads
 * and the calling thread, handing out indices from one atomic counter, and
 * returns when all are done.  One loop runs at a time per pool; a second
 * caller waits.  A pool of one thread runs the loop inline.
 */
#ifndef CZ_POOL_H
#define CZ_POOL_H

#include <stddef.h>

struct cz_pool;

struct cz_pool *cz_pool_create(unsigned nthreads);  /* 0 = number of online CPUs */
void cz_pool_destroy(struct cz_pool *p);
unsigned cz_pool_nthreads(const struct cz_pool *p); /* callers included */
void cz_pool_for(struct cz_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg);

#endif
