/* SPDX-License-Identifier: MIT */
/*
 * engine/evidence/metrics.c — Prometheus figures, readiness, and the dashboard's
 * device lanes.
 *
 * Design.  Nothing here sits on a consumer's path, and a scrape takes no
 * lock a consumer takes (engine/evidence/metrics.h says who writes what):
 * - what the trace already tells (stage durations, queue depth by priority,
 *   busy and idle by cause) is derived by the stat thread as it replays the
 *   trace, under the stat lock, which only the control plane takes;
 * - what only the control plane knows (a partition's terminal state, a
 *   job's end, key bytes) is counted where it already holds the engine
 *   lock, in relaxed atomics the scrape reads lock-free.  A figure may be
 *   one event behind another; each is monotonic on its own.
 * A scrape's cost: one copy of the device totals and histograms under the
 * stat lock (a few KiB, no allocation), then formatting outside it, plus
 * /proc/self/stat and /proc/self/fd for the process_* figures.  It does not
 * walk jobs, so it costs the same at 1 or 1,000 jobs.
 *
 * Stage durations pair each stage's start and end event on the thread that
 * writes both (a synthesis worker, a consumer, the finalizer): a per-thread
 * start stamp, no per-partition table.  Queue wait pairs a job's submit
 * with each of its partitions' dispatch: a table of jobs that still have
 * queued partitions, sorted by sequence (jobs arrive in order).
 */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "engine/evidence/metrics.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NB 16           /* histogram bounds, seconds */
static const double bounds[NB] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				   0.5,   1,      2.5,   5,    10,    25,    50,  100 };

/* witness_generation: an input partition's witness, inside its synthesis
 * (engine/pipeline/witgen.c), on the same thread. */
enum stage { S_QUEUE, S_SYNTH, S_DEVICE, S_FINAL, S_WITGEN, S__COUNT };
static const char *const stage_names[S__COUNT] = { "queue_wait", "synthesis", "device", "finalize",
						   "witness_generation" };

#define NPRIO 4
#define NPSTATE 3       /* done, failed, cancelled */
#define NJSTATE 3

struct hist {
	uint64_t n[NB + 1];     /* n[NB]: above the last bound */
	uint64_t sum_ns;
};

struct ahist {                  /* written under the engine lock, read lock-free */
	_Atomic uint64_t n[NB + 1];
	_Atomic uint64_t sum_ns;
};

/* The scrape's own cost (cz_engine_metrics_text, wall and thread CPU),
 * so "a scrape costs <= 1 ms" is measured where it is spent, apart from
 * the client's and the listener thread's waits for a CPU. */
#define SB 9
static const double sbounds[SB] = { 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.1 };
struct shist {
	_Atomic uint64_t n[SB + 1];
	_Atomic uint64_t sum_ns;
};

#define LANE_SLOTS 300          /* 60 s ... */
#define SLOT_NS 200000000ull    /* ... of 0.2 s */

struct slot {
	uint64_t idx;                   /* which slot since start, + 1 (0: never written) */
	uint32_t ns[1 + CZ_STAT_NCAUSE]; /* [0] busy, [1 + c] idle for cause c */
};

struct qjob {
	uint64_t seq, submit_ns;
	uint32_t left;          /* partitions not yet dispatched or dropped */
	uint8_t prio;
};

#define LOG_LINES 64
#define LOG_LEN 640     /* fits the longest line: ids, names, devices */

struct cz_metrics {
	unsigned ndev;
	/* Stat thread, under the stat lock. */
	struct hist stage[S__COUNT];
	uint64_t start_ns[CZ_TRACE_MAXBUF][S__COUNT];   /* per trace buffer */
	int64_t queued[NPRIO];
	struct qjob *q;
	size_t qn, qcap, qlive;
	struct slot *lanes;     /* ndev × LANE_SLOTS */
	/* Control plane, under the engine lock; read lock-free. */
	_Atomic uint64_t parts[NPSTATE];
	_Atomic uint64_t jobs[NJSTATE][NPRIO];
	struct ahist latency[NPRIO];
	struct shist scrape[2];         /* wall, cpu */
	_Atomic int64_t key_bytes;
	_Atomic int nkeys;
	/* cuzkd's phase for /readyz. */
	pthread_mutex_t phase_lock;
	char phase[160];
	/* Finished jobs' log lines, queued under the engine lock, printed by
	 * the stat thread with no lock held (no I/O under a lock). */
	pthread_mutex_t log_lock;
	unsigned log_n;
	uint64_t log_dropped;
	char log[LOG_LINES][LOG_LEN];
	const struct cz_metrics_src *src;       /* the live accounting's (engine/evidence/stat.c) */
};

static const char *cause_name(const struct cz_metrics *m, int c)
{
	return c >= 0 && c < CZ_STAT_NCAUSE ? m->src->cause_names[c] : "?";
}

_Static_assert(CZ_ENGINE_MAX_DEVICES < 127, "a device number + 1 fits an int8_t");

struct cz_metrics *cz_metrics_create(unsigned ndev, const struct cz_metrics_src *src)
{
	struct cz_metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->src = src;
	m->ndev = ndev;
	m->lanes = calloc((size_t)(ndev ? ndev : 1) * LANE_SLOTS, sizeof(*m->lanes));
	if (!m->lanes) {
		free(m);
		return NULL;
	}
	pthread_mutex_init(&m->phase_lock, NULL);
	pthread_mutex_init(&m->log_lock, NULL);
	snprintf(m->phase, sizeof(m->phase), "starting");
	return m;
}

void cz_metrics_destroy(struct cz_metrics *m)
{
	if (!m)
		return;
	cz_metrics_log_drain(m);
	pthread_mutex_destroy(&m->phase_lock);
	pthread_mutex_destroy(&m->log_lock);
	free(m->q);
	free(m->lanes);
	free(m);
}

static int bucket_of(uint64_t ns)
{
	double s = (double)ns / 1e9;
	int b = 0;
	while (b < NB && s > bounds[b])
		b++;
	return b;
}

static void hist_add(struct hist *h, uint64_t ns)
{
	h->n[bucket_of(ns)]++;
	h->sum_ns += ns;
}

/* ---- the queued-jobs table (stat thread) ---- */

static struct qjob *q_find(struct cz_metrics *m, uint64_t seq)
{
	size_t lo = 0, hi = m->qn;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->q[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->qn && m->q[lo].seq == seq && m->q[lo].left ? &m->q[lo] : NULL;
}

/* Drops finished entries once they are most of the table (keeps the order). */
static void q_compact(struct cz_metrics *m)
{
	size_t k = 0;
	for (size_t i = 0; i < m->qn; i++)
		if (m->q[i].left)
			m->q[k++] = m->q[i];
	m->qn = k;
}

static void q_add(struct cz_metrics *m, uint64_t seq, uint64_t ns, uint32_t n, unsigned prio)
{
	if (m->qn > 64 && m->qn > 2 * m->qlive)
		q_compact(m);
	if (m->qn == m->qcap) {
		size_t cap = m->qcap ? 2 * m->qcap : 64;
		struct qjob *q = realloc(m->q, cap * sizeof(*q));
		if (!q)
			return;         /* this job's queue wait goes unmeasured */
		m->q = q;
		m->qcap = cap;
	}
	size_t at = m->qn;
	while (at > 0 && m->q[at - 1].seq > seq)       /* submits arrive in order: rarely moves */
		at--;
	memmove(&m->q[at + 1], &m->q[at], (m->qn - at) * sizeof(*m->q));
	m->q[at] = (struct qjob){ .seq = seq, .submit_ns = ns, .left = n, .prio = (uint8_t)prio };
	m->qn++;
	m->qlive++;
}

/* A partition of job seq left the queue (dispatched: its wait observed). */
static void q_leave(struct cz_metrics *m, uint64_t seq, uint64_t ns, bool dispatched)
{
	struct qjob *j = q_find(m, seq);
	if (!j)
		return;
	m->queued[j->prio]--;
	if (dispatched)
		hist_add(&m->stage[S_QUEUE], ns > j->submit_ns ? ns - j->submit_ns : 0);
	if (!--j->left)
		m->qlive--;
}

void cz_metrics_ev(struct cz_metrics *m, const struct cz_trace_ev *ev)
{
	uint64_t *st = m->start_ns[ev->thread % CZ_TRACE_MAXBUF];
	enum stage s = S__COUNT;

	switch (ev->type) {
	case CZ_EV_SUBMIT:
		if (ev->arg < NPRIO) {
			m->queued[ev->arg] += ev->part;
			q_add(m, ev->job, ev->ns, ev->part, ev->arg);
		}
		return;
	case CZ_EV_DISPATCH: q_leave(m, ev->job, ev->ns, true); return;
	case CZ_EV_DROP: q_leave(m, ev->job, ev->ns, false); return;
	case CZ_EV_SYNTH_START: st[S_SYNTH] = ev->ns; return;
	case CZ_EV_COMPUTE_START: st[S_DEVICE] = ev->ns; return;
	case CZ_EV_FINAL_START: st[S_FINAL] = ev->ns; return;
	case CZ_EV_WITGEN_START: st[S_WITGEN] = ev->ns; return;
	case CZ_EV_WITGEN_END: s = S_WITGEN; break;
	case CZ_EV_SYNTH_END: s = S_SYNTH; break;
	case CZ_EV_COMPUTE_END: s = S_DEVICE; break;
	case CZ_EV_FINAL_END: s = S_FINAL; break;
	default: return;
	}
	if (st[s] && ev->ns >= st[s])   /* 0: its start was before ours, or lost */
		hist_add(&m->stage[s], ev->ns - st[s]);
	st[s] = 0;
}

void cz_metrics_span(struct cz_metrics *m, unsigned dev, int busy, int cause, uint64_t t_rel,
		     uint64_t ns)
{
	if (dev >= m->ndev || cause < 0 || cause >= CZ_STAT_NCAUSE)
		return;
	struct slot *lane = &m->lanes[(size_t)dev * LANE_SLOTS];
	while (ns) {
		uint64_t idx = t_rel / SLOT_NS, edge = (idx + 1) * SLOT_NS;
		uint64_t take = t_rel + ns < edge ? ns : edge - t_rel;
		struct slot *sl = &lane[idx % LANE_SLOTS];
		if (sl->idx != idx + 1) {
			memset(sl, 0, sizeof(*sl));
			sl->idx = idx + 1;
		}
		sl->ns[busy ? 0 : 1 + cause] += (uint32_t)take;
		t_rel += take;
		ns -= take;
	}
}

/* {"slot_ms": 200, "busy_pct": [busy percent per slot, oldest first], "idle_cause":
 * [index into "causes" of the slot's main idle cause, or -1], "causes"}. */
json_object *cz_metrics_lanes_json(const struct cz_metrics *m, unsigned dev, uint64_t t_rel)
{
	json_object *o = json_object_new_object(), *busy = json_object_new_array_ext(LANE_SLOTS);
	json_object *cause = json_object_new_array_ext(LANE_SLOTS), *names = json_object_new_array();
	uint64_t now = t_rel / SLOT_NS;

	for (int c = 0; c < CZ_STAT_NCAUSE; c++)
		json_object_array_add(names, json_object_new_string(cause_name(m, c)));
	for (uint64_t k = 0; k < LANE_SLOTS; k++) {
		double frac = 0;
		int main_cause = -1;
		if (dev < m->ndev && now + 1 + k >= LANE_SLOTS) {
			uint64_t idx = now + 1 + k - LANE_SLOTS;
			const struct slot *sl = &m->lanes[(size_t)dev * LANE_SLOTS + idx % LANE_SLOTS];
			if (sl->idx == idx + 1) {
				uint64_t tot = 0, most = 0;
				for (int c = 0; c <= CZ_STAT_NCAUSE; c++)
					tot += sl->ns[c];
				for (int c = 0; c < CZ_STAT_NCAUSE; c++)
					if (sl->ns[1 + c] > most) {
						most = sl->ns[1 + c];
						main_cause = c;
					}
				frac = tot ? (double)sl->ns[0] / (double)tot : 0;
			}
		}
		json_object_array_add(busy, json_object_new_int((int)(frac * 100 + 0.5)));
		json_object_array_add(cause, json_object_new_int(main_cause));
	}
	json_object_object_add(o, "slot_ms", json_object_new_int((int)(SLOT_NS / 1000000)));
	json_object_object_add(o, "busy_pct", busy);
	json_object_object_add(o, "idle_cause", cause);
	json_object_object_add(o, "causes", names);
	return o;
}

/* ---- control-plane counters ---- */

void cz_metrics_part_terminal(struct cz_metrics *m, int st)
{
	int k = st == CZ_PART_DONE ? 0 : st == CZ_PART_FAILED ? 1 : st == CZ_PART_CANCELLED ? 2 : -1;
	if (m && k >= 0)
		atomic_fetch_add_explicit(&m->parts[k], 1, memory_order_relaxed);
}

void cz_metrics_job_finished(struct cz_metrics *m, int st, int prio, uint64_t ns)
{
	int k = st == CZ_JOB_DONE ? 0 : st == CZ_JOB_FAILED ? 1 : st == CZ_JOB_CANCELLED ? 2 : -1;
	if (!m || k < 0 || prio < 0 || prio >= NPRIO)
		return;
	atomic_fetch_add_explicit(&m->jobs[k][prio], 1, memory_order_relaxed);
	struct ahist *h = &m->latency[prio];
	atomic_fetch_add_explicit(&h->sum_ns, ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->n[bucket_of(ns)], 1, memory_order_relaxed);
}

void cz_metrics_keys(struct cz_metrics *m, int64_t bytes, int count)
{
	if (!m)
		return;
	atomic_fetch_add_explicit(&m->key_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->nkeys, count, memory_order_relaxed);
}

/* ---- per-job accounting (engine lock) ---- */

void cz_metrics_acct_part(struct cz_engine *e, struct cz_part *p)
{
	struct cz_job *j = p->job;
	struct cz_job_acct *a = &j->acct;

	if (p->t_dispatch && (!a->t_first_dispatch || p->t_dispatch < a->t_first_dispatch))
		a->t_first_dispatch = p->t_dispatch;
	a->synth_ns += p->synth_ns;
	a->device_ns += p->device_ns;
	a->final_ns += p->final_ns;
	a->synth_cpu_ns += p->synth_cpu_ns;
	a->device_cpu_ns += p->device_cpu_ns;
	a->final_cpu_ns += p->final_cpu_ns;
	uint32_t tries = atomic_load(&p->attempts);
	a->attempts += tries;
	if (p->idx < sizeof(a->tries))
		a->tries[p->idx] = (uint8_t)(tries < 255 ? tries : 255);
	int c = atomic_load(&p->consumer);
	if (p->device_ns && c >= 0 && (unsigned)c < e->ncons && p->idx < sizeof(a->dev))
		a->dev[p->idx] = (int8_t)(e->cons[c].dev + 1);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

json_object *cz_metrics_acct_json(const struct cz_job *j)
{
	return cz_metrics_acct_json_of(&j->acct, j->nparts, j->t_submit);
}

json_object *cz_metrics_acct_json_of(const struct cz_job_acct *a, uint32_t nparts, uint64_t t_submit)
{
	json_object *o = json_object_new_object(), *dev = json_object_new_array_ext((int)nparts);

	if (a->t_first_dispatch)
		json_object_object_add(o, "wait_ms", json_object_new_double(ms(a->t_first_dispatch - t_submit)));
	json_object_object_add(o, "synthesis_ms", json_object_new_double(ms(a->synth_ns)));
	json_object_object_add(o, "device_ms", json_object_new_double(ms(a->device_ns)));
	json_object_object_add(o, "finalize_ms", json_object_new_double(ms(a->final_ns)));
	for (uint32_t i = 0; i < nparts; i++)
		json_object_array_add(dev, json_object_new_int(i < sizeof(a->dev) ? a->dev[i] - 1 : -1));
	json_object_object_add(o, "devices", dev);
	json_object *cpu = json_object_new_object();
	json_object_object_add(cpu, "synthesis", json_object_new_double((double)a->synth_cpu_ns / 1e9));
	json_object_object_add(cpu, "device", json_object_new_double((double)a->device_cpu_ns / 1e9));
	json_object_object_add(cpu, "finalize", json_object_new_double((double)a->final_cpu_ns / 1e9));
	json_object_object_add(cpu, "total", json_object_new_double(
		(double)(a->synth_cpu_ns + a->device_cpu_ns + a->final_cpu_ns) / 1e9));
	json_object_object_add(o, "cpu_seconds", cpu);
	json_object_object_add(o, "peak_buffer_bytes", json_object_new_int64((int64_t)a->buf_peak));
	json_object_object_add(o, "attempts", json_object_new_int64(a->attempts));
	json_object *tr = json_object_new_array_ext((int)nparts);
	for (uint32_t i = 0; i < nparts; i++)
		json_object_array_add(tr, json_object_new_int(i < sizeof(a->tries) ? a->tries[i] : 0));
	json_object_object_add(o, "partition_attempts", tr);
	return o;
}

void cz_metrics_acct_finish(struct cz_engine *e, struct cz_job *j)
{
	static const char *const st[] = { "active", "done", "failed", "cancelled" };
	struct cz_metrics *m = e->metrics;
	const struct cz_job_acct *a = &j->acct;
	unsigned per_dev[CZ_ENGINE_MAX_DEVICES] = { 0 };
	char devs[160] = "";
	size_t k = 0;
	int js = atomic_load(&j->state);

	if (!m)
		return;
	for (uint32_t i = 0; i < j->nparts && i < sizeof(a->dev); i++)
		if (a->dev[i] > 0 && a->dev[i] <= CZ_ENGINE_MAX_DEVICES)
			per_dev[a->dev[i] - 1]++;
	for (unsigned d = 0; d < e->ndev && k < sizeof(devs) - 16; d++)
		if (per_dev[d])
			k += (size_t)snprintf(devs + k, sizeof(devs) - k, "%s%u:%u", k ? "," : "", d, per_dev[d]);
	pthread_mutex_lock(&m->log_lock);
	if (m->log_n == LOG_LINES) {
		m->log_dropped++;
	} else {
		/* key=value, one line, journald friendly; devices=DEV:PARTITIONS,... */
		snprintf(m->log[m->log_n++], LOG_LEN,
			 "cuzkd: job=%s state=%s priority=%s circuit=%s partitions=%u failed=%u ms=%.1f "
			 "wait_ms=%.1f synthesis_ms=%.1f device_ms=%.1f finalize_ms=%.1f cpu_s=%.3f "
			 "peak_buffer_bytes=%llu attempts=%u devices=%s",
			 j->id, js >= 0 && js <= CZ_JOB_CANCELLED ? st[js] : "?", cz_prio_name(j->prio),
			 j->circ_name, j->nparts, j->nfailed, ms(j->t_finish - j->t_submit),
			 a->t_first_dispatch ? ms(a->t_first_dispatch - j->t_submit) : 0.0, ms(a->synth_ns),
			 ms(a->device_ns), ms(a->final_ns),
			 (double)(a->synth_cpu_ns + a->device_cpu_ns + a->final_cpu_ns) / 1e9,
			 (unsigned long long)a->buf_peak, a->attempts, *devs ? devs : "none");
	}
	pthread_mutex_unlock(&m->log_lock);
}

void cz_metrics_log_drain(struct cz_metrics *m)
{
	static char lines[LOG_LINES][LOG_LEN];   /* the stat thread's (and, at stop, its joiner's) */
	unsigned n;
	uint64_t dropped;

	if (!m)
		return;
	pthread_mutex_lock(&m->log_lock);
	n = m->log_n;
	memcpy(lines, m->log, (size_t)n * LOG_LEN);
	dropped = m->log_dropped;
	m->log_n = 0;
	m->log_dropped = 0;
	pthread_mutex_unlock(&m->log_lock);
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "%s\n", lines[i]);
	if (dropped)
		fprintf(stderr, "cuzkd: %llu job log lines dropped (more than %d jobs ended within 100 ms)\n",
			(unsigned long long)dropped, LOG_LINES);
}

/* ---- readiness ---- */

void cz_engine_set_phase(struct cz_engine *e, const char *phase)
{
	struct cz_metrics *m = e->metrics;
	if (!m)
		return;
	pthread_mutex_lock(&m->phase_lock);
	snprintf(m->phase, sizeof(m->phase), "%s", phase ? phase : "");
	pthread_mutex_unlock(&m->phase_lock);
}

static int ready(struct cz_engine *e, bool need_key, char *why, size_t cap);

int cz_engine_ready(struct cz_engine *e, char *why, size_t cap)
{
	return ready(e, true, why, cap);
}

int cz_engine_serving(struct cz_engine *e, char *why, size_t cap)
{
	return ready(e, false, why, cap);
}

static int ready(struct cz_engine *e, bool need_key, char *why, size_t cap)
{
	struct cz_metrics *m = e->metrics;
	if (!m) {
		snprintf(why, cap, "the engine has no metrics");
		return 0;
	}
	pthread_mutex_lock(&m->phase_lock);
	bool starting = *m->phase;
	if (starting)
		snprintf(why, cap, "%s", m->phase);
	pthread_mutex_unlock(&m->phase_lock);
	if (starting)
		return 0;
	if (need_key && atomic_load_explicit(&m->nkeys, memory_order_relaxed) <= 0) {
		snprintf(why, cap, "no proving key loaded (load one: cuzkctl load NAME ZKEY)");
		return 0;
	}
	/* Every device proved and verified its warm-up partition
	 * (engine/pipeline/warmup.c), in this process or its device process. */
	unsigned usable = 0, hung = 0;
	for (unsigned d = 0; d < e->ndev; d++) {
		const struct cz_pipe_dev *pd = &e->pipe.devs[d];
		/* A device process that failed for good or was disabled is out of
		 * service: not waited for (the others serve).  One restarting is
		 * waited for, and proves its warm-up again. */
		int ps = e->dp ? atomic_load_explicit(&e->dp[d].state, memory_order_relaxed) : CZ_DEVP_READY;
		if (ps == CZ_DEVP_FAILED || ps == CZ_DEVP_DISABLED)
			continue;
		/* Hung (engine/device/watchdog.c): out of service until its new
		 * process is ready; the others serve meanwhile. */
		if (atomic_load_explicit(&pd->hung, memory_order_relaxed)) {
			hung++;
			continue;
		}
		usable++;
		if (ps == CZ_DEVP_STARTING) {
			snprintf(why, cap, "device %u: its process is starting", d);
			return 0;
		}
		uint32_t w = atomic_load_explicit(&pd->warm, memory_order_acquire);
		if (w == CZ_WARM_OK)
			continue;
		if (w == CZ_WARM_FAILED)
			snprintf(why, cap, "device %u: %.*s", d, (int)sizeof(pd->warm_why), pd->warm_why);
		else
			snprintf(why, cap, "device %u: warming up (its first proof is not verified yet)", d);
		return 0;
	}
	if (!usable) {
		snprintf(why, cap, "no device in service (every device failed, is disabled%s)",
			 hung ? " or is hung" : "");
		return 0;
	}
	snprintf(why, cap, "ready: %d key(s) loaded, %u device(s) open, each with a verified warm-up proof",
		 atomic_load(&m->nkeys), usable);
	return 1;
}

int cz_engine_alive(struct cz_engine *e, uint64_t usec, char *why, size_t cap)
{
	struct timespec ts = cz_deadline(CLOCK_REALTIME, (int64_t)usec * 1000);   /* timedlock's clock */
	/* The control plane's lock: every request and the dispatcher need it,
	 * and it is held only for short steps (no file I/O, no waits). */
	if (pthread_mutex_timedlock(&e->lock, &ts)) {
		snprintf(why, cap, "the engine lock was not free within %llu ms", (unsigned long long)usec / 1000);
		return 0;
	}
	pthread_mutex_unlock(&e->lock);
	return 1;
}

void cz_engine_status_line(struct cz_engine *e, char *line, size_t cap)
{
	struct cz_metrics *m = e->metrics;
	char why[200];
	int ready = cz_engine_ready(e, why, sizeof(why));
	if (!m) {
		snprintf(line, cap, "%s", why);
		return;
	}
	uint64_t jobs = 0;
	for (int p = 0; p < NPRIO; p++)
		jobs += atomic_load_explicit(&m->jobs[0][p], memory_order_relaxed);
	snprintf(line, cap, "%s; %d key(s), %u device(s), %llu jobs done, %llu partitions done, %llu failed",
		 ready ? "ready" : why, atomic_load_explicit(&m->nkeys, memory_order_relaxed), e->ndev,
		 (unsigned long long)jobs,
		 (unsigned long long)atomic_load_explicit(&m->parts[0], memory_order_relaxed),
		 (unsigned long long)atomic_load_explicit(&m->parts[1], memory_order_relaxed));
}

/* ---- the exposition ---- */

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *f, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, f);
		int k = vsnprintf(b->p ? b->p + b->n : NULL, room, f, ap);
		va_end(ap);
		if (k < 0 || b->oom)
			return;
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? 2 * b->cap : 16384;
		while (cap - b->n <= (size_t)k)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

static void head(struct buf *b, const char *name, const char *type, const char *help)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Label values are ours (names, numbers): none needs escaping. */
static void hist_put(struct buf *b, const char *name, const char *label, const uint64_t *n,
		     uint64_t sum_ns)
{
	uint64_t cum = 0;
	for (int k = 0; k < NB; k++) {
		cum += n[k];
		put(b, "%s_bucket{%s,le=\"%g\"} %llu\n", name, label, bounds[k], (unsigned long long)cum);
	}
	cum += n[NB];
	put(b, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, label, (unsigned long long)cum);
	put(b, "%s_sum{%s} %.9f\n", name, label, (double)sum_ns / 1e9);
	put(b, "%s_count{%s} %llu\n", name, label, (unsigned long long)cum);
}

static void shist_add(struct shist *h, uint64_t ns)
{
	int k = 0;
	while (k < SB && (double)ns / 1e9 > sbounds[k])
		k++;
	atomic_fetch_add_explicit(&h->n[k], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->sum_ns, ns, memory_order_relaxed);
}

static void shist_put(struct buf *b, const struct shist *h, const char *label)
{
	uint64_t cum = 0;
	for (int k = 0; k < SB; k++) {
		cum += atomic_load_explicit(&h->n[k], memory_order_relaxed);
		put(b, "cuzk_scrape_duration_seconds_bucket{%s,le=\"%g\"} %llu\n", label, sbounds[k],
		    (unsigned long long)cum);
	}
	cum += atomic_load_explicit(&h->n[SB], memory_order_relaxed);
	put(b, "cuzk_scrape_duration_seconds_bucket{%s,le=\"+Inf\"} %llu\n", label, (unsigned long long)cum);
	put(b, "cuzk_scrape_duration_seconds_sum{%s} %.9f\n", label,
	    (double)atomic_load_explicit(&h->sum_ns, memory_order_relaxed) / 1e9);
	put(b, "cuzk_scrape_duration_seconds_count{%s} %llu\n", label, (unsigned long long)cum);
}

struct copy {
	struct cz_metrics *m;
	struct hist stage[S__COUNT];
	int64_t queued[NPRIO];
};

static void copy_under(void *v)
{
	struct copy *c = v;
	memcpy(c->stage, c->m->stage, sizeof(c->stage));
	memcpy(c->queued, c->m->queued, sizeof(c->queued));
}

static void process_put(struct buf *b)
{
	char line[1024];
	FILE *f = fopen("/proc/self/stat", "re");
	long tck = sysconf(_SC_CLK_TCK), psz = sysconf(_SC_PAGESIZE);
	if (f && fgets(line, sizeof(line), f)) {
		/* Fields after the command's closing parenthesis (proc(5)): state is 3. */
		char *p = strrchr(line, ')');
		unsigned long long utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d "
				"%*d %*d %*d %llu %llu %llu", &utime, &stime, &start, &vsize, &rss) == 5 &&
		    tck > 0) {
			struct timespec rt, mono;
			clock_gettime(CLOCK_REALTIME, &rt);
			clock_gettime(CLOCK_BOOTTIME, &mono);
			double boot = (double)rt.tv_sec + rt.tv_nsec / 1e9 - ((double)mono.tv_sec + mono.tv_nsec / 1e9);
			head(b, "process_cpu_seconds_total", "counter", "User and system CPU time spent in seconds.");
			put(b, "process_cpu_seconds_total %.2f\n", (double)(utime + stime) / (double)tck);
			head(b, "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.");
			put(b, "process_start_time_seconds %.2f\n", boot + (double)start / (double)tck);
			head(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
			put(b, "process_virtual_memory_bytes %llu\n", vsize);
			head(b, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
			put(b, "process_resident_memory_bytes %llu\n", rss * (unsigned long long)psz);
		}
	}
	if (f)
		fclose(f);
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		long n = -1;    /* opendir's own descriptor */
		while (readdir(d))
			n++;
		closedir(d);
		head(b, "process_open_fds", "gauge", "Number of open file descriptors.");
		put(b, "process_open_fds %ld\n", n - 2);   /* less . and .. */
	}
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		head(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
		put(b, "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
	}
}

/* The devices: open ones by backend, their processes' restarts and
 * states, their warm-up proofs. */
static void devices_put(struct buf *bp, struct cz_engine *e)
{
	head(bp, "cuzk_devices", "gauge", "Devices open, by backend.");
	put(bp, "cuzk_devices{backend=\"%s\"} %u\n", e->be->name, e->ndev);
	/* Device processes (engine/device/devproc.c): atomics the supervisor writes,
	 * read without its lock; in thread isolation a device is always
	 * ready and never restarts (as status says). */
	head(bp, "cuzk_device_restarts_total", "counter",
	     "Times each device's process was restarted after it died (--isolation process).");
	for (unsigned d = 0; d < e->ndev; d++)
		put(bp, "cuzk_device_restarts_total{device=\"%u\"} %u\n", d,
		    e->dp ? atomic_load_explicit(&e->dp[d].restarts, memory_order_relaxed) : 0);
	head(bp, "cuzk_device_state", "gauge",
	     "1 for each device's current state (starting, ready, failed, disabled), 0 for the others.");
	for (unsigned d = 0; d < e->ndev; d++) {
		int st = e->dp ? atomic_load_explicit(&e->dp[d].state, memory_order_relaxed) : CZ_DEVP_READY;
		for (int k = CZ_DEVP_STARTING; k <= CZ_DEVP_DISABLED; k++)
			put(bp, "cuzk_device_state{device=\"%u\",state=\"%s\"} %d\n", d, cz_devproc_state_name(k),
			    st == k);
	}
	/* The watchdog's (engine/device/watchdog.c), in the device's line. */
	head(bp, "cuzk_device_hung", "gauge",
	     "1 while the device is hung: a device stage ran over its watchdog bound (until its process "
	     "is ready again; thread isolation: until the stage returns).");
	for (unsigned d = 0; d < e->ndev; d++)
		put(bp, "cuzk_device_hung{device=\"%u\"} %u\n", d,
		    atomic_load_explicit(&e->pipe.devs[d].hung, memory_order_relaxed));
	head(bp, "cuzk_device_hangs_total", "counter", "Hangs the device watchdog found on each device.");
	for (unsigned d = 0; d < e->ndev; d++)
		put(bp, "cuzk_device_hangs_total{device=\"%u\"} %llu\n", d,
		    (unsigned long long)atomic_load_explicit(&e->pipe.devs[d].hangs, memory_order_relaxed));
	head(bp, "cuzk_device_warm_up_verified", "gauge",
	     "1 once the device's warm-up proof verified (engine/pipeline/warmup.c; /readyz waits for it).");
	for (unsigned d = 0; d < e->ndev; d++)
		put(bp, "cuzk_device_warm_up_verified{device=\"%u\"} %d\n", d,
		    atomic_load_explicit(&e->pipe.devs[d].warm, memory_order_acquire) == CZ_WARM_OK);
}

/* A full disk (engine/durable/output.c, docs/cuzkd.8.md Full disk). */
static void output_metrics(struct buf *bp, struct cz_engine *e)
{
	head(bp, "cuzk_output_retries_total", "counter",
	     "Attempts to write a job's proofs that failed for want of space or an I/O error, to be tried again.");
	put(bp, "cuzk_output_retries_total %llu\n",
	    (unsigned long long)atomic_load_explicit(&e->out_retries, memory_order_relaxed));
	head(bp, "cuzk_jobs_output_retry", "gauge", "Jobs proved whose proofs wait to be written (output-retry).");
	put(bp, "cuzk_jobs_output_retry %u\n", atomic_load_explicit(&e->out_waiting, memory_order_relaxed));
	/* The journal's own failed writes (engine/durable/journal.c), as the
	 * engine copied them after its last commit (cz_recover_on_commit). */
	head(bp, "cuzk_journal_refusing", "gauge",
	     "1 while the journal's last write failed (ENOSPC, EDQUOT, EIO, ...): submits are refused.");
	put(bp, "cuzk_journal_refusing %u\n", atomic_load_explicit(&e->jn_refusing, memory_order_relaxed));
	head(bp, "cuzk_journal_failed_commits_total", "counter",
	     "Journal group commits whose write or fsync failed (their accepted jobs' records written again).");
	put(bp, "cuzk_journal_failed_commits_total %llu\n",
	    (unsigned long long)atomic_load_explicit(&e->jn_failed_commits, memory_order_relaxed));
	head(bp, "cuzk_journal_refused_submits_total", "counter",
	     "Submits refused because their journal record could not be written.");
	put(bp, "cuzk_journal_refused_submits_total %llu\n",
	    (unsigned long long)atomic_load_explicit(&e->jn_refused, memory_order_relaxed));
}

char *cz_engine_metrics_text(struct cz_engine *e, size_t *len)
{
	static const char *const pst[NPSTATE] = { "done", "failed", "cancelled" };
	struct cz_metrics *m = e->metrics;
	struct cz_stat_snap *s = calloc(1, sizeof(*s));
	struct copy c = { .m = m };
	struct buf b = { 0 };
	char why[200];

	if (!s || !m) {
		free(s);
		return NULL;
	}
	uint64_t t0 = cz_trace_now(), cpu0 = cz_thread_cpu_ns();
	m->src->snapshot(e, s, copy_under, &c);

	head(&b, "cuzk_device_busy_seconds_total", "counter",
	     "Time each device spent computing since the daemon started.");
	for (unsigned d = 0; d < s->ndev; d++)
		put(&b, "cuzk_device_busy_seconds_total{device=\"%u\"} %.6f\n", d, (double)s->dev[d].busy / 1e9);
	head(&b, "cuzk_device_idle_seconds_total", "counter",
	     "Time each device was idle since the daemon started, by the cause named in docs/trace.md.");
	for (unsigned d = 0; d < s->ndev; d++)
		for (int k = 0; k < CZ_STAT_NCAUSE; k++)
			put(&b, "cuzk_device_idle_seconds_total{device=\"%u\",cause=\"%s\"} %.6f\n", d,
			    cause_name(m, k), (double)s->dev[d].idle[k] / 1e9);
	head(&b, "cuzk_device_accounted_seconds", "gauge",
	     "Time the device figures cover: from the engine's start to 105 ms ago.");
	put(&b, "cuzk_device_accounted_seconds %.6f\n", (double)s->window_ns / 1e9);
	head(&b, "cuzk_trace_lost_events_total", "counter",
	     "Trace events overwritten before the live accounting read them (figures then undercount).");
	put(&b, "cuzk_trace_lost_events_total %llu\n", (unsigned long long)s->lost);

	head(&b, "cuzk_partitions_total", "counter", "Partitions that reached a terminal state, by state.");
	for (int k = 0; k < NPSTATE; k++)
		put(&b, "cuzk_partitions_total{state=\"%s\"} %llu\n", pst[k],
		    (unsigned long long)atomic_load_explicit(&m->parts[k], memory_order_relaxed));
	head(&b, "cuzk_jobs_total", "counter", "Jobs that finished, by final state and priority.");
	for (int k = 0; k < NJSTATE; k++)
		for (int p = 0; p < NPRIO; p++)
			put(&b, "cuzk_jobs_total{state=\"%s\",priority=\"%s\"} %llu\n", pst[k], cz_prio_name(p),
			    (unsigned long long)atomic_load_explicit(&m->jobs[k][p], memory_order_relaxed));
	output_metrics(&b, e);
	head(&b, "cuzk_queue_partitions", "gauge", "Partitions submitted and not yet dispatched, by priority.");
	for (int p = 0; p < NPRIO; p++)
		put(&b, "cuzk_queue_partitions{priority=\"%s\"} %lld\n", cz_prio_name(p),
		    (long long)(c.queued[p] > 0 ? c.queued[p] : 0));

	struct cz_budget_stat bs;
	cz_budget_stat(e->budget, &bs);
	head(&b, "cuzk_budget_bytes", "gauge",
	     "The memory budget: its limit, what reservations hold (keys and partition buffers), what keys hold.");
	put(&b, "cuzk_budget_bytes{kind=\"limit\"} %llu\n", (unsigned long long)bs.limit);
	put(&b, "cuzk_budget_bytes{kind=\"reserved\"} %llu\n", (unsigned long long)bs.reserved);
	put(&b, "cuzk_budget_bytes{kind=\"keys\"} %lld\n",
	    (long long)atomic_load_explicit(&m->key_bytes, memory_order_relaxed));
	put(&b, "cuzk_budget_bytes{kind=\"high_water\"} %llu\n", (unsigned long long)bs.high_water);
	head(&b, "cuzk_keys_loaded", "gauge", "Proving keys resident.");
	put(&b, "cuzk_keys_loaded %d\n", atomic_load_explicit(&m->nkeys, memory_order_relaxed));

	head(&b, "cuzk_stage_duration_seconds", "histogram",
	     "Per partition: queue wait (submit to dispatch), synthesis, device compute, finalize; "
	     "witness generation (an input partition's, inside its synthesis).");
	for (int k = 0; k < S__COUNT; k++) {
		char l[40];
		snprintf(l, sizeof(l), "stage=\"%s\"", stage_names[k]);
		hist_put(&b, "cuzk_stage_duration_seconds", l, c.stage[k].n, c.stage[k].sum_ns);
	}
	head(&b, "cuzk_job_latency_seconds", "histogram", "Per finished job: submit to its last partition's end.");
	for (int p = 0; p < NPRIO; p++) {
		uint64_t n[NB + 1];
		char l[40];
		for (int k = 0; k <= NB; k++)
			n[k] = atomic_load_explicit(&m->latency[p].n[k], memory_order_relaxed);
		snprintf(l, sizeof(l), "priority=\"%s\"", cz_prio_name(p));
		hist_put(&b, "cuzk_job_latency_seconds", l, n,
			 atomic_load_explicit(&m->latency[p].sum_ns, memory_order_relaxed));
	}
	devices_put(&b, e);
	head(&b, "cuzk_ready", "gauge", "1 when /readyz answers 200.");
	put(&b, "cuzk_ready %d\n", cz_engine_ready(e, why, sizeof(why)));
	process_put(&b);
	head(&b, "cuzk_scrape_duration_seconds", "histogram",
	     "What building /metrics cost the daemon (before this one), wall and thread CPU; not the client's or the "
	     "listener's waits for a CPU.");
	shist_put(&b, &m->scrape[0], "clock=\"wall\"");
	shist_put(&b, &m->scrape[1], "clock=\"cpu\"");
	shist_add(&m->scrape[0], cz_trace_now() - t0);
	shist_add(&m->scrape[1], cz_thread_cpu_ns() - cpu0);
	free(s);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.n;
	return b.p;
}
