/* SPDX-License-Identifier: MIT */
/* Description: the control plane against a hostile or unlucky client (issue 12): await timeouts, keys replaced during load, FIFO witnesses, connection slots, large replies, stalled trace readers, --socket on a file, field types. */
#define _GNU_SOURCE  /* F_SETPIPE_SZ */
#include <json-c/json.h>

/* Bounds for "it answers" and "it exits": generous for a loaded 2-core
 * machine, and only where a wait that never ends is the defect. */
#define ANSWER_MS 20000
#define EXIT_TRIES 3000   /* × 10 ms */

/* The shared helpers (load, submit, await, good_job) send through this
 * test's own client: an answer within ANSWER_MS, the connection closed as
 * a polite client does. */
struct daemon;
static json_object *req_fds(struct daemon *d, const char *json, const int *fds, int nfds);
#define NWTNS 4
#define CZ_DAEMON_REQ req_fds
#define CZ_DAEMON_WATCH_EXIT
#define CZ_DAEMON_STOP_TRIES EXIT_TRIES
#include "selftests/cz_daemon.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>

static struct cz_groth16_key key;

/* ---- other programs, and the daemon's client ---- */

static pid_t spawn(const char *const *argv, const char *log)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Exit status of pid, or -1 if it has not exited within EXIT_TRIES. */
static int wait_exit(pid_t pid)
{
	int st;
	for (int i = 0; i < EXIT_TRIES; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	return -1;
}

static int alive(struct daemon *d)
{
	return waitpid(d->pid, NULL, WNOHANG) == 0;
}

/* Runs a program to its end; its stdout and stderr land in out. */
static int run_prog(const char *const *argv, char *out, size_t cap)
{
	char log[2 * PATH_MAX];
	snprintf(log, sizeof(log), "%s/prog.out", dir);
	pid_t pid = spawn(argv, log);
	int st = wait_exit(pid);
	if (st < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	out[0] = 0;
	FILE *f = fopen(log, "r");
	if (f) {
		size_t k = fread(out, 1, cap - 1, f);
		out[k] = 0;
		fclose(f);
	}
	return st;
}

/* Waits up to ms for fd to be readable (or hung up): 1, else 0. */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1;
}

/* One response on s within ANSWER_MS, or NULL. */
static json_object *answer(int s)
{
	char err[256], *msg;
	size_t len;
	int fds[4], nfds;
	if (!readable(s, ANSWER_MS)) {
		ct_diag("no answer within %d ms", ANSWER_MS);
		return NULL;
	}
	int rc = cz_ctl_recv_ex(s, CZ_CTL_MAX_REPLY, ANSWER_MS, &msg, &len, fds, &nfds, 4, err, sizeof(err));
	if (rc) {
		ct_diag("no answer: %s", rc == 1 ? "the daemon closed the connection" : err);
		return NULL;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	json_object *r = json_tokener_parse(msg);
	free(msg);
	return r;
}

static int send_text(int s, const char *json, const int *fds, int nfds)
{
	return cz_ctl_send(s, json, strlen(json), fds, nfds);
}

/* One request (JSON text, sent as written) on a new connection; its answer
 * within ANSWER_MS, else NULL. */
static json_object *req_fds(struct daemon *d, const char *json, const int *fds, int nfds)
{
	char err[256];
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	if (s < 0)
		return NULL;
	json_object *r = send_text(s, json, fds, nfds) ? NULL : answer(s);
	/* Leave as a polite client does, and wait until the daemon has closed
	 * its end: its slot is free before the next step (no lingering
	 * connection counts against a cap the next step tests). */
	char b;
	shutdown(s, SHUT_WR);
	if (r && readable(s, ANSWER_MS))
		(void)!recv(s, &b, 1, 0);
	close(s);
	return r;
}

static json_object *req(struct daemon *d, const char *json)
{
	return req_fds(d, json, NULL, 0);
}

/* A 200-partition job of the larger key ("slow"), to wait on. */
static char *slow_job(const char *id)
{
	static char b[80 * 1024];
	size_t at = (size_t)snprintf(b, sizeof(b), "{\"op\":\"submit\",\"circuit\":\"slow\",\"id\":\"%s\",\"witnesses\":[", id);
	for (int i = 0; i < 200; i++)
		at += (size_t)snprintf(b + at, sizeof(b) - at, "%s\"%s/bw.wtns\"", i ? "," : "", dir);
	snprintf(b + at, sizeof(b) - at, "]}");
	return b;
}

/* ---- 1: await timeouts ---- */

static void test_await(struct daemon *d)
{
	json_object *r = req(d, slow_job("long"));
	ct_ok(ok_of(r), "a 200-partition job to wait on: %s", str_of(r, "error"));
	json_object_put(r);

	/* Each was a spin holding the engine lock (huge), a wait for ever
	 * (nan) or an instant answer (NaN); now each is refused naming it. */
	static const char *const bad[] = { "1e19", "1e300", "9.3e18", "NaN", "Infinity", "-1", "\"10\"", "true" };
	int all = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		r = req(d, fmt("{\"op\":\"await\",\"job\":\"long\",\"timeout\":%s}", bad[i]));
		int ok = refused(r, "\"timeout\" must be a finite number of seconds from 0 to");
		if (!ok)
			ct_diag("timeout %s: %s", bad[i], r ? str_of(r, "error") : "(no answer)");
		all &= ok;
		json_object_put(r);
	}
	ct_ok(all, "await with timeout 1e19, 1e300, 9.3e18, NaN, Infinity, -1, \"10\", true: each refused naming \"timeout\"");

	/* A real wait, pending on one connection: status answers on another,
	 * and the wait ends when the job does. */
	char err[256];
	int a = cz_ctl_connect(d->sock, err, sizeof(err));
	send_text(a, "{\"op\":\"await\",\"job\":\"long\",\"timeout\":3600}", NULL, 0);
	r = req(d, "{\"op\":\"status\"}");
	ct_ok(ok_of(r), "status answers while an await with a 3600 s timeout is pending");
	json_object_put(r);
	r = req(d, "{\"op\":\"cancel\",\"job\":\"long\"}");
	json_object_put(r);
	r = answer(a);
	ct_ok(r && !strcmp(str_of(r, "state"), "cancelled"), "the pending await answers when the job is cancelled: %s",
	      r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	close(a);

	/* cuzkctl checks before it sends. */
	static const char *const cbad[] = { "1e19", "inf", "nan", "abc", "-1", "" };
	all = 1;
	for (size_t i = 0; i < sizeof(cbad) / sizeof(*cbad); i++) {
		char out[4096];
		const char *argv[] = { fmt("%s/cuzkctl", bindir), "--socket", d->sock, "await", "long", "--timeout",
				       cbad[i], NULL };
		int st = run_prog(argv, out, sizeof(out));
		int ok = st == 2 && strstr(out, "--timeout") && strstr(out, "expected seconds");
		if (!ok)
			ct_diag("cuzkctl --timeout '%s': status %d: %s", cbad[i], st, out);
		all &= ok;
	}
	ct_ok(all, "cuzkctl await --timeout 1e19, inf, nan, abc, -1, '': exit 2 naming --timeout");
	ct_ok(good_job(d, "after-await", &key, -1), "the daemon still proves a good job (its proof verifies)");
}

/* ---- 2 (key half): a .zkey replaced in place during load ---- */

struct rewriter {
	const char *path;
	const uint8_t *bytes;
	size_t n;
	atomic_bool stop;
	unsigned rounds;
};

/* What `cp new.zkey k.zkey` does, over and over: truncate, then write. */
static void *rewrite_main(void *v)
{
	struct rewriter *w = v;
	while (!atomic_load(&w->stop)) {
		int fd = open(w->path, O_WRONLY | O_TRUNC);
		if (fd < 0)
			break;
		for (size_t at = 0; at < w->n;) {
			size_t chunk = w->n - at < 65536 ? w->n - at : 65536;
			ssize_t k = write(fd, w->bytes + at, chunk);
			if (k <= 0)
				break;
			at += (size_t)k;
		}
		close(fd);
		w->rounds++;
		/* Whole for a moment, so that loads open a complete file and
		 * are reading it when the next truncation comes. */
		usleep(3000);
	}
	return NULL;
}

static void test_key_replaced(struct daemon *d)
{
	enum { TRIES = 32 };
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/big.zkey", dir);
	FILE *f = fopen(path, "rb");
	struct stat st;
	stat(path, &st);
	uint8_t *bytes = malloc((size_t)st.st_size);
	size_t n = f ? fread(bytes, 1, (size_t)st.st_size, f) : 0;
	if (f)
		fclose(f);
	int answered = 0, loaded = 0, changed = 0;
	for (int t = 0; t < TRIES; t++) {
		struct rewriter w = { .path = path, .bytes = bytes, .n = n };
		pthread_t tid;
		pthread_create(&tid, NULL, rewrite_main, &w);
		usleep((useconds_t)(t % 8) * 700);   /* each try meets the cycle at another phase */
		json_object *r = req(d, fmt("{\"op\":\"load\",\"name\":\"big%d\",\"zkey\":\"%s\"}", t, path));
		atomic_store(&w.stop, true);
		pthread_join(tid, NULL);
		answered += r != NULL;
		loaded += ok_of(r);
		changed += refused(r, "changed while being read") != 0;
		if (r && !ok_of(r))
			ct_diag("load during rewrite %d (%u rewrites): %s", t, w.rounds, str_of(r, "error"));
		if (ok_of(r))
			json_object_put(req(d, fmt("{\"op\":\"unload\",\"name\":\"big%d\"}", t)));
		json_object_put(r);
	}
	free(bytes);
	ct_ok(answered == TRIES && alive(d),
	      "%d loads while the .zkey is rewritten in place (cp): all answered, the daemon alive (%d loaded, %d 'changed while being read', %d other errors)",
	      TRIES, loaded, changed, TRIES - loaded - changed);
	ct_ok(good_job(d, "after-zkey", &key, -1), "the daemon still proves a good job");
}

/* ---- 3: FIFOs and other non-regular files ---- */

static void test_fifo(struct daemon *d)
{
	char fifo[PATH_MAX + 16];
	snprintf(fifo, sizeof(fifo), "%s/w.fifo", dir);
	mkfifo(fifo, 0600);
	json_object *r = req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s\"]}", fifo));
	ct_ok(refused(r, "a FIFO, not a regular file") && strstr(str_of(r, "error"), "w.fifo"),
	      "a FIFO as a witness path is refused at once: %s", r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	r = req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s\"]}", dir));
	ct_ok(refused(r, "a directory, not a regular file"), "a directory as a witness: %s", str_of(r, "error"));
	json_object_put(r);
	int p[2];
	if (pipe(p))
		p[0] = p[1] = -1;
	r = req_fds(d, "{\"op\":\"submit\",\"circuit\":\"k\"}", &p[0], 1);
	ct_ok(refused(r, "witness 0: a FIFO, not a regular file"), "a passed pipe as a witness: %s", str_of(r, "error"));
	json_object_put(r);
	close(p[0]);
	close(p[1]);
	r = req(d, fmt("{\"op\":\"load\",\"name\":\"f\",\"zkey\":\"%s\"}", fifo));
	ct_ok(refused(r, "not a regular file"), "a FIFO as a .zkey is refused at once: %s", str_of(r, "error"));
	json_object_put(r);
	r = req(d, "{\"op\":\"status\"}");
	ct_ok(ok_of(r), "status answers after them");
	json_object_put(r);
	ct_ok(good_job(d, "after-fifo", &key, -1), "the daemon still proves a good job");
}

/* ---- issue 24: a witness's header checked at submit ---- */

/* A copy of w0.wtns with len bytes at off replaced (all of it zero when
 * len is 0), named name; its path. */
static const char *wtns_variant(const char *name, size_t off, const void *bytes, size_t len)
{
	static char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/%s.wtns", dir, name);
	FILE *in = fopen(fmt("%s/w0.wtns", dir), "rb"), *out = fopen(path, "wb");
	static unsigned char b[1 << 20];
	size_t n = in ? fread(b, 1, sizeof(b), in) : 0;
	if (!len)
		memset(b, 0, n);
	else if (off + len <= n)
		memcpy(b + off, bytes, len);
	if (out)
		fwrite(b, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return path;
}

static void test_wtns_head(struct daemon *d)
{
	/* BN254's r, little-endian: a witness of the other curve. */
	static const char bn_r_hex[] = "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";
	unsigned char bn_r[32];
	for (int i = 0; i < 32; i++)
		sscanf(bn_r_hex + 2 * (31 - i), "%2hhx", &bn_r[i]);
	static const uint32_t v3 = 3, n8 = 48, nw = 7;
	const struct {
		const char *name;
		size_t off, len;
		const void *bytes;
		const char *want;
	} bad[] = {
		{ "zero", 0, 0, NULL, "field magic: 00 00 00 00, not \"wtns\"" },
		{ "magic", 0, 4, "wtnz", "field magic: 77 74 6e 7a, not \"wtns\"" },
		{ "version", 4, 4, &v3, "field version: 3, expected 1 or 2" },
		{ "n8", 24, 4, &n8, "section 1 (header): field n8: 48, expected 32" },
		{ "curve", 28, 32, NULL, "section 1 (header): field q: curve bn128/BN254, expected bls12381/BLS12-381" },
		{ "count", 60, 4, &nw, "section 1 (header): field nWitness: 7, the circuit has nVars" },
	};
	int all = 1;
	json_object *st0 = req(d, "{\"op\":\"status\"}");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *w = wtns_variant(bad[i].name, bad[i].off, bad[i].bytes ? bad[i].bytes : bn_r, bad[i].len);
		json_object *r = req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s\"]}", w));
		int ok = refused(r, bad[i].want) && strstr(err_of(r), fmt("witness 0 %s: ", w));
		if (!ok)
			ct_diag("%s: %s", bad[i].name, err_of(r));
		all &= ok;
		json_object_put(r);
	}
	json_object *st1 = req(d, "{\"op\":\"status\"}");
	json_object *c0 = json_object_object_get(st0, "counters"), *c1 = json_object_object_get(st1, "counters");
	int64_t s0 = json_object_get_int64(json_object_object_get(c0, "jobs_submitted"));
	int64_t s1 = json_object_get_int64(json_object_object_get(c1, "jobs_submitted"));
	ct_ok(all && st0 && s0 == s1,
	      "6 witnesses of the right size with a bad header (all zero, magic, version, n8, the other curve's "
	      "prime, nWitness) refused at submit naming the file and the field, no job made (%lld -> %lld)",
	      (long long)s0, (long long)s1);
	json_object_put(st0);
	json_object_put(st1);
}

/* ---- 6: connection slots, idle and read timeouts ---- */

static void test_slots(struct daemon *d, double read_s)
{
	char err[256];
	int c[CZ_CTL_MAX_CONN];

	/* 64 idle connections: a new one closes the one idle the longest. */
	for (int i = 0; i < CZ_CTL_MAX_CONN; i++)
		c[i] = cz_ctl_connect(d->sock, err, sizeof(err));
	json_object *r = req(d, "{\"op\":\"status\"}");
	ct_ok(ok_of(r), "with %d idle connections open, status still answers", CZ_CTL_MAX_CONN);
	json_object_put(r);
	r = answer(c[0]);
	ct_ok(refused(r, "idle the longest"), "the oldest idle connection is told why it was closed: %s",
	      r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	for (int i = 0; i < CZ_CTL_MAX_CONN; i++)
		close(c[i]);

	/* 64 clients wait on a job: a 65th is told the slots are full; once
	 * the 64 hang up, their slots come back. */
	r = req(d, slow_job("slow"));
	json_object_put(r);
	for (int i = 0; i < CZ_CTL_MAX_CONN; i++) {
		c[i] = cz_ctl_connect(d->sock, err, sizeof(err));
		send_text(c[i], "{\"op\":\"await\",\"job\":\"slow\"}", NULL, 0);
	}
	/* The awaits are read asynchronously: retry until all 64 hold a slot. */
	int full = 0;
	for (int t = 0; t < 200 && !full; t++) {
		r = req(d, "{\"op\":\"status\"}");
		full = refused(r, "too many connections") != 0;
		json_object_put(r);
		if (!full)
			usleep(20000);
	}
	ct_ok(full, "with %d awaits pending, another client gets 'too many connections'", CZ_CTL_MAX_CONN);
	for (int i = 0; i < CZ_CTL_MAX_CONN; i++)
		close(c[i]);
	int tries = 0, ok = 0;
	while (!ok && tries++ < 200) {
		r = req(d, "{\"op\":\"status\"}");
		ok = ok_of(r);
		json_object_put(r);
		if (!ok)
			usleep(20000);
	}
	ct_ok(ok, "after those %d clients hang up, status answers again (attempt %d)", CZ_CTL_MAX_CONN, tries);
	json_object_put(req(d, "{\"op\":\"cancel\",\"job\":\"slow\"}"));

	/* A frame cut off mid-way, and a connection left idle. */
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	uint8_t half[8] = { 100, 0, 0, 0, '{', '"', 'o', 'p' };
	send(s, half, sizeof(half), MSG_NOSIGNAL);
	r = answer(s);
	ct_ok(refused(r, "read timeout"), "a frame cut off mid-way is answered after --read-timeout %.1f: %s", read_s,
	      r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	char b;
	ct_ok(readable(s, ANSWER_MS) && recv(s, &b, 1, 0) == 0, "and its connection closed");
	close(s);
	ct_ok(good_job(d, "after-slots", &key, -1), "the daemon still proves a good job");
}

/* The idle timeout, on a daemon of its own (--idle-timeout 1): the main
 * one's is long, so that nothing else in this test can meet it. */
static void test_idle(void)
{
	struct daemon d;
	char err[256], b;
	const char *nul[] = { "--backend", "null", "--mem-budget", "1G", "--idle-timeout", "1", NULL };
	int up = daemon_start(&d, "idle", nul) == 0;
	int s = up ? cz_ctl_connect(d.sock, err, sizeof(err)) : -1;
	json_object *r = s >= 0 ? answer(s) : NULL;
	ct_ok(refused(r, "no request for 1 s (idle timeout)") && readable(s, ANSWER_MS) && recv(s, &b, 1, 0) == 0,
	      "a connection idle for --idle-timeout 1 is told so and closed: %s", r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	if (s >= 0)
		close(s);
	if (up)
		daemon_stop(&d);
}

/* The optional per-uid cap (--max-conns-per-uid 2), on a daemon of its own:
 * a uid at its cap recycles its own idle connection, and is refused only
 * when both of its connections are running requests. */
static void test_uid_cap(void)
{
	struct daemon d;
	char err[256];
	const char *nul[] = { "--backend", "null", "--null-delay-ms", "3000", "--mem-budget", "1G",
			      "--max-conns-per-uid", "2", NULL };
	if (daemon_start(&d, "cap", nul)) {
		ct_ok(0, "cuzkd --max-conns-per-uid 2 starts");
		ct_ok(0, "(skipped: no daemon)");
		return;
	}
	load_key(&d);
	int i1 = cz_ctl_connect(d.sock, err, sizeof(err)), i2 = cz_ctl_connect(d.sock, err, sizeof(err));
	json_object *r = req(&d, "{\"op\":\"status\"}");
	json_object *e = answer(i1);
	ct_ok(ok_of(r) && refused(e, "has its 2 connections (--max-conns-per-uid) and this one was idle the longest"),
	      "--max-conns-per-uid 2 with 2 idle connections: a third is served, the oldest is told why it closed: %s",
	      e ? str_of(e, "error") : "(no answer)");
	json_object_put(r);
	json_object_put(e);
	close(i1);
	close(i2);
	json_object_put(req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"w\",\"witnesses\":%s}", wlist(8))));
	int a[2];
	for (int i = 0; i < 2; i++) {
		a[i] = cz_ctl_connect(d.sock, err, sizeof(err));
		send_text(a[i], "{\"op\":\"await\",\"job\":\"w\"}", NULL, 0);
	}
	int capped = 0;
	for (int t = 0; t < 200 && !capped; t++) {
		r = req(&d, "{\"op\":\"status\"}");
		capped = refused(r, "too many connections from uid") != 0;
		if (!capped)
			usleep(20000);
		json_object_put(r);
	}
	ct_ok(capped, "with its 2 connections awaiting, the uid's third is refused naming the cap");
	close(a[0]);
	close(a[1]);
	daemon_stop(&d);
}

/* ---- 7: a reply over 1 MiB ---- */

static void test_big_reply(struct daemon *d)
{
	/* status lists every key with its path: 300 keys loaded by ~4 KiB
	 * paths ("./" repeated) make it well over 1 MiB. */
	char *p = malloc(PATH_MAX);
	size_t at = (size_t)snprintf(p, PATH_MAX, "%s/", dir);
	while (at + 2 + 8 < 4000)
		at += (size_t)snprintf(p + at, PATH_MAX - at, "./");
	snprintf(p + at, PATH_MAX - at, "k.zkey");
	int loaded = 0;
	for (int i = 0; i < 300; i++) {
		json_object *r = req(d, fmt("{\"op\":\"load\",\"name\":\"many%d\",\"zkey\":\"%s\"}", i, p));
		loaded += ok_of(r);
		if (!ok_of(r) && i == 0)
			ct_diag("load: %s", str_of(r, "error"));
		json_object_put(r);
	}
	json_object *r = req(d, "{\"op\":\"status\"}");
	size_t len = r ? strlen(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN)) : 0;
	ct_ok(loaded == 300 && ok_of(r) && len > (1u << 20) &&
	      json_object_array_length(json_object_object_get(r, "circuits")) == 302,
	      "status with 302 keys loaded: a %zu-byte answer (over 1 MiB) reaches the client", len);
	json_object_put(r);
	char *out = malloc(4 << 20);
	const char *argv[] = { fmt("%s/cuzkctl", bindir), "--socket", d->sock, "status", NULL };
	int st = run_prog(argv, out, 4 << 20);
	ct_ok(st == 0 && strstr(out, "many299"), "cuzkctl status prints it (exit %d)", st);
	free(out);
	free(p);
	ct_ok(good_job(d, "after-big", &key, -1), "the daemon still proves a good job");
	/* The 300 keys stay: test_stop() leaves such an answer unread. */
}

/* A handler whose answer is over the 64 MiB limit of one message: the
 * server answers with an error saying so instead of dropping it. */
static json_object *huge_fn(void *ctx, json_object *req, int *fds, int nfds, struct cz_ctl_peer *peer)
{
	(void)ctx, (void)req, (void)fds, (void)nfds, (void)peer;
	size_t n = CZ_CTL_MAX_REPLY + 16;
	char *s = malloc(n + 1);
	memset(s, 'x', n);
	s[n] = 0;
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(1));
	json_object_object_add(r, "blob", json_object_new_string(s));
	free(s);
	return r;
}

static void test_huge_reply(void)
{
	char err[256], path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/huge.sock", dir);
	struct cz_ctl_server *srv = cz_ctl_server_start(path, huge_fn, NULL, NULL, err, sizeof(err));
	int s = srv ? cz_ctl_connect(path, err, sizeof(err)) : -1;
	json_object *r = s >= 0 && !send_text(s, "{\"op\":\"x\"}", NULL, 0) ? answer(s) : NULL;
	ct_ok(refused(r, "exceeds the 67108864-byte limit of one message"),
	      "an answer over 64 MiB becomes an error that reaches the client: %s", r ? str_of(r, "error") : err);
	json_object_put(r);
	if (s >= 0)
		close(s);
	cz_ctl_server_stop(srv);
}

/* ---- 11: field types and numbers ---- */

static void test_types(struct daemon *d)
{
	static const struct {
		const char *req, *want;
	} bad[] = {
		{ "{\"op\":\"submit\",\"circuit\":\"k\",\"priority\":0,\"witnesses\":[\"W\"]}", "\"priority\" must be a string, not an integer" },
		{ "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":5,\"witnesses\":[\"W\"]}", "\"id\" must be a string, not an integer" },
		{ "{\"op\":\"submit\",\"circuit\":7,\"witnesses\":[\"W\"]}", "\"circuit\" must be a string" },
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":\"Z\",\"partitions\":\"seven\"}", "\"partitions\" must be an integer from 0 to 200, got \"seven\"" },
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":\"Z\",\"partitions\":2.9}", "\"partitions\" must be an integer from 0 to 200, got 2.9" },
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":\"Z\",\"partitions\":-1}", "\"partitions\" must be an integer from 0 to 200" },
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":\"Z\",\"partitions\":1e300}", "\"partitions\" must be an integer from 0 to 200" },
		{ "{\"op\":\"load\",\"name\":5,\"zkey\":\"Z\"}", "\"name\" must be a string" },
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":[]}", "\"zkey\" must be a string, not an array" },
		{ "{\"op\":\"await\",\"job\":1}", "\"job\" must be a string" },
		{ "{\"op\":\"cancel\"}", "\"job\" is required" },
		{ "{\"op\":\"trace\",\"chrome\":\"yes\"}", "\"chrome\" must be true or false" },
		{ "{\"op\":5}", "request has no \"op\" string" },
		/* issue 24: what the client sent, not json-c's saturated 2^64-1 */
		{ "{\"op\":\"load\",\"name\":\"x\",\"zkey\":\"Z\",\"partitions\":99999999999999999999999}",
		  "\"partitions\" must be an integer from 0 to 200, got 18446744073709551615 or more (a number beyond 64 bits)" },
		{ "{\"op\":\"await\",\"job\":\"x\",\"timeout\":99999999999999999999999}",
		  "got 18446744073709551615 or more (a number beyond 64 bits)" },
		{ "null\n", "malformed request: not a JSON object (null)" },
	};
	int all = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char q[8192];
		const char *w = strstr(bad[i].req, "\"W\""), *z = strstr(bad[i].req, "\"Z\"");
		if (w)   /* a real witness, so that only the field is wrong */
			snprintf(q, sizeof(q), "%.*s\"%s\"%s", (int)(w - bad[i].req), bad[i].req, fmt("%s/w0.wtns", dir), w + 3);
		else if (z)
			snprintf(q, sizeof(q), "%.*s\"%s/k.zkey\"%s", (int)(z - bad[i].req), bad[i].req, dir, z + 3);
		else
			snprintf(q, sizeof(q), "%s", bad[i].req);
		json_object *r = req(d, q);
		int ok = refused(r, bad[i].want);
		if (!ok)
			ct_diag("%s: %s", q, r ? str_of(r, "error") : "(no answer)");
		all &= ok;
		json_object_put(r);
	}
	ct_ok(all, "16 requests with a field of the wrong type or range, a number beyond 64 bits, or null: "
		   "each refused naming the field");
	/* Descriptors the daemon cannot read, passed by SCM_RIGHTS: said so,
	 * not "Bad file descriptor" (issue 24). */
	int fp = open(fmt("%s/w0.wtns", dir), O_PATH | O_CLOEXEC), fw = open(fmt("%s/w0.wtns", dir), O_WRONLY | O_CLOEXEC);
	json_object *rp = req_fds(d, "{\"op\":\"submit\",\"circuit\":\"k\"}", &fp, 1);
	json_object *rw = req_fds(d, "{\"op\":\"submit\",\"circuit\":\"k\"}", &fw, 1);
	ct_ok(fp >= 0 && fw >= 0 && refused(rp, "witness 0: the passed descriptor was opened with O_PATH") &&
	      refused(rw, "witness 0: the passed descriptor is write-only") && !strstr(err_of(rp), "Bad file") &&
	      !strstr(err_of(rw), "Bad file"),
	      "a passed O_PATH descriptor and a write-only one are refused saying so: %s; %s", err_of(rp), err_of(rw));
	json_object_put(rp);
	json_object_put(rw);
	if (fp >= 0)
		close(fp);
	if (fw >= 0)
		close(fw);
	json_object *r = req(d, "{\"op\":\"status\"}");
	json_object *cnt = json_object_object_get(r, "counters");
	ct_ok(ok_of(r) && json_object_array_length(json_object_object_get(r, "circuits")) == 2 &&
	      (size_t)json_object_get_int64(json_object_object_get(cnt, "jobs_submitted")) ==
		      json_object_array_length(json_object_object_get(r, "jobs")),
	      "none of them loaded a key or made a job");
	json_object_put(r);

	char out[4096];
	const char *ctl_parts[] = { fmt("%s/cuzkctl", bindir), "--socket", d->sock, "load", "x",
				    fmt("%s/k.zkey", dir), "--partitions", "seven", NULL };
	int st = run_prog(ctl_parts, out, sizeof(out));
	ct_ok(st == 2 && strstr(out, "--partitions 'seven'"), "cuzkctl load --partitions seven: exit %d: %s", st, out);

	/* cuzkd's own numbers: each refused before it starts. */
	static const char *const dbad[][2] = {
		{ "--mem-budget", "nan" }, { "--mem-budget", "inf" }, { "--mem-budget", "-1G" },
		{ "--mem-budget", "0x10" }, { "--mem-budget", "1e30" }, { "--idle-timeout", "0" },
		{ "--idle-timeout", "nan" }, { "--read-timeout", "abc" }, { "--devices", "-1" },
		{ "--max-conns-per-uid", "65" }, { "--mem-budget", "0.1" },
	};
	all = 1;
	for (size_t i = 0; i < sizeof(dbad) / sizeof(*dbad); i++) {
		const char *argv[] = { fmt("%s/cuzkd", bindir), "--state-dir", fmt("%s/never", dir), "--socket",
				       fmt("%s/never.sock", dir), dbad[i][0], dbad[i][1], NULL };
		st = run_prog(argv, out, sizeof(out));
		int ok = st == 2 && strstr(out, fmt("bad value for %s: '%s'", dbad[i][0], dbad[i][1])) &&
			 (strcmp(dbad[i][1], "0.1") || strstr(out, "at least 1 byte"));     /* not "--mem-budget 0" */
		if (!ok)
			ct_diag("cuzkd %s %s: status %d: %s", dbad[i][0], dbad[i][1], st, out);
		all &= ok;
	}
	ct_ok(all, "cuzkd --mem-budget nan, inf, -1G, 0x10, 1e30, --idle-timeout 0, nan, --read-timeout abc, --devices -1, --max-conns-per-uid 65, --mem-budget 0.1 (at least 1 byte): each exits 2 naming the option");
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	double phys_t = (double)pages * (double)psz / (1024.0 * 1024 * 1024 * 1024);
	char over[32];
	snprintf(over, sizeof(over), "%.0fT", phys_t * 2 + 1);
	const char *argv[] = { fmt("%s/cuzkd", bindir), "--state-dir", fmt("%s/never", dir), "--socket",
			       fmt("%s/never.sock", dir), "--mem-budget", over, NULL };
	st = run_prog(argv, out, sizeof(out));
	ct_ok(st == 2 && strstr(out, "physical memory"), "cuzkd --mem-budget %s (above physical memory) is refused: %s",
	      over, out);
	ct_ok(good_job(d, "after-types", &key, -1), "the daemon still proves a good job");
}

/* ---- 9: --socket naming a regular file ---- */

static void test_socket_file(void)
{
	char path[PATH_MAX + 16], out[4096];
	snprintf(path, sizeof(path), "%s/precious.txt", dir);
	FILE *f = fopen(path, "w");
	fputs("keep me\n", f);
	fclose(f);
	const char *argv[] = { fmt("%s/cuzkd", bindir), "--state-dir", fmt("%s/sf-state", dir), "--backend", "null",
			       "--socket", path, NULL };
	int st = run_prog(argv, out, sizeof(out));
	struct stat sb;
	ct_ok(st == 1 && strstr(out, "exists and is not a socket") && stat(path, &sb) == 0 && sb.st_size == 8,
	      "cuzkd --socket naming a regular file refuses to start and leaves the file: %s", out);
}

/* ---- 8: trace readers, and SIGTERM with a stalled one ---- */

struct drain {
	int fd;
	size_t bytes, lines;
};

static void *drain_main(void *v)
{
	struct drain *dr = v;
	char buf[4096];
	ssize_t k;
	while ((k = read(dr->fd, buf, sizeof(buf))) > 0) {
		dr->bytes += (size_t)k;
		for (ssize_t i = 0; i < k; i++)
			dr->lines += buf[i] == '\n';
	}
	return NULL;
}

static void test_stop(struct daemon *d)
{
	char err[256];
	int p[2];

	/* A pipe that is read: the trace goes through whole (the daemon
	 * writes it through a non-blocking open of its own). */
	if (pipe(p))
		p[0] = p[1] = -1;
	struct drain dr = { .fd = p[0] };
	pthread_t tid;
	pthread_create(&tid, NULL, drain_main, &dr);
	json_object *r = req_fds(d, "{\"op\":\"trace\"}", &p[1], 1);
	close(p[1]);
	pthread_join(tid, NULL);
	close(p[0]);
	ct_ok(ok_of(r) && dr.lines > 100 && dr.bytes > 4096, "trace into a pipe that is read: %zu lines, %zu bytes: %s",
	      dr.lines, dr.bytes, str_of(r, "error"));
	json_object_put(r);

	if (pipe(p))
		p[0] = p[1] = -1;
	fcntl(p[1], F_SETPIPE_SZ, 4096);   /* one page: the dump is far larger */
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	send_text(s, "{\"op\":\"trace\"}", &p[1], 1);
	close(p[1]);
	/* Nobody reads p[0]; the client stays connected. */
	int a = cz_ctl_connect(d->sock, err, sizeof(err));
	json_object_put(req(d, slow_job("last")));
	send_text(a, "{\"op\":\"await\",\"job\":\"last\",\"timeout\":3600}", NULL, 0);
	/* And a client that asks for status (with 300 keys, ~2 MB: more than
	 * a socket holds) and never reads it. */
	int u = cz_ctl_connect(d->sock, err, sizeof(err));
	send_text(u, "{\"op\":\"status\"}", NULL, 0);
	usleep(300000);
	int st = daemon_stop(d);
	ct_ok(st == 0, "SIGTERM with a stalled trace reader, a pending await and an unread 2 MB status: cuzkd exits (status %d)", st);
	r = answer(s);
	ct_ok(refused(r, "trace: the daemon is stopping"), "the trace request is answered: %s",
	      r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	r = answer(a);
	ct_ok(refused(r, "shutting down"), "the pending await is answered: %s", r ? str_of(r, "error") : "(no answer)");
	json_object_put(r);
	close(s);
	close(a);
	close(u);
	close(p[0]);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-ctl"))
		return 1;
	ct_plan(44);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0 && fixtures_make_big() == 0, "fixtures: a 2^8 key, 4 witnesses, a 2^12 key"))
		return ct_exit();
	struct daemon d;
	const double read_s = 1;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", "2G",
			      "--idle-timeout", "60", "--read-timeout", "1", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0, "cuzkd (cpu backend, --idle-timeout 60, --read-timeout 1) starts"))
		return ct_exit();
	json_object *r = req(&d, fmt("{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir));
	json_object *r2 = req(&d, fmt("{\"op\":\"load\",\"name\":\"slow\",\"zkey\":\"%s/big.zkey\"}", dir));
	ct_ok(ok_of(r) && ok_of(r2) && good_job(&d, "first", &key, -1), "load a 2^8 and a 2^12 key and prove a good job: %s%s",
	      str_of(r, "error"), str_of(r2, "error"));
	json_object_put(r);
	json_object_put(r2);
	test_await(&d);
	test_key_replaced(&d);
	test_fifo(&d);
	test_wtns_head(&d);
	test_slots(&d, read_s);
	test_idle();
	test_huge_reply();
	test_uid_cap();
	test_types(&d);
	test_socket_file();
	test_big_reply(&d);
	test_stop(&d);
	cz_groth16_key_free(&key);
	return e2e_end();
}
