/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16_key.c — the proving key's row index: its coefficient list
 * sorted by row, and row_off, where each row's run starts.
 *
 * The index is part of the key (zk/groth16.h), built here by whatever makes
 * a key (cz_groth16_key_load, cz_groth16_devsetup) and read by synthesis
 * (synth/synth.c), which splits rows among threads with no sharing when it
 * is there and runs serially when it is not.  Building it in zk/ keeps the
 * layering one-way: synth/ reads zk/'s key, zk/ never calls synth/.
 * Cost: one counting sort, O(ncoefs + n), and 4·(n + 1) bytes of offsets.
 */
#include "zk/groth16.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Counting sort by row: stable, so each row keeps the file's order. */
int cz_groth16_key_index(struct cz_groth16_key *k)
{
	size_t n = (size_t)1 << k->log2n;
	uint32_t *off = calloc(n + 1, sizeof(*off));
	struct cz_groth16_coef *sorted = malloc((k->ncoefs ? k->ncoefs : 1) * sizeof(*sorted));

	if (!off || !sorted || k->ncoefs > UINT32_MAX) {
		free(off);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k->ncoefs; i++)
		off[k->coefs[i].row + 1]++;
	for (size_t r = 0; r < n; r++)
		off[r + 1] += off[r];
	uint32_t *pos = malloc(n * sizeof(*pos));
	if (!pos) {
		free(off);
		free(sorted);
		return -ENOMEM;
	}
	memcpy(pos, off, n * sizeof(*pos));
	for (size_t i = 0; i < k->ncoefs; i++)
		sorted[pos[k->coefs[i].row]++] = k->coefs[i];
	free(pos);
	free(k->coefs);
	k->coefs = sorted;
	free(k->row_off);
	k->row_off = off;
	return 0;
}
