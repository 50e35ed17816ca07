/* SPDX-License-Identifier: MIT */
/*
 * cz_daemon.h — the end-to-end selftests' scaffolding around a real cuzkd
 * (e2e_*.c): find the binaries and make a scratch directory, start a
 * daemon on a socket in it and wait until it answers, stop it, send it a
 * request, await a job; load the key and submit jobs made of the test's
 * witnesses, check the proofs a job wrote.  The trace oracle is in
 * cz_trace.h.
 *
 * e2e_begin() fills dir (the test's scratch directory, holding k.zkey and
 * w0..w(NWTNS-1).wtns), bindir (where cuzkd is) and root (the repository);
 * e2e_end() removes dir when every point passed.  Before the include a
 * test may define NWTNS (adds fixtures_make(), fixtures_make_big(),
 * wlist(), load_key(), submit() and good_job()), CZ_DAEMON_ENV_ISOLATION
 * (daemon_start() passes CZ_ISOLATION from the environment as --isolation,
 * so the same test runs against threads of cuzkd as well as its default
 * device children: the selftests/e2e_*_thread.sh scripts),
 * CZ_DAEMON_START_TRIES / CZ_DAEMON_STOP_TRIES and CZ_DAEMON_CHILD (a
 * function daemon_start() calls in the child before exec: environment,
 * signals), CZ_DAEMON_WATCH_EXIT (daemon_start() returns the exit status
 * of a cuzkd that exits before its socket answers, instead of waiting out
 * its tries), CZ_DAEMON_REQ (the request function the helpers below send
 * through, daemon_req()'s signature: a test with its own client) and
 * CZ_FMT_SLOTS / CZ_FMT_BYTES (fmt()'s buffers).
 */
#ifndef CZ_DAEMON_H
#define CZ_DAEMON_H

#include "ctl/ctl.h"
#include "zk/groth16/builtin.h"
#include "zk/io/groth16_io.h"
#include "zk/io/snarkjs_json.h"
#include "selftests/cz_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX], bindir[2 * PATH_MAX], root[2 * PATH_MAX];

/* Formats into one of CZ_FMT_SLOTS rotating buffers (per thread): a result
 * lives for CZ_FMT_SLOTS - 1 more calls. */
#ifndef CZ_FMT_SLOTS
#define CZ_FMT_SLOTS 16
#endif
#ifndef CZ_FMT_BYTES
#define CZ_FMT_BYTES 8192
#endif
/* The lines of file log holding want (0 when it cannot be read). */
static inline int cz_log_count(const char *log, const char *want)
{
	FILE *f = fopen(log, "r");
	char line[4096];
	int n = 0;
	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return n;
}

static inline char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static inline char *fmt(const char *f, ...)
{
	static _Thread_local char buf[CZ_FMT_SLOTS][CZ_FMT_BYTES];
	static _Thread_local unsigned k;
	va_list ap;
	char *b = buf[k++ % CZ_FMT_SLOTS];
	va_start(ap, f);
	vsnprintf(b, sizeof(buf[0]), f, ap);
	va_end(ap);
	return b;
}

/* From argv[0] (build/selftests/X): bindir (build/bin), root (the
 * repository) and dir, the template /tmp/NAME-XXXXXX the test makes with
 * mkdtemp() when it is ready to; SIGPIPE ignored (a daemon that hangs up
 * is an answer, not a death).  -1 when argv[0] does not resolve. */
static inline int e2e_begin(const char *argv0, const char *name)
{
	char self[PATH_MAX];
	if (!realpath(argv0, self))
		return -1;
	char *sdir = dirname(self);
	snprintf(bindir, sizeof(bindir), "%s/../bin", sdir);
	snprintf(root, sizeof(root), "%s/../..", sdir);
	snprintf(dir, sizeof(dir), "/tmp/%s-XXXXXX", name);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The test's exit: its scratch directory removed when every point passed
 * (kept, to look at, when one failed or CZ_KEEP is set). */
static inline int e2e_end(void)
{
	if (!ct_fail && !getenv("CZ_KEEP") && system(fmt("rm -rf %s", dir)))
		ct_diag("could not remove %s", dir);
	return ct_exit();
}

/* n test points that could not run. */
static inline void skip_n(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		ct_skip(why, "(not run)");
}

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

/* All a child wrote into the pipe whose read end is fd, up to cap - 1 bytes,
 * into buf (NUL-terminated); closes fd; returns the length read. */
static inline size_t pipe_slurp(int fd, char *buf, size_t cap)
{
	size_t at = 0;
	ssize_t k;
	while (at < cap - 1 && (k = read(fd, buf + at, cap - 1 - at)) > 0)
		at += (size_t)k;
	buf[at] = 0;
	close(fd);
	return at;
}

/* In a child: writes r's JSON text (nothing for NULL) to fd and exits, 0,
 * or 6 when the write fails. */
__attribute__((noreturn)) static inline void child_answer(int fd, json_object *r)
{
	const char *t = r ? json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN) : "";
	_exit(write(fd, t, strlen(t)) < 0 ? 6 : 0);
}

/* One request (a JSON text) on a new connection to sock, with nfds
 * descriptors passed; the response, or NULL. */
static inline json_object *sock_req(const char *sock, const char *json, const int *fds, int nfds)
{
	char err[256];
	int s = cz_ctl_connect(sock, err, sizeof(err));
	if (s < 0)
		return NULL;
	json_object *q = json_tokener_parse(json);
	json_object *r = cz_ctl_call(s, q, fds, nfds, err, sizeof(err));
	json_object_put(q);
	close(s);
	return r;
}

static inline json_object *daemon_req(struct daemon *d, const char *json, const int *fds, int nfds)
{
	return sock_req(d->sock, json, fds, nfds);
}

/* The daemon's whole trace (JSON lines, docs/trace.md) written into
 * dir/name, and that file opened for reading; NULL when it cannot be
 * made.  A refused request leaves it empty. */
static inline FILE *daemon_trace_file(struct daemon *d, const char *name)
{
	char p[3 * PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return NULL;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	json_object_put(daemon_req(d, "{\"op\":\"trace\"}", &fd, 1));
	close(fd);
	return fopen(p, "r");
}

#ifndef CZ_DAEMON_REQ
#define CZ_DAEMON_REQ daemon_req
#endif

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

/* The request fails with an error containing want. */
static inline int refused(json_object *r, const char *want)
{
	return r && !ok_of(r) && strstr(str_of(r, "error"), want);
}

static inline const char *err_of(json_object *r)
{
	return r ? str_of(r, "error") : "(no answer)";
}

/* An await of job id, with "timeout": timeout_s (none when < 0: the
 * daemon waits for ever), on sock or through the test's request function;
 * the response, or NULL. */
static inline const char *await_text(char *q, size_t cap, const char *id, int timeout_s)
{
	if (timeout_s < 0)
		snprintf(q, cap, "{\"op\":\"await\",\"job\":\"%s\"}", id);
	else
		snprintf(q, cap, "{\"op\":\"await\",\"job\":\"%s\",\"timeout\":%d}", id, timeout_s);
	return q;
}

static inline json_object *sock_await(const char *sock, const char *id, int timeout_s)
{
	char q[512];
	return sock_req(sock, await_text(q, sizeof(q), id, timeout_s), NULL, 0);
}

static inline json_object *daemon_await(struct daemon *d, const char *id, int timeout_s)
{
	char q[512];
	return CZ_DAEMON_REQ(d, await_text(q, sizeof(q), id, timeout_s), NULL, 0);
}

/* 1 when job id ends done (waiting for ever), its directory in out (cap
 * bytes) when out is not NULL; else 0 and a diagnostic with its state. */
static inline int await_done(struct daemon *d, const char *id, char *out, size_t cap)
{
	json_object *r = daemon_await(d, id, -1);
	int ok = ok_of(r) && !strcmp(str_of(r, "state"), "done");
	if (!ok)
		ct_diag("await %s: %s %s", id, str_of(r, "state"), str_of(r, "error"));
	if (out)
		snprintf(out, cap, "%s", str_of(r, "dir"));
	json_object_put(r);
	return ok;
}

/* Partition k's proof in the job directory out verifies with cuzk's
 * verifier against key (the test's own, from its fixtures). */
static inline int proof_verifies(const struct cz_groth16_key *key, const char *out, int k)
{
	char err[256], p[PATH_MAX + 64], q[PATH_MAX + 64];
	struct cz_groth16_vk vk;
	struct cz_groth16_proof pr;
	cz_fr *pub;
	size_t np;
	cz_groth16_vk_from_key(&vk, key);
	if (snprintf(p, sizeof(p), "%.*s/%d.proof.json", PATH_MAX, out, k) < 0 ||
	    snprintf(q, sizeof(q), "%.*s/%d.public.json", PATH_MAX, out, k) < 0)
		return 0;
	if (cz_proof_json_read(p, &pr, err) || cz_public_json_read(q, &pub, &np, err))
		return 0;
	int ok = np == key->npub && cz_groth16_verify(&vk, pub, &pr);
	free(pub);
	return ok;
}

/* Partitions 0..n-1 of out all verify (proof_verifies()). */
static inline int proofs_verify(const struct cz_groth16_key *key, const char *out, int n)
{
	for (int k = 0; k < n; k++)
		if (!proof_verifies(key, out, k))
			return 0;
	return 1;
}

/* snarkjs groth16 verify accepts partition k of out against DIR/vk.json;
 * -1 when snarkjs (tools/install-deps.sh) or vk.json is not there. */
static inline int snarkjs_verify(const char *out, int k)
{
	char cli[3 * PATH_MAX];
	snprintf(cli, sizeof(cli), "%s/tools/fixtures/node_modules/snarkjs/build/cli.cjs", root);
	if (access(cli, R_OK) || access(fmt("%s/vk.json", dir), R_OK))
		return -1;
	return system(fmt("node %s groth16 verify %s/vk.json %s/%d.public.json %s/%d.proof.json 2>&1 | grep -q 'OK'",
			  cli, dir, out, k, out, k)) == 0;
}

/* The entries of folder path whose names do not start with '.' (a job's
 * files, a spool's), or -1 when it cannot be opened. */
static inline int files_in(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n : -1;
}

/* 1 when snarkjs's CLI (tools/install-deps.sh) and node are there. */
static inline int snarkjs_usable(void)
{
	return !access(fmt("%s/tools/fixtures/node_modules/snarkjs/build/cli.cjs", root), R_OK) &&
	       system("node --version >/dev/null 2>&1") == 0;
}

/* Proof k of out verifies against the verifying key vk (a snarkjs
 * vk.json): by snarkjs groth16 verify when with_snarkjs (snarkjs_usable()),
 * by `cuzk verify` otherwise. */
static inline int vk_verify(const char *vk, const char *out, int k, int with_snarkjs)
{
	const char *cmd = with_snarkjs
		? fmt("node %s/tools/fixtures/node_modules/snarkjs/build/cli.cjs groth16 verify %s %s/%d.public.json "
		      "%s/%d.proof.json 2>&1 | grep -q 'OK!'", root, vk, out, k, out, k)
		: fmt("%s/cuzk verify %s %s/%d.public.json %s/%d.proof.json >/dev/null 2>&1", bindir, vk, out, k, out, k);
	return system(cmd) == 0;
}

/* The circom fixtures of one curve: selftests/data/bn128 (bn) or
 * selftests/data (BLS12-381). */
static inline const char *e2e_data(int bn)
{
	return bn ? fmt("%s/selftests/data/bn128", root) : fmt("%s/selftests/data", root);
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

/* DIR/big.zkey, a dev key for the 2^12 merkle circuit, and its witness
 * DIR/bw.wtns: a job of many of its partitions stays active long enough to
 * be waited on, cancelled or counted. */
static inline int fixtures_make_big(void)
{
	struct cz_cs cs;
	cz_fr *w = NULL;
	char err[256];
	struct cz_groth16_key big;
	int rc = cz_builtin_build("merkle", 12, 1, &cs, &w, err) || cz_groth16_devsetup(&cs, 9, &big, NULL) ||
		 cz_groth16_key_save(&big, fmt("%s/big.zkey", dir), err, sizeof(err)) ||
		 cz_wtns_save(fmt("%s/bw.wtns", dir), w, cs.nvars, err, sizeof(err));
	if (!rc)
		cz_groth16_key_free(&big);
	free(w);
	cz_cs_free(&cs);
	return rc;
}

/* "[w(first), w(first+1), ...]": n witness paths, DIR/w(i % NWTNS).wtns
 * (a buffer per thread, valid until the next call). */
static inline const char *wlist_at(int first, int n)
{
	static _Thread_local char b[64 * 1024];
	size_t at = 0;
	b[at++] = '[';
	for (int i = 0; i < n && at < sizeof(b); i++)
		at += (size_t)snprintf(b + at, sizeof(b) - at, "%s\"%s/w%d.wtns\"", i ? "," : "", dir,
				       (first + i) % NWTNS);
	if (at < sizeof(b))
		snprintf(b + at, sizeof(b) - at, "]");
	return b;
}

static inline const char *wlist(int n)
{
	return wlist_at(0, n);
}

/* The key DIR/k.zkey as circuit "k"; a job of n partitions, witnesses
 * DIR/w(i % NWTNS).wtns. */
static inline int load_key(struct daemon *d)
{
	char q[3 * PATH_MAX];
	snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir);
	json_object *r = CZ_DAEMON_REQ(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("load: %s", str_of(r, "error"));
	json_object_put(r);
	return ok;
}

static inline int submit(struct daemon *d, const char *id, const char *prio, int n)
{
	char q[8192];
	if (snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"priority\":\"%s\",\"witnesses\":%s}",
		     id, prio, wlist(n)) >= (int)sizeof(q))
		return 0;       /* a request this helper cannot write: a failed submit */
	json_object *r = CZ_DAEMON_REQ(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok;
}

/* Proves a 4-partition job of k (awaited with timeout_s, see daemon_await())
 * and checks partition 3's proof against the fixtures' key. */
static inline int good_job(struct daemon *d, const char *id, const struct cz_groth16_key *key, int timeout_s)
{
	char q[8192];
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"witnesses\":%s}", id, wlist(4));
	json_object *r = CZ_DAEMON_REQ(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("good job %s: %s", id, err_of(r));
	json_object_put(r);
	if (!ok)
		return 0;
	r = daemon_await(d, id, timeout_s);
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s", str_of(r, "dir"));
	ok = ok_of(r);
	json_object_put(r);
	return ok && proof_verifies(key, out, 3);
}
#endif /* NWTNS */

/* Waits until every device's warm-up proof has verified (status's
 * devices[].warm_up.state, what /readyz waits for), so that work submitted
 * next finds every device taking it (under a sanitizer a warm-up outlasts
 * a short test's jobs): 1, or 0 when one failed or after 120 s (a
 * precondition, not a bound: 30 s ran out in e2e_order under ASan while
 * the sanitizer suites ran side by side, load 15 on 2 cores). */
static inline int daemon_wait_warm(struct daemon *d)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (t1 = t0; t1.tv_sec - t0.tv_sec < 120; clock_gettime(CLOCK_MONOTONIC, &t1)) {
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
	ct_diag("a device still warming up after 120 s");
	return 0;
}

/* Fills the filesystem holding path to its last byte, writing path: 0 once
 * a write got ENOSPC (the full-disk tests, e2e_disk and e2e_soak). */
static inline int fill_fs(const char *path)
{
	static char b[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	memset(b, 'f', sizeof(b));
	int rc = -1;
	for (int i = 0; i < 1000000; i++) {
		ssize_t k = write(fd, b, sizeof(b));
		if (k < 0) {
			rc = errno == ENOSPC ? 0 : -1;
			break;
		}
		if (k < (ssize_t)sizeof(b)) {
			rc = write(fd, b, 1) < 0 && errno == ENOSPC ? 0 : -1;
			break;
		}
	}
	close(fd);
	return rc;
}

#endif /* CZ_DAEMON_H */
