/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the .wtns reader. */
#include <stdint.h>
#include <stdlib.h>

#include "zk/io/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CZ_ERRLEN];
	struct cz_wtns *w = cz_wtns_open_mem("fuzz.wtns", data, size, err);
	cz_fr *v;

	if (!w)
		return 0;
	v = malloc(((size_t)w->n + 1) * sizeof(*v));
	if (v)
		cz_wtns_get(w, 0, w->n, v, err);
	free(v);
	cz_wtns_close(w);
	return 0;
}
