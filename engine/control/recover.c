/* SPDX-License-Identifier: MIT */
/*
 * engine/control/recover.c — a start after a crash looks like a start after a
 * clean stop: what was accepted is there again.
 *
 * At start (cz_recover_start), from the journal (engine/durable/journal.c):
 *   - every unfinished job becomes a job again, with its sequence number,
 *     id and priority, its partitions queued, reading their spooled
 *     witnesses; it waits for its circuit (cuzkd --load, or a `load`),
 *     and is queued the moment that circuit is loaded, so jobs resume in
 *     their original order (the queue's key is priority, then sequence);
 *   - the spool keeps only unfinished jobs' witnesses (a crash between a
 *     copy and its journal record leaves an orphan: never acknowledged);
 *     after journal damage a file of a job the journal has no record of is
 *     moved next to the damaged journal instead (cz_journal_spool_lost);
 *   - proofs/ keeps only published directories: a temporary directory
 *     (proofs/.<seq>.tmp) of a job whose end record says done is renamed
 *     into place (its files were fsynced before that record was written),
 *     any other is removed, as are the per-file temporaries an older
 *     writer left (.<name>.tmp inside a job's directory).
 * Finished jobs stay in the journal only: `await` answers them from it
 * (cz_recover_result) until --retain after their end.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cz_recover_on_commit(void *v)
{
	struct cz_engine *e = v;
	struct cz_journal_stat js;
	cz_journal_stat(e->jn, &js);
	atomic_store_explicit(&e->jn_refusing, js.error != 0, memory_order_relaxed);
	atomic_store_explicit(&e->jn_failed_commits, js.failed_commits, memory_order_relaxed);
	atomic_store_explicit(&e->jn_refused, js.refused, memory_order_relaxed);
	cz_job_wake(v);
	cz_fnode_poke(v);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool same_key(const struct cz_jent *a, const struct cz_jent *b)
{
	return !strcmp(a->circuit, b->circuit) && a->has_kdigest == b->has_kdigest &&
	       (!a->has_kdigest || !memcmp(a->kdigest, b->kdigest, sizeof(a->kdigest)));
}

/* One line per circuit and key the resumed jobs wait for: its name, the
 * key's digest as journaled (or that there is none), how many jobs, the
 * first and last sequence numbers (u is in sequence order). */
static void log_waiting(const struct cz_jent *u, size_t nu)
{
	for (size_t k = 0; k < nu; k++) {
		bool seen = false;
		for (size_t m = 0; m < k && !seen; m++)
			seen = same_key(&u[m], &u[k]);
		if (seen)
			continue;
		size_t n = 0;
		uint64_t last = u[k].seq;
		for (size_t m = k; m < nu; m++)
			if (same_key(&u[m], &u[k])) {
				n++;
				last = u[m].seq;
			}
		char h[2 * CZ_JOURNAL_DIGEST + 1] = "";
		if (u[k].has_kdigest)
			cz_journal_hex(h, u[k].kdigest);
		fprintf(stderr, "cuzkd: journal: %zu resumed job(s) (sequence %llu to %llu) wait for circuit '%s' "
			"to be loaded (--load %s=KEY.zkey or cuzkctl load %s KEY.zkey); %s%s%s\n", n,
			(unsigned long long)u[k].seq, (unsigned long long)last, u[k].circuit, u[k].circuit,
			u[k].circuit, *h ? "they were accepted with the key of key_digest " : "",
			*h ? h : "the journal records no digest of their key (accepted by an older cuzkd)",
			*h ? " (`cuzkctl circuits` shows a loaded key's key_digest)" : "");
	}
}

/* Removes spool files no unfinished job owns. */
static unsigned clean_spool(struct cz_engine *e, const struct cz_jent *u, size_t nu)
{
	uint64_t *seqs = nu ? malloc(nu * sizeof(*seqs)) : NULL;
	unsigned removed = 0;
	for (size_t k = 0; seqs && k < nu; k++)
		seqs[k] = u[k].seq;     /* already in order */
	int fd = dup(e->spoolfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		free(seqs);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		unsigned long long s;
		unsigned k;
		char tail[8];
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int keep = sscanf(de->d_name, "%llu.%u.%7s", &s, &k, tail) == 3 && !strcmp(tail, "wtns");
		if (keep) {
			uint64_t key = s;
			uint64_t *hit = seqs ? bsearch(&key, seqs, nu, sizeof(*seqs), cmp_u64) : NULL;
			keep = hit && k < u[hit - seqs].nparts;
		}
		if (!keep && cz_journal_spool_lost(e->jn, dirfd(d), de->d_name))
			continue;       /* after damage: not provably unreferenced */
		if (!keep && !unlinkat(dirfd(d), de->d_name, 0))
			removed++;
	}
	closedir(d);
	free(seqs);
	return removed;
}

/* Rolls forward or removes proofs/.<seq>.tmp; removes older per-file
 * temporaries once (the marker proofs/.clean says it was done). */
static void clean_proofs(struct cz_engine *e, unsigned *rolled, unsigned *removed)
{
	char pdir[PATH_MAX + 16], p[2 * PATH_MAX], fin[2 * PATH_MAX], id[64], marker[PATH_MAX + 32];
	snprintf(pdir, sizeof(pdir), "%s/proofs", e->state_dir);
	snprintf(marker, sizeof(marker), "%s/.clean", pdir);
	bool legacy = access(marker, F_OK) != 0;
	DIR *d = opendir(pdir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".clean"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", pdir, n);
		unsigned long long seq;
		char tail[8];
		if (n[0] == '.' && len > 4 && !strcmp(n + len - 4, ".tmp")) {
			if (sscanf(n, ".%llu.%3s", &seq, tail) == 2 && !strcmp(tail, "tmp") &&
			    cz_journal_done(e->jn, seq, id, sizeof(id))) {
				cz_job_dir(e, id, fin, sizeof(fin));
				if (!cz_job_publish(p, fin)) {
					(*rolled)++;
					continue;
				}
			}
			cz_job_rmdir(p);
			(*removed)++;
			continue;
		}
		if (!legacy)
			continue;
		DIR *jd = opendir(p);
		struct dirent *f;
		while (jd && (f = readdir(jd))) {
			size_t fl = strlen(f->d_name);
			if (f->d_name[0] == '.' && fl > 5 && !strcmp(f->d_name + fl - 4, ".tmp") &&
			    !unlinkat(dirfd(jd), f->d_name, 0))
				(*removed)++;
		}
		if (jd)
			closedir(jd);
	}
	closedir(d);
	if (legacy)
		close(open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0640));
	if (*rolled || *removed) {
		int fd = open(pdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
}

int cz_recover_start(struct cz_engine *e, char *err, size_t cap)
{
	if ((e->statelock = cz_statelock_take(e->state_dir, err, cap)) < 0)
		return -1;      /* another cuzkd's: nothing of it read or written */
	e->jn = cz_journal_open(e->state_dir, e->cfg.retain_s, cz_recover_on_commit, e, err, cap);
	if (!e->jn)
		return -1;
	e->spoolfd = cz_journal_spool_fd(e->jn);
	e->next_seq = cz_journal_next_seq(e->jn);
	size_t nu = 0;
	struct cz_jent *u = cz_journal_unfinished(e->jn, &nu);
	for (size_t k = 0; k < nu; k++) {
		struct cz_job *j = calloc(1, sizeof(*j));
		if (!j || !(j->parts = calloc(u[k].nparts, sizeof(*j->parts)))) {
			free(j);
			free(u);
			snprintf(err, cap, "out of memory resuming the journal's %zu unfinished jobs", nu);
			return -1;
		}
		j->seq = u[k].seq;
		snprintf(j->id, sizeof(j->id), "%s", u[k].id);
		snprintf(j->circ_name, sizeof(j->circ_name), "%s", u[k].circuit);
		j->prio = (enum cz_prio)u[k].prio;
		/* Its submitter's again; a record from before owners were
		 * journaled makes it the daemon's own (admins only). */
		j->owner = u[k].owner >= 0 ? u[k].owner : cz_access_owner(NULL);
		j->nparts = u[k].nparts;
		j->waiting_key = true;
		j->has_digest = u[k].has_digest;
		memcpy(j->digest, u[k].digest, sizeof(j->digest));
		j->has_kdigest = u[k].has_kdigest;
		memcpy(j->kdigest, u[k].kdigest, sizeof(j->kdigest));
		j->t_submit = cz_trace_now();
		for (uint32_t i = 0; i < j->nparts; i++) {
			j->parts[i].job = j;
			j->parts[i].idx = i;
			j->parts[i].wfd = -1;   /* synthesis opens the spooled copy */
			j->parts[i].input = u[k].inputs[i / 8] >> (i % 8) & 1;   /* a JSON input */
			atomic_init(&j->parts[i].consumer, -1);
			atomic_init(&j->parts[i].slot, -1);
			j->parts[i].node = -1;
		}
		j->next = e->jobs;      /* newest first, like submit's */
		e->jobs = j;
		cz_admit_recovered(e, j);       /* its queue places, as a submit's */
	}
	log_waiting(u, nu);
	unsigned orphans = clean_spool(e, u, nu), rolled = 0, removed = 0;
	free(u);
	clean_proofs(e, &rolled, &removed);
	struct cz_journal_stat st;
	cz_journal_stat(e->jn, &st);
	if (nu || st.live || orphans || rolled || removed || st.torn_bytes)
		fprintf(stderr, "cuzkd: journal: %zu unfinished job(s) resume once their circuits are loaded, "
			"%llu retained; %u orphaned spool file(s) and %u temporary output(s) removed, %u "
			"published on replay; next sequence number %llu (%.1f ms)\n", nu,
			(unsigned long long)(st.live - nu), orphans, removed, rolled,
			(unsigned long long)e->next_seq, st.open_ms);
	return 0;
}

void cz_recover_resume_locked(struct cz_engine *e, struct cz_circuit *c)
{
	cz_mutex_assert_held(&e->lock);
	unsigned n = 0, other = 0;
	for (struct cz_job *j = e->jobs; j; j = j->next) {
		if (!j->waiting_key || strcmp(j->circ_name, c->name))
			continue;
		j->waiting_key = false;
		/* The operator's key is the one it runs with; a different one
		 * than it was accepted with is said (its proofs will not verify
		 * against the old verification key). */
		other += j->has_kdigest && c->has_kdigest && memcmp(j->kdigest, c->kdigest, sizeof(j->kdigest)) &&
			 atomic_load(&j->state) == CZ_JOB_ACTIVE;
		if (atomic_load(&j->state) != CZ_JOB_ACTIVE)
			continue;       /* cancelled while it waited: ended already */
		j->circ = c;
		j->curve = c->curve;    /* the output writer renders by it: its curve's files */
		c->jobs++;
		if (cz_output_job_init(j)) {
			for (uint32_t i = 0; i < j->nparts; i++) {
				struct cz_part *p = &j->parts[i];
				snprintf(p->err, sizeof(p->err), "partition %u: out of memory resuming it", i);
				cz_part_set(p, CZ_PART_FAILED);
				cz_job_part_terminal_locked(e, p);
			}
			continue;
		}
		cz_job_queue_locked(e, j);     /* as a submit queues it */
		n++;
	}
	if (n) {
		fprintf(stderr, "cuzkd: %u job(s) from before the restart queued for circuit %s\n", n, c->name);
		pthread_cond_signal(&e->dispatch_cv);
	}
	if (other) {
		char h[2 * CZ_JOURNAL_DIGEST + 1];
		cz_journal_hex(h, c->kdigest);
		fprintf(stderr, "cuzkd: %u of them were accepted with another key than the one loaded now "
			"(key_digest %s, from %s): they are proved with this one\n", other, h, c->path);
	}
}

static const char *state_name(int s)
{
	static const char *const n[] = { "active", "done", "failed", "cancelled" };
	return s >= 0 && s <= CZ_JOB_CANCELLED ? n[s] : "?";
}

json_object *cz_recover_result(struct cz_engine *e, const char *id, bool *pending)
{
	struct cz_jent je;
	char er[CZ_JOURNAL_ERR], dir[PATH_MAX + 80];
	*pending = false;
	if (!cz_journal_find(e->jn, id, &je, er) || je.end < 0)
		return NULL;
	if (je.end_ticket > cz_journal_durable(e->jn)) {
		*pending = true;        /* its end is not durable yet: wait for the commit */
		return NULL;
	}
	json_object *r = je.end == CZ_JOB_DONE ? cz_ctl_ok()
			 : cz_ctl_err("job %s %s%s%s", id, state_name(je.end), *er ? ": " : "", er);
	json_object_object_add(r, "job", json_object_new_string(je.id));
	json_object_object_add(r, "seq", json_object_new_int64((int64_t)je.seq));
	json_object_object_add(r, "state", json_object_new_string(state_name(je.end)));
	if (je.end == CZ_JOB_DONE) {
		cz_job_dir(e, je.id, dir, sizeof(dir));
		json_object_object_add(r, "dir", json_object_new_string(dir));
	}
	json_object_object_add(r, "ms", json_object_new_double(je.ms));
	if (je.has_acct)        /* the live answer's fields, from the end record's figures */
		json_object_object_add(r, "accounting", cz_metrics_acct_json_of(&je.acct, je.nparts, 0));
	json_object_object_add(r, "from_journal", json_object_new_boolean(1));
	return r;
}
