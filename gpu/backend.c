/* SPDX-License-Identifier: MIT */
/*
 * gpu/backend.c — the table of backends (adding one is one row here).
 * What the backends that compute share (the device stage's results to a
 * verified proof) is gpu/finish.c's: the backends call it, the table
 * names them, and no file calls back into the one that calls it.
 */
#include "gpu/backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const struct cz_backend *const backends[] = {
	&cz_backend_cpu,
	&cz_backend_null,
#ifdef CZ_HAVE_CUDA
	&cz_backend_cuda,
#endif
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct cz_backend *cz_backend_find(const char *name)
{
	for (size_t i = 0; i < NBACKENDS; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

static char names[128];

static void names_build(void)
{
	size_t len = 0;
	for (size_t i = 0; i < NBACKENDS; i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					backends[i]->name);
#ifndef CZ_HAVE_CUDA
	snprintf(names + len, sizeof(names) - len, "; cuda needs a build with nvcc");
#endif
}

const char *cz_backend_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, names_build);
	return names;
}
