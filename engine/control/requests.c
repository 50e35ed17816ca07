/* SPDX-License-Identifier: MIT */
/*
 * engine/control/requests.c — the control plane's job requests: submit, await,
 * cancel, status, trace.  Each validates everything before it changes any
 * state, so a bad request leaves the daemon exactly as it was.
 */
#define _GNU_SOURCE     /* memfd_create */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"
#include "lib/clock.h"
#include "zk/io/groth16_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEEP_FINISHED 256   /* finished jobs kept in memory for status (await: the journal) */

static const char *job_state_name(int s);

static struct cz_job *job_find_locked(struct cz_engine *e, const char *id)
{
	cz_mutex_assert_held(&e->lock);
	for (struct cz_job *j = e->jobs; j; j = j->next)
		if (!strcmp(j->id, id))
			return j;
	return NULL;
}


/* Drops the oldest finished jobs beyond KEEP_FINISHED (memory stays flat). */
static void jobs_trim_locked(struct cz_engine *e)
{
	cz_mutex_assert_held(&e->lock);
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
			cz_job_compact_locked(e, j);   /* here, not on the engine's threads */
		pp = &j->next;
	}
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a regular file";
}

/*
 * Opens the witnesses (paths) or takes the passed descriptors, and checks
 * each is a regular file, recording its size.  Runs before the engine lock
 * is taken: open() of a FIFO blocks until a writer comes, and of a file on
 * a hung mount for ever, so no file is opened under the lock status needs.
 * O_NONBLOCK makes the open itself return at once; the mode check then
 * refuses anything but a regular file.
 */
static json_object *witnesses_open(json_object *req, int *fds, int nfds, int *out, off_t *size,
				   const char **path, uint32_t *n, uint32_t ninline)
{
	json_object *paths;
	bool have_paths = json_object_object_get_ex(req, "witnesses", &paths);

	if (have_paths && (!json_object_is_type(paths, json_type_array) || nfds))
		return cz_ctl_err("\"witnesses\" must be an array of paths, and not combined with passed descriptors");
	size_t count = have_paths ? json_object_array_length(paths) : (size_t)nfds;
	if (count + ninline == 0)
		return cz_ctl_err("a job needs at least one witness or input (none given)");
	if (count + ninline > CZ_ENGINE_MAX_PARTS)
		return cz_ctl_err("%zu witnesses and inputs: at most %d per job", count + ninline,
				  CZ_ENGINE_MAX_PARTS);
	*n = (uint32_t)count;
	for (uint32_t i = 0; i < *n; i++) {
		path[i] = NULL;
		if (have_paths) {
			json_object *pj = json_object_array_get_idx(paths, i);
			path[i] = json_object_is_type(pj, json_type_string) ? json_object_get_string(pj) : NULL;
			if (!path[i])
				return cz_ctl_err("witness %u: not a path string", i);
			out[i] = open(path[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
			if (out[i] < 0)
				return cz_ctl_err("witness %u: cannot open %s: %s", i, path[i], strerror(errno));
		} else {
			out[i] = fds[i];
			fds[i] = -1;
		}
		struct stat st;
		if (fstat(out[i], &st))
			return cz_ctl_err("witness %u%s%s: %s", i, path[i] ? " " : "", path[i] ? path[i] : "",
					   strerror(errno));
		if (!S_ISREG(st.st_mode))
			return cz_ctl_err("witness %u%s%s: %s, not a regular file", i, path[i] ? " " : "",
					   path[i] ? path[i] : "", file_kind(st.st_mode));
		/* A passed descriptor the daemon cannot read from: said so here,
		 * not as the read's "Bad file descriptor" later. */
		int fl = path[i] ? O_RDONLY : fcntl(out[i], F_GETFL);
		if (fl >= 0 && (fl & O_PATH))
			return cz_ctl_err("witness %u: the passed descriptor was opened with O_PATH, which cannot be "
					   "read: open the file O_RDONLY", i);
		if (fl >= 0 && (fl & O_ACCMODE) == O_WRONLY)
			return cz_ctl_err("witness %u: the passed descriptor is write-only: open the file for reading "
					   "(O_RDONLY)", i);
		/* Our own descriptor reads blocking from here on (a passed one's
		 * flags are the client's: left alone). */
		if (path[i] && fcntl(out[i], F_SETFL, 0))
			return cz_ctl_err("witness %u %s: fcntl: %s", i, path[i], strerror(errno));
		size[i] = st.st_size;
	}
	return NULL;
}

/* Under the engine lock: the witnesses against the circuit's shape; an
 * input (inp[i]) against the input cap, and the circuit's witness program. */
static json_object *witnesses_check_locked(const struct cz_engine *e, const struct cz_circuit *c, uint32_t n,
					   const off_t *size, const char *const *path, const bool *inp)
{
	cz_mutex_assert_held(&e->lock);
	uint64_t want = cz_wtns_file_size(c->key.nvars);
	if (c->partitions && n != c->partitions)
		return cz_ctl_err("circuit %s takes %u partitions per job, got %u witnesses", c->name,
				   c->partitions, n);
	for (uint32_t i = 0; i < n; i++)
		if (inp[i] && !c->wprog)
			return cz_ctl_err("partition %u is an input, but circuit %s has no witness program "
					  "(load it with --wasm CIRCUIT.wasm to submit inputs)", i, c->name);
		else if (inp[i] && (size[i] <= 0 || (uint64_t)size[i] > CZ_ENGINE_INPUT_MAX))
			return cz_ctl_err("input %u%s%s: %lld bytes: an input is 1 to %u bytes of JSON", i,
					  path[i] ? " " : "", path[i] ? path[i] : "", (long long)size[i],
					  CZ_ENGINE_INPUT_MAX);
		else if (!inp[i] && (uint64_t)size[i] != want)
			return cz_ctl_err("witness %u%s%s: %lld bytes, but circuit %s needs %llu (nVars = %u)", i,
					   path[i] ? " " : "", path[i] ? path[i] : "", (long long)size[i], c->name,
					   (unsigned long long)want, c->key.nvars);
	return NULL;
}

static struct cz_job *job_new(struct cz_circuit *c, uint32_t n, const int *wfd, const bool *inp)
{
	struct cz_job *j = calloc(1, sizeof(*j));
	if (!j || !(j->parts = calloc(n, sizeof(*j->parts)))) {
		free(j);
		return NULL;
	}
	j->circ = c;
	j->curve = c->curve;
	snprintf(j->circ_name, sizeof(j->circ_name), "%s", c->name);
	j->nparts = n;
	for (uint32_t i = 0; i < n; i++) {
		j->parts[i].job = j;
		j->parts[i].idx = i;
		j->parts[i].wfd = wfd[i];
		j->parts[i].input = inp[i];
		atomic_init(&j->parts[i].consumer, -1);
		atomic_init(&j->parts[i].slot, -1);
		j->parts[i].node = -1;
	}
	return j;
}

/* The response for a submit whose id is held already: the same job (same
 * circuit, same witness digests: a retry) gets the existing one back, any
 * other is refused.  An in-memory job that has finished holds its id only
 * while the journal retains it. */
static json_object *id_held(const char *id, const char *circ, const uint8_t *dg, uint64_t hseq,
			    const char *hcirc, bool hdg, const uint8_t *hd, uint32_t hn, int hstate)
{
	if (strcmp(circ, hcirc) || !hdg || memcmp(dg, hd, CZ_JOURNAL_DIGEST))
		return cz_ctl_err("id '%s' is in use by a different job (seq %llu, circuit %s, other "
				   "witnesses); ids stay taken for --retain after a job ends", id,
				   (unsigned long long)hseq, hcirc);
	/* A retry of a job that failed or was cancelled is not its success:
	 * said with ok false (a non-zero exit from cuzkctl), never run again
	 * under the same id (issue 24). */
	json_object *r = hstate == CZ_JOB_FAILED || hstate == CZ_JOB_CANCELLED
			 ? cz_ctl_err("id '%s' names a job that already ended %s (seq %llu): a retry does not "
				      "start it again; submit under a new id (ids stay taken for --retain)", id,
				      job_state_name(hstate), (unsigned long long)hseq)
			 : cz_ctl_ok();
	json_object_object_add(r, "job", json_object_new_string(id));
	json_object_object_add(r, "seq", json_object_new_int64((int64_t)hseq));
	json_object_object_add(r, "partitions", json_object_new_int((int)hn));
	json_object_object_add(r, "existing", json_object_new_boolean(1));
	json_object_object_add(r, "state", json_object_new_string(job_state_name(hstate)));
	return r;
}

/* Under the lock: NULL when id is free, else id_held()'s answer; *wait
 * when its holder is still being accepted (the caller waits and asks again). */
static json_object *id_check_locked(struct cz_engine *e, const char *id, const char *circ,
				    const uint8_t *dg, bool *wait, long owner)
{
	cz_mutex_assert_held(&e->lock);
	struct cz_job *h = job_find_locked(e, id);
	json_object *r;
	*wait = false;
	if (h && h->accepting) {
		*wait = true;
		return NULL;
	}
	/* Owner and id together, under the lock (issue 24): the request-time
	 * check could not see a job another uid got accepted meanwhile. */
	if (h && atomic_load(&h->state) == CZ_JOB_ACTIVE)
		return (r = cz_access_id_owner(id, h->owner, owner)) ? r
		       : id_held(id, circ, dg, h->seq, h->circ_name, h->has_digest, h->digest, h->nparts,
				 CZ_JOB_ACTIVE);
	struct cz_jent je;
	if (!cz_journal_find(e->jn, id, &je, NULL))
		return NULL;    /* never used, or its retention ended */
	return (r = cz_access_id_owner(id, je.owner, owner)) ? r
	       : id_held(id, circ, dg, je.seq, je.circuit, je.has_digest, je.digest, je.nparts,
			 je.end < 0 ? CZ_JOB_ACTIVE : je.end);
}

/*
 * Accepting a job: its witnesses are copied into the spool (outside the
 * lock: up to gigabytes), its submit record is made durable in the journal
 * (a group commit: concurrent submits share one fsync), and only then is it
 * queued and answered.  Under the lock only checks and memory: the
 * circuit and shape first (with a sequence number taken, so the spool
 * files have their names), the id and the record after the copy.  Its
 * queue places are taken at the first check and its spool space before
 * the copy (engine/pipeline/admit.c), so submits in flight together cannot
 * overshoot either bound; a submit that fails gives both back.
 *
 * The phases, as docs/architecture.md names them: parse, open, admit,
 * spool, record, queue (cz_job_queue_locked, shared with recovery).  Each
 * returns NULL to go on, or the answer; submit_undo gives back what the
 * phases before took.
 */
struct submit {
	struct cz_engine *e;
	const char *name, *id;
	enum cz_prio prio;
	long owner;
	uint32_t n;
	uint64_t seq, ticket, held, out_disk;
	bool locked, spooled, admitted, retry;
	bool cache;             /* a fleet partition's: the database is the truth, this copy a cache */
	struct cz_circuit *c;
	struct cz_job *j;
	struct cz_jent je;
	const char *path[CZ_ENGINE_MAX_PARTS];
	int wfd[CZ_ENGINE_MAX_PARTS];
	off_t size[CZ_ENGINE_MAX_PARTS];
	bool inp[CZ_ENGINE_MAX_PARTS];  /* partition i is a circom input (JSON), not a witness */
	uint8_t dg[CZ_ENGINE_MAX_PARTS][CZ_JOURNAL_DIGEST], jdg[CZ_JOURNAL_DIGEST];
	char err[400];
};

/* Each witness of the circuit's size: its header (magic, version, field
 * size, prime against the key's curve, witness count), read here, outside
 * the lock and before a sequence number is spent: a zero file of the right
 * size used to be accepted and fail at its proof.  Another size is
 * witnesses_check_locked's to refuse. */
static json_object *witnesses_head(struct submit *s, uint32_t nvars, enum cz_curve curve)
{
	char err[256];
	for (uint32_t i = 0; i < s->n; i++)
		if (!s->inp[i] && (uint64_t)s->size[i] == cz_wtns_file_size(nvars) &&
		    cz_wtns_check_head_fd(s->wfd[i], nvars, curve, err, sizeof(err)))
			return cz_ctl_err("witness %u%s%s: %s", i, s->path[i] ? " " : "", s->path[i] ? s->path[i] : "",
					   err);
	return NULL;
}

/* parse: the fields, the priority, the id's form. */
static json_object *submit_parse(struct submit *s, json_object *req)
{
	const char *pr = NULL, *id;
	json_object *r;

	if ((r = cz_field_str(req, "circuit", true, &s->name)) || (r = cz_field_str(req, "priority", false, &pr)) ||
	    (r = cz_field_str(req, "id", false, &s->id)))
		return r;
	id = s->id;
	if (pr && cz_prio_parse(pr, &s->prio))
		return cz_ctl_err("unknown priority '%s' (" CZ_PRIO_NAMES ")", pr);
	const char *why = id ? cz_id_check(id) : NULL;
	if (why) {
		char shown[4 * 64 + 8];
		cz_str_shown(shown, sizeof(shown), id, strlen(id));
		return cz_ctl_err("job id '%s': %s", shown, why);
	}
	if (id && id[0] == '@')
		return cz_ctl_err("job id '%s': ids starting with '@' are the daemon's own (a job without "
				  "--id is named @<sequence number>)", id);
	return NULL;
}

/* The request's "inputs" (docs/protocol.md): an integer k says passed
 * descriptor k is an input, not a witness (fd_inp[k]); an object is an
 * input inline (*ninline counts them; inputs_inline spools them). */
json_object *cz_req_inputs_parse(json_object *req, int nfds, bool *fd_inp, uint32_t *ninline)
{
	json_object *a;
	if (!json_object_object_get_ex(req, "inputs", &a))
		return NULL;
	if (!json_object_is_type(a, json_type_array))
		return cz_ctl_err("\"inputs\" must be an array of inputs (objects) and passed-descriptor "
				  "indices (numbers)");
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		json_object *v = json_object_array_get_idx(a, k);
		if (json_object_is_type(v, json_type_object)) {
			(*ninline)++;
			continue;
		}
		int64_t i = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
		if (i < 0 || i >= nfds)
			return cz_ctl_err("inputs[%zu]: neither an input (an object) nor the index of a passed "
					  "descriptor (0 to %d)", k, nfds - 1);
		if (fd_inp[i])
			return cz_ctl_err("inputs[%zu]: descriptor %lld named twice", k, (long long)i);
		fd_inp[i] = true;
	}
	return NULL;
}

/* The inline inputs, after the witnesses and passed ones: each into a
 * memory file, then spooled as a passed descriptor is. */
static json_object *inputs_inline(struct submit *s, json_object *req)
{
	json_object *a;
	if (!json_object_object_get_ex(req, "inputs", &a))
		return NULL;
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		json_object *v = json_object_array_get_idx(a, k);
		if (!json_object_is_type(v, json_type_object))
			continue;
		size_t len;
		const char *t = json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN, &len);
		uint32_t i = s->n;
		int fd = memfd_create("cuzk-input", MFD_CLOEXEC);
		if (fd < 0)
			return cz_ctl_err("inputs[%zu]: memfd_create: %s", k, strerror(errno));
		s->wfd[i] = fd;
		s->n++;
		s->inp[i] = true;
		s->path[i] = NULL;
		s->size[i] = (off_t)len;
		for (size_t done = 0; done < len;) {
			ssize_t w = write(fd, t + done, len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return cz_ctl_err("inputs[%zu]: writing it to memory: %s", k,
						  w < 0 ? strerror(errno) : "short write");
			done += (size_t)w;
		}
	}
	return NULL;
}

/* open: the witnesses, before any lock.  The circuit is looked up again
 * under the lock in admit (it may be unloaded meanwhile); this first look
 * only orders the errors. */
static json_object *submit_open(struct submit *s, json_object *req, int *fds, int nfds)
{
	struct cz_engine *e = s->e;

	pthread_mutex_lock(&e->lock);
	const struct cz_circuit *c = cz_circuit_find(e, s->name);
	uint32_t nvars = c ? c->key.nvars : 0;
	enum cz_curve curve = c ? c->curve : (enum cz_curve)0;       /* unused without c */
	pthread_mutex_unlock(&e->lock);
	if (!c)
		return NULL;
	bool fd_inp[CZ_CTL_MAX_FDS] = { 0 };
	uint32_t ninline = 0;
	json_object *r = cz_req_inputs_parse(req, nfds, fd_inp, &ninline);
	if (!r)
		r = witnesses_open(req, fds, nfds, s->wfd, s->size, s->path, &s->n, ninline);
	if (r)
		return r;
	for (int i = 0; i < nfds && (uint32_t)i < s->n; i++)
		s->inp[i] = fd_inp[i];
	return (r = witnesses_head(s, nvars, curve)) ? r : inputs_inline(s, req);
}

static bool submit_has_input(const struct submit *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->inp[i])
			return true;
	return false;
}

/* admit: under the lock, the circuit, the witnesses' shape, the queue
 * places and a sequence number; or s->retry, an id held already. */
static json_object *submit_admit(struct submit *s)
{
	struct cz_engine *e = s->e;
	json_object *r;

	pthread_mutex_lock(&e->lock);
	s->c = cz_circuit_find(e, s->name);
	/* An id held already: a retry (or a clash), answered from digests of
	 * the client's own files, before admission: a retry of an accepted job
	 * needs no queue place and no spool copy, and must not be told "queue
	 * full" for the job it already has. */
	struct cz_jent hje;
	s->retry = s->id && (job_find_locked(e, s->id) || (e->jn && cz_journal_find(e->jn, s->id, &hje, NULL)));
	if (!s->c)
		r = cz_ctl_err("unknown circuit '%s' (load it first; see `cuzkctl circuits`)", s->name);
	else if (e->stopping)
		r = cz_ctl_err("the daemon is shutting down");
	else if (!(r = witnesses_check_locked(e, s->c, s->n, s->size, s->path, s->inp)) && !s->retry &&
		 !(r = cz_admit_locked(e, s->c, s->n, submit_has_input(s)))) {     /* queue room, taken now; a partition that can ever fit */
		s->admitted = true;     /* n places held: given back by submit_undo if this submit fails */
		s->out_disk = cz_admit_out_disk(s->c);
		s->seq = e->next_seq++; /* a number an unaccepted job burns is never reused */
	}
	pthread_mutex_unlock(&e->lock);
	return r;
}

/* Under the lock: the id's holder (waiting while it is being accepted),
 * or NULL when the id is free; s->locked on return. */
static json_object *submit_id_locked(struct submit *s, bool recheck_circuit)
{
	cz_mutex_assert_held(&s->e->lock);
	struct cz_engine *e = s->e;
	json_object *r = NULL;

	for (;;) {
		bool wait = false;
		if (recheck_circuit) {
			s->c = cz_circuit_find(e, s->name);
			if (!s->c) {
				r = cz_ctl_err("unknown circuit '%s' (unloaded while the witnesses were spooled)",
					       s->name);
				break;
			}
			if (e->stopping) {
				r = cz_ctl_err("the daemon is shutting down");
				break;
			}
		}
		if (s->id)
			r = id_check_locked(e, s->id, s->name, s->jdg, &wait, s->owner);
		if (!wait)
			break;
		pthread_cond_wait(&e->job_cv, &e->lock);        /* its holder's submit answers first */
	}
	return r;
}

/* A retry of an id held already: the same job back, or a refusal. */
static json_object *submit_retry(struct submit *s)
{
	json_object *r = NULL;

	for (uint32_t i = 0; i < s->n && !r; i++)
		if (cz_spool_digest(s->wfd[i], (uint64_t)s->size[i], s->dg[i]))
			r = cz_ctl_err("witness %u%s%s: cannot read it for its digest (id '%s' is "
				       "taken: a retry is matched by its witnesses' digests)", i,
				       s->path[i] ? " " : "", s->path[i] ? s->path[i] : "", s->id);
	if (r)
		return r;
	cz_spool_digest_join((const uint8_t (*)[CZ_JOURNAL_DIGEST])s->dg, s->n, s->jdg);
	pthread_mutex_lock(&s->e->lock);
	s->locked = true;
	if (!(r = submit_id_locked(s, false)))  /* its holder failed to be accepted, or its retention ended */
		r = cz_ctl_err("id '%s' was released while this submit checked it: submit again", s->id);
	return r;       /* the answer (existing job or refusal); nothing to undo */
}

/* spool: room in the spool's filesystem, reserved until the copies are on
 * disk; the daemon's own copies (the client's descriptors close here),
 * fsynced together; with an id, their digests. */
static json_object *submit_spool(struct submit *s)
{
	struct cz_engine *e = s->e;
	int sfd[CZ_ENGINE_MAX_PARTS];
	uint32_t ns = 0, n = s->n;
	json_object *r;

	if ((r = cz_admit_spool(e, s->out_disk, n, s->size, &s->held)))
		return r;
	s->spooled = true;
	for (uint32_t i = 0; i < n && !r; i++) {
		char sn[48];
		cz_spool_name(sn, sizeof(sn), s->seq, i);
		int fd = cz_spool_copy(e->spoolfd, sn, s->wfd[i], (uint64_t)s->size[i], s->err, sizeof(s->err));
		close(s->wfd[i]);
		s->wfd[i] = -1;
		if (fd == -ENOSPC || fd == -EDQUOT)
			r = cz_admit_spool_nospace(e, i, n, s->size, s->err);
		else if (fd < 0)
			r = cz_ctl_err("witness %u%s%s: %s", i, s->path[i] ? " " : "", s->path[i] ? s->path[i] : "",
				       s->err);
		else
			sfd[ns++] = fd;
	}
	int src = r || s->cache ? 0 : cz_spool_sync(sfd, ns, s->err, sizeof(s->err));
	if (src == -ENOSPC || src == -EDQUOT)
		r = cz_admit_spool_nospace(e, ns ? ns - 1 : 0, n, s->size, s->err);
	else if (src)
		r = cz_ctl_err("spooling the witnesses: %s", s->err);
	for (uint32_t i = 0; !r && s->id && i < ns; i++)
		if (cz_spool_digest(sfd[i], (uint64_t)s->size[i], s->dg[i]))
			r = cz_ctl_err("witness %u: cannot read its spooled copy back for its digest", i);
	for (uint32_t i = 0; i < ns; i++)
		close(sfd[i]);
	if (r) {
		/* Removed before the space they held is given back. */
		cz_spool_remove(e->spoolfd, s->seq, n);
		s->spooled = false;
		return r;
	}
	/* On disk: in the filesystem's own count from here. */
	cz_admit_spool_done(e, &s->held);
	if (s->id)
		cz_spool_digest_join((const uint8_t (*)[CZ_JOURNAL_DIGEST])s->dg, n, s->jdg);
	return NULL;
}

/* record, under the lock: the id checked again, the job made (holding its
 * id, accepting: not yet queued) and its submit record given to the
 * journal; the lock held on return (s->locked) until the job is linked. */
static json_object *submit_record(struct submit *s)
{
	struct cz_engine *e = s->e;
	struct cz_job *j;
	json_object *r;

	pthread_mutex_lock(&e->lock);
	s->locked = true;
	if ((r = submit_id_locked(s, true)))
		return r;
	if ((j = job_new(s->c, s->n, s->wfd, s->inp)) && cz_output_job_init(j)) {   /* its output buffer: none made per partition */
		cz_job_free(j);
		j = NULL;
	}
	if (!j)
		return cz_ctl_err("out of memory");
	j->seq = s->seq;
	j->prio = s->prio;
	j->owner = s->owner;
	j->out_disk = s->out_disk;
	j->t_submit = cz_trace_now();
	j->accepting = true;
	j->has_digest = s->id != NULL;
	memcpy(j->digest, s->jdg, sizeof(s->jdg));
	if (s->id)
		snprintf(j->id, sizeof(j->id), "%s", s->id);
	else
		cz_job_auto_id(j->id, sizeof(j->id), s->seq);
	struct cz_jent *je = &s->je;
	*je = (struct cz_jent){ .seq = s->seq, .nparts = s->n, .prio = (uint8_t)s->prio,
				.has_digest = j->has_digest, .t_submit = cz_clock_ns(CLOCK_REALTIME),
				.owner = s->owner, .nowait = s->cache };
	snprintf(je->id, sizeof(je->id), "%s", j->id);
	snprintf(je->circuit, sizeof(je->circuit), "%s", s->c->name);
	memcpy(je->digest, s->jdg, sizeof(s->jdg));
	je->has_kdigest = s->c->has_kdigest;    /* which key (a resumed job names it) */
	memcpy(je->kdigest, s->c->kdigest, sizeof(je->kdigest));
	for (uint32_t i = 0; i < s->n; i++)     /* which partitions are inputs (docs/formats.md) */
		if (s->inp[i])
			je->inputs[i / 8] |= (uint8_t)(1u << (i % 8));
	if (!(s->ticket = cz_journal_submit(e->jn, je))) {
		cz_job_free(j);
		return cz_ctl_err("the journal cannot take the job (out of memory, or it cannot be "
				  "written: see cuzkd's log)");
	}
	s->c->jobs++;
	j->next = e->jobs;      /* holds its id (and the circuit) from here */
	e->jobs = j;
	s->j = j;
	/* Its partitions hold the n places from here, each until its terminal
	 * step (cz_admit_part_end_locked). */
	s->admitted = false;
	return NULL;
}

/* queue, once the record is durable (or failed to be): the partitions
 * queued (cz_job_queue_locked), or failed "not accepted"; the answer. */
static json_object *submit_queue(struct submit *s, int jrc)
{
	struct cz_engine *e = s->e;
	struct cz_job *j = s->j;

	pthread_mutex_lock(&e->lock);
	j->accepting = false;
	cz_admit_accepted_locked(e, s->n);
	pthread_cond_broadcast(&e->job_cv);     /* a retry of its id waits for this */
	if (jrc) {
		for (uint32_t i = 0; i < s->n; i++) {
			struct cz_part *p = &j->parts[i];
			snprintf(p->err, sizeof(p->err), "not accepted: %.290s", s->err);
			cz_part_set(p, CZ_PART_FAILED);
			cz_job_part_terminal_locked(e, p);
		}
		/* Never accepted: it holds its id no longer (the journal forgot
		 * it too), so a retry is a new submit, not "existing". */
		for (struct cz_job **pp = &e->jobs; *pp; pp = &(*pp)->next)
			if (*pp == j && j->nterminal == j->nparts && !j->in_heap && !j->writing) {
				*pp = j->next;
				cz_job_free(j);
				break;
			}
		pthread_mutex_unlock(&e->lock);
		/* The journal refused it (its record could not be written: a
		 * full disk): temporary, cuzkctl exits 75 (cuzkd(8), Full disk). */
		json_object *r = cz_ctl_err("job %s not accepted: %s", s->je.id, s->err);
		json_object_object_add(r, "journal_refused", json_object_new_boolean(1));
		json_object_object_add(r, "retry_after_ms", json_object_new_int(1000));
		return r;
	}
	cz_job_queue_locked(e, j);
	jobs_trim_locked(e);
	pthread_cond_signal(&e->dispatch_cv);
	pthread_mutex_unlock(&e->lock);

	json_object *r = cz_ctl_ok();
	json_object_object_add(r, "job", json_object_new_string(s->je.id));
	json_object_object_add(r, "seq", json_object_new_int64((int64_t)s->seq));
	json_object_object_add(r, "partitions", json_object_new_int((int)s->n));
	return r;
}

/* A submit that ends before it is recorded: its places go back (the bound
 * counts only real jobs), its copies go (never acknowledged), its spool
 * reservation and every descriptor it still holds. */
static json_object *submit_undo(struct submit *s, json_object *r, int *fds, int nfds)
{
	struct cz_engine *e = s->e;

	if (s->admitted) {
		if (!s->locked)
			pthread_mutex_lock(&e->lock);
		cz_admit_release_locked(e, s->n, s->out_disk);
		s->locked = true;
	}
	if (s->locked)
		pthread_mutex_unlock(&e->lock);
	if (s->spooled)
		cz_spool_remove(e->spoolfd, s->seq, s->n);
	cz_admit_spool_done(e, &s->held);
	for (int i = 0; i < CZ_ENGINE_MAX_PARTS; i++)
		if (s->wfd[i] >= 0)
			close(s->wfd[i]);
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}

static json_object *submit_run(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner, bool cache)
{
	struct submit sub = { .e = e, .prio = CZ_PRIO_NORMAL, .owner = owner, .cache = cache }, *s = &sub;
	json_object *r;

	for (int i = 0; i < CZ_ENGINE_MAX_PARTS; i++)
		s->wfd[i] = -1;
	if (!(r = submit_parse(s, req)) && !(r = submit_open(s, req, fds, nfds)) && !(r = submit_admit(s)))
		r = s->retry ? submit_retry(s) : submit_spool(s);
	if (r || (r = submit_record(s))) {
		return submit_undo(s, r, fds, nfds);
	}
	pthread_mutex_unlock(&e->lock);
	s->locked = false;
	/* A cached job is queued at once: its record and spool copy reach the
	 * disk with the journal's next group commit, off the caller's path. */
	int jrc = s->cache ? 0 : cz_journal_wait(e->jn, s->ticket, s->err, sizeof(s->err));
	return submit_queue(s, jrc);
}

json_object *cz_req_submit(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner)
{
	return submit_run(e, req, fds, nfds, owner, false);
}

json_object *cz_req_submit_cached(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner)
{
	return submit_run(e, req, fds, nfds, owner, true);
}

static const char *job_state_name(int s)
{
	static const char *const n[] = { "active", "done", "failed", "cancelled" };
	return s >= 0 && s <= CZ_JOB_CANCELLED ? n[s] : "?";
}

static json_object *job_result_locked(const struct cz_engine *e, const struct cz_job *j)
{
	cz_mutex_assert_held(&e->lock);
	char dir[PATH_MAX + 80];
	int st = atomic_load(&j->state);
	json_object *r = st == CZ_JOB_DONE ? cz_ctl_ok() : cz_ctl_err("job %s %s%s%s", j->id,
					   job_state_name(st), *j->err ? ": " : "", j->err);
	json_object_object_add(r, "job", json_object_new_string(j->id));
	json_object_object_add(r, "seq", json_object_new_int64((int64_t)j->seq));
	json_object_object_add(r, "state", json_object_new_string(job_state_name(st)));
	if (st == CZ_JOB_DONE) {
		cz_job_dir(e, j->id, dir, sizeof(dir));
		json_object_object_add(r, "dir", json_object_new_string(dir));
	}
	json_object_object_add(r, "ms", json_object_new_double((double)(j->t_finish - j->t_submit) / 1e6));
	json_object_object_add(r, "submit_ns", json_object_new_int64((int64_t)j->t_submit));
	json_object_object_add(r, "finish_ns", json_object_new_int64((int64_t)j->t_finish));
	json_object_object_add(r, "accounting", cz_metrics_acct_json(j));
	return r;
}

/* How long a cancel waits for its end record to be durable. */
#define CANCEL_WAIT_NS (5 * 1000000000ll)

/* A year: any longer is surely a mistake, and far below where the
 * deadline's arithmetic could overflow (a 1e19 s timeout once wrapped
 * time_t and made the wait spin holding the engine lock). */
#define AWAIT_MAX_S (366.0 * 86400)

json_object *cz_req_await(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer)
{
	const char *id = NULL;
	double timeout = -1;
	struct timespec until;
	json_object *r;

	if ((r = cz_field_str(req, "job", true, &id)) ||
	    (r = cz_field_seconds(req, "timeout", AWAIT_MAX_S, &timeout)))
		return r;
	until = cz_deadline(CLOCK_MONOTONIC, timeout >= 0 ? llround(timeout * 1e9) : 0);   /* job_cv's clock */
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct cz_job *j = job_find_locked(e, id);
		/* A finished job answers once its end record is durable, so an
		 * answer is never taken back by a crash. */
		if (j && atomic_load(&j->state) != CZ_JOB_ACTIVE && j->nterminal == j->nparts &&
		    (!j->end_ticket || cz_journal_durable(e->jn) >= j->end_ticket)) {
			r = job_result_locked(e, j);
			break;
		}
		if (!j) {       /* only the journal has it: finished, retained */
			bool pending;
			if ((r = cz_recover_result(e, id, &pending)))
				break;
			if (!pending) {
				r = cz_ctl_err("unknown job '%s'", id);
				break;
			}
		}
		if (e->stopping) {
			r = cz_ctl_err("job %s: the daemon is shutting down", id);
			break;
		}
		/* Set before cz_engine_wake() takes the lock to broadcast, so
		 * checked here under it, no hangup is missed. */
		if (peer && atomic_load(&peer->gone)) {
			r = cz_ctl_err("job %s: the client hung up", id);
			break;
		}
		/* The wait gives the lock up: status and submit run meanwhile. */
		int rc = timeout < 0 ? pthread_cond_wait(&e->job_cv, &e->lock)
				     : pthread_cond_timedwait(&e->job_cv, &e->lock, &until);
		if (rc == ETIMEDOUT) {
			/* A job that waits on no device says so (an only device
			 * failed or hung: docs/cuzkd.8.md, Hung devices). */
			char why[256];
			bool serving = cz_engine_serving(e, why, sizeof(why));
			/* Resumed after a restart, its circuit not loaded: which.
			 * Proved, its proofs waiting for the disk: output-retry
			 * (engine/durable/output.c). */
			struct cz_job *wj = job_find_locked(e, id);
			const char *circ = wj && wj->waiting_key ? wj->circ_name : NULL;
			char kh[2 * CZ_JOURNAL_DIGEST + 1] = "";
			if (circ && wj->has_kdigest)
				cz_journal_hex(kh, wj->kdigest);
			bool oretry = wj && wj->out_tries && atomic_load(&wj->state) == CZ_JOB_ACTIVE;
			if (oretry)
				r = cz_ctl_err("job %s: still running after %.1f s; output-retry: its proofs are proved "
					       "but not yet written (attempt %u: %s)", id, timeout, wj->out_tries,
					       wj->out_err);
			else
				r = cz_ctl_err("job %s: still running after %.1f s%s%s%s%s%s%s%s%s", id, timeout,
					       serving ? "" : "; ", serving ? "" : why,
					       circ ? "; it waits for circuit '" : "", circ ? circ : "",
					       circ ? "' to be loaded (accepted before the restart" : "",
					       !circ ? "" : *kh ? ", with the key of key_digest " : "; the journal "
					       "records no digest of its key", !circ ? "" : *kh ? kh : "",
					       circ ? ")" : "");
			if (!serving)
				json_object_object_add(r, "not_serving", json_object_new_string(why));
			if (circ)
				json_object_object_add(r, "waiting_for_circuit", json_object_new_string(circ));
			if (*kh)
				json_object_object_add(r, "waiting_for_key_digest", json_object_new_string(kh));
			json_object_object_add(r, "state", json_object_new_string(oretry ? "output-retry" : "active"));
			json_object_object_add(r, "timeout", json_object_new_boolean(1));
			break;
		}
		if (rc) {   /* never loop on an error: that was the spin */
			r = cz_ctl_err("job %s: waiting failed: %s", id, strerror(rc));
			break;
		}
	}
	pthread_mutex_unlock(&e->lock);
	return r;
}

/* await with a passed descriptor: a done job's files written into it (one
 * JSON document: engine/durable/output.c, cz_output_bundle), so that a
 * submitter who may not read the state directory still gets its proofs;
 * the kernel checked its right to write there at its own open().  r is
 * await's answer, consumed; the descriptor is the caller's to close. */
json_object *cz_req_deliver(json_object *r, int fd, struct cz_ctl_peer *peer)
{
	const char *dir = r ? json_object_get_string(json_object_object_get(r, "dir")) : NULL;
	const char *id = r ? json_object_get_string(json_object_object_get(r, "job")) : NULL;
	json_object *okv;
	if (!r || !json_object_object_get_ex(r, "ok", &okv) || !json_object_get_boolean(okv) || !dir || !id)
		return r;       /* not done: nothing to deliver, the answer says why */
	char err[300] = "";
	size_t len = 0;
	char *b = cz_output_bundle(dir, id, &len, err, sizeof(err));
	if (b && !cz_ctl_peer_write(peer, fd, b, len, err, sizeof(err))) {
		json_object_object_add(r, "delivered_bytes", json_object_new_int64((int64_t)len));
		free(b);
		return r;
	}
	free(b);
	json_object *e = cz_ctl_err("job %s done, but its proofs could not be written to the passed descriptor: %s",
				    id, err);
	json_object_put(r);
	return e;
}

json_object *cz_req_cancel(struct cz_engine *e, json_object *req)
{
	const char *id = NULL;
	json_object *r;
	uint32_t dropped = 0;

	if ((r = cz_field_str(req, "job", true, &id)))
		return r;
	uint64_t ticket = 0;
	bool kick = false;
	pthread_mutex_lock(&e->lock);
	struct cz_job *j = job_find_locked(e, id);
	if (!j)
		r = cz_ctl_err("unknown job '%s'", id);
	else if (j->accepting)
		r = cz_ctl_err("job %s is still being accepted (its submit has not answered yet)", id);
	else if (atomic_load(&j->state) != CZ_JOB_ACTIVE || j->end_ticket)
		r = cz_ctl_err("job %s already %s", id, job_state_name(j->end_ticket &&
				atomic_load(&j->state) == CZ_JOB_ACTIVE ? CZ_JOB_DONE : atomic_load(&j->state)));
	else {
		atomic_store(&j->state, CZ_JOB_CANCELLED);
		e->jobs_cancelled++;
		cz_pipe_job_ended(&e->pipe, j->seq);     /* consumers pass on the rest */
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
		/* Recorded now, not when its running partitions end: a crash
		 * meanwhile must not resume a cancelled job. */
		if (!j->end_ticket) {
			j->end_ticket = cz_journal_end_acct(e->jn, j->seq, CZ_JOB_CANCELLED, "",
							    (double)(cz_trace_now() - j->t_submit) / 1e6,
							    &j->acct, j->t_submit);
			j->acct_late = j->end_ticket && j->nterminal < j->nparts;    /* some still running */
		}
		ticket = j->end_ticket;
		kick = j->writing;      /* in output-retry: the writer ends it now */
		r = cz_ctl_ok();
		json_object_object_add(r, "job", json_object_new_string(id));
		json_object_object_add(r, "dropped", json_object_new_int((int)dropped));
		json_object_object_add(r, "running", json_object_new_int((int)(j->nparts - j->nterminal)));
	}
	pthread_mutex_unlock(&e->lock);
	if (kick)
		cz_output_kick(e);
	char err[400];
	/* Bounded: a journal that cannot be written (a full disk) keeps the
	 * record and writes it once it can; the canceller is told so. */
	if (ticket && cz_journal_wait_for(e->jn, ticket, CANCEL_WAIT_NS, err, sizeof(err))) {
		json_object_put(r);
		r = cz_ctl_err("job %s cancelled, but %s", id, err);
	}
	return r;
}

/* A job as status shows it, copied under the engine lock (plain bytes,
 * ~2.3 KiB) so that the JSON is built after the lock is released: with
 * 1,000 jobs building it under the lock held the dispatcher and the
 * finalizers' terminal step for 38 ms a request (tools/bench-metrics.sh,
 * loaded 2-core VM), 5 times a second with the dashboard open. */
struct job_snap {
	struct cz_job j;                /* id, seq, names, prio, err, nparts, t_submit, acct */
	int state;
	int8_t st[CZ_ENGINE_MAX_PARTS];
	int16_t cons[CZ_ENGINE_MAX_PARTS];
};

static void job_snap_locked(const struct cz_engine *e, const struct cz_job *j, struct job_snap *s)
{
	cz_mutex_assert_held(&e->lock);
	memcpy(s->j.id, j->id, sizeof(s->j.id));
	memcpy(s->j.circ_name, j->circ_name, sizeof(s->j.circ_name));
	memcpy(s->j.err, j->err, sizeof(s->j.err));
	s->j.seq = j->seq;
	s->j.prio = j->prio;
	s->j.nparts = j->nparts;
	s->j.t_submit = j->t_submit;
	s->j.acct = j->acct;
	s->j.waiting_key = j->waiting_key;
	s->j.has_kdigest = j->has_kdigest;
	memcpy(s->j.kdigest, j->kdigest, sizeof(s->j.kdigest));
	s->j.out_tries = j->out_tries;
	s->j.out_first_ns = j->out_first_ns;
	s->j.out_next_ns = j->out_next_ns;
	memcpy(s->j.out_err, j->out_err, sizeof(s->j.out_err));
	s->state = atomic_load(&j->state);
	for (uint32_t i = 0; i < j->nparts && i < CZ_ENGINE_MAX_PARTS; i++) {
		int st = cz_job_part_state(j, i);
		int c = j->parts ? atomic_load(&j->parts[i].consumer) : -1;
		/* Proving is the consumer's to say (its line in the pipe). */
		if (st == CZ_PART_READY && c < 0 && (c = cz_pipe_part_consumer(&e->pipe, &j->parts[i])) >= 0)
			st = CZ_PART_PROVING;
		s->st[i] = (int8_t)st;
		s->cons[i] = (int16_t)c;
	}
}

/* A job in output-retry (engine/durable/output.c): its proofs wait for
 * the disk; tries, the last cause, when it is tried next. */
static json_object *output_retry_json(const struct cz_job *j)
{
	json_object *o = json_object_new_object();
	int64_t now = (int64_t)cz_trace_now();
	json_object_object_add(o, "tries", json_object_new_int64((int64_t)j->out_tries));
	json_object_object_add(o, "error", json_object_new_string(j->out_err));
	json_object_object_add(o, "next_attempt_ms",
			       json_object_new_int64(((int64_t)j->out_next_ns - now) / 1000000 > 0
							     ? ((int64_t)j->out_next_ns - now) / 1000000 : 0));
	json_object_object_add(o, "waiting_ms", json_object_new_int64((now - (int64_t)j->out_first_ns) / 1000000));
	return o;
}

static json_object *status_job(const struct cz_engine *e, const struct job_snap *s)
{
	const struct cz_job *j = &s->j;
	json_object *o = json_object_new_object();
	json_object *parts = json_object_new_array();
	json_object_object_add(o, "job", json_object_new_string(j->id));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)j->seq));
	json_object_object_add(o, "circuit", json_object_new_string(j->circ_name));
	json_object_object_add(o, "priority", json_object_new_string(cz_prio_name(j->prio)));
	bool oretry = s->state == CZ_JOB_ACTIVE && j->out_tries;
	json_object_object_add(o, "state", json_object_new_string(oretry ? "output-retry" : job_state_name(s->state)));
	if (*j->err)
		json_object_object_add(o, "error", json_object_new_string(j->err));
	/* Resumed after a restart, its circuit not loaded yet: which one it
	 * waits for (the journal names the circuit, not the key file). */
	if (j->waiting_key && s->state == CZ_JOB_ACTIVE) {
		json_object_object_add(o, "waiting_for_circuit", json_object_new_string(j->circ_name));
		if (j->has_kdigest) {   /* the key it was accepted with (circuits' key_digest) */
			char kh[2 * CZ_JOURNAL_DIGEST + 1];
			cz_journal_hex(kh, j->kdigest);
			json_object_object_add(o, "waiting_for_key_digest", json_object_new_string(kh));
		}
	}
	if (oretry)
		json_object_object_add(o, "output_retry", output_retry_json(j));
	/* Where its partitions are: counts by state, and for each one that
	 * reached a consumer (while the job keeps its partition records),
	 * which consumer and device. */
	uint32_t cnt[CZ_PART_CANCELLED + 1] = { 0 };
	json_object *where = json_object_new_array();
	for (uint32_t i = 0; i < j->nparts && i < CZ_ENGINE_MAX_PARTS; i++) {
		int st = s->st[i], c = s->cons[i];
		json_object_array_add(parts, json_object_new_string(cz_part_state_name(st)));
		if (st >= 0 && st <= CZ_PART_CANCELLED)
			cnt[st]++;
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

/* A consumer's current job, to a non-admin viewer: only when it is one of
 * the viewer's own (another user's sequence numbers tell it how much that
 * user submits, and name jobs it is not to know of). */
static bool seq_visible(const struct job_snap *snap, size_t n, long view, uint64_t seq)
{
	if (view < 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (snap[i].j.seq == seq)
			return true;
	return false;
}

/* Each consumer's line; a busy one's job only where the viewer may see it. */
static void status_consumers(const struct cz_engine *e, json_object *cons, const struct job_snap *snap,
			     size_t nsnap, long view)
{
	for (unsigned i = 0; i < e->ncons; i++) {
		const struct cz_consumer *c = &e->cons[i];
		const struct cz_pipe_cons *l = &e->pipe.cons[i];
		json_object *o = json_object_new_object();
		int busy = atomic_load(&l->proving);
		json_object_object_add(o, "consumer", json_object_new_int((int)i));
		json_object_object_add(o, "device", json_object_new_int((int)c->dev));
		json_object_object_add(o, "state", json_object_new_string(busy ? "busy" : "idle"));
		uint64_t seq = atomic_load(&l->cur_job);
		if (busy && seq_visible(snap, nsnap, view, seq)) {
			json_object_object_add(o, "job_seq", json_object_new_int64((int64_t)seq));
			json_object_object_add(o, "partition", json_object_new_int((int)atomic_load(&l->cur_part)));
		}
		json_object_object_add(o, "proved", json_object_new_int64((int64_t)atomic_load(&l->proved)));
		json_object_object_add(o, "busy_ms", json_object_new_double((double)atomic_load(&l->busy_ns) / 1e6));
		json_object_array_add(cons, o);
	}
}

/* status.counters' last: the queue, and the full-disk figures (engine/durable/output.c). */
static void counters_tail_locked(const struct cz_engine *e, json_object *cnt)
{
	cz_mutex_assert_held(&e->lock);
	json_object_object_add(cnt, "queued", json_object_new_int64((int64_t)e->queued.n));
	json_object_object_add(cnt, "jobs_output_retry", json_object_new_int64((int64_t)atomic_load(&e->out_waiting)));
	json_object_object_add(cnt, "output_retries", json_object_new_int64((int64_t)atomic_load(&e->out_retries)));
}

json_object *cz_req_status(struct cz_engine *e, long view)
{
	json_object *r = cz_ctl_ok(), *jobs = json_object_new_array();
	json_object *cons = json_object_new_array(), *b = json_object_new_object();
	json_object *cnt = json_object_new_object();

	struct cz_budget_stat st;
	struct job_snap *snap = NULL;
	size_t nsnap = 0, cap = 0;
	pthread_mutex_lock(&e->lock);
	for (struct cz_job *j = e->jobs; j; j = j->next)
		cap += view < 0 || j->owner == view;    /* another uid's jobs are not its to see */
	snap = cap ? calloc(cap, sizeof(*snap)) : NULL;     /* out of memory: no jobs listed */
	for (struct cz_job *j = e->jobs; snap && j && nsnap < cap; j = j->next)
		if (view < 0 || j->owner == view)
			job_snap_locked(e, j, &snap[nsnap++]);
	cz_budget_stat(e->budget, &st);
	json_object_object_add(b, "budget", json_object_new_int64((int64_t)st.limit));
	json_object_object_add(b, "reserved", json_object_new_int64((int64_t)st.reserved));
	json_object_object_add(b, "free", json_object_new_int64((int64_t)st.free));
	json_object_object_add(b, "high_water", json_object_new_int64((int64_t)st.high_water));
	json_object_object_add(b, "waits", json_object_new_int64((int64_t)e->budget_waits));
	json_object_object_add(b, "inflight", json_object_new_int((int)e->inflight));
	json_object_object_add(b, "skip_aheads", json_object_new_int64((int64_t)e->budget_skips));
	json_object_object_add(r, "admission", cz_admit_status_locked(e));
	json_object_object_add(cnt, "jobs_submitted", json_object_new_int64((int64_t)e->next_seq - 1));
	json_object_object_add(cnt, "jobs_done", json_object_new_int64((int64_t)e->jobs_done));
	json_object_object_add(cnt, "jobs_failed", json_object_new_int64((int64_t)e->jobs_failed));
	json_object_object_add(cnt, "jobs_cancelled", json_object_new_int64((int64_t)e->jobs_cancelled));
	json_object_object_add(cnt, "partitions_done", json_object_new_int64((int64_t)e->parts_done));
	counters_tail_locked(e, cnt);
	pthread_mutex_unlock(&e->lock);
	for (size_t i = 0; i < nsnap; i++)
		json_object_array_add(jobs, status_job(e, &snap[i]));
	struct cz_journal_stat js;
	cz_journal_stat(e->jn, &js);
	json_object *jo = json_object_new_object();
	json_object_object_add(jo, "records", json_object_new_int64((int64_t)js.records));
	json_object_object_add(jo, "commits", json_object_new_int64((int64_t)js.commits));
	json_object_object_add(jo, "spool_dir_syncs", json_object_new_int64((int64_t)js.dir_syncs));
	json_object_object_add(jo, "bytes", json_object_new_int64((int64_t)js.bytes));
	json_object_object_add(jo, "compactions", json_object_new_int64((int64_t)js.compactions));
	json_object_object_add(jo, "jobs", json_object_new_int64((int64_t)js.live));
	json_object_object_add(jo, "replayed", json_object_new_int64((int64_t)js.replayed));
	json_object_object_add(jo, "torn_bytes", json_object_new_int64((int64_t)js.torn_bytes));
	cz_journal_damage_json(e->jn, jo);
	json_object_object_add(jo, "open_ms", json_object_new_double(js.open_ms));
	/* A failed write refuses submits until one goes through (engine/durable/journal.c). */
	json_object_object_add(jo, "refusing", json_object_new_boolean(js.error != 0));
	if (js.error)
		json_object_object_add(jo, "error", json_object_new_string(strerror(-js.error)));
	if (js.last_error)
		json_object_object_add(jo, "last_error", json_object_new_string(strerror(-js.last_error)));
	json_object_object_add(jo, "failed_commits", json_object_new_int64((int64_t)js.failed_commits));
	json_object_object_add(jo, "refused_submits", json_object_new_int64((int64_t)js.refused));
	json_object_object_add(jo, "retry_records", json_object_new_int64((int64_t)js.retry_records));
	json_object_object_add(r, "journal", jo);
	struct cz_spool_stat ss;
	cz_spool_stat(&ss);
	json_object *so = json_object_new_object(), *sf = json_object_new_object(),
		    *sb = json_object_new_object();
	for (int m = 0; m < CZ_SPOOL_METHODS; m++) {
		json_object_object_add(sf, ss.name[m], json_object_new_int64((int64_t)ss.files[m]));
		json_object_object_add(sb, ss.name[m], json_object_new_int64((int64_t)ss.bytes[m]));
	}
	json_object_object_add(so, "files", sf);
	json_object_object_add(so, "bytes", sb);
	json_object_object_add(r, "spool", so);
	json_object *place = cz_numa_status_json(e);
	if (place)
		json_object_object_add(r, "placement", place);
	status_consumers(e, cons, snap, nsnap, view);
	/* Taken after the engine lock is dropped; the stat lock is the
	 * control plane's own (engine/evidence/stat.c), never a consumer's. */
	uint64_t lost;
	json_object *devs = cz_stat_devices_json(e, &lost);
	/* Each device's process (engine/device/devproc.c): pid, state, restarts, last_exit. */
	for (size_t i = 0; devs && i < json_object_array_length(devs) && i < e->ndev; i++)
		cz_devproc_json(e, (unsigned)i, json_object_array_get_idx(devs, i));
	free(snap);
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

json_object *cz_req_trace(struct cz_engine *e, json_object *req, int *fds, int nfds,
			  struct cz_ctl_peer *peer)
{
	bool chrome = false;
	char *buf = NULL, err[256];
	size_t len = 0;
	json_object *r;
	(void)e;
	if ((r = cz_field_bool(req, "chrome", &chrome)) || nfds != 1) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		return r ? r : cz_ctl_err("trace needs exactly one passed descriptor to write to (got %d)", nfds);
	}
	json_object *sv;        /* a selection: engine/control/tracesel.c */
	if (json_object_object_get_ex(req, "job", &sv) || json_object_object_get_ex(req, "since", &sv) ||
	    json_object_object_get_ex(req, "follow", &sv))
		return cz_req_trace_select(e, req, fds[0], peer);
	/* Into memory first, then out without ever blocking on the reader:
	 * a stalled `cuzkctl trace | ...` must not hold shutdown. */
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? cz_trace_dump(f, chrome) : -1;
	if (f)
		rc |= fclose(f);
	if (rc)
		r = cz_ctl_err("trace: out of memory for the dump");
	else if (cz_ctl_peer_write(peer, fds[0], buf, len, err, sizeof(err)))
		r = cz_ctl_err("trace: %s", err);
	else
		r = cz_ctl_ok();
	free(buf);
	close(fds[0]);
	return r;
}
