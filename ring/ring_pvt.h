/* SPDX-License-Identifier: MIT */
/*
 * ring/ring_pvt.h — the ring's shared-memory layout and slot-state encoding.
 * Private to the files of ring/: do not include directly.
 */
#ifndef CZ_RING_PVT_H
#define CZ_RING_PVT_H

#include "ring/ring.h"

#include <stdatomic.h>
#include <stdint.h>

#define RING_MAGIC   0x676e6972767a6375ull  /* "ucz vring" */
#define RING_VERSION 1u

/*
 * Layout (offsets from the ring header; all 64-byte aligned):
 *
 *   +0     header line: geometry, read-only after init
 *   +64    tail  (producer side; a hint, see ring.c)
 *   +128   head  (consumer side; a hint)
 *   +192   own consumer bell   (futex word + sleepers)
 *   +256   own producer bell
 *   +320   state[count]        one 64-bit state word per slot
 *   +...   data[count][esize]  the elements
 */
struct cz_ring {
	uint64_t magic;          /* RING_MAGIC once init finished */
	uint32_t version;        /* RING_VERSION */
	uint32_t count;          /* slots, a power of two */
	uint32_t mask;           /* count - 1 */
	uint32_t esize;          /* bytes per element, multiple of 8 */
	uint64_t bytes;          /* total footprint from the header */
	uint64_t state_off;      /* offset of state[] */
	uint64_t data_off;       /* offset of data[] */
	int64_t cons_bell_off;   /* offset of the bell consumers sleep on */
	int64_t prod_bell_off;   /* offset of the bell producers sleep on */

	_Alignas(64) _Atomic uint64_t tail;  /* next producer position (lower bound) */
	_Alignas(64) _Atomic uint64_t head;  /* next consumer position (lower bound) */
	struct cz_ring_bell cons_bell;       /* default consumer bell */
	struct cz_ring_bell prod_bell;       /* default producer bell */
};

/*
 * A slot's state word: | tag: 43 | len: 6 | owner: 12 | kind: 3 |
 * tag is the ring position (mod 2^43) the state refers to, so a word can
 * never be mistaken for the same state one lap earlier or later (a thread
 * would have to sleep through 2^42 positions, hours at full speed).  len is
 * set only in PCLAIM: the number of positions the claim covers (a run).
 */
#define ST_KIND_BITS  3
#define ST_OWNER_BITS 12
#define ST_LEN_BITS   6
#define ST_LEN_SHIFT  (ST_KIND_BITS + ST_OWNER_BITS)
#define ST_TAG_SHIFT  (ST_LEN_SHIFT + ST_LEN_BITS)
_Static_assert(64 - ST_TAG_SHIFT == 43, "the tag is 43 bits, as the comments say");
_Static_assert(CZ_RING_OWNER_MAX < (1u << ST_OWNER_BITS), "owner ids fit the state word");

enum {
	S_EMPTY = 0,   /* free for the producer of position tag */
	S_PCLAIM = 1,  /* claimed by producer owner for tag, being written (mp only) */
	S_FULL = 2,    /* holds the element of position tag */
	S_SKIP = 3,    /* position tag holds nothing: its producer died (recovery) */
	S_CCLAIM = 4,  /* element of tag claimed by consumer owner, being read (mc only) */
};

static inline uint64_t st_make(uint64_t pos, unsigned owner, unsigned kind)
{
	return pos << ST_TAG_SHIFT | (uint64_t)owner << ST_KIND_BITS | kind;
}

/* A producer's claim of positions [pos, pos + len), recorded in the first. */
static inline uint64_t st_make_run(uint64_t pos, unsigned owner, unsigned len)
{
	return st_make(pos, owner, S_PCLAIM) | (uint64_t)len << ST_LEN_SHIFT;
}

static inline unsigned st_kind(uint64_t st) { return st & ((1u << ST_KIND_BITS) - 1); }
static inline unsigned st_owner(uint64_t st)
{
	return (st >> ST_KIND_BITS) & ((1u << ST_OWNER_BITS) - 1);
}
static inline unsigned st_len(uint64_t st)
{
	return (st >> ST_LEN_SHIFT) & ((1u << ST_LEN_BITS) - 1);
}

/* Signed distance tag(st) - pos in the 43-bit position space (the tag's
 * width: 64 - ST_TAG_SHIFT). */
static inline int64_t st_dist(uint64_t st, uint64_t pos)
{
	uint64_t d = (st & ~((1ull << ST_TAG_SHIFT) - 1)) - (pos << ST_TAG_SHIFT);
	return (int64_t)d >> ST_TAG_SHIFT;
}

static inline _Atomic uint64_t *ring_states(const struct cz_ring *r)
{
	return (_Atomic uint64_t *)((char *)r + r->state_off);
}

static inline char *ring_slot(const struct cz_ring *r, uint64_t pos)
{
	return (char *)r + r->data_off + (size_t)(pos & r->mask) * r->esize;
}

static inline struct cz_ring_bell *ring_bell_at(const struct cz_ring *r, int64_t off)
{
	return (struct cz_ring_bell *)((char *)r + off);
}

/*
 * A full barrier (store-load ordering) for the sleeper handshake.  Written
 * as a locked add on x86: as strong as mfence for ordinary memory and
 * cheaper, and it keeps GCC's -Wtsan quiet (TSan does not model fences;
 * the handshake only orders atomics, so TSan needs nothing from it).
 */
static inline void ring_smp_mb(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lock; addl $0,-8(%%rsp)" ::: "memory", "cc");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* The waker's half of F1/F2.  With an asymmetric bell the sleeper's
 * membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) makes every running thread of
 * every registered process execute a full barrier, so the waker needs only
 * to keep the compiler from moving its load of sleepers above its stores:
 * that removes a store-buffer drain from every burst (bell.c). */
static inline void ring_wake_fence(const struct cz_ring_bell *b)
{
	if (b->asym)
		__asm__ volatile("" ::: "memory");
	else
		ring_smp_mb();
}

/* Bumps the futex word and wakes up to nwake sleepers; the caller has
 * issued F1 and seen sleepers != 0. */
void cz_ring_bell_wake(struct cz_ring_bell *b, unsigned nwake);

/* Registers this process for global expedited membarrier (once per pid);
 * false when the kernel or a sandbox does not allow it. */
bool cz_ring_membarrier_register(void);

static inline void ring_cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* Raise *a to at least v (positions only grow; a CAS-max keeps them so). */
static inline void ring_advance(_Atomic uint64_t *a, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
	while ((int64_t)(v - cur) > 0 &&
	       !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
						      memory_order_relaxed))
		;
}

/* The next position for a thread whose position pos turned out stale: the
 * hint if it is ahead (everything below it is taken), else pos + 1. */
static inline uint64_t ring_catch_up(_Atomic uint64_t *hint, uint64_t pos)
{
	uint64_t h = atomic_load_explicit(hint, memory_order_relaxed);
	return (int64_t)(h - pos) > 0 ? h : pos + 1;
}

#endif /* CZ_RING_PVT_H */
