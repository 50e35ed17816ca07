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
#include "lib/thread.h"
#include "zk/groth16_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finish_one(struct cz_engine *e, struct cz_part *p)
{
	struct cz_job *j = p->job;
	int st = atomic_load(&p->state);

	cz_trace(CZ_EV_FINAL_START, j->seq, p->idx);
	if (st != CZ_PART_FAILED && atomic_load(&j->state) != CZ_JOB_ACTIVE) {
		st = CZ_PART_CANCELLED;
	} else if (st != CZ_PART_FAILED) {
		cz_part_set(p, CZ_PART_FINALIZING);
		st = CZ_PART_DONE;
		if (e->be->computes) {
			cz_fr r, s;
			int rc = cz_groth16_blinding(&r, &s);
			if (!rc) {
				cz_groth16_finalize(p->work.key, &p->work.out, &r, &s, &p->proof);
				rc = cz_groth16_check_proof(p->work.key, p->work.w, &p->proof) ? 0 : -1;
			}
			if (rc) {
				snprintf(p->err, sizeof(p->err),
					 "partition %u: witness does not satisfy the circuit", p->idx);
				st = CZ_PART_FAILED;
			}
		} else {
			memset(&p->proof, 0, sizeof(p->proof));
		}
		/* Verified: its files go into the job's buffer now, while the
		 * witness (public inputs) is still at hand. */
		if (st == CZ_PART_DONE && cz_output_render(p))
			st = CZ_PART_FAILED;
	}
	cz_part_set(p, st);
	cz_trace(CZ_EV_FINAL_END, j->seq, p->idx);

	pthread_mutex_lock(&e->lock);
	cz_job_part_terminal_locked(e, p);
	bool complete = j->nterminal == j->nparts && atomic_load(&j->state) == CZ_JOB_ACTIVE;
	if (complete)
		j->writing = true;      /* no compaction until the writer is done */
	pthread_mutex_unlock(&e->lock);
	/* Every partition is done: the writer (engine/output.c) owns the job
	 * until it marks it, and this thread goes on to the next partition. */
	if (complete)
		cz_output_queue(e, j);
}

void *cz_finalize_main(void *v)
{
	struct cz_engine *e = v;
	struct cz_part *p;

	cz_thread_name("cz-final");
	cz_trace_thread("finalizer", 0);
	while ((p = cz_pipe_done_take(&e->pipe)))
		finish_one(e, p);
	return NULL;
}
