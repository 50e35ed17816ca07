/* SPDX-License-Identifier: MIT */
/*
 * engine/engine_pvt.h — the engine's shared structures.  Private to engine/:
 * do not include from elsewhere.
 */
#ifndef CZ_ENGINE_PVT_H
#define CZ_ENGINE_PVT_H

#include "alloc/budget.h"
#include "alloc/slab.h"
#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/pipe.h"
#include "engine/trace.h"
#include "gpu/backend.h"
#include "lib/heap.h"
#include "zk/groth16.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

enum cz_part_state {
	CZ_PART_QUEUED, CZ_PART_SYNTHESIZING, CZ_PART_READY, CZ_PART_PROVING,
	CZ_PART_FINALIZING, CZ_PART_DONE, CZ_PART_FAILED, CZ_PART_CANCELLED,
};

enum cz_job_state { CZ_JOB_ACTIVE, CZ_JOB_DONE, CZ_JOB_FAILED, CZ_JOB_CANCELLED };

struct cz_circuit {
	char name[64];
	char path[PATH_MAX];
	struct cz_groth16_key key;
	struct cz_ntt_domain *dom;
	uint64_t key_bytes;     /* charged to the budget while loaded */
	uint64_t part_bytes;    /* one partition's buffers */
	struct cz_slab_cache *cache;  /* of part_bytes objects (backends with input) */
	uint32_t partitions;    /* expected witnesses per job, 0 = any */
	int jobs;               /* active jobs using it (unload waits for 0) */
	struct cz_circuit *next;
};

struct cz_part {
	struct cz_job *job;
	uint32_t idx;
	_Atomic int state;      /* enum cz_part_state; read lock-free by status */
	int wfd;                /* witness (owned; -1 once read) */
	bool dispatched;        /* counted in the engine's inflight */
	struct cz_key key;
	void *mem;              /* one slab object: w, a, b, c, h */
	uint64_t reserved;      /* budget bytes held */
	struct cz_dev_work work;
	struct cz_groth16_proof proof;
	uint32_t olen[2];       /* bytes of its proof.json, public.json in job->out */
	_Atomic int consumer;   /* proving on consumer #, or -1 */
	char err[320];
	uint64_t t_done;
	/* Per-job accounting (engine/metrics.c), each written by the stage's
	 * own thread, read once terminal (under the lock): */
	uint64_t t_dispatch, synth_ns, device_ns, final_ns;
};

/* An element of the engine's queue (lib/heap.h: the key first). */
struct cz_qent {
	struct cz_key key;
	struct cz_part *part;
};

struct cz_job {
	uint64_t seq;
	char id[64];            /* the caller's id, or the sequence number */
	enum cz_prio prio;
	struct cz_circuit *circ;     /* NULL once unloaded (only finished jobs) */
	char circ_name[64];
	uint32_t nparts, nterminal, nfailed;
	uint32_t in_heap;       /* partitions still referenced by the queued heap */
	struct cz_part *parts;  /* NULL once finished and compacted */
	uint8_t *final;         /* partition states after compaction */
	char *out;              /* output files, rendered by the finalizer (engine/output.c) */
	size_t out_pub;         /* bytes of a public.json slot in out */
	bool writing;           /* queued to or held by the output writer: not compacted */
	struct cz_job *out_next;     /* the writer's queue */
	_Atomic int state;      /* enum cz_job_state; written under the lock, read by consumers */
	char err[400];
	uint64_t t_submit, t_finish;
	struct cz_job_acct acct;        /* summed as partitions end (engine/metrics.c) */
	struct cz_job *next;
};

struct cz_stat;

struct cz_consumer {
	struct cz_engine *e;
	unsigned idx, dev;
	pthread_t tid;
	_Atomic int busy;
	_Atomic uint64_t cur_job;
	_Atomic uint32_t cur_part;
	_Atomic uint64_t busy_ns, proved;
};

/* A device and its lock (engine/consume.c: whoever holds it starts the
 * lowest key held on the device, so the lock need not be fair). */
struct cz_devslot {
	struct cz_device *dev;
	_Atomic uint32_t held;          /* 1 while a consumer holds the device */
	struct cz_ring_bell bell;       /* waiters sleep here (zeroed: symmetric barriers) */
};

struct cz_engine {
	struct cz_engine_config cfg;
	const struct cz_backend *be;
	struct cz_backend_opts bopts;   /* from cfg: every device's and stand_in's options */
	char state_dir[PATH_MAX];

	/* The control plane: jobs, circuits, the dispatch queue, the budget. */
	pthread_mutex_t lock;
	pthread_cond_t dispatch_cv;     /* queue, budget or workers changed */
	pthread_cond_t synth_cv;        /* work handed to synthesis */
	pthread_cond_t job_cv;          /* a job reached a terminal state */
	struct cz_heap queued;          /* of struct cz_qent: partitions not yet dispatched */
	struct cz_part **handoff;       /* dispatched, waiting for a worker (FIFO) */
	unsigned handoff_n, handoff_head, synth_idle;
	struct cz_budget *budget;       /* keys and partition buffers */
	struct cz_slab_arena *arena;    /* partition buffers (computing backends) */
	uint64_t budget_waits;          /* times the dispatcher waited for budget */
	unsigned inflight;              /* dispatched, not yet terminal */
	_Atomic unsigned synth_ids;     /* hands out synthesis worker numbers */
	struct cz_circuit *circuits;
	struct cz_job *jobs;
	uint64_t next_seq;
	uint64_t jobs_done, jobs_failed, jobs_cancelled, parts_done;
	bool stopping;

	/* Synthesis → order → consumers → finalizer: rings (engine/pipe.c). */
	struct cz_pipe pipe;

	struct cz_output *output;       /* the output writer (engine/output.c) */

	pthread_t dispatcher, finalizer, *synth;
	unsigned nsynth, ncons, ndev;
	struct cz_consumer *cons;
	struct cz_devslot *devs;
	struct cz_stat *stat;           /* live accounting (engine/stat.c) */
	struct cz_metrics *metrics;     /* made and freed with stat (engine/metrics.c) */
};

/* Ring owner ids (1..CZ_RING_OWNER_MAX): synthesis workers 1.., consumers
 * from here; cz_engine_config_check's caps keep both kinds in range. */
#define CZ_OWNER_CONSUMER 2048u
#define CZ_OWNER_ORDER 2047u      /* the order thread, taking back from out rings */
_Static_assert(CZ_ENGINE_MAX_SYNTH_WORKERS < CZ_OWNER_ORDER, "the order thread's id is no worker's");
_Static_assert(CZ_ENGINE_MAX_SYNTH_WORKERS < CZ_OWNER_CONSUMER,
	       "synthesis worker ids stay below the consumers'");
_Static_assert(CZ_OWNER_CONSUMER + CZ_ENGINE_MAX_DEVICES * CZ_ENGINE_MAX_CONSUMERS_PER_DEV - 1 <=
	       CZ_RING_OWNER_MAX, "consumer ids fit the ring's owner field");

/* engine/dispatch.c */
void *cz_dispatch_main(void *e);
void *cz_dispatch_synth_main(void *e);
/* engine/consume.c */
void *cz_consume_main(void *c);
void cz_devslot_close(struct cz_devslot *d);     /* waiters for the device give up */
/* engine/stat.c: started once devices and consumers are counted, before
 * any pipeline thread; stopped after they are joined. */
int cz_stat_start(struct cz_engine *e);
void cz_stat_stop(struct cz_engine *e);
/* Per device: since_start and last_10s {window_ms, busy_ms, idle_ms, duty,
 * idle_by_cause_ms, unattributed_ms}; *lost = trace events it missed. */
json_object *cz_stat_devices_json(struct cz_engine *e, uint64_t *lost);
/* engine/finalize.c */
void *cz_finalize_main(void *e);
/* engine/output.c */
int cz_output_start(struct cz_engine *e, char *err, size_t cap);
void cz_output_stop(struct cz_engine *e);       /* writes what is queued, then joins */
int cz_output_job_init(struct cz_job *j);       /* at submit: the job's output buffer */
/* Finalizer: scratch for one partition's public inputs (npub values), then
 * partition p's files into the job's buffer; 0 or -1 with p->err. */
cz_fr *cz_output_pub(struct cz_job *j);
int cz_output_render(struct cz_part *p, const cz_fr *pub);
void cz_output_queue(struct cz_engine *e, struct cz_job *j);   /* every partition done */
/* engine/job.c */
void cz_engine_budget_release_locked(struct cz_engine *e, uint64_t bytes);
void cz_part_set(struct cz_part *p, enum cz_part_state s);
void cz_part_wipe(struct cz_part *p);   /* without the lock, before the terminal step */
void cz_part_fail(struct cz_engine *e, struct cz_part *p, const char *why);   /* without the lock */
struct cz_part *cz_engine_part_lookup(void *e, uint64_t job_seq, uint32_t idx);
/* Tests only: called with each partition buffer as it goes back to its
 * cache (wiped by then), so a test can look at it after the put. */
extern void (*cz_engine_test_put_hook)(const void *mem, size_t bytes);
void cz_job_part_terminal_locked(struct cz_engine *e, struct cz_part *p);
void cz_job_finished_locked(struct cz_engine *e, struct cz_job *j);
void cz_job_compact_locked(struct cz_job *j);
void cz_job_free(struct cz_job *j);
int cz_job_part_state(const struct cz_job *j, uint32_t i);
const char *cz_part_state_name(int s);
/* engine/keys.c */
struct cz_circuit *cz_circuit_find(struct cz_engine *e, const char *name);
json_object *cz_req_load(struct cz_engine *e, json_object *req);
json_object *cz_req_unload(struct cz_engine *e, json_object *req);
json_object *cz_req_circuits(struct cz_engine *e);
void cz_circuits_free(struct cz_engine *e);
/* engine/fields.c: NULL (absent or good) or the error response naming k. */
json_object *cz_field_str(json_object *req, const char *k, bool required, const char **out);
json_object *cz_field_bool(json_object *req, const char *k, bool *out);
json_object *cz_field_uint(json_object *req, const char *k, uint64_t max, uint64_t *out);
json_object *cz_field_seconds(json_object *req, const char *k, double max, double *out);
/* engine/requests.c */
json_object *cz_resp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
json_object *cz_resp_ok(void);
json_object *cz_req_submit(struct cz_engine *e, json_object *req, int *fds, int nfds);
json_object *cz_req_await(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer);
json_object *cz_req_cancel(struct cz_engine *e, json_object *req);
json_object *cz_req_status(struct cz_engine *e);
json_object *cz_req_trace(struct cz_engine *e, json_object *req, int *fds, int nfds,
			  struct cz_ctl_peer *peer);
/* engine/tracesel.c: trace with "job", "since" or "follow"; owns fd. */
json_object *cz_req_trace_select(struct cz_engine *e, json_object *req, int fd, struct cz_ctl_peer *peer);

#endif
