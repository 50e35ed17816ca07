/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/order.c — the order policy: how the order thread chooses the
 * consumer for each partition, and how a consumer that holds a device
 * chooses what to start (see pipe.h for the data path, pipe.c for the
 * region it runs on; the ring-level ordering argument is at the top of
 * ring/ring.c).
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
 *     of a consumer that waits behind a computing one elsewhere (or behind
 *     its own compute, after taking a peer's lower key), or that has held
 *     it STALL_NS without starting on a device computing nothing (its
 *     thread is not being scheduled), so no device idles while another
 *     device's consumer holds waiting work; while such a hold exists the
 *     order thread looks again every STALL_NS.
 * ACROSS NODES (a multi-node plan: devs[].node set; engine/pipeline/dispatch.c chose
 * T's node for having the device that will next be free).  Rules 1-2 look
 * at T's node's devices first, and at another node's device only when it
 * is idle; rule 3 swaps only with a consumer of T's node; rule 4 takes a
 * victim on the idle device's node first, and one of another node only
 * when the compute it waits behind will take longer yet than a quarter of
 * that device's mean time, 1 ms at least (four devices in step crossed
 * 12-18 of 64 partitions in pairs, each stolen microseconds before its own
 * device would start it).  So a partition crosses nodes
 * only when a device of another node would otherwise idle, and otherwise
 * waits for its own node's device, which the dispatcher's estimate says
 * is the next free.  A T waiting so is still the minimum, so nothing
 * above it is given out meanwhile: the order argument below is unchanged.
 * (A node none of whose devices is up: T goes anywhere.)
 * And the re-check before every start, by the consumer that now holds a
 * device (take_lower): if another consumer holds a lower key it has not
 * started, on this device or on one that is not computing (its thread has
 * not been scheduled yet), this one takes it and gives its own back to the
 * heap through the inbox.  The order thread alone cannot see a consumer
 * that is merely slow to wake; on the loaded 2-core machine one such stall
 * let 5 higher keys start on the other device before the fix.  Across
 * nodes it takes only a partition held for one mean device time (1 ms at
 * least) with no release on its device meanwhile (far_fresh): two
 * consumers woken together for two nodes' partitions swapped them, both
 * crossing, for a start a few us earlier (30 of 64 crossed on the
 * simulated two-node machine, tools/bench-numa.sh).
 * Why this keeps order: only the heap's minimum is ever given out, and a
 * swap or a take-over only lowers what a consumer holds or starts; so while
 * b waits in the heap no key above b is given out, once b is the minimum
 * it is given at the next pump, and once held it is started by the first
 * device to start anything that is not lower.  What can still start above
 * b after b is ready: partitions claimed before b was given out (at most
 * one per consumer: the bound), and those started while b is still in the
 * inbox or heap because the order thread has not run.  selftests/e2e_order.c
 * counts this from the trace.
 * Whoever takes a device next (engine/pipeline/consume.c), it starts the lowest key
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
 * No enqueue here can find its ring full (pipe.c, FULL RINGS); if one
 * did, the partition goes back to the heap or fails, never waits.
 */
#include "engine/pipeline/pipe_pvt.h"
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <stdio.h>

#define CLAIM_SPINS 256               /* ~7 us of pause (27 ns each on the 2-core VM) */
#define TAKE_FAR_NS (1000 * 1000)     /* far_window's least: across nodes, wait at least this long */

/* ---- the order thread's view of the consumers ---- */

static bool holds(const struct cz_pipe *p, unsigned c)
{
	return cz_ring_nonempty(p->out[c]);
}

static bool busy(const struct cz_pipe *p, unsigned c)
{
	return atomic_load(&p->cons[c].busy);
}

/* c's ring has room: its slot is EMPTY.  Not the same as !holds(): while
 * a consumer takes c's descriptor (cz_ring_mc_dequeue_hold, until _done;
 * and until the supervisor's recovery if it died there) the slot is
 * claimed, neither full nor empty, and an enqueue would fail.  Its _done
 * (or the recovery) rings the producer bell, which this thread sleeps on. */
static bool room(const struct cz_pipe *p, unsigned c)
{
	return cz_ring_nonfull(p->out[c]);
}

static bool is_free(const struct cz_pipe *p, unsigned c)
{
	return !busy(p, c) && !holds(p, c) && room(p, c) && !atomic_load(&p->devs[c % p->ndev].down);
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

/* Device d's NUMA node, or -1 (one node: no preference anywhere). */
static int dnode(const struct cz_pipe *p, unsigned d)
{
	return (int)atomic_load_explicit(&p->devs[d].node, memory_order_relaxed) - 1;
}

/* Multi-node plans: may device d take a partition of `node` as a local
 * one?  node < 0: no preference (one node, an unplaced partition, or a
 * node none of whose devices is up). */
static bool dev_local(const struct cz_pipe *p, unsigned d, int node)
{
	return node < 0 || dnode(p, d) < 0 || dnode(p, d) == node;
}

/* The partition's node if some device of it is up, else -1 (anywhere). */
static int node_of(const struct cz_pipe *p, const struct cz_ring_desc *t)
{
	int node = CZ_PIPE_OFF_NODE(t->off[0]);
	if (node < 0)
		return -1;
	for (unsigned d = 0; d < p->ndev; d++)
		if (dnode(p, d) == node && !atomic_load(&p->devs[d].down))
			return node;
	return -1;
}

static bool ends_late(const struct cz_pipe *p, unsigned d);

/* Rule 1, then 2: the free consumer where key goes, or -1.  A device of
 * the partition's node first, the least loaded, then the one given work
 * longest ago; a device of another node only when it is idle (load 0),
 * so that it never idles while this partition waits, and otherwise the
 * partition waits for its own node's device (engine/pipeline/dispatch.c chose
 * that node for being the next free).  And an idle device of another
 * node before its own node's busy one unless that one will start it
 * within far_window (it computes alone and ends soon): a partition held
 * longer behind a compute lets the idle device start higher keys meanwhile
 * (one per consumer each window; on the skewed mix of tools/bench-numa.sh
 * up to 7 against a bound of 6, before this). */
static int pick_free(const struct cz_pipe *p, int node)
{
	int best[2] = { -1, -1 };               /* [0] its node's, [1] another's, idle */
	unsigned best_load[2] = { ~0u, ~0u }, best_dev = 0;
	uint64_t best_tick[2] = { ~0ull, ~0ull };
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing;
		unsigned load = dev_load(p, d, &computing);
		int f = -1;
		for (unsigned c = d; c < p->nout && f < 0; c += p->ndev)
			if (is_free(p, c))
				f = (int)c;
		if (f < 0)
			continue;
		int far = !dev_local(p, d, node);
		if (far && load)
			continue;
		if (best[far] < 0 || load < best_load[far] ||
		    (load == best_load[far] && p->dev_tick[d] < best_tick[far])) {
			best[far] = f;
			best_load[far] = load;
			best_tick[far] = p->dev_tick[d];
			if (!far)
				best_dev = d;
		}
	}
	if (best[0] >= 0 && best[1] >= 0 && best_load[0] &&
	    (best_load[0] > 1 || ends_late(p, best_dev)))
		return best[1];
	return best[0] >= 0 ? best[0] : best[1];
}

/* Of the consumers holding (not busy) on device d (or on every device of
 * `node` if d < 0; node < 0: every device), the one whose key is highest
 * above *key (hi) or lowest (!hi); -1. */
static int pick_held(const struct cz_pipe *p, int d, int node, const struct cz_key *key, bool hi)
{
	int best = -1;
	for (unsigned c = d < 0 ? 0 : (unsigned)d; c < p->nout; c += d < 0 ? 1 : p->ndev) {
		if (busy(p, c) || !holds(p, c) || (d < 0 && !dev_local(p, c % p->ndev, node)))
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
	/* Run-queue time since the last sample, before the assign event: a
	 * pump preempted between two assigns (1.9 ms, e2e_evidence's budget
	 * scenario at a load of 5) sampled it only at its next loop, after
	 * the second assign, and the report, which places a wait after the
	 * thread's previous event, then counted 11 us of it and called the
	 * idle device's 2 ms order latency.  ~1 us (a pread) an assign. */
	cz_trace_sched(0);
	p->held[c] = *d;
	atomic_store_explicit(&p->cons[c].hint_seq, d->key.seq, memory_order_relaxed);
	atomic_store_explicit(&p->cons[c].hint_part, d->key.part, memory_order_relaxed);
	atomic_store_explicit(&p->cons[c].hint_prio, d->key.prio, memory_order_relaxed);
	p->dev_tick[c % p->ndev] = ++p->tick;
	atomic_store_explicit(&p->cons[c].given_ns, cz_trace_now(), memory_order_relaxed);
	cz_trace_unit(CZ_EV_ASSIGN, d->key.seq, d->key.part, c);
	/* c's ring has room (is_free, or this thread just emptied it) and only
	 * this thread produces into it, so this cannot fail; if it did, the
	 * partition goes back to the heap (room: it just left it), never lost. */
	if (!cz_ring_sp_enqueue_burst(p->out[c], d, 1)) {
		fprintf(stderr, "cuzkd: consumer %u's ring had no room for partition %u of job %llu: "
			"back to the heap\n", c, d->key.part, (unsigned long long)d->key.seq);
		cz_ring_order_push(p->q, d);
	}
}

/* Takes back what consumer c holds: 1, or 0 if c claimed it first. */
static int reclaim(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d)
{
	if (!cz_ring_mc_dequeue_burst(p->out[c], CZ_OWNER_ORDER, d, 1))
		return 0;
	cz_trace_unit(CZ_EV_RECLAIM, d->key.seq, d->key.part, c);
	return 1;
}

/* Device d's mean device time per partition (its consumers' lines), 0
 * before it has proved one. */
static uint64_t dev_mean(const struct cz_pipe *p, unsigned d)
{
	uint64_t ns = 0, n = 0;
	for (unsigned c = d; c < p->nout; c += p->ndev) {
		ns += atomic_load_explicit(&p->cons[c].busy_ns, memory_order_relaxed);
		n += atomic_load_explicit(&p->cons[c].proved, memory_order_relaxed);
	}
	return n ? ns / n : 0;
}

/* How long work waiting on device d may keep another node's device from
 * taking it: TAKE_FAR_NS, or d's mean device time divided by div if
 * longer.  A partition is overtaken by at most one start per consumer
 * in a window no longer than one device time, as the bound allows, and
 * scheduling jitter of a few ms (emulation, a loaded machine) does not
 * move it.  take_lower uses one device time (div 1): a consumer that has
 * not started within it is stalled; rule 4 and pick_free a quarter
 * (div 4): a device idles at most that long for locality. */
static uint64_t far_window(const struct cz_pipe *p, unsigned d, unsigned div)
{
	uint64_t q = dev_mean(p, d) / div;
	return q > TAKE_FAR_NS ? q : TAKE_FAR_NS;
}

/* Device d's computing consumer's compute will still take more than
 * far_window, by d's mean time per partition; or it is overdue (past
 * twice that mean and the window), or no mean is known yet. */
static bool ends_late(const struct cz_pipe *p, unsigned d)
{
	uint64_t start = 0, mean = dev_mean(p, d), w = far_window(p, d, 4);
	for (unsigned c = d; c < p->nout; c += p->ndev)
		if (atomic_load(&p->cons[c].computing))
			start = atomic_load_explicit(&p->cons[c].claim_ns, memory_order_relaxed);
	if (!mean || !start)
		return true;
	uint64_t el = cz_trace_now() - start;
	return el > 2 * mean + w || mean - (el < mean ? el : mean) > w;
}

/* Rule 4's victim test: c holds a partition that waits behind a compute on
 * c's device: c is not busy, or c itself computes (it took a peer's lower
 * key, cz_pipe_claim, and its own is still in its ring: 20 ms of an idle
 * device on the loaded machine before this case was counted); or c has
 * held it STALL_NS without starting while its device computes nothing (c's
 * thread has not run: 12 ms of another idle device on the loaded machine,
 * waiting for that one thread to be scheduled). */
#define STALL_NS (300 * 1000ull)
static bool waits_behind(const struct cz_pipe *p, unsigned c, uint64_t now)
{
	bool comp;
	if (!holds(p, c) || (busy(p, c) && !atomic_load(&p->cons[c].computing)))
		return false;
	dev_load(p, c % p->ndev, &comp);
	uint64_t given = atomic_load_explicit(&p->cons[c].given_ns, memory_order_relaxed);
	return comp || (!busy(p, c) && (int64_t)(now - given) >= (int64_t)STALL_NS &&
			!atomic_load(&p->devs[c % p->ndev].down));
}

/* A consumer holds work it has not started on a device computing nothing:
 * the order thread must look again within STALL_NS (waits_behind). */
static bool any_stall_pending(const struct cz_pipe *p)
{
	for (unsigned c = 0; c < p->nout; c++) {
		bool comp;
		if (holds(p, c) && !busy(p, c) && (dev_load(p, c % p->ndev, &comp), !comp))
			return true;
	}
	return false;
}

/* May an idle device of another node take c's held partition?  Behind a
 * compute: only if that compute ends late (ends_late: else it starts there
 * within far_window, and taking it would make it cross for nothing).  A
 * stalled hold (its device computing nothing, c not scheduled): only after
 * one of its device's mean times, 1 ms at least, as take_lower waits for a
 * stalled peer; the 0.3 ms STALL_NS is for moving it within its node (under
 * emulation a consumer is routinely unscheduled that long, and crossing at
 * 0.3 ms sent 2 of 16 partitions to the far node in the VM test). */
static bool far_due(const struct cz_pipe *p, unsigned c, uint64_t now)
{
	unsigned vd = c % p->ndev;
	bool comp;
	dev_load(p, vd, &comp);
	if (comp || busy(p, c))
		return ends_late(p, vd);
	uint64_t given = atomic_load_explicit(&p->cons[c].given_ns, memory_order_relaxed);
	return (int64_t)(now - given) >= (int64_t)far_window(p, vd, 1);
}

/* Rule 4's victim for idle device d: the lowest held partition that waits
 * behind a compute elsewhere or is stalled (waits_behind), one of d's own
 * node first; one of another node only when far_due.  -1 if none. */
static int steal_victim(const struct cz_pipe *p, unsigned d, uint64_t now)
{
	int v = -1;
	bool v_far = true;
	for (unsigned c = 0; c < p->nout; c++) {
		if (c % p->ndev == d || !waits_behind(p, c, now))
			continue;
		bool far = dnode(p, c % p->ndev) != dnode(p, d);
		if (far && !far_due(p, c, now))
			continue;
		if (v < 0 || far < v_far ||
		    (far == v_far && cz_key_cmp(&p->held[c].key, &p->held[v].key) < 0)) {
			v = (int)c;
			v_far = far;
		}
	}
	return v;
}

/* Rule 4.  Returns partitions moved. */
static unsigned steal(struct cz_pipe *p)
{
	unsigned moved = 0;
	uint64_t now = cz_trace_now();
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing;
		if (dev_load(p, d, &computing))
			continue;               /* not idle */
		int v = steal_victim(p, d, now);
		/* device d is idle: its consumers are not busy and hold nothing;
		 * the first whose ring has room (see room()) */
		int f = -1;
		for (unsigned c = d; c < p->nout && f < 0; c += p->ndev)
			if (room(p, c))
				f = (int)c;
		struct cz_ring_desc x;
		if (v < 0 || f < 0 || !reclaim(p, (unsigned)v, &x))
			continue;
		give(p, (unsigned)f, &x);
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
		int node = node_of(p, top);
		int c = pick_free(p, node);
		if (c >= 0) {
			bool computing;
			unsigned d = (unsigned)c % p->ndev;
			int h = dev_load(p, d, &computing) && !computing ? pick_held(p, (int)d, -1, &top->key, true) : -1;
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
		int v = pick_held(p, -1, node, &top->key, true);
		if (v < 0)
			return moved;                   /* everyone (of its node) holds a lower key, or is busy */
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
	if (top) {
		int node = node_of(p, top);
		return pick_free(p, node) >= 0 || pick_held(p, -1, node, &top->key, true) >= 0;
	}
	for (unsigned d = 0; d < p->ndev; d++) {
		bool computing, space = false;
		for (unsigned c = d; c < p->nout; c += p->ndev)
			space |= room(p, c);
		if (space && !dev_load(p, d, &computing) && steal_victim(p, d, cz_trace_now()) >= 0)
			return true;
	}
	return false;
}

void *cz_pipe_order_main(void *v)
{
	struct cz_pipe *p = v;

	cz_thread_name("cz-order");
	cz_trace_thread("order", 0);
	cz_trace_sched(0);      /* the baseline (engine/evidence/trace.h) */
	while (!atomic_load(p->stop)) {
		cz_trace_sched(0);      /* run-queue time before this pump: order latency's share */
		if (!pump(p)) {
			/* A consumer that holds work on an idle device may be stalled:
			 * look again in STALL_NS (rule 4), else on the bell. */
			cz_ring_bell_wait_once(p->bell, pump_ready, p,
					       any_stall_pending(p) ? (int64_t)STALL_NS : WAIT_NS);
			cz_trace_sched(1);
		}
	}
	return NULL;
}

/* Each wake-up is sampled for run-queue time (engine/evidence/trace.h) and, when
 * the ring is empty again (the order thread took its partition back
 * meanwhile, or a timeout), the consumer says it sleeps again (idle): a
 * consumer woken, starved 4 ms, then robbed and woken again used to have
 * all its queueing placed at its last wake-up, and the idle device's first
 * 4 ms blamed on the daemon.  Every wake-up means every one: the wait
 * sleeps at most once (cz_ring_wait_nonempty_once).  The plain wait went
 * back to sleep inside when it woke to an empty ring, so a consumer given
 * a partition, queued 5.3 ms behind the machine's other work and robbed
 * before it ran, sampled nothing until its next partition 35 ms later:
 * those 35 ms of run-queue time were placed there, and the device's 5.3
 * ms were called the daemon's (e2e_evidence, slowsynth, at a load of 7).
 * The order thread's wait sleeps once too, for the same reason. */
int cz_pipe_wait(struct cz_pipe *p, unsigned c)
{
	bool sampled = false;
	while (!atomic_load(p->stop)) {
		if (cz_ring_nonempty(p->out[c]))
			return 0;
		if (sampled)
			cz_trace(CZ_EV_IDLE, 0, 0);
		cz_ring_wait_nonempty_once(p->out[c], WAIT_NS);
		sampled = cz_trace_sched(0);
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
/* Multi-node plans: o (on another node than c's device) is most likely
 * about to start its partition on its own node's device: it was given it
 * less than a mean device time ago (far_window, 1 ms at least), or its
 * device was released that recently (a compute just ended there; its next
 * claim is microseconds away).  Then a swap across nodes gains a start a
 * little earlier and makes both partitions cross; a consumer that has not
 * started within that window of either is stalled, and its partition is
 * taken (the other consumers start at most one each meanwhile). */
static bool far_fresh(const struct cz_pipe *p, unsigned c, unsigned o)
{
	int on = dnode(p, o % p->ndev);
	if (on < 0 || on == dnode(p, c % p->ndev))
		return false;
	uint64_t now = cz_trace_now(), w = far_window(p, o % p->ndev, 1);
	uint64_t g = atomic_load_explicit(&p->cons[o].given_ns, memory_order_relaxed);
	uint64_t r = atomic_load_explicit(&p->devs[o % p->ndev].released_ns, memory_order_relaxed);
	return now - g < w || now - r < w;
}

static void take_lower(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d)
{
	for (unsigned o = 0; o < p->nout; o++) {
		bool computing = false;
		if (o == c || busy(p, o) || !holds(p, o))
			continue;
		if (o % p->ndev != c % p->ndev && (dev_load(p, o % p->ndev, &computing), computing))
			continue;
		if (far_fresh(p, c, o))
			continue;
		struct cz_key k = hint(p, o);
		struct cz_ring_desc x;
		uint64_t h;
		if (cz_key_cmp(&k, &d->key) >= 0 ||
		    !(h = cz_ring_mc_dequeue_hold(p->out[o], CZ_OWNER_CONSUMER + c, &x)))
			continue;
		/* As in cz_pipe_claim: the slot names c until holds[1] does. */
		if (cz_pipe_test_kills)
			cz_pipe_test_kill(p, c, CZ_PIPE_KILL_LOWER, &x, o);
		atomic_store(&p->cons[c].holds[1], hold_of(&x));
		cz_ring_mc_dequeue_done(p->out[o], h);
		cz_trace_sched(0);      /* as in cz_pipe_claim: before c's hand-off events */
		cz_trace_unit(CZ_EV_RECLAIM, x.key.seq, x.key.part, o);
		if (cz_key_cmp(&x.key, &d->key) < 0) {
			/* Swap what holds[0] (c runs it) and holds[1] (it goes
			 * back) name, through holds[2], so that each of the two
			 * is always named (a death in between retries each once:
			 * cz_pipe_recover_dev does holds[0] first, and the copy in
			 * [1] or [2] then finds its attempt gone), and ours is out
			 * of holds[0] before it reaches the inbox (where another
			 * device may start it while holds[0]'s retry would make
			 * its inputs again). */
			atomic_store(&p->cons[c].holds[2], hold_of(&x));
			atomic_store(&p->cons[c].holds[1], hold_of(d));
			atomic_store(&p->cons[c].holds[0], hold_of(&x));
			atomic_store(&p->cons[c].holds[2], 0);
			struct cz_ring_desc t = *d;
			*d = x;
			x = t;
			/* the trace's hand-offs balance: x is now c's, ours goes back */
			cz_trace_unit(CZ_EV_ASSIGN, d->key.seq, d->key.part, c);
			cz_trace_unit(CZ_EV_RECLAIM, x.key.seq, x.key.part, c);
		}
		/* x is the higher: back to the heap (room: see the top).  holds[1]
		 * names it until it is there: a death before the enqueue hands
		 * it out from holds[1], one after it leaves a second copy of the
		 * same attempt, and only one copy is ever started (the claim's
		 * CAS in cz_pipe_current). */
		if (enqueue(p->inbox, CZ_OWNER_CONSUMER + c, &x)) {
			int s = cz_pipe_slot_of(p, &x, CZ_SLOT_BAD_CONSUMER);
			if (s >= 0) {
				/* cannot happen (see the top); never lose it: fail it */
				atomic_store(&p->slots[s].bad, CZ_SLOT_BAD_REQUEUE);
				if (enqueue(p->done, CZ_OWNER_CONSUMER + c, &x))
					fprintf(stderr, "cuzkd: partition %u lost: the done ring is full\n",
						x.key.part);
			}
		}
		atomic_store(&p->cons[c].holds[1], 0);
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
int cz_pipe_claim(struct cz_pipe *p, unsigned c, struct cz_ring_desc *d, bool sample)
{
	atomic_store(&p->cons[c].busy, 1);
	if (dnode(p, c % p->ndev) >= 0)         /* read by ends_late, multi-node plans only */
		atomic_store_explicit(&p->cons[c].claim_ns, cz_trace_now(), memory_order_relaxed);
	for (unsigned spin = 0; spin < CLAIM_SPINS; spin++) {
		int o = lowest_held(p, c);
		uint64_t h = o >= 0 ? cz_ring_mc_dequeue_hold(p->out[o], CZ_OWNER_CONSUMER + c, d) : 0;
		if (h) {
			/* The slot stays claimed in c's name until holds[0] says
			 * what c took: a death at any instruction between leaves it
			 * to the ring's recovery or to holds[] (cz_pipe_recover_dev
			 * takes one copy if it finds both). */
			if (cz_pipe_test_kills)
				cz_pipe_test_kill(p, c, CZ_PIPE_KILL_CLAIM, d, (unsigned)o);
			atomic_store(&p->cons[c].holds[0], hold_of(d));
			if (cz_pipe_test_kills)
				cz_pipe_test_kill(p, c, CZ_PIPE_KILL_HELD, d, (unsigned)o);
			cz_ring_mc_dequeue_done(p->out[o], h);
			/* Scheduler evidence before the hand-off events below: a
			 * consumer preempted between the device lock and here
			 * (2-6 ms on the loaded machine) had that run-queue time
			 * sampled only after its reclaim/assign, and the report
			 * places a wait after the thread's previous event, so the
			 * idle device's milliseconds were blamed on the daemon's
			 * hand-off (e2e_evidence's cpu point, process isolation,
			 * where consumers take peers' partitions more often).
			 * One read of schedstat; no event unless it waited. */
			if (sample)
				cz_trace_sched(0);
			if ((unsigned)o != c) {         /* the trace's hand-offs balance */
				cz_trace_unit(CZ_EV_RECLAIM, d->key.seq, d->key.part, (unsigned)o);
				cz_trace_unit(CZ_EV_ASSIGN, d->key.seq, d->key.part, c);
			}
			take_lower(p, c, d);
			int s = cz_pipe_slot_of(p, d, CZ_SLOT_BAD_CONSUMER);
			if (s >= 0)
				return s;
			atomic_store(&p->cons[c].holds[0], 0);
			break;          /* dropped (see cz_pipe_slot_of) */
		}
		if (o < 0)
			break;          /* nothing held on this device */
		__builtin_ia32_pause();
	}
	cz_pipe_release(p, c);
	return -1;
}

/* The same pairing: a consumer that starts computing while its own ring
 * still holds a partition (it took a peer's lower one) makes that one wait
 * behind its compute, which rule 4 may move to an idle device: tell the
 * order thread.  Otherwise a store. */
void cz_pipe_computing(struct cz_pipe *p, unsigned c, bool on)
{
	atomic_store(&p->cons[c].computing, on);
	if (on && holds(p, c))
		cz_ring_bell_ring(p->bell, 1);
}

/* Publish, then ring: pairs with the order thread's pump_ready() check
 * (the bell's F1/F2, ring/ring.c). */
void cz_pipe_release(struct cz_pipe *p, unsigned c)
{
	if (dnode(p, c % p->ndev) >= 0)         /* read by far_fresh, multi-node plans only */
		atomic_store_explicit(&p->devs[c % p->ndev].released_ns, cz_trace_now(), memory_order_relaxed);
	atomic_store(&p->cons[c].busy, 0);
	cz_ring_bell_ring(p->bell, 1);
}

void cz_pipe_dev_down(struct cz_pipe *p, unsigned dev, bool down)
{
	atomic_store(&p->devs[dev].down, down);
	cz_ring_bell_ring(p->bell, 1);
}
