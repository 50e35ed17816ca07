/* SPDX-License-Identifier: MIT */
/*
 * engine/pipe.h — the data path between the engine's threads, on ring/ in
 * one shared region (alloc/region.h):
 *
 *   synthesis workers ─mp─► inbox ─► order (min-heap by key) ─► out[c] (depth 1) ─► consumer c
 *   consumers ─mp─► done ─sc─► finalizer
 *
 * out[c] has two mc consumers: consumer c, which takes its partition only
 * once it holds the device, and the order thread, which may take it back
 * before that (see the top of pipe.c for when and why).
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
#include <stdbool.h>
#include <stdatomic.h>

#define CZ_PIPE_INFLIGHT 1024   /* partitions between dispatch and done, at most */

struct cz_part;

/* One consumer's line in the shared region: whether it computes, and the
 * key the order thread last gave it (what its ring holds, while nonempty;
 * other consumers read it to find a lower key to take over). */
struct cz_pipe_cons {
	_Alignas(64) _Atomic uint32_t busy;  /* 1 from claiming a partition to its release */
	_Atomic uint32_t computing;          /* 1 while the device runs its partition (consume.c) */
	_Atomic uint32_t hint_part;
	_Atomic uint64_t hint_seq;
	_Atomic uint32_t hint_prio;
};

struct cz_pipe {
	struct cz_region reg;
	struct cz_ring_bell *bell;      /* inbox consumer side + every out's producer side,
					 * + consumers going free: the order thread sleeps here */
	struct cz_ring *inbox, *done, **out;
	struct cz_ring_order *q;
	struct cz_pipe_cons *cons;      /* nout lines, in the region */
	unsigned nout, ndev;            /* consumer c drives device c % ndev */
	/* The order thread's own: */
	struct cz_ring_desc *held;      /* held[c]: what it last gave out[c] (valid while nonempty) */
	uint64_t *dev_tick, tick;       /* when each device was last given work */
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

int cz_pipe_create(struct cz_pipe *p, unsigned nout, unsigned ndev, char *err, size_t cap);
void cz_pipe_destroy(struct cz_pipe *p);    /* after cz_pipe_stop and joining users */
void cz_pipe_stop(struct cz_pipe *p);       /* wakes everyone; takers get NULL */
void cz_pipe_finish(struct cz_pipe *p);     /* after consumers are joined */

/* Synthesis worker `owner` (1..CZ_RING_OWNER_MAX): the partition is ready
 * for a device.  0, or an error and the partition was not queued: -EINVAL
 * for an owner id out of range, -ENOSPC for a full ring (the engine's caps
 * and CZ_PIPE_INFLIGHT rule both out; an error, never a wait for ever). */
int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint64_t buf_off);

/*
 * Consumer c, in this order:
 *   cz_pipe_wait     until the order thread has given it a partition (0), or
 *                    the pipe stopped (-1); skipped while cz_pipe_dev_work
 *                    says a consumer of c's device (c included) holds one;
 *   (take the device: engine/consume.c)
 *   cz_pipe_claim    the lowest key held and not started on c's device, its
 *                    own ring's or a peer's, and then any lower key held by
 *                    a consumer that is not next on a computing device (the
 *                    one it took goes back to the order thread); marks c
 *                    busy.  NULL if nothing is left to take (the order thread
 *                    or a peer took it first): release the device, wait again;
 *   (compute, release the device)
 *   cz_pipe_release  c is free: the order thread may give it the next;
 *   cz_pipe_done     to the finalizer.
 * hint_* say which partition each consumer holds while it waits.
 * A partition whose descriptor failed its checksum comes back FAILED (or,
 * if its fields disagree, is dropped: claim then returns NULL).
 */
int cz_pipe_wait(struct cz_pipe *p, unsigned c);
bool cz_pipe_dev_work(const struct cz_pipe *p, unsigned c);
struct cz_part *cz_pipe_claim(struct cz_pipe *p, unsigned c);
void cz_pipe_release(struct cz_pipe *p, unsigned c);
/* Consumer `owner`: the device work is done (or skipped).  0, or as
 * cz_pipe_ready. */
int cz_pipe_done(struct cz_pipe *p, unsigned owner, struct cz_part *part);
/* Finalizer: the next finished partition; NULL after cz_pipe_finish once
 * drained.  A checksum failure as for cz_pipe_claim. */
struct cz_part *cz_pipe_done_take(struct cz_pipe *p);

#endif
