/* SPDX-License-Identifier: MIT */
/*
 * engine/requests.c — the control plane's job requests: submit, await,
 * cancel, status, trace.  Each validates everything before it changes any
 * state, so a bad request leaves the daemon exactly as it was.
 */
#include "engine/engine_pvt.h"
#include "zk/groth16_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEEP_FINISHED 256   /* finished jobs kept for await/status */

json_object *cz_resp_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(0));
	json_object_object_add(r, "error", json_object_new_string(buf));
	return r;
}

json_object *cz_resp_ok(void)
{
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(1));
	return r;
}

static const char *get_str(json_object *o, const char *k)
{
	json_object *v;
	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct cz_job *job_find_locked(struct cz_engine *e, const char *id)
{
	for (struct cz_job *j = e->jobs; j; j = j->next)
		if (!strcmp(j->id, id))
			return j;
	return NULL;
}


/* Drops the oldest finished jobs beyond KEEP_FINISHED (memory stays flat). */
static void jobs_trim_locked(struct cz_engine *e)
{
	unsigned kept = 0;
	for (struct cz_job **pp = &e->jobs; *pp;) {
		struct cz_job *j = *pp;
		bool fin = atomic_load(&j->state) != CZ_JOB_ACTIVE && j->nterminal == j->nparts &&
			   !j->in_heap;
		if (fin && ++kept > KEEP_FINISHED && !j->writing) {
			*pp = j->next;
			cz_job_free(j);
			continue;
		}
		if (fin)
			cz_job_compact_locked(j);   /* here, not on the engine's threads */
		pp = &j->next;
	}
}

/* Opens the witnesses (paths or passed fds) and checks each file's size. */
static json_object *open_witnesses(struct cz_circuit *c, json_object *req, int *fds, int nfds,
				   int *out, uint32_t *n)
{
	json_object *paths;
	uint64_t want = cz_wtns_file_size(c->key.nvars);
	bool have_paths = json_object_object_get_ex(req, "witnesses", &paths);

	if (have_paths && (!json_object_is_type(paths, json_type_array) || nfds))
		return cz_resp_err("\"witnesses\" must be an array of paths, and not combined with passed descriptors");
	*n = have_paths ? (uint32_t)json_object_array_length(paths) : (uint32_t)nfds;
	if (*n == 0)
		return cz_resp_err("a job needs at least one witness (none given)");
	if (*n > CZ_ENGINE_MAX_PARTS)
		return cz_resp_err("%u witnesses: at most %d per job", *n, CZ_ENGINE_MAX_PARTS);
	if (c->partitions && *n != c->partitions)
		return cz_resp_err("circuit %s takes %u partitions per job, got %u witnesses", c->name,
				   c->partitions, *n);
	for (uint32_t i = 0; i < *n; i++) {
		const char *path = NULL;
		if (have_paths) {
			json_object *pj = json_object_array_get_idx(paths, i);
			path = json_object_is_type(pj, json_type_string) ? json_object_get_string(pj) : NULL;
			if (!path)
				return cz_resp_err("witness %u: not a path string", i);
			out[i] = open(path, O_RDONLY | O_CLOEXEC);
			if (out[i] < 0)
				return cz_resp_err("witness %u: cannot open %s: %s", i, path, strerror(errno));
		} else {
			out[i] = fds[i];
			fds[i] = -1;
		}
		struct stat st;
		if (fstat(out[i], &st) || !S_ISREG(st.st_mode))
			return cz_resp_err("witness %u%s%s: not a regular file", i, path ? " " : "", path ? path : "");
		if ((uint64_t)st.st_size != want)
			return cz_resp_err("witness %u%s%s: %lld bytes, but circuit %s needs %llu (nVars = %u)", i,
					   path ? " " : "", path ? path : "", (long long)st.st_size, c->name,
					   (unsigned long long)want, c->key.nvars);
	}
	return NULL;
}

static struct cz_job *job_new(struct cz_circuit *c, uint32_t n, const int *wfd)
{
	struct cz_job *j = calloc(1, sizeof(*j));
	if (!j || !(j->parts = calloc(n, sizeof(*j->parts)))) {
		free(j);
		return NULL;
	}
	j->circ = c;
	snprintf(j->circ_name, sizeof(j->circ_name), "%s", c->name);
	j->nparts = n;
	for (uint32_t i = 0; i < n; i++) {
		j->parts[i].job = j;
		j->parts[i].idx = i;
		j->parts[i].wfd = wfd[i];
		atomic_init(&j->parts[i].consumer, -1);
	}
	return j;
}

json_object *cz_req_submit(struct cz_engine *e, json_object *req, int *fds, int nfds)
{
	const char *name = get_str(req, "circuit"), *pr = get_str(req, "priority");
	const char *id = get_str(req, "id");
	enum cz_prio prio = CZ_PRIO_NORMAL;
	int wfd[CZ_ENGINE_MAX_PARTS];
	uint32_t n = 0;
	json_object *r = NULL;

	for (int i = 0; i < CZ_ENGINE_MAX_PARTS; i++)
		wfd[i] = -1;
	pthread_mutex_lock(&e->lock);
	struct cz_circuit *c = name ? cz_circuit_find(e, name) : NULL;
	if (!name)
		r = cz_resp_err("submit needs \"circuit\"");
	else if (!c)
		r = cz_resp_err("unknown circuit '%s' (load it first; see `cuzkctl circuits`)", name);
	else if (pr && cz_prio_parse(pr, &prio))
		r = cz_resp_err("unknown priority '%s' (" CZ_PRIO_NAMES ")", pr);
	else if (id && (!*id || strlen(id) >= sizeof(((struct cz_job *)0)->id) || strchr(id, '/') || id[0] == '.'))
		r = cz_resp_err("job id '%s': 1 to 63 characters, no '/', not starting with '.'", id);
	else if (id && job_find_locked(e, id))
		r = cz_resp_err("job id '%s' is already in use", id);
	else if (e->stopping)
		r = cz_resp_err("the daemon is shutting down");
	if (!r)
		r = open_witnesses(c, req, fds, nfds, wfd, &n);
	struct cz_job *j = r ? NULL : job_new(c, n, wfd);
	if (j && cz_output_job_init(j)) {   /* its output buffer: none made per partition */
		for (uint32_t i = 0; i < n; i++)
			j->parts[i].wfd = -1;       /* still closed below, with wfd[] */
		cz_job_free(j);
		j = NULL;
	}
	if (!r && !j)
		r = cz_resp_err("out of memory");
	if (r) {
		pthread_mutex_unlock(&e->lock);
		for (int i = 0; i < CZ_ENGINE_MAX_PARTS; i++)
			if (wfd[i] >= 0)
				close(wfd[i]);
		for (int i = 0; i < nfds; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return r;
	}
	j->seq = e->next_seq++;
	j->prio = prio;
	j->t_submit = cz_trace_now();
	snprintf(j->id, sizeof(j->id), "%s", id ? id : "");
	if (!id)
		snprintf(j->id, sizeof(j->id), "%llu", (unsigned long long)j->seq);
	c->jobs++;
	/* Before any drop below, so the trace's queued count never dips. */
	cz_trace_arg(CZ_EV_SUBMIT, j->seq, n, (uint32_t)prio);
	for (uint32_t i = 0; i < n; i++) {
		struct cz_part *p = &j->parts[i];
		p->key = (struct cz_key){ .prio = prio, .seq = j->seq, .part = i };
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
	char jid[sizeof(j->id)];
	uint64_t seq = j->seq;
	snprintf(jid, sizeof(jid), "%s", j->id);
	j->next = e->jobs;
	e->jobs = j;
	jobs_trim_locked(e);
	pthread_cond_signal(&e->dispatch_cv);
	pthread_mutex_unlock(&e->lock);

	r = cz_resp_ok();
	json_object_object_add(r, "job", json_object_new_string(jid));
	json_object_object_add(r, "seq", json_object_new_int64((int64_t)seq));
	json_object_object_add(r, "partitions", json_object_new_int((int)n));
	return r;
}

static const char *job_state_name(int s)
{
	static const char *const n[] = { "active", "done", "failed", "cancelled" };
	return s >= 0 && s <= CZ_JOB_CANCELLED ? n[s] : "?";
}

static json_object *job_result_locked(const struct cz_engine *e, const struct cz_job *j)
{
	char dir[PATH_MAX + 80];
	int st = atomic_load(&j->state);
	json_object *r = st == CZ_JOB_DONE ? cz_resp_ok() : cz_resp_err("job %s %s%s%s", j->id,
					   job_state_name(st), *j->err ? ": " : "", j->err);
	json_object_object_add(r, "job", json_object_new_string(j->id));
	json_object_object_add(r, "state", json_object_new_string(job_state_name(st)));
	if (st == CZ_JOB_DONE) {
		snprintf(dir, sizeof(dir), "%s/proofs/%s", e->state_dir, j->id);
		json_object_object_add(r, "dir", json_object_new_string(dir));
	}
	json_object_object_add(r, "ms", json_object_new_double((double)(j->t_finish - j->t_submit) / 1e6));
	json_object_object_add(r, "submit_ns", json_object_new_int64((int64_t)j->t_submit));
	json_object_object_add(r, "finish_ns", json_object_new_int64((int64_t)j->t_finish));
	json_object_object_add(r, "accounting", cz_metrics_acct_json(j));
	return r;
}

json_object *cz_req_await(struct cz_engine *e, json_object *req)
{
	const char *id = get_str(req, "job");
	json_object *tv;
	double timeout = -1;
	struct timespec until;

	if (!id)
		return cz_resp_err("await needs \"job\"");
	if (json_object_object_get_ex(req, "timeout", &tv))
		timeout = json_object_get_double(tv);
	clock_gettime(CLOCK_REALTIME, &until);
	if (timeout >= 0) {
		until.tv_sec += (time_t)timeout;
		until.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&e->lock);
	json_object *r = NULL;
	for (;;) {
		struct cz_job *j = job_find_locked(e, id);
		if (!j) {
			r = cz_resp_err("unknown job '%s'", id);
			break;
		}
		if (atomic_load(&j->state) != CZ_JOB_ACTIVE && j->nterminal == j->nparts) {
			r = job_result_locked(e, j);
			break;
		}
		if (e->stopping) {
			r = cz_resp_err("job %s: the daemon is shutting down", id);
			break;
		}
		if (timeout < 0)
			pthread_cond_wait(&e->job_cv, &e->lock);
		else if (pthread_cond_timedwait(&e->job_cv, &e->lock, &until) == ETIMEDOUT) {
			r = cz_resp_err("job %s: still running after %.1f s", id, timeout);
			json_object_object_add(r, "state", json_object_new_string("active"));
			json_object_object_add(r, "timeout", json_object_new_boolean(1));
			break;
		}
	}
	pthread_mutex_unlock(&e->lock);
	return r;
}

json_object *cz_req_cancel(struct cz_engine *e, json_object *req)
{
	const char *id = get_str(req, "job");
	json_object *r;
	uint32_t dropped = 0;

	if (!id)
		return cz_resp_err("cancel needs \"job\"");
	pthread_mutex_lock(&e->lock);
	struct cz_job *j = job_find_locked(e, id);
	if (!j)
		r = cz_resp_err("unknown job '%s'", id);
	else if (atomic_load(&j->state) != CZ_JOB_ACTIVE)
		r = cz_resp_err("job %s already %s", id, job_state_name(atomic_load(&j->state)));
	else {
		atomic_store(&j->state, CZ_JOB_CANCELLED);
		e->jobs_cancelled++;
		/* Queued partitions end here; running ones end at their next step. */
		for (uint32_t i = 0; i < j->nparts; i++) {
			struct cz_part *p = &j->parts[i];
			if (atomic_load(&p->state) == CZ_PART_QUEUED) {
				cz_trace(CZ_EV_DROP, j->seq, i);
				cz_part_set(p, CZ_PART_CANCELLED);
				cz_job_part_terminal_locked(e, p);
				dropped++;
			}
		}
		r = cz_resp_ok();
		json_object_object_add(r, "job", json_object_new_string(id));
		json_object_object_add(r, "dropped", json_object_new_int((int)dropped));
		json_object_object_add(r, "running", json_object_new_int((int)(j->nparts - j->nterminal)));
	}
	pthread_mutex_unlock(&e->lock);
	return r;
}

static json_object *status_job(const struct cz_engine *e, const struct cz_job *j)
{
	json_object *o = json_object_new_object();
	json_object *parts = json_object_new_array();
	json_object_object_add(o, "job", json_object_new_string(j->id));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)j->seq));
	json_object_object_add(o, "circuit", json_object_new_string(j->circ_name));
	json_object_object_add(o, "priority", json_object_new_string(cz_prio_name(j->prio)));
	json_object_object_add(o, "state", json_object_new_string(job_state_name(atomic_load(&j->state))));
	if (*j->err)
		json_object_object_add(o, "error", json_object_new_string(j->err));
	/* Where its partitions are: counts by state, and for each one that
	 * reached a consumer (while the job keeps its partition records),
	 * which consumer and device. */
	uint32_t cnt[CZ_PART_CANCELLED + 1] = { 0 };
	json_object *where = json_object_new_array();
	for (uint32_t i = 0; i < j->nparts; i++) {
		int st = cz_job_part_state(j, i);
		json_object_array_add(parts, json_object_new_string(cz_part_state_name(st)));
		if (st >= 0 && st <= CZ_PART_CANCELLED)
			cnt[st]++;
		int c = j->parts ? atomic_load(&j->parts[i].consumer) : -1;
		if (c >= 0 && (unsigned)c < e->ncons) {
			json_object *w = json_object_new_object();
			json_object_object_add(w, "partition", json_object_new_int((int)i));
			json_object_object_add(w, "state", json_object_new_string(cz_part_state_name(st)));
			json_object_object_add(w, "consumer", json_object_new_int(c));
			json_object_object_add(w, "device", json_object_new_int((int)e->cons[c].dev));
			json_object_array_add(where, w);
		}
	}
	json_object_object_add(o, "partitions", parts);
	json_object *counts = json_object_new_object();
	for (int st = 0; st <= CZ_PART_CANCELLED; st++)
		if (cnt[st])
			json_object_object_add(counts, cz_part_state_name(st), json_object_new_int((int)cnt[st]));
	json_object_object_add(o, "counts", counts);
	json_object_object_add(o, "placed", where);
	json_object_object_add(o, "accounting", cz_metrics_acct_json(j));
	return o;
}

json_object *cz_req_status(struct cz_engine *e)
{
	json_object *r = cz_resp_ok(), *jobs = json_object_new_array();
	json_object *cons = json_object_new_array(), *b = json_object_new_object();
	json_object *cnt = json_object_new_object();

	struct cz_budget_stat st;
	pthread_mutex_lock(&e->lock);
	for (struct cz_job *j = e->jobs; j; j = j->next)
		json_object_array_add(jobs, status_job(e, j));
	cz_budget_stat(e->budget, &st);
	json_object_object_add(b, "budget", json_object_new_int64((int64_t)st.limit));
	json_object_object_add(b, "reserved", json_object_new_int64((int64_t)st.reserved));
	json_object_object_add(b, "free", json_object_new_int64((int64_t)st.free));
	json_object_object_add(b, "high_water", json_object_new_int64((int64_t)st.high_water));
	json_object_object_add(b, "waits", json_object_new_int64((int64_t)e->budget_waits));
	json_object_object_add(b, "inflight", json_object_new_int((int)e->inflight));
	json_object_object_add(cnt, "jobs_submitted", json_object_new_int64((int64_t)e->next_seq - 1));
	json_object_object_add(cnt, "jobs_done", json_object_new_int64((int64_t)e->jobs_done));
	json_object_object_add(cnt, "jobs_failed", json_object_new_int64((int64_t)e->jobs_failed));
	json_object_object_add(cnt, "jobs_cancelled", json_object_new_int64((int64_t)e->jobs_cancelled));
	json_object_object_add(cnt, "partitions_done", json_object_new_int64((int64_t)e->parts_done));
	json_object_object_add(cnt, "queued", json_object_new_int64((int64_t)e->queued.n));
	pthread_mutex_unlock(&e->lock);
	for (unsigned i = 0; i < e->ncons; i++) {
		struct cz_consumer *c = &e->cons[i];
		json_object *o = json_object_new_object();
		int busy = atomic_load(&c->busy);
		json_object_object_add(o, "consumer", json_object_new_int((int)i));
		json_object_object_add(o, "device", json_object_new_int((int)c->dev));
		json_object_object_add(o, "state", json_object_new_string(busy ? "busy" : "idle"));
		if (busy) {
			json_object_object_add(o, "job_seq", json_object_new_int64((int64_t)atomic_load(&c->cur_job)));
			json_object_object_add(o, "partition", json_object_new_int((int)atomic_load(&c->cur_part)));
		}
		json_object_object_add(o, "proved", json_object_new_int64((int64_t)atomic_load(&c->proved)));
		json_object_object_add(o, "busy_ms", json_object_new_double((double)atomic_load(&c->busy_ns) / 1e6));
		json_object_array_add(cons, o);
	}
	/* Taken after the engine lock is dropped; the stat lock is the
	 * control plane's own (engine/stat.c), never a consumer's. */
	uint64_t lost;
	json_object *devs = cz_stat_devices_json(e, &lost);
	json_object_object_add(r, "backend", json_object_new_string(e->be->name));
	json_object_object_add(r, "devices", devs);
	json_object_object_add(r, "trace_lost", json_object_new_int64((int64_t)lost));
	json_object_object_add(r, "jobs", jobs);
	json_object_object_add(r, "consumers", cons);
	json_object_object_add(r, "budget", b);
	json_object_object_add(r, "counters", cnt);
	json_object *cl = cz_req_circuits(e);
	json_object_object_add(r, "circuits", json_object_get(json_object_object_get(cl, "circuits")));
	json_object_put(cl);
	return r;
}

json_object *cz_req_trace(struct cz_engine *e, json_object *req, int *fds, int nfds)
{
	json_object *cv;
	int chrome = json_object_object_get_ex(req, "chrome", &cv) && json_object_get_boolean(cv);
	(void)e;
	if (nfds != 1) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		return cz_resp_err("trace needs exactly one passed descriptor to write to (got %d)", nfds);
	}
	json_object *sv;        /* a selection: engine/tracesel.c */
	if (json_object_object_get_ex(req, "job", &sv) || json_object_object_get_ex(req, "since", &sv) ||
	    json_object_object_get_ex(req, "follow", &sv))
		return cz_req_trace_select(e, req, fds[0]);
	FILE *f = fdopen(fds[0], "w");
	if (!f) {
		close(fds[0]);
		return cz_resp_err("trace: cannot write to the passed descriptor: %s", strerror(errno));
	}
	int rc = cz_trace_dump(f, chrome);
	rc |= fclose(f);
	return rc ? cz_resp_err("trace: write failed") : cz_resp_ok();
}
