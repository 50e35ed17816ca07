/* SPDX-License-Identifier: MIT */
/* Description: the one heap (lib/heap.c): random pushes, pops and removals by index against a sorted-array oracle, in own (growing) and fixed storage; full fixed storage says -ENOSPC; priority names round-trip. */
#include "lib/heap.h"
#include "selftests/cz_test.h"

#include <errno.h>
#include <string.h>

struct ent {
	struct cz_key key;
	uint64_t tag;           /* rides along: must come out with its key */
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The oracle's order, written out field by field. */
static int before(const struct ent *a, const struct ent *b)
{
	if (a->key.prio != b->key.prio)
		return a->key.prio < b->key.prio;
	if (a->key.seq != b->key.seq)
		return a->key.seq < b->key.seq;
	return a->key.part < b->key.part;
}

#define N 3000

static struct ent oracle[N];
static int on;

static void oracle_add(struct ent e)
{
	int i = on++;
	while (i && before(&e, &oracle[i - 1])) {
		oracle[i] = oracle[i - 1];
		i--;
	}
	oracle[i] = e;
}

static int oracle_drop(uint64_t tag)
{
	for (int i = 0; i < on; i++)
		if (oracle[i].tag == tag) {
			memmove(&oracle[i], &oracle[i + 1], (size_t)(on - i - 1) * sizeof(oracle[0]));
			on--;
			return 1;
		}
	return 0;
}

/* Returns the number of mismatches over a random run. */
static int run(struct cz_heap *h, uint64_t seed, uint32_t cap)
{
	int bad = 0;
	uint64_t tag = 0;
	on = 0;
	for (int step = 0; step < 20000; step++) {
		uint64_t r = rnd(&seed);
		if ((r % 3 != 0 || !h->n) && (uint32_t)on < cap) {
			/* few distinct values per field: ties in every field happen */
			struct ent e = { { .prio = (uint32_t)(r >> 8) % 4, .seq = (r >> 16) % 20,
					   .part = (uint32_t)(r >> 32) % 8 }, tag++ };
			e.key.part = e.key.part * 10000 + (uint32_t)(tag % 10000); /* keys unique */
			bad += cz_heap_push(h, &e) != 0;
			oracle_add(e);
		} else if (r % 2) {
			struct ent e;
			bad += cz_heap_pop(h, &e) != 1 || e.tag != oracle[0].tag ||
			       memcmp(&e.key, &oracle[0].key, sizeof(e.key));
			oracle_drop(oracle[0].tag);
		} else {
			uint32_t i = (uint32_t)(r >> 40) % h->n;
			struct ent e;
			cz_heap_remove(h, i, &e);
			bad += !oracle_drop(e.tag);
		}
		bad += h->n != (uint32_t)on;
		struct ent *top = cz_heap_peek(h);
		bad += on ? !top || top->tag != oracle[0].tag : top != NULL;
	}
	while (on) {
		struct ent e;
		bad += cz_heap_pop(h, &e) != 1 || e.tag != oracle[0].tag;
		oracle_drop(oracle[0].tag);
	}
	bad += cz_heap_pop(h, NULL) != 0;
	return bad;
}

int main(void)
{
	static struct ent mem[N];
	struct cz_heap h;

	ct_plan(5);
	cz_heap_init_grow(&h, sizeof(struct ent));
	int bad = run(&h, 0x1234567, N);
	ct_ok(!bad && h.cap >= 64, "own storage: 20000 random push/pop/remove steps match the sorted oracle (%d bad, grew to %u)",
	      bad, h.cap);
	cz_heap_free(&h);
	cz_heap_init(&h, mem, 100, sizeof(struct ent));
	bad = run(&h, 0xabcdef1, 100);
	ct_ok(!bad, "fixed storage of 100: the same against the oracle (%d bad)", bad);
	for (int i = 0; i < 100; i++)
		cz_heap_push(&h, &(struct ent){ { .seq = (uint64_t)i }, 0 });
	struct ent e = { { 0 }, 0 };
	ct_ok(cz_heap_push(&h, &e) == -ENOSPC && h.n == 100, "a full fixed heap refuses a push with -ENOSPC");
	struct cz_heap odd;
	cz_heap_init_grow(&odd, 12);
	ct_ok(cz_heap_push(&odd, &e) == -EINVAL, "an element size that is not a multiple of 8 is refused");
	enum cz_prio p = CZ_PRIO_LOW;
	int names = 1;
	for (unsigned i = 0; i < CZ_PRIO__COUNT; i++)
		names &= !cz_prio_parse(cz_prio_name(i), &p) && p == (enum cz_prio)i;
	ct_ok(names && !strcmp(cz_prio_name(0), "critical") && !strcmp(cz_prio_name(CZ_PRIO__COUNT), "?") &&
	      cz_prio_parse("urgent", &p) == -1, "priority names: critical .. low round-trip, others refused");
	return ct_exit();
}
