/* SPDX-License-Identifier: MIT */
/*
 * alloc/budget.c — byte budget with a priority-ordered wait queue.
 *
 * The counter `reserved` is the truth and is changed only by compare-and-
 * swap (take) or fetch-sub (release), so try_reserve and a release with
 * nobody waiting are lock-free: a few atomic instructions.  The lock guards
 * only the waiters, in a min-heap by struct cz_key (lib/heap.c, the same
 * heap the engine's queues use); each waiter sleeps on its own condition
 * variable in its own stack frame and is signalled, under the lock, only
 * once it has been granted (its bytes already added).
 *
 * The one race to get right is a waiter going to sleep just as the last
 * release that could satisfy it happens.  Both sides use sequentially
 * consistent operations in opposite orders (Dekker):
 *   waiter  W1: nwaiters += 1         W2: try to take (reads reserved)
 *   release R1: reserved -= bytes     R2: read nwaiters
 * If R2 misses W1, then W2 comes after R1 in the single total order and the
 * waiter sees the freed bytes and serves itself; otherwise the releaser
 * takes the lock and serves the queue.  Either way nobody sleeps on bytes
 * that are free.
 */
#define _GNU_SOURCE
#include "alloc/budget.h"
#include "lib/heap.h"
#include "lib/lock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct waiter {
	uint64_t bytes;          /* what it waits for */
	pthread_cond_t cv;       /* its own: only it is woken */
	int state;               /* 0 waiting, 1 granted, else -errno */
};

struct qent {                    /* a heap element */
	struct cz_key key;       /* lower is served first */
	struct waiter *w;        /* on its waiting thread's stack */
};

struct cz_budget {
	_Atomic uint64_t limit;        /* bytes */
	_Atomic uint64_t reserved;     /* sum of live reservations */
	_Atomic uint64_t in_use;       /* sum of charges */
	_Atomic uint64_t hw;           /* high-water of reserved */
	_Atomic uint64_t hw_in_use;    /* high-water of in_use */
	_Atomic unsigned nwaiters;     /* list length, read without the lock */
	_Atomic int closed;            /* cz_budget_cancel was called */
	pthread_mutex_t lock;          /* guards waiters, waits */
	struct cz_heap waiters;        /* of struct qent, lowest key on top */
	uint64_t waits;                /* reserves that queued */
};

static void raise_max(_Atomic uint64_t *m, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);
	while (cur < v && !atomic_compare_exchange_weak_explicit(m, &cur, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
}

/* Adds bytes to reserved if the sum stays within the limit.  Cost: one
 * load and one CAS uncontended.  seq_cst: this is W2 in the header. */
static int take(struct cz_budget *b, uint64_t bytes)
{
	uint64_t cur = atomic_load(&b->reserved);
	uint64_t lim = atomic_load(&b->limit);

	do {
		if (bytes > lim || cur > lim - bytes)
			return 0;
	} while (!atomic_compare_exchange_weak(&b->reserved, &cur, cur + bytes));
	raise_max(&b->hw, cur + bytes);
	return 1;
}

/* Grants head waiters in key order while they fit; stops at the first
 * that does not (strict order).  Called with the lock held. */
static void serve_locked(struct cz_budget *b)
{
	cz_mutex_assert_held(&b->lock);
	struct qent *top;

	while ((top = cz_heap_peek(&b->waiters)) && take(b, top->w->bytes)) {
		struct waiter *w = top->w;
		cz_heap_pop(&b->waiters, NULL);
		atomic_fetch_sub(&b->nwaiters, 1);
		w->state = 1;
		pthread_cond_signal(&w->cv); /* under the lock: w lives on a stack that may unwind */
	}
}

struct cz_budget *cz_budget_create(uint64_t limit)
{
	struct cz_budget *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	atomic_init(&b->limit, limit);
	pthread_mutex_init(&b->lock, NULL);
	cz_heap_init_grow(&b->waiters, sizeof(struct qent));
	return b;
}

void cz_budget_destroy(struct cz_budget *b)
{
	if (!b)
		return;
	pthread_mutex_destroy(&b->lock);
	cz_heap_free(&b->waiters);
	free(b);
}

int cz_budget_try_reserve(struct cz_budget *b, uint64_t bytes)
{
	if (atomic_load(&b->closed))
		return -ECANCELED;
	if (bytes > atomic_load(&b->limit))
		return -E2BIG;
	if (atomic_load(&b->nwaiters))
		return -EAGAIN; /* never overtake a queued waiter */
	return take(b, bytes) ? 0 : -EAGAIN;
}

/* Index of w in the heap (it is there). */
static uint32_t find(const struct cz_budget *b, const struct waiter *w)
{
	uint32_t i = 0;
	while (((struct qent *)cz_heap_at(&b->waiters, i))->w != w)
		i++;
	return i;
}

int cz_budget_reserve(struct cz_budget *b, uint64_t bytes, struct cz_key key,
		      const struct timespec *deadline)
{
	struct waiter w = { .bytes = bytes };
	pthread_condattr_t ca;
	int rc = 0;

	if (bytes > atomic_load(&b->limit))
		return -E2BIG;
	pthread_mutex_lock(&b->lock);
	if (atomic_load(&b->closed)) {
		pthread_mutex_unlock(&b->lock);
		return -ECANCELED;
	}
	/* Ahead of everyone queued: take directly if it fits. */
	struct qent *top = cz_heap_peek(&b->waiters);
	if ((!top || cz_key_cmp(&key, &top->key) < 0) && take(b, bytes)) {
		pthread_mutex_unlock(&b->lock);
		return 0;
	}
	/* The heap's array grows by doubling (from 64): a malloc only when
	 * more waiters queue than ever before. */
	if (cz_heap_push(&b->waiters, &(struct qent){ .key = key, .w = &w })) {
		pthread_mutex_unlock(&b->lock);
		return -ENOMEM;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cv, &ca);
	pthread_condattr_destroy(&ca);
	b->waits++;
	atomic_fetch_add(&b->nwaiters, 1); /* W1: pairs with R2 in release */
	serve_locked(b);                   /* W2: bytes freed before W1 was visible */
	while (!w.state) {
		if (deadline)
			rc = pthread_cond_timedwait(&w.cv, &b->lock, deadline);
		else
			pthread_cond_wait(&w.cv, &b->lock);
		if (rc == ETIMEDOUT && !w.state) {
			cz_heap_remove(&b->waiters, find(b, &w), NULL);
			atomic_fetch_sub(&b->nwaiters, 1);
			w.state = -ETIMEDOUT;
			serve_locked(b); /* the next head may fit where we did not */
		}
	}
	pthread_mutex_unlock(&b->lock);
	pthread_cond_destroy(&w.cv);
	return w.state == 1 ? 0 : w.state;
}

void cz_budget_release(struct cz_budget *b, uint64_t bytes)
{
	atomic_fetch_sub(&b->reserved, bytes); /* R1 */
	if (!atomic_load(&b->nwaiters))       /* R2: pairs with W1 */
		return;
	pthread_mutex_lock(&b->lock);
	serve_locked(b);
	pthread_mutex_unlock(&b->lock);
}

void cz_budget_charge(struct cz_budget *b, uint64_t bytes)
{
	uint64_t v = atomic_fetch_add_explicit(&b->in_use, bytes, memory_order_relaxed) + bytes;
	raise_max(&b->hw_in_use, v);
}

void cz_budget_uncharge(struct cz_budget *b, uint64_t bytes)
{
	atomic_fetch_sub_explicit(&b->in_use, bytes, memory_order_relaxed);
}

/* Fails (with rc) every waiter asking for min_bytes or more; lock held.
 * A removal reorders the heap's array, so each scan starts over: O(n^2)
 * on a list that, in the daemon, is empty (it uses try_reserve). */
static void fail_waiters(struct cz_budget *b, uint64_t min_bytes, int rc)
{
	for (uint32_t i = 0; i < b->waiters.n;) {
		struct qent *q = cz_heap_at(&b->waiters, i);
		if (q->w->bytes < min_bytes) {
			i++;
			continue;
		}
		struct waiter *w = q->w;
		cz_heap_remove(&b->waiters, i, NULL);
		atomic_fetch_sub(&b->nwaiters, 1);
		w->state = rc;
		pthread_cond_signal(&w->cv);
		i = 0;
	}
}

void cz_budget_set_limit(struct cz_budget *b, uint64_t limit)
{
	pthread_mutex_lock(&b->lock);
	atomic_store(&b->limit, limit);
	if (limit < UINT64_MAX)
		fail_waiters(b, limit + 1, -E2BIG);
	serve_locked(b);
	pthread_mutex_unlock(&b->lock);
}

void cz_budget_cancel(struct cz_budget *b)
{
	pthread_mutex_lock(&b->lock);
	atomic_store(&b->closed, 1);
	fail_waiters(b, 0, -ECANCELED);
	pthread_mutex_unlock(&b->lock);
}

void cz_budget_stat(struct cz_budget *b, struct cz_budget_stat *s)
{
	pthread_mutex_lock(&b->lock);
	s->limit = atomic_load(&b->limit);
	s->reserved = atomic_load(&b->reserved);
	s->free = s->reserved < s->limit ? s->limit - s->reserved : 0;
	s->in_use = atomic_load(&b->in_use);
	s->high_water = atomic_load(&b->hw);
	s->high_water_in_use = atomic_load(&b->hw_in_use);
	s->waits = b->waits;
	s->waiters = atomic_load(&b->nwaiters);
	pthread_mutex_unlock(&b->lock);
}

void cz_budget_debug_lock(struct cz_budget *b, int on)
{
	if (on)
		pthread_mutex_lock(&b->lock);
	else
		pthread_mutex_unlock(&b->lock);
}
