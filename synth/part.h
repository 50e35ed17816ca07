/* SPDX-License-Identifier: MIT */
/*
 * synth/part.h — one partition's buffers in one block: the witness w that
 * synthesis reads, the a, b, c it writes, and h, the scalars the device
 * stage computes from them.  The daemon sizes its buffer cache with
 * cz_synth_part_bytes() and carves each buffer with cz_synth_part_carve(), so the
 * layout is written down once, here, beside the code that fills it.
 *
 *   | w: nvars cz_scalar | a: n cz_fr | b: n cz_fr | c: n cz_fr | h: n cz_scalar |
 *
 * Every piece is a multiple of 32 bytes, so each starts 32-byte aligned
 * when the block does.  All of it is the witness in some form: wipe the
 * whole block (cz_synth_part_wipe) before it is reused or given back.
 */
#ifndef CZ_SYNTH_PART_H
#define CZ_SYNTH_PART_H

#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"

#include <stddef.h>
#include <stdint.h>

/* For either curve: P the prefix (cz_synth_part here, cz_bn254_synth_part
 * for BN254), KEY the prover's key tag, FR the scalar field.  bytes: of
 * one block for key k; carve: the block at mem (bytes(k) of them) cut into
 * its buffers; wipe: explicit_bzero over the whole block, a wipe the
 * compiler cannot drop.  Both curves' elements are 32 bytes, so a block
 * for a key of either curve has the same layout and size for the same
 * nvars and n. */
#define CZ_SYNTH_PART_DECLARE(P, KEY, FR)                                             \
	struct P {                                                                    \
		cz_scalar *w;                                                         \
		FR *a, *b, *c;                                                        \
		cz_scalar *h;                                                         \
	};                                                                            \
	uint64_t P##_bytes(const struct KEY *k);                                      \
	void P##_carve(const struct KEY *k, void *mem, struct P *b);                  \
	void P##_wipe(const struct KEY *k, void *mem)

CZ_SYNTH_PART_DECLARE(cz_synth_part, cz_groth16_key, cz_fr);
CZ_SYNTH_PART_DECLARE(cz_bn254_synth_part, cz_bn254_groth16_key, cz_bn254_fr);

#endif
