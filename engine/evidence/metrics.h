/* SPDX-License-Identifier: MIT */
/*
 * engine/evidence/metrics.h — the figures /metrics, /readyz and the dashboard serve
 * (engine/evidence/metrics.c; docs/metrics.md lists them).  Private to engine/.
 *
 * Two kinds of writer, each on a path it already owns, so a scrape adds
 * nothing to a consumer's path:
 * - the stat thread (engine/evidence/stat.c), under its own lock, feeds every trace
 *   event it replays and every span of device time it accounts: stage
 *   durations, queue depth per priority, the 60-s device lanes;
 * - the control plane, under the engine lock, counts terminal partitions,
 *   finished jobs and their latency, and key bytes, in relaxed atomics a
 *   scrape reads without any lock.
 */
#ifndef CZ_METRICS_H
#define CZ_METRICS_H

#include "engine/engine.h"              /* CZ_ENGINE_MAX_PARTS */
#include "engine/evidence/trace.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_STAT_NCAUSE 15       /* engine/evidence/stat.c's causes, unattributed last */

struct cz_metrics;

/* One job's accounting, summed over its partitions as each ends: when
 * the first was dispatched, synthesis, device and finalize time, and the
 * device each partition was proved on (-1: none). */
struct cz_job_acct {
	uint64_t t_first_dispatch, synth_ns, device_ns, final_ns;
	/* CPU time (CLOCK_THREAD_CPUTIME_ID of the thread that ran each stage:
	 * the synthesis worker, the consumer, the finalizer; the cpu backend's
	 * pool threads are not in device_cpu_ns). */
	uint64_t synth_cpu_ns, device_cpu_ns, final_cpu_ns;
	uint64_t buf_bytes, buf_peak;   /* partition buffers held now, at most at once */
	uint32_t attempts;              /* device hand-outs over all partitions */
	int8_t dev[CZ_ENGINE_MAX_PARTS];        /* + 1 per partition (0: none); in the job, so
						 * no allocation on the partition's path */
	uint8_t tries[CZ_ENGINE_MAX_PARTS];     /* per partition: its hand-outs to a device
						 * (1, or more after a device process died
						 * with it) */
};
struct cz_job;
struct cz_part;
struct cz_engine;
/* Under the engine lock: p reached its terminal state; j finished (its log
 * line is queued, printed by the stat thread outside any lock).  The JSON
 * object for status and await. */
void cz_metrics_acct_part(struct cz_engine *e, struct cz_part *p);
void cz_metrics_acct_finish(struct cz_engine *e, struct cz_job *j);
json_object *cz_metrics_acct_json(const struct cz_job *j);
/* The same from an accounting alone (the journal's: t_first_dispatch the
 * wait, t_submit 0), so an answer from the journal has the live one's
 * fields and, for the same figures, the same values. */
json_object *cz_metrics_acct_json_of(const struct cz_job_acct *a, uint32_t nparts, uint64_t t_submit);
/* The stat thread, with no lock held: prints queued job log lines. */
void cz_metrics_log_drain(struct cz_metrics *m);

/* What the figures read from the live accounting that feeds them, given
 * by it at create (engine/evidence/stat.c; it lies above, so it hands these down
 * rather than being called by name): the causes' names (CZ_STAT_NCAUSE),
 * and its since-start snapshot for a scrape. */
struct cz_stat_snap;
struct cz_metrics_src {
	const char *const *cause_names;
	void (*snapshot)(struct cz_engine *e, struct cz_stat_snap *out, void (*under)(void *), void *arg);
};
struct cz_metrics *cz_metrics_create(unsigned ndev, const struct cz_metrics_src *src);
void cz_metrics_destroy(struct cz_metrics *m);

/* Under the stat lock: one replayed event; a span of ns of device dev's
 * time starting t_rel ns after the stat's start, busy or idle for cause. */
void cz_metrics_ev(struct cz_metrics *m, const struct cz_trace_ev *ev);
void cz_metrics_span(struct cz_metrics *m, unsigned dev, int busy, int cause, uint64_t t_rel,
		     uint64_t ns);
/* Under the stat lock: the device's last 60 s in 0.2-s slots, up to t_rel. */
json_object *cz_metrics_lanes_json(const struct cz_metrics *m, unsigned dev, uint64_t t_rel);

/* Under the engine lock (engine/pipeline/job.c, engine/control/keys.c); NULL m is a no-op. */
void cz_metrics_part_terminal(struct cz_metrics *m, int part_state);
void cz_metrics_job_finished(struct cz_metrics *m, int job_state, int prio, uint64_t ns);
void cz_metrics_keys(struct cz_metrics *m, int64_t bytes, int count);

/* The since-start device figures a scrape reads, copied under the stat
 * lock by cz_stat_snapshot (engine/evidence/stat.c), which then calls under(arg)
 * under the same lock for what the stat thread feeds metrics. */
struct cz_stat_snap {
	uint64_t window_ns, lost;
	unsigned ndev;
	struct {
		uint64_t busy, idle[CZ_STAT_NCAUSE];
	} dev[32];
};
struct cz_engine;
void cz_stat_snapshot(struct cz_engine *e, struct cz_stat_snap *out, void (*under)(void *), void *arg);

#endif
