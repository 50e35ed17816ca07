/* SPDX-License-Identifier: MIT */
/* Description: the byte budget: try_reserve never blocks, waiters are served strictly in key order, accounting balances. */
#define _GNU_SOURCE
#include "alloc/budget.h"
#include "selftests/cz_test.h"
#include "lib/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static unsigned waiters(struct cz_budget *b)
{
	struct cz_budget_stat s;
	cz_budget_stat(b, &s);
	return s.waiters;
}

/* Polls until want waiters are queued or ~10 s pass. */
static int wait_for(struct cz_budget *b, unsigned want)
{
	for (int i = 0; i < 10000; i++) {
		if (waiters(b) == want)
			return 1;
		sleep_ms(1);
	}
	return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- try_reserve under a held lock ---- */

struct tryarg {
	struct cz_budget *b;
	int rc1, rc2, done;
};

static void *try_thread(void *v)
{
	struct tryarg *t = v;
	t->rc1 = cz_budget_try_reserve(t->b, 10);
	t->rc2 = cz_budget_try_reserve(t->b, 1000);
	cz_budget_release(t->b, 10); /* nobody waits: no lock either */
	t->done = 1;
	return NULL;
}

static void test_try_never_blocks(void)
{
	struct cz_budget *b = cz_budget_create(100);
	struct tryarg t = { .b = b };
	pthread_t th;
	struct timespec dl;

	cz_budget_debug_lock(b, 1);
	pthread_create(&th, NULL, try_thread, &t);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	int jr = pthread_timedjoin_np(th, NULL, &dl);
	cz_budget_debug_lock(b, 0);
	if (jr)
		pthread_join(th, NULL);
	ct_ok(!jr && t.rc1 == 0 && t.rc2 == -E2BIG,
	      "try_reserve and release complete while the waiters' lock is held (join %d, rc %d %d)",
	      jr, t.rc1, t.rc2);
	cz_budget_destroy(b);
}

/* ---- a blocking waiter ---- */

struct warg {
	struct cz_budget *b;
	uint64_t bytes, key;
	const struct timespec *deadline;
	int rc;
	atomic_int *order_n;
	uint64_t *order;
	atomic_int granted;
};

/* The tests' keys are numbers; spread over the key's three fields so that
 * each decides some comparisons (order-preserving below 2^48). */
static struct cz_key key_of(uint64_t k)
{
	return (struct cz_key){ .prio = (uint32_t)(k >> 16), .seq = (k >> 4) & 0xfff, .part = k & 0xf };
}

static void *wait_thread(void *v)
{
	struct warg *w = v;
	w->rc = cz_budget_reserve(w->b, w->bytes, key_of(w->key), w->deadline);
	if (w->order) {
		int i = atomic_fetch_add(w->order_n, 1);
		w->order[i] = w->key;
	}
	atomic_store(&w->granted, 1);
	return NULL;
}

static void test_basic(void)
{
	struct cz_budget *b = cz_budget_create(1000);
	struct cz_budget_stat s;

	int ok = cz_budget_try_reserve(b, 600) == 0 && cz_budget_try_reserve(b, 500) == -EAGAIN &&
		 cz_budget_try_reserve(b, 1001) == -E2BIG && cz_budget_try_reserve(b, 400) == 0 &&
		 cz_budget_try_reserve(b, 1) == -EAGAIN;
	cz_budget_charge(b, 700);
	cz_budget_stat(b, &s);
	ok &= s.reserved == 1000 && s.free == 0 && s.in_use == 700 && s.high_water == 1000;
	cz_budget_uncharge(b, 700);
	cz_budget_release(b, 1000);
	cz_budget_stat(b, &s);
	ok &= s.reserved == 0 && s.free == 1000 && s.in_use == 0 && s.high_water == 1000 &&
	      s.high_water_in_use == 700;
	ct_ok(ok, "try_reserve fits, refuses, E2BIG; stat reserved/free/in-use/high-water balance");
	cz_budget_destroy(b);
}

static void test_no_queue_jumping(void)
{
	struct cz_budget *b = cz_budget_create(100);
	struct warg big = { .b = b, .bytes = 60, .key = 1 }, small = { .b = b, .bytes = 10, .key = 2 };
	pthread_t t1, t2;

	cz_budget_try_reserve(b, 100);
	pthread_create(&t1, NULL, wait_thread, &big);
	wait_for(b, 1);
	pthread_create(&t2, NULL, wait_thread, &small);
	wait_for(b, 2);
	cz_budget_release(b, 30); /* 30 free: small fits, big does not */
	sleep_ms(50);
	int r1 = cz_budget_try_reserve(b, 5); /* fits, but others wait */
	int none = !atomic_load(&big.granted) && !atomic_load(&small.granted);
	cz_budget_release(b, 30); /* 60 free: big is served, small still waits for 10 */
	pthread_join(t1, NULL);
	sleep_ms(50);
	int small_waits = !atomic_load(&small.granted);
	cz_budget_release(b, 10);
	pthread_join(t2, NULL);
	ct_ok(none && r1 == -EAGAIN && big.rc == 0 && small_waits && small.rc == 0,
	      "a small later waiter never overtakes a big head; try_reserve refuses while others wait");
	cz_budget_release(b, 100); /* 100 - 30 - 30 + 60 - 10 + 10 */
	struct cz_budget_stat s;
	cz_budget_stat(b, &s);
	ct_ok(s.reserved == 0 && s.waiters == 0, "balanced after the queue test (reserved %llu)",
	      (unsigned long long)s.reserved);
	cz_budget_destroy(b);
}

static void test_strict_order(void)
{
	enum { N = 16 };
	struct cz_budget *b = cz_budget_create(100);
	struct warg w[N];
	pthread_t th[N];
	uint64_t keys[N], order[N];
	atomic_int order_n = 0;
	unsigned perm[N];

	for (unsigned i = 0; i < N; i++) {
		keys[i] = (next_rand(&rng) % 1000) * N + i; /* distinct */
		perm[i] = i;
	}
	for (unsigned i = N - 1; i > 0; i--) {
		unsigned j = (unsigned)(next_rand(&rng) % (i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	cz_budget_try_reserve(b, 100);
	for (unsigned i = 0; i < N; i++) {
		unsigned k = perm[i];
		w[k] = (struct warg){ .b = b, .bytes = 10, .key = keys[k], .order = order,
				      .order_n = &order_n };
		pthread_create(&th[k], NULL, wait_thread, &w[k]);
		if (i % 3 == 0)
			sleep_ms(1); /* some arrive while others already sleep */
	}
	int queued = wait_for(b, N);
	int early = 0;
	for (int step = 0; step < N && queued; step++) {
		cz_budget_release(b, 5); /* half a request: nobody may be woken */
		sleep_ms(2);
		early |= atomic_load(&order_n) != step;
		cz_budget_release(b, 5);
		for (int i = 0; i < 5000 && atomic_load(&order_n) <= step; i++)
			sleep_ms(1);
	}
	for (unsigned i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	int sorted = queued && atomic_load(&order_n) == N;
	for (unsigned i = 1; i < N && sorted; i++)
		sorted = order[i - 1] < order[i];
	ct_ok(sorted && !early, "%d waiters started in random order got the budget in key order%s", N,
	      early ? " (one woke on half its bytes)" : "");
	cz_budget_release(b, 100); /* main's 100 went out in the steps; waiters hold 100 now */
	struct cz_budget_stat s;
	cz_budget_stat(b, &s);
	ct_ok(s.reserved == 0 && s.waiters == 0 && s.waits == N && s.high_water == 100,
	      "order test balances: reserved %llu, waits %llu", (unsigned long long)s.reserved,
	      (unsigned long long)s.waits);
	cz_budget_destroy(b);
}

static void test_timeout_cancel_limit(void)
{
	struct cz_budget *b = cz_budget_create(100);
	struct timespec dl;
	struct warg w2 = { .b = b, .bytes = 20, .key = 5 };
	pthread_t t2;

	cz_budget_try_reserve(b, 90);
	/* A lone waiter is served by the release that makes it fit. */
	pthread_create(&t2, NULL, wait_thread, &w2);
	wait_for(b, 1);
	cz_budget_release(b, 20);
	pthread_join(t2, NULL);
	clock_gettime(CLOCK_MONOTONIC, &dl);
	int served = w2.rc == 0;
	cz_budget_try_reserve(b, 10); /* 0 free */
	struct warg w1 = { .b = b, .bytes = 50, .key = 1 }, w3 = { .b = b, .bytes = 5, .key = 9 };
	dl.tv_nsec += 100 * 1000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	w1.deadline = &dl;
	pthread_t t1, t3;
	pthread_create(&t1, NULL, wait_thread, &w1);
	wait_for(b, 1);
	pthread_create(&t3, NULL, wait_thread, &w3);
	wait_for(b, 2);
	cz_budget_release(b, 10); /* 10 free: key 9 fits, but key 1 is ahead */
	sleep_ms(20);
	int held = !atomic_load(&w3.granted);
	pthread_join(t1, NULL); /* times out, and its leaving serves key 9 */
	pthread_join(t3, NULL);
	ct_ok(served && held && w1.rc == -ETIMEDOUT && w3.rc == 0,
	      "timed-out head leaves the queue and the next waiter is served (rc %d, %d)", w1.rc, w3.rc);

	/* set_limit: a waiter for 90 is served when the limit rises, one for
	 * 150 fails when it drops below. */
	struct warg w4 = { .b = b, .bytes = 90, .key = 3 };
	pthread_t t4;
	pthread_create(&t4, NULL, wait_thread, &w4);
	wait_for(b, 1);
	cz_budget_set_limit(b, 200);
	pthread_join(t4, NULL);
	struct warg w5 = { .b = b, .bytes = 150, .key = 4 };
	pthread_t t5;
	pthread_create(&t5, NULL, wait_thread, &w5);
	wait_for(b, 1);
	cz_budget_set_limit(b, 120);
	pthread_join(t5, NULL);
	ct_ok(w4.rc == 0 && w5.rc == -E2BIG, "raising the limit serves, lowering it fails what can never fit");

	struct warg w6 = { .b = b, .bytes = 100, .key = 3 };
	pthread_t t6;
	pthread_create(&t6, NULL, wait_thread, &w6);
	wait_for(b, 1);
	cz_budget_cancel(b);
	pthread_join(t6, NULL);
	ct_ok(w6.rc == -ECANCELED && cz_budget_try_reserve(b, 1) == -ECANCELED &&
	      cz_budget_reserve(b, 1, key_of(0), NULL) == -ECANCELED, "cancel fails waiters and later reserves");
	cz_budget_destroy(b);
}

/* ---- stress: an independent tally never exceeds the limit ---- */

#define LIMIT 1000
static atomic_long tally, tally_max;
static atomic_int stop;

static void tally_add(long v)
{
	long t = atomic_fetch_add(&tally, v) + v;
	long m = atomic_load(&tally_max);
	while (t > m && !atomic_compare_exchange_weak(&tally_max, &m, t))
		;
}

static void *stress_thread(void *v)
{
	struct cz_budget *b = v;
	uint64_t s = (uint64_t)(uintptr_t)&s | 1, held[4];
	int n = 0;

	while (!atomic_load(&stop)) {
		uint64_t r = next_rand(&s);
		if (n < 4 && (r & 1)) {
			uint64_t bytes = 1 + (r >> 8) % 400;
			/* Block only holding nothing (as the daemon does: all of
			 * a job's bytes up front), or threads would deadlock
			 * holding bytes while waiting for more. */
			int rc = (r & 2) || n ? cz_budget_try_reserve(b, bytes)
					      : cz_budget_reserve(b, bytes, key_of(r >> 20), NULL);
			if (rc == 0) {
				tally_add((long)bytes);
				cz_budget_charge(b, bytes / 2);
				held[n++] = bytes;
			}
		} else if (n) {
			uint64_t bytes = held[--n];
			cz_budget_uncharge(b, bytes / 2);
			tally_add(-(long)bytes);
			cz_budget_release(b, bytes);
		}
	}
	while (n) {
		uint64_t bytes = held[--n];
		cz_budget_uncharge(b, bytes / 2);
		tally_add(-(long)bytes);
		cz_budget_release(b, bytes);
	}
	return NULL;
}

static void test_stress(void)
{
	enum { T = 8 };
	struct cz_budget *b = cz_budget_create(LIMIT);
	pthread_t th[T];
	struct cz_budget_stat s;

	for (int i = 0; i < T; i++)
		pthread_create(&th[i], NULL, stress_thread, b);
	double t0 = cz_now_ns() / 1e9;
	while (cz_now_ns() / 1e9 - t0 < 1.5)
		sleep_ms(10);
	atomic_store(&stop, 1);
	/* A thread blocked in reserve needs others' releases to finish; all
	 * others drain on stop, so every blocked reserve is eventually served. */
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	cz_budget_stat(b, &s);
	ct_ok(atomic_load(&tally_max) <= LIMIT && s.high_water <= LIMIT,
	      "%d threads, 1.5 s: held bytes never exceeded the limit (max %ld, high water %llu)", T,
	      atomic_load(&tally_max), (unsigned long long)s.high_water);
	ct_ok(s.reserved == 0 && s.in_use == 0 && s.waiters == 0 && atomic_load(&tally) == 0,
	      "stress accounting balances to zero (reserved %llu, in use %llu, waits %llu)",
	      (unsigned long long)s.reserved, (unsigned long long)s.in_use,
	      (unsigned long long)s.waits);
	cz_budget_destroy(b);
}

int main(void)
{
	ct_plan(11);
	test_basic();
	test_try_never_blocks();
	test_no_queue_jumping();
	test_strict_order();
	test_timeout_cancel_limit();
	test_stress();
	return ct_exit();
}
