/* SPDX-License-Identifier: MIT */
/* engine/job.c — partition and job state transitions (the lock is held). */
#include "engine/engine_pvt.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const part_names[] = {
	"queued", "synthesizing", "ready", "proving", "finalizing", "done", "failed", "cancelled",
};
static const char *const prio_names[] = { "critical", "high", "normal", "low" };

const char *cz_part_state_name(int s)
{
	return s >= 0 && s <= CZ_PART_CANCELLED ? part_names[s] : "?";
}

const char *cz_prio_name(enum cz_prio p)
{
	return p <= CZ_PRIO_LOW ? prio_names[p] : "?";
}

void cz_part_set(struct cz_part *p, enum cz_part_state s)
{
	atomic_store_explicit(&p->state, (int)s, memory_order_release);
}

void cz_budget_release_locked(struct cz_engine *e, uint64_t bytes)
{
	e->reserved -= bytes;
	pthread_cond_signal(&e->dispatch_cv);
}

void cz_job_finished_locked(struct cz_engine *e, struct cz_job *j)
{
	j->t_finish = cz_trace_now();
	j->circ->jobs--;
	pthread_cond_broadcast(&e->job_cv);
}

/* The partition reached its terminal state: give back what it holds. */
void cz_job_part_terminal_locked(struct cz_engine *e, struct cz_part *p)
{
	struct cz_job *j = p->job;
	int st = atomic_load(&p->state);

	free(p->mem);
	p->mem = NULL;
	if (p->reserved) {
		cz_budget_release_locked(e, p->reserved);
		p->reserved = 0;
	}
	if (p->wfd >= 0) {
		close(p->wfd);
		p->wfd = -1;
	}
	p->t_done = cz_trace_now();
	j->nterminal++;
	if (st == CZ_PART_DONE)
		e->parts_done++;
	if (st == CZ_PART_FAILED) {
		j->nfailed++;
		if (atomic_load(&j->state) == CZ_JOB_ACTIVE) {
			snprintf(j->err, sizeof(j->err), "%s", p->err);
			atomic_store(&j->state, CZ_JOB_FAILED);
			e->jobs_failed++;
		}
	}
	if (j->nterminal == j->nparts && atomic_load(&j->state) != CZ_JOB_ACTIVE)
		cz_job_finished_locked(e, j);
}
