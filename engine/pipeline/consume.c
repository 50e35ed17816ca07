/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/consume.c — consumers: wait until the order thread gives them a
 * partition (engine/pipeline/order.c says which consumer gets which, and why that
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
 * peer's older one, so no partition waits on a thread.  A fair lock costs
 * the device a wake-up at each start (FIFO ticket lock: hand-off gaps p50
 * 40 us, p99 1.3-3.1 ms, null backend 4 x 2 on the loaded 2-core machine).
 *
 * Keep while held, wake after the start.  The consumer that finishes a
 * stage keeps the device while a partition is held on it and starts the
 * lowest at once; the wake-ups its bookkeeping owes (the order thread for
 * the freed ring, the finalizer for the done ring) are held back
 * (cz_ring_bell_hold) and go once the next stage is under way
 * (cz_dev_work_started, from inside the backend's prove).  So nothing
 * between two stages makes a system call or lets a woken thread take the
 * CPU.  Releasing the device at every stage end (as before) cost, on the
 * 2-core VM with the null backend 4 x 2 at 2 ms: the peer's futex wake and
 * the other two before the next start, 14 us a hand-off (p50); a third of
 * the starts waited for the peer's wake-up (18 us p50); duty 98.4-98.7%.
 * Kept: 2.5 us p50 and duty 99.6-99.7% (docs/BENCHMARKS.md).  An earlier
 * explicit hand-off kept the device but woke the finalizer before the next
 * start: the woken finalizer took the consumer's CPU and the cpu backend's
 * device waited 5-18 ms in a 175 ms run; here no one is woken until the
 * device is busy.  The peer sleeps on the device's bell meanwhile and its
 * ring's partition is claimed by the keeper at the stage end.  When
 * nothing is held the device is released (and the peer woken): first come,
 * lowest held.  A consumer publishes `computing` around the device stage,
 * so that work held behind a consumer that is merely descheduled is taken
 * over by another device (order.c).
 *
 * Hot path per partition: a CAS for the device when it was not kept; a
 * load or two per consumer to find the lowest held key and one CAS to take
 * it from its ring; one CAS on the done ring; then, in the device's time,
 * a futex wake for each sleeping peer thread owed one (~2-5 us each on the
 * VM).  No lock that the control plane or the finalizer takes.
 */
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* First come: the lock decides only who runs the device next, and whoever
 * gets it starts the lowest key its device's consumers hold.  The line
 * (held, bell) is in the pipe's shared region, like everything else a
 * consumer touches. */
struct dev_wait {
	struct cz_pipe_dev *d;
	uint32_t seen;          /* the bell's word when we went to sleep */
};

/* Free, or rung since we slept: the wait returns after every wake-up, so
 * that each one is sampled (below). */
static bool dev_free(void *v)
{
	struct dev_wait *w = v;
	return !atomic_load_explicit(&w->d->held, memory_order_acquire) ||
	       atomic_load_explicit(&w->d->bell.word, memory_order_relaxed) != w->seen;
}

/* 0 with the device held, or -1 once the engine stops.  The CAS (acquire)
 * pairs with the release store in dev_unlock.  Each wake-up is sampled for
 * its run-queue time (cz_trace_sched) and, when a peer took the device
 * first, the consumer says it waits again (lock_wait): a consumer woken at
 * a release and queued 1.5 ms for a CPU used to have that time placed at
 * its next start, 40 ms later, and the idle device's 1.5 ms blamed on the
 * daemon's hand-off. */
static int dev_lock(struct cz_pipe_dev *d, const struct cz_pipe_cons *me)
{
	struct dev_wait w = { .d = d };
	for (;;) {
		uint32_t z = 0;
		if (atomic_compare_exchange_strong(&d->held, &z, 1))
			return 0;
		w.seen = atomic_load_explicit(&d->bell.word, memory_order_relaxed);
		if (cz_ring_bell_wait(&d->bell, dev_free, &w, -1))
			return -1;
		cz_trace_sched(0);
		if (atomic_load_explicit(&d->held, memory_order_relaxed))
			cz_trace(CZ_EV_LOCK_WAIT, atomic_load_explicit(&me->hint_seq, memory_order_relaxed),
				 atomic_load_explicit(&me->hint_part, memory_order_relaxed));
	}
}

/* Wakes every waiter (a device has a handful): those that lose the CAS
 * sleep again, and none stays asleep while the device is free. */
static void dev_unlock(struct cz_pipe_dev *d)
{
	atomic_store_explicit(&d->held, 0, memory_order_release);
	cz_ring_bell_ring(&d->bell, ~0u);
}

/* A consumer that kept the device samples its run-queue time before the
 * next start only when the stage ended this long ago: a shorter gap had no
 * room for a wait worth naming (it is the daemon's, conservatively), and
 * the read of /proc/thread-self/schedstat costs ~1.4 us, half the gap.
 * The sample then comes once the stage is under way (on_started), so what
 * the thread waited before (its wake-up at the stage's end) is placed in
 * busy time, never in a later gap. */
#define KEPT_SAMPLE_NS 20000u

/* What a consumer does once the device has its partition (gpu/backend.h,
 * cz_dev_work_started), in the device's time: the wake-ups it held back
 * since the partition before (cz_ring_bell_hold), the scheduler sample it
 * put off, the stage's CPU clock. */
struct started {
	bool sample;
	uint64_t cpu0;
};

static void on_started(void *v)
{
	struct started *st = v;
	cz_ring_bell_flush();
	if (st->sample)
		cz_trace_sched(0);
	st->cpu0 = cz_thread_cpu_ns();
}

/* The device stage on slot s, described by offsets: the key by its id, the
 * buffer by its offset in the arena mapping; results go back in the slot. */
static uint64_t prove(struct cz_consumer *c, const struct cz_ring_desc *d, struct cz_pipe_slot *sl,
		      bool kept, bool sampled)
{
	struct cz_pipe *pipe = c->pipe;
	struct cz_pipe_cons *me = &pipe->cons[c->idx];
	const struct cz_pipe_key *k = &pipe->keys[sl->key_id];
	/* In a device child a key just loaded may still be being mapped
	 * (engine/device/devproc.c): wait for it, up to 10 s, with no wake-up held
	 * back meanwhile (a kept device's, below). */
	const union cz_curve_key *key;
	if (!__atomic_load_n(&k->key, __ATOMIC_ACQUIRE))
		cz_ring_bell_flush();
	for (int i = 0; !(key = __atomic_load_n(&k->key, __ATOMIC_ACQUIRE)) && i < 10000 &&
	     !atomic_load(pipe->stop); i++)
		usleep(1000);
	struct cz_dev_work w = { .part = d->key.part };

	unsigned arena = CZ_PIPE_OFF_ARENA(d->off[0]);
	char *base = arena < CZ_PLACE_MAX_NODES ? c->buf_base[arena] : NULL;
	if (sl->has_buf && !base)
		key = NULL;     /* an arena this process does not map: fails below, never a wild read */
	if (key)        /* the work over the key's curve, its buffers carved (synth/part.h) */
		cz_curve_ops(k->curve)->work(&w, key, k->dom,
					     sl->has_buf ? base + CZ_PIPE_OFF_BYTES(d->off[0]) : NULL);
	atomic_store(&me->cur_job, d->key.seq);
	atomic_store(&me->cur_part, d->key.part);
	/* The watchdog's clock runs before status says busy and stops after
	 * it says idle again: a process stopped while status says busy is one
	 * the watchdog times (a stop between the two used to go unseen). */
	atomic_store(&me->stage_key, sl->key_id);
	atomic_store(&me->stage_ns, cz_trace_now());
	atomic_store(&me->proving, 1);
	struct started st = { .sample = kept && !sampled };
	w.started = on_started;
	w.started_arg = &st;
	cz_pipe_computing(pipe, c->idx, true);  /* read by order.c's dev_load */
	if (!kept)
		cz_trace_sched(0);      /* preempted between the device lock and here */
	uint64_t t0 = cz_trace_now();
	cz_trace_arg(CZ_EV_COMPUTE_START, d->key.seq, d->key.part, c->dev);
	int rc = key ? c->be->prove(c->hw, &w) : -EINVAL;
	cz_dev_work_started(&w);        /* if the backend did not */
	cz_trace(CZ_EV_COMPUTE_END, d->key.seq, d->key.part);
	cz_pipe_computing(pipe, c->idx, false);
	uint64_t t1 = cz_trace_now(), dt = t1 - t0;
	atomic_fetch_add(&me->busy_ns, dt);
	sl->device_ns = dt;
	sl->device_cpu_ns = cz_thread_cpu_ns() - st.cpu0;
	atomic_store(&me->proving, 0);
	atomic_store(&me->stage_ns, 0); /* after proving: see above */
	atomic_fetch_add(&me->proved, 1);
	sl->out = w.msms;
	sl->rc = rc;
	sl->dev = c->dev;
	sl->cons = c->idx;
	sl->proved = 1;
	return t1;
}

/* A consumer's start: its names, its device's node, and (the device's
 * first consumer) the warm-up proof, once per process: /readyz waits for
 * it on every device. */
static void consumer_start(struct cz_consumer *c)
{
	struct cz_pipe *pipe = c->pipe;
	struct cz_pipe_dev *d = &pipe->devs[c->dev];
	char role[32];

	snprintf(role, sizeof(role), "consumer %u.%u", c->dev, c->idx / pipe->ndev);
	cz_thread_name("cz-cons%u.%u", c->dev, c->idx / pipe->ndev);
	cz_trace_thread(role, c->idx);
	if (c->place) {                         /* on its device's node (engine/place/place.c) */
		int rc = cz_place_apply_device(c->place, c->dev);
		if (rc)
			fprintf(stderr, "cuzkd: consumer %u.%u: cannot bind to node %d: %s\n", c->dev,
				c->idx / pipe->ndev, c->place->devs[c->dev].node, strerror(-rc));
	}
	/* The device's warm-up proof (engine/pipeline/warmup.c), once per process:
	 * /readyz waits for it on every device. */
	if (c->idx / pipe->ndev == 0)   /* a restarted device process proves again */
		atomic_store_explicit(&d->warm, CZ_WARM_PENDING, memory_order_release);
	if (c->idx / pipe->ndev == 0 && !dev_lock(d, &pipe->cons[c->idx])) {
		char why[sizeof(d->warm_why)], msg[sizeof(d->warm_why)];
		uint64_t t0 = cz_trace_now();
		cz_trace_arg(CZ_EV_WARMUP, 0, 0, 1);
		int rc = cz_warmup_device(c->be, c->hw, why, sizeof(why));
		cz_trace_arg(CZ_EV_WARMUP, 0, 0, 0);
		snprintf(msg, sizeof(msg), "%.120s in %.1f ms", why, (double)(cz_trace_now() - t0) / 1e6);
		memcpy(d->warm_why, msg, sizeof(msg));
		atomic_store_explicit(&d->warm, rc ? CZ_WARM_FAILED : CZ_WARM_OK, memory_order_release);
		fprintf(stderr, "cuzkd: device %u: %s\n", c->dev, msg);
		dev_unlock(d);
	}
}

void *cz_consume_main(void *v)
{
	struct cz_consumer *c = v;
	struct cz_pipe *pipe = c->pipe;
	struct cz_pipe_dev *d = &pipe->devs[c->dev];

	consumer_start(c);
	cz_trace_sched(0);              /* the baseline */
	bool kept = false;      /* the device, still ours from the partition before */
	uint64_t t_end = 0;     /* when that one's stage ended */
	for (;;) {
		if (!kept) {
			/* Scheduler evidence (trace.h): run-queue time since the
			 * last sample, so a hand-off that waited for a CPU says
			 * so.  Here: since the device stage ended (preempted on
			 * the way back). */
			cz_trace_sched(0);
			/* Work held on this device (a peer's too: the peer may
			 * not be scheduled yet) goes first; else wait for our own. */
			if (!cz_pipe_dev_work(pipe, c->idx)) {
				cz_trace(CZ_EV_IDLE, 0, 0);
				if (cz_pipe_wait(pipe, c->idx))
					break;
				cz_trace_sched(1);      /* woken: how long it waited for a CPU */
			}
			/* Labelled with what it most likely holds: pop names the
			 * partition it really gets. */
			cz_trace(CZ_EV_LOCK_WAIT, atomic_load_explicit(&pipe->cons[c->idx].hint_seq, memory_order_relaxed),
				 atomic_load_explicit(&pipe->cons[c->idx].hint_part, memory_order_relaxed));
			if (dev_lock(d, &pipe->cons[c->idx]))
				break;
		}
		struct cz_ring_desc desc;
		bool sampled = !kept || cz_trace_now() - t_end > KEPT_SAMPLE_NS;
		int s = cz_pipe_claim(pipe, c->idx, &desc, sampled);
		/* Woken for the device, or preempted while taking it: before
		 * pop, so the report places the wait before the hand-off's end. */
		bool was_kept = kept;
		if (!kept)
			cz_trace_sched(0);
		kept = false;
		if (s < 0) {            /* taken by someone else meanwhile */
			dev_unlock(d);
			cz_ring_bell_flush();
			continue;
		}
		struct cz_pipe_slot *sl = &pipe->slots[s];
		if (!cz_pipe_current(pipe, &desc)) {
			/* a stale copy (its slot was handed out again after a
			 * device process died): the current one is elsewhere */
			cz_pipe_unhold(pipe, c->idx);
			dev_unlock(d);
			cz_pipe_release(pipe, c->idx);
			cz_ring_bell_flush();
			continue;
		}
		cz_trace_arg(CZ_EV_POP, desc.key.seq, desc.key.part, c->dev);
		cz_trace(CZ_EV_LOCK_GOT, desc.key.seq, desc.key.part);
		bool ran = atomic_load(&sl->skip_seq) != desc.key.seq &&
			   atomic_load(&sl->bad) == CZ_SLOT_OK;        /* else a bad descriptor */
		if (ran)
			t_end = prove(c, &desc, sl, was_kept, sampled);
		else
			cz_trace_arg(CZ_EV_SKIP, desc.key.seq, desc.key.part, CZ_SKIP_CONSUMER);
		/* The partition to the order thread and the finalizer, their
		 * wake-ups held back; then, with more held on this device, we
		 * keep it and start the next at once: the wake-ups go when that
		 * one's stage is under way (on_started).  A release between two
		 * partitions cost the device a futex wake of the peer and the
		 * order thread and finalizer's wakes before the next start, 14 us
		 * a hand-off (p50, null 4 x 2 at 2 ms on the 2-core VM), and a
		 * third of starts waited for the peer's wake-up, 18 us; a
		 * partition that becomes the peer's while we compute is claimed
		 * by us at the end (lowest held first), so the peer sleeps on. */
		cz_ring_bell_hold();
		cz_pipe_release(pipe, c->idx);
		if (cz_pipe_done(pipe, CZ_OWNER_CONSUMER + c->idx, &desc))
			fprintf(stderr, "cuzkd: consumer %u: partition %u of job %llu lost: the done ring "
				"is full\n", c->idx, desc.key.part, (unsigned long long)desc.key.seq);
		cz_pipe_unhold(pipe, c->idx);
		kept = ran && cz_pipe_dev_work(pipe, c->idx);
		if (!kept) {
			dev_unlock(d);
			cz_ring_bell_flush();
		}
	}
	return NULL;
}
