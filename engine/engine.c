/* SPDX-License-Identifier: MIT */
/*
 * engine/engine.c — cuzkd's engine: design and lifetime.
 *
 * What it is for: keep the devices busy in strict order.  Every partition has
 * a key (priority, job sequence, partition index); at each hand-off the
 * lowest key goes first, so the oldest job's lowest partition is always next
 * and a critical job overtakes everything that has not yet started.
 *
 *   submit ──► queued (heap) ──dispatcher──► synth workers ──mp──► inbox ring
 *                 │  budget reserved here,                              │
 *                 │  in key order, by one thread          order thread: min-heap
 *                 ▼                                       by key, feeds depth-1
 *            cancel drops                                 rings, one per consumer,
 *                                                         only to consumers that
 *                                                         hold nothing (order.c)
 *                                                                       │
 *                         finalizers ◄──mc── done ring ◄──mp── consumers (≥ 2 per
 *                         (assemble, verify, render,         device; who holds the
 *                          free, release budget)             device runs its lowest
 *                               │ a job complete             held partition)
 *                               ▼
 *                         output writer (cz-final-io: the job's proofs with
 *                         io_uring, its end record in the journal, published)
 * The rings (ring/, engine/pipeline/pipe.c) live in one shared region and
 * partition buffers in slab arenas on hugepages (alloc/), so each device's
 * consumers run in a child process of their own (--isolation process, the
 * default; engine/device/devproc.c), mapping the same memory, or as threads
 * of cuzkd (--isolation thread).  An accepted job is one in the journal
 * (engine/durable/journal.c): a restart makes it a job again
 * (engine/control/recover.c).  The code is divided into rooms, one concern
 * each (tools/layers.txt, docs/architecture.md): fleet, evidence, place,
 * durable, pipeline, device, control; this file and http.c are the front
 * doors.  A control request is routed by the op table (engine/control/ops.c:
 * its fields, who may, its handler); with --fleet the node's claims and
 * finishes run in engine/control/fleet_node.c on the fleet's table
 * (engine/fleet/).
 *
 * Invariants:
 * - Budget is taken only by the dispatcher, for the queue's head, before the
 *   partition is popped: nothing races for memory, nothing wakes everyone,
 *   and reserved bytes never exceed the budget (the head waits instead).
 * - Consumers touch only their ring, their device lock and the done ring:
 *   no lock they take is held by the control plane or the finalizer.
 * - A partition reaches exactly one terminal state (done, failed,
 *   cancelled), and its memory and budget come back at that moment; a job
 *   is answered only when all of its partitions are terminal.
 * - Every wait is traced (engine/evidence/trace.h), so each idle moment of a device
 *   has one named cause; engine/evidence/stat.c keeps those figures live for status
 *   from the trace itself (docs/trace.md).
 * Failure modes: a bad witness fails its partition and its job (the reason
 * names the partition); an unsatisfying witness is caught by verifying each
 * proof before it is written; the daemon itself keeps serving.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cz_engine_config_defaults(struct cz_engine_config *c)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	*c = (struct cz_engine_config){
		.backend = "cpu",
		.devices = 0,                   /* all the backend has */
		.consumers_per_device = 2,
		.synth_workers = 1,
		.finalizers = 2,
		.device_threads = 0,            /* all CPUs */
		.mem_budget = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 4 * 3 : 1ull << 32,
		.null_delay_ms = 20,
		.null_synth_ms = 0,
		.retain_s = 7 * 86400,
		.witness_timeout_ms = 60000,
		.watchdog_factor = 10,
		.watchdog_floor_ms = 30000,
		.device_retry_ms = 60000,
		.output_retry_max_ms = 60000,
	};
}

int cz_engine_config_check(const struct cz_engine_config *c, char *err, size_t cap)
{
	const char *bad = NULL;
	unsigned v = 0, lo = 1, hi = 0;

	if (!c->state_dir || !*c->state_dir) {
		snprintf(err, cap, "--state-dir is required");
		return -EINVAL;
	}
	if (!c->backend || !cz_backend_find(c->backend)) {
		snprintf(err, cap, "unknown backend '%s' (known: %s)", c->backend ? c->backend : "",
			 cz_backend_names());
		return -EINVAL;
	}
	if (c->devices > CZ_ENGINE_MAX_DEVICES)
		bad = "--devices", v = c->devices, lo = 0, hi = CZ_ENGINE_MAX_DEVICES;
	else if (!c->consumers_per_device || c->consumers_per_device > CZ_ENGINE_MAX_CONSUMERS_PER_DEV)
		bad = "--consumers-per-device", v = c->consumers_per_device, hi = CZ_ENGINE_MAX_CONSUMERS_PER_DEV;
	else if (!c->synth_workers || c->synth_workers > CZ_ENGINE_MAX_SYNTH_WORKERS)
		bad = "--synth-workers", v = c->synth_workers, hi = CZ_ENGINE_MAX_SYNTH_WORKERS;
	else if (!c->finalizers || c->finalizers > CZ_ENGINE_MAX_FINALIZERS)
		bad = "--finalizers", v = c->finalizers, hi = CZ_ENGINE_MAX_FINALIZERS;
	else if (c->device_threads > CZ_ENGINE_MAX_DEVICE_THREADS)
		bad = "--device-threads", v = c->device_threads, lo = 0, hi = CZ_ENGINE_MAX_DEVICE_THREADS;
	else if (c->watchdog_factor > 1000)
		bad = "--watchdog-factor", v = c->watchdog_factor, lo = 0, hi = 1000;
	else if (!c->watchdog_floor_ms || c->watchdog_floor_ms > 86400000)
		bad = "--watchdog-floor-ms", v = c->watchdog_floor_ms, hi = 86400000;
	else if (!c->device_retry_ms || c->device_retry_ms > 86400000)
		bad = "--device-retry-ms", v = c->device_retry_ms, hi = 86400000;
	else if (!c->output_retry_max_ms || c->output_retry_max_ms > 3600000)
		bad = "--output-retry-max-ms", v = c->output_retry_max_ms, hi = 3600000;
	if (bad) {
		snprintf(err, cap, "%s %u: must be %u to %u", bad, v, lo, hi);
		return -EINVAL;
	}
	if (c->isolation > CZ_ISOLATION_PROCESS) {
		snprintf(err, cap, "--isolation: must be process or thread");
		return -EINVAL;
	}
	if ((c->null_fault_nth || c->null_fault_part) && c->isolation != CZ_ISOLATION_PROCESS) {
		snprintf(err, cap, "--null-fault, --null-fault-part: only with --isolation process "
			 "(the fault is a real segfault)");
		return -EINVAL;
	}
	if (!c->retain_s || c->retain_s > CZ_ENGINE_RETAIN_MAX_S) {
		snprintf(err, cap, "--retain %llu s: must be 1 s to %llu s (ten years)",
			 (unsigned long long)c->retain_s, CZ_ENGINE_RETAIN_MAX_S);
		return -EINVAL;
	}
	if (!c->mem_budget) {
		snprintf(err, cap, "--mem-budget 0: must be more than 0 bytes");
		return -EINVAL;
	}
	/* The budget is the promise that keys and buffers stay in RAM, so
	 * that work waits for memory rather than swapping: one above physical
	 * memory cannot be kept, and would end in swap or the OOM killer. */
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t phys = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
	if (phys && c->mem_budget > phys) {
		snprintf(err, cap, "--mem-budget %llu bytes (%.1f GiB) is more than this machine's %.1f GiB of "
			 "physical memory: the budget must fit in RAM", (unsigned long long)c->mem_budget,
			 (double)c->mem_budget / (1u << 30), (double)phys / (1u << 30));
		return -EINVAL;
	}
	return 0;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX + 16];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0750) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

static int start_devices(struct cz_engine *e, char *err, size_t cap)
{
	int avail = e->be->count();
	if (avail <= 0) {
		snprintf(err, cap, "backend %s: no device found", e->be->name);
		return -ENODEV;
	}
	/* The plan's count: the backend's, or (cpu) one per node of its topology. */
	e->ndev = e->cfg.devices ? e->cfg.devices : e->place->ndev;
	if (e->cfg.devices && e->ndev > (unsigned)avail && !e->be->simulated) {
		snprintf(err, cap, "backend %s: %u devices asked, %d present", e->be->name, e->ndev, avail);
		return -ENODEV;
	}
	/* Each device's host threads are "cz-pool<D>.<k>" (lib/pool.h). */
	e->devs = calloc(e->ndev, sizeof(*e->devs));
	if (!e->devs)
		return -ENOMEM;
	/* In process isolation only the children open devices (for cuda,
	 * only they ever touch the GPU). */
	for (unsigned i = 0; i < e->ndev && e->cfg.isolation == CZ_ISOLATION_THREAD; i++) {
		e->devs[i].dev = cz_numa_open_device(e, i, err, cap);
		if (!e->devs[i].dev)
			return -ENODEV;
		fprintf(stderr, "cuzkd: device %u: %s\n", i, e->be->describe(e->devs[i].dev));
	}
	return 0;
}

static int start_threads(struct cz_engine *e)
{
	e->nsynth = e->cfg.synth_workers;              /* 1..: cz_engine_config_check */
	e->nfinal = e->cfg.finalizers;                 /* 1..CZ_ENGINE_MAX_FINALIZERS: the same */
	e->ncons = e->ndev * e->cfg.consumers_per_device;
	char err[256];
	if (cz_pipe_create(&e->pipe, e->ncons, e->ndev, err, sizeof(err))) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return -ENOMEM;
	}
	e->pipe.lookup = cz_engine_part_lookup;
	e->pipe.redo = cz_dispatch_redo;
	cz_numa_pipe_nodes(e);
	e->pipe.lookup_ctx = e;
	e->synth = calloc(e->nsynth, sizeof(*e->synth));
	e->cons = calloc(e->ncons, sizeof(*e->cons));
	cz_dispatch_nodes_init(e);
	e->handoff = calloc((size_t)e->nsynth * e->nnode, sizeof(*e->handoff));
	if (!e->synth || !e->cons || !e->handoff)
		return -ENOMEM;
	for (unsigned i = 0; i < e->ncons; i++) {
		e->cons[i] = (struct cz_consumer){
			.pipe = &e->pipe, .be = e->be, .hw = e->devs[i % e->ndev].dev,
			.place = e->place, .idx = i, .dev = i % e->ndev,
		};
		for (unsigned k = 0; k < e->narena; k++)
			e->cons[i].buf_base[k] = cz_slab_region(e->node_arena[k])->base;
		if (!e->narena && e->arena)
			e->cons[i].buf_base[0] = cz_slab_region(e->arena)->base;
	}
	/* The consumers' trace buffers in shared memory, so a consumer in a
	 * device child traces like one here (engine/evidence/trace.c). */
	for (unsigned i = 0; i < e->ncons; i++) {
		char role[32];
		int fd;
		snprintf(role, sizeof(role), "consumer %u.%u", i % e->ndev, i / e->ndev);
		e->cons[i].trace_fd = cz_trace_shared(role, i, &fd) ? -1 : fd;
	}
	/* The device processes' records, before the threads that read them. */
	if (e->cfg.isolation == CZ_ISOLATION_PROCESS && cz_devproc_prepare(e, err, sizeof(err))) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return -ENOMEM;
	}
	/* Before any pipeline thread, so it sees all of their events. */
	if (cz_stat_start(e) || cz_watchdog_start(e))
		return -ENOMEM;
	/* The devices' warm-up key, while keys load (engine/pipeline/warmup.c). */
	e->warmup_started = !cz_warmup_prepare(&e->warmup);
	if (e->cfg.isolation == CZ_ISOLATION_PROCESS) {
		if (cz_devproc_start(e, err, sizeof(err))) {
			fprintf(stderr, "cuzkd: %s\n", err);
			return -EAGAIN;
		}
	} else {
		for (unsigned i = 0; i < e->ncons; i++)
			if (pthread_create(&e->cons[i].tid, NULL, cz_consume_main, &e->cons[i]))
				return -EAGAIN;
	}
	for (unsigned i = 0; i < e->nsynth; i++)
		if (pthread_create(&e->synth[i], NULL, cz_dispatch_synth_main, e))
			return -EAGAIN;
	if (cz_output_start(e, cz_job_finished_locked, err, sizeof(err))) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return -EAGAIN;
	}
	for (unsigned i = 0; i < e->nfinal; i++) {
		e->final[i] = (struct cz_finalizer){ .e = e, .idx = i };
		if (pthread_create(&e->final[i].tid, NULL, cz_finalize_main, &e->final[i]))
			return -EAGAIN;
		e->final[i].started = true;
	}
	if (pthread_create(&e->dispatcher, NULL, cz_dispatch_main, e))
		return -EAGAIN;
	return 0;
}

struct cz_engine *cz_engine_create(const struct cz_engine_config *c, char *err, size_t cap)
{
	char proofs[PATH_MAX + 8];

	if (cz_engine_config_check(c, err, cap))
		return NULL;    /* what the rings and tables below rely on */
	struct cz_engine *e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	e->cfg = *c;
	e->be = cz_backend_find(c->backend);
	e->bopts = (struct cz_backend_opts){ .threads = c->device_threads,
					     .delay_ms = c->null_delay_ms, .synth_ms = c->null_synth_ms,
					     .fault_dev = c->null_fault_dev, .fault_nth = c->null_fault_nth,
					     .fault_part = c->null_fault_part };
	snprintf(e->state_dir, sizeof(e->state_dir), "%s", c->state_dir);
	snprintf(proofs, sizeof(proofs), "%s/proofs", e->state_dir);
	if (mkdirs(proofs)) {
		snprintf(err, cap, "cannot create state directory %s: %s", proofs, strerror(errno));
		free(e);
		return NULL;
	}
	/* Before any memory is reserved: a stale device process of an
	 * earlier cuzkd still holding its regions (and, for cuda, its GPU). */
	if (cz_devproc_check_stale(e->state_dir, err, cap)) {
		free(e);
		return NULL;
	}
	if (!(e->place = cz_engine_place_plan(c, err, cap))) {
		free(e);
		return NULL;
	}
	cz_numa_log_hugepages(e->place);
	if (c->isolation == CZ_ISOLATION_PROCESS)
		cz_numa_devproc_env(e);         /* the device children's placement */
	e->budget = cz_budget_create(c->mem_budget);
	e->next_seq = 1;
	/* Buffers: a region of budget + 1/8 (slab rounding), populated as
	 * slabs are made; hugepages where reserved, else a logged fallback. */
	bool buffers = e->be->input != CZ_BACKEND_IN_NONE;
	if (e->budget && buffers)
		cz_numa_arenas_create(e);       /* one per node of the plan: engine/place/numa.c */
	if (!e->budget || (buffers && !e->arena)) {
		snprintf(err, cap, "cannot reserve %llu bytes of buffer space",
			 (unsigned long long)c->mem_budget);
		cz_budget_destroy(e->budget);
		cz_place_free(e->place);
		free(e);
		return NULL;
	}
	cz_heap_init_grow(&e->queued, sizeof(struct cz_qent));
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->dispatch_cv, NULL);
	pthread_cond_init(&e->synth_cv, NULL);
	/* Awaits time out on CLOCK_MONOTONIC: a clock step cannot stretch or
	 * cut a timeout. */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->job_cv, &ca);
	pthread_condattr_destroy(&ca);
	cz_trace_thread("control", 0);
	/* The journal before any thread: the jobs it resumes are there when
	 * the first request comes (engine/control/recover.c). */
	e->spoolfd = e->statelock = -1;
	pthread_mutex_init(&e->spool_mu, NULL);         /* spool space (engine/pipeline/admit.c) */
	if (cz_recover_start(e, err, cap)) {
		cz_engine_destroy(e);
		return NULL;
	}
	if (start_devices(e, err, cap) || start_threads(e)) {
		if (!*err)
			snprintf(err, cap, "cannot start the engine's threads");
		cz_engine_destroy(e);
		return NULL;
	}
	/* Once every thread and ring is up, so the descriptors they hold are
	 * counted (engine/pipeline/admit.c). */
	char why[160];
	uint64_t dflt = cz_admit_default(e, why, sizeof(why));
	e->max_queued = c->max_queued ? c->max_queued : dflt;
	if (c->max_queued > dflt)
		fprintf(stderr, "cuzkd: warning: --max-queued-partitions %llu is above the %llu derived %s: "
			"submits may fail for want of descriptors before the queue is full\n",
			(unsigned long long)c->max_queued, (unsigned long long)dflt, why);
	else
		fprintf(stderr, "cuzkd: admission: at most %llu partitions accepted and unfinished (%s)\n",
			(unsigned long long)e->max_queued, c->max_queued ? "--max-queued-partitions" : why);
	cz_admit_spool_log(e);
	return e;
}

void cz_engine_stop(struct cz_engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->stopping = true;
	pthread_cond_broadcast(&e->dispatch_cv);
	pthread_cond_broadcast(&e->synth_cv);
	pthread_cond_broadcast(&e->job_cv);
	pthread_mutex_unlock(&e->lock);
}

void cz_engine_destroy(struct cz_engine *e)
{
	if (!e)
		return;
	cz_engine_stop(e);
	cz_fnode_stop(e);       /* no more claims, before the pipeline stops */
	free(e->fleet_stale);   /* dropped at start, never released: a join that failed */
	e->fleet_stale = NULL;
	if (e->dispatcher)
		pthread_join(e->dispatcher, NULL);
	for (unsigned i = 0; e->synth && i < e->nsynth; i++)
		if (e->synth[i])
			pthread_join(e->synth[i], NULL);
	/* Synthesis has stopped: consumers finish the partition they run (what
	 * waits in the rings is dropped with its job), then the finalizer
	 * drains the done ring. */
	cz_watchdog_stop(e);    /* no kill while the children finish */
	cz_pipe_stop(&e->pipe);
	cz_devproc_stop(e);     /* children end like consumer threads: their partition first */
	for (unsigned i = 0; e->cons && i < e->ncons; i++)
		if (e->cons[i].tid)
			pthread_join(e->cons[i].tid, NULL);
	cz_pipe_finish(&e->pipe);
	for (unsigned i = 0; i < e->nfinal; i++)
		if (e->final[i].started)
			pthread_join(e->final[i].tid, NULL);
	if (e->warmup_started)
		pthread_join(e->warmup, NULL);
	cz_output_stop(e);      /* writes the jobs the finalizer queued, then joins */
	cz_journal_close(e->jn);        /* what is pending, then its writer */
	e->jn = NULL;
	cz_statelock_release(e->statelock);     /* after the journal's last write */
	cz_pipe_destroy(&e->pipe);
	cz_watchdog_free(e);
	cz_stat_stop(e);
	cz_devproc_free(e);     /* the accounting read the devices' states until here */
	/* the trace buffers stay: a dump after destroy (tests) still reads
	 * them, and they are one mapping for the process's life */
	for (unsigned i = 0; e->devs && i < e->ndev; i++)
		if (e->devs[i].dev)
			e->be->close(e->devs[i].dev);
	while (e->jobs) {
		struct cz_job *j = e->jobs;
		e->jobs = j->next;
		cz_job_free(j);
	}
	cz_circuits_free(e);
	cz_numa_arenas_destroy(e);        /* every partition buffer with them */
	cz_budget_destroy(e->budget);
	cz_place_free(e->place);
	cz_heap_free(&e->queued);
	free(e->devs);
	free(e->cons);
	free(e->synth);
	free(e->handoff);
	free(e);
}

void cz_engine_wake(struct cz_engine *e)
{
	cz_job_wake(e);
}

json_object *cz_engine_request(struct cz_engine *e, json_object *req, int *fds, int nfds,
			       struct cz_ctl_peer *peer)
{
	json_object *opv;
	const char *op = json_object_object_get_ex(req, "op", &opv) &&
			 json_object_is_type(opv, json_type_string) ? json_object_get_string(opv) : NULL;
	const struct cz_op *od = op ? cz_op_find(op) : NULL;
	json_object *r;

	if (!op || !json_object_is_type(req, json_type_object))
		r = cz_ctl_err("request has no \"op\" string");
	else if (!od)
		r = cz_op_unknown(op);
	else if ((r = cz_fields_nul_scan(req)))
		;       /* a string a C reader would cut short (engine/control/fields.c) */
	else if ((r = cz_access_request(e, od, req, peer)))
		;       /* an unknown field, or not this caller's to ask */
	else if (od->owns_fds)
		return od->handler(e, req, fds, nfds, peer);
	else
		r = od->handler(e, req, fds, nfds, peer);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return r;
}
