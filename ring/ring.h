/* SPDX-License-Identifier: MIT */
/*
 * ring/ring.h — bounded rings of fixed-size descriptors in shared memory.
 *
 * A ring lives entirely inside caller-provided memory (any mapping: a memfd,
 * a hugepage region) and holds no pointers, so every process that maps the
 * memory, at any address, attaches with cz_ring_attach() and uses it.
 * The design statement, the memory-ordering contract and the ordering
 * argument are at the top of ring/ring.c; docs/ring.md walks through it.
 *
 * Function names carry the mode in a fixed position, as in DPDK:
 *   cz_ring_sp_enqueue_burst   one producer at a time (no atomic RMW)
 *   cz_ring_mp_enqueue_burst   any number of producers (one CAS per run of up to 32)
 *   cz_ring_sc_dequeue_burst   one consumer at a time
 *   cz_ring_mc_dequeue_burst   any number of consumers
 * All four work on the same layout.  The caller's contract: a ring's
 * producers are either one sp at a time (a successor only after its
 * predecessor is gone) or any number of mp, never a mix (an sp producer
 * does not see mp run claims); the same for consumers, sc or mc.
 * The mp/mc calls take an owner id (1..CZ_RING_OWNER_MAX) naming the
 * calling thread or process, which is recorded in a claim so that
 * cz_ring_recover() can undo the claims of one that died.
 *
 * Burst calls move up to n elements and return how many they moved
 * (0 when the ring is full / empty, or with errno = EINVAL for an owner id
 * out of range); they never block.  To block, pair them
 * with cz_ring_wait_nonempty() / cz_ring_wait_nonfull(), which spin briefly
 * and then sleep on a futex word in the shared memory.
 */
#ifndef CZ_RING_H
#define CZ_RING_H

#include "lib/key.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CZ_RING_ALIGN     64      /* the memory given to init/attach must be this aligned */
#define CZ_RING_COUNT_MAX (1u << 24)
#define CZ_RING_ESIZE_MAX 1024u
#define CZ_RING_OWNER_MAX 4095u   /* owner ids are 1..4095; 0 means "none" */

/*
 * The descriptor the engine passes around: 64 bytes, one cache line.
 * Rings are generic over the element size; this is the canonical element,
 * and the one ring/order.h sorts.
 */
struct cz_ring_desc {
	struct cz_key key;  /* (prio, job seq, partition): the order (lib/key.h); first,
			     * so that the heap of ring/order.c sorts descriptors as is */
	uint32_t kind;      /* what the consumer does with it (engine-defined) */
	uint32_t flags;     /* engine-defined */
	uint64_t off[4];    /* offsets of buffers in the shared region (engine-defined) */
	uint64_t csum;      /* cz_ring_desc_csum() of the 56 bytes above */
};
_Static_assert(sizeof(struct cz_ring_desc) == 64, "a descriptor is one cache line");

/* A 64-bit mix of the first 56 bytes; catches torn or stale copies. */
uint64_t cz_ring_desc_csum(const struct cz_ring_desc *d);

/*
 * A bell is a futex-backed event count: waiters sleep on word, wakers bump
 * it.  sleepers lets a waker skip the syscall when nobody sleeps.  Every ring
 * has two of its own (consumers wait on "cons" for items, producers on
 * "prod" for space); cz_ring_init_bells() can point a ring at bells placed
 * elsewhere in the same mapping, so that one thread can wait for several
 * rings at once (the dispatcher of ring/order.h does).
 */
struct cz_ring_bell {
	_Alignas(64) _Atomic uint32_t word;  /* the futex word; bumped on every ring */
	_Atomic uint32_t sleepers;           /* sleeps not yet accounted for (bell.c) */
	uint32_t asym;                       /* 1: wakers skip the full barrier, sleepers
					      * issue membarrier() instead (bell.c) */
	_Atomic uint32_t closed;             /* set by cz_ring_bell_close() */
};

struct cz_ring;

/* Bytes needed for a ring of count (a power of two, 1 allowed) elements of esize bytes
 * (a multiple of 8); 0 when the geometry is invalid. */
size_t cz_ring_bytes(uint32_t count, uint32_t esize);

/* Placement-initialises a ring in mem[0, bytes).  0, or -EINVAL (bad
 * geometry or alignment) / -ENOSPC (bytes too small). */
int cz_ring_init(void *mem, size_t bytes, uint32_t count, uint32_t esize);

/* Same, with the ring's consumer-side and producer-side bells placed
 * elsewhere in the same mapping (NULL = the ring's own).  The bells must be
 * initialised (cz_ring_bell_init, or zeroed: then they use the symmetric
 * barrier protocol) and live as long as the ring. */
int cz_ring_init_bells(void *mem, size_t bytes, uint32_t count, uint32_t esize,
		       struct cz_ring_bell *cons_bell, struct cz_ring_bell *prod_bell);
void cz_ring_bell_init(struct cz_ring_bell *b);

/* Validates a ring initialised by any process and returns it (mem itself),
 * or NULL with errno = EINVAL (not a ring, or bigger than bytes) or ENOTSUP
 * (its bells use membarrier() and this process cannot register for it).
 * Every process that uses a ring calls this once, even one that inherited
 * the mapping through fork: it registers the process for membarrier(). */
struct cz_ring *cz_ring_attach(void *mem, size_t bytes);

uint32_t cz_ring_capacity(const struct cz_ring *r);
uint32_t cz_ring_esize(const struct cz_ring *r);
/* Approximate number of elements (exact when nobody is mid-operation). */
uint32_t cz_ring_count(const struct cz_ring *r);
/* Exact as of the moment of the call: is an element (or a skip marker)
 * ready at the consumer position / is the next producer slot free? */
bool cz_ring_nonempty(const struct cz_ring *r);
bool cz_ring_nonfull(const struct cz_ring *r);

unsigned cz_ring_sp_enqueue_burst(struct cz_ring *r, const void *objs, unsigned n);
unsigned cz_ring_mp_enqueue_burst(struct cz_ring *r, unsigned owner, const void *objs, unsigned n);
unsigned cz_ring_sc_dequeue_burst(struct cz_ring *r, void *objs, unsigned n);
unsigned cz_ring_mc_dequeue_burst(struct cz_ring *r, unsigned owner, void *objs, unsigned n);

/*
 * An mc dequeue in two steps, for a consumer that must record what it took
 * before the ring lets go of it: _hold copies one element into obj and
 * leaves its slot claimed in owner's name (the position + 1, or 0 as the
 * burst call's 0); _done frees the slot.  A consumer that dies anywhere
 * between the two leaves the element to cz_ring_recover, which hands it
 * back: there is no instant at which the element is in neither the ring
 * nor the caller's record.  Until _done, producers wait for that slot.
 */
uint64_t cz_ring_mc_dequeue_hold(struct cz_ring *r, unsigned owner, void *obj);
void cz_ring_mc_dequeue_done(struct cz_ring *r, uint64_t held);

/* Block until the ring is nonempty / nonfull or timeout_ns passes (<0: no
 * limit).  0, -ETIMEDOUT, or -EPIPE when the bell is closed and the
 * condition does not hold (cz_ring_bell_close: shutdown).  Spins briefly
 * first, then sleeps. */
int cz_ring_wait_nonempty(struct cz_ring *r, int64_t timeout_ns);
int cz_ring_wait_nonfull(struct cz_ring *r, int64_t timeout_ns);
/* The same, but at most one sleep: -EAGAIN when the thread was woken (or
 * its sleep refused) and the ring is empty again by the time it runs (the
 * element was taken back meanwhile).  For a thread that samples its
 * scheduling after every wake-up (engine/pipeline/order.c, cz_pipe_wait):
 * a wait that sleeps again inside hides a wake-up it was queued after. */
int cz_ring_wait_nonempty_once(struct cz_ring *r, int64_t timeout_ns);

struct cz_ring_bell *cz_ring_cons_bell(struct cz_ring *r);
struct cz_ring_bell *cz_ring_prod_bell(struct cz_ring *r);

/* Wait on a bell until ready(arg) holds: 0, -ETIMEDOUT, or -EPIPE once the
 * bell is closed (and ready() false).  ready must read state that the
 * wakers publish before calling cz_ring_bell_ring(). */
int cz_ring_bell_wait(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg,
		      int64_t timeout_ns);
/* The same with at most one sleep: -EAGAIN when it ended (a wake-up, or a
 * bump between the snapshot and the sleep) with ready() false. */
int cz_ring_bell_wait_once(struct cz_ring_bell *b, bool (*ready)(void *arg), void *arg,
			   int64_t timeout_ns);
/* Called after publishing what ready() reads: wakes up to nwake sleepers,
 * which re-check ready() and sleep again if it does not hold yet; no syscall
 * (a barrier and a load) when nobody sleeps.  The rings call it themselves;
 * callers need it only for conditions of their own. */
void cz_ring_bell_ring(struct cz_ring_bell *b, unsigned nwake);
/* Holds this thread's wake-ups back until cz_ring_bell_flush(): every
 * ring or bell call that would wake a sleeper records the bell instead
 * (one entry a bell, the counts summed), and the flush wakes them.  For a
 * thread with something more urgent than its wake-ups: a consumer starts
 * the device on its next partition first (engine/pipeline/consume.c), then wakes
 * the order thread and the finalizer, ~2-5 us of futex calls each.  A
 * sleeper waits at most until the flush, so the caller must flush soon
 * and surely.  The flush's stores are those the wakes would have made. */
void cz_ring_bell_hold(void);
void cz_ring_bell_flush(void);
/* Closes the bell: every wait on it, now or later, returns -EPIPE instead
 * of sleeping (unless its condition holds).  How a daemon stops its
 * waiters; cz_ring_bell_init() reopens. */
void cz_ring_bell_close(struct cz_ring_bell *b);
/* Sleeper count (tests and benches use it to know a waiter is asleep). */
uint32_t cz_ring_bell_sleepers(const struct cz_ring_bell *b);

/*
 * Recovery after the death of an mp producer or mc consumer (the caller has
 * established that owner is dead: cz_ring_owner_dead() or a pidfd).
 *  - slots the dead producer claimed but never published become skip
 *    markers, which consumers pass over (the element never existed);
 *  - elements the dead consumer claimed but never returned to its caller are
 *    copied to out (up to max; *nout says how many) and their slots freed,
 *    so the caller can re-enqueue them: nothing delivered is lost.
 * Returns the number of slots repaired (skips + returned), or -ENOSPC when
 * out was too small (call again with more room; what was done stays done).
 * Calling it for a live owner corrupts the ring.
 */
int cz_ring_recover(struct cz_ring *r, unsigned dead_owner, void *out, unsigned max,
		    unsigned *nout);
/* kill(pid, 0) says ESRCH.  (A recycled pid reads as alive: prefer pidfds
 * where the supervisor holds them.) */
bool cz_ring_owner_dead(pid_t pid);

/* Test hook: when set, called right after an mp producer claims a run of n
 * slots from pos (CZ_RING_HOOK_PCLAIM) and after an mc consumer claims one
 * (CZ_RING_HOOK_CCLAIM, n = 1), before the data is copied; after a
 * producer publishes position pos with n more of its run to go
 * (CZ_RING_HOOK_PUBLISH: an mp run last to first, sp in order); and when
 * an mp/mc call has read its starting position from the tail/head hint
 * (CZ_RING_HOOK_HINT, n = 0).  Tests use
 * it to stop a thread or process deterministically mid-operation; costs one
 * load and a branch. */
enum {
	CZ_RING_HOOK_PCLAIM = 1,
	CZ_RING_HOOK_CCLAIM = 2,
	CZ_RING_HOOK_HINT = 3,
	CZ_RING_HOOK_PUBLISH = 4,
};
extern void (*cz_ring_test_hook)(struct cz_ring *r, int where, uint64_t pos, unsigned n);

#endif /* CZ_RING_H */
