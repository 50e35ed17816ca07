/* SPDX-License-Identifier: MIT */
/*
 * synth/synth.h — synthesis: a partition's witness to the vectors a, b, c
 * the device stage transforms (see synth/synth.c for the design).
 */
#ifndef CZ_SYNTH_H
#define CZ_SYNTH_H

#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"

struct cz_pool;

/* a, b, c: n elements each.  w: nvars elements, standard form.  Rows are
 * split among the pool's threads when the key is indexed (row_off, built by
 * cz_groth16_key_index with every loaded or set-up key; pool may be NULL). */
void cz_synth_abc(const struct cz_groth16_key *k, const cz_scalar *w, cz_fr *a, cz_fr *b,
		  cz_fr *c, struct cz_pool *pool);
/* The same over BN254's key and field. */
void cz_bn254_synth_abc(const struct cz_bn254_groth16_key *k, const cz_scalar *w, cz_bn254_fr *a,
			cz_bn254_fr *b, cz_bn254_fr *c, struct cz_pool *pool);

#endif
