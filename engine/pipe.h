/* SPDX-License-Identifier: MIT */
/*
 * engine/pipe.h — the data path between the engine's threads, on ring/ in
 * one shared region (alloc/region.h):
 *
 *   synthesis workers ─mp─► inbox ─► order (min-heap by key) ─► out[c] (depth 1) ─► consumer c
 *   consumers ─mp─► done ─sc─► finalizer
 *
 * A descriptor names its partition by the in-process pointer (off[1]) and
 * its buffer by the offset in the slab arena (off[0]), so that consumers in
 * another process (a later step) need only the offsets.
 */
#ifndef CZ_PIPE_H
#define CZ_PIPE_H

#include "alloc/region.h"
#include "ring/order.h"

#include <pthread.h>
#include <stdatomic.h>

#define CZ_PIPE_INFLIGHT 1024   /* partitions between dispatch and done, at most */

struct cz_part;

struct cz_pipe {
	struct cz_region reg;
	struct cz_ring_bell *bell;      /* inbox consumer side + every out's producer side */
	struct cz_ring *inbox, *done, **out;
	struct cz_ring_order *q;
	unsigned nout;
	pthread_t order;
	_Atomic int stop;               /* order thread and consumers stop */
	_Atomic int fin_stop;           /* the finalizer stops once done is empty */
	/* A descriptor that fails its checksum: the in-flight partition of
	 * that (job sequence, index), or NULL (set by the engine). */
	struct cz_part *(*lookup)(void *ctx, uint64_t job_seq, uint32_t part);
	void *lookup_ctx;
};

/* Tests only: the next n descriptors are written with a wrong checksum. */
extern _Atomic unsigned cz_pipe_test_corrupt;

int cz_pipe_create(struct cz_pipe *p, unsigned nout, char *err, size_t cap);
void cz_pipe_destroy(struct cz_pipe *p);    /* after cz_pipe_stop and joining users */
void cz_pipe_stop(struct cz_pipe *p);       /* wakes everyone; takers get NULL */
void cz_pipe_finish(struct cz_pipe *p);     /* after consumers are joined */

/* Synthesis worker `owner` (1..CZ_RING_OWNER_MAX): the partition is ready
 * for a device.  0, or an error and the partition was not queued: -EINVAL
 * for an owner id out of range, -ENOSPC for a full ring (the engine's caps
 * and CZ_PIPE_INFLIGHT rule both out; an error, never a wait for ever). */
int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint64_t buf_off);
/* Consumer c: the next partition in key order; NULL once stopped.  A
 * partition whose descriptor failed its checksum comes back FAILED. */
struct cz_part *cz_pipe_take(struct cz_pipe *p, unsigned c);
/* Consumer `owner`: the device work is done (or skipped).  0, or as
 * cz_pipe_ready. */
int cz_pipe_done(struct cz_pipe *p, unsigned owner, struct cz_part *part);
/* Finalizer: the next finished partition; NULL after cz_pipe_finish once
 * drained.  A checksum failure as for cz_pipe_take. */
struct cz_part *cz_pipe_done_take(struct cz_pipe *p);

#endif
