/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt_pvt.h — the NTT's internals shared by its instances
 * (zk/ntt/ntt_tmpl_pvt.h, zk/ntt/ntt_par.c).  Do not include from outside zk/ntt/.
 */
#ifndef CZ_NTT_PVT_H
#define CZ_NTT_PVT_H

#include <stddef.h>

struct cz_pool;

/* Runs body(job, lo, hi) over [0, units) cut into a few chunks per thread;
 * on the calling thread alone when the loop's cost (about `muls` field
 * multiplications) would not pay for waking the pool. */
void cz_ntt_par(struct cz_pool *pool, size_t units, size_t muls,
		void (*body)(void *job, size_t lo, size_t hi), void *job);

#endif
