/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/finalize.c — the finalizer: off the consumers' path, it assembles
 * and verifies each partition's proof, renders its output files into the
 * job's buffer, returns its memory and budget, and hands a job whose
 * partitions are all done to the output writer (engine/durable/output.c), so
 * writing and fsyncing never queue up verification.  Per partition it makes
 * no heap call: the public inputs and the rendered files go into buffers
 * made at submit.
 *
 * Consumers hand partitions over through the pipe's done ring (one CAS; a
 * futex wake only when the finalizer sleeps), so a slow finalizer
 * (verification) never holds up a device.
 *
 * Several finalizers (--finalizers, default 2) take from the done ring
 * (mc dequeue, each with its own owner id), so one long verification
 * (286 ms at p99 on the loaded 2-core machine with the single thread) no
 * longer queues every partition behind it.  What keeps it correct:
 * - verify before write: a partition's files are rendered only after its
 *   proof verified, into its own slot of the job's buffer, and its public
 *   inputs go to its own scratch there (cz_output_pub), so two finalizers
 *   never share a byte;
 * - publication per job: the job goes to the writer exactly once, by the
 *   finalizer whose terminal step (under the engine lock) made the count
 *   complete, so its files appear all at once, after every partition of
 *   it verified; partitions of one job may verify in any order.
 */
#include "engine/engine_pvt.h"
#include "lib/thread.h"
#include "zk/io/groth16_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finish_one(struct cz_engine *e, struct cz_part *p)
{
	struct cz_job *j = p->job;
	int st = atomic_load(&p->state);
	uint64_t t0 = cz_trace_now(), cpu0 = cz_thread_cpu_ns();

	cz_dispatch_back(e, p);         /* its device is done with it (engine/pipeline/dispatch.c) */
	cz_trace(CZ_EV_FINAL_START, j->seq, p->idx);
	if (st != CZ_PART_FAILED && atomic_load(&j->state) != CZ_JOB_ACTIVE) {
		st = CZ_PART_CANCELLED;
	} else if (st != CZ_PART_FAILED) {
		cz_part_set(p, CZ_PART_FINALIZING);
		st = CZ_PART_DONE;
		char why[256] = "";
		void *pub = cz_output_pub(p);    /* the partition's scratch, made at submit */
		if (e->be->finish(&p->work, pub, &p->proof, why, sizeof(why))) {
			snprintf(p->err, sizeof(p->err), "partition %u: %s", p->idx, why);
			st = CZ_PART_FAILED;
		}
		/* Verified: its files go into the job's buffer now. */
		if (st == CZ_PART_DONE && cz_output_render(p, pub))
			st = CZ_PART_FAILED;
	}
	int ci = atomic_load(&p->consumer);
	if (st == CZ_PART_DONE && ci >= 0 && (unsigned)ci < e->ncons)
		cz_numa_count(e, p, e->cons[ci].dev);
	cz_part_wipe(p);        /* outside the lock: one pass over the buffer */
	cz_part_set(p, st);
	cz_trace(CZ_EV_FINAL_END, j->seq, p->idx);
	p->final_ns = cz_trace_now() - t0;
	p->final_cpu_ns = cz_thread_cpu_ns() - cpu0;

	pthread_mutex_lock(&e->lock);
	cz_job_part_terminal_locked(e, p);
	bool complete = j->nterminal == j->nparts && atomic_load(&j->state) == CZ_JOB_ACTIVE;
	if (complete)
		j->writing = true;      /* no compaction until the writer is done */
	pthread_mutex_unlock(&e->lock);
	/* Every partition is done: the writer (engine/durable/output.c) owns the job
	 * until it marks it, and this thread goes on to the next partition. */
	if (complete)
		cz_output_queue(e, j);
}

void *cz_finalize_main(void *v)
{
	struct cz_finalizer *f = v;
	struct cz_engine *e = f->e;
	struct cz_part *p;

	if (f->idx)
		cz_thread_name("cz-final%u", f->idx);
	else
		cz_thread_name("cz-final");
	cz_thread_batch(0);     /* its wake-up must not preempt a consumer's hand-off (lib/thread.h) */
	cz_trace_thread("finalizer", f->idx);
	while ((p = cz_pipe_done_take(&e->pipe, CZ_OWNER_FINAL_K(f->idx))))
		finish_one(e, p);
	return NULL;
}
