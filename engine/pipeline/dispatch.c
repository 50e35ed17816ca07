/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/dispatch.c — the dispatcher and the synthesis workers.
 *
 * The dispatcher is the only thread that takes budget.  It looks at the
 * queue's head, and only when a synthesis worker is idle and the head's
 * memory fits does it reserve that memory and pop the head; otherwise it
 * sleeps until the queue, the budget or the workers change.  A new, more
 * urgent head simply becomes the one it waits for.
 *
 * Skip-ahead (the budget head-of-line stall).  Partitions of different
 * circuits need different amounts of memory.  A head of circuit A that
 * does not fit the free budget now (it will, as running partitions end)
 * used to hold back every partition behind it, including circuit B's
 * that would fit now: devices idled with work queued.  So while the head
 * waits for budget, the dispatcher may dispatch the lowest-keyed queued
 * partition of another circuit whose partition fits the free budget now.
 * What this keeps:
 * - Order within a circuit: never changed.  The head's circuit is never
 *   skipped to (its partitions all need the head's bytes, so none fits
 *   either), and of any other circuit only its lowest-keyed queued
 *   partition can be the one chosen (all of a circuit's partitions need
 *   the same bytes: if one fits, the lowest does, and is chosen first).
 * - Order between priorities: among the partitions that fit, the lowest
 *   key (priority first) goes; the only overtaking is of partitions that
 *   cannot run now anyway.  A more urgent head that arrives starts its own
 *   count.
 * - No starvation: one waiting head is overtaken at most DISPATCH_SKIP_MAX
 *   times; after that the dispatcher waits for the head strictly, so the
 *   budget drains to it (without the bound, a stream of small partitions
 *   could keep the free budget below the head's need for ever).
 * A partition that can never fit (more than the budget less the loaded
 * keys: engine/pipeline/admit.c refuses such jobs at submit, but a key loaded
 * later can shrink the room) is failed instead of waited for.
 * Cost: while a head waits, each dispatcher pass scans the queue once
 * (O(queued), at most --max-queued-partitions entries), and only when
 * a worker is idle.
 *
 * WHICH NODE (a multi-node plan, engine/place/place.c).  At the moment it
 * reserves the head's budget the dispatcher also decides where the
 * partition will live: of the nodes with an idle worker, the one whose
 * devices will next be free, and hands it to a worker there, which takes
 * its buffer from that node's arena; the order thread then gives it to a
 * device of that node (engine/pipeline/order.c, THE CHOICE).  So buffer, synthesis
 * thread and device share a node by construction, not by luck at the end.
 * "Next free" is estimated per node k as
 *     out[k] x t[k] / up[k]
 * out[k]: partitions dispatched to k and not yet back from a device (from
 * dispatch to the finalizer taking them: synthesizing, ready, held or
 * computing); t[k]: the mean device time per partition of k's devices,
 * measured (the consumers' busy_ns / proved in the pipe's region; before
 * any is measured, the mean of all devices, else 1, so the estimate is
 * out/up); up[k]: k's devices not down.  Ties go to fewer in flight, then
 * the lower node.  When the best node with an idle worker would start the
 * partition more than one synthesis time (a running mean) after a node
 * whose workers are all busy, the dispatcher waits for one of those
 * (traced as waiting for a worker): otherwise a node with more workers
 * than its devices need takes the backlog, and its partitions end up on
 * the other node's idle devices.  A node whose arena share would be
 * exceeded is taken only if every node's is (a worker then borrows another
 * node's buffer).  The wait cannot last: the busy node's estimate includes
 * its workers' partitions, and the idle node's falls as its devices drain.
 * The choice never reorders: it is made for the head, which is popped as
 * before, and only picks which idle worker runs it.  Cost: O(nodes +
 * consumers) loads per partition dispatched.
 */
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fail_locked(struct cz_engine *e, struct cz_part *p, const char *why)
{
	cz_mutex_assert_held(&e->lock);
	snprintf(p->err, sizeof(p->err), "%s", why);
	cz_part_set(p, CZ_PART_FAILED);
	cz_job_part_terminal_locked(e, p);
}

/* Mean device time per partition (ns) of node k's devices (all devices
 * if k < 0), from the consumers' lines in the pipe's region; 0 if none
 * has proved anything yet.  *up: those devices not down. */
static uint64_t node_dev_ns(const struct cz_engine *e, int k, unsigned *up)
{
	const struct cz_pipe *pp = &e->pipe;
	uint64_t ns = 0, n = 0;
	*up = 0;
	for (unsigned d = 0; d < pp->ndev; d++) {
		if (k >= 0 && cz_place_arena_index(e->place, e->place->devs[d].node) != k)
			continue;
		*up += !atomic_load(&pp->devs[d].down);
		for (unsigned c = d; c < pp->nout; c += pp->ndev) {
			ns += atomic_load_explicit(&pp->cons[c].busy_ns, memory_order_relaxed);
			n += atomic_load_explicit(&pp->cons[c].proved, memory_order_relaxed);
		}
	}
	return n ? ns / n : 0;
}

/* The dispatch node for a partition of `need` bytes: of the nodes with
 * an idle worker, the one whose devices will next be free (the top of
 * this file); -1 to wait: no worker is idle, or the best of those nodes
 * would start it more than a synthesis time after a node whose workers
 * are all busy (one of them will be idle by then). */
static int node_pick(struct cz_engine *e, uint64_t need)
{
	e->node_wait = false;
	if (e->nnode == 1)
		return e->node_idle[0] ? 0 : -1;
	unsigned up_all;
	uint64_t t_all = node_dev_ns(e, -1, &up_all);
	int best = -1;
	bool best_room = false, best_up = false;
	double best_est = 0, min_est = -1;
	unsigned best_out = 0;
	for (unsigned k = 0; k < e->nnode; k++) {
		unsigned up, out = atomic_load(&e->node_out[k]);
		uint64_t t = node_dev_ns(e, (int)k, &up);
		if (!t)
			t = t_all ? t_all : 1;
		double est = up ? (double)out * (double)t / up : 0;
		if (up && e->node_workers[k] && (min_est < 0 || est < min_est))
			min_est = est;
		if (!e->node_idle[k])
			continue;
		/* its share of the budget, as its arena was sized (numa.c) */
		bool room = e->node_bytes[k] + need <= e->place->arenas[k].bytes;
		bool better = best < 0 || (up > 0) > best_up ||
			      ((up > 0) == best_up && (room > best_room ||
			       (room == best_room && (est < best_est || (est == best_est && out < best_out)))));
		if (better) {
			best = (int)k;
			best_room = room;
			best_up = up > 0;
			best_est = est;
			best_out = out;
		}
	}
	if (best >= 0 && best_up && best_room && best_est > min_est + (double)e->synth_avg_ns) {
		e->node_wait = true;    /* a busy node's worker will do better: wait for it */
		return -1;
	}
	return best;
}

/* The dispatch nodes: one per arena of a multi-node plan, else one. */
void cz_dispatch_nodes_init(struct cz_engine *e)
{
	e->nnode = e->place && e->place->narenas > 1 ? e->place->narenas : 1;
	for (unsigned w = 0; e->nnode > 1 && w < e->nsynth && w < e->place->nworkers; w++) {
		int k = cz_place_arena_index(e->place, e->place->workers[w].node);
		if (k >= 0)
			e->node_workers[k]++;
	}
}

/* Overtakes of one waiting head, at most (see above). */
#define DISPATCH_SKIP_MAX 16

/* The dispatcher's own state (its thread only). */
struct disp {
	bool waiting;           /* the head is waiting for budget */
	struct cz_key head;     /* ... this head */
	unsigned skips;         /* times it was overtaken */
};

/* p, its `need` bytes reserved, to a worker of node k; arg 1 in the trace
 * when it goes ahead of a head waiting for budget. */
static void hand_off(struct cz_engine *e, struct cz_part *p, uint64_t need, int k, uint32_t arg)
{
	struct cz_job *j = p->job;
	p->reserved = need;
	p->dispatched = true;
	p->disp_node = (unsigned)k;
	e->node_bytes[k] += need;
	atomic_fetch_add(&e->node_out[k], 1);
	atomic_store(&p->out_node, (unsigned)k + 1);
	e->inflight++;
	j->in_heap--;
	cz_part_set(p, CZ_PART_SYNTHESIZING);
	p->t_dispatch = cz_trace_now();
	atomic_store(&p->attempts, 1);
	j->acct.buf_bytes += need;      /* per-job accounting: peak buffer bytes */
	if (j->acct.buf_bytes > j->acct.buf_peak)
		j->acct.buf_peak = j->acct.buf_bytes;
	e->handoff[k * e->nsynth + (e->handoff_head[k] + e->handoff_n[k]++) % e->nsynth] = p;
	e->node_idle[k]--;
	e->synth_idle--;
	cz_trace_arg(CZ_EV_DISPATCH, p->job->seq, p->idx, arg);
	/* One condition for every node's workers: wake them all when there is
	 * more than one node, so the one of node k is among them (a few
	 * wake-ups per partition, against a partition's milliseconds). */
	if (e->nnode > 1)
		pthread_cond_broadcast(&e->synth_cv);
	else
		pthread_cond_signal(&e->synth_cv);
}

/* While the head (of circuit hc) waits for budget: the lowest-keyed
 * queued partition of another circuit that fits `free` bytes, reserved
 * and handed off.  1 if one went. */
static int skip_ahead(struct cz_engine *e, const struct cz_circuit *hc, uint64_t free)
{
	uint32_t best = UINT32_MAX;
	const struct cz_key *bk = NULL;
	for (uint32_t i = 0; i < e->queued.n; i++) {
		struct cz_qent *q = cz_heap_at(&e->queued, i);
		struct cz_part *p = q->part;
		if (atomic_load(&p->state) != CZ_PART_QUEUED || atomic_load(&p->job->state) != CZ_JOB_ACTIVE ||
		    p->job->circ == hc || cz_witgen_need_locked(e, p) > free)
			continue;       /* cancelled ones leave when they reach the head */
		if (!bk || cz_key_cmp(&q->key, bk) < 0) {
			best = i;
			bk = &q->key;
		}
	}
	if (!bk)
		return 0;
	struct cz_qent q;
	struct cz_part *p = ((struct cz_qent *)cz_heap_at(&e->queued, best))->part;
	uint64_t need = cz_witgen_need_locked(e, p);
	int k = node_pick(e, need);
	if (k < 0 || cz_budget_try_reserve(e->budget, need))
		return 0;
	cz_heap_remove(&e->queued, best, &q);
	e->budget_skips++;
	hand_off(e, p, need, k, 1);
	return 1;
}

/* Returns 1 if a partition was dispatched or dropped, 0 to wait. */
static int dispatch_one(struct cz_engine *e, struct disp *d)
{
	struct cz_qent *top = cz_heap_peek(&e->queued);

	if (!top)
		return 0;
	struct cz_part *p = top->part;
	struct cz_job *j = p->job;
	if (atomic_load(&p->state) == CZ_PART_CANCELLED) {
		cz_heap_pop(&e->queued, NULL);      /* cancelled in place by cz_req_cancel */
		j->in_heap--;               /* the control plane compacts the job */
		return 1;
	}
	if (atomic_load(&p->job->state) != CZ_JOB_ACTIVE) {
		cz_trace(CZ_EV_DROP, p->job->seq, p->idx);
		cz_heap_pop(&e->queued, NULL);
		j->in_heap--;
		cz_part_set(p, CZ_PART_CANCELLED);
		cz_job_part_terminal_locked(e, p);
		return 1;
	}
	e->node_wait = false;
	if (!e->synth_idle || e->inflight == CZ_PIPE_INFLIGHT)
		return 0;
	uint64_t need = cz_witgen_need_locked(e, p);
	int k = node_pick(e, need);
	if (k < 0)
		return 0;       /* no worker on a node that should take it */
	int rc = cz_budget_try_reserve(e->budget, need);
	if (rc) {
		struct cz_budget_stat st;
		cz_budget_stat(e->budget, &st);
		if (rc == -E2BIG || cz_admit_never_fits_locked(e, need)) {
			/* Cannot ever fit: fail rather than wait forever. */
			char why[256];
			snprintf(why, sizeof(why), "partition needs %llu bytes, but with the loaded keys (%llu "
				 "bytes) the %llu-byte budget leaves %llu: unload a key or raise --mem-budget",
				 (unsigned long long)need, (unsigned long long)e->keys_bytes,
				 (unsigned long long)st.limit,
				 (unsigned long long)(st.limit > e->keys_bytes ? st.limit - e->keys_bytes : 0));
			cz_trace(CZ_EV_DROP, p->job->seq, p->idx);
			cz_heap_pop(&e->queued, NULL);
			j->in_heap--;
			fail_locked(e, p, why);
			return 1;
		}
		if (!d->waiting) {
			cz_trace(CZ_EV_BUDGET_WAIT, p->job->seq, p->idx);
			e->budget_waits++;
			d->waiting = true;
		}
		if (cz_key_cmp(&d->head, &top->key)) {  /* a new head: its own count */
			d->head = top->key;
			d->skips = 0;
		}
		if (d->skips < DISPATCH_SKIP_MAX && skip_ahead(e, j->circ, st.free)) {
			d->skips++;
			return 1;
		}
		return 0;
	}
	if (d->waiting) {
		cz_trace(CZ_EV_BUDGET_GOT, p->job->seq, p->idx);
		d->waiting = false;
	}
	cz_heap_pop(&e->queued, NULL);
	hand_off(e, p, need, k, 0);
	return 1;
}

/* Why dispatch_one just returned 0 (for the trace: each idle gap of a
 * device needs the dispatcher's reason at that moment). */
static int wait_reason_locked(struct cz_engine *e)
{
	cz_mutex_assert_held(&e->lock);
	if (!cz_heap_peek(&e->queued))
		return CZ_DISP_WAIT_JOB;
	if (!e->synth_idle || e->node_wait)     /* none idle, or none on the right node */
		return CZ_DISP_WAIT_WORKER;
	if (e->inflight == CZ_PIPE_INFLIGHT)
		return CZ_DISP_WAIT_INFLIGHT;
	return CZ_DISP_WAIT_BUDGET;
}

void *cz_dispatch_main(void *v)
{
	struct cz_engine *e = v;
	struct disp d = { 0 };
	int why = -1;           /* the last traced reason, -1 while dispatching */

	cz_thread_name("cz-disp");
	cz_trace_thread("dispatcher", 0);
	pthread_mutex_lock(&e->lock);
	while (!e->stopping) {
		if (dispatch_one(e, &d)) {
			why = -1;
			continue;
		}
		/* One event per change of reason, not per wake-up. */
		int w = wait_reason_locked(e);
		if (w != why) {
			struct cz_qent *q = cz_heap_peek(&e->queued);
			struct cz_part *h = q ? q->part : NULL;
			cz_trace_arg(CZ_EV_DISP_WAIT, h ? h->job->seq : 0, h ? h->idx : 0, (uint32_t)w);
			why = w;
		}
		pthread_cond_wait(&e->dispatch_cv, &e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Witness → a, b, c in one block (synth/part.h), or the backend's stand-in
 * when it reads no input.  0, or -1 with p->err set. */
struct wbuf {                   /* a worker's input buffer (engine/pipeline/witgen.c) */
	char *buf;
	size_t cap;
	void *w;                /* the null backend's: a witness scratch for input partitions */
	size_t wcap;
};

/* The null backend has no partition buffer, but an input partition's
 * witness is still computed (the real CPU work of synthesis: its errors
 * fail the partition, and its time is what the devices wait for), into
 * the worker's scratch (grown only for a circuit larger than any before),
 * then dropped. */
static int null_witgen(struct cz_engine *e, struct cz_part *p, unsigned worker, struct wbuf *ib)
{
	size_t need = (size_t)p->job->circ->key.nvars * sizeof(cz_scalar);
	if (ib->wcap < need) {
		free(ib->w);
		ib->wcap = 0;
		if (!(ib->w = malloc(need))) {
			snprintf(p->err, sizeof(p->err), "partition %u input: out of memory for its %zu-byte "
				 "witness", p->idx, need);
			return -1;
		}
		ib->wcap = need;
	}
	if (p->wfd < 0 && (p->wfd = cz_spool_open(e->spoolfd, p->job->seq, p->idx)) < 0) {
		snprintf(p->err, sizeof(p->err), "partition %u input: cannot open spool/%llu.%u.wtns: %s",
			 p->idx, (unsigned long long)p->job->seq, p->idx, strerror(-p->wfd));
		p->wfd = -1;
		return -1;
	}
	int rc = cz_witgen_run(e, p, worker - 1, ib->w, &ib->buf, &ib->cap);
	explicit_bzero(ib->w, need);
	return rc;
}

static int synthesize(struct cz_engine *e, struct cz_part *p, int arena, unsigned worker,
		      struct wbuf *ib)
{
	const struct cz_circuit *c = p->job->circ;
	const struct cz_curve_ops *cv = cz_curve_ops(c->curve);
	char err[256];

	p->work = (struct cz_dev_work){ 0 };
	if (e->be->input == CZ_BACKEND_IN_NONE) {
		int rc = p->input ? null_witgen(e, p, worker, ib) : 0;
		e->be->stand_in(&e->bopts);
		if (p->wfd >= 0)
			close(p->wfd);
		p->wfd = -1;
		cv->work(&p->work, &c->key, c->dom, NULL);
		return rc;
	}
	/* A partition buffer of 16 MiB or more comes off the cache's stack of
	 * free buffers (alloc/slab.c, BUFFER CACHES): one lock, tens of ns
	 * warm, ~1-2 us on a line a fill has evicted; a smaller one (a tiny
	 * test circuit) is the cache lock and a slab's free-index pop (no
	 * magazines: engine/control/keys.c).  Never a heap call once the slab exists. */
	if (!cz_numa_buffer_get(e, p, arena)) {      /* the worker's node first */
		snprintf(p->err, sizeof(p->err), "partition %u: the buffer region is full", p->idx);
		return -1;
	}
	/* Carved into the work once: w, a, b, c and h (synth/part.h). */
	cv->work(&p->work, &c->key, c->dom, p->mem);
	/* The spooled copy (engine/durable/spool.c), opened only now: a queued
	 * partition holds no descriptor. */
	if (p->wfd < 0 && (p->wfd = cz_spool_open(e->spoolfd, p->job->seq, p->idx)) < 0) {
		snprintf(p->err, sizeof(p->err), "partition %u %s: cannot open spool/%llu.%u.wtns: %s",
			 p->idx, p->input ? "input" : "witness", (unsigned long long)p->job->seq, p->idx,
			 strerror(-p->wfd));
		p->wfd = -1;
		return -1;
	}
	/* An input's witness is generated into the same place (witgen.c). */
	cz_scalar *w = (cz_scalar *)p->work.w;
	int rc = p->input ? cz_witgen_run(e, p, worker - 1, w, &ib->buf, &ib->cap)
		 : cv->wtns_read_fd(p->wfd, c->key.nvars, w, err, sizeof(err));
	close(p->wfd);
	p->wfd = -1;
	if (rc) {
		if (!p->input)
			snprintf(p->err, sizeof(p->err), "partition %u witness: %s", p->idx, err);
		return -1;
	}
	cv->synth_abc(&p->work);
	return 0;
}

/* After a device process died with p: the witness is intact (no device
 * stage writes it), a, b, c are synthesized again; h is scratch. */
int cz_dispatch_redo(void *v, struct cz_part *p)
{
	(void)v;
	if (!p->mem)
		return 0;       /* no input (null): nothing to redo */
	cz_curve_ops(p->work.curve)->synth_abc(&p->work);
	return 0;
}

void *cz_dispatch_synth_main(void *v)
{
	struct cz_engine *e = v;

	unsigned worker = atomic_fetch_add(&e->synth_ids, 1) + 1;   /* ring owner ids start at 1 */

	cz_thread_name("cz-synth%u", worker - 1);
	cz_thread_batch(0);     /* lib/thread.h: throughput work, no wake-up preemption */
	cz_trace_thread("synth", worker - 1);
	cz_numa_bind_worker(e, worker - 1);     /* on its node (engine/place/numa.c) */
	int node = e->place && worker - 1 < e->place->nworkers ? e->place->workers[worker - 1].node : -1;
	int arena = e->place && node >= 0 ? cz_place_arena_index(e->place, node) : 0;
	unsigned k = e->nnode > 1 && arena >= 0 ? (unsigned)arena : 0;    /* its dispatch node */
	struct wbuf ib = { 0 };
	pthread_mutex_lock(&e->lock);
	e->node_idle[k]++;
	e->synth_idle++;
	pthread_cond_signal(&e->dispatch_cv);
	for (;;) {
		while (!e->stopping && !e->handoff_n[k])
			pthread_cond_wait(&e->synth_cv, &e->lock);
		if (e->stopping)
			break;
		struct cz_part *p = e->handoff[k * e->nsynth + e->handoff_head[k]];
		e->handoff_head[k] = (e->handoff_head[k] + 1) % e->nsynth;
		e->handoff_n[k]--;
		pthread_mutex_unlock(&e->lock);

		int rc = 0, qrc = 0;
		if (atomic_load(&p->job->state) != CZ_JOB_ACTIVE) {
			cz_trace_arg(CZ_EV_SKIP, p->job->seq, p->idx, CZ_SKIP_SYNTH);
			qrc = cz_pipe_skip(&e->pipe, worker, p);   /* the finalizer marks it cancelled */
		} else {
			uint64_t t0 = cz_trace_now(), cpu0 = cz_thread_cpu_ns();
			cz_trace(CZ_EV_SYNTH_START, p->job->seq, p->idx);
			p->node = node;
			rc = synthesize(e, p, arena, worker, &ib);
			cz_trace(CZ_EV_SYNTH_END, p->job->seq, p->idx);
			p->synth_ns = cz_trace_now() - t0;
			p->synth_cpu_ns = cz_thread_cpu_ns() - cpu0;
			if (!rc) {
				cz_part_set(p, CZ_PART_READY);
				cz_trace(CZ_EV_ENQUEUE, p->job->seq, p->idx);
				qrc = cz_pipe_ready(&e->pipe, worker, p, p->job->circ->key_id, p->mem,
						    cz_numa_buffer_off(e, p));
			}
		}
		if (qrc) {      /* not queued: still ours to fail */
			snprintf(p->err, sizeof(p->err), "partition %u: synthesis worker %u cannot queue "
				 "it: %s", p->idx, worker, strerror(-qrc));
			rc = -1;
		}
		if (rc)
			cz_part_wipe(p);

		pthread_mutex_lock(&e->lock);
		if (rc) {
			cz_part_set(p, CZ_PART_FAILED);
			cz_job_part_terminal_locked(e, p);
		} else if (p->synth_ns) {     /* node_pick's slack: a running mean over ~8 */
			e->synth_avg_ns = e->synth_avg_ns ? (e->synth_avg_ns * 7 + p->synth_ns) / 8 : p->synth_ns;
		}
		e->node_idle[k]++;
		e->synth_idle++;
		pthread_cond_signal(&e->dispatch_cv);
	}
	pthread_mutex_unlock(&e->lock);
	free(ib.buf);
	free(ib.w);
	return NULL;
}
