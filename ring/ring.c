/* SPDX-License-Identifier: MIT */
/*
 * ring/ring.c — bounded shared-memory rings of fixed-size descriptors.
 *
 * WHAT.  Synthesis workers (producers) hand 64-byte descriptors to provers
 * (consumers) and provers hand results to the finalizer, across processes,
 * through rings placed in a shared mapping.  A ring is placement-initialised
 * in caller memory and holds only offsets, so processes map it anywhere.
 *
 * ALGORITHM.  Every slot has a 64-bit state word (ring_pvt.h) carrying the
 * ring position it refers to (the "tag"), a kind and an owner id:
 *
 *   EMPTY(p) --producer--> [PCLAIM(p,o)] --> FULL(p) --consumer--> [CCLAIM(p,o)]
 *        ^                                                               |
 *        +------------------------- EMPTY(p + count) <-------------------+
 *
 * (bracketed states exist only in mp / mc mode, where the transition into
 * them is a CAS that decides among competitors; sp / sc write plain release
 * stores.  An mp producer claims a run of up to 32 positions with one CAS on
 * the first, which records owner and length; the rest stay EMPTY until
 * published, and no other producer can reach them: see enqueue().)  A producer at position p may write slot p & mask only when its
 * state is EMPTY(p); a consumer may read it only when it is FULL(p).  Because
 * the tag names the lap, a slow thread holding a stale position sees a tag
 * in the future and moves on, and a fast one sees a tag in the past and
 * knows the ring is full (producer) or empty (consumer).  head and tail are
 * only hints (lower bounds): the slot states are the truth, so a thread that
 * dies between updating a slot and updating head/tail leaves nothing
 * inconsistent, and sp/sc threads never read the other side's index (no
 * index cache-line ping-pong; the state words travel with the data).
 * Per-producer FIFO holds in every mode: a producer's positions increase.
 *
 * MEMORY ORDERING (each barrier names its partner; x86 needs no fences for
 * the acquire/release pairs, only the store-load pair F1/F2 costs one):
 *   W1 (producer: release store FULL) pairs with A2 (consumer: acquire load
 *      of the state): the element's bytes are visible before it is read.
 *   R2 (consumer: release store EMPTY(p+count)) pairs with A1 (producer:
 *      acquire load of the state): the old bytes are read before reuse.
 *   F1 (producer: full barrier after publishing, before reading sleepers)
 *      pairs with F2 (waiter: full barrier after sleepers++, before its last
 *      emptiness check): either the waker sees the sleeper or the sleeper
 *      sees the element.  The same pair guards the producer-side bell.
 *      Where the kernel allows, the pair is asymmetric: F2 is
 *      membarrier(GLOBAL_EXPEDITED), which forces a full barrier on every
 *      running thread of every attached process, and F1 shrinks to a
 *      compiler barrier.  The waker's barrier drained the store buffer
 *      after every burst and cost 60% of single-thread SPSC time; the
 *      sleeper pays instead, once per sleep, about as much as the futex.
 *   W3 (waker: release bump of the futex word) pairs with A3 (waiter:
 *      acquire load of the word before the check): a waiter whose snapshot
 *      already includes the bump also sees the element; one whose snapshot
 *      predates it fails FUTEX_WAIT with EAGAIN.  See bell.c.
 *
 * SLEEPING.  Waiters spin a short while, then count themselves in the bell's
 * sleepers and FUTEX_WAIT on its word (shared futex, no FUTEX_PRIVATE_FLAG,
 * so it works across processes).  A producer that moved k elements wakes at
 * most k sleepers, and makes no syscall at all when sleepers is 0.  An idle
 * ring costs no CPU.
 *
 * ORDER (the promise consumers get).  A ring is FIFO per producer; across
 * producers it is FIFO in claim order.  Priority order is not a ring's job:
 * work is ordered by struct cz_key (prio, job seq, part) in ring/order.c, one dispatcher
 * that drains the deep producer ring (the "inbox") into a min-heap and feeds
 * SHORT per-consumer rings (depth 1-2).  What is ordered: the sequence of
 * heap pops is non-decreasing among the items present at each pop, and each
 * consumer receives a subsequence of that sequence, so it starts its work in
 * key order.  Why the short rings bound inversion: an item is committed to a
 * consumer only when that consumer has room in a ring of depth d, so at any
 * time at most d items per consumer are committed ahead of anything still in
 * the heap.  A late critical item enters the heap at the dispatcher's next
 * pop (the inbox is drained whole before every pop, so its FIFO depth does
 * not matter; at most one normal item is popped while it arrives) and is the
 * next item committed, to whichever consumer frees a slot first; there it
 * waits behind at most d - 1 items of the same ring plus the one that
 * consumer is running.  So its consumer runs at most d + 1 normal items
 * after its arrival (selftests/ring_order.c checks this bound).  With several
 * consumers, items go to the least-loaded ring; the order in which work
 * starts equals pop order up to the at most d items each consumer holds.  A
 * deep FIFO would instead let a critical item wait behind everything
 * enqueued before it.  The heap must hold everything outstanding (inbox
 * capacity plus work in flight): when it is full the dispatcher stops
 * draining the inbox, and order falls back to the inbox's FIFO.
 *
 * FAILURE MODES.  A process that dies mid-operation:
 *   - mp producer after claiming a run (up to 32 slots, recorded in its
 *     first slot): the head stays PCLAIM and consumers stop there (FIFO).
 *     cz_ring_recover(dead) turns the run's unpublished slots into SKIP,
 *     which consumers step over (recover.c); elements it had published are
 *     delivered.
 *   - mc consumer after claiming: the slots stay CCLAIM and producers stop
 *     there a lap later.  cz_ring_recover(dead) copies the elements out for
 *     the caller to re-enqueue and frees the slots.  (Elements the consumer
 *     had already copied and released when it died were in its own memory
 *     and are gone with it; the engine re-issues a dead prover's work.)
 *   - sp producer / sc consumer: nothing is claimed; both publish (free)
 *     in position order, so what the dead one left is a prefix of its burst,
 *     and a successor continues from the stale tail/head and steps over
 *     slots whose tag is ahead.
 *   - a dead waiter leaves sleepers too high: wakers then make a syscall
 *     they did not need, which is harmless.
 * Recovering an owner that is still alive corrupts the ring: the supervisor
 * must know the owner is dead (kill(pid, 0) == ESRCH, or a pidfd).
 */
#include "ring/ring_pvt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

void (*cz_ring_test_hook)(struct cz_ring *r, int where, uint64_t pos, unsigned n);

#define HDR_BYTES ((sizeof(struct cz_ring) + 63) & ~(size_t)63)

uint64_t cz_ring_desc_csum(const struct cz_ring_desc *d)
{
	const unsigned char *p = (const unsigned char *)d;
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < offsetof(struct cz_ring_desc, csum); i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

size_t cz_ring_bytes(uint32_t count, uint32_t esize)
{
	if (!count || count > CZ_RING_COUNT_MAX || (count & (count - 1)) || !esize ||
	    esize % 8 || esize > CZ_RING_ESIZE_MAX)
		return 0;
	size_t states = ((size_t)count * 8 + 63) & ~(size_t)63;
	return HDR_BYTES + states + (size_t)count * esize;
}

int cz_ring_init_bells(void *mem, size_t bytes, uint32_t count, uint32_t esize,
		       struct cz_ring_bell *cons_bell, struct cz_ring_bell *prod_bell)
{
	struct cz_ring *r = mem;
	size_t need = cz_ring_bytes(count, esize);

	if (!mem || (uintptr_t)mem % CZ_RING_ALIGN || !need)
		return -EINVAL;
	if (bytes < need)
		return -ENOSPC;
	memset(r, 0, HDR_BYTES);
	r->version = RING_VERSION;
	r->count = count;
	r->mask = count - 1;
	r->esize = esize;
	r->bytes = need;
	r->state_off = HDR_BYTES;
	r->data_off = HDR_BYTES + (((size_t)count * 8 + 63) & ~(size_t)63);
	cz_ring_bell_init(&r->cons_bell);
	cz_ring_bell_init(&r->prod_bell);
	r->cons_bell_off = (char *)(cons_bell ? cons_bell : &r->cons_bell) - (char *)r;
	r->prod_bell_off = (char *)(prod_bell ? prod_bell : &r->prod_bell) - (char *)r;
	atomic_init(&r->tail, 0);
	atomic_init(&r->head, 0);
	_Atomic uint64_t *st = ring_states(r);
	for (uint32_t i = 0; i < count; i++)
		atomic_init(&st[i], st_make(i, 0, S_EMPTY));
	/* Publish the magic last, so an attacher that sees it sees a whole ring
	 * (pairs with the acquire load in cz_ring_attach). */
	atomic_store_explicit((_Atomic uint64_t *)&r->magic, RING_MAGIC, memory_order_release);
	return 0;
}

int cz_ring_init(void *mem, size_t bytes, uint32_t count, uint32_t esize)
{
	return cz_ring_init_bells(mem, bytes, count, esize, NULL, NULL);
}

struct cz_ring *cz_ring_attach(void *mem, size_t bytes)
{
	struct cz_ring *r = mem;

	/* The acquire pairs with the release of the magic in init. */
	if (!mem || (uintptr_t)mem % CZ_RING_ALIGN || bytes < HDR_BYTES ||
	    atomic_load_explicit((_Atomic uint64_t *)&r->magic, memory_order_acquire) != RING_MAGIC ||
	    r->version != RING_VERSION || cz_ring_bytes(r->count, r->esize) != r->bytes ||
	    r->bytes > bytes || r->mask != r->count - 1) {
		errno = EINVAL;
		return NULL;
	}
	/* A waker in this process must be reachable by sleepers' membarrier. */
	if ((cz_ring_cons_bell(r)->asym || cz_ring_prod_bell(r)->asym) &&
	    !cz_ring_membarrier_register()) {
		errno = ENOTSUP;
		return NULL;
	}
	return r;
}

uint32_t cz_ring_capacity(const struct cz_ring *r) { return r->count; }
uint32_t cz_ring_esize(const struct cz_ring *r) { return r->esize; }

struct cz_ring_bell *cz_ring_cons_bell(struct cz_ring *r) { return ring_bell_at(r, r->cons_bell_off); }
struct cz_ring_bell *cz_ring_prod_bell(struct cz_ring *r) { return ring_bell_at(r, r->prod_bell_off); }

uint32_t cz_ring_count(const struct cz_ring *r)
{
	uint64_t h = atomic_load_explicit((_Atomic uint64_t *)&r->head, memory_order_relaxed);
	uint64_t t = atomic_load_explicit((_Atomic uint64_t *)&r->tail, memory_order_relaxed);
	int64_t n = (int64_t)(t - h);

	return n < 0 ? 0 : n > r->count ? r->count : (uint32_t)n;
}

/*
 * Is something ready at the consumer position?  Starts from the head hint
 * and steps over positions already taken (at most count of them).
 */
bool cz_ring_nonempty(const struct cz_ring *r)
{
	_Atomic uint64_t *st = ring_states(r);
	uint64_t pos = atomic_load_explicit((_Atomic uint64_t *)&r->head, memory_order_relaxed);

	for (uint32_t i = 0; i <= r->count; i++, pos++) {
		/* A2 (as in dequeue): pairs with W1; after F2 in a waiter. */
		uint64_t v = atomic_load_explicit(&st[pos & r->mask], memory_order_acquire);
		int64_t d = st_dist(v, pos);
		if (d < 0)
			return false;
		if (d == 0) {
			unsigned k = st_kind(v);
			if (k == S_FULL || k == S_SKIP)
				return true;
			if (k == S_EMPTY || k == S_PCLAIM)
				return false;
		}
	}
	return false;
}

bool cz_ring_nonfull(const struct cz_ring *r)
{
	_Atomic uint64_t *st = ring_states(r);
	uint64_t pos = atomic_load_explicit((_Atomic uint64_t *)&r->tail, memory_order_relaxed);

	for (uint32_t i = 0; i <= r->count; i++, pos++) {
		/* A1 (as in enqueue): pairs with R2; after F2 in a waiter. */
		uint64_t v = atomic_load_explicit(&st[pos & r->mask], memory_order_acquire);
		int64_t d = st_dist(v, pos);
		if (d < 0)
			return false;
		if (d == 0 && st_kind(v) == S_EMPTY)
			return true;
		if (d == 0 && st_kind(v) == S_PCLAIM)
			pos += st_len(v) - 1;  /* a run another producer holds */
	}
	return false;
}

/* Element copy: the 64-byte descriptor is the common case and gets an
 * inlined fixed-size copy (four 16-byte moves) instead of a libc call. */
static inline __attribute__((always_inline)) void copy_elt(void *dst, const void *src, uint32_t esize)
{
	if (esize == 64)
		__builtin_memcpy(dst, src, 64);
	else
		memcpy(dst, src, esize);
}

/*
 * Both sides work in chunks of up to CHUNK slots and three phases: claim
 * (scan the state words; CAS them in mp/mc), copy, then publish or free.
 * Touching a chunk's state words together, instead of interleaving them
 * with the copies, keeps each state cache line in one core's hands for a
 * whole chunk when producer and consumer run close behind each other,
 * and lets the compiler keep the copies tight.
 */
#define CHUNK 32

/*
 * mp claim: a run of up to want slots from *pos with one CAS.  Invariant:
 * no producer's position is past the lowest unclaimed one (positions are
 * passed only when claimed, and tail is a lower bound), so when the slot at
 * pos is EMPTY(pos) nobody else can be at pos + 1 ...: free slots behind it
 * are ours to take by claiming pos for the whole run.  The run head records
 * owner and length, so the claim is never anonymous (recover.c) and other
 * producers jump over it.  Returns the run's length (0: *full is set) and
 * its first position in *first; *pos moves past it.
 */
static inline __attribute__((always_inline)) unsigned
claim_mp(struct cz_ring *r, _Atomic uint64_t *st, unsigned owner, unsigned want,
	 uint64_t *pos_io, uint64_t *first, bool *full)
{
	const uint32_t mask = r->mask;
	uint64_t pos = *pos_io;

	for (;;) {
		_Atomic uint64_t *s = &st[pos & mask];
		/* A1: pairs with R2 — the slot's last reader is done. */
		uint64_t v = atomic_load_explicit(s, memory_order_acquire);
		int64_t d = st_dist(v, pos);

		if (d == 0 && st_kind(v) == S_EMPTY) {
			unsigned len = 1;
			/* A1 for each member, as above. */
			while (len < want &&
			       atomic_load_explicit(&st[(pos + len) & mask], memory_order_acquire) ==
				       st_make(pos + len, 0, S_EMPTY))
				len++;
			/* Failure reloads the same position. */
			if (!atomic_compare_exchange_weak_explicit(s, &v, st_make_run(pos, owner, len),
								   memory_order_relaxed,
								   memory_order_relaxed))
				continue;
			if (cz_ring_test_hook)
				cz_ring_test_hook(r, CZ_RING_HOOK_PCLAIM, pos, len);
			*first = pos;
			*pos_io = pos + len;
			/* Move the others past our run before we copy. */
			ring_advance(&r->tail, pos + len);
			return len;
		} else if (d < 0) {
			*full = true;  /* previous lap not consumed yet */
			*pos_io = pos;
			return 0;
		} else if (d == 0 && st_kind(v) == S_PCLAIM) {
			pos += st_len(v);  /* another producer's run */
		} else {
			/* Published, or our position is stale (preempted while others
			 * went on): positions below tail are all claimed, so jump
			 * there rather than step over what may be many laps. */
			pos = ring_catch_up(&r->tail, pos);
		}
	}
}

/* sp claim: the contiguous EMPTY slots from *pos, up to want; nothing is
 * written.  A stale tail left by a predecessor that died is stepped over. */
static inline __attribute__((always_inline)) unsigned
claim_sp(struct cz_ring *r, _Atomic uint64_t *st, unsigned want, uint64_t *pos_io,
	 uint64_t *first, bool *full)
{
	const uint32_t mask = r->mask;
	uint64_t pos = *pos_io;
	unsigned m = 0;

	*first = pos;
	while (m < want) {
		/* A1: pairs with R2 — the slot's last reader is done. */
		uint64_t v = atomic_load_explicit(&st[pos & mask], memory_order_acquire);
		int64_t d = st_dist(v, pos);

		if (d == 0 && st_kind(v) == S_EMPTY) {
			m++;
			pos++;
		} else if (d < 0) {
			*full = true;  /* previous lap not consumed yet */
			break;
		} else if (!m) {
			*first = ++pos;  /* stale tail: skip */
		} else {
			break;  /* finish this contiguous run first */
		}
	}
	*pos_io = pos;
	return m;
}

/* Publish.  W1: pairs with A2 — the copied bytes are visible before FULL is.
 * mp: last to first: a run's head, which holds the claim, goes last, so
 * until the whole run is out the claim is on record (consumers wait at the
 * head anyway).  sp: first to last: nothing is claimed, so a producer that
 * dies here must leave a published prefix, which consumers drain and a
 * successor steps over; last to first it would leave its first slot EMPTY
 * behind FULL ones, a hole the successor fills with its own element,
 * delivered ahead of the dead producer's (ring_recover.c). */
static inline __attribute__((always_inline)) void
publish(struct cz_ring *r, _Atomic uint64_t *st, uint64_t first, unsigned m, const bool mp)
{
	const uint32_t mask = r->mask;

	for (unsigned j = 0; j < m; j++) {
		unsigned i = mp ? m - 1 - j : j;
		atomic_store_explicit(&st[(first + i) & mask], st_make(first + i, 0, S_FULL),
				      memory_order_release);
		if (cz_ring_test_hook)
			cz_ring_test_hook(r, CZ_RING_HOOK_PUBLISH, first + i, mp ? i : m - 1 - i);
	}
}

/*
 * Producer side; mp is a compile-time constant in each caller, so this
 * specialises into the sp and mp paths.  Cost per element: one acquire
 * load, the copy and one release store (plain moves on x86).  Per run of
 * up to CHUNK: in mp one CAS on the run head and one CAS-max of tail.  Per
 * burst: F1 (a compiler barrier, or a full one without membarrier) and a
 * load of sleepers.
 */
static inline __attribute__((always_inline)) unsigned
enqueue(struct cz_ring *r, unsigned owner, const void *objs, unsigned n, const bool mp)
{
	_Atomic uint64_t *st = ring_states(r);
	char *data = (char *)r + r->data_off;
	const uint32_t esize = r->esize, mask = r->mask;
	uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned k = 0;

	if (mp && cz_ring_test_hook)
		cz_ring_test_hook(r, CZ_RING_HOOK_HINT, pos, 0);
	while (k < n) {
		uint64_t first = 0;
		unsigned want = n - k < CHUNK ? n - k : CHUNK;
		bool full = false;
		unsigned m = mp ? claim_mp(r, st, owner, want, &pos, &first, &full)
				: claim_sp(r, st, want, &pos, &first, &full);

		for (unsigned i = 0; i < m; i++)  /* copy */
			copy_elt(data + (size_t)((first + i) & mask) * esize,
				 (const char *)objs + (size_t)(k + i) * esize, esize);
		publish(r, st, first, m, mp);
		k += m;
		if (full)
			break;
	}
	/* tail and head are hints that only shorten scans: no ordering needed,
	 * the slot states carry it. */
	if (mp)
		ring_advance(&r->tail, pos);
	else
		atomic_store_explicit(&r->tail, pos, memory_order_relaxed);
	if (k) {
		struct cz_ring_bell *b = ring_bell_at(r, r->cons_bell_off);
		/* F1: pairs with F2 in cz_ring_bell_wait — publish before reading sleepers. */
		ring_wake_fence(b);
		if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
			cz_ring_bell_wake(b, k);
	}
	return k;
}

/* Consumer side; the mirror image.  Skip markers are freed and not counted.
 * held (mc, n = 1; NULL everywhere else, folded away): the element is
 * copied but its slot stays CCLAIM in owner's name, and its position + 1
 * goes to *held for cz_ring_mc_dequeue_done. */
static inline __attribute__((always_inline)) unsigned
dequeue(struct cz_ring *r, unsigned owner, void *objs, unsigned n, const bool mc, uint64_t *held)
{
	_Atomic uint64_t *st = ring_states(r);
	char *data = (char *)r + r->data_off;
	const uint32_t esize = r->esize, count = r->count, mask = r->mask;
	uint64_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
	unsigned k = 0, freed = 0;

	if (mc && cz_ring_test_hook)
		cz_ring_test_hook(r, CZ_RING_HOOK_HINT, pos, 0);
	while (k < n) {
		uint64_t ps[CHUNK];
		unsigned m = 0, want = n - k < CHUNK ? n - k : CHUNK;
		bool empty = false;

		while (m < want) {  /* claim */
			_Atomic uint64_t *s = &st[pos & mask];
			/* A2: pairs with W1 — the element's bytes are visible. */
			uint64_t v = atomic_load_explicit(s, memory_order_acquire);
			int64_t d = st_dist(v, pos);
			unsigned kind = st_kind(v);

			if (d == 0 && kind == S_FULL) {
				if (mc) {
					if (!atomic_compare_exchange_weak_explicit(
						    s, &v, st_make(pos, owner, S_CCLAIM),
						    memory_order_relaxed, memory_order_relaxed))
						continue;
					if (cz_ring_test_hook)
						cz_ring_test_hook(r, CZ_RING_HOOK_CCLAIM, pos, 1);
				}
				ps[m++] = pos++;
			} else if (d == 0 && kind == S_SKIP) {
				uint64_t e = st_make(pos + count, 0, S_EMPTY);
				/* R2 (nothing to read, but keep the pairing uniform). */
				if (mc) {
					if (!atomic_compare_exchange_weak_explicit(
						    s, &v, e, memory_order_release, memory_order_relaxed))
						continue;
				} else {
					atomic_store_explicit(s, e, memory_order_release);
				}
				freed++;
				pos++;
			} else if (d == 0 && kind == S_CCLAIM) {
				pos++;  /* claimed by another consumer */
			} else if (d > 0) {
				pos = ring_catch_up(&r->head, pos);  /* stale, as above */
			} else {
				empty = true;  /* EMPTY/PCLAIM at our position, or an older lap */
				break;
			}
		}
		for (unsigned i = 0; i < m; i++)  /* copy */
			copy_elt((char *)objs + (size_t)(k + i) * esize,
				 data + (size_t)(ps[i] & mask) * esize, esize);
		if (held && m) {
			*held = ps[0] + 1;      /* freed by cz_ring_mc_dequeue_done */
			k += m;
			break;
		}
		for (unsigned i = 0; i < m; i++)  /* free */
			/* R2: pairs with A1 — our read completes before a producer reuses the slot. */
			atomic_store_explicit(&st[ps[i] & mask], st_make(ps[i] + count, 0, S_EMPTY),
					      memory_order_release);
		k += m;
		freed += m;
		if (empty)
			break;
	}
	if (mc)
		ring_advance(&r->head, pos);
	else
		atomic_store_explicit(&r->head, pos, memory_order_relaxed);
	if (freed) {
		struct cz_ring_bell *b = ring_bell_at(r, r->prod_bell_off);
		/* F1 (producer-side bell): pairs with F2 in cz_ring_bell_wait. */
		ring_wake_fence(b);
		if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
			cz_ring_bell_wake(b, freed);
	}
	return k;
}

unsigned cz_ring_sp_enqueue_burst(struct cz_ring *r, const void *objs, unsigned n)
{
	return enqueue(r, 0, objs, n, false);
}

unsigned cz_ring_mp_enqueue_burst(struct cz_ring *r, unsigned owner, const void *objs, unsigned n)
{
	if (owner - 1 >= CZ_RING_OWNER_MAX) {  /* 0 wraps: one compare for both ends */
		errno = EINVAL;
		return 0;
	}
	return enqueue(r, owner, objs, n, true);
}

unsigned cz_ring_sc_dequeue_burst(struct cz_ring *r, void *objs, unsigned n)
{
	return dequeue(r, 0, objs, n, false, NULL);
}

unsigned cz_ring_mc_dequeue_burst(struct cz_ring *r, unsigned owner, void *objs, unsigned n)
{
	if (owner - 1 >= CZ_RING_OWNER_MAX) {
		errno = EINVAL;
		return 0;
	}
	return dequeue(r, owner, objs, n, true, NULL);
}

/* One element, its slot left claimed: from the CAS that claims it to
 * cz_ring_mc_dequeue_done the slot names owner, so a caller that records
 * what it took (engine/pipeline/order.c: a consumer's holds[]) before letting go of
 * the slot is covered by cz_ring_recover at every instruction.  Costs one
 * more release store than the burst call, outside the claim loop. */
uint64_t cz_ring_mc_dequeue_hold(struct cz_ring *r, unsigned owner, void *obj)
{
	uint64_t held = 0;
	if (owner - 1 >= CZ_RING_OWNER_MAX) {
		errno = EINVAL;
		return 0;
	}
	return dequeue(r, owner, obj, 1, true, &held) ? held : 0;
}

void cz_ring_mc_dequeue_done(struct cz_ring *r, uint64_t held)
{
	if (!held--)
		return;
	/* R2: pairs with A1 — our read completes before a producer reuses the slot. */
	atomic_store_explicit(&ring_states(r)[held & r->mask], st_make(held + r->count, 0, S_EMPTY),
			      memory_order_release);
	struct cz_ring_bell *b = ring_bell_at(r, r->prod_bell_off);
	/* F1 (producer-side bell): pairs with F2 in cz_ring_bell_wait. */
	ring_wake_fence(b);
	if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
		cz_ring_bell_wake(b, 1);
}

static bool ready_nonempty(void *r) { return cz_ring_nonempty(r); }
static bool ready_nonfull(void *r) { return cz_ring_nonfull(r); }

int cz_ring_wait_nonempty(struct cz_ring *r, int64_t timeout_ns)
{
	return cz_ring_bell_wait(cz_ring_cons_bell(r), ready_nonempty, r, timeout_ns);
}

int cz_ring_wait_nonempty_once(struct cz_ring *r, int64_t timeout_ns)
{
	return cz_ring_bell_wait_once(cz_ring_cons_bell(r), ready_nonempty, r, timeout_ns);
}

int cz_ring_wait_nonfull(struct cz_ring *r, int64_t timeout_ns)
{
	return cz_ring_bell_wait(cz_ring_prod_bell(r), ready_nonfull, r, timeout_ns);
}

bool cz_ring_owner_dead(pid_t pid)
{
	return pid > 0 && kill(pid, 0) == -1 && errno == ESRCH;
}
