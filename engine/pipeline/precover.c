/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/precover.c — the pipe's recovery after a device process
 * died (or before it restarts): cz_pipe_recover_dev, called by cuzkd's
 * supervisor (engine/device/devproc.c; see pipe.h).
 *
 * WHAT A DEAD CONSUMER CAN LEAVE.  A consumer takes partitions out of the
 * rings with a hold (cz_ring_mc_dequeue_hold) and names what it took in its
 * line's holds[] before it lets go of the ring slot (order.c,
 * cz_pipe_claim and take_lower), so every partition is always named
 * somewhere: a ring, a ring claim in the consumer's name, or holds[].
 * Recovery, per consumer of the device: its claims on every ring undone
 * (ring/recover.c: a half-made enqueue becomes a skip, a half-taken
 * element comes back, and goes to the inbox as it is); what it ran
 * (holds[0]) handed out again as the next attempt (retry: its inputs made
 * whole again first, p->redo), or failed once it was on `poison` dead
 * devices; what it was giving back (holds[1], [2]) requeued as the same
 * attempt (requeue); then what waits in its out rings back to the order
 * thread, its line and the device's lock cleared.
 *
 * ONE COPY.  A partition may be named twice after a death (a ring and
 * holds[], or the inbox and holds[1]): recovery drops a holds[] word that a
 * recovered ring element names too, a retry takes the attempt with one CAS
 * against the finalizer's (slot.c), and only one copy of an attempt is ever
 * started (cz_pipe_current).
 *
 * FAILURE MODES.  An inbox or done ring found full (cannot happen: pipe.c,
 * FULL RINGS) loses that partition with a log line naming it.
 */
#include "engine/pipeline/pipe_pvt.h"
#include "engine/engine_pvt.h"

#include <stdio.h>

/* A partition a dead consumer was giving back (holds[1], [2]): never
 * started, so its inputs are whole and it goes out again as the same
 * attempt, unless that attempt is gone (finalized, or handed out again
 * from holds[0] just before).  A copy that reached the inbox before the
 * death may exist too: only one is started (cz_pipe_current). */
static unsigned requeue(struct cz_pipe *p, unsigned s, uint32_t held, unsigned c)
{
	struct cz_pipe_slot *sl = &p->slots[s];
	struct cz_ring_desc d;
	if (atomic_load(&sl->attempt) != held)
		return 0;
	cz_pipe_desc(&d, &sl->key, sl->buf_off, s, held);
	cz_trace_unit(CZ_EV_RECLAIM, d.key.seq, d.key.part, c);
	if (enqueue(p->inbox, CZ_OWNER_SUPER, &d))
		fprintf(stderr, "cuzkd: partition %u lost: the inbox is full\n", d.key.part);
	return 1;
}

/* Hands slot s out again (next attempt) through the inbox, or, once it was
 * on `poison` dead devices, to the finalizer as failed. */
static unsigned retry(struct cz_pipe *p, unsigned s, uint32_t held, unsigned poison, const char *why,
		      unsigned c, bool blame)
{
	struct cz_pipe_slot *sl = &p->slots[s];
	struct cz_ring_desc d;
	/* Only the attempt the dead consumer held, and only if the finalizer
	 * has not taken it (it reached the done ring before the death). */
	uint32_t a = held;
	/* Claimed as "final" meanwhile, so neither the stale copy nor the next
	 * attempt can be taken until the store below publishes the next. */
	if (!atomic_compare_exchange_strong(&sl->attempt, &a, SLOT_FINAL | ((held + 1) & ~SLOT_FINAL)))
		return 0;
	a = (held + 1) & ~SLOT_FINAL;
	cz_pipe_desc(&d, &sl->key, sl->buf_off, s, a);
	sl->proved = 0;
	sl->deaths += blame;
	if (p->slot_part[s])    /* the per-job accounting's attempts (cuzkd's side) */
		atomic_fetch_add(&p->slot_part[s]->attempts, 1);
	if (sl->deaths < poison && p->redo && p->redo(p->lookup_ctx, p->slot_part[s])) {
		snprintf(sl->why, sizeof(sl->why), "its device process died (%s) and its inputs "
			 "cannot be made again", why);
		atomic_store(&sl->bad, CZ_SLOT_POISON);
		atomic_store(&sl->attempt, a);          /* release: pairs with the finalizer's CAS */
		if (enqueue(p->done, CZ_OWNER_SUPER, &d))
			fprintf(stderr, "cuzkd: partition %u lost: the done ring is full\n", d.key.part);
		return 0;
	}
	if (sl->deaths >= poison) {
		snprintf(sl->why, sizeof(sl->why), "it was on a device process that died %u times (%s)",
			 sl->deaths, why);
		atomic_store(&sl->bad, CZ_SLOT_POISON);
		atomic_store(&sl->attempt, a);          /* release: pairs with the finalizer's CAS */
		if (enqueue(p->done, CZ_OWNER_SUPER, &d))
			fprintf(stderr, "cuzkd: partition %u lost: the done ring is full\n", d.key.part);
		return 0;
	}
	cz_trace_unit(CZ_EV_RECLAIM, d.key.seq, d.key.part, c);
	atomic_store(&sl->attempt, a);                  /* as above */
	if (enqueue(p->inbox, CZ_OWNER_SUPER, &d))
		fprintf(stderr, "cuzkd: partition %u lost: the inbox is full\n", d.key.part);
	return 1;
}

unsigned cz_pipe_recover_dev(struct cz_pipe *p, unsigned dev, unsigned poison, const char *why)
{
	unsigned n = 0;
	for (unsigned c = dev; c < p->nout; c += p->ndev) {
		unsigned owner = CZ_OWNER_CONSUMER + c, got;
		/* Only the partition the device was running is blamed for the
		 * death: a peer may still hold one it finished (between the
		 * device's release and the done ring) when the next one crashes. */
		bool blame = atomic_load(&p->cons[c].computing);
		uint64_t hv[CZ_PIPE_HOLDS];
		for (int h = 0; h < CZ_PIPE_HOLDS; h++)
			hv[h] = atomic_exchange(&p->cons[c].holds[h], 0);
		struct cz_ring_desc back[4];
		/* Its claims on every ring it uses: a half-made enqueue becomes a
		 * skip, a half-taken element comes back (ring/recover.c).  One
		 * taken from an out ring is a descriptor it had not let go of
		 * (cz_ring_mc_dequeue_hold): never started, so it goes back as
		 * it is, and a holds[] word naming it too is dropped. */
		cz_ring_recover(p->inbox, owner, NULL, 0, NULL);
		cz_ring_recover(p->done, owner, NULL, 0, NULL);
		for (unsigned o = 0; o < p->nout; o++) {
			if (cz_ring_recover(p->out[o], owner, back, 4, &got) < 0)
				got = 0;
			for (unsigned i = 0; i < got; i++) {
				for (int h = 0; h < CZ_PIPE_HOLDS; h++)
					if (hv[h] == hold_of(&back[i]))
						hv[h] = 0;
				cz_trace_unit(CZ_EV_RECLAIM, back[i].key.seq, back[i].key.part, o);
				if (enqueue(p->inbox, CZ_OWNER_SUPER, &back[i]))
					fprintf(stderr, "cuzkd: partition %u lost: the inbox is full\n",
						back[i].key.part);
				n++;
			}
		}
		/* What it had taken out of the rings: what it ran (holds[0])
		 * first, as the next attempt; then what it was giving back, as
		 * the same one (see take_lower). */
		for (int h = 0; h < CZ_PIPE_HOLDS; h++) {
			uint32_t s = (uint32_t)hv[h];
			if (!s || s - 1 >= CZ_PIPE_INFLIGHT)
				continue;
			n += h == 0 ? retry(p, s - 1, (uint32_t)(hv[h] >> 32), poison, why, c, blame)
				    : requeue(p, s - 1, (uint32_t)(hv[h] >> 32), c);
		}
		atomic_store(&p->cons[c].computing, 0);
		atomic_store(&p->cons[c].proving, 0);
		atomic_store(&p->cons[c].busy, 0);
	}
	/* What waits in its out rings goes back to the order thread, which
	 * gives nothing to a device that is down. */
	for (unsigned c = dev; c < p->nout; c += p->ndev) {
		struct cz_ring_desc x;
		while (cz_ring_mc_dequeue_burst(p->out[c], CZ_OWNER_SUPER, &x, 1)) {
			cz_trace_unit(CZ_EV_RECLAIM, x.key.seq, x.key.part, c);
			if (enqueue(p->inbox, CZ_OWNER_SUPER, &x))
				fprintf(stderr, "cuzkd: partition %u lost: the inbox is full\n", x.key.part);
		}
	}
	atomic_store(&p->devs[dev].held, 0);
	cz_ring_bell_ring(p->bell, 1);
	return n;
}

