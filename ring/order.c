/* SPDX-License-Identifier: MIT */
/*
 * ring/order.c — the ordered dispatcher (see the ORDER section of ring.c).
 *
 * A binary min-heap in shared memory: a header line and cap descriptors,
 * sorted by their struct cz_key with lib/heap.c (the one heap), so push and
 * pop cost O(log n) 64-byte moves; at the rates partitions arrive
 * (thousands a second at most) this is noise, and a heap keeps the rule
 * simple: the next element out is always the smallest (prio, job seq, part)
 * the dispatcher has seen.
 */
#include "ring/order.h"
#include "lib/heap.h"

#include <errno.h>
#include <string.h>

#define ORDER_MAGIC 0x726472657a7a6375ull

struct cz_ring_order {
	uint64_t magic;     /* ORDER_MAGIC once initialised */
	uint32_t cap;       /* slots in heap[] */
	uint32_t n;         /* elements in heap[0, n) */
	uint64_t bytes;     /* footprint */
	_Alignas(64) struct cz_ring_desc heap[];
};

size_t cz_ring_order_bytes(uint32_t cap)
{
	return cap ? sizeof(struct cz_ring_order) + (size_t)cap * sizeof(struct cz_ring_desc) : 0;
}

int cz_ring_order_init(void *mem, size_t bytes, uint32_t cap)
{
	struct cz_ring_order *q = mem;

	if (!mem || (uintptr_t)mem % CZ_RING_ALIGN || !cap)
		return -EINVAL;
	if (bytes < cz_ring_order_bytes(cap))
		return -ENOSPC;
	q->cap = cap;
	q->n = 0;
	q->bytes = cz_ring_order_bytes(cap);
	q->magic = ORDER_MAGIC;
	return 0;
}

struct cz_ring_order *cz_ring_order_attach(void *mem, size_t bytes)
{
	struct cz_ring_order *q = mem;

	if (!mem || (uintptr_t)mem % CZ_RING_ALIGN || bytes < sizeof(*q) || q->magic != ORDER_MAGIC ||
	    q->bytes != cz_ring_order_bytes(q->cap) || q->bytes > bytes || q->n > q->cap) {
		errno = EINVAL;
		return NULL;
	}
	return q;
}

uint32_t cz_ring_order_count(const struct cz_ring_order *q) { return q->n; }

const struct cz_ring_desc *cz_ring_order_peek(const struct cz_ring_order *q)
{
	return q->n ? &q->heap[0] : NULL;
}

/* lib/heap.c does the work on a view of the shared array; only n changes. */
static struct cz_heap view(struct cz_ring_order *q)
{
	struct cz_heap h;
	cz_heap_init(&h, q->heap, q->cap, sizeof(struct cz_ring_desc));
	h.n = q->n;
	return h;
}

int cz_ring_order_push(struct cz_ring_order *q, const struct cz_ring_desc *d)
{
	struct cz_heap h = view(q);
	int rc = cz_heap_push(&h, d);
	q->n = h.n;
	return rc;
}

int cz_ring_order_pop(struct cz_ring_order *q, struct cz_ring_desc *d)
{
	struct cz_heap h = view(q);
	int rc = cz_heap_pop(&h, d);
	q->n = h.n;
	return rc;
}

unsigned cz_ring_order_drain(struct cz_ring_order *q, struct cz_ring *inbox)
{
	struct cz_ring_desc buf[32];
	unsigned moved = 0;

	while (q->n < q->cap) {
		unsigned room = q->cap - q->n, want = room < 32 ? room : 32;
		unsigned got = cz_ring_sc_dequeue_burst(inbox, buf, want);
		for (unsigned i = 0; i < got; i++)
			cz_ring_order_push(q, &buf[i]);
		moved += got;
		if (got < want)
			break;
	}
	return moved;
}

unsigned cz_ring_order_pump(struct cz_ring_order *q, struct cz_ring *inbox,
			    struct cz_ring *const *outs, unsigned nout)
{
	unsigned moved = 0;

	for (;;) {
		cz_ring_order_drain(q, inbox);  /* before every pop: a late urgent element goes first */
		const struct cz_ring_desc *top = cz_ring_order_peek(q);
		if (!top)
			break;
		/* The least-loaded ring with room: idle consumers are fed first. */
		int best = -1;
		uint32_t best_n = UINT32_MAX;
		for (unsigned i = 0; i < nout; i++) {
			uint32_t c = cz_ring_count(outs[i]);
			if (c < best_n && cz_ring_nonfull(outs[i])) {
				best = (int)i;
				best_n = c;
			}
		}
		if (best < 0 || !cz_ring_sp_enqueue_burst(outs[best], top, 1))
			break;
		struct cz_ring_desc d;
		cz_ring_order_pop(q, &d);
		moved++;
	}
	return moved;
}

struct wait_args {
	struct cz_ring_order *q;
	struct cz_ring *inbox;
	struct cz_ring *const *outs;
	unsigned nout;
};

static bool pump_ready(void *arg)
{
	struct wait_args *a = arg;

	if (a->q->n < a->q->cap && cz_ring_nonempty(a->inbox))
		return true;
	if (!a->q->n)
		return false;
	for (unsigned i = 0; i < a->nout; i++)
		if (cz_ring_nonfull(a->outs[i]))
			return true;
	return false;
}

int cz_ring_order_wait(struct cz_ring_order *q, struct cz_ring *inbox,
		       struct cz_ring *const *outs, unsigned nout, int64_t timeout_ns)
{
	struct cz_ring_bell *b = cz_ring_cons_bell(inbox);
	struct wait_args a = { q, inbox, outs, nout };

	for (unsigned i = 0; i < nout; i++)
		if (cz_ring_prod_bell(outs[i]) != b)
			return -EINVAL;
	return cz_ring_bell_wait(b, pump_ready, &a, timeout_ns);
}
