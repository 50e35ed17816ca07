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
 * sleepers counts sleeps not yet accounted for: a sleeper that FUTEX_WAKE
 * dequeued is subtracted by its waker (FUTEX_WAKE returns how many it
 * dequeued), any other ends by subtracting itself.  So a waker pays a
 * syscall only while someone is really asleep and not yet woken.
 *
 * Why no wake-up is lost: see F1/F2 and W3/A3 in ring.c.  In short, the
 * waiter's "sleepers++ ; barrier ; check" and the waker's "publish ; barrier
 * ; read sleepers" cannot both miss each other, and a waker that saw the
 * sleeper changes the word, which makes the waiter's FUTEX_WAIT fail with
 * EAGAIN if it has not gone to sleep yet.
 *
 * Asymmetric bells (asym = 1, chosen by cz_ring_bell_init when the kernel
 * offers MEMBARRIER_CMD_GLOBAL_EXPEDITED): the waker's barrier is only a
 * compiler barrier and the waiter's is membarrier(), the pattern the
 * membarrier(2) page describes: the IPI makes the waker's CPU execute a
 * full barrier either before its publish (then the waiter's check sees the
 * element) or after it (then the waker's read of sleepers, later in program
 * order, sees the waiter, whose increment was visible before the IPI).  A
 * waker not running at that moment went through a context switch, which is
 * a full barrier.  Every process that uses such a bell must be registered:
 * cz_ring_attach() does it and fails with ENOTSUP where it cannot.
 * CZ_RING_NO_MEMBARRIER=1 in the environment forces the symmetric protocol.
 * Under a hypervisor (CPUID's hypervisor bit) the symmetric protocol is the
 * default, CZ_RING_NO_MEMBARRIER=0 asks for membarrier there: its IPI waits
 * for every vCPU running the daemon, and one the host has preempted holds
 * the waiter until it runs again.  On the 2-core test VM an order thread
 * with a 0.3 ms time limit slept 1.08 ms so, beside the consumer it had
 * woken on the preempted vCPU, and a device idled 1.2 ms with its work
 * ready (e2e_evidence); with a full barrier on the waker's side it would
 * have woken in time and moved the partition to the other device.
 */
#include "ring/ring_pvt.h"
#include "lib/clock.h"

#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Spins before sleeping: about 1 us of pause instructions (27 ns each on
 * the 2-core test VM).  Long enough to catch an element that is a few
 * hundred ns away; short, because when the other side is not running (a
 * shared or oversubscribed CPU) every spin is stolen from it: 256 spins
 * halved SPSC throughput there, 32 cost nothing measurable. */
#define BELL_SPINS 32

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, ts, NULL, 0);
}

/* CPUID leaf 1, ECX bit 31: set by hypervisors for their guests. */
static bool under_hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (c >> 31 & 1);
#else
	return false;
#endif
}

bool cz_ring_membarrier_register(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static _Atomic pid_t done_pid;
	static _Atomic bool ok;
	pid_t me = getpid();

	/* Keyed by pid, not a once-flag: a forked child registers itself. */
	if (atomic_load_explicit(&done_pid, memory_order_acquire) == me)
		return atomic_load_explicit(&ok, memory_order_relaxed);
	pthread_mutex_lock(&lock);
	if (atomic_load_explicit(&done_pid, memory_order_relaxed) != me) {
		const char *off = getenv("CZ_RING_NO_MEMBARRIER");
		bool want = off && *off ? *off == '0' : !under_hypervisor();
		long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		bool v = want && q > 0 &&
			 (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
			 (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
			 syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
		atomic_store_explicit(&ok, v, memory_order_relaxed);
		atomic_store_explicit(&done_pid, me, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return atomic_load_explicit(&ok, memory_order_relaxed);
}

void cz_ring_bell_init(struct cz_ring_bell *b)
{
	atomic_init(&b->word, 0);
	atomic_init(&b->sleepers, 0);
	atomic_init(&b->closed, 0);
	b->asym = cz_ring_membarrier_register();
}

/* once: return -EAGAIN after the first sleep that ends with ready()
 * false, instead of sleeping again (cz_ring_bell_wait_once). */
static int bell_wait(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg, int64_t timeout_ns,
		     bool once)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : cz_now_ns() + timeout_ns;

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
		 * its publication is visible to ready() below.  Asymmetric bells: a
		 * barrier on every running thread of every registered process. */
		bool capped = false;
		if (!b->asym)
			ring_smp_mb();
		else if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0))
			capped = true;  /* cannot happen once registered; if it does,
					 * never sleep longer than 1 ms on a guess */
		if (ready(arg)) {
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
			return 0;
		}
		/* Closing is a publication like any other: same F1/F2 argument. */
		if (atomic_load_explicit(&b->closed, memory_order_relaxed)) {
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
			return -EPIPE;
		}
		int64_t left = deadline == INT64_MAX ? -1 : deadline - cz_now_ns();
		if (deadline != INT64_MAX && left <= 0) {
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
			return -ETIMEDOUT;
		}
		if (capped && (left < 0 || left > 1000000))
			left = 1000000;
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		/* 0 means a FUTEX_WAKE dequeued us (the kernel retries spurious
		 * wake-ups itself), and that waker has already taken us off
		 * sleepers; on EAGAIN, timeout or a signal we take ourselves off. */
		if (futex(&b->word, FUTEX_WAIT, seq, left < 0 ? NULL : &ts) != 0)
			atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
		if (ready(arg))
			return 0;
		if (atomic_load_explicit(&b->closed, memory_order_relaxed))
			return -EPIPE;
		if (once)
			return -EAGAIN;
	}
}

int cz_ring_bell_wait(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg,
		      int64_t timeout_ns)
{
	return bell_wait(b, ready, arg, timeout_ns, false);
}

int cz_ring_bell_wait_once(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg,
			   int64_t timeout_ns)
{
	return bell_wait(b, ready, arg, timeout_ns, true);
}

/* Wake-ups this thread holds back (cz_ring_bell_hold): a bell each, the
 * counts asked summed (saturating), so the flush wakes as many sleepers as
 * the calls it stands for would have.  A consumer rings at most three bells
 * between two partitions (the order thread's, the done ring's, its
 * device's). */
#define BELL_HELD_MAX 8
static _Thread_local struct {
	struct cz_ring_bell *b;
	unsigned nwake;
} bell_held[BELL_HELD_MAX];
static _Thread_local int bell_nheld = -1;       /* -1: not holding */

void cz_ring_bell_hold(void)
{
	if (bell_nheld < 0)
		bell_nheld = 0;
}

void cz_ring_bell_flush(void)
{
	int n = bell_nheld;
	bell_nheld = -1;
	for (int i = 0; i < n; i++)
		cz_ring_bell_wake(bell_held[i].b, bell_held[i].nwake);
}

static bool bell_defer(struct cz_ring_bell *b, unsigned nwake)
{
	if (bell_nheld < 0)
		return false;
	for (int i = 0; i < bell_nheld; i++)
		if (bell_held[i].b == b) {
			unsigned n = bell_held[i].nwake;
			bell_held[i].nwake = n > UINT_MAX - nwake ? UINT_MAX : n + nwake;
			return true;
		}
	if (bell_nheld == BELL_HELD_MAX)
		return false;   /* more bells than a hand-off rings: this one now */
	bell_held[bell_nheld].b = b;
	bell_held[bell_nheld++].nwake = nwake;
	return true;
}

void cz_ring_bell_wake(struct cz_ring_bell *b, unsigned nwake)
{
	/* Held back, the wake-up is only later: a sleeper that missed the
	 * publication sleeps on a word not yet bumped, and the flush's bump
	 * (W3 below, then) wakes it. */
	if (bell_defer(b, nwake))
		return;
	/* Callers issued F1 and saw sleepers != 0.  W3: pairs with A3 — the
	 * bump is ordered after what they published. */
	atomic_fetch_add_explicit(&b->word, 1, memory_order_release);
	long woken = futex(&b->word, FUTEX_WAKE, nwake > INT_MAX ? INT_MAX : (uint32_t)nwake, NULL);
	/* Take the woken off sleepers now, on their behalf: until they run,
	 * the next wakers (a consumer freeing slot after slot) see only the
	 * sleepers still asleep and skip the syscall.  The count never drops
	 * below the true number asleep: we remove only finished sleeps. */
	if (woken > 0)
		atomic_fetch_sub_explicit(&b->sleepers, (uint32_t)woken, memory_order_relaxed);
}

void cz_ring_bell_ring(struct cz_ring_bell *b, unsigned nwake)
{
	ring_wake_fence(b);  /* F1: pairs with F2 */
	if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
		cz_ring_bell_wake(b, nwake);
}

void cz_ring_bell_close(struct cz_ring_bell *b)
{
	atomic_store_explicit(&b->closed, 1, memory_order_relaxed);
	ring_wake_fence(b);  /* F1: pairs with F2 */
	if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
		cz_ring_bell_wake(b, UINT32_MAX);
}

uint32_t cz_ring_bell_sleepers(const struct cz_ring_bell *b)
{
	return atomic_load_explicit((_Atomic uint32_t *)&b->sleepers, memory_order_relaxed);
}
