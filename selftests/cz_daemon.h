/* SPDX-License-Identifier: MIT */
/*
 * cz_daemon.h — the end-to-end selftests' scaffolding around a real cuzkd
 * (e2e_order.c, e2e_devproc.c, e2e_daemon.c, e2e_evidence.c, e2e_heap.c,
 * e2e_metrics.c): start one on a socket in the test's scratch directory and wait until it answers, stop
 * it, send it a request; load the key and submit jobs made of the test's
 * witnesses.  The trace oracle is in cz_trace.h.
 *
 * The including test fills dir (its scratch directory, holding k.zkey and
 * w0..w(NWTNS-1).wtns) and bindir (where cuzkd is) before starting a
 * daemon.  Before the include it may define NWTNS (adds fixtures_make(),
 * load_key() and submit()), CZ_DAEMON_ENV_ISOLATION (daemon_start() passes CZ_ISOLATION
 * from the environment as --isolation, so the same test runs against
 * threads of cuzkd as well as its default device children: the
 * selftests/e2e_*_thread.sh scripts), CZ_DAEMON_START_TRIES / CZ_DAEMON_STOP_TRIES and
 * CZ_DAEMON_CHILD (a function daemon_start() calls in the child before
 * exec: environment, signals) and CZ_DAEMON_WATCH_EXIT (daemon_start()
 * returns the exit status of a cuzkd that exits before its socket
 * answers, instead of waiting out its tries).
 */
#ifndef CZ_DAEMON_H
#define CZ_DAEMON_H

#include "ctl/ctl.h"
#include "zk/builtin.h"
#include "zk/groth16_io.h"
#include "selftests/cz_test.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX], bindir[2 * PATH_MAX];

struct daemon {
	pid_t pid;              /* 0 once it exited during daemon_start() */
	char sock[2 * PATH_MAX], log[3 * PATH_MAX];
};

/* How long daemon_start() waits for the socket to answer and daemon_stop()
 * for the exit, in 10 ms tries: a test may set its own before the include. */
#ifndef CZ_DAEMON_START_TRIES
#define CZ_DAEMON_START_TRIES 1000
#endif
#ifndef CZ_DAEMON_STOP_TRIES
#define CZ_DAEMON_STOP_TRIES 2000
#endif

/* cuzkd --socket DIR/NAME.sock --state-dir DIR/NAME-state EXTRA..., its
 * stderr in d->log (DIR/NAME.log); 0 once the socket accepts a connection. */
static inline int daemon_start(struct daemon *d, const char *name, const char *const *extra)
{
	char state[3 * PATH_MAX], bin[3 * PATH_MAX];
	const char *argv[40];
	int n = 0;

	snprintf(d->sock, sizeof(d->sock), "%s/%s.sock", dir, name);
	snprintf(state, sizeof(state), "%s/%s-state", dir, name);
	snprintf(bin, sizeof(bin), "%s/cuzkd", bindir);
	snprintf(d->log, sizeof(d->log), "%s/%s.log", dir, name);
	argv[n++] = bin;
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	argv[n++] = "--state-dir";
	argv[n++] = state;
	while (*extra && n < 36)        /* room for --isolation X and the NULL */
		argv[n++] = *extra++;
#ifdef CZ_DAEMON_ENV_ISOLATION
	/* CZ_ISOLATION=thread runs the same test against threads of cuzkd */
	if (getenv("CZ_ISOLATION")) {
		argv[n++] = "--isolation";
		argv[n++] = getenv("CZ_ISOLATION");
	}
#endif
	argv[n] = NULL;
	d->pid = fork();
	if (d->pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
#ifdef CZ_DAEMON_CHILD
		CZ_DAEMON_CHILD();      /* the test's own setup, in the child */
#endif
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < CZ_DAEMON_START_TRIES; i++) {
		char err[256];
#ifdef CZ_DAEMON_WATCH_EXIT
		int st;
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		}
#endif
		int s = cz_ctl_connect(d->sock, err, sizeof(err));
		if (s >= 0) {
			close(s);
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

/* SIGTERM, then SIGKILL if it has not exited in time (-1).  Its exit
 * status, or 128 + the signal; *secs (if not NULL) how long it took. */
static inline int daemon_stop_timed(struct daemon *d, double *secs)
{
	int st;
	struct timespec a, b;
	if (d->pid <= 0)        /* it never started, or exited already */
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	kill(d->pid, SIGTERM);
	for (int i = 0; i < CZ_DAEMON_STOP_TRIES; i++) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			clock_gettime(CLOCK_MONOTONIC, &b);
			if (secs)
				*secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(10000);
	}
	kill(d->pid, SIGKILL);
	waitpid(d->pid, &st, 0);
	return -1;
}

static inline int daemon_stop(struct daemon *d)
{
	return daemon_stop_timed(d, NULL);
}

/* One request (a JSON text) on a new connection, with nfds descriptors
 * passed; the response, or NULL. */
static inline json_object *daemon_req(struct daemon *d, const char *json, const int *fds, int nfds)
{
	char err[256];
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	if (s < 0)
		return NULL;
	json_object *q = json_tokener_parse(json);
	json_object *r = cz_ctl_call(s, q, fds, nfds, err, sizeof(err));
	json_object_put(q);
	close(s);
	return r;
}

static inline int ok_of(json_object *r)
{
	json_object *v;
	return r && json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v);
}

static inline const char *str_of(json_object *r, const char *k)
{
	json_object *v;
	return r && json_object_object_get_ex(r, k, &v) ? json_object_get_string(v) : "";
}

static inline int64_t int_of(json_object *r, const char *k)
{
	json_object *v;
	return r && json_object_object_get_ex(r, k, &v) ? json_object_get_int64(v) : -1;
}

#ifdef NWTNS
/* DIR/k.zkey, a dev key for the 2^8 merkle circuit, and NWTNS witnesses
 * DIR/w0.wtns ...; the key stays in *keep when it is not NULL. */
static inline int fixtures_make(struct cz_groth16_key *keep)
{
	struct cz_cs cs;
	struct cz_groth16_key own, *key = keep ? keep : &own;
	cz_fr *w;
	char err[256], p[2 * PATH_MAX];

	if (cz_builtin_build("merkle", 8, 1, &cs, &w, err) || cz_groth16_devsetup(&cs, 9, key, NULL))
		return -1;
	snprintf(p, sizeof(p), "%s/k.zkey", dir);
	int rc = cz_groth16_key_save(key, p, err, sizeof(err));
	if (!keep)
		cz_groth16_key_free(&own);
	for (int i = 0; !rc && i < NWTNS; i++) {
		free(w);
		cz_cs_free(&cs);
		if (cz_builtin_build("merkle", 8, 100 + (uint64_t)i, &cs, &w, err))
			return -1;
		snprintf(p, sizeof(p), "%s/w%d.wtns", dir, i);
		rc = cz_wtns_save(p, w, cs.nvars, err, sizeof(err));
	}
	free(w);
	cz_cs_free(&cs);
	return rc;
}

/* The key DIR/k.zkey as circuit "k"; a job of n partitions, witnesses
 * DIR/w(i % NWTNS).wtns. */
static inline int load_key(struct daemon *d)
{
	char q[3 * PATH_MAX];
	snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir);
	json_object *r = daemon_req(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("load: %s", str_of(r, "error"));
	json_object_put(r);
	return ok;
}

static inline int submit(struct daemon *d, const char *id, const char *prio, int n)
{
	char q[8192];
	int k = snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"priority\":\"%s\",\"witnesses\":[",
			 id, prio);
	for (int i = 0; i < n; i++)
		k += snprintf(q + k, sizeof(q) - (size_t)k, "%s\"%s/w%d.wtns\"", i ? "," : "", dir, i % NWTNS);
	snprintf(q + k, sizeof(q) - (size_t)k, "]}");
	json_object *r = daemon_req(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok;
}
#endif /* NWTNS */

/* Waits until every device's warm-up proof has verified (status's
 * devices[].warm_up.state, what /readyz waits for), so that work submitted
 * next finds every device taking it (under a sanitizer a warm-up outlasts
 * a short test's jobs): 1, or 0 when one failed or after 30 s. */
static inline int daemon_wait_warm(struct daemon *d)
{
	for (int i = 0; i < 3000; i++) {
		json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *devs;
		int n = 0, warm = 0, failed = -1;
		if (ok_of(r) && json_object_object_get_ex(r, "devices", &devs)) {
			n = (int)json_object_array_length(devs);
			for (int k = 0; k < n; k++) {
				json_object *wu = json_object_object_get(json_object_array_get_idx(devs, k), "warm_up");
				warm += !strcmp(str_of(wu, "state"), "verified");
				failed = !strcmp(str_of(wu, "state"), "failed") ? k : failed;
			}
		}
		json_object_put(r);
		if (failed >= 0)
			ct_diag("device %d: warm-up failed", failed);
		if (failed >= 0 || (n > 0 && warm == n))
			return failed < 0;
		usleep(10000);
	}
	ct_diag("a device still warming up after 30 s");
	return 0;
}

#endif /* CZ_DAEMON_H */
