/* SPDX-License-Identifier: MIT */
/*
 * engine/engine_pvt.h — the structures every room of engine/ shares: the
 * engine, its jobs, partitions, circuits and consumers, and the prototypes
 * each room offers the rooms above it (each block names its file).  It
 * lies in engine/ itself, the hall: every room may include it
 * (tools/layers.txt); outside engine/ only selftests/ do.
 */
#ifndef CZ_ENGINE_PVT_H
#define CZ_ENGINE_PVT_H

#include "alloc/budget.h"
#include "alloc/slab.h"
#include "curves/curves.h"
#include "engine/device/devproc.h"
#include "engine/engine.h"
#include "engine/durable/journal.h"
#include "engine/evidence/metrics.h"
#include "engine/pipeline/pipe.h"
#include "engine/place/place.h"
#include "engine/evidence/trace.h"
#include "gpu/backend.h"
#include "lib/clock.h"
#include "lib/heap.h"
#include "lib/lock.h"
#include "zk/groth16/groth16.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdbool.h>
#include <sys/types.h>

enum cz_part_state {
	CZ_PART_QUEUED, CZ_PART_SYNTHESIZING, CZ_PART_READY, CZ_PART_PROVING,
	CZ_PART_FINALIZING, CZ_PART_DONE, CZ_PART_FAILED, CZ_PART_CANCELLED,
};

enum cz_job_state { CZ_JOB_ACTIVE, CZ_JOB_DONE, CZ_JOB_FAILED, CZ_JOB_CANCELLED };

struct cz_circuit {
	char name[64];
	char path[PATH_MAX];
	/* SHA-256 over the .zkey's sections 1-3 (header, Groth16 header with
	 * the verification key, IC): which key, journaled with each job
	 * (key_digest), shown by circuits; false: not read (a malformed file) */
	bool has_kdigest;
	uint8_t kdigest[CZ_JOURNAL_DIGEST];
	/* The key's curve: its ops (curves/curves.h) load, share, size and
	 * prove the key; key.nvars, key.npub and key.log2n read any curve's. */
	enum cz_curve curve;
	union cz_curve_key key;         /* its arrays in kreg (curves/shkey.c) */
	struct cz_region kreg;
	bool kpinned;                   /* kreg pinned by the backend (pin_host) */
	void *dom;                      /* the key's NTT domain, of its curve */
	uint64_t key_bytes;     /* charged to the budget while loaded */
	uint64_t part_bytes;    /* one partition's buffers */
	uint64_t tables_bytes;  /* its fixed-base tables (engine/control/tables.c), in key_bytes */
	uint64_t tables_resv;   /* of key_bytes, reserved before the key (the tables, at plan) */
	uint64_t tables_bases;  /* bases the tables being built cover (progress) */
	double tables_ms;       /* how long they took to build */
	struct cz_slab_cache *cache;  /* of part_bytes objects (backends with input) */
	/* The same in each node's arena (engine/place/numa.c): node_cache[k] is
	 * arena k's, node_cache[0] == cache. */
	struct cz_slab_cache *node_cache[CZ_PLACE_MAX_NODES];
	uint32_t partitions;    /* expected witnesses per job, 0 = any */
	uint32_t key_id;        /* its id in the pipe's resident keys */
	int jobs;               /* active jobs using it (unload waits for 0) */
	/* Its witness program (load's "wasm" or "witness_lib"; NULL: none):
	 * input partitions run it in the synthesis workers
	 * (engine/pipeline/witgen.c), worker w on winst[w], made at its first
	 * input partition and freed with the circuit (no job uses it then). */
	struct cz_witness_prog *wprog;
	struct cz_witness_inst **winst; /* nsynth entries */
	uint64_t wmem_bytes;            /* an instance's wasm memory: charged per input partition
					   (engine/pipeline/witgen.c's charge_of; under e->lock) */
	uint64_t wmem_limit;            /* its bound: the memory as instantiated (circom 0.5: 2 GiB) */
	uint64_t wmem_peak;             /* the most a run touched (measured, or cached with the
					   build: <state>/witness/<sha>.peak); 0: not yet measured */
	double wb_translate_s, wb_compile_s, wb_link_s;  /* where its load's time went */
	uint64_t wb_c_bytes;
	int wb_built;                   /* 1: built by this load; 0: the cached library */
	unsigned nwinst;
	char wasm[PATH_MAX];    /* the .wasm or library it was loaded from */
	struct cz_circuit *next;
};

struct cz_part {
	struct cz_job *job;
	uint32_t idx;
	_Atomic int state;      /* enum cz_part_state; read lock-free by status */
	int wfd;                /* witness (owned; -1 once read) */
	bool input;             /* its spooled file is a circom input (JSON): witness generated */
	bool dispatched;        /* counted in the engine's inflight */
	struct cz_key key;
	void *mem;              /* one slab object: w, a, b, c, h */
	struct cz_slab_cache *cache;    /* mem's, to put it back */
	uint64_t reserved;      /* budget bytes held */
	struct cz_dev_work work;
	union cz_dev_proof proof;       /* of the job's curve */
	uint32_t olen[2];       /* bytes of its proof.json, public.json in job->out */
	_Atomic int consumer;   /* proved on consumer # (set by the finalizer), or -1 */
	_Atomic int slot;       /* its slot in the pipe's partition table, or -1 */
	int node;               /* NUMA node it was synthesized on, -1 unplaced */
	unsigned disp_node;     /* the dispatch node chosen for it (engine/pipeline/dispatch.c) */
	_Atomic unsigned out_node;   /* disp_node + 1 while counted in node_out, else 0 */
	char err[320];
	uint64_t t_done;
	/* Per-job accounting (engine/evidence/metrics.c), each written by the stage's
	 * own thread, read once terminal (under the lock): */
	uint64_t t_dispatch, synth_ns, device_ns, final_ns;
	uint64_t synth_cpu_ns, device_cpu_ns, final_cpu_ns;    /* CLOCK_THREAD_CPUTIME_ID */
	_Atomic uint32_t attempts;      /* hand-outs to a device: 1, +1 per retry (precover.c) */
};

/* A partition's state: the one store every stage makes (status reads it
 * lock-free), with the partition, so no stage calls another's file for it. */
static inline void cz_part_set(struct cz_part *p, enum cz_part_state s)
{
	atomic_store_explicit(&p->state, (int)s, memory_order_release);
}

/* An element of the engine's queue (lib/heap.h: the key first). */
struct cz_qent {
	struct cz_key key;
	struct cz_part *part;
};

struct cz_job {
	uint64_t seq;
	char id[64];            /* the caller's id, or "@<seq>" (docs/protocol.md) */
	enum cz_prio prio;
	long owner;             /* the submitting uid (engine/control/access.c) */
	struct cz_circuit *circ;     /* NULL once unloaded (only finished jobs) */
	enum cz_curve curve;         /* circ's, kept past it (the output writer reads it) */
	char circ_name[64];
	uint32_t nparts, nterminal, nfailed;
	uint32_t in_heap;       /* partitions still referenced by the queued heap */
	struct cz_part *parts;  /* NULL once finished and compacted */
	uint8_t *final;         /* partition states after compaction */
	char *out;              /* output files, rendered by the finalizer (engine/durable/output.c) */
	size_t out_pub;         /* bytes of a public.json slot in out */
	bool writing;           /* queued to or held by the output writer: not compacted */
	struct cz_job *out_next;     /* the writer's queue */
	_Atomic int state;      /* enum cz_job_state; written under the lock, read by consumers */
	char err[400];
	uint64_t t_submit, t_finish;
	struct cz_job_acct acct;        /* summed as partitions end (engine/evidence/metrics.c) */
	/* Durability (engine/durable/journal.c, engine/control/recover.c): */
	bool accepting;         /* spooled, its submit record not yet durable: not queued */
	bool waiting_key;       /* resumed at start; queued once its circuit is loaded */
	bool has_kdigest;       /* the key it was accepted with (struct cz_circuit's kdigest) */
	uint8_t kdigest[CZ_JOURNAL_DIGEST];
	bool has_digest;        /* a caller's id: digest is its witnesses' (idempotent submit) */
	uint8_t digest[CZ_JOURNAL_DIGEST];
	uint64_t end_ticket;    /* its end record's journal ticket; answered once durable */
	uint64_t out_disk;      /* admission: disk a partition's proof files take (engine/pipeline/admit.c) */
	bool acct_late;         /* its end was recorded with partitions running (a cancel):
				 * its accounting follows once the last one ends */
	/* Output retry (engine/durable/output.c): its proofs could not be
	 * written for want of space or an I/O error; it waits in the writer,
	 * its proofs in out and its witnesses in the spool.  Written by the
	 * writer under the engine lock. */
	uint32_t out_tries;     /* failed attempts so far (0: none failed) */
	uint64_t out_first_ns, out_next_ns;    /* the first failure, the next attempt (cz_trace_now) */
	char out_err[300];      /* the last attempt's cause */
	struct cz_job *next;
};

struct cz_stat;

/* A finalizer thread (engine/pipeline/finalize.c): its index names its ring owner
 * id, its trace unit and its thread ("cz-final", "cz-final1", ...). */
struct cz_finalizer {
	struct cz_engine *e;
	unsigned idx;
	pthread_t tid;
	bool started;
};

/* A consumer's context: only what a consumer in another process would
 * have too (the pipe's mapping, its backend and device handle, the
 * buffer arena's base in this process); its counters and state are its
 * line in the pipe's region (struct cz_pipe_cons). */
struct cz_consumer {
	struct cz_pipe *pipe;
	const struct cz_backend *be;
	struct cz_device *hw;
	void *buf_base[CZ_PLACE_MAX_NODES];  /* each arena's mapping (off[0]'s top byte), or NULL */
	const struct cz_place *place;   /* binds it to its device's node (thread isolation), or NULL */
	unsigned idx, dev;
	int trace_fd;                   /* its trace buffer's memfd, or -1 (cuzkd's) */
	pthread_t tid;
};

/* A device as cuzkd holds it; its lock (held + bell) is the device's line
 * in the pipe's region (engine/pipeline/consume.c). */
struct cz_devslot {
	struct cz_device *dev;
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
	/* Dispatched, waiting for a worker: one FIFO of nsynth entries per
	 * dispatch node (handoff + k * nsynth), node k's head and count, idle
	 * workers per node and in all (engine/pipeline/dispatch.c). */
	struct cz_part **handoff;
	unsigned handoff_n[CZ_PLACE_MAX_NODES], handoff_head[CZ_PLACE_MAX_NODES];
	unsigned node_idle[CZ_PLACE_MAX_NODES], synth_idle;
	unsigned nnode;                 /* dispatch nodes: the plan's arenas, or 1 */
	unsigned node_workers[CZ_PLACE_MAX_NODES];  /* synthesis workers per node */
	bool node_wait;                 /* the dispatcher waits for a worker of a busy node */
	uint64_t synth_avg_ns;          /* mean synthesis time, the last ~8 (under the lock) */
	/* Per dispatch node: partitions dispatched there and not yet back
	 * from a device (the finalizer takes them off), and the budget bytes
	 * they hold (under the lock). */
	_Atomic unsigned node_out[CZ_PLACE_MAX_NODES];
	uint64_t node_bytes[CZ_PLACE_MAX_NODES];
	struct cz_budget *budget;       /* keys and partition buffers */
	struct cz_slab_arena *arena;    /* partition buffers (computing backends) */
	/* One arena per node of the plan (engine/place/numa.c): node_arena[0] == arena. */
	struct cz_slab_arena *node_arena[CZ_PLACE_MAX_NODES];
	unsigned narena;
	uint64_t budget_waits;          /* times the dispatcher waited for budget */
	uint64_t budget_skips;          /* partitions dispatched ahead of a head waiting for budget */
	/* Admission (engine/pipeline/admit.c): */
	uint64_t keys_bytes;            /* budget held by loaded keys */
	uint64_t parts_open;            /* accepted partitions not yet terminal, and the places
					 * submits still being spooled reserved (parts_accepting) */
	uint64_t parts_accepting;       /* of those: reserved by submits not yet answered */
	uint64_t out_open;              /* disk their proofs will take (j->out_disk each) */
	uint64_t max_queued;            /* --max-queued-partitions (derived when 0) */
	uint64_t queue_refused;         /* submits answered "queue full" */
	uint64_t done_ewma_ns;          /* smoothed gap between finished partitions */
	uint64_t last_done_ns;
	/* Spool space (engine/pipeline/admit.c): spool_mu is held over the fstatvfs of
	 * the spool and the sum of bytes reserved by submits still copying,
	 * never with the engine lock; the reported figures are atomics, so
	 * status never waits on it. */
	pthread_mutex_t spool_mu;
	uint64_t spool_inflight;
	_Atomic uint64_t spool_free_seen, spool_reserve_seen, spool_inflight_seen;
	_Atomic uint64_t spool_refused;
	unsigned inflight;              /* dispatched, not yet terminal */
	_Atomic unsigned synth_ids;     /* hands out synthesis worker numbers */
	struct cz_circuit *circuits;
	uint8_t key_used[CZ_PIPE_KEYS]; /* the circuits' key ids */
	struct cz_job *jobs;
	uint64_t next_seq;
	uint64_t jobs_done, jobs_failed, jobs_cancelled, parts_done;
	_Atomic uint64_t out_retries;   /* output attempts that failed and will be tried again */
	_Atomic unsigned out_waiting;   /* jobs waiting in output-retry now */
	/* The journal's failed writes, copied after each commit (cz_recover_on_commit) for
	 * the metrics, which may not call the journal (tools/layers.txt). */
	_Atomic unsigned jn_refusing;   /* 1 while its last commit failed */
	_Atomic uint64_t jn_failed_commits, jn_refused;
	bool stopping;

	/* Synthesis → order → consumers → finalizer: rings (engine/pipeline/pipe.c). */
	struct cz_pipe pipe;

	struct cz_output *output;       /* the output writer (engine/durable/output.c) */

	pthread_t dispatcher, *synth, warmup;
	bool warmup_started;
	unsigned nsynth, ncons, ndev, nfinal;
	struct cz_finalizer final[CZ_ENGINE_MAX_FINALIZERS];
	struct cz_consumer *cons;
	struct cz_devslot *devs;
	struct cz_stat *stat;           /* live accounting (engine/evidence/stat.c) */

	/* --isolation process (engine/device/devproc.c): */
	struct cz_devproc *dp;          /* ndev, or NULL in thread isolation */
	char dp_exe[PATH_MAX];
	int dp_wake[2];
	pthread_t dp_super;
	bool dp_super_up;
	_Atomic int dp_stop;
	struct cz_watchdog *wd;         /* the device watchdog (engine/device/watchdog.c), or NULL */
	/* Placement (engine/place/numa.c): the plan, partitions finished per arena
	 * node by its devices, and those synthesized on another node. */
	struct cz_place *place;
	_Atomic uint64_t node_parts[CZ_PLACE_MAX_NODES];
	_Atomic uint64_t cross_node;
	struct cz_metrics *metrics;     /* made and freed with stat (engine/evidence/metrics.c) */
	struct cz_journal *jn;          /* the job journal (engine/durable/journal.c) */
	int spoolfd;                    /* DIR/spool: the jobs' witnesses (engine/durable/spool.c) */
	int statelock;                  /* DIR/cuzkd.lock, held for the engine's life (engine/durable/statelock.c) */
	struct cz_fnode *fleet;         /* --fleet: this node of the fleet (engine/control/fleet_node.c), or NULL */
	struct cz_fleet_stale *fleet_stale;     /* the journal's fleet partitions, dropped at start (cz_engine_fleet_drop_stale) */
	uint32_t nfleet_stale;                  /* ... for the join to release in the database */
	/* Witness programs and fixed-base tables being built by loads in
	 * flight (engine/control/witload.c, tables.c), under lock: `circuits`
	 * names each one's stage. */
	struct cz_wbuild_note {
		char circuit[64];
		const char *stage;      /* a string literal; NULL: the slot is free */
		struct timespec t0, st0;        /* the load's start, the stage's */
		int pct;                /* stage "tables": percent of the bases done; else -1 */
	} wbuilds[8];
	_Atomic int fleet_wake;         /* its claim thread's eventfd + 1 (0: none): a journal commit wakes it */
};

/* p is off its dispatch node's devices' queue (back from a device, or
 * ended): the node's count the dispatcher balances by (engine/pipeline/dispatch.c)
 * drops once.  With the counts, so the finalizer and the job's end need
 * nothing of the dispatcher. */
static inline void cz_dispatch_back(struct cz_engine *e, struct cz_part *p)
{
	unsigned k = atomic_exchange(&p->out_node, 0);
	if (k)
		atomic_fetch_sub(&e->node_out[k - 1], 1);
}

/* Ring owner ids (1..CZ_RING_OWNER_MAX): synthesis workers 1.., consumers
 * from here; cz_engine_config_check's caps keep both kinds in range. */
#define CZ_OWNER_CONSUMER 2048u
#define CZ_OWNER_ORDER 2047u      /* the order thread, taking back from out rings */
#define CZ_OWNER_FINAL 2046u      /* finalizer 0, giving slots back */
/* Finalizer k's owner id: 2046 for k = 0 (as before there were several),
 * then 2029, 2028, ... (above every synthesis worker's, below the rest). */
#define CZ_OWNER_FINAL_K(k) ((k) ? 2030u - (k) : CZ_OWNER_FINAL)
#define CZ_OWNER_SUPER 2045u      /* the device supervisor, handing partitions out again */
_Static_assert(CZ_ENGINE_MAX_SYNTH_WORKERS < CZ_OWNER_SUPER, "the order thread's and finalizer's ids are no worker's");
_Static_assert(CZ_ENGINE_MAX_SYNTH_WORKERS < 2030u - CZ_ENGINE_MAX_FINALIZERS, "finalizers' ids are no worker's");
_Static_assert(CZ_ENGINE_MAX_SYNTH_WORKERS < CZ_OWNER_CONSUMER,
	       "synthesis worker ids stay below the consumers'");
_Static_assert(CZ_OWNER_CONSUMER + CZ_ENGINE_MAX_DEVICES * CZ_ENGINE_MAX_CONSUMERS_PER_DEV - 1 <=
	       CZ_RING_OWNER_MAX, "consumer ids fit the ring's owner field");

/* engine/device/watchdog.c: started before any pipeline thread (the
 * stage samples first), stopped before the pipe; freed after the
 * finalizers are joined.  0 or -errno. */
int cz_watchdog_start(struct cz_engine *e);
void cz_watchdog_stop(struct cz_engine *e);
void cz_watchdog_free(struct cz_engine *e);
/* engine/control/ops.c: the control protocol's ops, one row each (the
 * access rules, the routing and the known ops' list all read it). */
#define CZ_OP_MAX 32
struct cz_op {
	const char *name;
	const char *const fields[8];    /* the fields it may carry, "op" aside; NULL-ended: one more than the longest row */
	bool admin;                     /* admins only */
	bool owns_fds;                  /* the handler keeps or closes the descriptors */
	json_object *(*handler)(struct cz_engine *e, json_object *req, int *fds, int nfds,
				struct cz_ctl_peer *peer);
};
const struct cz_op *cz_op_find(const char *name);      /* NULL: unknown */
json_object *cz_op_unknown(const char *name);          /* "unknown op ... (known: ...)" */
/* engine/control/access.c: NULL when peer may make the request (and it has only
 * op's fields), else the error; the owner a job gets, the uid status
 * shows the jobs of (-1: all). */
json_object *cz_access_request(struct cz_engine *e, const struct cz_op *op, json_object *req,
			       const struct cz_ctl_peer *peer);
long cz_access_owner(const struct cz_ctl_peer *peer);
long cz_access_view(const struct cz_ctl_peer *peer);
/* engine/pipeline/admit.c: the default --max-queued-partitions; at submit (locked)
 * NULL or the error for n partitions of c ("queue full" with a retry hint,
 * or a partition that can never fit); the dispatcher's never-fit test;
 * each partition's end. */
uint64_t cz_admit_default(const struct cz_engine *e, char *why, size_t cap);
json_object *cz_admit_locked(struct cz_engine *e, const struct cz_circuit *c, uint32_t n, bool inputs);
uint64_t cz_admit_out_disk(const struct cz_circuit *c);
void cz_admit_release_locked(struct cz_engine *e, uint32_t n, uint64_t out_disk);
void cz_admit_accepted_locked(struct cz_engine *e, uint32_t n);
void cz_admit_recovered(struct cz_engine *e, struct cz_job *j);
json_object *cz_admit_spool(struct cz_engine *e, uint64_t out_disk, uint32_t n,
			    const off_t *size, uint64_t *held);
void cz_admit_spool_done(struct cz_engine *e, uint64_t *held);
json_object *cz_admit_spool_nospace(struct cz_engine *e, uint32_t k, uint32_t n, const off_t *size,
				    const char *what);
void cz_admit_spool_log(struct cz_engine *e);
bool cz_admit_never_fits_locked(const struct cz_engine *e, uint64_t part_bytes);
void cz_admit_part_end_locked(struct cz_engine *e, const struct cz_part *p);
json_object *cz_admit_status_locked(const struct cz_engine *e);
/* engine/pipeline/dispatch.c */
void *cz_dispatch_main(void *e);
void *cz_dispatch_synth_main(void *e);
int cz_dispatch_redo(void *e, struct cz_part *p);     /* a, b, c again from w (pipe.h) */
void cz_dispatch_nodes_init(struct cz_engine *e);       /* before the workers start */
/* engine/pipeline/consume.c */
void *cz_consume_main(void *c);
/* engine/pipeline/warmup.c: one verified proof of a small built-in circuit on the
 * device, by its first consumer before it serves.  0, or -1 with why. */
int cz_warmup_device(const struct cz_backend *be, struct cz_device *hw, char *why, size_t cap);
/* Starts making the warm-up key in a thread (joined by the caller), so it
 * overlaps loading keys; 0 or -1. */
int cz_warmup_prepare(pthread_t *tid);
/* engine/evidence/stat.c: started once devices and consumers are counted, before
 * any pipeline thread; stopped after they are joined. */
int cz_stat_start(struct cz_engine *e);
void cz_stat_stop(struct cz_engine *e);
/* Per device: since_start and last_10s {window_ms, busy_ms, idle_ms, duty,
 * idle_by_cause_ms, unattributed_ms}; *lost = trace events it missed. */
json_object *cz_stat_devices_json(struct cz_engine *e, uint64_t *lost);
/* engine/place/numa.c: binding threads to the plan, its figures for status */
void cz_numa_log_hugepages(const struct cz_place *p);
#define CZ_NUMA_PLACEMENT_ENV "CUZK_DEVICE_PLACEMENT"
void cz_numa_devproc_env(const struct cz_engine *e);    /* before any engine thread */
void cz_numa_child_place(unsigned dev);                 /* a device child, first thing */
uint64_t cz_numa_key_nodes(const struct cz_engine *e);  /* nodes a key is interleaved over */
void cz_numa_bind_worker(struct cz_engine *e, unsigned w);      /* 0-based */
void cz_numa_bind_device(struct cz_engine *e, unsigned dev);    /* a consumer of dev */
struct cz_device *cz_numa_open_device(struct cz_engine *e, unsigned i, char *err, size_t cap);
void cz_numa_count(struct cz_engine *e, const struct cz_part *p, unsigned dev);   /* finalizer */
json_object *cz_numa_status_json(struct cz_engine *e);          /* NULL without a plan */
void cz_numa_pipe_nodes(struct cz_engine *e);                    /* after cz_pipe_create */
int cz_numa_arenas_create(struct cz_engine *e);                 /* 0 or -ENOMEM */
void cz_numa_arenas_destroy(struct cz_engine *e);
int cz_numa_caches_create(struct cz_engine *e, struct cz_circuit *c);   /* 0 or -ENOMEM */
void cz_numa_caches_destroy(struct cz_circuit *c);
/* A buffer for p from arena `arena` (the worker's), else from any other;
 * sets p->mem, p->cache, p->node.  NULL when every arena is full. */
void *cz_numa_buffer_get(struct cz_engine *e, struct cz_part *p, int arena);
/* The descriptor's buffer offset: the arena in the top byte. */
uint64_t cz_numa_buffer_off(const struct cz_engine *e, const struct cz_part *p);
/* engine/pipeline/finalize.c */
void *cz_finalize_main(void *e);
/* engine/durable/output.c */
/* finished_locked: a job's end once its files are written or failed
 * (cz_job_finished_locked), called under the engine lock. */
int cz_output_start(struct cz_engine *e, void (*finished_locked)(struct cz_engine *, struct cz_job *),
		    char *err, size_t cap);
void cz_output_stop(struct cz_engine *e);       /* writes what is queued, then joins */
int cz_output_job_init(struct cz_job *j);       /* at submit: the job's output buffer */
/* A published job directory's files as one JSON document (malloc'd, *len
 * bytes), for await's passed descriptor; NULL with err.  No lock held. */
char *cz_output_bundle(const char *dir, const char *id, size_t *len, char *err, size_t cap);
/* Finalizer: scratch for one partition's public inputs (npub values), then
 * partition p's files into the job's buffer; 0 or -1 with p->err. */
/* npub + 1 scalars of the job's curve's Fr (32 bytes each), partition
 * p's own. */
void *cz_output_pub(struct cz_part *p);
int cz_output_render(struct cz_part *p, const void *pub);
void cz_output_queue(struct cz_engine *e, struct cz_job *j);   /* every partition done */
/* A job waiting in output-retry was cancelled: the writer ends it now
 * (called without the engine lock). */
void cz_output_kick(struct cz_engine *e);
/* engine/pipeline/job.c */
void cz_engine_budget_release_locked(struct cz_engine *e, uint64_t bytes);
void cz_part_wipe(struct cz_part *p);   /* without the lock, before the terminal step */
void cz_part_fail(struct cz_engine *e, struct cz_part *p, const char *why);   /* without the lock */
struct cz_part *cz_engine_part_lookup(void *e, uint64_t job_seq, uint32_t idx);
/* Tests only: called with each partition buffer as it goes back to its
 * cache (wiped by then), so a test can look at it after the put. */
extern void (*cz_engine_test_put_hook)(const void *mem, size_t bytes);
void cz_job_part_terminal_locked(struct cz_engine *e, struct cz_part *p);
void cz_job_finished_locked(struct cz_engine *e, struct cz_job *j);
/* Each of j's partitions still queued gets its key and goes on e->queued
 * (trace: submit; one that cannot is failed): a submit's last step, and a
 * resumed job's (engine/control/recover.c). */
void cz_job_queue_locked(struct cz_engine *e, struct cz_job *j);
/* Every waiter on a job's end (await) looks again: takes the lock. */
void cz_job_wake(struct cz_engine *e);
void cz_job_compact_locked(struct cz_engine *e, struct cz_job *j);
void cz_job_free(struct cz_job *j);
int cz_job_part_state(const struct cz_job *j, uint32_t i);
const char *cz_part_state_name(int s);
/* engine/control/recover.c: at start, the journal's unfinished jobs become jobs
 * again (waiting for their circuit), the spool and proofs/ are cleaned;
 * once a circuit is loaded its resumed jobs are queued. */
int cz_recover_start(struct cz_engine *e, char *err, size_t cap);
/* engine/fields.c: an error naming the first string field of req with a
 * NUL inside (json-c keeps it; every C reader would cut it short), or NULL. */
json_object *cz_fields_nul_scan(json_object *req);
/* engine/control/idcheck.c: NULL when id is a valid job id (docs/protocol.md, Job
 * ids), else why not; s (n bytes) printable, every other byte escaped. */
const char *cz_id_check(const char *id);
void cz_str_shown(char *out, size_t cap, const char *s, size_t n);
/* engine/access.c: a submit by uid owner of an id held by uid holder's job,
 * decided under the engine lock with the holder found (the request-time
 * check in cz_access_request cannot see a job accepted meanwhile: two uids
 * racing for one fresh id).  NULL: owner may have it (its own, or root or
 * cuzkd's own uid asking), else the refusal. */
json_object *cz_access_id_owner(const char *id, long holder, long owner);
/* engine/durable/statelock.c: DIR/cuzkd.lock taken (its descriptor), or -1 with
 * err naming the directory and the holder's pid; released by closing. */
int cz_statelock_take(const char *state_dir, char *err, size_t cap);
void cz_statelock_release(int fd);
void cz_recover_resume_locked(struct cz_engine *e, struct cz_circuit *c);
/* await's answer for a job only the journal still holds, or NULL (with
 * *pending when its end is not durable yet: wait for the next commit). */
json_object *cz_recover_result(struct cz_engine *e, const char *id, bool *pending);
/* The journal's commit hook: a job's end became durable, its await may answer. */
void cz_recover_on_commit(void *e);
/* A local job's end may be durable: the fleet node's claim thread
 * (engine/control/fleet_node.c) looks (from the journal's commit hook; no
 * lock, no call into the fleet's file: one write to its eventfd). */
static inline void cz_fnode_poke(struct cz_engine *e)
{
	int fd = atomic_load(&e->fleet_wake) - 1;
	uint64_t one = 1;
	if (fd >= 0 && write(fd, &one, sizeof one) < 0) {
		/* the counter full: the claim thread is awake anyway */
	}
}
/* engine/durable/output.c: a job's paths.  "@<seq>": the automatic id (a caller's id never starts with '@'). */
void cz_job_auto_id(char *buf, size_t cap, uint64_t seq);
/* The path of a job's published directory, and of its temporary one. */
void cz_job_dir(const struct cz_engine *e, const char *id, char *buf, size_t cap);
void cz_job_tmpdir(const struct cz_engine *e, uint64_t seq, char *buf, size_t cap);
/* Moves the complete temporary directory tmp into place as final: atomic;
 * an older directory of the same name (an id whose retention ended) is
 * exchanged out and removed.  0 or -errno. */
int cz_job_publish(const char *tmp, const char *final);
/* Removes a job's directory (files only) and what is in it. */
void cz_job_rmdir(const char *path);
/* engine/control/keys.c */
struct cz_circuit *cz_circuit_find(struct cz_engine *e, const char *name);
json_object *cz_req_load(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer);
/* engine/control/tables.c: c's fixed-base tables, as mode allows
 * (CZ_FIXED_TABLES_*, or at most that many bytes).  _plan, with c->key on
 * the heap: shapes them (c->part_bytes, tables_bases set) and reserves
 * their bytes in the budget (c->tables_resv); tables that do not fit it
 * are refused, err naming their size and the budget.  The key's share
 * then gives them their place; _build fills them there (tables_bytes,
 * tables_ms set).  0, or -1 with err set.  _unreserve gives tables_resv
 * back (a load that failed). */
int cz_tables_plan(struct cz_engine *e, struct cz_circuit *c, const struct cz_curve_ops *cv,
		   uint64_t mode, char *err, size_t cap);
int cz_tables_build(struct cz_engine *e, struct cz_circuit *c, const struct cz_curve_ops *cv,
		    char *err, size_t cap);
void cz_tables_unreserve(struct cz_engine *e, struct cz_circuit *c);
/* engine/control/witload.c: load's "wasm" or "witness_lib" onto c (none:
 * 0, nothing done); 0, or -1 with err set (cz_witload_detach undoes a
 * part-made one).  Outside the engine lock: a build can take a minute. */
/* The loads' witness builds in flight, for `circuits` (e->lock held). */
json_object *cz_witload_building_locked(struct cz_engine *e);
/* A slot of e->wbuilds for circuit's load at stage (a literal): its index,
 * or -1 when all are taken (the load is then not listed); and its end. */
int cz_witload_note_take(struct cz_engine *e, const char *circuit, const char *stage);
void cz_witload_note_free(struct cz_engine *e, int k);
void cz_witload_report(const struct cz_circuit *c, json_object *r);   /* load's "witness_build" */
/* push: the load's connection, to push each build stage to as it begins
 * (load's "progress"); NULL: none. */
int cz_witload_attach(struct cz_engine *e, struct cz_circuit *c, const char *wasm, const char *lib,
		      struct cz_ctl_peer *push, char *err, size_t cap);
void cz_witload_detach(struct cz_circuit *c);
/* engine/pipeline/witgen.c: the bytes partition p takes from the budget:
 * its buffer, and for an input partition its instance's wasm memory
 * (cz_witgen_charge_locked); c's input partition's wasm memory charge; the
 * measured peak cached with the build read back at load (sets wmem_peak and
 * wmem_bytes from wmem_limit). */
uint64_t cz_witgen_need_locked(struct cz_engine *e, const struct cz_part *p);
uint64_t cz_witgen_charge_locked(struct cz_engine *e, const struct cz_circuit *c);
void cz_witgen_peak_load(struct cz_engine *e, struct cz_circuit *c);
/* engine/pipeline/witgen.c: an input partition's witness, generated by
 * synthesis worker `worker` (0-based) into w (the partition buffer's
 * witness, nvars values, standard form) and checked as a submitted
 * witness is (values < r, w[0] = 1); its spooled input read into the
 * worker's own buffer (*buf, *cap: grown, then reused; wiped after use).
 * 0, or -1 with p->err set. */
int cz_witgen_run(struct cz_engine *e, struct cz_part *p, unsigned worker, void *w, char **buf,
		  size_t *cap);
json_object *cz_req_unload(struct cz_engine *e, json_object *req);
json_object *cz_req_circuits(struct cz_engine *e);
void cz_circuits_free(struct cz_engine *e);
/* engine/control/fields.c: NULL (absent or good) or the error response naming k. */
json_object *cz_field_str(json_object *req, const char *k, bool required, const char **out);
json_object *cz_field_bool(json_object *req, const char *k, bool *out);
json_object *cz_field_uint(json_object *req, const char *k, uint64_t max, uint64_t *out);
json_object *cz_field_seconds(json_object *req, const char *k, double max, double *out);
/* engine/control/requests.c */
json_object *cz_req_submit(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner);
/* The same for a partition a fleet node claimed (engine/control/fleet_node.c):
 * the database is its source of truth, so it is queued without waiting for
 * its spool copy's fsync or its journal record's group commit (both follow
 * off the caller's path; the local journal is a cache).  A crash loses
 * nothing the lease does not bring back. */
json_object *cz_req_submit_cached(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner);
/* A submit's "inputs" (docs/protocol.md), a local or a fleet member's: an
 * integer k marks passed descriptor k an input (fd_inp[k], nfds <=
 * CZ_CTL_MAX_FDS entries; one named twice is refused); an object is an
 * input inline, counted in *ninline.  NULL, or the error response. */
json_object *cz_req_inputs_parse(json_object *req, int nfds, bool *fd_inp, uint32_t *ninline);
json_object *cz_req_await(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer);
json_object *cz_req_cancel(struct cz_engine *e, json_object *req);
json_object *cz_req_deliver(json_object *r, int fd, struct cz_ctl_peer *peer);  /* await's passed fd */
json_object *cz_req_status(struct cz_engine *e, long view);     /* view: a uid's jobs only, -1 all */
json_object *cz_req_trace(struct cz_engine *e, json_object *req, int *fds, int nfds,
			  struct cz_ctl_peer *peer);
/* engine/control/fleet_node.c: in fleet mode (e->fleet) the job requests go
 * to the database; a witness travels inline up to CZ_FNODE_INLINE_MAX bytes. */
#define CZ_FNODE_INLINE_MAX CZ_FLEET_WITNESS_INLINE_MAX
json_object *cz_fnode_submit(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner);
json_object *cz_fnode_await(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer);
json_object *cz_fnode_cancel(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer);
void cz_fnode_status(struct cz_engine *e, json_object *r);
void cz_fnode_stop(struct cz_engine *e);
/* engine/control/tracesel.c: trace with "job", "since" or "follow"; owns fd. */
json_object *cz_req_trace_select(struct cz_engine *e, json_object *req, int fd, struct cz_ctl_peer *peer);

#endif
