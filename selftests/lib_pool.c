/* SPDX-License-Identifier: MIT */
/* Description: the fork-join pool runs every index exactly once, at any thread count. */
#include "lib/pool.h"
#include "selftests/cz_test.h"

#include <stdatomic.h>
#include <string.h>

static void mark(void *arg, size_t i)
{
	atomic_int *hits = arg;
	atomic_fetch_add(&hits[i], 1);
}

int main(void)
{
	static atomic_int hits[10000];
	unsigned threads[] = { 1, 2, 4, 7 };

	ct_plan(4);
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
	return ct_exit();
}
