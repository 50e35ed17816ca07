/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the .r1cs reader and its matrix loader. */
#include <stdint.h>
#include <stdlib.h>

#include "zk/io/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CZ_ERRLEN];
	struct cz_r1cs *r = cz_r1cs_open_mem("fuzz.r1cs", data, size, err);
	struct cz_r1cs_matrix m[3];
	uint64_t label;

	if (!r)
		return 0;
	if (cz_r1cs_load(r, m, err) == 0)
		cz_r1cs_matrices_free(m);
	cz_r1cs_label(r, r->n_wires - 1, &label);
	cz_r1cs_close(r);
	return 0;
}
