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

_Static_assert(sizeof(cz_bn254_fr) == sizeof(cz_fr), "one layout for both curves");

#define PART_DEFINE(P, KEY, FR)                                                       \
	uint64_t P##_bytes(const struct KEY *k)                                       \
	{                                                                             \
		uint64_t n = 1ull << k->log2n;                                        \
		return (uint64_t)k->nvars * sizeof(cz_scalar) + 3 * n * sizeof(FR) +  \
		       n * sizeof(cz_scalar);                                         \
	}                                                                             \
	void P##_carve(const struct KEY *k, void *mem, struct P *b)                   \
	{                                                                             \
		size_t n = (size_t)1 << k->log2n;                                     \
		b->w = mem;                                                           \
		b->a = (FR *)(b->w + k->nvars);                                       \
		b->b = b->a + n;                                                      \
		b->c = b->b + n;                                                      \
		b->h = (cz_scalar *)(b->c + n);                                       \
	}                                                                             \
	void P##_wipe(const struct KEY *k, void *mem)                                 \
	{                                                                             \
		explicit_bzero(mem, (size_t)P##_bytes(k));                            \
	}

PART_DEFINE(cz_synth_part, cz_groth16_key, cz_fr)
PART_DEFINE(cz_bn254_synth_part, cz_bn254_groth16_key, cz_bn254_fr)
