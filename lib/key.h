/* SPDX-License-Identifier: MIT */
/*
 * lib/key.h — the one ordering key: (priority, job sequence, partition
 * index), lowest first.  Every queue that decides who goes next sorts by it:
 * the engine's dispatch heap (engine/pipeline/dispatch.c), the order thread's heap in
 * shared memory (ring/order.c, inside each struct cz_ring_desc), and the
 * budget's waiters (alloc/budget.c).  It lives in lib/, the bottom layer,
 * so that ring/ and alloc/ can use it without including each other or the
 * engine.
 *
 * 16 bytes, no padding, no pointers: it is copied into shared memory as is.
 */
#ifndef CZ_KEY_H
#define CZ_KEY_H

#include <stdint.h>

/* Priority classes, most urgent first; the wire names are cz_prio_name(). */
enum cz_prio { CZ_PRIO_CRITICAL, CZ_PRIO_HIGH, CZ_PRIO_NORMAL, CZ_PRIO_LOW, CZ_PRIO__COUNT };

struct cz_key {
	uint64_t seq;           /* job sequence number, assigned at submission */
	uint32_t part;          /* partition index within the job */
	uint32_t prio;          /* enum cz_prio (any value orders; > LOW has no name) */
};
_Static_assert(sizeof(struct cz_key) == 16, "a key is 16 bytes, no padding");

/* <0, 0, >0 like memcmp: priority, then job, then partition. */
static inline int cz_key_cmp(const struct cz_key *a, const struct cz_key *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

/* "critical", "high", "normal", "low"; "?" for anything else. */
const char *cz_prio_name(unsigned prio);
/* 0 and *prio set, or -1 for a name that is none of the above. */
int cz_prio_parse(const char *name, enum cz_prio *prio);
/* The names as one string for messages: "critical, high, normal, low". */
#define CZ_PRIO_NAMES "critical, high, normal, low"

#endif
