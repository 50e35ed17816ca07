/* SPDX-License-Identifier: MIT */
/*
 * engine/device/watchdog.c — a hung device is found, reported and, in
 * process isolation, killed so that its supervisor restarts it.
 *
 * WHAT IS A HANG.  A GPU prover hangs in a kernel or a driver call: its
 * consumer sits in the device stage (be->prove) and never comes back;
 * nothing dies, so the supervisor (engine/device/devproc.c), which only
 * sees deaths, sees nothing.  Each consumer's line in the pipe's region
 * holds the device stage's start while one runs (stage_ns, cz_trace_now's
 * monotonic clock, the same in every process) and its key id; a stage
 * older than its bound is a hang.
 *
 * THE BOUND, per circuit (key id): max(factor x p99, floor), the p99 over
 * the last CZ_PIPE_STAGE_SAMPLES device stages of that circuit (the
 * finalizer records each slot's device_ns, engine/pipeline/slot.c).  Until
 * a circuit has MIN_SAMPLES of them its bound is UNMEASURED x floor: the
 * first proofs of a key carry one-time costs and there is no p99 yet.
 * --watchdog-factor K (default 10, 0: no watchdog) and --watchdog-floor-ms
 * (default 30000); docs/cuzkd.8.md.  The thread looks every TICK_MS, so a
 * hang is found within bound + TICK_MS (+ the thread's scheduling delay).
 *
 * ON EXPIRY: one log line naming the device, the consumer, the stage
 * ("device stage"), the job and partition, its age and the bound; the
 * device's line says hung (status "hung", /metrics cuzk_device_hung and
 * cuzk_device_hangs_total; /readyz counts it out of service, so with no
 * other device it answers 503); in process isolation its child is killed
 * (SIGKILL works on a stopped or stuck process), and the supervisor's
 * death path hands the partitions it held out again and restarts it: the
 * flag clears when the new process says ready.  In thread isolation a
 * consumer thread cannot be killed: the hang is reported the same way and
 * clears only if the stage comes back; recovery needs --isolation process.
 *
 * LOCKS: none.  It reads the consumers' lines (atomics), the samples
 * (relaxed atomics, a torn ring costs one sample's accuracy) and the
 * supervisor's pid (atomic); it writes only its own device-line fields.
 */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TICK_MS 50
#define MIN_SAMPLES 8
#define UNMEASURED 4

struct cz_watchdog {
	struct cz_engine *e;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	pid_t killed[CZ_ENGINE_MAX_DEVICES];    /* the process killed for its hang, once */
	uint64_t seen[CZ_ENGINE_MAX_DEVICES];   /* the stage start last reported */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Key id's bound in ms; *p99_ms its p99 (0: not measured yet). */
static uint64_t bound_ms(const struct cz_engine *e, uint32_t key, uint64_t *p99_ms)
{
	const struct cz_pipe_stage_hist *h = key < CZ_PIPE_KEYS ? &e->pipe.stage_hist[key] : NULL;
	uint64_t floor = e->cfg.watchdog_floor_ms;
	uint32_t n = h ? atomic_load_explicit(&h->n, memory_order_relaxed) : 0;
	*p99_ms = 0;
	if (n < MIN_SAMPLES)
		return UNMEASURED * floor;
	uint32_t v[CZ_PIPE_STAGE_SAMPLES];
	unsigned k = n < CZ_PIPE_STAGE_SAMPLES ? n : CZ_PIPE_STAGE_SAMPLES;
	for (unsigned i = 0; i < k; i++)
		v[i] = atomic_load_explicit(&h->us[i], memory_order_relaxed);
	qsort(v, k, sizeof(v[0]), cmp_u32);
	unsigned at = (k * 99 + 99) / 100;      /* ceil(0.99 k), 1-based */
	*p99_ms = (v[at - 1] + 999) / 1000;
	uint64_t b = e->cfg.watchdog_factor * *p99_ms;
	return b > floor ? b : floor;
}

/* Device dev's consumer c is stage_ms into a stage over its bound. */
static void on_hang(struct cz_watchdog *w, unsigned dev, unsigned c, uint64_t t0, uint64_t age_ms,
		    uint64_t bound, uint64_t p99)
{
	struct cz_engine *e = w->e;
	struct cz_pipe_dev *pd = &e->pipe.devs[dev];
	const struct cz_pipe_cons *l = &e->pipe.cons[c];
	pid_t pid = e->dp ? atomic_load(&e->dp[dev].pid) : 0;
	if (w->seen[dev] != t0) {
		w->seen[dev] = t0;
		atomic_store(&pd->hung_bound_ms, bound);
		atomic_store(&pd->hung_age_ms, age_ms);
		atomic_fetch_add(&pd->hangs, 1);
		atomic_store(&pd->hung, 1);
		char how[96];
		if (p99)
			snprintf(how, sizeof(how), "max(%u x its circuit's p99 %llu ms, floor %u ms)",
				 e->cfg.watchdog_factor, (unsigned long long)p99, e->cfg.watchdog_floor_ms);
		else
			snprintf(how, sizeof(how), "%u x the floor %u ms: its circuit has too few stages measured",
				 UNMEASURED, e->cfg.watchdog_floor_ms);
		fprintf(stderr, "cuzkd: device %u hung: consumer %u.%u has been in the device stage of job "
			"@%llu partition %u for %llu ms, over its bound of %llu ms (%s)%s\n", dev, dev, c / e->ndev,
			(unsigned long long)atomic_load(&l->cur_job), atomic_load(&l->cur_part),
			(unsigned long long)age_ms, (unsigned long long)bound, how,
			!e->dp ? "; in thread isolation it cannot be killed: the device stays out of service "
				 "until the stage returns (recovery needs --isolation process)"
			: pid ? "; killing its process to restart it" : "");
	}
	if (pid && w->killed[dev] != pid) {
		w->killed[dev] = pid;
		fprintf(stderr, "cuzkd: device %u: killing its process %d (hung)\n", dev, (int)pid);
		kill(pid, SIGKILL);     /* the supervisor sees the death: recovery, restart */
	}
}

static void scan(struct cz_watchdog *w)
{
	struct cz_engine *e = w->e;
	uint64_t now = cz_trace_now();
	for (unsigned dev = 0; dev < e->ndev; dev++) {
		bool over = false;
		for (unsigned c = dev; c < e->ncons; c += e->ndev) {
			const struct cz_pipe_cons *l = &e->pipe.cons[c];
			uint64_t t0 = atomic_load(&l->stage_ns);
			if (!t0 || now <= t0)
				continue;
			uint64_t p99, bound = bound_ms(e, atomic_load(&l->stage_key), &p99);
			uint64_t age_ms = (now - t0) / 1000000;
			if (age_ms <= bound)
				continue;
			over = true;
			on_hang(w, dev, c, t0, age_ms, bound, p99);
			break;
		}
		/* Thread isolation: the stage came back.  Process isolation: the
		 * supervisor clears it when the new process is ready. */
		if (!over && !e->dp && atomic_load(&e->pipe.devs[dev].hung)) {
			atomic_store(&e->pipe.devs[dev].hung, 0);
			fprintf(stderr, "cuzkd: device %u: its device stage returned, no longer hung\n", dev);
		}
	}
}

static void *watch_main(void *v)
{
	struct cz_watchdog *w = v;
	cz_thread_name("cz-watch");
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		struct timespec ts = cz_deadline(CLOCK_MONOTONIC, (int64_t)TICK_MS * 1000000);
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->mu);
		scan(w);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int cz_watchdog_start(struct cz_engine *e)
{
	e->pipe.stage_hist = calloc(CZ_PIPE_KEYS, sizeof(*e->pipe.stage_hist));
	if (!e->pipe.stage_hist)
		return -ENOMEM;
	if (!e->cfg.watchdog_factor)
		return 0;       /* off: the samples are still kept (status reads none of them) */
	struct cz_watchdog *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->e = e;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&w->tid, NULL, watch_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return -EAGAIN;
	}
	e->wd = w;
	return 0;
}

void cz_watchdog_stop(struct cz_engine *e)
{
	struct cz_watchdog *w = e->wd;
	if (w) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->tid, NULL);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		e->wd = NULL;
	}
}

void cz_watchdog_free(struct cz_engine *e)
{
	free(e->pipe.stage_hist);
	e->pipe.stage_hist = NULL;
}
