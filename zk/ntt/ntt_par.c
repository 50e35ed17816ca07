/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt_par.c — how every NTT pass (both curves' instances of
 * zk/ntt/ntt_tmpl_pvt.h) is split over the thread pool.
 */
#include "zk/ntt/ntt_pvt.h"

#include "lib/pool.h"

struct par {
	size_t units, nchunks;
	void (*body)(void *job, size_t lo, size_t hi);
	void *job;
};

static void par_chunk(void *arg, size_t c)
{
	const struct par *p = arg;
	size_t lo = p->units * c / p->nchunks, hi = p->units * (c + 1) / p->nchunks;

	if (lo < hi)
		p->body(p->job, lo, hi);
}

/* Waking the pool costs tens of microseconds: a few thousand multiplications. */
#define PAR_MIN_MULS 4096

void cz_ntt_par(struct cz_pool *pool, size_t units, size_t muls,
		void (*body)(void *job, size_t lo, size_t hi), void *job)
{
	size_t t = cz_pool_nthreads(pool);

	if (units == 0)
		return;
	if (t <= 1 || units == 1 || muls < PAR_MIN_MULS) {
		body(job, 0, units);
		return;
	}
	/* A few chunks per thread absorb uneven progress (the 2 cores are shared). */
	struct par p = { .units = units, .nchunks = units < 4 * t ? units : 4 * t,
			 .body = body, .job = job };
	cz_pool_for(pool, p.nchunks, par_chunk, &p);
}

