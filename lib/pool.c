/* SPDX-License-Identifier: MIT */
/*
 * lib/pool.c — fork-join thread pool.
 *
 * Design: workers sleep on a condition variable until a loop is posted with
 * a new generation number; every participant (workers and the caller) then
 * claims indices with one atomic fetch-add until the loop is exhausted, and
 * the last one to leave signals the caller.  Loops are coarse (one index is
 * a chunk of work worth microseconds or more), so the mutex and condvar cost
 * once per loop is noise; the per-index cost is one uncontended fetch-add.
 *
 * Scratch slots (pool.h): slot k belongs to participant k of a loop (0 the
 * caller, 1.. the workers, numbered once at start), found through one
 * thread-local word, so a task gets its memory with no lock and no heap.
 * They are resized only by cz_pool_scratch_reserve, before a loop, by the
 * pool's user: no task can hold a slot while it moves.
 */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "lib/pool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct pool_slot {
	void *mem;
	size_t cap;
};

struct cz_pool {
	pthread_mutex_t lock;     /* guards gen, quit, busy and the loop fields */
	pthread_cond_t wake;      /* workers wait here for a new generation */
	pthread_cond_t done;      /* the caller waits here for active == 0 */
	pthread_mutex_t serial;   /* one loop at a time */
	unsigned long gen;        /* bumped for each posted loop */
	int quit;
	unsigned active;          /* participants still inside the loop */
	void (*fn)(void *, size_t);
	void *arg;
	size_t n;
	atomic_size_t next;       /* next index to claim */
	unsigned nthreads;        /* workers + caller */
	atomic_uint next_slot;    /* hands workers their slot numbers */
	struct pool_slot *slot;   /* [nthreads + 1]: participants, then the caller's own */
	pthread_t tid[];
};

/* The pool whose loop this thread is in, and its slot there. */
static _Thread_local struct {
	const struct cz_pool *pool;
	unsigned slot;
} pool_self;

static void pool_drain(struct cz_pool *p, void (*fn)(void *, size_t), void *arg, size_t n)
{
	size_t i;

	while ((i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < n)
		fn(arg, i);
}

static void *pool_worker(void *v)
{
	struct cz_pool *p = v;
	unsigned long seen = 0;

	pool_self.pool = p;
	pool_self.slot = atomic_fetch_add(&p->next_slot, 1);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->gen == seen && !p->quit)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->quit)
			break;
		seen = p->gen;
		void (*fn)(void *, size_t) = p->fn;
		void *arg = p->arg;
		size_t n = p->n;
		pthread_mutex_unlock(&p->lock);
		pool_drain(p, fn, arg, n);
		pthread_mutex_lock(&p->lock);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct cz_pool *cz_pool_create(unsigned nthreads)
{
	return cz_pool_create_named(nthreads, NULL);
}

struct cz_pool *cz_pool_create_named(unsigned nthreads, const char *prefix)
{
	if (nthreads == 0) {
		/* The CPUs the caller may run on: a cpu device opened from a
		 * thread bound to its node gets that node's (engine/place/numa.c). */
		cpu_set_t set;
		long c = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN) : CPU_COUNT(&set);
		nthreads = c > 0 ? (unsigned)c : 1;
	}
	struct cz_pool *p = calloc(1, sizeof(*p) + (nthreads - 1) * sizeof(pthread_t));
	if (!p)
		return NULL;
	p->slot = calloc(nthreads + 1, sizeof(*p->slot));
	if (!p->slot) {
		free(p);
		return NULL;
	}
	atomic_init(&p->next_slot, 1);
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->serial, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nthreads = 1;
	for (unsigned i = 0; i + 1 < nthreads; i++) {
		if (pthread_create(&p->tid[i], NULL, pool_worker, p) != 0)
			break;
		if (prefix) {
			char name[16];
			snprintf(name, sizeof(name), "%s.%u", prefix, i + 1);
			pthread_setname_np(p->tid[i], name);
		}
		p->nthreads++;
	}
	return p;
}

void cz_pool_destroy(struct cz_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i + 1 < p->nthreads; i++)
		pthread_join(p->tid[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->serial);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->done);
	for (unsigned i = 0; i <= p->nthreads; i++)
		free(p->slot[i].mem);
	free(p->slot);
	free(p);
}

unsigned cz_pool_nthreads(const struct cz_pool *p)
{
	return p ? p->nthreads : 1;
}

void cz_pool_for(struct cz_pool *p, size_t n, void (*fn)(void *, size_t), void *arg)
{
	typeof(pool_self) outer = pool_self;   /* the caller may be inside another pool's loop */

	pool_self.pool = p;
	pool_self.slot = 0;
	if (!p || p->nthreads == 1 || n <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i);
		pool_self = outer;
		return;
	}
	pthread_mutex_lock(&p->serial);
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->arg = arg;
	p->n = n;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	p->active = p->nthreads - 1;
	p->gen++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);

	pool_drain(p, fn, arg, n);

	pthread_mutex_lock(&p->lock);
	while (p->active)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->serial);
	pool_self = outer;
}

static int slot_grow(struct pool_slot *s, size_t bytes)
{
	if (s->cap >= bytes)
		return 0;
	/* From 1 MiB up (the MSMs' buckets and batches): whole 2 MiB pages
	 * with the huge-page advice, so a one-shot run faults its scratch in
	 * a few pages, not one per 4 KiB (zk/groth16/groth16.h's key arrays
	 * do the same). */
	const size_t huge = (size_t)2 << 20;
	bool big = bytes >= huge / 2;
	bytes = big ? (bytes + huge - 1) & ~(huge - 1) : (bytes + 4095) & ~(size_t)4095;
	void *m = aligned_alloc(big ? huge : 64, bytes);
	if (!m)
		return -ENOMEM;
	if (big)
		(void)madvise(m, bytes, MADV_HUGEPAGE);   /* advice: refused, m is still fine */
	free(s->mem);
	s->mem = m;
	s->cap = bytes;
	return 0;
}

int cz_pool_scratch_reserve(struct cz_pool *p, size_t per_slot, size_t caller)
{
	if (!p)
		return -EINVAL;
	for (unsigned i = 0; i < p->nthreads; i++)
		if (slot_grow(&p->slot[i], per_slot))
			return -ENOMEM;
	return slot_grow(&p->slot[p->nthreads], caller);
}

void *cz_pool_scratch(struct cz_pool *p)
{
	if (!p)
		return NULL;
	if (pool_self.pool == p)
		return p->slot[pool_self.slot].mem;
	return p->slot[p->nthreads].mem;
}

size_t cz_pool_scratch_bytes(const struct cz_pool *p)
{
	size_t b = 0;
	for (unsigned i = 0; p && i <= p->nthreads; i++)
		b += p->slot[i].cap;
	return b;
}
