/* SPDX-License-Identifier: MIT */
/*
 * engine/pipe.c — the engine's rings, and how the order thread chooses the
 * consumer for each partition (see pipe.h; the ring-level ordering argument
 * is at the top of ring/ring.c).
 *
 * THE RULE.  When a device starts a partition, no ready partition with a
 * lower key waits anywhere except in the hands of another consumer, and a
 * consumer holds at most one partition it has not started.  So a partition
 * that becomes ready is overtaken by at most one start per consumer (those
 * already held, and a swap takes most of them back), and usually by none.
 *
 * WHO HOLDS WHAT.  Consumer c is *free* when its ring is empty and it is not
 * busy (busy: from claiming a partition to compute end); *holding* when its
 * ring has a partition it has not claimed yet (it waits for the device).
 * The order thread gives partitions only to free consumers, so a consumer
 * holds at most one: its ring refills when it finishes computing, not when
 * it takes.  (It used to refill on take, so each consumer had one partition
 * in hand and one in its ring: two per consumer ahead of a late critical
 * job, and a consumer computing with an empty ring looked free.)  A device
 * is *idle* when all of its consumers are free.
 *
 * THE CHOICE, for the heap's lowest key T, repeated while it moves work:
 *  1. a free consumer on an idle device, the device given work longest ago
 *     first, so that when synthesis is the bottleneck the devices take turns
 *     (before, ties went to ring 0 and device 0 took everything);
 *  2. else a free consumer on the least-loaded device (fewest consumers
 *     holding or busy), where T is next.  If a consumer there holds a higher
 *     key and nobody there computes (it is about to start it), T takes its
 *     place and the higher key goes back to the heap;
 *  3. else (every consumer holds or is busy) a swap: the consumer holding
 *     the highest key above T gives it back and gets T.  "Gives back" is the
 *     order thread dequeuing from that consumer's ring (mc) while the
 *     consumer may be claiming it (mc too): the slot's CAS picks one, and
 *     a consumer that loses releases the device and waits again;
 *  4. with the heap empty, an idle device takes the lowest held partition
 *     of a consumer that waits behind a computing one elsewhere, so no
 *     device idles while another device's consumer holds waiting work.
 * And the re-check before every start, by the consumer that now holds a
 * device (take_lower): if another consumer holds a lower key it has not
 * started, on this device or on one that is not computing (its thread has
 * not been scheduled yet), this one takes it and gives its own back to the
 * heap through the inbox.  The order thread alone cannot see a consumer
 * that is merely slow to wake; on the loaded 2-core machine one such stall
 * let 5 higher keys start on the other device before the fix.
 * Why this keeps order: only the heap's minimum is ever given out, and a
 * swap or a take-over only lowers what a consumer holds or starts; so while
 * b waits in the heap no key above b is given out, once b is the minimum
 * it is given at the next pump, and once held it is started by the first
 * device to start anything that is not lower.  What can still start above
 * b after b is ready: partitions claimed before b was given out (at most
 * one per consumer: the bound), and those started while b is still in the
 * inbox or heap because the order thread has not run.  selftests/e2e_order.c
 * counts this from the trace.
 * Whoever takes a device next (engine/consume.c), it starts the lowest key
 * held on that device, its own or a peer's (cz_pipe_claim): the device
 * lock decides who runs the device, never what runs, so a consumer that
 * re-takes the device before its woken peer runs the peer's older
 * partition, not a newer one of its own.
 *
 * Cost: a pump step reads each consumer's line and ring state, O(consumers)
 * per partition given (a few ns each); a swap or a steal adds one CAS on a
 * ring slot and a heap push.  The order thread sleeps on one bell (inbox,
 * out rings, consumers going free) and wakes only when a pump would move
 * something.
 *
 * The inbox, heap and done ring each hold CZ_PIPE_INFLIGHT descriptors,
 * and the dispatcher never has more partitions in flight, so no enqueue
 * here can find its ring full; if one did, or an owner id were out of range,
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
#define CLAIM_SPINS 256               /* ~7 us of pause (27 ns each on the 2-core VM) */

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
	struct cz_part *part = p->lookup ? p->lookup(p->lookup_ctx, d->key.seq, d->key.part) : NULL;
	if (part != ptr) {
		fprintf(stderr, "cuzkd: a descriptor on the %s ring failed its checksum and its fields "
			"disagree (job %llu, partition %u): dropped\n", ring,
			(unsigned long long)d->key.seq, d->key.part);
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

/* ---- the order thread's view of the consumers ---- */

static bool holds(const struct cz_pipe *p, unsigned c)
{
	return cz_ring_nonempty(p->out[c]);
}

static bool busy(const struct cz_pipe *p, unsigned c)
{
	return atomic_load(&p->cons[c].busy);
}

static bool is_free(const struct cz_pipe *p, unsigned c)
{
	return !busy(p, c) && !holds(p, c);
}

/* Consumers holding or busy on device d; *computing: the device runs a
 * partition now.  (Busy but not computing is a consumer between claim and
 * start or between two computes, which a loaded machine can stretch to
 * tens of ms: work held there must not be treated as "next on a busy
 * device".) */
static unsigned dev_load(const struct cz_pipe *p, unsigned d, bool *computing)
{
	unsigned n = 0;
	*computing = false;
	for (unsigned c = d; c < p->nout; c += p->ndev) {
		bool b = busy(p, c);
		*computing |= b && atomic_load(&p->cons[c].computing);
		n += b || holds(p, c);
	}
	return n;
}

/* Rule 1, then 2: the free consumer where key goes, or -1. */
static int pick_free(const struct cz_pipe *p)
{
	int best = -1;
	unsigned best_load = ~0u;
	uint64_t best_tick = ~0ull;
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing;
		unsigned load = dev_load(p, d, &computing);
		int f = -1;
		for (unsigned c = d; c < p->nout && f < 0; c += p->ndev)
			if (is_free(p, c))
				f = (int)c;
		if (f < 0)
			continue;
		if (load < best_load || (load == best_load && p->dev_tick[d] < best_tick)) {
			best = f;
			best_load = load;
			best_tick = p->dev_tick[d];
		}
	}
	return best;
}

/* Of the consumers holding (not busy) on device d (or on every device if
 * d < 0), the one whose key is highest above *key (hi) or lowest (!hi); -1. */
static int pick_held(const struct cz_pipe *p, int d, const struct cz_key *key, bool hi)
{
	int best = -1;
	for (unsigned c = d < 0 ? 0 : (unsigned)d; c < p->nout; c += d < 0 ? 1 : p->ndev) {
		if (busy(p, c) || !holds(p, c))
			continue;
		const struct cz_key *k = &p->held[c].key;
		if (key && cz_key_cmp(k, key) <= 0)
			continue;
		if (best < 0 || (cz_key_cmp(k, &p->held[best].key) > 0) == hi)
			best = (int)c;
	}
	return best;
}

static void give(struct cz_pipe *p, unsigned c, const struct cz_ring_desc *d)
{
	p->held[c] = *d;
	atomic_store_explicit(&p->cons[c].hint_seq, d->key.seq, memory_order_relaxed);
	atomic_store_explicit(&p->cons[c].hint_part, d->key.part, memory_order_relaxed);
	atomic_store_explicit(&p->cons[c].hint_prio, d->key.prio, memory_order_relaxed);
	p->dev_tick[c % p->ndev] = ++p->tick;
	cz_trace_unit(CZ_EV_ASSIGN, d->key.seq, d->key.part, c);
	/* c is free (its ring empty) and only this thread produces into it. */
	cz_ring_sp_enqueue_burst(p->out[c], d, 1);
}

/* Takes back what consumer c holds: 1, or 0 if c claimed it first. */
static int reclaim(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d)
{
	if (!cz_ring_mc_dequeue_burst(p->out[c], CZ_OWNER_ORDER, d, 1))
		return 0;
	cz_trace_unit(CZ_EV_RECLAIM, d->key.seq, d->key.part, c);
	return 1;
}

/* Rule 4.  Returns partitions moved. */
static unsigned steal(struct cz_pipe *p)
{
	unsigned moved = 0;
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing;
		if (dev_load(p, d, &computing))
			continue;               /* not idle */
		/* the lowest held partition on a device that is computing */
		int v = -1;
		for (unsigned c = 0; c < p->nout; c++) {
			bool comp;
			if (busy(p, c) || !holds(p, c) || (dev_load(p, c % p->ndev, &comp), !comp))
				continue;
			if (v < 0 || cz_key_cmp(&p->held[c].key, &p->held[v].key) < 0)
				v = (int)c;
		}
		struct cz_ring_desc x;
		if (v < 0 || !reclaim(p, (unsigned)v, &x))
			continue;
		give(p, d, &x);                 /* consumer d drives device d, which is idle: d is free */
		moved++;
	}
	return moved;
}

/* One pump: drain the inbox, then apply rules 1-4 until nothing moves. */
static unsigned pump(struct cz_pipe *p)
{
	unsigned moved = 0, races = 0;
	struct cz_ring_desc t, x;

	for (;;) {
		cz_ring_order_drain(p->q, p->inbox);  /* before every choice: a late urgent one goes first */
		const struct cz_ring_desc *top = cz_ring_order_peek(p->q);
		if (!top)
			return moved + steal(p);
		int c = pick_free(p);
		if (c >= 0) {
			bool computing;
			unsigned d = (unsigned)c % p->ndev;
			int h = dev_load(p, d, &computing) && !computing ? pick_held(p, (int)d, &top->key, true) : -1;
			cz_ring_order_pop(p->q, &t);
			if (h >= 0 && reclaim(p, (unsigned)h, &x)) {
				give(p, (unsigned)h, &t);       /* rule 2's swap: t starts first */
				cz_ring_order_push(p->q, &x);
			} else {
				give(p, (unsigned)c, &t);
			}
			moved++;
			continue;
		}
		int v = pick_held(p, -1, &top->key, true);
		if (v < 0)
			return moved;                   /* everyone holds a lower key, or is busy */
		if (!reclaim(p, (unsigned)v, &x)) {
			if (++races > p->nout)          /* consumers keep claiming first: next pump */
				return moved;
			continue;
		}
		cz_ring_order_pop(p->q, &t);
		give(p, (unsigned)v, &t);               /* rule 3 */
		cz_ring_order_push(p->q, &x);           /* room: t just left */
		moved++;
	}
}

/* Would a pump move anything?  The same tests as pump(), without moving. */
static bool pump_ready(void *v)
{
	struct cz_pipe *p = v;

	if (cz_ring_order_count(p->q) < CZ_PIPE_INFLIGHT && cz_ring_nonempty(p->inbox))
		return true;
	const struct cz_ring_desc *top = cz_ring_order_peek(p->q);
	if (top)
		return pick_free(p) >= 0 || pick_held(p, -1, &top->key, true) >= 0;
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing;
		if (dev_load(p, d, &computing))
			continue;
		for (unsigned c = 0; c < p->nout; c++) {
			bool comp;
			if (!busy(p, c) && holds(p, c) && (dev_load(p, c % p->ndev, &comp), comp))
				return true;
		}
	}
	return false;
}

static void *order_main(void *v)
{
	struct cz_pipe *p = v;

	cz_thread_name("cz-order");
	cz_trace_thread("order", 0);
	while (!atomic_load(&p->stop))
		if (!pump(p))
			cz_ring_bell_wait(p->bell, pump_ready, p, WAIT_NS);
	return NULL;
}

int cz_pipe_create(struct cz_pipe *p, unsigned nout, unsigned ndev, char *err, size_t cap)
{
	size_t rin = cz_ring_bytes(CZ_PIPE_INFLIGHT, 64), rout = cz_ring_bytes(1, 64);
	size_t rq = cz_ring_order_bytes(CZ_PIPE_INFLIGHT);
	size_t bytes = 64 + 2 * ALIGN64(rin) + nout * ALIGN64(rout) + nout * sizeof(struct cz_pipe_cons) + rq;

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
	int rc = p->out && p->held && p->dev_tick ?
		 cz_region_create(&p->reg, bytes, CZ_REGION_NODE_NONE, CZ_REGION_QUIET) : -ENOMEM;
	if (rc) {
		snprintf(err, cap, "cannot create the pipeline's shared region: %s", strerror(-rc));
		free(p->out);
		free(p->held);
		free(p->dev_tick);
		p->out = NULL;
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
	p->cons = (struct cz_pipe_cons *)m;   /* zeroed: region memory is fresh */
	m += nout * sizeof(struct cz_pipe_cons);
	cz_ring_init(m, rin, CZ_PIPE_INFLIGHT, 64);
	p->done = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	cz_ring_order_init(m, rq, CZ_PIPE_INFLIGHT);
	p->q = cz_ring_order_attach(m, rq);
	if (!p->inbox || !p->done || !p->q || pthread_create(&p->order, NULL, order_main, p)) {
		snprintf(err, cap, "cannot set up the pipeline's rings");
		cz_region_destroy(&p->reg);
		free(p->out);
		free(p->held);
		free(p->dev_tick);
		p->out = NULL;
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
	free(p->held);
	free(p->dev_tick);
	p->out = NULL;
}

_Atomic unsigned cz_pipe_test_corrupt;

static void desc(struct cz_ring_desc *d, const struct cz_part *part, uint64_t buf_off)
{
	memset(d, 0, sizeof(*d));
	d->key = part->key;
	d->off[0] = buf_off;
	d->off[1] = (uint64_t)(uintptr_t)part;
	d->csum = cz_ring_desc_csum(d);
	unsigned n = atomic_load_explicit(&cz_pipe_test_corrupt, memory_order_relaxed);
	while (n && !atomic_compare_exchange_weak(&cz_pipe_test_corrupt, &n, n - 1))
		;
	if (n)
		d->csum ^= 1;
}

/* Cost: one CAS on a slot state and, only when the order thread sleeps, a
 * futex wake (~2 µs); otherwise no syscall. */
int cz_pipe_ready(struct cz_pipe *p, unsigned owner, struct cz_part *part, uint64_t buf_off)
{
	struct cz_ring_desc d;
	desc(&d, part, buf_off);
	return enqueue(p->inbox, owner, &d);   /* never full: see top */
}

int cz_pipe_wait(struct cz_pipe *p, unsigned c)
{
	while (!atomic_load(&p->stop)) {
		if (cz_ring_nonempty(p->out[c]))
			return 0;
		cz_ring_wait_nonempty(p->out[c], WAIT_NS);
	}
	return -1;
}

/* The key consumer o was last given.  The hint is stored before the
 * enqueue that publishes the slot (W1 in ring.c), so a reader that saw the
 * ring nonempty reads this key or a later one; the dequeue says which. */
static struct cz_key hint(const struct cz_pipe *p, unsigned o)
{
	return (struct cz_key){
		.seq = atomic_load_explicit(&p->cons[o].hint_seq, memory_order_relaxed),
		.part = atomic_load_explicit(&p->cons[o].hint_part, memory_order_relaxed),
		.prio = atomic_load_explicit(&p->cons[o].hint_prio, memory_order_relaxed),
	};
}

/*
 * The re-check before a start.  Another consumer may hold a lower key that
 * it has not started.  If it is on this device, or its own device is not
 * computing (its thread has not run yet: on a loaded machine, for tens of
 * ms), take that one (mc dequeue from its ring, racing its own claim) and
 * give ours back to the order thread through the inbox, which re-heaps it.
 * One that waits behind a compute on another device is left alone: it is
 * next there, and taking it would leave that device to wait for a new
 * partition and a wake-up (3 ms seen on the loaded machine) when its
 * compute ends; it is one of the "held by another consumer" the bound
 * allows.  Costs a load or two per consumer when there is nothing to take.
 */
static void take_lower(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d)
{
	for (unsigned o = 0; o < p->nout; o++) {
		bool computing = false;
		if (o == c || busy(p, o) || !holds(p, o))
			continue;
		if (o % p->ndev != c % p->ndev && (dev_load(p, o % p->ndev, &computing), computing))
			continue;
		struct cz_key k = hint(p, o);
		struct cz_ring_desc x;
		if (cz_key_cmp(&k, &d->key) >= 0 ||
		    !cz_ring_mc_dequeue_burst(p->out[o], CZ_OWNER_CONSUMER + c, &x, 1))
			continue;
		cz_trace_unit(CZ_EV_RECLAIM, x.key.seq, x.key.part, o);
		if (cz_key_cmp(&x.key, &d->key) < 0) {
			struct cz_ring_desc t = *d;
			*d = x;
			x = t;
			/* the trace's hand-offs balance: x is now c's, ours goes back */
			cz_trace_unit(CZ_EV_ASSIGN, d->key.seq, d->key.part, c);
			cz_trace_unit(CZ_EV_RECLAIM, x.key.seq, x.key.part, c);
		}
		/* x is the higher: back to the heap (room: see the top) */
		if (enqueue(p->inbox, CZ_OWNER_CONSUMER + c, &x)) {
			struct cz_part *part = part_of(p, &x, "consumer");
			if (!part)
				continue;
			/* cannot happen (see the top); never lose it: fail it */
			snprintf(part->err, sizeof(part->err), "partition %u: cannot requeue it", part->idx);
			cz_part_set(part, CZ_PART_FAILED);
			if (enqueue(p->done, CZ_OWNER_CONSUMER + c, &x))
				fprintf(stderr, "cuzkd: partition %u lost: the done ring is full\n", part->idx);
		}
	}
}

/* Of the consumers of c's device (c included) holding a partition they
 * have not claimed, the one holding the lowest key, or -1.  (Work held
 * behind a computing device elsewhere is the order thread's to move, rule
 * 4: only it knows whether the heap has something for this device.) */
static int lowest_held(const struct cz_pipe *p, unsigned c)
{
	int best = -1;
	struct cz_key bk = { 0 };
	for (unsigned o = c % p->ndev; o < p->nout; o += p->ndev) {
		if ((o != c && busy(p, o)) || !holds(p, o))
			continue;
		struct cz_key k = hint(p, o);
		if (best < 0 || cz_key_cmp(&k, &bk) < 0) {
			best = (int)o;
			bk = k;
		}
	}
	return best;
}

bool cz_pipe_dev_work(const struct cz_pipe *p, unsigned c)
{
	return lowest_held(p, c) >= 0;
}

/* busy goes up before the dequeue, so the order thread never sees c free
 * (empty ring, not busy) while c is taking a partition; it is seq_cst, and
 * the order thread's reads are too.  A dequeue that loses (to the order
 * thread's swap, which refills the ring within a few hundred ns, or to a
 * peer) looks again, up to CLAIM_SPINS times while anything is held. */
struct cz_part *cz_pipe_claim(struct cz_pipe *p, unsigned c)
{
	struct cz_ring_desc d;
	atomic_store(&p->cons[c].busy, 1);
	for (unsigned spin = 0; spin < CLAIM_SPINS; spin++) {
		int o = lowest_held(p, c);
		if (o >= 0 && cz_ring_mc_dequeue_burst(p->out[o], CZ_OWNER_CONSUMER + c, &d, 1)) {
			if ((unsigned)o != c) {         /* the trace's hand-offs balance */
				cz_trace_unit(CZ_EV_RECLAIM, d.key.seq, d.key.part, (unsigned)o);
				cz_trace_unit(CZ_EV_ASSIGN, d.key.seq, d.key.part, c);
			}
			take_lower(p, c, &d);
			struct cz_part *part = part_of(p, &d, "consumer");
			if (part)
				return part;
			break;          /* dropped (see part_of) */
		}
		if (o < 0)
			break;          /* nothing held on this device */
		__builtin_ia32_pause();
	}
	cz_pipe_release(p, c);
	return NULL;
}

/* Publish, then ring: pairs with the order thread's pump_ready() check
 * (the bell's F1/F2, ring/ring.c). */
void cz_pipe_release(struct cz_pipe *p, unsigned c)
{
	atomic_store(&p->cons[c].busy, 0);
	cz_ring_bell_ring(p->bell, 1);
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
