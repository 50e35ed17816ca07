/* SPDX-License-Identifier: MIT */
/*
 * engine/consume.c — consumers: wait until the order thread gives them a
 * partition (engine/pipe.c says which consumer gets which, and why that
 * keeps order), take the device, claim the lowest partition held on it,
 * run its device stage, hand it to the finalizer.
 *
 * A partition stays in its consumer's depth-1 ring until some consumer
 * holds the device, so that until that moment it can still be taken back:
 * by the order thread (a lower key arrived, or a device went idle) or by
 * the consumer that gets the device (cz_pipe_claim).
 *
 * The device lock decides only WHO runs the device next, never WHAT:
 * whoever holds it starts the lowest key held by its device's consumers,
 * its own or a peer's.  With the old mutex the consumer that just finished
 * re-took the lock ~15 us later, before its woken peer ran, and started its
 * own newer partition (one consumer waited 607 ms with its partition while
 * the other took the lock 17 times); now re-taking the device starts the
 * peer's older one, so no partition waits on a thread.  And a fair lock
 * costs the device a wake-up at each start, measured with
 * tools/bench-daemon.sh on the loaded 2-core machine: a FIFO ticket lock
 * gave hand-off gaps of p50 40 us, p99 1.3-3.1 ms (null backend, 4 x 2
 * consumers); keeping the device and running the peer's partition (an
 * explicit hand-off, no wake-up) left one thread on the critical path, and
 * when the woken finalizer took its CPU the cpu backend's device waited
 * 5-18 ms in a 175 ms run.  First come, lowest held: the consumer that
 * finishes releases the device, wakes its peer and tries again itself;
 * whichever runs first starts the lowest held partition.  A consumer
 * publishes `computing` around the device stage, so that work held behind
 * a consumer that is merely descheduled is taken over by others (pipe.c).
 *
 * Hot path per partition: a CAS for the device; a load or two per consumer
 * to find the lowest held key and one CAS to take it from its ring; at
 * release a store and a bell ring (a barrier and a load, a futex wake only
 * if a peer sleeps, ~2 us); one CAS on the done ring.  No lock that the
 * control plane or the finalizer takes.
 */
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <stdio.h>

/* First come: the lock decides only who runs the device next, and whoever
 * gets it starts the lowest key its device's consumers hold. */
static bool dev_free(void *v)
{
	struct cz_devslot *d = v;
	return !atomic_load_explicit(&d->held, memory_order_acquire);
}

/* 0 with the device held, or -1 once the engine stops.  The CAS (acquire)
 * pairs with the release store in dev_unlock. */
static int dev_lock(struct cz_devslot *d)
{
	for (;;) {
		uint32_t z = 0;
		if (atomic_compare_exchange_strong(&d->held, &z, 1))
			return 0;
		if (cz_ring_bell_wait(&d->bell, dev_free, d, -1))
			return -1;
	}
}

/* Wakes every waiter (a device has a handful): those that lose the CAS
 * sleep again, and none stays asleep while the device is free. */
static void dev_unlock(struct cz_devslot *d)
{
	atomic_store_explicit(&d->held, 0, memory_order_release);
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
	p->device_ns = cz_trace_now() - t0;
	atomic_fetch_add(&c->busy_ns, p->device_ns);
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
	cz_thread_name("cz-cons%u.%u", c->dev, c->idx / e->ndev);
	cz_trace_thread(role, c->idx);
	for (;;) {
		/* Work held on this device (a peer's too: the peer may not be
		 * scheduled yet) goes first; else wait for our own. */
		if (!cz_pipe_dev_work(pipe, c->idx)) {
			cz_trace(CZ_EV_IDLE, 0, 0);
			if (cz_pipe_wait(pipe, c->idx))
				break;
		}
		/* Labelled with what it most likely holds: pop names the
		 * partition it really gets. */
		cz_trace(CZ_EV_LOCK_WAIT, atomic_load_explicit(&pipe->cons[c->idx].hint_seq, memory_order_relaxed),
			 atomic_load_explicit(&pipe->cons[c->idx].hint_part, memory_order_relaxed));
		if (dev_lock(d))
			break;
		struct cz_part *p = cz_pipe_claim(pipe, c->idx);
		if (!p) {               /* taken by someone else meanwhile */
			dev_unlock(d);
			continue;
		}
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
		/* The device first (a woken peer may start the next while we
		 * are still here), then the order thread, then the finalizer;
		 * then, at the top, we try for the device again ourselves. */
		dev_unlock(d);
		cz_pipe_release(pipe, c->idx);
		if (cz_pipe_done(pipe, CZ_OWNER_CONSUMER + c->idx, p))
			cz_part_fail(e, p, "consumer cannot hand it to the finalizer");
	}
	return NULL;
}
