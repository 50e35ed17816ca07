/* SPDX-License-Identifier: MIT */
/*
 * lib/heap.c — binary min-heap by struct cz_key (see heap.h).
 *
 * Sifting moves a hole rather than swapping: the element being placed waits
 * in a stack copy while parents (up) or smaller children (down) move into
 * the hole, so each level costs one compare and one esize-byte copy.
 */
#include "lib/heap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int less(const struct cz_heap *h, uint32_t i, const void *e)
{
	return cz_key_cmp(cz_heap_at(h, i), e) < 0;
}

/* Places e at hole i or above. */
static void sift_up(struct cz_heap *h, uint32_t i, const void *e)
{
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (!(cz_key_cmp(e, cz_heap_at(h, p)) < 0))
			break;
		memcpy(cz_heap_at(h, i), cz_heap_at(h, p), h->esize);
		i = p;
	}
	memcpy(cz_heap_at(h, i), e, h->esize);
}

/* Places e at hole i or below, among the first n elements. */
static void sift_down(struct cz_heap *h, uint32_t i, const void *e)
{
	uint32_t n = h->n;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && less(h, c + 1, cz_heap_at(h, c)))
			c++;
		if (!less(h, c, e))
			break;
		memcpy(cz_heap_at(h, i), cz_heap_at(h, c), h->esize);
		i = c;
	}
	memcpy(cz_heap_at(h, i), e, h->esize);
}

void cz_heap_init(struct cz_heap *h, void *base, uint32_t cap, uint32_t esize)
{
	*h = (struct cz_heap){ .base = base, .cap = cap, .esize = esize };
}

void cz_heap_init_grow(struct cz_heap *h, uint32_t esize)
{
	*h = (struct cz_heap){ .esize = esize, .own = 1 };
}

void cz_heap_free(struct cz_heap *h)
{
	if (h->own) {
		free(h->base);
		h->base = NULL;
		h->cap = 0;
	}
	h->n = 0;
}

int cz_heap_push(struct cz_heap *h, const void *elem)
{
	if (h->esize % 8 || h->esize < sizeof(struct cz_key) || h->esize > CZ_HEAP_ESIZE_MAX)
		return -EINVAL;
	if (h->n == h->cap) {
		if (!h->own)
			return -ENOSPC;
		uint32_t cap = h->cap ? h->cap * 2 : 64;
		void *b = cap > h->cap ? realloc(h->base, (size_t)cap * h->esize) : NULL;
		if (!b)
			return -ENOMEM;
		h->base = b;
		h->cap = cap;
	}
	sift_up(h, h->n++, elem);
	return 0;
}

void cz_heap_remove(struct cz_heap *h, uint32_t i, void *out)
{
	unsigned char last[CZ_HEAP_ESIZE_MAX];

	if (out)
		memcpy(out, cz_heap_at(h, i), h->esize);
	if (i == --h->n)
		return;
	/* The last element fills the hole, then moves up or down to fit. */
	memcpy(last, cz_heap_at(h, h->n), h->esize);
	if (i && cz_key_cmp((const struct cz_key *)last, cz_heap_at(h, (i - 1) / 2)) < 0)
		sift_up(h, i, last);
	else
		sift_down(h, i, last);
}

int cz_heap_pop(struct cz_heap *h, void *out)
{
	if (!h->n)
		return 0;
	cz_heap_remove(h, 0, out);
	return 1;
}
