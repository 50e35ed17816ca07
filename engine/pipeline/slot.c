/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/slot.c — the partition table: a partition's way into the
 * pipe and out of it again (see pipe.h for the data path).
 *
 * A partition in flight owns one slot of the table in the pipe's shared
 * region (struct cz_pipe_slot), from cz_pipe_ready (or cz_pipe_skip) to the
 * finalizer's cz_pipe_done_take; every descriptor on a ring names it by
 * index (off[1]) and hand-out (its attempt, off[2]), under a checksum.  So
 * a consumer in another process needs no pointer: only cuzkd's finalizer
 * turns a slot back into its struct cz_part (slot_part[]).
 *
 * WAY IN.  A synthesis worker takes a free slot (an mc dequeue from the
 * free list), fills it, and publishes the attempt with a release store;
 * then the descriptor goes to the inbox (or, for a partition that skips the
 * devices, to the done ring).
 * WAY OUT.  The finalizer takes a descriptor off the done ring and the
 * attempt with one CAS (against a retry by the supervisor, precover.c),
 * applies what the consumer left in the slot (its MSMs, or why it failed),
 * and puts the slot back on the free list.
 * ONE START.  A consumer starts a descriptor only if it is the slot's
 * current attempt and no other copy of it was started (cz_pipe_current,
 * one CAS on `started`).
 *
 * FAILURE MODES.  A descriptor that fails its checksum is trusted only as
 * far as its slot agrees with it (cz_pipe_slot_of): the partition then
 * comes back failed, or the descriptor is dropped with a log line.  A ring
 * or the free list found full cannot happen (pipe.c, FULL RINGS): the
 * caller gets -ENOSPC and fails the partition rather than wait.
 */
#include "engine/pipeline/pipe_pvt.h"
#include "engine/engine_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The slot a descriptor names, on a consumer (any process).  On a
 * checksum mismatch no field is trusted alone: the slot is used only if it
 * is in range and its own key agrees, and then comes back marked bad (the
 * finalizer fails its partition), so a corrupted name can never hand a
 * second thread a partition someone else holds.  Otherwise the descriptor
 * is dropped with a log line, and its partition is lost (its job never
 * ends): liveness given up for memory safety, on what is already a broken
 * ring. */
int cz_pipe_slot_of(struct cz_pipe *p, const struct cz_ring_desc *d, unsigned bad)
{
	uint64_t s = d->off[1];

	if (d->csum == cz_ring_desc_csum(d))
		return (int)s;
	if (s >= CZ_PIPE_INFLIGHT || cz_key_cmp(&p->slots[s].key, &d->key)) {
		fprintf(stderr, "cuzkd: a descriptor on the %s ring failed its checksum and its fields "
			"disagree (job %llu, partition %u): dropped\n",
			bad == CZ_SLOT_BAD_DONE ? "done" : "consumer",
			(unsigned long long)d->key.seq, d->key.part);
		return -1;
	}
	atomic_store(&p->slots[s].bad, bad);
	return (int)s;
}

void cz_pipe_desc(struct cz_ring_desc *d, const struct cz_key *key, uint64_t buf_off,
		 uint64_t slot, uint32_t attempt)
{
	memset(d, 0, sizeof(*d));
	d->key = *key;
	d->off[0] = buf_off;
	d->off[1] = slot;
	d->off[2] = attempt;
	d->csum = cz_ring_desc_csum(d);
	unsigned n = atomic_load_explicit(&cz_pipe_test_corrupt, memory_order_relaxed);
	while (n && !atomic_compare_exchange_weak(&cz_pipe_test_corrupt, &n, n - 1))
		;
	if (n)
		d->csum ^= 1;
}

/* Cost: one CAS on a slot state and, only when the order thread sleeps, a
 * futex wake (~2 µs); otherwise no syscall. */
/* A free slot for part, filled; -ENOSPC if none (cannot happen: the
 * dispatcher keeps at most CZ_PIPE_INFLIGHT partitions in flight and each
 * holds at most one slot). */
static int slot_fill(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint32_t key_id,
		     bool has_buf)
{
	uint64_t v;
	errno = 0;
	if (!cz_ring_mc_dequeue_burst(p->free_slots, owner, &v, 1))
		return errno == EINVAL ? -EINVAL : -ENOSPC;
	struct cz_pipe_slot *sl = &p->slots[v];
	/* seq is read without a lock by cz_pipe_job_ended (a cancel, on the
	 * control plane): stored atomically, the rest before the attempt's
	 * release below. */
	sl->key.part = part->key.part;
	sl->key.prio = part->key.prio;
	__atomic_store_n(&sl->key.seq, part->key.seq, __ATOMIC_RELAXED);
	sl->key_id = key_id;
	sl->has_buf = has_buf;
	atomic_store_explicit(&sl->bad, CZ_SLOT_OK, memory_order_relaxed);
	sl->rc = 0;
	sl->proved = 0;
	sl->device_ns = 0;
	sl->device_cpu_ns = 0;
	sl->deaths = 0;
	p->slot_part[v] = part;
	atomic_store_explicit(&part->slot, (int)v, memory_order_relaxed);
	/* Last, and a release: the finalizer's CAS on the attempt acquires it,
	 * so what it reads here happens before, whichever process ran the
	 * consumer in between. */
	atomic_store(&sl->attempt, ((atomic_load(&sl->attempt) & ~SLOT_FINAL) + 1) & ~SLOT_FINAL);
	return (int)v;
}

static int slot_put(struct cz_pipe *p, int s, unsigned owner)
{
	uint64_t v = (uint64_t)s;
	p->slot_part[s]->slot = -1;
	p->slot_part[s] = NULL;
	return enqueue(p->free_slots, owner, &v);
}

int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint32_t key_id,
		  const void *buf, uint64_t buf_off)
{
	struct cz_ring_desc d;
	int s = slot_fill(p, owner, part, key_id, buf != NULL);
	if (s < 0)
		return s;
	p->slots[s].buf_off = buf_off;
	cz_pipe_desc(&d, &part->key, buf_off, (uint64_t)s, atomic_load(&p->slots[s].attempt));
	int rc = enqueue(p->inbox, owner, &d);   /* never full: pipe.c, FULL RINGS */
	if (rc)
		slot_put(p, s, owner);
	return rc;
}

int cz_pipe_skip(struct cz_pipe *p, unsigned owner, struct cz_part *part)
{
	struct cz_ring_desc d;
	int s = slot_fill(p, owner, part, 0, false);
	if (s < 0)
		return s;
	cz_pipe_desc(&d, &part->key, 0, (uint64_t)s, atomic_load(&p->slots[s].attempt));
	int rc = enqueue(p->done, owner, &d);
	if (rc)
		slot_put(p, s, owner);
	return rc;
}

void cz_pipe_job_ended(struct cz_pipe *p, uint64_t job_seq)
{
	if (!p->slots)
		return;
	for (unsigned s = 0; s < CZ_PIPE_INFLIGHT; s++)
		if (__atomic_load_n(&p->slots[s].key.seq, __ATOMIC_RELAXED) == job_seq)
			atomic_store(&p->slots[s].skip_seq, job_seq);
}

void cz_pipe_key_set(struct cz_pipe *p, uint32_t id, const struct cz_pipe_key *k)
{
	p->keys[id] = k ? *k : (struct cz_pipe_key){ .key = NULL };
}

int cz_pipe_part_consumer(const struct cz_pipe *p, const struct cz_part *part)
{
	int s = atomic_load_explicit(&part->slot, memory_order_relaxed);
	if (s < 0 || !p->slots)
		return -1;
	for (unsigned c = 0; c < p->nout; c++)
		if (atomic_load(&p->cons[c].proving) &&
		    atomic_load(&p->cons[c].cur_job) == part->key.seq &&
		    atomic_load(&p->cons[c].cur_part) == part->key.part)
			return (int)c;
	return -1;
}

int cz_pipe_done(struct cz_pipe *p, unsigned owner, const struct cz_ring_desc *d)
{
	return enqueue(p->done, owner, d);     /* never full: pipe.c, FULL RINGS */
}

/* The finalizer's side of a slot: its partition, with what the consumer
 * left there applied, and the slot back on the free list.  A checksum
 * failure: the in-flight partition named by (job, index) is used only if
 * the slot's partition is that one. */
static struct cz_part *slot_take(struct cz_pipe *p, const struct cz_ring_desc *d, unsigned owner)
{
	int s = cz_pipe_slot_of(p, d, CZ_SLOT_BAD_DONE);
	if (s < 0)
		return NULL;
	struct cz_pipe_slot *sl = &p->slots[s];
	/* This attempt is the finalizer's now, unless the supervisor handed
	 * the slot out again first (then this is a stale copy from a device
	 * process that died): one CAS decides, against retry()'s. */
	uint32_t a = (uint32_t)d->off[2];
	if (a & SLOT_FINAL || !atomic_compare_exchange_strong(&sl->attempt, &a, a | SLOT_FINAL))
		return NULL;
	struct cz_part *part = p->slot_part[s];
	if (!part)
		return NULL;
	if (atomic_load(&sl->bad) == CZ_SLOT_BAD_DONE &&
	    (!p->lookup || p->lookup(p->lookup_ctx, d->key.seq, d->key.part) != part)) {
		fprintf(stderr, "cuzkd: a descriptor on the done ring failed its checksum and its "
			"partition is not in flight (job %llu, partition %u): dropped\n",
			(unsigned long long)d->key.seq, d->key.part);
		return NULL;
	}
	static const char *const why[] = {
		[CZ_SLOT_BAD_CONSUMER] = "its descriptor failed its checksum on the consumer ring",
		[CZ_SLOT_BAD_DONE] = "its descriptor failed its checksum on the done ring",
		[CZ_SLOT_BAD_REQUEUE] = "cannot requeue it",
	};
	unsigned bad = atomic_load(&sl->bad);
	if (bad == CZ_SLOT_POISON) {
		snprintf(part->err, sizeof(part->err), "partition %u: %s", part->idx, sl->why);
		cz_part_set(part, CZ_PART_FAILED);
	} else if (bad && bad < sizeof(why) / sizeof(why[0])) {
		snprintf(part->err, sizeof(part->err), "partition %u: %s", part->idx, why[bad]);
		cz_part_set(part, CZ_PART_FAILED);
	} else if (sl->proved && sl->rc) {
		snprintf(part->err, sizeof(part->err), "partition %u: device %u failed (%d)",
			 part->idx, sl->dev, sl->rc);
		cz_part_set(part, CZ_PART_FAILED);
	} else if (sl->proved) {
		part->work.msms = sl->out;
	}
	if (sl->proved) {
		atomic_store(&part->consumer, (int)sl->cons);
		part->device_ns = sl->device_ns;
		part->device_cpu_ns = sl->device_cpu_ns;
		if (p->stage_hist && sl->key_id < CZ_PIPE_KEYS) {
			struct cz_pipe_stage_hist *h = &p->stage_hist[sl->key_id];
			uint64_t us = sl->device_ns / 1000;
			uint32_t i = atomic_fetch_add_explicit(&h->n, 1, memory_order_relaxed);
			atomic_store_explicit(&h->us[i % CZ_PIPE_STAGE_SAMPLES], us > UINT32_MAX ? UINT32_MAX : (uint32_t)us,
					      memory_order_relaxed);
		}
	}
	/* No one names the slot any more: the consumer is done with it (the
	 * done ring's W1), the order thread gave it out for the last time. */
	if (slot_put(p, s, owner))
		fprintf(stderr, "cuzkd: partition slot %d lost: the free list is full\n", s);
	return part;
}

/* Any number of finalizers (mc: one CAS each). */
struct cz_part *cz_pipe_done_take(struct cz_pipe *p, unsigned owner)
{
	struct cz_ring_desc d;
	struct cz_part *part;
	for (;;) {
		if (cz_ring_mc_dequeue_burst(p->done, owner, &d, 1)) {
			if ((part = slot_take(p, &d, owner)))
				return part;
			continue;
		}
		if (atomic_load(&p->fin_stop))
			return NULL;
		cz_ring_wait_nonempty(p->done, WAIT_NS);
	}
}

/* One CAS on the slot's `started` decides among copies of one attempt
 * (after a device process died in take_lower, one may be in the inbox and
 * one handed out again from holds[1]): the first to start it wins, any
 * other drops its copy.  An older attempt's copy fails the attempt test. */
bool cz_pipe_current(struct cz_pipe *p, const struct cz_ring_desc *d)
{
	struct cz_pipe_slot *sl = &p->slots[d->off[1]];   /* in range: cz_pipe_slot_of */
	uint32_t a = (uint32_t)d->off[2];
	if (d->off[2] != atomic_load(&sl->attempt) || cz_key_cmp(&sl->key, &d->key))
		return false;
	uint32_t t = atomic_load(&sl->started);
	do {
		if (t == a)
			return false;
	} while (!atomic_compare_exchange_weak(&sl->started, &t, a));
	return true;
}

void cz_pipe_unhold(struct cz_pipe *p, unsigned c)
{
	atomic_store(&p->cons[c].holds[0], 0);
}
