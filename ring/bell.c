/* SPDX-License-Identifier: MIT */
/*
 * ring/bell.c — the futex-backed event count rings sleep on.
 *
 * A waiter spins a little (the common case under load: the next element is
 * nanoseconds away), then registers in sleepers, snapshots the futex word,
 * re-checks its condition and sleeps only if the word is still that
 * snapshot.  A waker publishes, issues a full barrier, and only if sleepers
 * is nonzero bumps the word and calls FUTEX_WAKE.  The futex is shared (no
 * FUTEX_PRIVATE_FLAG): the kernel keys it by the page, so processes that map
 * the ring at different addresses meet on the same queue.
 *
 * Why no wake-up is lost: see F1/F2 and W3/A3 in ring.c.  In short, the
 * waiter's "sleepers++ ; barrier ; check" and the waker's "publish ; barrier
 * ; read sleepers" cannot both miss each other, and a waker that saw the
 * sleeper changes the word, which makes the waiter's FUTEX_WAIT fail with
 * EAGAIN if it has not gone to sleep yet.
 */
#include "ring/ring_pvt.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Spins before sleeping: ~1-5 us of pause instructions, so a hand-off under
 * load never pays a syscall, while an idle waiter is asleep almost at once. */
#define BELL_SPINS 256

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, ts, NULL, 0);
}

int cz_ring_bell_wait(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg,
		      int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : now_ns() + timeout_ns;

	for (int i = 0; i < BELL_SPINS; i++) {
		if (ready(arg))
			return 0;
		ring_cpu_relax();
	}
	for (;;) {
		atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_relaxed);
		/* A3: pairs with W3 — a snapshot that includes a bump includes what
		 * was published before it. */
		uint32_t seq = atomic_load_explicit(&b->word, memory_order_acquire);
		/* F2: pairs with F1 (ring.c) — sleepers++ is visible to the waker, or
		 * its publication is visible to ready() below. */
		ring_smp_mb();
		if (ready(arg)) {
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
			return 0;
		}
		int64_t left = deadline == INT64_MAX ? -1 : deadline - now_ns();
		if (deadline != INT64_MAX && left <= 0) {
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
			return -ETIMEDOUT;
		}
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		futex(&b->word, FUTEX_WAIT, seq, left < 0 ? NULL : &ts);
		atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
		if (ready(arg))
			return 0;
	}
}

void cz_ring_bell_ring(struct cz_ring_bell *b, unsigned nwake)
{
	/* Callers issued F1 and saw sleepers != 0 (or want an unconditional
	 * wake).  W3: pairs with A3 — the bump is ordered after what they
	 * published. */
	atomic_fetch_add_explicit(&b->word, 1, memory_order_release);
	futex(&b->word, FUTEX_WAKE, nwake > INT_MAX ? INT_MAX : nwake, NULL);
}

uint32_t cz_ring_bell_sleepers(const struct cz_ring_bell *b)
{
	return atomic_load_explicit((_Atomic uint32_t *)&b->sleepers, memory_order_relaxed);
}
