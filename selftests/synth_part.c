/* SPDX-License-Identifier: MIT */
/* Description: a partition's block: its size is docs/cuzkd.8.md's nVars·32 + 4·n·32, the buffers tile it exactly, the wipe clears all of it and nothing beyond. */
#include "synth/part.h"
#include "selftests/cz_test.h"

#include <stdlib.h>
#include <string.h>

static void check(uint32_t nvars, unsigned log2n)
{
	struct cz_groth16_key k = { .nvars = nvars, .log2n = log2n };
	uint64_t n = 1ull << log2n, want = (uint64_t)nvars * 32 + 4 * n * 32;
	uint64_t bytes = cz_synth_part_bytes(&k);

	ct_ok(bytes == want, "nvars %u, n 2^%u: %llu bytes, the documented %llu", nvars, log2n,
	      (unsigned long long)bytes, (unsigned long long)want);
	uint8_t *mem = aligned_alloc(64, (bytes + 64 + 63) & ~63ull);
	struct cz_synth_part b;
	cz_synth_part_carve(&k, mem, &b);
	uint8_t *w = (uint8_t *)b.w, *a = (uint8_t *)b.a, *bb = (uint8_t *)b.b;
	uint8_t *c = (uint8_t *)b.c, *h = (uint8_t *)b.h;
	ct_ok(w == mem && a == w + nvars * 32ull && bb == a + n * 32 && c == bb + n * 32 &&
	      h == c + n * 32 && h + n * 32 == mem + bytes && ((uintptr_t)h & 31) == 0,
	      "nvars %u, n 2^%u: w, a, b, c, h tile the block in order, 32-byte aligned", nvars, log2n);
	memset(mem, 0xff, bytes + 64);
	cz_synth_part_wipe(&k, mem);
	size_t left = 0, guard = 0;
	for (uint64_t i = 0; i < bytes; i++)
		left += mem[i] != 0;
	for (uint64_t i = bytes; i < bytes + 64; i++)
		guard += mem[i] == 0xff;
	ct_ok(left == 0 && guard == 64, "nvars %u, n 2^%u: the wipe clears all %llu bytes (%zu left) and "
	      "none after (%zu of 64 intact)", nvars, log2n, (unsigned long long)bytes, left, guard);
	free(mem);
}

int main(void)
{
	ct_plan(3 * 3);
	check(255, 8);
	check(1, 0);
	check(5000, 12);
	return ct_exit();
}
