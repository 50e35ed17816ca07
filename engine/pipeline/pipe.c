/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/pipe.c — the pipe's layout and lifetime: one shared
 * region (alloc/region.h) holding the rings between the engine's threads,
 * the consumer and device lines and the partition table, laid out the same
 * in every process that maps it (see pipe.h for the data path).
 *
 * THE FILES, one concern each:
 *   pipe.c      the region's layout; create (cuzkd, which starts the order
 *               thread), attach (a device child), stop, finish, destroy;
 *   order.c     the order policy: which consumer the order thread gives each
 *               partition, and what a consumer holding a device starts
 *               (THE RULE, THE CHOICE, and why this keeps order);
 *   slot.c      the partition table: a partition's way in (cz_pipe_ready,
 *               _skip), its descriptor and checksum, its way out to the
 *               finalizer (cz_pipe_done, _done_take);
 *   precover.c  recovery after a device process died (cz_pipe_recover_dev);
 *   testhook.c  the test hooks (corrupted checksums, CZ_TEST_DEVKILL).
 * pipe_pvt.h holds what they share.  Calls run one way: pipe.c → order.c →
 * slot.c → testhook.c, order.c → testhook.c, precover.c → slot.c; no file
 * calls one that calls it (tools/check-layers).
 *
 * LAYOUT (layout() below): the order bell and the stop word, the inbox, the
 * out rings, the consumer lines, the done ring, the heap, the device lines,
 * the slot table, the free slots; each ring 64-byte aligned.  The region
 * is fresh memory, so every line starts zeroed.  A device child attaches
 * to cuzkd's region and checks its size against the same layout (-EPROTO
 * if the region is smaller, or a ring does not attach); the heap is the
 * order thread's alone, so a child has none.
 *
 * FULL RINGS.  The inbox, heap and done ring each hold CZ_PIPE_INFLIGHT
 * descriptors, and the dispatcher never has more partitions in flight, so
 * no enqueue can find its ring full; if one did, or an owner id were out of
 * range, the caller gets an error and fails the partition rather than wait.
 *
 * STOPPING.  cz_pipe_stop closes every bell, so current and future waits
 * end at once; cz_pipe_finish lets the finalizers drain the done ring and
 * return; cz_pipe_destroy joins the order thread and unmaps the region.
 */
#include "engine/pipeline/pipe_pvt.h"
#include "engine/engine_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN64(x) (((x) + 63) & ~(size_t)63)

/* The region's layout, the same in every process that maps it: the order
 * bell, the stop word, the inbox, the out rings, the consumer lines, the
 * done ring, the heap, the device lines, the slot table, the free slots.
 * init: cuzkd lays it out; else a child attaches to what is there. */
static size_t layout(struct cz_pipe *p, char *m, bool init)
{
	size_t rin = cz_ring_bytes(CZ_PIPE_INFLIGHT, 64), rout = cz_ring_bytes(1, 64);
	size_t rq = cz_ring_order_bytes(CZ_PIPE_INFLIGHT), rfree = cz_ring_bytes(CZ_PIPE_INFLIGHT, 8);
	size_t slots = ALIGN64(CZ_PIPE_INFLIGHT * sizeof(struct cz_pipe_slot));
	size_t bytes = 128 + 2 * ALIGN64(rin) + p->nout * ALIGN64(rout) +
		       p->nout * sizeof(struct cz_pipe_cons) + ALIGN64(rq) +
		       p->ndev * sizeof(struct cz_pipe_dev) + slots + ALIGN64(rfree);
	if (!m)
		return bytes;
	p->bell = (struct cz_ring_bell *)m;
	if (init)
		cz_ring_bell_init(p->bell);
	p->stop = (_Atomic int *)(m + 64);
	m += 128;
	if (init)
		cz_ring_init_bells(m, rin, CZ_PIPE_INFLIGHT, 64, p->bell, NULL);
	p->inbox = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	for (unsigned i = 0; i < p->nout; i++) {
		if (init)
			cz_ring_init_bells(m, rout, 1, 64, NULL, p->bell);
		p->out[i] = cz_ring_attach(m, rout);
		m += ALIGN64(rout);
	}
	p->cons = (struct cz_pipe_cons *)m;   /* zeroed: region memory is fresh */
	m += p->nout * sizeof(struct cz_pipe_cons);
	if (init)
		cz_ring_init(m, rin, CZ_PIPE_INFLIGHT, 64);
	p->done = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	if (init)
		cz_ring_order_init(m, rq, CZ_PIPE_INFLIGHT);
	p->q = init ? cz_ring_order_attach(m, rq) : NULL;   /* the order thread's alone */
	m += ALIGN64(rq);
	p->devs = (struct cz_pipe_dev *)m;    /* zeroed: held 0, bells symmetric */
	m += p->ndev * sizeof(struct cz_pipe_dev);
	p->slots = (struct cz_pipe_slot *)m;
	m += slots;
	if (init)
		cz_ring_init(m, rfree, CZ_PIPE_INFLIGHT, 8);
	p->free_slots = cz_ring_attach(m, rfree);
	for (uint64_t v = 0; init && p->free_slots && v < CZ_PIPE_INFLIGHT; v++)
		cz_ring_sp_enqueue_burst(p->free_slots, &v, 1);
	return bytes;
}

static void pipe_free(struct cz_pipe *p)
{
	free(p->out);
	free(p->held);
	free(p->dev_tick);
	free(p->slot_part);
	p->out = NULL;
	p->slots = NULL;
}

int cz_pipe_create(struct cz_pipe *p, unsigned nout, unsigned ndev, char *err, size_t cap)
{
	memset(p, 0, sizeof(*p));
	if (!nout || !ndev || nout % ndev) {
		snprintf(err, cap, "%u consumers cannot be spread evenly over %u devices", nout, ndev);
		return -EINVAL;
	}
	p->nout = nout;
	p->ndev = ndev;
	p->out = calloc(nout, sizeof(*p->out));
	p->held = calloc(nout, sizeof(*p->held));
	p->dev_tick = calloc(ndev, sizeof(*p->dev_tick));
	p->slot_part = calloc(CZ_PIPE_INFLIGHT, sizeof(*p->slot_part));
	int rc = p->out && p->held && p->dev_tick && p->slot_part ?
		 cz_region_create(&p->reg, layout(p, NULL, true), CZ_REGION_NODE_NONE, CZ_REGION_QUIET) :
		 -ENOMEM;
	if (rc) {
		snprintf(err, cap, "cannot create the pipeline's shared region: %s", strerror(-rc));
		pipe_free(p);
		return rc;
	}
	layout(p, p->reg.base, true);
	if (!p->inbox || !p->done || !p->q || !p->free_slots ||
	    pthread_create(&p->order, NULL, cz_pipe_order_main, p)) {
		snprintf(err, cap, "cannot set up the pipeline's rings");
		cz_region_destroy(&p->reg);
		pipe_free(p);
		return -EINVAL;
	}
	return 0;
}

int cz_pipe_attach(struct cz_pipe *p, struct cz_region *r, unsigned nout, unsigned ndev)
{
	memset(p, 0, sizeof(*p));
	p->nout = nout;
	p->ndev = ndev;
	if (!nout || !ndev || nout % ndev || !(p->out = calloc(nout, sizeof(*p->out))))
		return -EINVAL;
	if (r->size < layout(p, NULL, false)) {
		pipe_free(p);
		return -EPROTO;
	}
	p->reg = *r;
	layout(p, r->base, false);
	bool ok = p->inbox && p->done && p->free_slots;
	for (unsigned i = 0; i < nout; i++)
		ok &= p->out[i] != NULL;
	if (!ok) {
		pipe_free(p);
		return -EPROTO;
	}
	return 0;
}

/* Closing a bell ends current and future waits on it at once. */
void cz_pipe_stop(struct cz_pipe *p)
{
	if (!p->out)
		return;         /* never created: the engine failed to start */
	atomic_store(p->stop, 1);
	cz_ring_bell_close(p->bell);
	for (unsigned i = 0; i < p->nout; i++)
		cz_ring_bell_close(cz_ring_cons_bell(p->out[i]));
	for (unsigned i = 0; i < p->ndev; i++)      /* waiters for a device give up */
		cz_ring_bell_close(&p->devs[i].bell);
}

void cz_pipe_finish(struct cz_pipe *p)
{
	if (!p->out)
		return;
	atomic_store(&p->fin_stop, 1);
	cz_ring_bell_close(cz_ring_cons_bell(p->done));
}

void cz_pipe_destroy(struct cz_pipe *p)
{
	if (!p->out)
		return;
	cz_pipe_stop(p);
	pthread_join(p->order, NULL);
	cz_region_destroy(&p->reg);
	pipe_free(p);
}
