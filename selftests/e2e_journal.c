/* SPDX-License-Identifier: MIT */
/* Description: nothing accepted is lost (issue 12, defects 4 and 13): ids never collide (caller ids vs automatic @<seq>, across restarts, after 300 later jobs), --id is idempotent, kill -9 loses no accepted job (waiting clients, torn journal tail, stale temporaries), and a crash test: 100 jobs from 4 clients, 10 seeded kill -9s, every job done exactly once with verifying proofs; a job's owner (uid 65534, SO_PEERCRED) and its accounting survive kill -9 and a restart, for a resumed unfinished job and a finished one the journal answers, and another non-admin uid is refused both. */
#define _GNU_SOURCE
#define NWTNS 8
#define CZ_DAEMON_START_TRIES 3000
#include "selftests/cz_daemon.h"
#include "zk/groth16/groth16.h"
#include "zk/io/snarkjs_json.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static struct cz_groth16_key key;

/* A submit of n witnesses w[first..] by path (id NULL: automatic); the
 * response (NULL when the daemon did not answer). */
static json_object *submit_p(const char *sock, const char *id, int first, int n, const char *prio)
{
	return sock_req(sock, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"priority\":\"%s\"%s%s%s,\"witnesses\":%s}",
				  prio, id ? ",\"id\":\"" : "", id ? id : "", id ? "\"" : "", wlist_at(first, n)),
			NULL, 0);
}

static json_object *submit_r(const char *sock, const char *id, int first, int n)
{
	return submit_p(sock, id, first, n, "normal");
}

static json_object *await_r(const char *sock, const char *id)
{
	return sock_await(sock, id, 120);
}

/* Every partition's proof in out verifies with cuzk's verifier against the
 * fixtures' key, and the directory holds exactly the job's 2n + 1 files. */
static int dir_complete(const char *out, int n, int verify)
{
	DIR *d = opendir(out);
	int files = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		files += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	if (files != 2 * n + 1)
		return 0;
	struct stat st;
	if (stat(fmt("%s/proof.bin", out), &st) || st.st_size != 192 * n)
		return 0;
	return !verify || proofs_verify(&key, out, n);
}

/* Temporary files anywhere under the state directory. */
static int ntmp;
static int count_tmp(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb, (void)flag;
	size_t n = strlen(p + f->base);
	if (n > 4 && !strcmp(p + f->base + n - 4, ".tmp"))
		ntmp++;
	return 0;
}

static int tmp_under(const char *state)
{
	ntmp = 0;
	nftw(state, count_tmp, 16, FTW_PHYS);
	return ntmp;
}

/* Files in path; waits up to 5 s for it to empty (the journal's writer
 * removes an ended job's spool files just after its end is durable). */
static int files_in_eventually(const char *path)
{
	int n = files_in(path);
	for (int i = 0; n && i < 500; i++) {
		usleep(10000);
		n = files_in(path);
	}
	return n;
}

/* utime + stime of pid from /proc, in seconds (-1 if unreadable). */
static double cpu_s(pid_t pid)
{
	FILE *f = fopen(fmt("/proc/%d/stat", (int)pid), "r");
	char b[1024];
	size_t n = f ? fread(b, 1, sizeof(b) - 1, f) : 0;
	if (f)
		fclose(f);
	b[n] = 0;
	char *p = strrchr(b, ')');
	unsigned long long ut, st;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void kill9(struct daemon *d)
{
	int st;
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &st, 0);
	}
	d->pid = 0;
}

/* cuzkd on DIR/<state>-state, its socket and log named run (a log per run). */
static int start_on(struct daemon *d, const char *run, const char *state, const char *backend,
		    const char *retain)
{
	static char sd[8][2 * PATH_MAX], kl[8][3 * PATH_MAX];
	static int k;
	char *s = sd[k % 8], *l = kl[k++ % 8];
	snprintf(s, sizeof(sd[0]), "%s/%s-state", dir, state);
	snprintf(l, sizeof(kl[0]), "k=%s/k.zkey", dir);
	const char *args[] = { "--state-dir", s, "--backend", backend, "--device-threads", "1",
			       "--mem-budget", "256M", "--null-delay-ms", "1", "--load", l,
			       "--retain", retain, NULL };
	return daemon_start(d, run, args);
}

/* ---- defect 4: ids ---- */

static void test_ids(void)
{
	struct daemon d;
	char state[2 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/ids-state", dir);

	int up = start_on(&d, "ids1", "ids", "cpu", "7d") == 0;
	/* The exact input: --id 42 first, then enough automatic jobs that
	 * one gets sequence number 42. */
	json_object *r = up ? submit_r(d.sock, "42", 0, 3) : NULL;
	int ok42 = ok_of(r);
	json_object_put(r);
	int autos = 1, last_seq = 0;
	char auto42[64] = "";
	for (int i = 0; up && i < 44; i++) {
		r = submit_r(d.sock, NULL, i, 1);
		const char *j = str_of(r, "job");
		autos &= ok_of(r) && j[0] == '@' && atoi(j + 1) == (int)int_of(r, "seq");
		if (int_of(r, "seq") == 42)
			snprintf(auto42, sizeof(auto42), "%s", j);
		last_seq = (int)int_of(r, "seq");
		json_object_put(r);
	}
	r = up ? await_r(d.sock, "42") : NULL;
	int done42 = ok_of(r);
	json_object_put(r);
	r = up && *auto42 ? await_r(d.sock, auto42) : NULL;
	int doneauto = ok_of(r);
	json_object_put(r);
	ct_ok(up && ok42 && autos && !strcmp(auto42, "@42") && done42 && doneauto &&
	      dir_complete(fmt("%s/proofs/42", state), 3, 1) && dir_complete(fmt("%s/proofs/@42", state), 1, 1),
	      "ids: --id 42 and the job with sequence number 42 (@42) each get their own complete "
	      "directory (proofs/42: 3 partitions, proofs/@42: 1), every proof verifies");

	r = up ? submit_r(d.sock, "@7", 0, 1) : NULL;
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "ids starting with '@' are the daemon's own"),
	      "ids: a caller's id of the automatic form is refused: %s", str_of(r, "error"));
	json_object_put(r);

	/* The same id: the same job again (a retry), or a different one (refused). */
	r = up ? submit_r(d.sock, "42", 0, 3) : NULL;
	int same = ok_of(r) && !strcmp(str_of(r, "existing"), "true") && int_of(r, "seq") == 1;
	json_object_put(r);
	r = up ? submit_r(d.sock, "42", 1, 3) : NULL;
	ct_ok(same && !ok_of(r) && strstr(str_of(r, "error"), "id '42' is in use by a different job"),
	      "ids: --id 42 with the same witnesses returns the existing job (seq 1), with others: %s",
	      str_of(r, "error"));
	json_object_put(r);

	/* A restart: numbers go on, proofs/@1 stays the first job's. */
	struct stat a, b;
	int had = stat(fmt("%s/proofs/@2/proof.bin", state), &a) == 0;
	up = up && daemon_stop(&d) == 0 && start_on(&d, "ids2", "ids", "cpu", "7d") == 0;
	r = up ? submit_r(d.sock, NULL, 0, 1) : NULL;
	int seq = (int)int_of(r, "seq");
	char nid[64];
	snprintf(nid, sizeof(nid), "%s", str_of(r, "job"));
	json_object_put(r);
	r = up ? await_r(d.sock, nid) : NULL;
	int nd = ok_of(r);
	json_object_put(r);
	ct_ok(up && had && seq == last_seq + 1 && nd && stat(fmt("%s/proofs/@2/proof.bin", state), &b) == 0 &&
	      a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec,
	      "ids: after a restart the next sequence number is %d (the last was %d), and proofs/@2 is "
	      "untouched", seq, last_seq);
	up = up && daemon_stop(&d) == 0;

	/* 300 later jobs (null backend on the same state), then the id is
	 * still held and still answers await. */
	up = up && start_on(&d, "ids3", "ids", "null", "7d") == 0;
	int churn = 1;
	for (int i = 0; up && i < 300; i++) {
		r = submit_r(d.sock, NULL, i, 1);
		churn &= ok_of(r);
		json_object_put(r);
	}
	r = up ? await_r(d.sock, "42") : NULL;
	int still = ok_of(r) && !strcmp(str_of(r, "state"), "done");
	json_object_put(r);
	r = up ? submit_r(d.sock, "42", 2, 3) : NULL;
	ct_ok(up && churn && still && !ok_of(r) && strstr(str_of(r, "error"), "in use by a different job"),
	      "ids: after 300 later jobs and two restarts, await 42 still answers done and --id 42 is "
	      "still refused for a different job");
	json_object_put(r);
	up = up && daemon_stop(&d) == 0;

	/* --retain 1: once it has passed, the id is free again. */
	up = up && start_on(&d, "ids4", "ids", "cpu", "1") == 0;
	sleep(2);
	r = up ? submit_r(d.sock, "42", 2, 2) : NULL;
	int reused = ok_of(r);
	json_object_put(r);
	r = reused ? await_r(d.sock, "42") : NULL;
	ct_ok(reused && ok_of(r) && dir_complete(fmt("%s/proofs/42", state), 2, 1),
	      "ids: with --retain 1 the id is free 2 s after its job ended; the new job 42 is proved "
	      "into a whole directory (2 partitions, the old one's 3 gone), its proofs verify");
	json_object_put(r);
	/* Idle, the daemon uses next to no CPU (its journal writer once
	 * spun on a timed wait given the wrong clock). */
	double c0 = cpu_s(d.pid);
	sleep(2);
	double idle = cpu_s(d.pid) - c0;
	ct_ok(up && c0 >= 0 && idle < 0.2 && daemon_stop(&d) == 0 && tmp_under(state) == 0,
	      "ids: idle for 2 s cuzkd used %.2f s of CPU (< 0.2); it stops; no .tmp left", idle);
}

/* ---- defect 13: kill -9 ---- */

static char wsock[2 * PATH_MAX];
static int waiter_answered;

static void *waiter_main(void *v)
{
	(void)v;
	json_object *r = await_r(wsock, "k11");
	waiter_answered = r != NULL;
	if (r)
		ct_diag("the waiter got: %s", json_object_to_json_string(r));
	json_object_put(r);
	return NULL;
}

static void test_kill(void)
{
	struct daemon d;
	char state[2 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/kill-state", dir);

	int up = start_on(&d, "kill1", "kill", "cpu", "7d") == 0;
	/* A backlog: 11 jobs of 4 and one of 24 at three priorities, one
	 * client waiting on the last. */
	static const char *const pr[] = { "low", "normal", "high" };
	int subs = 1;
	for (int i = 0; up && i < 12; i++) {
		/* the last one long enough (24 partitions) to be running when
		 * the daemon dies, however slowly the submits before it went */
		json_object *r = submit_p(d.sock, fmt("k%d", i), i, i == 11 ? 24 : 4, pr[i % 3]);
		subs &= ok_of(r);
		json_object_put(r);
	}
	/* A client waiting on the last job when the daemon is killed. */
	pthread_t w;
	snprintf(wsock, sizeof(wsock), "%s", d.sock);
	pthread_create(&w, NULL, waiter_main, NULL);
	usleep(100000);
	kill9(&d);
	pthread_join(w, NULL);
	int lost = !waiter_answered;    /* no answer: the process is gone */
	json_object *r;

	/* What a crash mid-write leaves, and what an older writer left. */
	int fd = open(fmt("%s/journal", state), O_WRONLY | O_APPEND);
	int torn = fd >= 0 && write(fd, "\x40\0\0\0garbage", 11) == 11;
	if (fd >= 0)
		close(fd);
	mkdir(fmt("%s/proofs/.999.tmp", state), 0750);
	close(open(fmt("%s/proofs/.999.tmp/0.proof.json", state), O_WRONLY | O_CREAT, 0640));
	/* A state directory from before the journal has no proofs/.clean. */
	unlink(fmt("%s/proofs/.clean", state));
	mkdir(fmt("%s/proofs/old", state), 0750);
	close(open(fmt("%s/proofs/old/.0.proof.json.tmp", state), O_WRONLY | O_CREAT, 0640));

	up = up && start_on(&d, "kill2", "kill", "cpu", "7d") == 0;
	int all = 1, verified = 1;
	for (int i = 0; up && i < 12; i++) {
		r = await_r(d.sock, fmt("k%d", i));
		all &= ok_of(r);
		if (ok_of(r))
			verified &= dir_complete(str_of(r, "dir"), i == 11 ? 24 : 4, 1);
		else
			ct_diag("k%d: %s", i, str_of(r, "error"));
		json_object_put(r);
	}
	/* Resumed in the original order: each job kept its priority, and the
	 * restarted daemon dispatched partitions in (priority, sequence,
	 * partition) order, read from its own trace. */
	int prio_kept = 1, sorted = 1, ndisp = 0;
	int seqprio[64];
	for (int i = 0; i < 64; i++)
		seqprio[i] = -1;
	r = up ? daemon_req(&d, "{\"op\":\"status\"}", NULL, 0) : NULL;
	json_object *jobs = r ? json_object_object_get(r, "jobs") : NULL;
	for (size_t i = 0; jobs && i < json_object_array_length(jobs); i++) {
		json_object *o = json_object_array_get_idx(jobs, i);
		const char *id = str_of(o, "job"), *p = str_of(o, "priority");
		int k = id[0] == 'k' ? atoi(id + 1) : -1;
		int64_t sq = int_of(o, "seq");
		if (k >= 0 && k < 12) {
			prio_kept &= !strcmp(p, pr[k % 3]);
			if (sq > 0 && sq < 64)
				seqprio[sq] = !strcmp(p, "high") ? 1 : !strcmp(p, "normal") ? 2 : 3;
		}
	}
	json_object_put(r);
	int tfd = open(fmt("%s/kill2.trace", dir), O_RDWR | O_CREAT | O_TRUNC, 0644);
	r = up && tfd >= 0 ? daemon_req(&d, "{\"op\":\"trace\"}", &tfd, 1) : NULL;
	json_object_put(r);
	if (tfd >= 0)
		close(tfd);
	FILE *tf = fopen(fmt("%s/kill2.trace", dir), "r");
	char line[512];
	long last_key = -1;
	while (tf && fgets(line, sizeof(line), tf)) {
		unsigned long long sq;
		unsigned part;
		char *ev = strstr(line, "\"ev\": \"dispatch\"");
		if (!ev || sscanf(strstr(line, "\"job\": "), "\"job\": %llu, \"part\": %u", &sq, &part) != 2 ||
		    sq >= 64 || seqprio[sq] < 0)
			continue;
		long key = (long)seqprio[sq] * 100000 + (long)sq * 1000 + part;
		sorted &= key > last_key;
		last_key = key;
		ndisp++;
	}
	if (tf)
		fclose(tf);
	ct_ok(prio_kept && sorted && ndisp > 0,
	      "kill -9: resumed jobs keep their priorities, and the %d partitions dispatched after the "
	      "restart went in (priority, sequence, partition) order (the daemon's own trace)", ndisp);
	char logs[4096] = "";
	FILE *f = fopen(fmt("%s/kill2.log", dir), "r");
	int saw_torn = 0;
	while (f && fgets(logs, sizeof(logs), f))
		saw_torn |= strstr(logs, "dropped a torn tail of 11 bytes") != NULL;
	if (f)
		fclose(f);
	ct_ok(subs && lost && torn && up && all && verified,
	      "kill -9: the waiting client gets no answer, but after a restart all 12 accepted jobs "
	      "(68 partitions) complete and their proofs verify (submitted %d, unanswered %d, torn %d, "
	      "restarted %d, done %d, verified %d)", subs, lost, torn, up, all, verified);
	int ntmp_left = tmp_under(state), nspool = files_in_eventually(fmt("%s/spool", state));
	ct_ok(saw_torn && ntmp_left == 0 && access(fmt("%s/proofs/.999.tmp", state), F_OK) && nspool == 0,
	      "kill -9: the torn journal tail is dropped (logged), temporary output (a .tmp directory, "
	      "an older writer's .tmp file) removed, the spool empty once every job ended (torn %d, "
	      "%d .tmp, %d spool files)", saw_torn, ntmp_left, nspool);
	/* The daemon still proves a good job afterwards. */
	r = up ? submit_r(d.sock, "after", 0, 2) : NULL;
	json_object_put(r);
	r = up ? await_r(d.sock, "after") : NULL;
	ct_ok(ok_of(r) && dir_complete(str_of(r, "dir"), 2, 1), "kill -9: the daemon then proves a good job");
	json_object_put(r);
	ct_ok(up && daemon_stop(&d) == 0, "kill -9: cuzkd stops on SIGTERM with status 0");
}

/* ---- owners and accounting across kill -9 (issues 12 and 13) ---- */

#define OWNER 65534             /* the submitter: nobody */
#define OTHER 65533             /* another non-admin uid */
#define FIN_PARTS 4
#define RUN_PARTS 12

/* The request as uid (groups: uid alone) from a forked child that opens
 * n witnesses w[first..] itself and passes them as descriptors, as a
 * non-admin must; the answer, or NULL. */
static json_object *as_uid(const char *sock, uid_t uid, const char *json, int first, int n)
{
	int p[2];
	if (pipe(p))
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		gid_t g = (gid_t)uid;
		if (setgroups(1, &g) || setresgid(g, g, g) || setresuid(uid, uid, uid))
			_exit(3);
		int fds[RUN_PARTS];
		for (int i = 0; i < n; i++)
			if ((fds[i] = open(fmt("%s/w%d.wtns", dir, (first + i) % NWTNS), O_RDONLY | O_CLOEXEC)) < 0)
				_exit(4);
		char err[256];
		int s = cz_ctl_connect(sock, err, sizeof(err));
		if (s < 0)
			_exit(5);
		json_object *q = json_tokener_parse(json);
		json_object *r = cz_ctl_call(s, q, fds, n, err, sizeof(err));
		child_answer(p[1], r);
	}
	close(p[1]);
	static char buf[1 << 16];
	size_t at = pipe_slurp(p[0], buf, sizeof(buf));
	int st;
	waitpid(pid, &st, 0);
	return at ? json_tokener_parse(buf) : NULL;
}

static json_object *await_as(const char *sock, uid_t uid, const char *id, double timeout)
{
	return as_uid(sock, uid, fmt("{\"op\":\"await\",\"job\":\"%s\",\"timeout\":%g}", id, timeout), 0, 0);
}

/* Another user's job is, to a non-admin, an unknown one: word for word
 * the answer to an id the daemon never held (issue 24). */
static int refused_as(json_object *r, const char *op, const char *id, uid_t uid)
{
	(void)op;
	(void)uid;
	return r && !ok_of(r) && !strcmp(str_of(r, "error"), fmt("unknown job '%s'", id));
}

static const char *acct_text(json_object *r)
{
	json_object *a;
	return r && json_object_object_get_ex(r, "accounting", &a)
	       ? json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN) : "(none)";
}

/* The accounting of r (an await's answer for a job of n partitions of
 * seq) against an independent count: the daemon's trace (whole, in
 * file) has a compute_start per partition of seq, on the device its
 * accounting names; attempts sum its partition_attempts, one each. */
static int acct_agrees(json_object *r, const char *trace, uint64_t seq, int n)
{
	json_object *a = NULL, *dv, *pa;
	if (!r || !json_object_object_get_ex(r, "accounting", &a) || !json_object_object_get_ex(a, "devices", &dv) ||
	    !json_object_object_get_ex(a, "partition_attempts", &pa) || (int)json_object_array_length(dv) != n ||
	    (int)json_object_array_length(pa) != n)
		return 0;
	int want[2] = { 0 }, got[2] = { 0 }, sum = 0, bad = 0;
	for (int i = 0; i < n; i++) {
		int d = json_object_get_int(json_object_array_get_idx(dv, i));
		sum += json_object_get_int(json_object_array_get_idx(pa, i));
		if (d < 0 || d > 1)
			bad++;
		else
			want[d]++;
	}
	FILE *f = fopen(trace, "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "\"compute_start\""))
			continue;
		json_object *o = json_tokener_parse(line);
		if (o && (uint64_t)int_of(o, "job") == seq) {
			int64_t d = int_of(o, "arg");
			if (d == 0 || d == 1)
				got[d]++;
			else
				bad++;
		}
		json_object_put(o);
	}
	if (f)
		fclose(f);
	int ok = !bad && want[0] == got[0] && want[1] == got[1] && got[0] + got[1] == n && sum == n &&
		 int_of(a, "attempts") == n;
	if (!ok)
		ct_diag("seq %llu: accounting devices %d/%d, trace compute_start %d/%d, attempts %d (%d), bad %d",
			(unsigned long long)seq, want[0], want[1], got[0], got[1], (int)int_of(a, "attempts"), sum, bad);
	return ok;
}

/* The daemon's whole trace into DIR/name (root: an admin may). */
static int trace_to(struct daemon *d, const char *name)
{
	int fd = open(fmt("%s/%s", dir, name), O_RDWR | O_CREAT | O_TRUNC, 0644);
	json_object *r = fd >= 0 ? daemon_req(d, "{\"op\":\"trace\"}", &fd, 1) : NULL;
	int ok = ok_of(r);
	json_object_put(r);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* cuzkd for the owner test: null backend, 2 devices, 500 ms a partition,
 * a socket every uid may connect to (the test is about the daemon's own
 * checks), the key loaded or not. */
static int start_owner(struct daemon *d, const char *run, int load)
{
	static char sd[2 * PATH_MAX], kl[3 * PATH_MAX];
	snprintf(sd, sizeof(sd), "%s/owner-state", dir);
	snprintf(kl, sizeof(kl), "k=%s/k.zkey", dir);
	const char *args[] = { "--state-dir", sd, "--backend", "null", "--devices", "2", "--mem-budget", "256M",
			       "--null-delay-ms", "500", "--socket-mode", "0666", "--retain", "7d",
			       load ? "--load" : NULL, kl, NULL };
	return daemon_start(d, run, args);
}

/* The test's own reading of which key a .zkey is (docs/formats.md,
 * key_digest): SHA-256 over its sections of types 1, 2, 3, each as its
 * 12-byte section header (u32 type, u64 size, little-endian) then its
 * bytes, in type order; hex into out[65].  0, or -1. */
static int key_sections_sha(const char *path, char *out)
{
	FILE *f = fopen(path, "rb");
	static uint8_t b[1 << 22];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	if (f)
		fclose(f);
	static uint8_t cat[1 << 22];
	size_t len = 0;
	int found = 0;
	for (uint32_t want = 1; n >= 12 && want <= 3; want++)
		for (size_t at = 12; at + 12 <= n;) {
			uint32_t type;
			uint64_t size;
			memcpy(&type, b + at, 4);       /* x86: little-endian, as the file */
			memcpy(&size, b + at + 4, 8);
			if (at + 12 + size > n)
				break;
			if (type == want) {
				memcpy(cat + len, b + at, 12 + size);
				len += 12 + size;
				found++;
				break;
			}
			at += 12 + size;
		}
	uint8_t d[32];
	if (!EVP_Digest(cat, len, d, NULL, EVP_sha256(), NULL))
		return -1;
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
	return found == 3 ? 0 : -1;
}

static void test_owner(void)
{
	struct daemon d;
	json_object *r, *r2, *r3;
	char kd[65];

	if (key_sections_sha(fmt("%s/k.zkey", dir), kd))
		ct_diag("k.zkey: its sections 1-3 not found");
	chmod(dir, 0755);       /* mkdtemp's 0700: uid 65534 reaches the socket and the witnesses */
	int up = start_owner(&d, "own1", 1) == 0;
	/* A finished job of uid 65534's, with its live accounting. */
	r = up ? as_uid(d.sock, OWNER, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"fin\"}", 0, FIN_PARTS) : NULL;
	uint64_t fin_seq = (uint64_t)int_of(r, "seq");
	int sub1 = ok_of(r);
	json_object_put(r);
	json_object *live_fin = sub1 ? await_as(d.sock, OWNER, "fin", 120) : NULL;
	int tr1 = up && trace_to(&d, "own1.trace");
	ct_ok(sub1 && ok_of(live_fin) && tr1 && acct_agrees(live_fin, fmt("%s/own1.trace", dir), fin_seq, FIN_PARTS),
	      "owner: uid %d submits a %d-partition job by descriptors and awaits it; its accounting's devices "
	      "agree partition for partition with the trace's compute_start events per device, one attempt each: %s",
	      OWNER, FIN_PARTS, acct_text(live_fin));
	/* An unfinished one (12 x 500 ms on 2 devices) when cuzkd is killed. */
	r = up ? as_uid(d.sock, OWNER, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"run\"}", 0, RUN_PARTS) : NULL;
	uint64_t run_seq = (uint64_t)int_of(r, "seq");
	int sub2 = ok_of(r);
	json_object_put(r);
	kill9(&d);
	ct_ok(sub2, "owner: uid %d's %d-partition job accepted, then kill -9 of cuzkd while it runs", OWNER, RUN_PARTS);

	/* Restarted without the key: "run" resumes, waiting for its circuit;
	 * "fin" is only in the journal. */
	up = up && start_owner(&d, "own2", 0) == 0;
	r = up ? await_as(d.sock, OWNER, "fin", 5) : NULL;
	r2 = up ? await_as(d.sock, OTHER, "fin", 5) : NULL;
	r3 = up ? daemon_req(&d, "{\"op\":\"await\",\"job\":\"fin\",\"timeout\":5}", NULL, 0) : NULL;
	int same = live_fin && !strcmp(acct_text(r), acct_text(live_fin)) && strcmp(acct_text(r), "(none)");
	ct_ok(ok_of(r) && !strcmp(str_of(r, "from_journal"), "true") && same,
	      "owner: after kill -9 and a restart, uid %d awaits its finished job, answered from the journal with "
	      "the live answer's accounting, field for field: %s", OWNER, acct_text(r));
	ct_ok(refused_as(r2, "await", "fin", OTHER) && ok_of(r3),
	      "owner: uid %d (no admin) is refused that finished job: %s; root (an admin) awaits it", OTHER,
	      str_of(r2, "error"));
	json_object_put(r);
	json_object_put(r2);
	json_object_put(r3);
	r = up ? await_as(d.sock, OTHER, "run", 1) : NULL;
	r2 = up ? as_uid(d.sock, OTHER, "{\"op\":\"cancel\",\"job\":\"run\"}", 0, 0) : NULL;
	r3 = up ? await_as(d.sock, OWNER, "run", 0.2) : NULL;
	json_object *st = up ? as_uid(d.sock, OWNER, "{\"op\":\"status\"}", 0, 0) : NULL;
	json_object *jobs = st ? json_object_object_get(st, "jobs") : NULL;
	int listed = 0, named = 0, knamed = 0;
	for (size_t i = 0; jobs && i < json_object_array_length(jobs); i++) {
		json_object *jo = json_object_array_get_idx(jobs, i);
		listed += !strcmp(str_of(jo, "job"), "run");
		named += !strcmp(str_of(jo, "job"), "run") && !strcmp(str_of(jo, "waiting_for_circuit"), "k");
		knamed += !strcmp(str_of(jo, "job"), "run") && !strcmp(str_of(jo, "waiting_for_key_digest"), kd);
	}
	/* Which circuit it waits for, in status, the await's answer and the
	 * log (issue 24: it used to wait with no word of it). */
	char logl[1024];
	int logged = 0, klogged = 0;
	FILE *lf = fopen(d.log, "r");
	while (lf && fgets(logl, sizeof(logl), lf)) {
		logged |= strstr(logl, "resumed job(s)") && strstr(logl, "wait for circuit 'k' to be loaded") != NULL;
		klogged |= strstr(logl, "resumed job(s)") && strstr(logl, fmt("with the key of key_digest %s", kd));
	}
	if (lf)
		fclose(lf);
	ct_ok(refused_as(r, "await", "run", OTHER) && refused_as(r2, "cancel", "run", OTHER) && r3 && !ok_of(r3) &&
	      !strcmp(str_of(r3, "timeout"), "true") && listed == 1 && named == 1 &&
	      !strcmp(str_of(r3, "waiting_for_circuit"), "k") && strstr(str_of(r3, "error"), "waits for circuit 'k'") &&
	      logged,
	      "owner: the resumed unfinished job is still uid %d's: uid %d's await and cancel are refused (%s), "
	      "uid %d's await waits (times out, as the circuit is not loaded yet: %s), its status lists the job "
	      "waiting for circuit k (%d), and so does the log (%d)",
	      OWNER, OTHER, str_of(r2, "error"), OWNER, str_of(r3, "error"), named, logged);
	/* And which key (issue 24: it named only the circuit): the digest the
	 * journal kept, against the test's own SHA-256 of k.zkey's sections. */
	ct_ok(knamed == 1 && klogged && !strcmp(str_of(r3, "waiting_for_key_digest"), kd) &&
	      strstr(str_of(r3, "error"), kd),
	      "owner: the resumed job names the key it was accepted with, key_digest %.16s... (SHA-256 of k.zkey's "
	      "sections 1-3), in its status (%d), the await's answer and the log (%d)", kd, knamed, klogged);
	json_object_put(r);
	json_object_put(r2);
	json_object_put(r3);
	json_object_put(st);
	r = up ? daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir), NULL, 0) : NULL;
	int loaded = ok_of(r);
	json_object_put(r);
	json_object *live_run = loaded ? await_as(d.sock, OWNER, "run", 120) : NULL;
	int tr2 = up && trace_to(&d, "own2.trace");
	ct_ok(loaded && ok_of(live_run) && tr2 && acct_agrees(live_run, fmt("%s/own2.trace", dir), run_seq, RUN_PARTS),
	      "owner: once the key is loaded, uid %d awaits the resumed job done; its accounting agrees with the "
	      "restarted daemon's trace, partition for partition", OWNER);

	/* Once more: kill -9, restart; the resumed job is now a finished one
	 * only the journal holds. */
	kill9(&d);
	up = up && start_owner(&d, "own3", 1) == 0;
	r = up ? await_as(d.sock, OWNER, "run", 5) : NULL;
	r2 = up ? await_as(d.sock, OTHER, "run", 5) : NULL;
	same = live_run && !strcmp(acct_text(r), acct_text(live_run)) && strcmp(acct_text(r), "(none)");
	ct_ok(ok_of(r) && !strcmp(str_of(r, "from_journal"), "true") && same && refused_as(r2, "await", "run", OTHER),
	      "owner: after another kill -9, uid %d's resumed job answers from the journal with the accounting of "
	      "its live answer; uid %d is refused", OWNER, OTHER);
	json_object_put(r);
	json_object_put(r2);
	/* The id is uid 65534's for --retain: another non-admin may not
	 * submit under it (nor learn the job through an "existing" answer);
	 * its owner's retry gets the job back. */
	const char *again = "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"fin\"}";
	r = up ? as_uid(d.sock, OTHER, again, 0, FIN_PARTS) : NULL;
	r2 = up ? as_uid(d.sock, OWNER, again, 0, FIN_PARTS) : NULL;
	ct_ok(r && !ok_of(r) && strstr(str_of(r, "error"), "submit: id 'fin' is in use by another user's job: "
			"permission denied") && ok_of(r2) && !strcmp(str_of(r2, "existing"), "true") &&
	      (uint64_t)int_of(r2, "seq") == fin_seq,
	      "owner: uid %d submitting under uid %d's finished id is refused (%s); uid %d's retry gets its job "
	      "back (existing, seq %llu)", OTHER, OWNER, str_of(r, "error"), OWNER, (unsigned long long)fin_seq);
	json_object_put(r);
	json_object_put(r2);
	json_object_put(live_fin);
	json_object_put(live_run);
	ct_ok(up && daemon_stop(&d) == 0, "owner: cuzkd stops on SIGTERM with status 0");
}

/* ---- the crash test: 100 jobs, 4 clients, 10 kill -9s ---- */

#define CLIENTS 4
#define PER 25
#define KILLS 10
#define CPARTS 2

static pthread_mutex_t sock_lock = PTHREAD_MUTEX_INITIALIZER;
static char cur_sock[2 * PATH_MAX];
static _Atomic int accepted, retried, existing, clients_done;

static void *client_main(void *v)
{
	int c = (int)(intptr_t)v;
	for (int i = 0; i < PER; i++) {
		char id[32], sock[2 * PATH_MAX];
		snprintf(id, sizeof(id), "c%d-%d", c, i);
		for (int tries = 0; tries < 3000; tries++) {
			pthread_mutex_lock(&sock_lock);
			snprintf(sock, sizeof(sock), "%s", cur_sock);
			pthread_mutex_unlock(&sock_lock);
			/* An unanswered submit is retried with the same id: the
			 * daemon returns the job if it was accepted. */
			json_object *r = submit_r(sock, id, c * PER + i, CPARTS);
			int ok = ok_of(r);
			if (ok && !strcmp(str_of(r, "existing"), "true"))
				existing++;
			json_object_put(r);
			if (ok) {
				accepted++;
				break;
			}
			retried++;
			usleep(20000);
		}
	}
	clients_done++;
	return NULL;
}

static void test_crash(void)
{
	struct daemon d;
	char state[2 * PATH_MAX];
	uint64_t seed = 0x5eed12;
	snprintf(state, sizeof(state), "%s/crash-state", dir);

	int up = start_on(&d, "crash0", "crash", "cpu", "7d") == 0;
	pthread_mutex_lock(&sock_lock);
	snprintf(cur_sock, sizeof(cur_sock), "%s", d.sock);
	pthread_mutex_unlock(&sock_lock);
	pthread_t t[CLIENTS];
	for (int c = 0; c < CLIENTS; c++)
		pthread_create(&t[c], NULL, client_main, (void *)(intptr_t)c);
	int kills = 0, restarts = 1;
	for (int k = 0; up && k < KILLS; k++) {
		/* 50 to 1250 ms into each run: during submits while clients
		 * stream, during proving and publishing later. */
		unsigned ms = 50 + (unsigned)(ct_splitmix64(&seed) % 1200);
		usleep(ms * 1000);
		kill9(&d);
		kills++;
		up = start_on(&d, fmt("crash%d", k + 1), "crash", "cpu", "7d") == 0;
		restarts += up;
		pthread_mutex_lock(&sock_lock);
		snprintf(cur_sock, sizeof(cur_sock), "%s", d.sock);
		pthread_mutex_unlock(&sock_lock);
	}
	for (int c = 0; c < CLIENTS; c++)
		pthread_join(t[c], NULL);
	ct_ok(up && kills == KILLS && restarts == KILLS + 1 && accepted == CLIENTS * PER,
	      "crash: %d kill -9s at seeded moments, each restarted; all %d jobs accepted (%d submits "
	      "retried, %d of them answered with the existing job)", kills, CLIENTS * PER, retried, existing);

	int done = 0, complete = 0, verified = 0, seqs_distinct = 1;
	static uint64_t seqs[CLIENTS * PER];
	char sample[2][2 * PATH_MAX] = { "", "" };
	for (int c = 0; up && c < CLIENTS; c++)
		for (int i = 0; i < PER; i++) {
			json_object *r = await_r(d.sock, fmt("c%d-%d", c, i));
			int n = c * PER + i;
			seqs[n] = (uint64_t)int_of(r, "seq");
			for (int m = 0; m < n; m++)
				seqs_distinct &= seqs[m] != seqs[n];
			if (ok_of(r)) {
				done++;
				complete += dir_complete(str_of(r, "dir"), CPARTS, 0);
				verified += dir_complete(str_of(r, "dir"), CPARTS, 1);
				if (n == 0 || n == CLIENTS * PER - 1)
					snprintf(sample[n != 0], sizeof(sample[0]), "%s", str_of(r, "dir"));
			} else {
				ct_diag("c%d-%d: %s", c, i, str_of(r, "error"));
			}
			json_object_put(r);
		}
	ct_ok(done == CLIENTS * PER && seqs_distinct && complete == done && verified == done,
	      "crash: every accepted job completed (%d of %d), each under its own sequence number, each "
	      "directory whole (%d), every proof verifies with cuzk's verifier (%d)", done, CLIENTS * PER,
	      complete, verified);
	int sj = *sample[0] && *sample[1] ? snarkjs_verify(sample[0], 0) : -1;
	if (sj < 0)
		ct_skip("snarkjs not installed (tools/install-deps.sh installs it)", "crash: snarkjs accepts a sample");
	else
		ct_ok(sj == 1 && snarkjs_verify(sample[1], 1) == 1,
		      "crash: snarkjs groth16 verify accepts the first job's partition 0 and the last's partition 1");
	/* Exactly once: no job reached "done" twice in any run's log. */
	int twice = 0, once = 0;
	static int seen[CLIENTS * PER];
	memset(seen, 0, sizeof(seen));
	for (int k = 0; k <= KILLS; k++) {
		FILE *f = fopen(fmt("%s/crash%d.log", dir, k), "r");
		char line[1024];
		while (f && fgets(line, sizeof(line), f)) {
			int c, i;
			char *p = strstr(line, "job=c");
			if (p && strstr(line, "state=done") && sscanf(p, "job=c%d-%d", &c, &i) == 2 && c >= 0 &&
			    c < CLIENTS && i >= 0 && i < PER)
				seen[c * PER + i]++;
		}
		if (f)
			fclose(f);
	}
	for (int n = 0; n < CLIENTS * PER; n++)
		twice += seen[n] > 1, once += seen[n] == 1;
	ct_ok(twice == 0 && tmp_under(state) == 0 && files_in_eventually(fmt("%s/spool", state)) == 0,
	      "crash: no job completed twice (%d logged done once, the rest ended in a run that was "
	      "killed before its log line), no .tmp left, the spool empty", once);
	ct_ok(up && daemon_stop(&d) == 0, "crash: cuzkd stops on SIGTERM with status 0");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-journal"))
		return 1;
	ct_plan(1 + 7 + 5 + 5 + 10);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0 &&
		   system(fmt("%s/cuzk vk %s/k.zkey %s/vk.json >/dev/null 2>&1", bindir, dir, dir)) == 0,
		   "fixtures: a 2^8 dev key, its vk.json and %d witnesses", NWTNS))
		return ct_exit();
	test_ids();
	test_kill();
	test_crash();
	test_owner();
	cz_groth16_key_free(&key);
	return e2e_end();
}
