/* SPDX-License-Identifier: MIT */
/*
 * engine/admit.c — admission: what a submit may add to the daemon.
 *
 * Two questions are answered at submit, under the engine lock, before a
 * job exists, so a refused job leaves nothing behind:
 *
 * 1. Can its partitions ever run?  A partition's buffers come out of the
 *    memory budget after the loaded keys' share: one that needs more than
 *    budget - keys can never be dispatched while those keys are loaded.
 *    Such a job used to be accepted and wait for ever, and (being the
 *    queue's head) hold back every other circuit's work behind it.  Now it
 *    is refused naming the bytes it needs and the bytes there are.  (A
 *    key loaded after the submit can still shrink the room: the
 *    dispatcher then fails the partition with the same figures.)
 *
 * 2. Is there room in the queue?  Every accepted, unfinished partition
 *    costs the daemon a witness descriptor and some memory, so their
 *    number is bounded (--max-queued-partitions).  Over the bound a submit
 *    is answered "queue full" with retry_after_ms: the time the excess
 *    takes to drain at the recent rate (a smoothed gap between finished
 *    partitions), at least 100 ms.  Before this bound the fd limit was the
 *    one that struck first, as a connection dropped mid-request with
 *    "too many descriptors with one message".
 *
 * The default bound is derived from what runs out first:
 * - descriptors: RLIMIT_NOFILE (cuzkd raises its soft limit to the hard
 *   one at start), less the ones open once the engine has started, less a
 *   reserve: every connection slot (64), one request's passed descriptors
 *   in flight (200) and 64 more (loaded keys, trace and log files);
 * - memory: 1/64 of physical RAM at ADMIT_PART_COST bytes a partition
 *   (its record, queue entry and rendered output);
 * and is logged at start with the figure that set it.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* A queued partition's memory, generously: its struct cz_part, a heap
 * entry, its proof.json and public.json in the job's output buffer. */
#define ADMIT_PART_COST (sizeof(struct cz_part) + sizeof(struct cz_qent) + 8192)
#define ADMIT_FD_RESERVE (CZ_CTL_MAX_CONN + CZ_CTL_MAX_FDS + 64)

static long fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;
	if (!d)
		return 64;      /* no /proc: a guess */
	while (readdir(d))
		n++;
	closedir(d);
	return n > 2 ? n - 3 : n;       /* ".", ".." and the DIR's own */
}

uint64_t cz_admit_default(const struct cz_engine *e, char *why, size_t cap)
{
	(void)e;
	struct rlimit rl;
	uint64_t by_fd = UINT64_MAX, by_mem = UINT64_MAX;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		long left = (long)rl.rlim_cur - fds_open() - ADMIT_FD_RESERVE;
		by_fd = left > 16 ? (uint64_t)left : 16;
	}
	if (pages > 0 && psz > 0)
		by_mem = (uint64_t)pages * (uint64_t)psz / 64 / ADMIT_PART_COST;
	uint64_t v = by_fd < by_mem ? by_fd : by_mem;
	if (v > (1u << 20))
		v = 1u << 20;
	if (by_fd <= by_mem)
		snprintf(why, cap, "from RLIMIT_NOFILE %llu less %ld open and %d reserved descriptors",
			 (unsigned long long)rl.rlim_cur, fds_open(), (int)ADMIT_FD_RESERVE);
	else
		snprintf(why, cap, "from 1/64 of RAM at %zu bytes a partition", (size_t)ADMIT_PART_COST);
	return v;
}

bool cz_admit_never_fits_locked(const struct cz_engine *e, uint64_t part_bytes)
{
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	return e->keys_bytes > st.limit || part_bytes > st.limit - e->keys_bytes;
}

json_object *cz_admit_locked(struct cz_engine *e, const struct cz_circuit *c, uint32_t n)
{
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	if (cz_admit_never_fits_locked(e, c->part_bytes)) {
		uint64_t room = st.limit > e->keys_bytes ? st.limit - e->keys_bytes : 0;
		return cz_resp_err("circuit %s: a partition needs %llu bytes, but with the loaded keys "
				   "(%llu bytes) the %llu-byte budget leaves %llu: it can never run; unload a "
				   "key or raise --mem-budget", c->name, (unsigned long long)c->part_bytes,
				   (unsigned long long)e->keys_bytes, (unsigned long long)st.limit,
				   (unsigned long long)room);
	}
	if (n > e->max_queued)
		return cz_resp_err("a job of %u partitions can never be accepted: --max-queued-partitions is %llu",
				   n, (unsigned long long)e->max_queued);
	if (e->parts_open + n <= e->max_queued)
		return NULL;
	uint64_t excess = e->parts_open + n - e->max_queued;
	uint64_t per = e->done_ewma_ns ? e->done_ewma_ns : 1000000000ull;   /* unknown: 1 s */
	uint64_t ms = excess * per / 1000000;
	ms = ms < 100 ? 100 : ms > 3600000 ? 3600000 : ms;
	e->queue_refused++;
	json_object *r = cz_resp_err("queue full: %llu partitions are accepted and not finished "
				     "(--max-queued-partitions %llu), no room for this job's %u: retry in "
				     "about %.1f s", (unsigned long long)e->parts_open,
				     (unsigned long long)e->max_queued, n, (double)ms / 1e3);
	json_object_object_add(r, "queue_full", json_object_new_boolean(1));
	json_object_object_add(r, "retry_after_ms", json_object_new_int64((int64_t)ms));
	return r;
}

void cz_admit_part_end_locked(struct cz_engine *e, const struct cz_part *p)
{
	if (e->parts_open)
		e->parts_open--;
	if (atomic_load(&p->state) == CZ_PART_DONE) {
		/* The gap since the previous one, only while work was waiting:
		 * an idle hour is not a service time. */
		uint64_t now = p->t_done;
		if (e->last_done_ns && now > e->last_done_ns) {
			uint64_t gap = now - e->last_done_ns;
			e->done_ewma_ns = e->done_ewma_ns ? (e->done_ewma_ns * 7 + gap) / 8 : gap;
		}
		e->last_done_ns = now;
	}
	if (!e->parts_open)
		e->last_done_ns = 0;
}

json_object *cz_admit_status_locked(const struct cz_engine *e)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "max_queued_partitions", json_object_new_int64((int64_t)e->max_queued));
	json_object_object_add(o, "open_partitions", json_object_new_int64((int64_t)e->parts_open));
	json_object_object_add(o, "refused_full", json_object_new_int64((int64_t)e->queue_refused));
	json_object_object_add(o, "keys_bytes", json_object_new_int64((int64_t)e->keys_bytes));
	return o;
}
