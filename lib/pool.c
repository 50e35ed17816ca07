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
 */
#include "lib/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

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
	pthread_t tid[];
};

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
	if (nthreads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = c > 0 ? (unsigned)c : 1;
	}
	struct cz_pool *p = calloc(1, sizeof(*p) + (nthreads - 1) * sizeof(pthread_t));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->serial, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nthreads = 1;
	for (unsigned i = 0; i + 1 < nthreads; i++) {
		if (pthread_create(&p->tid[i], NULL, pool_worker, p) != 0)
			break;
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
	free(p);
}

unsigned cz_pool_nthreads(const struct cz_pool *p)
{
	return p ? p->nthreads : 1;
}

void cz_pool_for(struct cz_pool *p, size_t n, void (*fn)(void *, size_t), void *arg)
{
	if (!p || p->nthreads == 1 || n <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i);
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
}
