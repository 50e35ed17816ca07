/* SPDX-License-Identifier: MIT */
/* gpu/null.c — the null backend: each partition "completes" after delay_ms. */
#include "gpu/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cz_device {
	unsigned delay_ms;
	char desc[48];
};

/* One by default; --devices asks for as many fake ones as wanted. */
static int null_count(void)
{
	return 1;
}

static struct cz_device *null_open(unsigned index, const struct cz_backend_opts *o, char *err,
				   size_t cap)
{
	struct cz_device *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, cap, "null device %u: out of memory", index);
		return NULL;
	}
	d->delay_ms = o->delay_ms;
	snprintf(d->desc, sizeof(d->desc), "null: %u ms per partition", o->delay_ms);
	return d;
}

static int null_prove(struct cz_device *d, struct cz_dev_work *w)
{
	struct timespec ts = { d->delay_ms / 1000, (long)(d->delay_ms % 1000) * 1000000L };
	memset(&w->out, 0, sizeof(w->out));
	while (nanosleep(&ts, &ts))
		;
	return 0;
}

static void null_close(struct cz_device *d)
{
	free(d);
}

static const char *null_describe(struct cz_device *d)
{
	return d->desc;
}

const struct cz_backend cz_backend_null = {
	.name = "null", .count = null_count, .open = null_open, .prove = null_prove,
	.close = null_close, .describe = null_describe, .computes = 0,
};
