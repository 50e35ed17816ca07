/* SPDX-License-Identifier: MIT */
/*
 * engine/pq.h — a binary min-heap of pointers ordered by a 128-bit key
 * (priority, job sequence, partition index packed high to low), the order
 * in which the daemon does all work.  Not locked: its owner locks.
 */
#ifndef CZ_PQ_H
#define CZ_PQ_H

#include <stddef.h>
#include <stdint.h>

struct cz_key {
	uint64_t hi;            /* priority << 56 | job sequence */
	uint64_t lo;            /* partition index */
};

static inline int cz_key_cmp(struct cz_key a, struct cz_key b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	return a.lo < b.lo ? -1 : a.lo > b.lo;
}

struct cz_pq_ent {
	struct cz_key key;
	void *item;
};

struct cz_pq {
	struct cz_pq_ent *e;
	size_t n, cap;
};

int cz_pq_push(struct cz_pq *q, struct cz_key key, void *item);  /* 0 or -ENOMEM */
void *cz_pq_peek(const struct cz_pq *q);                          /* NULL if empty */
void *cz_pq_pop(struct cz_pq *q);
void cz_pq_free(struct cz_pq *q);

#endif
