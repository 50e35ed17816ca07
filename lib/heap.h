/* SPDX-License-Identifier: MIT */
/*
 * lib/heap.h — the one binary min-heap, ordered by struct cz_key.
 *
 * Used by every queue that picks "lowest key next": the engine's dispatch
 * queue (elements: key + partition pointer), the order thread's heap of ring
 * descriptors in shared memory (ring/order.c) and the budget's waiters
 * (alloc/budget.c).  Elements are esize bytes (a multiple of 8, at most
 * CZ_HEAP_ESIZE_MAX), each beginning with its struct cz_key, and are moved
 * with memcpy; the heap keeps no pointers into itself, so its storage may
 * be shared memory mapped anywhere.
 *
 * Storage is the caller's (cz_heap_init: fixed capacity, never freed here)
 * or the heap's own (cz_heap_init_grow: doubled by realloc when full, from
 * 64 elements).  0-based: the children of i are 2i+1 and 2i+2.
 * Cost: push and pop O(log n) compares and esize-byte moves; at the rates
 * partitions arrive (thousands a second at most) this is noise.  Equal
 * keys leave in no particular order.  Not locked: its owner serializes.
 */
#ifndef CZ_HEAP_H
#define CZ_HEAP_H

#include "lib/key.h"

#include <stddef.h>
#include <stdint.h>

#define CZ_HEAP_ESIZE_MAX 256u

struct cz_heap {
	void *base;             /* cap elements */
	uint32_t n, cap;        /* elements in base[0, n) */
	uint32_t esize;
	uint32_t own;           /* 1: base is the heap's, grown by realloc */
};

/* Fixed storage: cap elements of esize bytes at base. */
void cz_heap_init(struct cz_heap *h, void *base, uint32_t cap, uint32_t esize);
/* Own storage, empty until the first push. */
void cz_heap_init_grow(struct cz_heap *h, uint32_t esize);
/* Frees own storage; the heap is then empty (and may be used again). */
void cz_heap_free(struct cz_heap *h);

/* 0, -ENOSPC (fixed storage full), -ENOMEM (own storage cannot grow) or
 * -EINVAL (esize not a multiple of 8 in [16, CZ_HEAP_ESIZE_MAX]). */
int cz_heap_push(struct cz_heap *h, const void *elem);
/* 1 and the smallest element copied to out (unless NULL), or 0 when empty. */
int cz_heap_pop(struct cz_heap *h, void *out);
/* Removes element i (0 <= i < n; see cz_heap_at), copying it to out unless NULL. */
void cz_heap_remove(struct cz_heap *h, uint32_t i, void *out);

static inline void *cz_heap_at(const struct cz_heap *h, uint32_t i)
{
	return (char *)h->base + (size_t)i * h->esize;
}

/* The smallest element, or NULL when empty. */
static inline void *cz_heap_peek(const struct cz_heap *h)
{
	return h->n ? h->base : NULL;
}

#endif
