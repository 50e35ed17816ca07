/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_journal.c — `cuzk bench journal`: what accepting a job
 * durably costs (engine/durable/spool.c, engine/durable/journal.c), measured on the path
 * cz_req_submit takes between reading the request and answering it:
 *
 *   accept   one witness of 1 MiB and of 100 MiB (the client's file in the
 *            page cache, as just written): copy into the spool, fsync, a
 *            submit record, wait for its group commit.  p50 / p99 over
 *            --iters (default 30 and 8), and the copy method the
 *            filesystem gave; with and without the SHA-256 digest a
 *            caller's --id adds.  Seconds per GiB from the p50.
 *   group    32 threads submitting at once (a 64 KiB witness each), 10
 *            rounds: journal commits (fdatasyncs) per submit.
 *   restart  a journal of 10,000 finished jobs (and 10 unfinished):
 *            cz_journal_open (replay, compaction), best of 3.
 *
 * Files go under $TMPDIR (default /var/tmp): the filesystem the state
 * directory would be on matters (reflink or not), so run it there.
 * `cuzk bench journal accept` runs the accept figures alone.
 * `cuzk bench journal make-state DIR N` writes DIR/journal with N finished
 * jobs and exits (tools/bench-journal.sh times cuzkd starting on it).
 */
#define _GNU_SOURCE
#include "engine/engine.h"
#include "engine/durable/journal.h"
#include "lib/clock.h"
#include "tools/cuzk/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	int i = (int)(p * (n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static int make_src(const char *path, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	char *b = malloc(1 << 20);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t off = 0; b && off < size; off += 1 << 20) {
		for (size_t i = 0; i < (1 << 20); i += 8) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			memcpy(b + i, &s, 8);
		}
		if (pwrite(fd, b, 1 << 20, (off_t)off) != 1 << 20) {
			free(b);
			close(fd);
			return -1;
		}
	}
	free(b);
	return fd;
}

static struct cz_journal *jopen(const char *state)
{
	char err[512];
	mkdir(state, 0750);
	struct cz_journal *j = cz_journal_open(state, 7 * 86400, NULL, NULL, err, sizeof(err));
	if (!j)
		fprintf(stderr, "cuzk bench journal: %s\n", err);
	return j;
}

/* One accepted witness, as cz_req_submit does it; ms.  Not durable: the
 * copy alone (the baseline: what a spool without fsync and journal costs). */
static double accept_how(struct cz_journal *j, uint64_t seq, int src, uint64_t size, int digest,
			 int durable, const char **method)
{
	char name[48], err[512];
	uint8_t dg[CZ_JOURNAL_DIGEST];
	int64_t t0 = cz_now_ns();
	cz_spool_name(name, sizeof(name), seq, 0);
	int fd = cz_spool_copy(cz_journal_spool_fd(j), name, src, size, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "cuzk bench journal: %s\n", err);
		return -1;
	}
	*method = cz_spool_last_method();
	if ((durable && cz_spool_sync(&fd, 1, err, sizeof(err))) || (digest && cz_spool_digest(fd, size, dg))) {
		fprintf(stderr, "cuzk bench journal: %s\n", err);
		close(fd);
		return -1;
	}
	close(fd);
	if (!durable) {
		double ms = (double)(cz_now_ns() - t0) / 1e6;
		cz_spool_remove(cz_journal_spool_fd(j), seq, 1);
		return ms;
	}
	struct cz_jent e = { .seq = seq, .nparts = 1, .prio = 2, .has_digest = digest != 0 };
	snprintf(e.id, sizeof(e.id), "@%llu", (unsigned long long)seq);
	snprintf(e.circuit, sizeof(e.circuit), "bench");
	uint64_t t = cz_journal_submit(j, &e);
	if (!t || cz_journal_wait(j, t, err, sizeof(err)))
		return -1;
	double ms = (double)(cz_now_ns() - t0) / 1e6;
	/* Not timed: the job's end, and its spool file going. */
	cz_journal_end(j, seq, 1, "", 1.0);
	return ms;
}


static int bench_accept(const struct cz_bench_opts *o, const char *base)
{
	static const struct { const char *name; uint64_t size; int iters; } sz[] = {
		{ "1MiB", 1ull << 20, 30 }, { "100MiB", 100ull << 20, 8 },
	};
	char state[PATH_MAX + 32], src[PATH_MAX + 32];
	snprintf(state, sizeof(state), "%s/accept-state", base);
	struct cz_journal *j = jopen(state);
	if (!j)
		return 1;
	uint64_t seq = cz_journal_next_seq(j);
	for (size_t s = 0; s < sizeof(sz) / sizeof(*sz); s++) {
		snprintf(src, sizeof(src), "%s/w-%s", base, sz[s].name);
		int fd = make_src(src, sz[s].size);
		if (fd < 0) {
			fprintf(stderr, "cuzk bench journal: cannot write %s\n", src);
			cz_journal_close(j);
			return 1;
		}
		/* variant 0: the copy only (not durable, the baseline); 1: durable;
		 * 2: durable with the digest of a caller's --id */
		for (int var = 0; var <= 2; var++) {
			int digest = var == 2;
			int n = o->iters ? o->iters : sz[s].iters;
			double *v = calloc((size_t)n, sizeof(*v));
			const char *method = "?";
			for (int i = 0; v && i < n; i++)
				if ((v[i] = accept_how(j, seq++, fd, sz[s].size, digest, var > 0, &method)) < 0) {
					free(v);
					close(fd);
					cz_journal_close(j);
					return 1;
				}
			double p50 = pct(v, n, 0.5), p99 = pct(v, n, 0.99);
			char extra[256], op[64];
			snprintf(op, sizeof(op), "%s %s%s", var ? "accept" : "copy only", sz[s].name,
				 digest ? " +digest" : "");
			snprintf(extra, sizeof(extra), "\"p50_ms\": %.2f, \"p99_ms\": %.2f, \"s_per_gib\": %.3f, "
				 "\"method\": \"%s\"", p50, p99, p50 / 1e3 * (double)(1ull << 30) / (double)sz[s].size,
				 method);
			cz_bench_report(o, op, (uint64_t)n, 1, p50, extra);
			free(v);
		}
		close(fd);
		unlink(src);
	}
	cz_journal_close(j);
	return 0;
}

/* ---- group commit ---- */

#define GTHREADS 32
#define GROUNDS 10

static struct cz_journal *gj;
static int gsrc;
static pthread_barrier_t gbar;
static _Atomic uint64_t gseq;

static void *group_main(void *v)
{
	(void)v;
	const char *m;
	for (int r = 0; r < GROUNDS; r++) {
		pthread_barrier_wait(&gbar);
		accept_how(gj, atomic_fetch_add(&gseq, 1), gsrc, 64 << 10, 0, 1, &m);
	}
	return NULL;
}

static int bench_group(const struct cz_bench_opts *o, const char *base)
{
	char state[PATH_MAX + 32], src[PATH_MAX + 32];
	snprintf(state, sizeof(state), "%s/group-state", base);
	snprintf(src, sizeof(src), "%s/w-64k", base);
	if (!(gj = jopen(state)) || (gsrc = make_src(src, 64 << 10)) < 0)
		return 1;
	atomic_store(&gseq, cz_journal_next_seq(gj));
	struct cz_journal_stat a, b;
	cz_journal_stat(gj, &a);
	pthread_barrier_init(&gbar, NULL, GTHREADS);
	pthread_t t[GTHREADS];
	int64_t t0 = cz_now_ns();
	for (int i = 0; i < GTHREADS; i++)
		pthread_create(&t[i], NULL, group_main, NULL);
	for (int i = 0; i < GTHREADS; i++)
		pthread_join(t[i], NULL);
	double ms = (double)(cz_now_ns() - t0) / 1e6;
	usleep(100000);         /* the end records' commits, not counted below */
	cz_journal_stat(gj, &b);
	/* Every commit of the window had submits in it (the ends ride along
	 * or follow); count commits that fsynced the spool directory, i.e.
	 * that carried a submit. */
	uint64_t subs = GTHREADS * GROUNDS, commits = b.dir_syncs - a.dir_syncs;
	char extra[200];
	snprintf(extra, sizeof(extra), "\"submits\": %llu, \"submit_commits\": %llu, \"fsyncs_per_submit\": %.3f",
		 (unsigned long long)subs, (unsigned long long)commits, (double)commits / (double)subs);
	cz_bench_report(o, "group 32 concurrent", subs, GTHREADS, ms, extra);
	pthread_barrier_destroy(&gbar);
	cz_journal_close(gj);
	close(gsrc);
	unlink(src);
	return 0;
}

/* ---- restart ---- */

static int make_state(const char *state, unsigned n, unsigned unfinished)
{
	struct cz_journal *j = jopen(state);
	if (!j)
		return 1;
	uint64_t seq = cz_journal_next_seq(j), t = 0;
	for (unsigned i = 0; i < n + unfinished; i++, seq++) {
		struct cz_jent e = { .seq = seq, .nparts = 4, .prio = 2, .has_digest = true,
				     .t_submit = cz_clock_ns(CLOCK_REALTIME) };
		snprintf(e.id, sizeof(e.id), "job-%u", i);
		snprintf(e.circuit, sizeof(e.circuit), "k");
		memset(e.digest, (int)(i & 0xff), sizeof(e.digest));
		t = cz_journal_submit(j, &e);
		if (i < n)
			t = cz_journal_end(j, seq, 1, "", 12.5);
	}
	char err[256];
	int rc = cz_journal_wait(j, t, err, sizeof(err));
	cz_journal_close(j);
	return rc ? 1 : 0;
}

static int bench_restart(const struct cz_bench_opts *o, const char *base)
{
	char state[PATH_MAX + 32];
	snprintf(state, sizeof(state), "%s/restart-state", base);
	if (make_state(state, 10000, 10))
		return 1;
	double best = 1e30;
	struct cz_journal_stat st = { 0 };
	for (int i = 0; i < 3; i++) {
		int64_t t0 = cz_now_ns();
		struct cz_journal *j = jopen(state);
		double ms = (double)(cz_now_ns() - t0) / 1e6;
		if (!j)
			return 1;
		cz_journal_stat(j, &st);
		size_t nu;
		free(cz_journal_unfinished(j, &nu));
		cz_journal_close(j);
		best = ms < best ? ms : best;
	}
	char extra[200];
	snprintf(extra, sizeof(extra), "\"jobs\": %llu, \"journal_bytes\": %llu", (unsigned long long)st.live,
		 (unsigned long long)st.bytes);
	cz_bench_report(o, "restart 10000 finished", 10010, 1, best, extra);
	return 0;
}

int cz_bench_journal(const struct cz_bench_opts *o)
{
	if (o->npos >= 1 && !strcmp(o->pos[0], "make-state")) {
		if (o->npos != 3) {
			fprintf(stderr, "usage: cuzk bench journal make-state DIR N\n");
			return 2;
		}
		return make_state(o->pos[1], (unsigned)strtoul(o->pos[2], NULL, 10), 0);
	}
	const char *t = getenv("TMPDIR");
	char base[PATH_MAX];
	snprintf(base, sizeof(base), "%s/cuzk-bench-journal-XXXXXX", t && *t ? t : "/var/tmp");
	if (!mkdtemp(base)) {
		fprintf(stderr, "cuzk bench journal: mkdtemp %s: %s\n", base, strerror(errno));
		return 1;
	}
	/* `cuzk bench journal accept`: the accept figures alone (tools/bench-journal.sh
	 * runs them on a second filesystem, e.g. a reflink one, beside the first). */
	int only_accept = o->npos >= 1 && !strcmp(o->pos[0], "accept");
	int rc = bench_accept(o, base) || (!only_accept && (bench_group(o, base) || bench_restart(o, base)));
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd))
		fprintf(stderr, "cuzk bench journal: could not remove %s\n", base);
	return rc;
}
