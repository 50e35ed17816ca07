/* SPDX-License-Identifier: MIT */
/*
 * cz_daemon.h — the end-to-end selftests' scaffolding around a real cuzkd
 * (e2e_order.c, e2e_devproc.c): start one on a socket in the test's scratch
 * directory and wait until it answers, stop it, send it a request, load the
 * key and submit jobs made of the test's witnesses; then read its trace as
 * JSON and count inversions.
 *
 * The trace reader and the inversion count are the tests' oracle: they read
 * the daemon's trace as plain JSON and use none of engine/'s code, so they
 * live here, beside the tests, and must stay independent of the engine.
 *
 * The including test fills dir (its scratch directory, holding k.zkey and
 * w0..w(NWTNS-1).wtns) and bindir (where cuzkd is) before starting a daemon,
 * and defines NWTNS.  Defining CZ_DAEMON_ENV_ISOLATION before the include
 * makes daemon_start() pass CZ_ISOLATION from the environment as
 * --isolation, so the same test runs against device children.
 */
#ifndef CZ_DAEMON_H
#define CZ_DAEMON_H

#include "ctl/ctl.h"
#include "selftests/cz_test.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], bindir[2 * PATH_MAX];

struct daemon {
	pid_t pid;
	char sock[2 * PATH_MAX];
};

static int daemon_start(struct daemon *d, const char *name, const char *const *extra)
{
	char state[3 * PATH_MAX], bin[3 * PATH_MAX], log[3 * PATH_MAX];
	const char *argv[32];
	int n = 0;

	snprintf(d->sock, sizeof(d->sock), "%s/%s.sock", dir, name);
	snprintf(state, sizeof(state), "%s/%s-state", dir, name);
	snprintf(bin, sizeof(bin), "%s/cuzkd", bindir);
	snprintf(log, sizeof(log), "%s/%s.log", dir, name);
	argv[n++] = bin;
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	argv[n++] = "--state-dir";
	argv[n++] = state;
	while (*extra && n < 30)
		argv[n++] = *extra++;
#ifdef CZ_DAEMON_ENV_ISOLATION
	/* CZ_ISOLATION=process runs the same test against device children */
	if (getenv("CZ_ISOLATION")) {
		argv[n++] = "--isolation";
		argv[n++] = getenv("CZ_ISOLATION");
	}
#endif
	argv[n] = NULL;
	d->pid = fork();
	if (d->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		char err[256];
		int s = cz_ctl_connect(d->sock, err, sizeof(err));
		if (s >= 0) {
			close(s);
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

static int daemon_stop(struct daemon *d)
{
	int st;
	kill(d->pid, SIGTERM);
	for (int i = 0; i < 2000; i++) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	kill(d->pid, SIGKILL);
	waitpid(d->pid, &st, 0);
	return -1;
}

static json_object *req(struct daemon *d, const char *json)
{
	char err[256];
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	if (s < 0)
		return NULL;
	json_object *q = json_tokener_parse(json);
	json_object *r = cz_ctl_call(s, q, NULL, 0, err, sizeof(err));
	json_object_put(q);
	close(s);
	return r;
}

static int ok_of(json_object *r)
{
	json_object *v;
	return r && json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v);
}

static const char *str_of(json_object *r, const char *k)
{
	json_object *v;
	return r && json_object_object_get_ex(r, k, &v) ? json_object_get_string(v) : "";
}

static int64_t int_of(json_object *r, const char *k)
{
	json_object *v;
	return r && json_object_object_get_ex(r, k, &v) ? json_object_get_int64(v) : -1;
}

static int load_key(struct daemon *d)
{
	char q[3 * PATH_MAX];
	snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir);
	json_object *r = req(d, q);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("load: %s", str_of(r, "error"));
	json_object_put(r);
	return ok;
}

static int submit(struct daemon *d, const char *id, const char *prio, int n)
{
	char q[8192];
	int k = snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"priority\":\"%s\",\"witnesses\":[",
			 id, prio);
	for (int i = 0; i < n; i++)
		k += snprintf(q + k, sizeof(q) - (size_t)k, "%s\"%s/w%d.wtns\"", i ? "," : "", dir, i % NWTNS);
	snprintf(q + k, sizeof(q) - (size_t)k, "]}");
	json_object *r = req(d, q);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok;
}

/* ---- the trace, as the tests read it ---- */

#define MAXP 512
#define MAXJ 64

struct tpart {
	int64_t seq, part;
	int prio;               /* from the submission order */
	int64_t ready, start;   /* enqueue / compute_start ns, -1 if never */
	int dev;
};

struct trace {
	struct tpart p[MAXP];
	int np;
	int64_t seqs[MAXJ];     /* job sequence numbers in submission order */
	int nj;
	int64_t submit_ns[MAXJ];
};

static struct tpart *tpart_of(struct trace *t, int64_t seq, int64_t part)
{
	for (int i = 0; i < t->np; i++)
		if (t->p[i].seq == seq && t->p[i].part == part)
			return &t->p[i];
	if (t->np == MAXP)
		return NULL;
	struct tpart *p = &t->p[t->np++];
	*p = (struct tpart){ .seq = seq, .part = part, .prio = -1, .ready = -1, .start = -1, .dev = -1 };
	return p;
}

/* prios[i]: the priority (0 critical .. 3 low) of the i-th job submitted to
 * this daemon since it started. */
static int trace_read(struct daemon *d, struct trace *t, const int *prios, int njobs)
{
	char p[3 * PATH_MAX], err[256];
	snprintf(p, sizeof(p), "%s/trace.jsonl", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	if (fd < 0 || s < 0)
		return -1;
	json_object *q = json_tokener_parse("{\"op\":\"trace\"}");
	json_object_put(cz_ctl_call(s, q, &fd, 1, err, sizeof(err)));
	json_object_put(q);
	close(s);
	close(fd);
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(p, "r");
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t seq = int_of(e, "job"), part = int_of(e, "part"), ns = int_of(e, "ns");
		if (!strcmp(ev, "submit") && t->nj < MAXJ) {
			t->submit_ns[t->nj] = ns;
			t->seqs[t->nj++] = seq;
		} else if (!strcmp(ev, "enqueue") || !strcmp(ev, "compute_start")) {
			struct tpart *tp = tpart_of(t, seq, part);
			if (tp && ev[0] == 'e' && tp->ready < 0)
				tp->ready = ns;
			if (tp && ev[0] == 'c' && tp->start < 0) {
				const char *th = str_of(e, "thread");
				tp->start = ns;
				tp->dev = !strncmp(th, "consumer ", 9) ? atoi(th + 9) : -1;
			}
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	if (t->nj != njobs) {
		ct_diag("the trace shows %d submits, %d expected", t->nj, njobs);
		return -1;
	}
	for (int i = 0; i < t->np; i++)
		for (int j = 0; j < t->nj; j++)
			if (t->p[i].seq == t->seqs[j])
				t->p[i].prio = prios[j];
	return 0;
}

static int key_cmp(const struct tpart *a, const struct tpart *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

#define GRACE_NS 1000000   /* "had been ready for 1 ms" */

/* For each partition b: the partitions with a higher key that started (on
 * any device) after b had been ready for GRACE_NS and before b started.
 * Returns the worst b's count; *worst_b names it. */
static int inversions(const struct trace *t, const struct tpart **worst_b)
{
	int worst = 0;
	*worst_b = NULL;
	for (int i = 0; i < t->np; i++) {
		const struct tpart *b = &t->p[i];
		if (b->ready < 0 || b->start < 0)
			continue;
		int n = 0;
		for (int j = 0; j < t->np; j++) {
			const struct tpart *a = &t->p[j];
			if (a->start >= 0 && a->start >= b->ready + GRACE_NS && a->start < b->start &&
			    key_cmp(a, b) > 0)
				n++;
		}
		if (n > worst || !*worst_b) {
			worst = n;
			*worst_b = b;
		}
	}
	return worst;
}

static int all_started(const struct trace *t, int expect)
{
	int n = 0;
	for (int i = 0; i < t->np; i++)
		n += t->p[i].start >= 0 && t->p[i].ready >= 0;
	if (n != expect)
		ct_diag("%d partitions ready and started in the trace, %d expected", n, expect);
	return n == expect;
}

#endif /* CZ_DAEMON_H */
