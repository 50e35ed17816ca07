/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/output.c — a finished job's proofs on disk:
 *   <state-dir>/proofs/<job>/<k>.proof.json, <k>.public.json, proof.bin
 *
 * Who does what.  The finalizer renders each partition's three pieces into
 * the job's output buffer (made at submit, sized from the key: nothing is
 * allocated per partition) as soon as its proof verifies, and hands the
 * complete job to the writer thread (cz-final-io) through a small queue of
 * its own.  So writing and fsyncing never hold up verification: the
 * finalizer keeps taking partitions off the done ring while the writer
 * waits on the disk.
 *
 * The writer takes every job queued since its last round as one batch and
 * writes it through one io_uring ring made at start and kept for its life:
 *   - each job's files in a temporary directory of its own
 *     (proofs/.<seq>.tmp), each file's write linked to its fsync
 *     (IOSQE_IO_LINK), every file of every job in the batch in flight
 *     together (the SQ bounds how many; the rest follow as slots free);
 *   - a short write breaks the link (the fsync completes -ECANCELED): the
 *     rest is resubmitted, write + fsync again, never reported as failure;
 *   - then each temporary directory is fsynced (all the batch's in flight
 *     together), the jobs' end records go into the journal as one group
 *     commit (engine/durable/journal.c: "done" is durable before anyone sees the
 *     directory), and each directory is renamed into proofs/<id>/ and
 *     proofs/ fsynced once for the batch.  A job's directory appears whole
 *     or not at all; a crash after the end record and before the rename is
 *     rolled forward at the next start (engine/control/recover.c), any other
 *     temporary directory removed.
 * Per file: one write and one fsync (more only after a short write); per
 * job: one directory fsync and one rename; per batch: one journal commit,
 * one fsync of proofs/, one submit per SQ-full of requests.
 * An error fails only the job it belongs to, with its cause and file name.
 *
 * A full disk fails nothing (issue 24): an attempt that fails with
 * ENOSPC, EDQUOT, EIO, EMFILE or ENFILE removes what it wrote and puts the
 * job in output-retry: it stays active, its verified proofs in its buffer
 * and its witnesses in the spool (nothing ended in the journal, so nothing
 * removes them), and the writer tries it again after 1 s, doubling up to
 * --output-retry-max-ms (60 s).  Each failed attempt is logged with the
 * cause and the next wait, counted (status: output_retries and the job's
 * output_retry; metrics: cuzk_output_retries_total, cuzk_jobs_output_retry).
 * The job ends only by writing, by an operator's cancel (the writer is
 * kicked and ends it at once), or as failed once --retain has passed since
 * its first failure.  A shutdown leaves it unended: the next start resumes
 * it from its witnesses and proves it again (its proofs were only in
 * memory).  The journal's own failure is not retried here: the journal
 * stops (engine/durable/journal.c) and so does every job's end.
 *
 * Without io_uring (the ring cannot be set up: an old kernel or a seccomp
 * filter), the writer logs it once at start and uses write(2)/fsync(2).
 */
#define _GNU_SOURCE     /* renameat2 */
#include "engine/engine_pvt.h"
#include "engine/durable/uring.h"
#include "lib/clock.h"
#include "lib/thread.h"
#include "zk/io/groth16_io.h"
#include "zk/io/snarkjs_json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A job's paths: its published directory, its temporary one, the
 * automatic id (here with the writer that makes them; submit, await and
 * recovery name them too). */
void cz_job_auto_id(char *buf, size_t cap, uint64_t seq)
{
	snprintf(buf, cap, "@%llu", (unsigned long long)seq);
}

void cz_job_dir(const struct cz_engine *e, const char *id, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/proofs/%s", e->state_dir, id);
}

void cz_job_tmpdir(const struct cz_engine *e, uint64_t seq, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/proofs/.%llu.tmp", e->state_dir, (unsigned long long)seq);
}

/* A flat directory (a job's: files only) and what is in it. */
void cz_job_rmdir(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(path);
}

int cz_job_publish(const char *tmp, const char *final)
{
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE))
		return 0;
	if (errno == EINVAL)            /* a filesystem without renameat2's flags */
		return rename(tmp, final) ? -errno : 0;
	if (errno != EEXIST)
		return -errno;
	struct stat st;
	if (lstat(final, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* A directory left by an earlier job of this id, whose retention
	 * ended: swapped out in one step (readers see the old files or the
	 * new, never a mix), then removed. */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE))
		return -errno;
	cz_job_rmdir(tmp);
	return 0;
}

#define RING_ENTRIES 256
#define BATCH_FILES (4 * CZ_ENGINE_MAX_PARTS + 2)    /* two of the largest jobs */
#define BATCH_JOBS 64

enum { OP_WRITE, OP_FSYNC, OP_DIRSYNC };

struct ofile {
	const char *data;
	uint32_t len, done;     /* bytes, bytes written */
	uint16_t job;           /* index in the batch */
	uint8_t synced;
	int fd;
	char name[24];          /* "<k>.proof.json", "<k>.public.json", "proof.bin" */
};

struct ojob {
	struct cz_job *j;
	int dfd, rc;
	bool publish;           /* its end record says done: rename it into place */
	bool hard;              /* the journal failed: not retried */
	uint8_t said;           /* to log after the lock: 1 into output-retry, 2 out of it, written */
	unsigned first, nf;     /* its files in the batch */
	char err[300];
};

struct cz_output {
	struct cz_engine *e;
	/* The job's end, under the engine lock, once its files are written or
	 * failed (cz_job_finished_locked: the pipeline above hands it down). */
	void (*finished_locked)(struct cz_engine *e, struct cz_job *j);
	pthread_t tid;
	pthread_mutex_t lock;   /* the queue only; never held with the engine lock */
	pthread_cond_t cv;
	struct cz_job *head, *tail;
	struct cz_job *retry;   /* output-retry, the writer's own list (out_next) */
	bool stop, have_ring;
	int pfd;                /* DIR/proofs: fsynced once per batch, after the renames */
	struct io_uring ring;   /* for the writer's life */
	/* One batch, reused: made at start. */
	struct ofile f[BATCH_FILES];
	unsigned resub[BATCH_FILES], nresub;
	struct ojob jb[BATCH_JOBS];
	char dir[BATCH_JOBS][PATH_MAX + 80];    /* each job's temporary directory */
	char fin[BATCH_JOBS][PATH_MAX + 80];    /* and where it is published */
};

/* ---- the job's buffer: [proof.json, public.json] per partition, then
 * proof.bin, then one partition's public inputs (the finalizer's scratch:
 * one finalizer takes a job's partitions one at a time) ---- */

static size_t pub_slot(const union cz_curve_key *k)
{
	return (cz_public_json_max(k->npub) + 63) & ~(size_t)63;
}

int cz_output_job_init(struct cz_job *j)
{
	j->out_pub = pub_slot(&j->circ->key);
	size_t per = CZ_PROOF_JSON_MAX + j->out_pub + CZ_PROOF_BIN_BYTES;
	/* One public-input scratch per partition: finalizers verify a job's
	 * partitions in parallel. */
	size_t pub = (size_t)j->nparts * ((size_t)j->circ->key.npub + 1) * CZ_CURVE_FR_BYTES;
	j->out = aligned_alloc(64, ((size_t)j->nparts * per + pub + 63) & ~(size_t)63);
	return j->out ? 0 : -ENOMEM;
}

static char *proof_at(const struct cz_job *j, uint32_t k)
{
	return j->out + (size_t)k * (CZ_PROOF_JSON_MAX + j->out_pub);
}

static uint8_t *bin_at(const struct cz_job *j, uint32_t k)
{
	return (uint8_t *)j->out + (size_t)j->nparts * (CZ_PROOF_JSON_MAX + j->out_pub) +
	       (size_t)k * CZ_PROOF_BIN_BYTES;
}

void *cz_output_pub(struct cz_part *p)
{
	struct cz_job *j = p->job;
	return j->out + (size_t)j->nparts * (CZ_PROOF_JSON_MAX + j->out_pub + CZ_PROOF_BIN_BYTES) +
	       (size_t)p->idx * (j->circ->key.npub + 1) * CZ_CURVE_FR_BYTES;
}

int cz_output_render(struct cz_part *p, const void *pub)
{
	struct cz_job *j = p->job;
	const union cz_curve_key *k = &j->circ->key;
	const struct cz_curve_ops *cv = cz_curve_ops(j->curve);
	char *pj = proof_at(j, p->idx), *uj = pj + CZ_PROOF_JSON_MAX;

	size_t n = cv->proof_json(pj, CZ_PROOF_JSON_MAX, &p->proof);
	if (n >= CZ_PROOF_JSON_MAX) {
		snprintf(p->err, sizeof(p->err), "partition %u: proof.json needs %zu bytes, its buffer "
			 "has %d (a bug: CZ_PROOF_JSON_MAX)", p->idx, n + 1, CZ_PROOF_JSON_MAX);
		return -1;
	}
	p->olen[0] = (uint32_t)n;
	n = cv->public_json(uj, j->out_pub, pub, k->npub);
	if (n >= j->out_pub) {
		snprintf(p->err, sizeof(p->err), "partition %u: public.json needs %zu bytes, its buffer "
			 "has %zu (a bug: cz_public_json_max)", p->idx, n + 1, j->out_pub);
		return -1;
	}
	p->olen[1] = (uint32_t)n;
	if (cv->proof_bin)      /* NULL: the curve has no compressed encoding, no proof.bin */
		cv->proof_bin(bin_at(j, p->idx), &p->proof);
	return 0;
}

/* ---- one batch ---- */

__attribute__((noinline))   /* fmt is a parameter: no truncation analysis per caller */
static void job_fail(struct ojob *o, int rc, const char *fmt, const char *a, const char *b)
{
	if (o->rc)
		return;         /* the first cause is the one reported */
	char m[sizeof(o->err)];   /* a and b live in the writer too: no overlap with o->err */

	o->rc = rc;
	snprintf(m, sizeof(m), fmt, a, b, strerror(-rc));
	memcpy(o->err, m, sizeof(m));
}

/* Makes the job's temporary directory and creates its files there.  A
 * name taken by something that is not a directory fails here, naming it,
 * before any work (a directory is replaced at publish: cz_job_publish). */
static void job_open(struct cz_output *w, struct ojob *o, char *dir, size_t dcap, const char *fin)
{
	struct cz_job *j = o->j;
	struct stat st;

	cz_job_tmpdir(w->e, j->seq, dir, dcap);
	o->dfd = -1;
	if (!lstat(fin, &st) && !S_ISDIR(st.st_mode)) {
		job_fail(o, -ENOTDIR, "open %s%s: %s", fin, "");
		return;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		job_fail(o, -errno, "mkdir %s%s: %s", dir, "");
		return;
	}
	o->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dfd < 0) {
		job_fail(o, -errno, "open %s%s: %s", dir, "");
		return;
	}
	for (unsigned i = o->first; i < o->first + o->nf; i++) {
		w->f[i].fd = openat(o->dfd, w->f[i].name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
		if (w->f[i].fd < 0) {
			job_fail(o, -errno, "create %s/%s: %s", dir, w->f[i].name);
			return;
		}
	}
}

/* Adds job j's files to the batch; false when they do not fit. */
static bool batch_add(struct cz_output *w, unsigned *nj, unsigned *nf, struct cz_job *j)
{
	bool bin = cz_curve_ops(j->curve)->proof_bin;  /* proof.bin: of the curves with one */
	unsigned need = 2 * j->nparts + bin;

	if (*nj == BATCH_JOBS || *nf + need > BATCH_FILES)
		return false;
	struct ojob *o = &w->jb[*nj];
	o->j = j;
	o->rc = 0;
	o->hard = false;
	o->said = 0;
	o->dfd = -1;
	o->first = *nf;
	o->nf = need;
	o->err[0] = 0;
	for (uint32_t k = 0; k < j->nparts; k++) {
		struct ofile *pf = &w->f[*nf + 2 * k], *uf = pf + 1;
		const char *pj = proof_at(j, k);
		*pf = (struct ofile){ .data = pj, .len = j->parts[k].olen[0], .job = (uint16_t)*nj, .fd = -1 };
		*uf = (struct ofile){ .data = pj + CZ_PROOF_JSON_MAX, .len = j->parts[k].olen[1],
				      .job = (uint16_t)*nj, .fd = -1 };
		snprintf(pf->name, sizeof(pf->name), "%u.proof.json", k);
		snprintf(uf->name, sizeof(uf->name), "%u.public.json", k);
	}
	if (bin) {
		struct ofile *bf = &w->f[*nf + 2 * j->nparts];
		*bf = (struct ofile){ .data = (const char *)bin_at(j, 0),
				      .len = j->nparts * CZ_PROOF_BIN_BYTES, .job = (uint16_t)*nj, .fd = -1 };
		snprintf(bf->name, sizeof(bf->name), "proof.bin");
	}
	*nf += need;
	(*nj)++;
	return true;
}

static inline uint64_t udata(unsigned op, unsigned i)
{
	return (uint64_t)op << 32 | i;
}

/* Submits what is prepared and waits for at least one completion; a
 * submit or wait error ends the batch's ring use (every job not yet
 * finished fails with it). */
static int ring_round(struct cz_output *w, unsigned *inflight)
{
	int rc;

	do
		rc = io_uring_submit_and_wait(&w->ring, *inflight ? 1 : 0);
	while (rc == -EINTR);
	return rc < 0 ? rc : 0;
}

static void on_cqe(struct cz_output *w, const struct io_uring_cqe *c, const char *dirs[])
{
	uint64_t d = io_uring_cqe_get_data64(c);
	unsigned op = (unsigned)(d >> 32), i = (unsigned)d;

	if (op == OP_DIRSYNC) {
		if (c->res < 0)
			job_fail(&w->jb[i], c->res, "fsync %s%s: %s", dirs[i], "");
		return;
	}
	struct ofile *f = &w->f[i];
	struct ojob *o = &w->jb[f->job];
	if (op == OP_WRITE) {
		if (c->res < 0) {
			job_fail(o, c->res, "write %s/%s: %s", dirs[f->job], f->name);
		} else if (c->res == 0 && f->done < f->len) {
			job_fail(o, -EIO, "write %s/%s: %s (no progress)", dirs[f->job], f->name);
		} else {
			f->done += (uint32_t)c->res;
			if (f->done < f->len)
				w->resub[w->nresub++] = i;   /* short: the rest, write + fsync again */
		}
	} else if (c->res == -ECANCELED) {
		/* its write failed or was short: handled there */
	} else if (c->res < 0) {
		job_fail(o, c->res, "fsync %s/%s: %s", dirs[f->job], f->name);
	} else if (f->done == f->len) {
		f->synced = 1;
	}
}

static void reap(struct cz_output *w, unsigned *inflight, const char *dirs[])
{
	struct io_uring_cqe *c;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&w->ring, head, c) {
		on_cqe(w, c, dirs);
		n++;
	}
	io_uring_cq_advance(&w->ring, n);
	*inflight -= n;
}

/* Every file: write + fsync, linked, all in flight together. */
static int write_files(struct cz_output *w, unsigned nf, const char *dirs[])
{
	unsigned next = 0, inflight = 0;
	int rc = 0;

	w->nresub = 0;
	while (next < nf || w->nresub || inflight) {
		while ((w->nresub || next < nf) && io_uring_sq_space_left(&w->ring) >= 2) {
			unsigned i = w->nresub ? w->resub[--w->nresub] : next++;
			struct ofile *f = &w->f[i];
			if (w->jb[f->job].rc)
				continue;       /* its job failed already */
			struct io_uring_sqe *s = io_uring_get_sqe(&w->ring);
			io_uring_prep_write(s, f->fd, f->data + f->done, f->len - f->done, f->done);
			io_uring_sqe_set_flags(s, IOSQE_IO_LINK);
			io_uring_sqe_set_data64(s, udata(OP_WRITE, i));
			s = io_uring_get_sqe(&w->ring);
			io_uring_prep_fsync(s, f->fd, 0);
			io_uring_sqe_set_data64(s, udata(OP_FSYNC, i));
			inflight += 2;
		}
		if (!inflight)
			break;
		if ((rc = ring_round(w, &inflight)))
			return rc;
		reap(w, &inflight, dirs);
	}
	return 0;
}

static int dir_syncs(struct cz_output *w, unsigned nj, const char *dirs[])
{
	unsigned inflight = 0;
	int rc;

	for (unsigned k = 0; k < nj; k++) {
		if (w->jb[k].rc)
			continue;
		struct io_uring_sqe *s = io_uring_get_sqe(&w->ring);
		if (!s) {       /* SQ full: nj <= BATCH_JOBS < RING_ENTRIES, cannot happen */
			job_fail(&w->jb[k], -EBUSY, "fsync %s%s: %s", dirs[k], "");
			continue;
		}
		io_uring_prep_fsync(s, w->jb[k].dfd, 0);
		io_uring_sqe_set_data64(s, udata(OP_DIRSYNC, k));
		inflight++;
	}
	while (inflight) {
		if ((rc = ring_round(w, &inflight)))
			return rc;
		reap(w, &inflight, dirs);
	}
	return 0;
}

/* The same without a ring. */
static void write_files_sync(struct cz_output *w, unsigned nf, const char *dirs[])
{
	for (unsigned i = 0; i < nf; i++) {
		struct ofile *f = &w->f[i];
		struct ojob *o = &w->jb[f->job];
		while (!o->rc && f->done < f->len) {
			ssize_t k = pwrite(f->fd, f->data + f->done, f->len - f->done, f->done);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				job_fail(o, k < 0 ? -errno : -EIO, "write %s/%s: %s", dirs[f->job], f->name);
			else
				f->done += (uint32_t)k;
		}
		if (!o->rc && fsync(f->fd))
			job_fail(o, -errno, "fsync %s/%s: %s", dirs[f->job], f->name);
	}
}

/* The batch's good jobs that are still active get their end record ("done")
 * in one group commit; each is published only once that is durable. */
static void journal_done(struct cz_output *w, unsigned nj)
{
	struct cz_engine *e = w->e;
	uint64_t hi = 0;
	char err[300];

	pthread_mutex_lock(&e->lock);
	for (unsigned k = 0; k < nj; k++) {
		struct ojob *o = &w->jb[k];
		struct cz_job *j = o->j;
		o->publish = false;
		/* Cancelled meanwhile: its own end record is in; nothing published. */
		if (o->rc || atomic_load(&j->state) != CZ_JOB_ACTIVE)
			continue;
		if (!j->end_ticket)
			j->end_ticket = cz_journal_end_acct(e->jn, j->seq, CZ_JOB_DONE, "",
							    (double)(cz_trace_now() - j->t_submit) / 1e6,
							    &j->acct, j->t_submit);   /* every partition ended */
		if (!j->end_ticket) {
			job_fail(o, -ENOMEM, "journal: cannot record the end%s%s: %s", "", "");
			o->hard = true;
			continue;
		}
		o->publish = true;
		hi = j->end_ticket > hi ? j->end_ticket : hi;
	}
	pthread_mutex_unlock(&e->lock);
	int rc = hi ? cz_journal_wait(e->jn, hi, err, sizeof(err)) : 0;
	for (unsigned k = 0; rc && k < nj; k++)
		if (w->jb[k].publish) {
			w->jb[k].publish = false;
			job_fail(&w->jb[k], rc, "%s%s (%s)", err, "");
			w->jb[k].hard = true;
		}
}

static void write_batch(struct cz_output *w, unsigned nj, unsigned nf)
{
	const char *dirs[BATCH_JOBS];
	int rc = 0;

	for (unsigned k = 0; k < nj; k++) {
		dirs[k] = w->dir[k];
		cz_job_dir(w->e, w->jb[k].j->id, w->fin[k], sizeof(w->fin[k]));
		job_open(w, &w->jb[k], w->dir[k], sizeof(w->dir[k]), w->fin[k]);
	}
	if (w->have_ring)
		rc = write_files(w, nf, dirs);
	else
		write_files_sync(w, nf, dirs);
	for (unsigned k = 0; !rc && k < nj; k++) {
		struct ojob *o = &w->jb[k];
		for (unsigned i = o->first; !o->rc && i < o->first + o->nf; i++)
			if (w->have_ring && !w->f[i].synced) {
				job_fail(o, -EIO, "fsync %s/%s: %s (no completion)", dirs[k], w->f[i].name);
				break;
			}
	}
	/* Each temporary directory's entries, before the record that makes
	 * it the job's answer. */
	if (!rc && w->have_ring)
		rc = dir_syncs(w, nj, dirs);
	else if (!rc)
		for (unsigned k = 0; k < nj; k++)
			if (!w->jb[k].rc && fsync(w->jb[k].dfd))
				job_fail(&w->jb[k], -errno, "fsync %s%s: %s", dirs[k], "");
	for (unsigned k = 0; rc && k < nj; k++)
		job_fail(&w->jb[k], rc, "io_uring on %s%s: %s", dirs[k], "");
	journal_done(w, nj);
	unsigned published = 0;
	for (unsigned k = 0; k < nj; k++) {
		struct ojob *o = &w->jb[k];
		int prc;
		if (o->publish && (prc = cz_job_publish(dirs[k], w->fin[k])))
			job_fail(o, prc, "rename %s to %s: %s", dirs[k], w->fin[k]);
		else if (o->publish)
			published++;
	}
	/* The renames, once for the batch. */
	if (published && w->pfd >= 0 && fsync(w->pfd))
		for (unsigned k = 0; k < nj; k++)
			if (w->jb[k].publish)
				job_fail(&w->jb[k], -errno, "fsync %s/proofs%s: %s", w->e->state_dir, "");
	for (unsigned k = 0; k < nj; k++) {
		struct ojob *o = &w->jb[k];
		bool drop = o->rc || !o->publish;       /* failed, or cancelled meanwhile */
		for (unsigned i = o->first; i < o->first + o->nf; i++) {
			if (w->f[i].fd < 0)
				continue;
			close(w->f[i].fd);
			if (drop && o->dfd >= 0)
				unlinkat(o->dfd, w->f[i].name, 0);
		}
		if (o->dfd >= 0)
			close(o->dfd);
		if (drop && o->dfd >= 0)
			rmdir(dirs[k]);
	}
	if (rc && w->have_ring) {
		/* The ring's state is unknown after a failed submit or wait:
		 * make it again (once per failure, not per partition). */
		cz_uring_exit(&w->ring);
		w->have_ring = cz_uring_init(RING_ENTRIES, &w->ring, 0) == 0;
	}
}

/* ---- output-retry ---- */

static bool retryable(int rc)
{
	return rc == -ENOSPC || rc == -EDQUOT || rc == -EIO || rc == -EMFILE || rc == -ENFILE;
}

static uint64_t retry_wait_ms(const struct cz_engine *e, uint32_t tries)
{
	uint64_t hi = e->cfg.output_retry_max_ms, ms = 1000;
	for (uint32_t i = 1; i < tries && ms < hi; i++)
		ms *= 2;
	return ms < hi ? ms : hi;
}

/* Job o failed to be written: into output-retry (true), or not (a hard
 * error, or --retain has passed since its first failure).  Under the
 * engine lock. */
static bool retry_locked(struct cz_output *w, struct ojob *o)
{
	struct cz_engine *e = w->e;
	struct cz_job *j = o->j;
	uint64_t now = cz_trace_now();
	cz_mutex_assert_held(&e->lock);

	if (!retryable(o->rc) || o->hard)
		return false;
	if (!j->out_tries)
		j->out_first_ns = now;
	else if (now - j->out_first_ns >= e->cfg.retain_s * 1000000000ull)
		return false;
	uint64_t ms = retry_wait_ms(e, ++j->out_tries);
	j->out_next_ns = now + ms * 1000000ull;
	snprintf(j->out_err, sizeof(j->out_err), "%s", o->err);
	if (j->out_tries == 1)
		atomic_fetch_add(&e->out_waiting, 1);
	atomic_fetch_add(&e->out_retries, 1);
	o->said = 1;
	j->out_next = w->retry;
	w->retry = j;
	return true;
}

/* The job leaves output-retry (written, failed or cancelled). */
static void retry_leave_locked(struct cz_engine *e, struct ojob *o, struct cz_job *j)
{
	cz_mutex_assert_held(&e->lock);
	if (!j->out_tries)
		return;
	atomic_fetch_sub(&e->out_waiting, 1);
	if (o && !o->rc)
		o->said = 2;
}

/* The log, once the engine lock is given back: one line per failed
 * attempt, one when a retried job's proofs are written.  The writer owns
 * these jobs' output fields, and the job (writing) until it ends. */
static void retry_log(struct cz_output *w, unsigned nj)
{
	for (unsigned k = 0; k < nj; k++) {
		const struct ojob *o = &w->jb[k];
		const struct cz_job *j = o->j;
		if (o->said == 1)
			fprintf(stderr, "cuzkd: job=%s output-retry: attempt %u failed: %s; its proofs are kept in "
				"memory and its witnesses in the spool; tried again in %.1f s\n", j->id, j->out_tries,
				o->err, (double)retry_wait_ms(w->e, j->out_tries) / 1e3);
		else if (o->said == 2)
			fprintf(stderr, "cuzkd: job=%s output-retry: its proofs are written, at attempt %u\n", o->j->id,
				o->j->out_tries + 1);
	}
}

static void batch_finish(struct cz_output *w, unsigned nj)
{
	struct cz_engine *e = w->e;

	for (unsigned k = 0; k < nj; k++)
		cz_trace(CZ_EV_OUTPUT, w->jb[k].j->seq, 0);
	pthread_mutex_lock(&e->lock);
	for (unsigned k = 0; k < nj; k++) {
		struct cz_job *j = w->jb[k].j;
		if (atomic_load(&j->state) == CZ_JOB_ACTIVE) {   /* not cancelled meanwhile */
			if (w->jb[k].rc && retry_locked(w, &w->jb[k]))
				continue;       /* kept: still writing, still active */
			retry_leave_locked(e, &w->jb[k], j);
			if (w->jb[k].rc) {
				snprintf(j->err, sizeof(j->err), "writing proofs: %s%s", w->jb[k].err,
					 j->out_tries ? " (output-retry: --retain has passed since its first failure)" : "");
				atomic_store(&j->state, CZ_JOB_FAILED);
				e->jobs_failed++;
			} else {
				atomic_store(&j->state, CZ_JOB_DONE);
				e->jobs_done++;
			}
		} else {
			retry_leave_locked(e, NULL, j);
		}
		j->writing = false;
		w->finished_locked(e, j);
	}
	pthread_mutex_unlock(&e->lock);
	retry_log(w, nj);
}

/* Under w->lock: the retry jobs whose time has come go to the queue; the
 * cancelled ones are ended (the engine lock taken without w->lock: the
 * two are never held together).  The next attempt's time, or 0. */
static uint64_t retry_sweep(struct cz_output *w)
{
	struct cz_engine *e = w->e;
	struct cz_job **pp = &w->retry, *gone = NULL;
	uint64_t now = cz_trace_now(), next = 0;

	while (*pp) {
		struct cz_job *j = *pp;
		bool ended = atomic_load(&j->state) != CZ_JOB_ACTIVE;
		if (!ended && j->out_next_ns > now) {
			next = !next || j->out_next_ns < next ? j->out_next_ns : next;
			pp = &j->out_next;
			continue;
		}
		*pp = j->out_next;
		j->out_next = NULL;
		if (ended) {
			j->out_next = gone;
			gone = j;
		} else if (w->tail) {
			w->tail->out_next = j;
			w->tail = j;
		} else {
			w->head = w->tail = j;
		}
	}
	if (gone) {
		pthread_mutex_unlock(&w->lock);
		pthread_mutex_lock(&e->lock);
		for (struct cz_job *j = gone, *n; j; j = n) {
			n = j->out_next;
			retry_leave_locked(e, NULL, j);
			j->writing = false;
			w->finished_locked(e, j);
		}
		pthread_mutex_unlock(&e->lock);
		pthread_mutex_lock(&w->lock);
	}
	return next;
}

static void *writer_main(void *v)
{
	struct cz_output *w = v;

	cz_thread_name("cz-final-io");
	cz_thread_batch(CZ_THREAD_BULK_NICE);   /* lib/thread.h: bulk work, the latency threads first */
	cz_trace_thread("output", 0);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		uint64_t next = retry_sweep(w);
		if (!w->head && !w->stop) {
			if (next) {
				struct timespec until = cz_deadline(CLOCK_MONOTONIC, (int64_t)(next - cz_trace_now()));
				pthread_cond_timedwait(&w->cv, &w->lock, &until);
			} else {
				pthread_cond_wait(&w->cv, &w->lock);
			}
			continue;
		}
		if (!w->head)
			break;
		unsigned nj = 0, nf = 0;
		while (w->head && batch_add(w, &nj, &nf, w->head)) {
			w->head = w->head->out_next;
			if (!w->head)
				w->tail = NULL;
		}
		pthread_mutex_unlock(&w->lock);
		write_batch(w, nj, nf);
		batch_finish(w, nj);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	unsigned left = 0;
	for (struct cz_job *j = w->retry; j; j = j->out_next)
		left++;
	if (left)
		fprintf(stderr, "cuzkd: %u job(s) in output-retry at shutdown: not ended, the next start resumes them "
			"from their witnesses\n", left);
	return NULL;
}

void cz_output_kick(struct cz_engine *e)
{
	struct cz_output *w = e->output;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

void cz_output_queue(struct cz_engine *e, struct cz_job *j)
{
	struct cz_output *w = e->output;

	j->out_next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->out_next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

int cz_output_start(struct cz_engine *e, void (*finished_locked)(struct cz_engine *, struct cz_job *),
		    char *err, size_t cap)
{
	struct cz_output *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, cap, "out of memory for the output writer");
		return -ENOMEM;
	}
	w->e = e;
	w->finished_locked = finished_locked;
	char pd[PATH_MAX + 16];
	snprintf(pd, sizeof(pd), "%s/proofs", e->state_dir);
	w->pfd = open(pd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);     /* the retry deadlines' clock */
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = cz_uring_init(RING_ENTRIES, &w->ring, 0);
	w->have_ring = rc == 0;
	if (rc)
		fprintf(stderr, "cuzkd: io_uring unavailable (%s): writing proofs with write(2) and fsync(2)\n",
			strerror(-rc));
	if (pthread_create(&w->tid, NULL, writer_main, w)) {
		snprintf(err, cap, "cannot start the output writer thread");
		if (w->have_ring)
			cz_uring_exit(&w->ring);
		if (w->pfd >= 0)
			close(w->pfd);
		free(w);
		return -EAGAIN;
	}
	e->output = w;
	return 0;
}

void cz_output_stop(struct cz_engine *e)
{
	struct cz_output *w = e->output;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->tid, NULL);
	if (w->have_ring)
		cz_uring_exit(&w->ring);
	if (w->pfd >= 0)
		close(w->pfd);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cv);
	free(w);
	e->output = NULL;
}

/*
 * A published job's files as one JSON document, for `await` with a passed
 * descriptor (engine/control/ops.c): a submitter that may not read the
 * state directory gets its proofs through a descriptor it opened itself.
 *   {"job": ID, "files": [{"name": "0.proof.json", "text": "..."},
 *                         {"name": "proof.bin", "hex": "..."}, ...]}
 * The .json files as text, any other as hex; regular files only, at most
 * BUNDLE_MAX bytes in all.  Called with no lock held (it reads the disk).
 */
#define BUNDLE_MAX (64u << 20)

static json_object *bundle_file(int dfd, const char *name, size_t *total, char *err, size_t cap)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || (*total += (size_t)st.st_size) > BUNDLE_MAX) {
		snprintf(err, cap, "%s: %s", name, fd < 0 ? strerror(errno) : "not a regular file of its size");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *b = malloc((size_t)st.st_size + 1);
	ssize_t k = b ? pread(fd, b, (size_t)st.st_size, 0) : -1;
	close(fd);
	if (k != st.st_size) {
		snprintf(err, cap, "%s: %s", name, k < 0 ? strerror(errno) : "short read");
		free(b);
		return NULL;
	}
	size_t n = (size_t)st.st_size;         /* k == st_size, at most BUNDLE_MAX */
	json_object *o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(name));
	size_t nl = strlen(name);
	if (nl > 5 && !strcmp(name + nl - 5, ".json")) {
		json_object_object_add(o, "text", json_object_new_string_len(b, (int)n));
	} else {
		char *h = malloc(2 * n + 1);
		for (size_t i = 0; h && i < n; i++)
			snprintf(h + 2 * i, 3, "%02x", (unsigned char)b[i]);
		if (h)
			h[2 * n] = 0;
		json_object_object_add(o, "hex", json_object_new_string(h ? h : ""));
		free(h);
	}
	free(b);
	return o;
}

char *cz_output_bundle(const char *dir, const char *id, size_t *len, char *err, size_t cap)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, cap, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	json_object *doc = json_object_new_object(), *files = json_object_new_array();
	json_object_object_add(doc, "job", json_object_new_string(id));
	json_object_object_add(doc, "files", files);
	size_t total = 0;
	bool bad = false;
	for (struct dirent *de; !bad && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;       /* ., .., and never a temporary */
		json_object *f = bundle_file(dirfd(d), de->d_name, &total, err, cap);
		bad = !f;
		if (f)
			json_object_array_add(files, f);
	}
	closedir(d);
	const char *s = bad ? NULL : json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, len);
	char *out = s ? strdup(s) : NULL;
	if (!bad && !out)
		snprintf(err, cap, "out of memory");
	json_object_put(doc);
	return out;
}
