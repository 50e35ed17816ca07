/* SPDX-License-Identifier: MIT */
/*
 * engine/evidence/stat.c — live evidence: each device's busy time and its idle time
 * by cause, since start and over the last 10 s, for `status`, without
 * dumping the trace.
 *
 * Design.  A control-plane thread (cz-ctlstat) replays the trace's events
 * every 100 ms, incrementally (cz_trace_scan: lock-free against the
 * writers, no allocation), through the same counts and the same cause rule
 * as tools/cuzk-trace-report (docs/trace.md; keep the two in step).  So:
 * - consumers pay nothing beyond the trace events they already write: no
 *   counter shared with other threads, no lock; status takes only st->lock,
 *   which no pipeline thread ever takes;
 * - the live figures and the offline report name the same causes for the
 *   same events.
 * Events are read up to a horizon 5 ms in the past, so one whose writer was
 * preempted between its clock read and its publish is still read in order;
 * a later one is applied at the time already reached (no time runs back).
 * Events a writer overwrote before they were read (a stalled reader) are
 * counted in `trace_lost`; the figures then say so.
 *
 * Scheduler delay needs a look ahead: a thread's "sched" event says, when
 * it finally runs, how long it waited on a run queue before, so the time
 * it names lies in the past.  A second cursor (peek) reads LAG_NS ahead of
 * the accounting and turns each such event into a run-queue interval per
 * consumer and for the order thread, by the report's rule (placed at the
 * end of the thread's quiet time); the accounting then sees the interval
 * before it reaches it.  A wait longer than the look ahead is counted only
 * for its last LAG_NS (conservative: the rest stays the daemon's cause).
 * So the live figures run LAG_NS + HORIZON_NS behind the clock.
 */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "engine/engine_pvt.h"
#include "engine/evidence/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERIOD_NS (100 * 1000 * 1000ull)
#define HORIZON_NS (5 * 1000 * 1000ull)
#define LAG_NS (100 * 1000 * 1000ull)   /* the scheduler evidence's look ahead */
#define RQ_Q 64                         /* run-queue intervals pending per thread */
#define NBUCKET 10              /* one-second buckets: the last 10 s */

enum cause {
	C_HANDOFF, C_ORDER, C_ELSEWHERE, C_NOTHING, C_FINAL_BP, C_BUDGET, C_WORKER,
	C_INFLIGHT, C_SYNTH, C_DISPATCH, C_SCHED, C_WARMUP, C_FLEET_EMPTY, C_FLEET_CLAIM, C_UNATTRIBUTED,
	C__COUNT
};

/* The report's names, in the report's order of precedence. */
static const char *const cause_names[C__COUNT] = {
	"hand-off latency", "order latency", "ready on another device", "nothing submitted",
	"finalizer backpressure", "waiting for budget", "waiting for a synthesis worker",
	"in-flight limit", "waiting for synthesis", "dispatch latency", "scheduler delay", "device warm-up",
	"no claimable work", "claim latency", "unattributed",
};
_Static_assert(C__COUNT == CZ_STAT_NCAUSE, "engine/evidence/metrics.h counts the causes");

static const struct cz_metrics_src metrics_src = { cause_names, cz_stat_snapshot };

struct acct {
	uint64_t busy, idle[C__COUNT];
};

struct bucket {
	uint64_t sec;           /* which second since start it holds */
	struct acct a;
};

struct stat_dev {
	struct acct total;
	struct bucket b[NBUCKET];
	int busy;               /* consumers computing: the bits of comp */
	uint64_t comp;          /* which (bit c / ndev): a start counts once, an end only after one */
	bool warm;              /* proving its warm-up partition (engine/pipeline/warmup.c) */
};

enum disp { D_JOB, D_WORKER, D_BUDGET, D_INFLIGHT, D_RUNNING };

/* One thread's pending run-queue intervals [lo, hi), in time order. */
struct rq_q {
	uint64_t lo[RQ_Q], hi[RQ_Q];
	unsigned head, n;
	bool waiting;           /* consumers: last event idle or lock_wait (not on a CPU) */
};

/* What a trace buffer's thread is, for the scheduler evidence. */
enum { K_UNKNOWN, K_OTHER, K_CONSUMER, K_ORDER };

struct cz_stat {
	pthread_mutex_t lock;   /* control plane only: status and the stat thread */
	pthread_cond_t cv;
	pthread_t tid;
	bool stop, started;
	struct cz_engine *e;
	struct cz_trace_cursor cur;
	uint64_t t_start, t_now;        /* accounted up to t_now */
	int64_t queued, synth, free, backlog;
	enum disp disp;
	bool assigns;           /* the trace has assign events */
	int fleet;              /* a fleet node (engine/control/fleet_node.c): 0 none seen, 1 its last
				 * claim found no claimable work, 2 its last claim took partitions */
	int *held;              /* per consumer: assigned or taken, not started */
	struct stat_dev *dev;
	/* Scheduler evidence: the peek cursor, per trace buffer what its thread
	 * is (kind, actor) and its last event's time, per actor (consumers,
	 * then the order thread) its run-queue intervals. */
	struct cz_trace_cursor peek;
	uint8_t kind[CZ_TRACE_MAXBUF];
	uint16_t actor[CZ_TRACE_MAXBUF];
	uint64_t last_ns[CZ_TRACE_MAXBUF];
	struct rq_q *rq;        /* ncons + 1 */
};

static bool in_rq(const struct cz_stat *s, unsigned a)
{
	const struct rq_q *q = &s->rq[a];
	return q->n && q->lo[q->head] <= s->t_now && s->t_now < q->hi[q->head];
}

static enum cause cause_of(const struct cz_stat *s, unsigned d)
{
	const struct cz_engine *e = s->e;
	bool held_here = false, held_any = false;

	if (s->dev[d].warm)
		return C_WARMUP;
	if (s->queued < 0 || s->synth < 0 || s->free < 0 || s->backlog < 0)
		return C_UNATTRIBUTED;  /* contradictory counts: events were lost */
	for (unsigned c = 0; c < e->ncons; c++) {
		if (s->held[c] < 0)
			return C_UNATTRIBUTED;
		if (s->held[c] == 0)
			continue;
		held_any = true;
		if (e->cons[c].dev == d)
			held_here = true;
	}
	if (held_here) {
		/* Scheduler delay: a consumer here that would start the work
		 * (a holder, or one awake: the keeper of the device between two
		 * stages, engine/pipeline/consume.c) waits on a run queue, and no consumer
		 * of this device is on a CPU to start it instead. */
		bool holder_rq = false, running = false;
		for (unsigned c = 0; c < e->ncons; c++) {
			if (e->cons[c].dev != d)
				continue;
			bool q = in_rq(s, c);
			holder_rq |= q && (s->held[c] > 0 || !s->rq[c].waiting);
			running |= !q && !s->rq[c].waiting;
		}
		return holder_rq && !running ? C_SCHED : C_HANDOFF;
	}
	if (s->free > 0)
		return in_rq(s, e->ncons) ? C_SCHED : C_ORDER;
	if (held_any) {
		/* Scheduler delay: the order thread is queued, or every holder is
		 * and no consumer of this device is on a CPU to take one. */
		bool starved = true;
		for (unsigned c = 0; c < e->ncons && starved; c++) {
			if (s->held[c] > 0 && !in_rq(s, c))
				starved = false;
			if (e->cons[c].dev == d && !in_rq(s, c) && !s->rq[c].waiting)
				starved = false;
		}
		return in_rq(s, e->ncons) || starved ? C_SCHED : C_ELSEWHERE;
	}
	if (s->queued <= 0 && s->synth <= 0)   /* a fleet node: the database has none, or not yet here */
		return s->fleet == 1 ? C_FLEET_EMPTY : s->fleet == 2 ? C_FLEET_CLAIM : C_NOTHING;
	switch (s->disp) {
	case D_BUDGET: return s->backlog > 0 ? C_FINAL_BP : C_BUDGET;
	case D_WORKER: return C_WORKER;
	case D_INFLIGHT: return C_INFLIGHT;
	default: break;
	}
	if (s->synth > 0)
		return C_SYNTH;
	if (s->queued > 0)
		return C_DISPATCH;
	return C_UNATTRIBUTED;
}

static void add(struct acct *a, bool busy, enum cause c, uint64_t ns)
{
	if (busy)
		a->busy += ns;
	else
		a->idle[c] += ns;
}

/* The next run-queue edge after t_now (dropping intervals already past),
 * or UINT64_MAX. */
static uint64_t rq_edge(struct cz_stat *s)
{
	uint64_t next = UINT64_MAX;
	for (unsigned a = 0; a <= s->e->ncons; a++) {
		struct rq_q *q = &s->rq[a];
		while (q->n && q->hi[q->head] <= s->t_now) {
			q->head = (q->head + 1) % RQ_Q;
			q->n--;
		}
		if (!q->n)
			continue;
		uint64_t x = q->lo[q->head] > s->t_now ? q->lo[q->head] : q->hi[q->head];
		if (x < next)
			next = x;
	}
	return next;
}

/* Device d has no process (its process died and is starting again, or
 * it failed: engine/device/devproc.c): a stage it had started ended with
 * it, so it is not busy, whatever start its trace left unmatched. */
static bool no_process(const struct cz_engine *e, unsigned d)
{
	if (!e->dp)
		return false;
	int st = atomic_load_explicit(&e->dp[d].state, memory_order_relaxed);
	return st == CZ_DEVP_FAILED || st == CZ_DEVP_STARTING;
}

/* Accounts [s->t_now, t) under the current state, split at second edges
 * and run-queue edges. */
static void advance(struct cz_stat *s, uint64_t t)
{
	while (s->t_now < t) {
		uint64_t sec = (s->t_now - s->t_start) / 1000000000ull;
		uint64_t edge = s->t_start + (sec + 1) * 1000000000ull, rq = rq_edge(s);
		if (rq < edge)
			edge = rq;
		uint64_t to = t < edge ? t : edge, ns = to - s->t_now;
		for (unsigned d = 0; d < s->e->ndev; d++) {
			struct stat_dev *sd = &s->dev[d];
			if (no_process(s->e, d))
				sd->busy = 0, sd->comp = 0;
			bool busy = sd->busy > 0;
			enum cause c = busy ? C_UNATTRIBUTED : cause_of(s, d);
			struct bucket *b = &sd->b[sec % NBUCKET];
			if (b->sec != sec) {
				memset(b, 0, sizeof(*b));
				b->sec = sec;
			}
			add(&sd->total, busy, c, ns);
			add(&b->a, busy, c, ns);
			cz_metrics_span(s->e->metrics, d, busy, c, s->t_now - s->t_start, ns);
		}
		s->t_now = to;
	}
}

/* Which actor a trace buffer's thread is: consumer "consumer D.K" is
 * consumer K * ndev + D (engine/pipeline/consume.c), the order thread ncons. */
static unsigned kind_of(struct cz_stat *s, uint16_t th)
{
	if (th >= CZ_TRACE_MAXBUF)
		return K_OTHER;
	if (s->kind[th] == K_UNKNOWN) {
		const char *r = cz_trace_role(th);
		unsigned dv, k;
		s->kind[th] = K_OTHER;
		if (!strcmp(r, "order")) {
			s->kind[th] = K_ORDER;
			s->actor[th] = (uint16_t)s->e->ncons;
		} else if (sscanf(r, "consumer %u.%u", &dv, &k) == 2 && k * s->e->ndev + dv < s->e->ncons) {
			s->kind[th] = K_CONSUMER;
			s->actor[th] = (uint16_t)(k * s->e->ndev + dv);
		}
	}
	return s->kind[th];
}

/* The peek cursor's view, LAG_NS ahead: sched events become intervals. */
static void peek(void *v, const struct cz_trace_ev *ev)
{
	struct cz_stat *s = v;
	unsigned k = kind_of(s, ev->thread);
	if (k != K_CONSUMER && k != K_ORDER)
		return;
	uint64_t last = s->last_ns[ev->thread];
	s->last_ns[ev->thread] = ev->ns;
	if (ev->type != CZ_EV_SCHED || !ev->arg)
		return;
	uint64_t d = (uint64_t)ev->arg * 1000, lo = ev->ns > d ? ev->ns - d : 0;
	if (last > lo)
		lo = last;
	struct rq_q *q = &s->rq[s->actor[ev->thread]];
	if (lo >= ev->ns || q->n == RQ_Q)
		return;         /* empty, or no room: left to the daemon's cause */
	unsigned i = (q->head + q->n++) % RQ_Q;
	q->lo[i] = lo;
	q->hi[i] = ev->ns;
}

static void apply(void *v, const struct cz_trace_ev *ev)
{
	struct cz_stat *s = v;
	struct cz_engine *e = s->e;
	unsigned c = ev->unit;

	if (ev->ns > s->t_now)
		advance(s, ev->ns);
	if (kind_of(s, ev->thread) == K_CONSUMER)
		s->rq[s->actor[ev->thread]].waiting = ev->type == CZ_EV_IDLE || ev->type == CZ_EV_LOCK_WAIT;
	switch (ev->type) {
	case CZ_EV_SUBMIT: s->queued += ev->part; break;
	case CZ_EV_DISPATCH: s->queued--; s->synth++; s->disp = D_RUNNING; break;
	case CZ_EV_DROP: s->queued--; break;
	case CZ_EV_DISP_WAIT: s->disp = ev->arg <= CZ_DISP_WAIT_INFLIGHT ? (enum disp)ev->arg : D_JOB; break;
	case CZ_EV_BUDGET_WAIT: s->disp = D_BUDGET; break;
	case CZ_EV_SYNTH_END: s->synth--; break;
	case CZ_EV_ENQUEUE: s->free++; break;
	case CZ_EV_ASSIGN:
		s->assigns = true;
		s->free--;
		if (c < e->ncons)
			s->held[c]++;
		break;
	case CZ_EV_RECLAIM:
		s->free++;
		if (c < e->ncons)
			s->held[c]--;
		break;
	case CZ_EV_POP:
		/* An engine whose order thread traces assign has counted the
		 * hand-over there; else the pop is the hand-over. */
		if (s->assigns)
			break;
		s->free--;
		if (c < e->ncons)
			s->held[c]++;
		break;
	case CZ_EV_COMPUTE_START:
		if (c < e->ncons) {
			struct stat_dev *sd = &s->dev[e->cons[c].dev];
			s->held[c]--;
			if (!(sd->comp & 1ull << (c / e->ndev)))
				sd->busy++;
			sd->comp |= 1ull << (c / e->ndev);
		}
		break;
	case CZ_EV_COMPUTE_END:
		if (c < e->ncons) {
			struct stat_dev *sd = &s->dev[e->cons[c].dev];
			if (sd->comp & 1ull << (c / e->ndev))
				sd->busy--;
			sd->comp &= ~(1ull << (c / e->ndev));
		}
		s->backlog++;
		break;
	case CZ_EV_SKIP:
		if (ev->arg == CZ_SKIP_SYNTH)
			s->synth--;
		else if (c < e->ncons)
			s->held[c]--;
		s->backlog++;
		break;
	case CZ_EV_FINAL_START: s->backlog--; break;
	case CZ_EV_FLEET_EMPTY: s->fleet = 1; break;
	case CZ_EV_FLEET_CLAIM: s->fleet = 2; break;
	case CZ_EV_WARMUP:
		if (kind_of(s, ev->thread) == K_CONSUMER)
			s->dev[e->cons[s->actor[ev->thread]].dev].warm = ev->arg == 1;
		break;
	default: break;
	}
	cz_metrics_ev(e->metrics, ev);
}

static void pump_locked(struct cz_stat *s)
{
	cz_mutex_assert_held(&s->lock);
	uint64_t now = cz_trace_now();
	if (now < s->t_start + HORIZON_NS + LAG_NS)
		return;
	uint64_t h = now - HORIZON_NS - LAG_NS;
	if (h <= s->t_now)
		return;
	cz_trace_scan(&s->peek, h + LAG_NS, peek, s);
	cz_trace_scan(&s->cur, h, apply, s);
	advance(s, h);
}

static void *stat_main(void *v)
{
	struct cz_stat *s = v;

	pthread_setname_np(pthread_self(), "cz-ctlstat");
	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		pump_locked(s);
		pthread_mutex_unlock(&s->lock);
		cz_metrics_log_drain(s->e->metrics);    /* stderr, with no lock held */
		pthread_mutex_lock(&s->lock);
		if (s->stop)
			break;
		struct timespec ts = cz_deadline(CLOCK_MONOTONIC, (int64_t)PERIOD_NS);
		pthread_cond_timedwait(&s->cv, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int cz_stat_start(struct cz_engine *e)
{
	struct cz_stat *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return -ENOMEM;
	s->e = e;
	s->held = calloc(e->ncons ? e->ncons : 1, sizeof(*s->held));
	s->dev = calloc(e->ndev ? e->ndev : 1, sizeof(*s->dev));
	s->rq = calloc(e->ncons + 1, sizeof(*s->rq));
	e->metrics = cz_metrics_create(e->ndev, &metrics_src);
	if (!s->held || !s->dev || !s->rq || !e->metrics) {
		cz_metrics_destroy(e->metrics);
		e->metrics = NULL;
		free(s->rq);
		free(s->held);
		free(s->dev);
		free(s);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	s->disp = D_RUNNING;
	s->t_start = s->t_now = cz_trace_now();
	/* Only this engine's events: skip whatever the buffers already hold. */
	cz_trace_scan(&s->cur, s->t_start, NULL, NULL);
	cz_trace_scan(&s->peek, s->t_start, NULL, NULL);
	s->cur.lost = 0;
	e->stat = s;
	if (pthread_create(&s->tid, NULL, stat_main, s))
		return -EAGAIN;
	s->started = true;
	return 0;
}

void cz_stat_stop(struct cz_engine *e)
{
	struct cz_stat *s = e->stat;
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->tid, NULL);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cv);
	free(s->held);
	free(s->dev);
	free(s->rq);
	free(s);
	e->stat = NULL;
	cz_metrics_destroy(e->metrics);
	e->metrics = NULL;
}

static json_object *acct_json(const struct acct *a, uint64_t window)
{
	json_object *o = json_object_new_object(), *by = json_object_new_object();
	uint64_t idle = 0;
	for (int c = 0; c < C_UNATTRIBUTED; c++) {
		idle += a->idle[c];
		if (a->idle[c])
			json_object_object_add(by, cause_names[c], json_object_new_double((double)a->idle[c] / 1e6));
	}
	idle += a->idle[C_UNATTRIBUTED];
	json_object_object_add(o, "window_ms", json_object_new_double((double)window / 1e6));
	json_object_object_add(o, "busy_ms", json_object_new_double((double)a->busy / 1e6));
	json_object_object_add(o, "idle_ms", json_object_new_double((double)idle / 1e6));
	json_object_object_add(o, "duty", json_object_new_double(window ? (double)a->busy / (double)window : 0));
	json_object_object_add(o, "idle_by_cause_ms", by);
	json_object_object_add(o, "unattributed_ms",
			       json_object_new_double((double)a->idle[C_UNATTRIBUTED] / 1e6));
	return o;
}

json_object *cz_stat_devices_json(struct cz_engine *e, uint64_t *lost)
{
	struct cz_stat *s = e->stat;
	json_object *arr = json_object_new_array();

	*lost = 0;
	if (!s)
		return arr;
	pthread_mutex_lock(&s->lock);
	pump_locked(s);
	uint64_t now_sec = (s->t_now - s->t_start) / 1000000000ull;
	for (unsigned d = 0; d < e->ndev; d++) {
		const struct stat_dev *sd = &s->dev[d];
		struct acct last = { 0 };
		uint64_t w = 0;
		for (unsigned k = 0; k < NBUCKET; k++) {
			const struct bucket *b = &sd->b[k];
			if (b->sec + NBUCKET <= now_sec)
				continue;       /* stale; a bucket never written is all zero */
			last.busy += b->a.busy;
			for (int c = 0; c < C__COUNT; c++)
				last.idle[c] += b->a.idle[c];
		}
		w = last.busy;
		for (int c = 0; c < C__COUNT; c++)
			w += last.idle[c];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "device", json_object_new_int((int)d));
		/* Its warm-up proof (engine/pipeline/warmup.c), which /readyz waits for. */
		const struct cz_pipe_dev *pd = &e->pipe.devs[d];
		uint32_t wst = atomic_load_explicit(&pd->warm, memory_order_acquire);
		json_object *wu = json_object_new_object();
		json_object_object_add(wu, "state", json_object_new_string(
			wst == CZ_WARM_OK ? "verified" : wst == CZ_WARM_FAILED ? "failed" : "pending"));
		if (wst != CZ_WARM_PENDING)
			json_object_object_add(wu, "detail", json_object_new_string_len(
				pd->warm_why, (int)strnlen(pd->warm_why, sizeof(pd->warm_why))));
		json_object_object_add(o, "warm_up", wu);
		json_object_object_add(o, "since_start", acct_json(&sd->total, s->t_now - s->t_start));
		json_object_object_add(o, "last_10s", acct_json(&last, w));
		json_object_object_add(o, "last_60s", cz_metrics_lanes_json(e->metrics, d, s->t_now - s->t_start));
		json_object_array_add(arr, o);
	}
	*lost = s->cur.lost;
	pthread_mutex_unlock(&s->lock);
	return arr;
}

void cz_stat_snapshot(struct cz_engine *e, struct cz_stat_snap *out, void (*under)(void *), void *arg)
{
	struct cz_stat *s = e->stat;

	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	pump_locked(s);
	out->window_ns = s->t_now - s->t_start;
	out->lost = s->cur.lost;
	out->ndev = e->ndev < 32 ? e->ndev : 32;
	for (unsigned d = 0; d < out->ndev; d++) {
		out->dev[d].busy = s->dev[d].total.busy;
		memcpy(out->dev[d].idle, s->dev[d].total.idle, sizeof(out->dev[d].idle));
	}
	if (under)
		under(arg);
	pthread_mutex_unlock(&s->lock);
}
