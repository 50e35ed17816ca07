/* SPDX-License-Identifier: MIT */
/*
 * synth/part.c — one partition's block of buffers (layout in part.h).
 *
 * Cost of the wipe: one pass of stores over the block, memset's bandwidth
 * (about nvars·32 + 4·n·32 bytes: 40 KiB at n = 2^8, ~160 MiB at n = 2^20
 * with nvars ≈ n), paid by the thread that finishes with the partition,
 * outside any lock.
 */
#include "synth/part.h"

#include <string.h>

_Static_assert(sizeof(cz_scalar) % 32 == 0 && sizeof(cz_fr) % 32 == 0,
	       "each buffer keeps the next one 32-byte aligned");

uint64_t cz_synth_part_bytes(const struct cz_groth16_key *k)
{
	uint64_t n = 1ull << k->log2n;
	return (uint64_t)k->nvars * sizeof(cz_scalar) + 3 * n * sizeof(cz_fr) + n * sizeof(cz_scalar);
}

void cz_synth_part_carve(const struct cz_groth16_key *k, void *mem, struct cz_synth_part *b)
{
	size_t n = (size_t)1 << k->log2n;

	b->w = mem;
	b->a = (cz_fr *)(b->w + k->nvars);
	b->b = b->a + n;
	b->c = b->b + n;
	b->h = (cz_scalar *)(b->c + n);
}

void cz_synth_part_wipe(const struct cz_groth16_key *k, void *mem)
{
	explicit_bzero(mem, (size_t)cz_synth_part_bytes(k));
}
