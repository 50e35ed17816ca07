/* SPDX-License-Identifier: MIT */
/* Description: the fork-join pool runs every index exactly once, at any thread count. */
#include "lib/pool.h"
#include "selftests/cz_test.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

static void mark(void *arg, size_t i)
{
	atomic_int *hits = arg;
	atomic_fetch_add(&hits[i], 1);
}

/* Each task writes its index into its scratch slot, spins a little, and
 * checks nobody else wrote there meanwhile: slots are per participant. */
struct slot_arg {
	struct cz_pool *p;
	atomic_int clash;
};

static void slot_task(void *v, size_t i)
{
	struct slot_arg *a = v;
	volatile size_t *m = cz_pool_scratch(a->p);
	*m = i;
	for (int k = 0; k < 2000; k++)
		if (*m != i)
			atomic_store(&a->clash, 1);
}

int main(void)
{
	static atomic_int hits[10000];
	unsigned threads[] = { 1, 2, 4, 7 };

	ct_plan(7);
	for (unsigned t = 0; t < 4; t++) {
		struct cz_pool *p = cz_pool_create(threads[t]);
		int bad = !p;
		for (int round = 0; round < 50 && !bad; round++) {
			size_t n = (size_t)(round * 197) % 10000;
			memset(hits, 0, sizeof(hits));
			cz_pool_for(p, n, mark, hits);
			for (size_t i = 0; i < 10000; i++)
				bad |= atomic_load(&hits[i]) != (i < n);
		}
		ct_ok(!bad, "pool of %u threads: each index run exactly once over 50 loops", threads[t]);
		cz_pool_destroy(p);
	}
	struct cz_pool *p = cz_pool_create_named(3, "cz-test");
	struct slot_arg sa = { .p = p };
	int rc = cz_pool_scratch_reserve(p, 64, 4096);
	void *own = cz_pool_scratch(p);
	cz_pool_for(p, 3000, slot_task, &sa);
	ct_ok(rc == 0 && own && !atomic_load(&sa.clash),
	      "scratch: every participant of a loop has a slot of its own");
	size_t held = cz_pool_scratch_bytes(p);
	rc = cz_pool_scratch_reserve(p, 32, 100);
	ct_ok(rc == 0 && cz_pool_scratch(p) == own && cz_pool_scratch_bytes(p) == held,
	      "scratch: a smaller reserve keeps every slot where it is (no heap call)");
	ct_ok(cz_pool_scratch_reserve(NULL, 1, 1) == -EINVAL && cz_pool_scratch(NULL) == NULL,
	      "scratch: a NULL pool has none (callers fall back)");
	cz_pool_destroy(p);
	return ct_exit();
}
