/* SPDX-License-Identifier: MIT */
/*
 * alloc/budget.h — the daemon's byte budget: how much memory work may hold.
 *
 * Work reserves its bytes before it starts and releases them when its
 * buffers are freed, so the sum of live buffers never exceeds the limit and
 * nothing fails halfway for lack of memory.  try_reserve never blocks (it
 * takes no lock: one compare-and-swap) and never jumps the queue: it fails
 * while anyone waits.  reserve blocks; waiters are served strictly in key
 * order (lower struct cz_key first: (priority, job seq, partition), the
 * key of lib/key.h), each on its own condition variable, and a release
 * wakes only the waiters at the head that now fit: no thundering herd, and
 * a large head is never overtaken by a small later waiter.
 */
#ifndef CZ_BUDGET_H
#define CZ_BUDGET_H

#include "lib/key.h"

#include <stdint.h>
#include <time.h>

struct cz_budget;

struct cz_budget_stat {
	uint64_t limit;             /* bytes */
	uint64_t reserved;          /* held by reservations */
	uint64_t free;              /* limit - reserved (0 if the limit was lowered below) */
	uint64_t in_use;            /* charged by live buffers (cz_budget_charge) */
	uint64_t high_water;        /* most ever reserved at once */
	uint64_t high_water_in_use; /* most ever charged at once */
	uint64_t waits;             /* reserve calls that had to queue */
	unsigned waiters;           /* queued now */
};

struct cz_budget *cz_budget_create(uint64_t limit);
void cz_budget_destroy(struct cz_budget *b); /* no waiters may remain */

/* 0, -EAGAIN (does not fit now, or others are queued), -E2BIG (> limit). */
int cz_budget_try_reserve(struct cz_budget *b, uint64_t bytes);

/* Waits until bytes fit and every waiter with a lower key was served
 * (equal keys in no particular order).
 * deadline: absolute CLOCK_MONOTONIC time, NULL to wait forever.
 * 0, -ETIMEDOUT, -E2BIG (bytes > limit, now or after set_limit),
 * -ECANCELED (cz_budget_cancel), -ENOMEM (the waiters' heap cannot grow). */
int cz_budget_reserve(struct cz_budget *b, uint64_t bytes, struct cz_key key,
		      const struct timespec *deadline);

void cz_budget_release(struct cz_budget *b, uint64_t bytes);

/* In-use accounting for status: buffers charge what they hold out of
 * their reservation while they live. */
void cz_budget_charge(struct cz_budget *b, uint64_t bytes);
void cz_budget_uncharge(struct cz_budget *b, uint64_t bytes);

/* Changes the limit (the control plane); serves waiters that now fit and
 * fails those that never can with -E2BIG. */
void cz_budget_set_limit(struct cz_budget *b, uint64_t limit);

/* Fails every waiter, and every later reserve, with -ECANCELED (shutdown). */
void cz_budget_cancel(struct cz_budget *b);

void cz_budget_stat(struct cz_budget *b, struct cz_budget_stat *s);

/* Tests only: hold (on=1) or drop (on=0) the waiters' lock, to show that
 * try_reserve and release-without-waiters never take it. */
void cz_budget_debug_lock(struct cz_budget *b, int on);

#endif
