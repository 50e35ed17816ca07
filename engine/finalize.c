/* SPDX-License-Identifier: MIT */
/*
 * engine/finalize.c — the finalizer: off the consumers' path, it assembles
 * and verifies each partition's proof, returns its memory and budget, and
 * writes a job's output once all its partitions are done.
 *
 * Consumers hand partitions over through the pipe's done ring (one CAS; a
 * futex wake only when the finalizer sleeps), so a slow finalizer
 * (verification, fsync) never holds up a device.
 */
#include "engine/engine_pvt.h"
#include "zk/groth16_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finish_one(struct cz_engine *e, struct cz_part *p)
{
	struct cz_job *j = p->job;
	int st = atomic_load(&p->state);
	uint64_t t0 = cz_trace_now();

	cz_trace(CZ_EV_FINAL_START, j->seq, p->idx);
	if (st != CZ_PART_FAILED && atomic_load(&j->state) != CZ_JOB_ACTIVE) {
		st = CZ_PART_CANCELLED;
	} else if (st != CZ_PART_FAILED) {
		cz_part_set(p, CZ_PART_FINALIZING);
		st = CZ_PART_DONE;
		uint32_t npub = j->circ->key.npub;
		char why[256] = "";
		p->pub = calloc(npub ? npub : 1, sizeof(cz_fr));
		if (!p->pub) {
			snprintf(p->err, sizeof(p->err), "partition %u: out of memory", p->idx);
			st = CZ_PART_FAILED;
		} else if (e->be->finish(&p->work, p->pub, &p->proof, why, sizeof(why))) {
			snprintf(p->err, sizeof(p->err), "partition %u: %s", p->idx, why);
			st = CZ_PART_FAILED;
		}
	}
	cz_part_wipe(p);        /* outside the lock: one pass over the buffer */
	cz_part_set(p, st);
	cz_trace(CZ_EV_FINAL_END, j->seq, p->idx);
	p->final_ns = cz_trace_now() - t0;

	pthread_mutex_lock(&e->lock);
	cz_job_part_terminal_locked(e, p);
	bool complete = j->nterminal == j->nparts && atomic_load(&j->state) == CZ_JOB_ACTIVE;
	pthread_mutex_unlock(&e->lock);
	if (!complete)
		return;

	/* Every partition is done: nobody else touches the job until we mark it. */
	char err[256] = "";
	int rc = cz_output_write(e, j, err, sizeof(err));
	cz_trace(CZ_EV_OUTPUT, j->seq, 0);
	pthread_mutex_lock(&e->lock);
	if (rc) {
		snprintf(j->err, sizeof(j->err), "writing proofs: %s", err);
		atomic_store(&j->state, CZ_JOB_FAILED);
		e->jobs_failed++;
	} else {
		atomic_store(&j->state, CZ_JOB_DONE);
		e->jobs_done++;
	}
	cz_job_finished_locked(e, j);
	pthread_mutex_unlock(&e->lock);
}

void *cz_finalize_main(void *v)
{
	struct cz_engine *e = v;
	struct cz_part *p;

	cz_trace_thread("finalizer", 0);
	while ((p = cz_pipe_done_take(&e->pipe)))
		finish_one(e, p);
	return NULL;
}
