/* SPDX-License-Identifier: MIT */
/*
 * engine/pipe.c — the engine's rings (see pipe.h and the ordering argument
 * at the top of ring/ring.c).
 *
 * Why depth-1 out rings: a consumer holds at most the partition it runs and
 * one more in its ring, so a critical partition that becomes ready waits
 * behind at most that one per consumer, never behind the whole ready set.
 * The inbox, heap and done ring each hold CZ_PIPE_INFLIGHT descriptors, and
 * the dispatcher never has more partitions in flight, so no enqueue here
 * can find its ring full; if one did, or an owner id were out of range,
 * the caller gets an error and fails the partition rather than wait.
 */
#include "engine/pipe.h"
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN64(x) (((x) + 63) & ~(size_t)63)
#define WAIT_NS (200 * 1000 * 1000)   /* sleeps re-check the stop flag this often */

static void *order_main(void *v)
{
	struct cz_pipe *p = v;

	cz_thread_name("cz-order");
	cz_trace_thread("order", 0);
	while (!atomic_load(&p->stop))
		if (!cz_ring_order_pump(p->q, p->inbox, p->out, p->nout))
			cz_ring_order_wait(p->q, p->inbox, p->out, p->nout, WAIT_NS);
	return NULL;
}

int cz_pipe_create(struct cz_pipe *p, unsigned nout, char *err, size_t cap)
{
	size_t rin = cz_ring_bytes(CZ_PIPE_INFLIGHT, 64), rout = cz_ring_bytes(1, 64);
	size_t rq = cz_ring_order_bytes(CZ_PIPE_INFLIGHT);
	size_t bytes = 64 + 2 * ALIGN64(rin) + nout * ALIGN64(rout) + rq;

	memset(p, 0, sizeof(*p));
	p->nout = nout;
	p->out = calloc(nout, sizeof(*p->out));
	int rc = p->out ? cz_region_create(&p->reg, bytes, CZ_REGION_NODE_NONE, CZ_REGION_QUIET) : -ENOMEM;
	if (rc) {
		snprintf(err, cap, "cannot create the pipeline's shared region: %s", strerror(-rc));
		free(p->out);
		return rc;
	}
	char *m = p->reg.base;
	p->bell = (struct cz_ring_bell *)m;
	cz_ring_bell_init(p->bell);
	m += 64;
	cz_ring_init_bells(m, rin, CZ_PIPE_INFLIGHT, 64, p->bell, NULL);
	p->inbox = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	for (unsigned i = 0; i < nout; i++) {
		cz_ring_init_bells(m, rout, 1, 64, NULL, p->bell);
		p->out[i] = cz_ring_attach(m, rout);
		m += ALIGN64(rout);
	}
	cz_ring_init(m, rin, CZ_PIPE_INFLIGHT, 64);
	p->done = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	cz_ring_order_init(m, rq, CZ_PIPE_INFLIGHT);
	p->q = cz_ring_order_attach(m, rq);
	if (!p->inbox || !p->done || !p->q || pthread_create(&p->order, NULL, order_main, p)) {
		snprintf(err, cap, "cannot set up the pipeline's rings");
		cz_region_destroy(&p->reg);
		free(p->out);
		return -EINVAL;
	}
	return 0;
}

/* Closing a bell ends current and future waits on it at once. */
void cz_pipe_stop(struct cz_pipe *p)
{
	if (!p->out)
		return;         /* never created: the engine failed to start */
	atomic_store(&p->stop, 1);
	cz_ring_bell_close(p->bell);
	for (unsigned i = 0; i < p->nout; i++)
		cz_ring_bell_close(cz_ring_cons_bell(p->out[i]));
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
	free(p->out);
	p->out = NULL;
}

_Atomic unsigned cz_pipe_test_corrupt;

static void desc(struct cz_ring_desc *d, const struct cz_part *part, uint64_t buf_off)
{
	memset(d, 0, sizeof(*d));
	d->job_seq = part->job->seq;
	d->part = part->idx;
	d->prio = (uint16_t)part->job->prio;
	d->off[0] = buf_off;
	d->off[1] = (uint64_t)(uintptr_t)part;
	d->csum = cz_ring_desc_csum(d);
	unsigned n = atomic_load_explicit(&cz_pipe_test_corrupt, memory_order_relaxed);
	while (n && !atomic_compare_exchange_weak(&cz_pipe_test_corrupt, &n, n - 1))
		;
	if (n)
		d->csum ^= 1;
}

/* The partition a descriptor names.  On a checksum mismatch no field is
 * trusted alone: the in-flight partition named by (job, index) is failed
 * only if the pointer agrees, so a corrupted name can never hand a second
 * thread a partition someone else holds.  Otherwise the descriptor is
 * dropped with a log line, and its partition is lost (its job never ends):
 * liveness given up for memory safety, on what is already a broken ring. */
static struct cz_part *part_of(struct cz_pipe *p, const struct cz_ring_desc *d, const char *ring)
{
	struct cz_part *ptr = (struct cz_part *)(uintptr_t)d->off[1];

	if (d->csum == cz_ring_desc_csum(d))
		return ptr;
	struct cz_part *part = p->lookup ? p->lookup(p->lookup_ctx, d->job_seq, d->part) : NULL;
	if (part != ptr) {
		fprintf(stderr, "cuzkd: a descriptor on the %s ring failed its checksum and its fields "
			"disagree (job %llu, partition %u): dropped\n", ring,
			(unsigned long long)d->job_seq, d->part);
		return NULL;
	}
	snprintf(part->err, sizeof(part->err), "partition %u: its descriptor failed its checksum "
		 "on the %s ring", part->idx, ring);
	cz_part_set(part, CZ_PART_FAILED);
	return part;
}

static int enqueue(struct cz_ring *r, unsigned owner, const struct cz_ring_desc *d)
{
	errno = 0;      /* EINVAL: a bad owner id; left alone: a full ring */
	if (cz_ring_mp_enqueue_burst(r, owner, d, 1))
		return 0;
	return errno == EINVAL ? -EINVAL : -ENOSPC;
}

/* Cost: one CAS on a slot state and, only when the order thread sleeps, a
 * futex wake (~2 µs); otherwise no syscall. */
int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint64_t buf_off)
{
	struct cz_ring_desc d;
	desc(&d, part, buf_off);
	return enqueue(p->inbox, owner, &d);   /* never full: see top */
}

struct cz_part *cz_pipe_take(struct cz_pipe *p, unsigned c)
{
	struct cz_ring_desc d;
	struct cz_part *part;
	while (!atomic_load(&p->stop)) {
		if (cz_ring_sc_dequeue_burst(p->out[c], &d, 1)) {
			if ((part = part_of(p, &d, "consumer")))
				return part;
			continue;
		}
		cz_ring_wait_nonempty(p->out[c], WAIT_NS);
	}
	return NULL;
}

int cz_pipe_done(struct cz_pipe *p, unsigned owner, struct cz_part *part)
{
	struct cz_ring_desc d;
	desc(&d, part, 0);
	return enqueue(p->done, owner, &d);    /* never full: see top */
}

struct cz_part *cz_pipe_done_take(struct cz_pipe *p)
{
	struct cz_ring_desc d;
	struct cz_part *part;
	for (;;) {
		if (cz_ring_sc_dequeue_burst(p->done, &d, 1)) {
			if ((part = part_of(p, &d, "done")))
				return part;
			continue;
		}
		if (atomic_load(&p->fin_stop))
			return NULL;
		cz_ring_wait_nonempty(p->done, WAIT_NS);
	}
}
