/* SPDX-License-Identifier: MIT */
/*
 * engine/consume.c — consumers: wait until the order thread gives them a
 * partition (engine/pipe.c says which consumer gets which, and why that
 * keeps order), take the device in FIFO order, claim the partition, run its
 * device stage, then, still holding the device, run the partitions this
 * device's other consumers hold (the explicit hand-off), and hand each to
 * the finalizer.
 *
 * The partition stays in the consumer's depth-1 ring until the consumer
 * holds the device, so that until that moment the order thread can still
 * take it back: to give this consumer a lower key that arrived meanwhile,
 * or to move it to a device that went idle.
 *
 * The device lock is a ticket lock.  With a plain mutex the consumer that
 * just finished re-took the lock ~15 us later, before its woken peer ran
 * (one consumer waited 607 ms while the other took it 17 times, its
 * partition with it); tickets serve consumers in the order they asked.
 * But a FIFO hand-off to a sleeping peer costs its wake-up at every start
 * (p50 40 us, p99 1.3-3 ms on the loaded 2-core machine, tools/bench-
 * daemon.sh null).  So the consumer that finishes keeps the device and takes
 * the peer's waiting partition itself (cz_pipe_next: the lowest held on this
 * device, then re-checked like any start): the partition order is the
 * same, the device starts again in a few us, and the peer, now free, is
 * given the next partition by the order thread meanwhile.  The ticket still
 * orders consumers that claim their own.  A consumer publishes `computing`
 * around the device stage, so that work held behind a consumer that is
 * merely descheduled is taken over by the others (engine/pipe.c).
 *
 * Hot path per partition, chained: a load per consumer to find the lowest
 * held key, one CAS to take it from its ring (and a futex wake of the
 * order thread, ~2 us, if it sleeps), one CAS on the done ring (and a wake
 * of the finalizer).  Unchained: one fetch-add for a ticket and one load,
 * one CAS to claim; at release one fetch-add and a bell ring (a barrier and
 * a load, a futex wake only if someone sleeps).  No lock that the control
 * plane or the finalizer takes.
 */
#include "engine/engine_pvt.h"

#include <stdio.h>

struct ticket_wait {
	struct cz_devslot *d;
	uint32_t mine;
};

/* Acquire: pairs with the release in dev_unlock; the device's state as
 * the previous holder left it is visible once serving reads our ticket. */
static bool my_turn(void *v)
{
	struct ticket_wait *w = v;
	return atomic_load_explicit(&w->d->serving, memory_order_acquire) == w->mine;
}

/* 0 with the device held, or -1 once the engine stops. */
static int dev_lock(struct cz_devslot *d)
{
	struct ticket_wait w = { d, atomic_fetch_add(&d->next, 1) };
	if (my_turn(&w))
		return 0;
	return cz_ring_bell_wait(&d->bell, my_turn, &w, -1) ? -1 : 0;
}

/* Every waiter re-checks; only the next ticket's owner proceeds.  A device
 * has a handful of consumers, so waking them all costs one syscall. */
static void dev_unlock(struct cz_devslot *d)
{
	atomic_fetch_add_explicit(&d->serving, 1, memory_order_release);
	cz_ring_bell_ring(&d->bell, ~0u);
}

void cz_devslot_close(struct cz_devslot *d)
{
	cz_ring_bell_close(&d->bell);
}

static void prove(struct cz_engine *e, struct cz_consumer *c, struct cz_part *p)
{
	struct cz_devslot *d = &e->devs[c->dev];

	atomic_store(&c->cur_job, p->job->seq);
	atomic_store(&c->cur_part, p->idx);
	atomic_store(&c->busy, 1);
	uint64_t t0 = cz_trace_now();
	atomic_store(&e->pipe.cons[c->idx].computing, 1);     /* read by pipe.c's dev_load */
	cz_trace_arg(CZ_EV_COMPUTE_START, p->job->seq, p->idx, c->dev);
	int rc = e->be->prove(d->dev, &p->work);
	cz_trace(CZ_EV_COMPUTE_END, p->job->seq, p->idx);
	atomic_store(&e->pipe.cons[c->idx].computing, 0);
	atomic_fetch_add(&c->busy_ns, cz_trace_now() - t0);
	atomic_store(&c->busy, 0);
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
	struct cz_pipe *pipe = &e->pipe;
	struct cz_devslot *d = &e->devs[c->dev];
	char role[32];

	snprintf(role, sizeof(role), "consumer %u.%u", c->dev, c->idx / e->ndev);
	cz_trace_thread(role, c->idx);
	for (;;) {
		cz_trace(CZ_EV_IDLE, 0, 0);
		if (cz_pipe_wait(pipe, c->idx))
			break;
		/* Labelled with what it most likely holds: the order thread may
		 * still swap it; pop names the partition it really got. */
		cz_trace(CZ_EV_LOCK_WAIT, atomic_load_explicit(&pipe->cons[c->idx].hint_seq, memory_order_relaxed),
			 atomic_load_explicit(&pipe->cons[c->idx].hint_part, memory_order_relaxed));
		if (dev_lock(d))
			break;
		struct cz_part *p = cz_pipe_claim(pipe, c->idx);
		if (!p) {               /* taken back while we waited: wait again */
			dev_unlock(d);
			continue;
		}
		do {
			cz_trace_arg(CZ_EV_POP, p->job->seq, p->idx, c->dev);
			cz_trace(CZ_EV_LOCK_GOT, p->job->seq, p->idx);
			if (atomic_load(&p->job->state) == CZ_JOB_ACTIVE &&
			    atomic_load(&p->state) != CZ_PART_FAILED) {   /* a bad descriptor */
				atomic_store(&p->consumer, (int)c->idx);
				cz_part_set(p, CZ_PART_PROVING);
				prove(e, c, p);
			} else {
				cz_trace_arg(CZ_EV_SKIP, p->job->seq, p->idx, CZ_SKIP_CONSUMER);
			}
			struct cz_part *next = cz_pipe_next(pipe, c->idx);
			if (cz_pipe_done(pipe, CZ_OWNER_CONSUMER + c->idx, p))
				cz_part_fail(e, p, "consumer cannot hand it to the finalizer");
			p = next;
		} while (p);
		dev_unlock(d);
		cz_pipe_release(pipe, c->idx);
	}
	return NULL;
}
