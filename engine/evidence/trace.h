/* SPDX-License-Identifier: MIT */
/*
 * engine/evidence/trace.h — timestamped pipeline events, so every idle gap has a
 * measured cause.  Each thread appends to its own buffer (no lock, no shared
 * cache line on the hot path: one relaxed load, a 32-byte store and one
 * release store, ~5 ns); a dump reads all buffers.
 */
#ifndef CZ_TRACE_H
#define CZ_TRACE_H

#include <stdint.h>
#include <stdio.h>

enum cz_ev {
	CZ_EV_SUBMIT, CZ_EV_DISPATCH, CZ_EV_BUDGET_WAIT, CZ_EV_BUDGET_GOT,
	CZ_EV_SYNTH_START, CZ_EV_SYNTH_END, CZ_EV_ENQUEUE, CZ_EV_POP,
	CZ_EV_LOCK_WAIT, CZ_EV_LOCK_GOT, CZ_EV_COMPUTE_START, CZ_EV_COMPUTE_END,
	CZ_EV_FINAL_START, CZ_EV_FINAL_END, CZ_EV_OUTPUT, CZ_EV_IDLE,
	CZ_EV_ASSIGN,           /* order thread: partition given to consumer `unit` */
	CZ_EV_RECLAIM,          /* order thread: taken back from consumer `unit` (swap, or an idle device) */
	/* Added for issue 9's evidence (docs/trace.md says what each means): */
	CZ_EV_DISP_WAIT,        /* dispatcher sleeps; arg = enum cz_disp_wait */
	CZ_EV_DROP,             /* a queued partition leaves without being dispatched */
	CZ_EV_SKIP,             /* a stage passes on a partition of an ended job; arg = stage */
	CZ_EV_SCHED,            /* the thread waited on a run queue: arg = us since its last sample */
	CZ_EV_WARMUP,           /* a device's warm-up proof: arg 1 starts, 0 ends (engine/pipeline/warmup.c) */
	CZ_EV_WITGEN_START,     /* synthesis worker: an input's witness generation (inside synth) */
	CZ_EV_WITGEN_END,
	/* A fleet node's claims (engine/control/fleet_node.c, docs/trace.md): */
	CZ_EV_FLEET_CLAIM,      /* a partition claimed: job = the fleet's seq, part; arg = the claim's latency, us */
	CZ_EV_FLEET_EMPTY,      /* a claim for free consumers found no claimable work: part = how many it asked, arg = us */
	CZ_EV_FLEET_FED,        /* a claimed partition queued here: job = the fleet's seq, part; arg = us since its claim was sent */
	CZ_EV_FLEET_LOST,       /* a held partition's lease was lost before it was proved here: dropped; job, part */
	CZ_EV__COUNT
};

/* Why the dispatcher sleeps (CZ_EV_DISP_WAIT's arg). */
enum cz_disp_wait {
	CZ_DISP_WAIT_JOB,       /* nothing queued */
	CZ_DISP_WAIT_WORKER,    /* no idle synthesis worker */
	CZ_DISP_WAIT_BUDGET,    /* the head does not fit the free budget */
	CZ_DISP_WAIT_INFLIGHT,  /* CZ_PIPE_INFLIGHT partitions already in flight */
};

/* Which stage skipped (CZ_EV_SKIP's arg). */
enum cz_skip_stage { CZ_SKIP_SYNTH, CZ_SKIP_CONSUMER };

struct cz_trace_ev {
	uint64_t ns;            /* CLOCK_MONOTONIC */
	uint64_t job;
	uint32_t part;
	uint16_t type;          /* enum cz_ev */
	uint16_t thread;        /* the buffer's index */
	uint32_t unit;          /* consumer / worker number, or 0 */
	uint32_t arg;           /* per type: submit: priority; pop, compute_start:
				 * device; disp_wait: why; skip: stage; else 0 */
};

/* Registers the calling thread's buffer under a role name ("consumer 0.1"). */
void cz_trace_thread(const char *role, uint32_t unit);
void cz_trace(enum cz_ev type, uint64_t job, uint32_t part);
/* The same, naming another unit than the caller's (the consumer the order
 * thread gives a partition to). */
void cz_trace_unit(enum cz_ev type, uint64_t job, uint32_t part, uint32_t unit);
/* The same with the event's arg (see struct cz_trace_ev). */
void cz_trace_arg(enum cz_ev type, uint64_t job, uint32_t part, uint32_t arg);
uint64_t cz_trace_now(void);
/*
 * Scheduler evidence: the calling thread's time spent runnable but not
 * running (waiting on a run queue: the kernel's schedstat run_delay) since
 * its previous call, written as a CZ_EV_SCHED event when it is at least
 * 1 us, or always with `always` (right after a wake-up, so the reader
 * knows the thread was asleep, not queued, before).  A pread of
 * /proc/thread-self/schedstat on an fd opened at the thread's first call
 * (~0.9 us on the 2-core VM); no heap call.  A kernel without schedstat:
 * a no-op.  docs/trace.md says how the report turns it into "scheduler
 * delay".
 */
int cz_trace_sched(int always);       /* 1 when it wrote an event */
const char *cz_trace_name(enum cz_ev type);
/* JSON lines: first one "thread" record per buffer (its role and unit, so
 * every consumer, and so every device, is named even if its events were
 * overwritten or it ran nothing), then one event each, in time order
 * (chrome: Chrome trace format). */
int cz_trace_dump(FILE *f, int chrome);
/* Drops the events of the buffers no thread owns and the caller's own:
 * between engines in a process that makes several (the fuzzer). */
void cz_trace_forget(void);

/*
 * Incremental reading for live accounting (engine/evidence/stat.c): calls fn on each
 * event not yet seen through cur with ns < horizon, merged across threads
 * in time order.  Lock-free against writers, allocation-free; events a
 * writer overwrote before they were read are skipped and counted in
 * cur->lost.  One reader per cursor; fn NULL skips (to start at "now").
 */
#define CZ_TRACE_MAXBUF 256
struct cz_trace_cursor {
	uint64_t pos[CZ_TRACE_MAXBUF];
	uint64_t lost;
};
typedef void cz_trace_fn(void *arg, const struct cz_trace_ev *ev);
void cz_trace_scan(struct cz_trace_cursor *cur, uint64_t horizon, cz_trace_fn *fn, void *arg);
/* The JSON-lines dump's header alone: a "thread" record per buffer. */
void cz_trace_dump_threads(FILE *f);
/* The role a buffer was registered with ("consumer 0.1"), or "?". */
const char *cz_trace_role(uint16_t thread);

/* Buffers in shared memory (trace.c says why).  cuzkd: the buffer for a
 * thread of this role and unit, made and registered unowned if it does not
 * exist yet; *fd is its memfd (the trace's: do not close).  0, or -1 when
 * the table is (nearly) full: that thread then traces into a private
 * buffer.  A child: maps such an fd and registers the buffer at cuzkd's
 * index, 0 or -1.  After a child died: its buffer may be adopted again. */
int cz_trace_shared(const char *role, uint32_t unit, int *fd);
int cz_trace_shared_attach(int fd);
void cz_trace_shared_orphan(const char *role, uint32_t unit);

#endif
