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

#include "zk/groth16.h"

#include <stddef.h>
#include <stdint.h>

struct cz_synth_part {
	cz_scalar *w;
	cz_fr *a, *b, *c;
	cz_scalar *h;
};

/* Bytes of one block for key k. */
uint64_t cz_synth_part_bytes(const struct cz_groth16_key *k);
/* The block at mem (cz_synth_part_bytes(k) bytes) cut into its buffers. */
void cz_synth_part_carve(const struct cz_groth16_key *k, void *mem, struct cz_synth_part *b);
/* explicit_bzero over the whole block: a wipe the compiler cannot drop. */
void cz_synth_part_wipe(const struct cz_groth16_key *k, void *mem);

#endif
