/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/pq.c — loads libpq at the first fleet open (engine/fleet/pq.h
 * says why it is not linked).
 */
#ifdef CZ_HAVE_LIBPQ

#define CZ_PQ_NO_MACROS
#include "engine/fleet/pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct cz_pq_table cz_pq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];           /* "" once loaded */

static void load(void)
{
	void *h = dlopen(CZ_PQ_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, sizeof(why), "fleet: cannot load %s (Debian package libpq5), which --fleet "
			 "needs: %s", CZ_PQ_SONAME, e ? e : "unknown reason");
		return;
	}
#define CZ_PQ_RESOLVE(f)                                                                        \
	if (!why[0] && !(*(void **)&cz_pq.f = dlsym(h, #f)))                                     \
		snprintf(why, sizeof(why), "fleet: %s has no %s (a libpq older than this build needs)", \
			 CZ_PQ_SONAME, #f);
	CZ_PQ_FUNCS(CZ_PQ_RESOLVE)
#undef CZ_PQ_RESOLVE
	if (why[0]) {
		memset(&cz_pq, 0, sizeof(cz_pq));
		dlclose(h);
	}
	/* else: kept for the process's life */
}

int cz_pq_load(char *err, size_t cap)
{
	pthread_once(&once, load);
	if (why[0]) {
		if (err && cap)
			snprintf(err, cap, "%s", why);
		return -1;
	}
	return 0;
}

#endif
