/* SPDX-License-Identifier: MIT */
/*
 * ring/order.h — the ordered dispatcher: a min-heap of descriptors keyed by
 * their struct cz_key (prio, job seq, part; lib/key.h), in shared memory, between one deep producer ring
 * (the inbox) and short per-consumer rings.  The ordering argument is at
 * the top of ring/ring.c.
 *
 * The heap belongs to one dispatcher thread at a time (no locking inside);
 * it lives in shared memory so that a restarted dispatcher, or a
 * supervisor, can inspect what is queued.  Its operations are not
 * crash-atomic: if the dispatcher dies, the heap must be rebuilt.
 */
#ifndef CZ_RING_ORDER_H
#define CZ_RING_ORDER_H

#include "ring/ring.h"

struct cz_ring_order;

size_t cz_ring_order_bytes(uint32_t cap);
/* 0, -EINVAL (cap 0 or unaligned mem) or -ENOSPC (bytes too small). */
int cz_ring_order_init(void *mem, size_t bytes, uint32_t cap);
struct cz_ring_order *cz_ring_order_attach(void *mem, size_t bytes);

uint32_t cz_ring_order_count(const struct cz_ring_order *q);
/* 0, or -ENOSPC when full.  O(log n). */
int cz_ring_order_push(struct cz_ring_order *q, const struct cz_ring_desc *d);
/* 1 and the smallest key in *d, or 0 when empty.  O(log n). */
int cz_ring_order_pop(struct cz_ring_order *q, struct cz_ring_desc *d);
const struct cz_ring_desc *cz_ring_order_peek(const struct cz_ring_order *q);

/* Moves the inbox's elements (sc) into the heap while it has room; returns
 * how many.  For dispatchers with a policy of their own (engine/pipeline/order.c). */
unsigned cz_ring_order_drain(struct cz_ring_order *q, struct cz_ring *inbox);

/*
 * One dispatching step: drain the inbox (sc) into the heap, then move the
 * smallest keys into the out rings (sp; the least-loaded ring first),
 * draining the inbox again before every pop so that a late urgent element
 * is never passed over.  Returns the number of elements moved to outs.
 * The rings must carry struct cz_ring_desc elements.
 */
unsigned cz_ring_order_pump(struct cz_ring_order *q, struct cz_ring *inbox,
			    struct cz_ring *const *outs, unsigned nout);

/*
 * Sleep until a pump would do something: the inbox has elements (and the
 * heap room), or the heap has elements and an out ring room.  Needs one bell
 * shared by the inbox's consumer side and every out ring's producer side
 * (cz_ring_init_bells); -EINVAL otherwise.  0, -ETIMEDOUT, or -EPIPE once
 * that bell is closed (cz_ring_bell_close).
 */
int cz_ring_order_wait(struct cz_ring_order *q, struct cz_ring *inbox,
		       struct cz_ring *const *outs, unsigned nout, int64_t timeout_ns);

#endif /* CZ_RING_ORDER_H */
