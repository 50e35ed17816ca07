/* SPDX-License-Identifier: MIT */
/* engine/pq.c — binary heap; push and pop cost O(log n) key compares. */
#include "engine/pq.h"

#include <errno.h>
#include <stdlib.h>

int cz_pq_push(struct cz_pq *q, struct cz_key key, void *item)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct cz_pq_ent *e = realloc(q->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		q->e = e;
		q->cap = cap;
	}
	size_t i = q->n++;
	while (i) {
		size_t p = (i - 1) / 2;
		if (cz_key_cmp(q->e[p].key, key) <= 0)
			break;
		q->e[i] = q->e[p];
		i = p;
	}
	q->e[i].key = key;
	q->e[i].item = item;
	return 0;
}

void *cz_pq_peek(const struct cz_pq *q)
{
	return q->n ? q->e[0].item : NULL;
}

void *cz_pq_pop(struct cz_pq *q)
{
	if (!q->n)
		return NULL;
	void *top = q->e[0].item;
	struct cz_pq_ent last = q->e[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && cz_key_cmp(q->e[c + 1].key, q->e[c].key) < 0)
			c++;
		if (cz_key_cmp(last.key, q->e[c].key) <= 0)
			break;
		q->e[i] = q->e[c];
		i = c;
	}
	if (q->n)
		q->e[i] = last;
	return top;
}

void cz_pq_free(struct cz_pq *q)
{
	free(q->e);
	q->e = NULL;
	q->n = q->cap = 0;
}
