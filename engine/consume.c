/* SPDX-License-Identifier: MIT */
/*
 * engine/consume.c — consumers: take the next partition from their own
 * depth-1 ring (filled in key order by the pipe's order thread), run its
 * device stage under the device lock, hand it to the finalizer.
 *
 * Hot path per partition: one slot-state CAS to dequeue, the device lock
 * (shared only with this device's other consumers, held only while
 * computing), one CAS to enqueue on the done ring; no lock that the control
 * plane or the finalizer takes.  While one consumer computes, the other has
 * its next partition and waits on the device lock, so the device starts
 * again the moment it is free.
 */
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <stdio.h>

static void prove(struct cz_engine *e, struct cz_consumer *c, struct cz_part *p)
{
	struct cz_devslot *d = &e->devs[c->dev];

	atomic_store(&p->consumer, (int)c->idx);
	cz_part_set(p, CZ_PART_PROVING);
	cz_trace(CZ_EV_LOCK_WAIT, p->job->seq, p->idx);
	pthread_mutex_lock(&d->lock);
	cz_trace(CZ_EV_LOCK_GOT, p->job->seq, p->idx);
	atomic_store(&c->cur_job, p->job->seq);
	atomic_store(&c->cur_part, p->idx);
	atomic_store(&c->busy, 1);
	uint64_t t0 = cz_trace_now();
	cz_trace_arg(CZ_EV_COMPUTE_START, p->job->seq, p->idx, c->dev);
	int rc = e->be->prove(d->dev, &p->work);
	cz_trace(CZ_EV_COMPUTE_END, p->job->seq, p->idx);
	p->device_ns = cz_trace_now() - t0;
	atomic_fetch_add(&c->busy_ns, p->device_ns);
	atomic_store(&c->busy, 0);
	pthread_mutex_unlock(&d->lock);
	atomic_fetch_add(&c->proved, 1);
	if (rc) {
		snprintf(p->err, sizeof(p->err), "partition %u: device %u failed (%d)", p->idx, c->dev, rc);
		cz_part_set(p, CZ_PART_FAILED);
	}
}

void *cz_consume_main(void *v)
{
	struct cz_consumer *c = v;
	struct cz_engine *e = c->e;
	struct cz_part *p;
	char role[32];

	snprintf(role, sizeof(role), "consumer %u.%u", c->dev, c->idx / e->ndev);
	cz_thread_name("cz-cons%u.%u", c->dev, c->idx / e->ndev);
	cz_trace_thread(role, c->idx);
	for (;;) {
		cz_trace(CZ_EV_IDLE, 0, 0);
		if (!(p = cz_pipe_take(&e->pipe, c->idx)))
			break;
		cz_trace_arg(CZ_EV_POP, p->job->seq, p->idx, c->dev);
		if (atomic_load(&p->job->state) == CZ_JOB_ACTIVE &&
		    atomic_load(&p->state) != CZ_PART_FAILED)   /* a bad descriptor */
			prove(e, c, p);
		else
			cz_trace_arg(CZ_EV_SKIP, p->job->seq, p->idx, CZ_SKIP_CONSUMER);
		if (cz_pipe_done(&e->pipe, CZ_OWNER_CONSUMER + c->idx, p))
			cz_part_fail(e, p, "consumer cannot hand it to the finalizer");
	}
	return NULL;
}
