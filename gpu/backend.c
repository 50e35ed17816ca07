/* SPDX-License-Identifier: MIT */
/* gpu/backend.c — the table of backends; adding one is one row here. */
#include "gpu/backend.h"

#include <string.h>

static const struct cz_backend *const backends[] = {
	&cz_backend_cpu,
	&cz_backend_null,
#ifdef CZ_HAVE_CUDA
	&cz_backend_cuda,
#endif
};

const struct cz_backend *cz_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
