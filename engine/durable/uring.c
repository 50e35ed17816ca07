/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/uring.c — a ring's memory changes hands between threads.
 *
 * liburing maps a ring's SQ, CQ and SQE array with its own system calls:
 * Debian's liburing 2.3 is built without libc (it imports calloc and free,
 * not mmap), so ThreadSanitizer never sees those mappings come or go.
 * When a connection thread's spool ring is unmapped and another thread's
 * ring is later mapped at the same address, TSan still holds the old
 * ring's accesses for those bytes and reports the new owner's first SQE
 * writes, and its CQE reads, as races with the old owner (e2e_load: 19
 * reports, liburing.h io_uring_prep_rw and spool.c's CQE loop, and
 * cuzkd exits 66).  No memory is shared: the kernel hands out the address
 * only after the old mapping is gone.
 *
 * That order is real, so it is said to TSan with real atomics: the last
 * access to a ring's memory is followed by a release add on one counter
 * before the unmap, and the first access after a map is preceded by an
 * acquire load of it.  Because the add is a read-modify-write, the counter
 * carries every exiting thread's release, and a thread whose mmap reused
 * an address loads it after that address's last owner added (munmap, then
 * mmap, in the kernel).  Cost: one atomic add and one load per ring, beside
 * the two system calls and three mappings that make and unmake it.
 */
#include "engine/durable/uring.h"

#include <stdatomic.h>

static _Atomic unsigned long ring_handoff;

int cz_uring_init(unsigned entries, struct io_uring *ring, unsigned flags)
{
	int rc = io_uring_queue_init(entries, ring, flags);
	/* Pairs with the release add in cz_uring_exit: whatever thread had
	 * these addresses last is done with them. */
	(void)atomic_load_explicit(&ring_handoff, memory_order_acquire);
	return rc;
}

void cz_uring_exit(struct io_uring *ring)
{
	/* Pairs with the acquire load in cz_uring_init: before the unmap,
	 * so a later map of the same address comes after it. */
	atomic_fetch_add_explicit(&ring_handoff, 1, memory_order_release);
	io_uring_queue_exit(ring);
}
