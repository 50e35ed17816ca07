/* SPDX-License-Identifier: MIT */
/* tools/cuzk/cli.c — helpers the offline commands share (see cli.h). */
#include "tools/cuzk/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int cz_cli_uint(const char *cmd, const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!s || *s < '0' || *s > '9') {
		fprintf(stderr, "cuzk %s: %s: expected a number, got '%s'\n", cmd, opt, s ? s : "");
		return -1;
	}
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || x > max) {
		fprintf(stderr, "cuzk %s: %s: '%s' is not a number <= %llu\n", cmd, opt, s,
			(unsigned long long)max);
		return -1;
	}
	*v = x;
	return 0;
}

uint64_t cz_cli_peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;   /* Linux reports KiB */
}
