/* SPDX-License-Identifier: MIT */
/* Description: who may do what (SO_PEERCRED, --admin-group, --socket-group/--socket-mode), strict request fields, admission (--max-queued-partitions, queue full at a low RLIMIT_NOFILE, a partition that can never fit refused at submit) and the dispatcher's bounded skip-ahead past a head waiting for budget (issue 12, defects 5, 10, 12). */
#define _GNU_SOURCE  /* setresuid */
#define NWTNS 4
static long child_nofile;       /* RLIMIT_NOFILE for the next daemon_start(), 0: as is */
static void child_setup(void);
#define CZ_DAEMON_CHILD child_setup
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"

#include <grp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define NOBODY 65534
#define ADMIN_GID 4242          /* --admin-group: a number no user here has */
#define SKIP_MAX 16             /* engine/pipeline/dispatch.c DISPATCH_SKIP_MAX: the documented bound */

static struct cz_groth16_key key;

static void child_setup(void)
{
	if (child_nofile) {
		struct rlimit r = { (rlim_t)child_nofile, (rlim_t)child_nofile };
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/*
 * The request as another user: a child drops to uid (groups: gid, and
 * extra if >= 0), opens the files itself (so the kernel checks its right to
 * read them), connects and sends it, and writes the answer back.  NULL
 * when it could not connect (*conn = 0) or got no answer.
 */
static json_object *as_user(struct daemon *d, uid_t uid, gid_t gid, long extra, const char *json,
			    const char *const *paths, int n, int *conn)
{
	int p[2];
	if (pipe(p))
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		gid_t g[2] = { gid, (gid_t)extra };
		if (setgroups(extra >= 0 ? 2 : 1, g) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			_exit(3);
		int fds[CZ_CTL_MAX_FDS];
		for (int i = 0; i < n; i++)
			if ((fds[i] = open(paths[i], O_RDONLY | O_CLOEXEC)) < 0) {
				dprintf(p[1], "{\"ok\":false,\"error\":\"client: cannot open %s\"}", paths[i]);
				_exit(0);
			}
		char err[256];
		int s = cz_ctl_connect(d->sock, err, sizeof(err));
		if (s < 0)
			_exit(4);
		json_object *q = json_tokener_parse(json);
		json_object *r = cz_ctl_call(s, q, fds, n, err, sizeof(err));
		const char *t = r ? json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN) : "";
		if (write(p[1], t, strlen(t)) < 0)
			_exit(5);
		_exit(r ? 0 : 6);
	}
	close(p[1]);
	static char buf[1 << 20];
	size_t at = pipe_slurp(p[0], buf, sizeof(buf));
	int st;
	waitpid(pid, &st, 0);
	if (conn)
		*conn = !(WIFEXITED(st) && WEXITSTATUS(st) == 4);
	return at ? json_tokener_parse(buf) : NULL;
}

static json_object *as_nobody(struct daemon *d, const char *json, const char *const *paths, int n)
{
	return as_user(d, NOBODY, NOBODY, -1, json, paths, n, NULL);
}

/* ---- strict request fields ---- */

static void test_fields(struct daemon *d)
{
	static const struct {
		const char *req, *want;
	} bad[] = {
		{ "{\"op\":\"submit\",\"circuit\":\"k\",\"priorty\":\"critical\",\"witnesses\":W}",
		  "unknown field \"priorty\" in a submit request (known: circuit, witnesses, inputs, priority, id)" },
		{ "{\"op\":\"await\",\"job\":\"x\",\"timout\":5}", "unknown field \"timout\" in a await request" },
		{ "{\"op\":\"status\",\"verbose\":true}", "unknown field \"verbose\" in a status request (it takes none)" },
		{ "{\"op\":\"load\",\"name\":\"k2\",\"zkey\":\"Z\",\"partition\":4}", "unknown field \"partition\" in a load request" },
		{ "{\"op\":\"cancel\",\"job\":\"x\",\"force\":1}", "unknown field \"force\" in a cancel request" },
	};
	int all = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char q[16384];
		const char *w = strstr(bad[i].req, "W}"), *z = strstr(bad[i].req, "\"Z\"");
		if (w && snprintf(q, sizeof(q), "%.*s%s}", (int)(w - bad[i].req), bad[i].req, wlist(4)) >= (int)sizeof(q))
			q[0] = 0;       /* cannot happen for 4 witnesses; an empty request fails the point */
		else if (w)
			;
		else if (z)
			snprintf(q, sizeof(q), "%.*s\"%s/k.zkey\"%s", (int)(z - bad[i].req), bad[i].req, dir, z + 3);
		else
			snprintf(q, sizeof(q), "%s", bad[i].req);
		json_object *r = daemon_req(d, q, NULL, 0);
		int ok = refused(r, bad[i].want);
		if (!ok)
			ct_diag("%s: %s", q, err_of(r));
		all &= ok;
		json_object_put(r);
	}
	ct_ok(all, "5 requests with an unknown field (priorty, timout, verbose, partition, force): each refused naming it");
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0);
	ct_ok(ok_of(r) && json_object_array_length(json_object_object_get(r, "jobs")) == 1 &&
	      json_object_array_length(json_object_object_get(r, "circuits")) == 1,
	      "none of them made a job or loaded a key");
	json_object_put(r);
	ct_ok(good_job(d, "after-fields", &key, 120), "the daemon still proves a good job");
}

/* ---- issue 24: a non-admin's proofs, delivered by a descriptor ---- */

/*
 * As uid 65534: try to open the proof at the path await answers (*direct:
 * 1 if it could), then await again passing a descriptor of a file of its
 * own (O_TMPFILE in /tmp) and read back what the daemon wrote into it.
 * The document (engine/durable/output.c, cz_output_bundle), or NULL.
 */
static json_object *await_delivered(struct daemon *d, const char *id, int *direct, char *errbuf, size_t cap)
{
	int p[2];
	if (pipe(p))
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		gid_t g = NOBODY;
		if (setgroups(1, &g) || setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		char err[256];
		int s = cz_ctl_connect(d->sock, err, sizeof(err));
		json_object *q = json_tokener_parse(fmt("{\"op\":\"await\",\"job\":\"%s\",\"timeout\":120}", id));
		json_object *r = s >= 0 ? cz_ctl_call(s, q, NULL, 0, err, sizeof(err)) : NULL;
		const char *dir = r ? json_object_get_string(json_object_object_get(r, "dir")) : NULL;
		int pf = dir ? open(fmt("%s/0.proof.json", dir), O_RDONLY | O_CLOEXEC) : -1;
		char c = pf >= 0 ? '1' : '0';
		if (write(p[1], &c, 1) != 1)
			_exit(5);
		int t = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		json_object *r2 = t >= 0 ? cz_ctl_call(s, q, &t, 1, err, sizeof(err)) : NULL;
		const char *e2 = r2 ? json_object_get_string(json_object_object_get(r2, "error")) : err;
		if (e2 && *e2) {
			dprintf(p[1], "E%s", e2);
			_exit(0);
		}
		char buf[65536];
		ssize_t k;
		off_t at = 0;
		while ((k = pread(t, buf, sizeof(buf), at)) > 0) {
			if (write(p[1], buf, (size_t)k) != k)
				_exit(5);
			at += k;
		}
		_exit(0);
	}
	close(p[1]);
	static char out[1 << 22];
	size_t at = pipe_slurp(p[0], out, sizeof(out));
	int st;
	waitpid(pid, &st, 0);
	*direct = at > 0 && out[0] == '1';
	snprintf(errbuf, cap, "%.300s", at > 1 && out[1] == 'E' ? out + 2 : "");
	return at > 1 && out[1] != 'E' ? json_tokener_parse(out + 1) : NULL;
}

/* The document's files written into dir/sub; how many. */
static int bundle_write(json_object *b, const char *sub)
{
	json_object *files = b ? json_object_object_get(b, "files") : NULL;
	mkdir(fmt("%s/%s", dir, sub), 0755);
	int n = 0;
	for (size_t i = 0; files && i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i), *t;
		FILE *o = fopen(fmt("%s/%s/%s", dir, sub, str_of(f, "name")), "wb");
		if (!o)
			continue;
		if (json_object_object_get_ex(f, "text", &t))
			fwrite(json_object_get_string(t), 1, (size_t)json_object_get_string_len(t), o);
		n++;
		fclose(o);
	}
	return n;
}

static void test_deliver(struct daemon *d)
{
	int direct = 0;
	char err[512] = "";
	json_object *b = await_delivered(d, "mine", &direct, err, sizeof(err));
	int n = bundle_write(b, "mine-out");
	char out[PATH_MAX + 32];
	snprintf(out, sizeof(out), "%s/mine-out", dir);
	ct_ok(b && !strcmp(str_of(b, "job"), "mine") && n == 4 * 2 + 1 && proofs_verify(&key, out, 4),
	      "uid 65534 gets its job's proofs through a descriptor it opened (await with one passed): %d files, "
	      "every proof verifies; the answered path itself %s readable to it%s%s", n,
	      direct ? "is" : "is not", *err ? ": " : "", err);
	json_object_put(b);
	/* cuzkctl await --out DIR, as uid 65534: the files are its own. */
	char od[PATH_MAX + 32];
	snprintf(od, sizeof(od), "%s/nobody-out", dir);
	mkdir(od, 0755);
	int chowned = chown(od, NOBODY, NOBODY) == 0;
	int rc = system(fmt("setpriv --reuid=%d --regid=%d --clear-groups %s/cuzkctl --socket %s await mine --out %s "
			    ">/dev/null", NOBODY, NOBODY, bindir, d->sock, od));
	struct stat sb;
	int own = stat(fmt("%s/3.proof.json", od), &sb) == 0 && sb.st_uid == NOBODY;
	ct_ok(chowned && rc == 0 && own && proofs_verify(&key, od, 4),
	      "cuzkctl await mine --out DIR as uid 65534: exit %d, the files its own (%d), every proof verifies", rc, own);
}

/* ---- 10: who may do what ---- */

static void test_auth(struct daemon *d)
{
	const char *w[4];
	for (int i = 0; i < 4; i++)
		w[i] = strdup(fmt("%s/w%d.wtns", dir, i));
	struct stat sb;
	int conn = 0, sok = stat(d->sock, &sb) == 0;
	json_object *r = as_user(d, NOBODY, NOBODY, -1, "{\"op\":\"circuits\"}", NULL, 0, &conn);
	ct_ok(conn && ok_of(r) && sok && (sb.st_mode & 0777) == 0660 && sb.st_gid == NOBODY,
	      "--socket-group 65534 --socket-mode 0660: the socket is 0%o, group %u, and uid 65534 connects: %s",
	      (unsigned)(sb.st_mode & 0777), (unsigned)sb.st_gid, err_of(r));
	json_object_put(r);
	json_object *r2 = as_user(d, 12345, 12345, -1, "{\"op\":\"circuits\"}", NULL, 0, &conn);
	ct_ok(!conn && !r2, "a uid outside the socket's group cannot connect at all");
	json_object_put(r2);

	/* Admin only: load, unload, device, the whole trace. */
	r = as_nobody(d, fmt("{\"op\":\"load\",\"name\":\"k2\",\"zkey\":\"%s/k.zkey\"}", dir), NULL, 0);
	r2 = as_nobody(d, "{\"op\":\"unload\",\"name\":\"k\"}", NULL, 0);
	json_object *r3 = as_nobody(d, "{\"op\":\"device\",\"device\":0,\"action\":\"disable\"}", NULL, 0);
	json_object *r4 = as_nobody(d, "{\"op\":\"trace\"}", (const char *[]){ "/dev/null" }, 1);
	ct_ok(refused(r, "load: permission denied: only root, cuzkd's own user (uid 0) or members of --admin-group may; you are uid 65534") &&
	      refused(r2, "unload: permission denied") && refused(r3, "device: permission denied") &&
	      refused(r4, "the whole trace: permission denied"),
	      "uid 65534: load, unload, device and the whole trace refused: %s", err_of(r));
	json_object_put(r);
	json_object_put(r2);
	json_object_put(r3);
	json_object_put(r4);
	r = as_nobody(d, "{\"op\":\"load\",\"name\":\"s\",\"zkey\":\"/etc/shadow\"}", NULL, 0);
	ct_ok(refused(r, "permission denied"), "uid 65534: load /etc/shadow refused before any open: %s", err_of(r));
	json_object_put(r);

	/* Witnesses: by path only for admins; by descriptor for anyone who
	 * can open them. */
	char secret[PATH_MAX + 32];
	snprintf(secret, sizeof(secret), "%s/secret.wtns", dir);
	int sfd = open(secret, O_WRONLY | O_CREAT | O_TRUNC, 0600), cfd = open(w[0], O_RDONLY);
	char buf[65536];
	ssize_t k;
	while (sfd >= 0 && cfd >= 0 && (k = read(cfd, buf, sizeof(buf))) > 0)
		(void)!write(sfd, buf, (size_t)k);
	close(sfd);
	close(cfd);
	r = as_nobody(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s\"]}", secret), NULL, 0);
	r2 = as_nobody(d, "{\"op\":\"submit\",\"circuit\":\"k\"}", (const char *[]){ secret }, 1);
	ct_ok(refused(r, "\"witnesses\" by path: permission denied") && refused(r2, "client: cannot open"),
	      "uid 65534: a root-only witness by path is refused (%s); it cannot open it to pass it either",
	      err_of(r));
	json_object_put(r);
	json_object_put(r2);

	r = as_nobody(d, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"mine\"}", w, 4);
	r2 = as_nobody(d, "{\"op\":\"await\",\"job\":\"mine\",\"timeout\":120}", NULL, 0);
	ct_ok(ok_of(r) && ok_of(r2) && !strcmp(str_of(r2, "state"), "done"),
	      "uid 65534 submits 4 witnesses as descriptors it opened, and awaits its job: %s%s", err_of(r), err_of(r2));
	json_object_put(r);
	json_object_put(r2);
	test_deliver(d);

	/* Another's job: not to await, cancel, trace or see. */
	r = daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"roots\",\"witnesses\":%s}", wlist(4)), NULL, 0);
	json_object_put(r);
	r = as_nobody(d, "{\"op\":\"await\",\"job\":\"roots\",\"timeout\":1}", NULL, 0);
	r2 = as_nobody(d, "{\"op\":\"cancel\",\"job\":\"roots\"}", NULL, 0);
	r3 = as_nobody(d, "{\"op\":\"trace\",\"job\":\"roots\"}", (const char *[]){ "/dev/null" }, 1);
	json_object *u = as_nobody(d, "{\"op\":\"await\",\"job\":\"rooty\",\"timeout\":1}", NULL, 0);
	json_object *u2 = as_nobody(d, "{\"op\":\"cancel\",\"job\":\"rooty\"}", NULL, 0);
	json_object *u3 = as_nobody(d, "{\"op\":\"trace\",\"job\":\"rooty\"}", (const char *[]){ "/dev/null" }, 1);
	/* Indistinguishable from a job that does not exist (issue 24): the
	 * same answer, but for the id. */
	ct_ok(!strcmp(err_of(r), "unknown job 'roots'") && !strcmp(err_of(u), "unknown job 'rooty'") &&
	      !strcmp(err_of(r2), "unknown job 'roots'") && !strcmp(err_of(u2), "unknown job 'rooty'") &&
	      !strcmp(err_of(r3), "trace: unknown job 'roots'") && !strcmp(err_of(u3), "trace: unknown job 'rooty'"),
	      "uid 65534: root's job refused to await, cancel and trace, answered as for an id never used: "
	      "%s / %s; %s / %s; %s / %s", err_of(r), err_of(u), err_of(r2), err_of(u2), err_of(r3), err_of(u3));
	json_object_put(r);
	json_object_put(r2);
	json_object_put(r3);
	json_object_put(u);
	json_object_put(u2);
	json_object_put(u3);
	r = as_nobody(d, "{\"op\":\"status\"}", NULL, 0);
	json_object *jobs = json_object_object_get(r, "jobs");
	int mine = 0, others = 0;
	for (size_t i = 0; jobs && i < json_object_array_length(jobs); i++)
		*(strcmp(str_of(json_object_array_get_idx(jobs, i), "job"), "mine") ? &others : &mine) += 1;
	r2 = daemon_req(d, "{\"op\":\"await\",\"job\":\"roots\",\"timeout\":120}", NULL, 0);
	json_object *st = daemon_req(d, "{\"op\":\"status\"}", NULL, 0);
	ct_ok(ok_of(r) && mine == 1 && others == 0 && ok_of(r2) &&
	      json_object_array_length(json_object_object_get(st, "jobs")) >= 3,
	      "uid 65534's status lists only its own job (%d of it, %d others); root's lists all, and root's job was untouched",
	      mine, others);
	json_object_put(r);
	json_object_put(r2);
	json_object_put(st);

	/* --admin-group: a member (a supplementary group) may load. */
	r = as_user(d, NOBODY, NOBODY, ADMIN_GID, fmt("{\"op\":\"load\",\"name\":\"k2\",\"zkey\":\"%s/k.zkey\"}", dir),
		    NULL, 0, NULL);
	r2 = as_user(d, NOBODY, NOBODY, ADMIN_GID, "{\"op\":\"unload\",\"name\":\"k2\"}", NULL, 0, NULL);
	ct_ok(ok_of(r) && ok_of(r2), "uid 65534 in --admin-group %d (a supplementary group) loads and unloads a key: %s%s",
	      ADMIN_GID, err_of(r), err_of(r2));
	json_object_put(r);
	json_object_put(r2);

	/* Errors never echo what a file holds. */
	char head[64] = "";
	int hf = open("/etc/shadow", O_RDONLY);
	ssize_t hn = hf >= 0 ? read(hf, head, 8) : 0;
	if (hf >= 0)
		close(hf);
	head[hn > 0 ? hn : 0] = 0;
	r = daemon_req(d, "{\"op\":\"load\",\"name\":\"s\",\"zkey\":\"/etc/shadow\"}", NULL, 0);
	char four[5] = "";
	memcpy(four, head, 4);
	ct_ok(!ok_of(r) && hn >= 4 && !strstr(err_of(r), four) && strstr(err_of(r), "not \"zkey\""),
	      "root: load /etc/shadow fails without its first bytes in the error: %s", err_of(r));
	json_object_put(r);
	ct_ok(good_job(d, "after-auth", &key, 120), "the daemon still proves a good job");
	for (int i = 0; i < 4; i++)
		free((char *)w[i]);
}

/* ---- 5: a partition that can never fit, refused at submit ---- */

struct sizes {
	int64_t kA, pA, kB, pB;         /* big (2^12) and k (2^8): key and partition bytes */
};

static int sizes_probe(struct sizes *z)
{
	struct daemon d;
	const char *a[] = { "--backend", "null", "--mem-budget", "1G", NULL };
	if (daemon_start(&d, "probe", a))
		return -1;
	json_object_put(daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"big\",\"zkey\":\"%s/big.zkey\"}", dir), NULL, 0));
	load_key(&d);
	json_object *r = daemon_req(&d, "{\"op\":\"circuits\"}", NULL, 0);
	json_object *c = json_object_object_get(r, "circuits");
	*z = (struct sizes){ -1, -1, -1, -1 };
	for (size_t i = 0; c && i < json_object_array_length(c); i++) {
		json_object *o = json_object_array_get_idx(c, i);
		int big = !strcmp(str_of(o, "name"), "big");
		*(big ? &z->kA : &z->kB) = int_of(o, "key_bytes");
		*(big ? &z->pA : &z->pB) = int_of(o, "partition_bytes");
	}
	json_object_put(r);
	daemon_stop(&d);
	return z->kA > 0 && z->pA > 0 && z->kB > 0 && z->pB > 0 && z->pA > z->pB ? 0 : -1;
}

static void test_never_fit(const struct sizes *z)
{
	struct daemon d;
	/* Room for A's key and one partition, and for B's key: with both
	 * loaded, less than one partition of A is left (the defect's setup). */
	int64_t budget = z->kA + z->pA + z->kB - 1;
	const char *a[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", fmt("%lld", (long long)budget), NULL };
	if (!ct_ok(daemon_start(&d, "fit", a) == 0, "cuzkd --mem-budget %lld (key A + a partition of A + key B - 1) starts",
		   (long long)budget)) {
		skip_n(4, "no daemon");
		return;
	}
	json_object *r = daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"big\",\"zkey\":\"%s/big.zkey\"}", dir), NULL, 0);
	int ok = ok_of(r) && load_key(&d);
	json_object_put(r);
	r = daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"big\",\"id\":\"never\",\"witnesses\":[\"%s/bw.wtns\"]}", dir),
		       NULL, 0);
	char want[256];
	snprintf(want, sizeof(want), "circuit big: a partition needs %lld bytes, but with the loaded keys (%lld bytes) "
		 "the %lld-byte budget leaves %lld: it can never run", (long long)z->pA, (long long)(z->kA + z->kB),
		 (long long)budget, (long long)(budget - z->kA - z->kB));
	ct_ok(ok && refused(r, want), "both keys loaded: a job of A is refused at submit naming the bytes: %s", err_of(r));
	json_object_put(r);
	ct_ok(good_job(&d, "b-fits", &key, 120), "a job of B (which fits) is not held back: it proves");
	r = daemon_req(&d, "{\"op\":\"unload\",\"name\":\"k\"}", NULL, 0);
	json_object_put(r);
	r = daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"big\",\"id\":\"fits-now\",\"witnesses\":[\"%s/bw.wtns\"]}", dir),
		       NULL, 0);
	json_object *a2 = ok_of(r) ? daemon_req(&d, "{\"op\":\"await\",\"job\":\"fits-now\",\"timeout\":120}", NULL, 0) : NULL;
	ct_ok(ok_of(a2), "with B unloaded, A's job is accepted and proves: %s%s", err_of(r), err_of(a2));
	json_object_put(r);
	json_object_put(a2);
	ct_ok(daemon_stop(&d) == 0, "cuzkd exits cleanly");
}

/* ---- 5: a head that fits later waits, without stalling what fits now ---- */

static void test_skip_ahead(const struct sizes *z)
{
	struct daemon d;
	/* Room for one partition of A, or ~16 of B, never both: A waits
	 * while any B is in flight. */
	int64_t budget = z->kA + z->kB + z->pA + z->pB - 1;
	const char *a[] = { "--backend", "null", "--null-delay-ms", "40", "--consumers-per-device", "1",
			    "--synth-workers", "2", "--mem-budget", fmt("%lld", (long long)budget), NULL };
	if (!ct_ok(daemon_start(&d, "skip", a) == 0, "cuzkd (null backend, 40 ms a partition) --mem-budget %lld starts",
		   (long long)budget)) {
		skip_n(4, "no daemon");
		return;
	}
	json_object_put(daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"big\",\"zkey\":\"%s/big.zkey\"}", dir), NULL, 0));
	load_key(&d);
	int okb = submit(&d, "bjob", "normal", 80);     /* seq 1: 80 partitions of B */
	usleep(200000);
	json_object *r = daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"big\",\"id\":\"ajob\",\"priority\":\"critical\","
					    "\"witnesses\":[\"%s/bw.wtns\"]}", dir), NULL, 0);
	int oka = ok_of(r);
	json_object_put(r);
	json_object *ra = daemon_req(&d, "{\"op\":\"await\",\"job\":\"ajob\",\"timeout\":120}", NULL, 0);
	json_object *rb = daemon_req(&d, "{\"op\":\"await\",\"job\":\"bjob\",\"timeout\":120}", NULL, 0);
	ct_ok(okb && oka && ok_of(ra) && ok_of(rb), "A (critical, waits for budget) and B (fits) both finish: %s %s",
	      err_of(ra), err_of(rb));
	json_object_put(ra);
	json_object_put(rb);

	/* The daemon's own trace: B's dispatches (job seq 1) and A's (seq 2). */
	char tp[2 * PATH_MAX];
	snprintf(tp, sizeof(tp), "%s/skip-trace.jsonl", dir);
	int fd = open(tp, O_RDWR | O_CREAT | O_TRUNC, 0644);
	json_object_put(daemon_req(&d, "{\"op\":\"trace\"}", &fd, 1));
	close(fd);
	FILE *f = fopen(tp, "r");
	char line[1024];
	int64_t a_sub = -1, a_disp = -1, last_b = -1;
	int skips = 0, b_inorder = 1, b_n = 0, skips_after_a = 0;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t job = int_of(e, "job"), part = int_of(e, "part"), ns = int_of(e, "ns"), arg = int_of(e, "arg");
		if (!strcmp(ev, "submit") && job == 2)
			a_sub = ns;
		if (!strcmp(ev, "dispatch") && job == 2)
			a_disp = ns;
		if (!strcmp(ev, "dispatch") && job == 1) {
			b_inorder &= part > last_b;
			last_b = part;
			b_n++;
			if (arg == 1) {
				skips++;
				skips_after_a += a_disp >= 0;
			}
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	r = daemon_req(&d, "{\"op\":\"status\"}", NULL, 0);
	int64_t st_skips = int_of(json_object_object_get(r, "budget"), "skip_aheads");
	json_object_put(r);
	ct_ok(a_sub >= 0 && a_disp > a_sub && skips >= 1 && skips <= SKIP_MAX && skips_after_a == 0 && st_skips == skips,
	      "while A waited for budget, %d of B's partitions went ahead (bounded by %d; status skip_aheads %lld), "
	      "and A went before any more", skips, SKIP_MAX, (long long)st_skips);
	ct_ok(b_n == 80 && b_inorder, "B's 80 partitions were dispatched in their own order (%d seen)", b_n);
	ct_ok(daemon_stop(&d) == 0, "cuzkd exits cleanly");
}

/* ---- issue 24: another user's job sequence numbers are not shown ---- */

/* The job_seq of the first busy consumer in a status answer, 0 when none. */
static int64_t busy_seq(json_object *st, int *busy)
{
	json_object *cons = st ? json_object_object_get(st, "consumers") : NULL;
	int64_t seq = 0;
	*busy = 0;
	for (size_t i = 0; cons && i < json_object_array_length(cons); i++) {
		json_object *c = json_object_array_get_idx(cons, i), *v;
		if (strcmp(str_of(c, "state"), "busy"))
			continue;
		(*busy)++;
		if (!seq && json_object_object_get_ex(c, "job_seq", &v))
			seq = json_object_get_int64(v);
	}
	return seq;
}

static void test_foreign_seq(void)
{
	struct daemon d;
	const char *a[] = { "--backend", "null", "--null-delay-ms", "300", "--consumers-per-device", "1",
			    "--socket-mode", "0666", NULL };
	if (!ct_ok(daemon_start(&d, "seq", a) == 0, "cuzkd (null backend, 300 ms a partition) --socket-mode 0666 starts")) {
		skip_n(1, "no daemon");
		return;
	}
	load_key(&d);
	int ok = submit(&d, "rootjob", "normal", 4), rbusy = 0, nbusy = 0;
	int64_t rseq = 0, nseq = -1;
	/* Root sees a consumer on its job; uid 65534, asked right after
	 * (a partition takes 300 ms), sees one busy but not on what. */
	for (int i = 0; ok && i < 200 && !(rseq && nbusy); i++) {
		json_object *st = daemon_req(&d, "{\"op\":\"status\"}", NULL, 0);
		rseq = busy_seq(st, &rbusy);
		json_object_put(st);
		if (rseq) {
			st = as_nobody(&d, "{\"op\":\"status\"}", NULL, 0);
			nseq = busy_seq(st, &nbusy);
			json_object_put(st);
		} else {
			usleep(20000);
		}
	}
	ct_ok(ok && rseq > 0 && nbusy > 0 && nseq == 0,
	      "uid 65534's status shows the busy consumer (%d busy) but not root's job sequence number "
	      "(root sees job_seq %lld; uid 65534 %lld)", nbusy, (long long)rseq, (long long)nseq);
	daemon_stop(&d);
}

/* ---- admission: --max-queued-partitions, and 12 at a low fd limit ---- */

static void test_queue_full(void)
{
	struct daemon d;
	const char *a[] = { "--backend", "null", "--null-delay-ms", "300", "--consumers-per-device", "1",
			    "--max-queued-partitions", "8", NULL };
	if (!ct_ok(daemon_start(&d, "qfull", a) == 0, "cuzkd --max-queued-partitions 8 starts")) {
		skip_n(3, "no daemon");
		return;
	}
	load_key(&d);
	int ok = submit(&d, "q1", "normal", 4) && submit(&d, "q2", "normal", 4);
	json_object *r = daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"q3\",\"witnesses\":%s}", wlist(2)),
				    NULL, 0);
	json_object *fv = json_object_object_get(r, "queue_full");
	ct_ok(ok && refused(r, "queue full: 8 partitions are accepted and not finished (--max-queued-partitions 8), no room "
			       "for this job's 2: retry in about") && fv && json_object_get_boolean(fv) &&
	      int_of(r, "retry_after_ms") >= 100,
	      "2 jobs of 4 fill it; a third is refused with a retry hint (retry_after_ms %lld): %s",
	      (long long)int_of(r, "retry_after_ms"), err_of(r));
	json_object_put(r);
	r = daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":%s}", wlist(9)), NULL, 0);
	ct_ok(refused(r, "a job of 9 partitions can never be accepted: --max-queued-partitions is 8"),
	      "a job larger than the queue is refused as never acceptable: %s", err_of(r));
	json_object_put(r);
	char out[4096];
	const char *argv[] = { fmt("%s/cuzkctl", bindir), "--socket", d.sock, "submit", "k", fmt("%s/w0.wtns", dir), NULL };
	int p[2];
	(void)!pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		dup2(p[1], 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	ssize_t k = read(p[0], out, sizeof(out) - 1);
	out[k > 0 ? k : 0] = 0;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	json_object_put(daemon_req(&d, "{\"op\":\"cancel\",\"job\":\"q1\"}", NULL, 0));
	json_object_put(daemon_req(&d, "{\"op\":\"cancel\",\"job\":\"q2\"}", NULL, 0));
	r = daemon_req(&d, "{\"op\":\"await\",\"job\":\"q2\",\"timeout\":60}", NULL, 0);
	json_object_put(r);
	int again = submit(&d, "q4", "normal", 4);
	r = again ? daemon_req(&d, "{\"op\":\"await\",\"job\":\"q4\",\"timeout\":60}", NULL, 0) : NULL;
	ct_ok(WIFEXITED(st) && WEXITSTATUS(st) == 75 && strstr(out, "queue full") && ok_of(r),
	      "cuzkctl submit then exits 75 (EX_TEMPFAIL) saying so; once the queue drains a job is accepted and finishes: %s",
	      out);
	json_object_put(r);
	daemon_stop(&d);
}

static void test_fd_limit(void)
{
	struct daemon d;
	const char *a[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", "1G", NULL };
	child_nofile = 512;     /* soft = hard: cuzkd cannot raise it */
	int up = daemon_start(&d, "fds", a);
	child_nofile = 0;
	if (!ct_ok(up == 0, "cuzkd with RLIMIT_NOFILE 512 (soft and hard) starts")) {
		skip_n(3, "no daemon");
		return;
	}
	json_object_put(daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"slow\",\"zkey\":\"%s/big.zkey\"}", dir), NULL, 0));
	load_key(&d);
	json_object *r = daemon_req(&d, "{\"op\":\"status\"}", NULL, 0);
	int64_t maxq = int_of(json_object_object_get(r, "admission"), "max_queued_partitions");
	json_object_put(r);
	/* Jobs of 3 partitions, each witness a descriptor passed and held
	 * while queued, on one connection, until one is refused. */
	char err[256];
	int s = cz_ctl_connect(d.sock, err, sizeof(err));
	const char *bw = strdup(fmt("%s/bw.wtns", dir));
	int accepted = 0, full = 0, fd_err = 0, other = 0;
	char first_err[512] = "";
	for (int i = 0; i < 400 && !full && !other; i++) {
		int fds[3];
		for (int k = 0; k < 3; k++)
			fds[k] = open(bw, O_RDONLY | O_CLOEXEC);
		json_object *q = json_tokener_parse(fmt("{\"op\":\"submit\",\"circuit\":\"slow\",\"id\":\"f%d\"}", i));
		r = cz_ctl_call(s, q, fds, 3, err, sizeof(err));
		json_object_put(q);
		for (int k = 0; k < 3; k++)
			close(fds[k]);
		if (ok_of(r))
			accepted++;
		else if (refused(r, "queue full") && int_of(r, "retry_after_ms") > 0)
			full = 1;
		else {
			fd_err |= r && strstr(err_of(r), "descriptors") != NULL;
			other = 1;
			snprintf(first_err, sizeof(first_err), "%s", r ? err_of(r) : err);
		}
		if (!full && !other)
			json_object_put(r);
		else {
			if (full)
				snprintf(first_err, sizeof(first_err), "%s", err_of(r));
			json_object_put(r);
		}
	}
	json_object *q = json_tokener_parse("{\"op\":\"status\"}");
	r = cz_ctl_call(s, q, NULL, 0, err, sizeof(err));
	json_object_put(q);
	int same_conn = ok_of(r);
	json_object_put(r);
	ct_ok(full && !other && !fd_err && maxq > 0 && maxq < 512 && accepted * 3 >= maxq - 3,
	      "at RLIMIT_NOFILE 512 (default --max-queued-partitions %lld): %d jobs of 3 accepted, then \"queue full\", "
	      "never a descriptor error: %s", (long long)maxq, accepted, first_err);
	ct_ok(same_conn, "the refused client's connection still answers (status on it)");
	for (int i = 0; i < accepted; i++)
		json_object_put(daemon_req(&d, fmt("{\"op\":\"cancel\",\"job\":\"f%d\"}", i), NULL, 0));
	close(s);
	free((char *)bw);
	/* a cancelled partition already running ends at its next step and
	 * holds its queue place until then: wait for the queue to drain */
	for (int i = 0; i < 1000; i++) {
		json_object *st = daemon_req(&d, "{\"op\":\"status\"}", NULL, 0), *adm;
		int64_t open = st && json_object_object_get_ex(st, "admission", &adm) ? int_of(adm, "open_partitions") : 0;
		json_object_put(st);
		if (open <= 0)
			break;
		usleep(10000);
	}
	ct_ok(good_job(&d, "after-fds", &key, 120), "with those jobs cancelled, the daemon still proves a good job");
	daemon_stop(&d);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-guard"))
		return 1;
	ct_plan(41);
	/* Readable by uid 65534 (mkdtemp makes it 0700): the socket's mode
	 * and group are what is tested, not the directory's. */
	if (!ct_ok(mkdtemp(dir) && chmod(dir, 0755) == 0 && fixtures_make(&key) == 0 && fixtures_make_big() == 0,
		   "fixtures: a 2^8 key and 4 witnesses, a 2^12 key and its witness"))
		return ct_exit();
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", "1G", "--socket-group", "65534",
			      "--socket-mode", "0660", "--admin-group", fmt("%d", ADMIN_GID), NULL };
	if (!ct_ok(daemon_start(&d, "main", cpu) == 0, "cuzkd --socket-group 65534 --socket-mode 0660 --admin-group %d starts",
		   ADMIN_GID))
		return ct_exit();
	ct_ok(load_key(&d) && good_job(&d, "first", &key, 120), "load a 2^8 key and prove a good job");
	test_fields(&d);
	test_auth(&d);
	ct_ok(daemon_stop(&d) == 0, "cuzkd exits cleanly");
	struct sizes z;
	if (ct_ok(sizes_probe(&z) == 0, "key and partition sizes of both circuits (from a probe daemon's circuits)")) {
		test_never_fit(&z);
		test_skip_ahead(&z);
	} else {
		skip_n(10, "no sizes");
	}
	test_queue_full();
	test_foreign_seq();
	test_fd_limit();
	cz_groth16_key_free(&key);
	return e2e_end();
}
