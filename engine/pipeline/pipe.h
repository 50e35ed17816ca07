/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/pipe.h — the data path between the engine's threads, on ring/ in
 * one shared region (alloc/region.h):
 *
 *   synthesis workers ─mp─► inbox ─► order (min-heap by key) ─► out[c] (depth 1) ─► consumer c
 *   consumers ─mp─► done ─mc─► finalizers (--finalizers, each takes one at a time)
 *
 * out[c] has two mc consumers: consumer c, which takes its partition only
 * once it holds the device, and the order thread, which may take it back
 * before that (see the top of order.c for when and why).
 *
 * Nothing a consumer touches is a pointer: a descriptor names its
 * partition's slot in the region's partition table (off[1]) and its buffer
 * by the offset in the slab arena (off[0]); the slot names the resident key
 * by its id (cz_pipe_key_set).  The consumer's results (the five MSMs, a
 * failure code) go back in the slot, and only the finalizer, in cuzkd,
 * turns a slot back into its struct cz_part.  So a consumer in another
 * process that maps the region needs only offsets and ids.
 * off[0]'s top byte is the arena (one per NUMA node, engine/place/numa.c), the
 * next the node the partition was synthesized on plus one (0: unplaced);
 * the order thread gives it to a device of that node (order.c, THE CHOICE).
 * (A device child maps every arena: engine/device/devproc.c.)
 */
#define CZ_PIPE_OFF_ARENA(off) ((unsigned)((off) >> 56))
#define CZ_PIPE_OFF_NODE(off)  ((int)((off) >> 48 & 0xff) - 1)
#define CZ_PIPE_OFF_BYTES(off) ((off) & ((1ull << 48) - 1))
#ifndef CZ_PIPE_H
#define CZ_PIPE_H

#include "alloc/region.h"
#include "ring/order.h"
#include "gpu/backend.h"   /* union cz_dev_msms */
#include "curves/curves.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>

#define CZ_PIPE_INFLIGHT 1024   /* partitions between dispatch and done, at most */
#define CZ_PIPE_KEYS 1024       /* resident keys, at most (ids 0..1023) */
#define CZ_PIPE_HOLDS 3         /* cz_pipe_cons.holds[] */

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
	_Atomic uint64_t given_ns;           /* when the order thread gave it (cz_trace_now) */
	_Atomic uint64_t claim_ns;           /* its last claim, ~ its compute's start (multi-node) */
	/* For status and accounting, written only by the consumer: */
	_Atomic uint32_t proving;            /* = computing, kept apart for readers */
	_Atomic uint32_t cur_part;
	_Atomic uint64_t cur_job;
	_Atomic uint64_t busy_ns, proved;
	/* Slots (+1; 0: none) this consumer took out of the rings and has not
	 * handed on yet, so that if its process dies the supervisor knows
	 * what it held (cz_pipe_recover_dev): [0] what it runs, [1] one it is
	 * giving back (take_lower), [2] the same during a swap of [0] and [1].
	 * Written while the ring slot it came from is still claimed in this
	 * consumer's name (cz_ring_mc_dequeue_hold), so no descriptor is ever
	 * in neither. */
	_Atomic uint64_t holds[CZ_PIPE_HOLDS];  /* attempt << 32 | slot + 1 */
	/* The device stage's start (cz_trace_now) while one runs, else 0, and
	 * its key id: what the watchdog (engine/device/watchdog.c) times. */
	_Atomic uint64_t stage_ns;
	_Atomic uint32_t stage_key;
};

/* One device's line: who runs it (engine/pipeline/consume.c).  `held` is 1 while a
 * consumer holds the device; waiters sleep on the bell. */
struct cz_pipe_dev {
	_Alignas(64) _Atomic uint32_t held;
	_Atomic uint32_t down;          /* its process is gone: give it nothing */
	/* Its NUMA node + 1 on a multi-node plan, 0 otherwise (set by the
	 * engine before any partition: cz_pipe_dev_node).  In the region, so
	 * a consumer in a device child sees it too. */
	_Atomic int32_t node;
	_Atomic uint64_t released_ns;   /* the last release by one of its consumers (cz_trace_now) */
	_Atomic uint32_t test_claims, test_lowers;     /* CZ_TEST_DEVKILL's counts */
	struct cz_ring_bell bell;
	/* Its warm-up proof (engine/pipeline/warmup.c), by its first consumer:
	 * CZ_WARM_*, stored (release) after warm_why is written. */
	_Atomic uint32_t warm;
	char warm_why[160];
	/* The watchdog's (engine/device/watchdog.c): 1 from a stage found over
	 * its bound until its process is ready again (thread isolation: until
	 * the stage ends); hangs found; the bound and the stage's age then. */
	_Atomic uint32_t hung;
	_Atomic uint64_t hangs, hung_bound_ms, hung_age_ms;
};
enum { CZ_WARM_PENDING, CZ_WARM_OK, CZ_WARM_FAILED };

/* Why a slot came back failed (cz_pipe_slot.bad). */
enum { CZ_SLOT_OK, CZ_SLOT_BAD_CONSUMER, CZ_SLOT_BAD_DONE, CZ_SLOT_BAD_REQUEUE, CZ_SLOT_POISON };

/* One in-flight partition, from cz_pipe_ready to the finalizer's
 * cz_pipe_done_take: what a consumer needs and what it gives back.
 * Written by the synthesis worker before the enqueue that publishes the
 * descriptor (the ring's W1 pairs with the consumer's dequeue); out and rc
 * by the consumer before cz_pipe_done (the same pairing on the done ring). */
struct cz_pipe_slot {
	struct cz_key key;              /* the descriptor's, checked against it */
	uint32_t key_id;                /* the resident key (cz_pipe_key_set) */
	uint32_t has_buf;               /* the descriptor's off[0] names a buffer */
	_Atomic uint64_t skip_seq;      /* = key.seq once its job ended: pass on it */
	_Atomic uint32_t bad;           /* CZ_SLOT_BAD_*: its descriptor failed its checksum */
	int32_t rc;                     /* the device stage's: 0 or its error */
	uint32_t dev, cons;             /* the device and consumer that ran it */
	uint32_t proved;                /* 1 once the device stage ran */
	uint64_t device_ns;             /* how long it ran (per-job accounting, engine/evidence/metrics.c) */
	uint64_t device_cpu_ns;         /* the consumer thread's CPU time in it */
	/* Each hand-out has its attempt number (the descriptor's off[2]):
	 * after a device process died with the slot, the slot is handed out
	 * again with the next one, and a copy of the old one that still
	 * turns up (the dead process had published it) is dropped. */
	_Atomic uint32_t attempt;
	_Atomic uint32_t started;       /* the last attempt a consumer started (cz_pipe_current) */
	uint32_t deaths;                /* device processes that died holding it */
	uint64_t buf_off;               /* the descriptor's off[0], to hand it out again */
	char why[96];                   /* CZ_SLOT_POISON: how the devices died */
	union cz_dev_msms out;          /* of the key's curve */
};

/* The in-process view of a resident key: what the consumers of this
 * process compute with (cuzkd's own copy, or a child's mapping of it). */
#define CZ_PIPE_STAGE_SAMPLES 64
struct cz_pipe_stage_hist {
	_Atomic uint32_t n;                             /* samples ever */
	_Atomic uint32_t us[CZ_PIPE_STAGE_SAMPLES];     /* the last ones, us (ring) */
};

struct cz_pipe_key {
	enum cz_curve curve;            /* its ops make a partition's work */
	const union cz_curve_key *key;  /* NULL: no key */
	const void *dom;                /* the key's NTT domain */
};

struct cz_pipe {
	struct cz_region reg;
	struct cz_ring_bell *bell;      /* inbox consumer side + every out's producer side,
					 * + consumers going free: the order thread sleeps here */
	struct cz_ring *inbox, *done, **out;
	struct cz_ring_order *q;
	struct cz_pipe_cons *cons;      /* nout lines, in the region */
	struct cz_pipe_dev *devs;       /* ndev lines, in the region */
	struct cz_pipe_slot *slots;     /* CZ_PIPE_INFLIGHT, in the region */
	struct cz_ring *free_slots;     /* of uint64_t slot indexes, in the region */
	unsigned nout, ndev;            /* consumer c drives device c % ndev */
	/* This process's own: */
	struct cz_pipe_key keys[CZ_PIPE_KEYS];
	/* The device stage's last durations per key id (the finalizer's, from
	 * each slot), for the watchdog's bound; NULL: none kept.  Set before
	 * any pipeline thread starts (engine/device/watchdog.c owns it). */
	struct cz_pipe_stage_hist *stage_hist;
	struct cz_part **slot_part;     /* cuzkd: the partition in each slot */
	/* The order thread's own: */
	struct cz_ring_desc *held;      /* held[c]: what it last gave out[c] (valid while nonempty) */
	uint64_t *dev_tick, tick;       /* when each device was last given work */
	pthread_t order;
	_Atomic int *stop;              /* in the region: order thread and consumers stop */
	_Atomic int fin_stop;           /* the finalizer stops once done is empty */
	/* A descriptor that fails its checksum: the in-flight partition of
	 * that (job sequence, index), or NULL (set by the engine). */
	struct cz_part *(*lookup)(void *ctx, uint64_t job_seq, uint32_t part);
	void *lookup_ctx;
	/* Before a partition is handed out again after its device process
	 * died: make its inputs whole again (a device stage overwrites a, b,
	 * c in place; engine/device/devproc.c).  0, or it fails instead. */
	int (*redo)(void *ctx, struct cz_part *part);
};

/* Tests only: the next n descriptors are written with a wrong checksum. */
extern _Atomic unsigned cz_pipe_test_corrupt;
/* Tests only, in a device child: SIGKILL (or SIGSTOP) at a point of the claim
 * (CZ_TEST_DEVKILL, cz_pipe_test_kill_parse in testhook.c); 0 = off, one load
 * per claim. */
enum { CZ_PIPE_KILL_CLAIM = 1, CZ_PIPE_KILL_HELD, CZ_PIPE_KILL_LOWER };
extern _Atomic unsigned cz_pipe_test_kills;
int cz_pipe_test_kill_parse(const char *spec, unsigned dev);

int cz_pipe_create(struct cz_pipe *p, unsigned nout, unsigned ndev, char *err, size_t cap);
/* A device child: the pipe over a mapping of cuzkd's region (p owns r's
 * mapping afterwards); no order thread.  0 or -EINVAL/-EPROTO. */
int cz_pipe_attach(struct cz_pipe *p, struct cz_region *r, unsigned nout, unsigned ndev);
void cz_pipe_destroy(struct cz_pipe *p);    /* after cz_pipe_stop and joining users */
void cz_pipe_stop(struct cz_pipe *p);       /* wakes everyone; takers get NULL */
void cz_pipe_finish(struct cz_pipe *p);     /* after consumers are joined */

/* Synthesis worker `owner` (1..CZ_RING_OWNER_MAX): the partition is ready
 * for a device.  0, or an error and the partition was not queued: -EINVAL
 * for an owner id out of range, -ENOSPC for a full ring (the engine's caps
 * and CZ_PIPE_INFLIGHT rule both out; an error, never a wait for ever). */
int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint32_t key_id,
		  const void *buf, uint64_t buf_off);
/* The same for a partition that skips the devices (its job ended before
 * synthesis): straight to the finalizer. */
int cz_pipe_skip(struct cz_pipe *p, unsigned owner, struct cz_part *part);
/* The job ended: consumers pass on its partitions (control plane; a scan
 * of the table, so only when a job is cancelled or fails). */
void cz_pipe_job_ended(struct cz_pipe *p, uint64_t job_seq);
/* Device dev is on NUMA node `node` (a multi-node plan; engine/place/numa.c):
 * a store into the layout, with the layout. */
static inline void cz_pipe_dev_node(struct cz_pipe *p, unsigned dev, int node)
{
	atomic_store(&p->devs[dev].node, node >= 0 ? node + 1 : 0);
}
/* Resident keys by id: set at load before any partition names it, cleared
 * at unload once none does. */
void cz_pipe_key_set(struct cz_pipe *p, uint32_t id, const struct cz_pipe_key *k);
/* The consumer proving the partition in part's slot, or -1. */
int cz_pipe_part_consumer(const struct cz_pipe *p, const struct cz_part *part);

/*
 * Consumer c, in this order:
 *   cz_pipe_wait     until the order thread has given it a partition (0), or
 *                    the pipe stopped (-1); skipped while cz_pipe_dev_work
 *                    says a consumer of c's device (c included) holds one;
 *   (take the device: engine/pipeline/consume.c)
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
/* Consumer c's device stage starts (on) or ends: published for the order
 * thread, which is told when c's ring still holds a partition then. */
void cz_pipe_computing(struct cz_pipe *p, unsigned c, bool on);
/* The slot index (descriptor in *d), or -1.  sample: read the scheduler
 * evidence before the hand-off's events (engine/pipeline/consume.c says when not). */
int cz_pipe_claim(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d, bool sample);
void cz_pipe_release(struct cz_pipe *p, unsigned c);
/* The descriptor claim returned is this slot's current hand-out (not a
 * stale copy: see cz_pipe_slot.attempt) and no other copy of it was
 * started: then it is marked started, and true. */
bool cz_pipe_current(struct cz_pipe *p, const struct cz_ring_desc *d);
/* Consumer c has handed its partition on (or dropped a stale one). */
void cz_pipe_unhold(struct cz_pipe *p, unsigned c);
/* cuzkd, after device dev's process died (or before it restarts): its
 * consumers' ring claims undone (ring/recover.c), what they held handed
 * out again at its own key (or failed, once it was on a device that died
 * `poison` times: why says how), what waits in their out rings back to
 * the order thread, their lines and the device's lock cleared.  Returns
 * partitions handed out again. */
unsigned cz_pipe_recover_dev(struct cz_pipe *p, unsigned dev, unsigned poison, const char *why);
/* Device dev takes work (0) or not (1: down, disabled, failed). */
void cz_pipe_dev_down(struct cz_pipe *p, unsigned dev, bool down);
/* Consumer `owner`: the device work is done (or skipped).  0, or as
 * cz_pipe_ready. */
int cz_pipe_done(struct cz_pipe *p, unsigned owner, const struct cz_ring_desc *d);
/* Finalizer: the next finished partition; NULL after cz_pipe_finish once
 * drained.  A checksum failure as for cz_pipe_claim. */
struct cz_part *cz_pipe_done_take(struct cz_pipe *p, unsigned owner);

#endif
