/* SPDX-License-Identifier: MIT */
/* engine/pipeline/job.c — partition and job state transitions (the lock is held). */
#include "engine/engine_pvt.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const part_names[] = {
	"queued", "synthesizing", "ready", "proving", "finalizing", "done", "failed", "cancelled",
};

const char *cz_part_state_name(int s)
{
	return s >= 0 && s <= CZ_PART_CANCELLED ? part_names[s] : "?";
}

/* Under the engine lock, so the dispatcher cannot miss the wake-up between
 * its failed try_reserve and its wait. */
void cz_engine_budget_release_locked(struct cz_engine *e, uint64_t bytes)
{
	cz_mutex_assert_held(&e->lock);
	cz_budget_release(e->budget, bytes);
	pthread_cond_signal(&e->dispatch_cv);
}

void cz_job_queue_locked(struct cz_engine *e, struct cz_job *j)
{
	cz_mutex_assert_held(&e->lock);
	/* Before any drop below, so the trace's queued count never dips. */
	cz_trace_arg(CZ_EV_SUBMIT, j->seq, j->nparts, (uint32_t)j->prio);
	for (uint32_t i = 0; i < j->nparts; i++) {
		struct cz_part *p = &j->parts[i];
		if (atomic_load(&p->state) != CZ_PART_QUEUED)
			continue;       /* failed, or cancelled while it waited */
		p->key = (struct cz_key){ .prio = j->prio, .seq = j->seq, .part = i };
		/* The heap's array doubles when full (from 64): a realloc only
		 * when more partitions queue than ever before. */
		if (!cz_heap_push(&e->queued, &(struct cz_qent){ .key = p->key, .part = p })) {
			j->in_heap++;
			continue;
		}
		snprintf(p->err, sizeof(p->err), "partition %u: out of memory queueing it", i);
		cz_trace(CZ_EV_DROP, j->seq, i);
		cz_part_set(p, CZ_PART_FAILED);
		cz_job_part_terminal_locked(e, p);
	}
}

void cz_job_wake(struct cz_engine *e)
{
	pthread_mutex_lock(&e->lock);
	pthread_cond_broadcast(&e->job_cv);
	pthread_mutex_unlock(&e->lock);
}

void cz_job_finished_locked(struct cz_engine *e, struct cz_job *j)
{
	cz_mutex_assert_held(&e->lock);
	int st = atomic_load(&j->state);
	j->t_finish = cz_trace_now();
	cz_metrics_job_finished(e->metrics, st, (int)j->prio, j->t_finish - j->t_submit);
	cz_metrics_acct_finish(e, j);
	/* Its end record (memory only here: the journal's writer makes it
	 * durable, and await answers once it is).  Not for what a shutdown
	 * ends: such a job was accepted and not finished, so the next start
	 * resumes it.  Done jobs and cancels record theirs themselves. */
	if (!j->end_ticket && e->jn && (st == CZ_JOB_DONE || !e->stopping))
		j->end_ticket = cz_journal_end_acct(e->jn, j->seq, st, j->err,
						    (double)(j->t_finish - j->t_submit) / 1e6, &j->acct,
						    j->t_submit);
	else if (j->acct_late && e->jn) /* an "acct" record; await waits for it */
		j->end_ticket = cz_journal_end_acct(e->jn, j->seq, st, j->err, 0, &j->acct, j->t_submit);
	j->acct_late = false;
	if (j->circ)
		j->circ->jobs--;        /* NULL: resumed, cancelled before its circuit came */
	pthread_cond_broadcast(&e->job_cv);
	/* Not compacted here: this runs on the finalizer's and the writer's
	 * threads, which make no heap calls; the control plane compacts
	 * finished jobs (jobs_trim_locked, engine/control/requests.c). */
}

/* A finished job keeps only its partitions' final states (a byte each), so
 * the history of finished jobs costs a few hundred bytes per job and the
 * daemon's memory stays flat.  Not while the queued heap still points at a
 * cancelled partition, nor while the writer holds the job.  Runs on the
 * control plane only (it frees and allocates). */
void cz_job_compact_locked(struct cz_engine *e, struct cz_job *j)
{
	cz_mutex_assert_held(&e->lock);
	if (!j->parts || j->in_heap || j->nterminal != j->nparts || j->writing ||
	    atomic_load(&j->state) == CZ_JOB_ACTIVE)
		return;
	uint8_t *f = malloc(j->nparts);
	if (!f)
		return;         /* keep the full record */
	for (uint32_t i = 0; i < j->nparts; i++)
		f[i] = (uint8_t)atomic_load(&j->parts[i].state);
	free(j->parts);
	free(j->out);
	j->out = NULL;
	j->parts = NULL;
	j->final = f;
}

int cz_job_part_state(const struct cz_job *j, uint32_t i)
{
	return j->parts ? atomic_load(&j->parts[i].state) : j->final[i];
}

void cz_job_free(struct cz_job *j)
{
	for (uint32_t i = 0; j->parts && i < j->nparts; i++) {
		if (j->parts[i].wfd >= 0)
			close(j->parts[i].wfd);
	}
	free(j->parts);
	free(j->out);
	free(j->final);
	free(j);
}

void (*cz_engine_test_put_hook)(const void *mem, size_t bytes);

/* The buffer holds the witness and what synthesis and the device made of
 * it: wiped by the thread done with it, outside the lock (a pass over up to
 * hundreds of MiB), before cz_job_part_terminal_locked gives it back. */
void cz_part_wipe(struct cz_part *p)
{
	if (p->mem)
		cz_curve_ops(p->job->circ->curve)->part_wipe(&p->job->circ->key, p->mem);
}

/* For a partition no ring will carry any more: its terminal step here. */
void cz_part_fail(struct cz_engine *e, struct cz_part *p, const char *why)
{
	snprintf(p->err, sizeof(p->err), "partition %u: %s", p->idx, why);
	cz_part_wipe(p);
	cz_part_set(p, CZ_PART_FAILED);
	pthread_mutex_lock(&e->lock);
	cz_job_part_terminal_locked(e, p);
	pthread_mutex_unlock(&e->lock);
}

/* A partition by job sequence and index (a descriptor that failed its
 * checksum); NULL if none is in flight under that name. */
struct cz_part *cz_engine_part_lookup(void *ctx, uint64_t job_seq, uint32_t idx)
{
	struct cz_engine *e = ctx;
	struct cz_part *p = NULL;

	pthread_mutex_lock(&e->lock);
	for (struct cz_job *j = e->jobs; j && !p; j = j->next)
		if (j->seq == job_seq && j->parts && idx < j->nparts && j->parts[idx].dispatched)
			p = &j->parts[idx];
	pthread_mutex_unlock(&e->lock);
	return p;
}

/* The partition reached its terminal state: give back what it holds. */
void cz_job_part_terminal_locked(struct cz_engine *e, struct cz_part *p)
{
	cz_mutex_assert_held(&e->lock);
	struct cz_job *j = p->job;
	int st = atomic_load(&p->state);

	if (p->mem) {
		if (cz_engine_test_put_hook)
			cz_engine_test_put_hook(p->mem, j->circ->part_bytes);
		cz_slab_put(p->cache, p->mem);
		p->mem = NULL;
	}
	if (p->dispatched) {
		p->dispatched = false;
		cz_dispatch_back(e, p);         /* if the finalizer has not */
		e->node_bytes[p->disp_node] -= p->reserved;
		e->inflight--;
		pthread_cond_signal(&e->dispatch_cv);
	}
	if (p->reserved) {
		cz_engine_budget_release_locked(e, p->reserved);
		j->acct.buf_bytes -= p->reserved;
		p->reserved = 0;
	}
	if (p->wfd >= 0) {
		close(p->wfd);
		p->wfd = -1;
	}
	p->t_done = cz_trace_now();
	cz_admit_part_end_locked(e, p);
	j->nterminal++;
	cz_metrics_part_terminal(e->metrics, st);
	cz_metrics_acct_part(e, p);
	if (st == CZ_PART_DONE)
		e->parts_done++;
	if (st == CZ_PART_FAILED) {
		j->nfailed++;
		if (atomic_load(&j->state) == CZ_JOB_ACTIVE) {
			snprintf(j->err, sizeof(j->err), "%s", p->err);
			atomic_store(&j->state, CZ_JOB_FAILED);
			e->jobs_failed++;
			cz_pipe_job_ended(&e->pipe, j->seq);
		}
	}
	if (j->nterminal == j->nparts && atomic_load(&j->state) != CZ_JOB_ACTIVE)
		cz_job_finished_locked(e, j);
}
