/* SPDX-License-Identifier: MIT */
/* lib/key.c — the priority classes' names, written once. */
#include "lib/key.h"

#include <string.h>

static const char *const names[CZ_PRIO__COUNT] = { "critical", "high", "normal", "low" };

const char *cz_prio_name(unsigned prio)
{
	return prio < CZ_PRIO__COUNT ? names[prio] : "?";
}

int cz_prio_parse(const char *name, enum cz_prio *prio)
{
	for (unsigned i = 0; i < CZ_PRIO__COUNT; i++)
		if (!strcmp(name, names[i])) {
			*prio = (enum cz_prio)i;
			return 0;
		}
	return -1;
}
