/* SPDX-License-Identifier: MIT */
/* gpu/cpu.c — the CPU backend: the device stage on a thread pool per "device",
 * one device per NUMA node by default (opened from a thread bound to its
 * node, its pool's threads are that node's: engine/place/numa.c, lib/pool.c). */
#include "gpu/backend.h"
#include "lib/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cz_device {
	struct cz_pool *pool;
	char desc[64];
};

/* One device per NUMA node with CPUs: the kernel's list of them
 * (/sys/devices/system/node/has_cpu, e.g. "0-1"), 1 where it has none. */
static int cpu_count(void)
{
	char buf[256];
	FILE *f = fopen("/sys/devices/system/node/has_cpu", "r");
	int n = 0;
	if (f && fgets(buf, sizeof(buf), f)) {
		for (char *q = buf; *q && *q != '\n';) {
			char *end;
			long a = strtol(q, &end, 10), b = a;
			if (end == q)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			n += b >= a ? (int)(b - a + 1) : 0;
			q = *end == ',' ? end + 1 : end;
		}
	}
	if (f)
		fclose(f);
	return n > 0 ? n : 1;
}

static struct cz_device *cpu_open(unsigned index, const struct cz_backend_opts *o, char *err,
				  size_t cap)
{
	struct cz_device *d = calloc(1, sizeof(*d));
	char name[16];

	snprintf(name, sizeof(name), "cz-pool%u", index);   /* workers cz-pool<D>.<k> */
	if (d)
		d->pool = cz_pool_create_named(o->threads, name);
	if (!d || !d->pool) {
		snprintf(err, cap, "cpu device %u: out of memory", index);
		free(d);
		return NULL;
	}
	snprintf(d->desc, sizeof(d->desc), "cpu: %u threads", cz_pool_nthreads(d->pool));
	return d;
}

static int cpu_prove(struct cz_device *d, struct cz_dev_work *w)
{
	/* The pool's threads and the caller are the device: the engine's
	 * few microseconds of wake-ups come out of a stage of 100 ms or more. */
	cz_dev_work_started(w);
	if (cz_dev_work_bn254(w))
		return cz_bn254_groth16_device(w->bn_key, w->bn_dom, w->w, w->bn_a, w->bn_b, w->bn_c,
					       w->h, &w->bn_out, d->pool, NULL);
	return cz_groth16_device(w->key, w->dom, w->w, w->a, w->b, w->c, w->h, &w->out, d->pool, NULL);
}

static void cpu_close(struct cz_device *d)
{
	if (d)
		cz_pool_destroy(d->pool);
	free(d);
}

static const char *cpu_describe(struct cz_device *d)
{
	return d->desc;
}

const struct cz_backend cz_backend_cpu = {
	/* simulated: --devices N makes N pools sharing the machine's CPUs
	 * (tests of several devices, and of several nodes' arenas, without a
	 * GPU); by default one per node (per_node). */
	.name = "cpu", .count = cpu_count, .simulated = true, .per_node = true, .input = CZ_BACKEND_IN_SYNTH,
	.bn254 = true,
	.open = cpu_open, .prove = cpu_prove, .finish = cz_backend_groth16_finish,
	.close = cpu_close, .describe = cpu_describe,
};
