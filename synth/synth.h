/* SPDX-License-Identifier: MIT */
/*
 * synth/synth.h — synthesis: a partition's witness to the vectors a, b, c
 * the device stage transforms (see synth/synth.c for the design).
 */
#ifndef CZ_SYNTH_H
#define CZ_SYNTH_H

#include "zk/groth16.h"

struct cz_pool;

/* a, b, c: n elements each.  w: nvars elements, standard form.  Rows are
 * split among the pool's threads when the key is indexed (pool may be NULL). */
void cz_synth_abc(const struct cz_groth16_key *k, const cz_scalar *w, cz_fr *a, cz_fr *b,
		  cz_fr *c, struct cz_pool *pool);
/* Sorts the key's coefficients by row and builds row_off.  0 or -ENOMEM
 * (the key then stays usable, with serial synthesis). */
int cz_synth_index(struct cz_groth16_key *k);

#endif
