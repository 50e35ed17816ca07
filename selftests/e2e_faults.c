/* SPDX-License-Identifier: MIT */
/* Description: faults beyond kill -9 (issue 24): two corrupt journal records in the middle keep every other accepted job (done ones answer await, queued ones complete from their kept witnesses), the lost job's witness kept, no sequence number reused and no published proof replaced, the damaged journal kept; a second cuzkd on the same state directory refused in both isolations, naming the directory and the holder's pid; two uids racing for one fresh id never get each other's job; ids with a newline, NUL, a control or bidi character refused, NUL inside any string field refused; unprivileged clients cannot lock root out of the control socket (half frames, never-reading clients, awaits). */
#define _GNU_SOURCE     /* setresuid */
#define NWTNS 4
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define NOBODY 65534            /* an unprivileged uid */
#define OTHER 65533             /* another one */

static struct cz_groth16_key key;

static void kill9(struct daemon *d)
{
	int st;
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &st, 0);
	}
	d->pid = 0;
}

/* The request as uid (groups: uid alone), from a forked child that opens
 * n witnesses w[first..] itself and passes them as descriptors; the
 * answer, or NULL. */
static __attribute__((unused)) json_object *as_uid(const char *sock, uid_t uid, const char *json, int first, int n)
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
		alarm(20);      /* a daemon that never answers fails the test, not hangs it */
		int fds[NWTNS];
		for (int i = 0; i < n && i < NWTNS; i++)
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
	static _Thread_local char buf[1 << 16];
	size_t at = pipe_slurp(p[0], buf, sizeof(buf));
	int st;
	waitpid(pid, &st, 0);
	return at ? json_tokener_parse(buf) : NULL;
}

/* cuzkd on DIR/<state>-state (null backend), its socket and log named run. */
static int start_on(struct daemon *d, const char *run, const char *state, const char *delay_ms,
		    const char *isolation)
{
	static char sd[8][2 * PATH_MAX], kl[8][3 * PATH_MAX];
	static int k;
	char *s = sd[k % 8], *l = kl[k++ % 8];
	snprintf(s, sizeof(sd[0]), "%s/%s-state", dir, state);
	snprintf(l, sizeof(kl[0]), "k=%s/k.zkey", dir);
	const char *args[] = { "--state-dir", s, "--backend", "null", "--devices", "1", "--mem-budget", "256M",
			       "--null-delay-ms", delay_ms, "--load", l, "--retain", "7d", "--socket-mode", "0666",
			       "--isolation", isolation, NULL };
	return daemon_start(d, run, args);
}

static json_object *submit_j(struct daemon *d, const char *id, int first, int n)
{
	return daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\"%s%s%s,\"witnesses\":%s}", id ? ",\"id\":\"" : "",
				 id ? id : "", id ? "\"" : "", wlist_at(first, n)), NULL, 0);
}

static int files_named(const char *path, const char *prefix)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

static int log_has(const char *log, const char *want)
{
	FILE *f = fopen(log, "r");
	char line[4096];
	int hit = 0;
	while (f && !hit && fgets(line, sizeof(line), f))
		hit = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return hit;
}

/* Flips a byte inside the JSON of the journal record of kind t for seq
 * (the documented framing: u32 length, u32 CRC, payload); 0 when done. */
static int damage_record(const char *journal, const char *t, int seq)
{
	static uint8_t b[1 << 20];
	FILE *f = fopen(journal, "r+b");
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	char want_t[32], want_s[32];
	snprintf(want_t, sizeof(want_t), "\"t\":\"%s\"", t);
	snprintf(want_s, sizeof(want_s), "\"seq\":%d,", seq);
	int rc = -1;
	for (size_t off = 8; f && rc && off + 8 <= n;) {
		uint32_t len = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
			       (uint32_t)b[off + 3] << 24;
		if (off + 8 + len > n)
			break;
		char *txt = strndup((const char *)b + off + 8, len);
		if (txt && strstr(txt, want_t) && strstr(txt, want_s)) {
			uint8_t c = b[off + 8 + len / 2] ^ 0x01;
			rc = fseek(f, (long)(off + 8 + len / 2), SEEK_SET) || fwrite(&c, 1, 1, f) != 1;
		}
		free(txt);
		off += 8 + len;
	}
	if (f)
		fclose(f);
	return rc;
}

/* ---- item 1: a corrupt journal record ---- */

static void test_corrupt(void)
{
	struct daemon d;
	char state[2 * PATH_MAX], journal[3 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/jc-state", dir);
	snprintf(journal, sizeof(journal), "%s/journal", state);
	/* Run 1: five automatic jobs done (@1..@5, seq 1..5). */
	int up = start_on(&d, "jc1", "jc", "1", "process") == 0, done = 1;
	for (int i = 0; up && i < 5; i++) {
		json_object *r = submit_j(&d, NULL, i, 1);
		json_object *a = ok_of(r) ? daemon_await(&d, str_of(r, "job"), 60) : NULL;
		done &= ok_of(a) && int_of(r, "seq") == i + 1;
		json_object_put(r);
		json_object_put(a);
	}
	up = up && daemon_stop(&d) == 0;
	struct stat p2a, p2b;
	int had2 = stat(fmt("%s/proofs/@2/proof.bin", state), &p2a) == 0;
	/* Run 2: ten jobs q1..q10 (seq 6..15) accepted, queued behind a 60 s
	 * partition, then kill -9. */
	up = up && start_on(&d, "jc2", "jc", "60000", "process") == 0;
	int queued = 1;
	for (int i = 1; up && i <= 10; i++) {
		json_object *r = submit_j(&d, fmt("q%d", i), i, 1);
		queued &= ok_of(r) && int_of(r, "seq") == 5 + i;
		json_object_put(r);
	}
	kill9(&d);
	/* Two records damaged in the middle: @2's submit (a done job) and
	 * q3's (seq 8, queued: its witness is in the spool). */
	int spool8 = access(fmt("%s/spool/8.0.wtns", state), F_OK) == 0;
	int dmg = damage_record(journal, "sub", 2) == 0 && damage_record(journal, "sub", 8) == 0;
	ct_ok(up && done && queued && had2 && spool8 && dmg,
	      "corrupt: 5 jobs done, 10 more accepted and queued, kill -9, one byte flipped inside the submit "
	      "records of seq 2 (done) and seq 8 (queued, spooled)");

	up = start_on(&d, "jc3", "jc", "1", "process") == 0;
	int answered = 1, completed = 1;
	for (int i = 1; up && i <= 5; i++) {
		if (i == 2)
			continue;
		json_object *a = daemon_await(&d, fmt("@%d", i), 10);
		answered &= ok_of(a) && !strcmp(str_of(a, "state"), "done");
		json_object_put(a);
	}
	for (int i = 1; up && i <= 10; i++) {
		if (i == 3)
			continue;
		json_object *a = daemon_await(&d, fmt("q%d", i), 60);
		completed &= ok_of(a) && !strcmp(str_of(a, "state"), "done");
		if (!ok_of(a))
			ct_diag("q%d: %s", i, err_of(a));
		json_object_put(a);
	}
	json_object *l2 = up ? daemon_await(&d, "@2", 1) : NULL, *l8 = up ? daemon_await(&d, "q3", 1) : NULL;
	ct_ok(up && answered && completed && refused(l2, "unknown job") && refused(l8, "unknown job"),
	      "corrupt: after the restart @1 @3 @4 @5 answer done from the journal and q1 q2 q4..q10 complete "
	      "(their spooled witnesses kept); only the two damaged records' jobs are unknown (%s; %s)",
	      err_of(l2), err_of(l8));
	json_object_put(l2);
	json_object_put(l8);

	/* No number reused: a new automatic job's number is above all 15,
	 * and proofs/@2 (published, its record lost) is untouched. */
	json_object *r = up ? submit_j(&d, NULL, 0, 1) : NULL;
	int64_t nseq = int_of(r, "seq");
	json_object *a = ok_of(r) ? daemon_await(&d, str_of(r, "job"), 60) : NULL;
	int nd = ok_of(a);
	json_object_put(r);
	json_object_put(a);
	ct_ok(nd && nseq > 15 && stat(fmt("%s/proofs/@2/proof.bin", state), &p2b) == 0 && p2a.st_ino == p2b.st_ino &&
	      p2a.st_mtim.tv_nsec == p2b.st_mtim.tv_nsec,
	      "corrupt: the next sequence number is %lld (> 15: none handed out twice), proofs/@2 untouched",
	      (long long)nseq);

	/* Kept for the operator: the damaged journal and the lost job's
	 * witness; said in the log and in status. */
	char dd[3 * PATH_MAX] = "";
	DIR *sd = opendir(state);
	struct dirent *de;
	while (sd && (de = readdir(sd)))
		if (!strncmp(de->d_name, "damaged-", 8))
			snprintf(dd, sizeof(dd), "%s/%s", state, de->d_name);
	if (sd)
		closedir(sd);
	r = up ? daemon_req(&d, "{\"op\":\"status\"}", NULL, 0) : NULL;
	json_object *jo = r ? json_object_object_get(r, "journal") : NULL;
	int st_ok = int_of(jo, "damaged_ranges") == 2 && int_of(jo, "witnesses_kept") == 1 &&
		    !strcmp(str_of(jo, "damaged"), dd);
	json_object_put(r);
	ct_ok(*dd && files_named(state, "damaged-") == 1 && access(fmt("%s/journal", dd), F_OK) == 0 &&
	      access(fmt("%s/8.0.wtns", dd), F_OK) == 0 && st_ok &&
	      log_has(d.log, "corruption, not a torn tail") &&
	      log_has(d.log, "sequence numbers from 8 to 8 have no submit record left") &&
	      log_has(d.log, "sequence numbers from 2 to 2 have no submit record left"),
	      "corrupt: the damaged journal and seq 8's witness are kept in %s; the log names the lost "
	      "sequence numbers 2 and 8; status says damaged_ranges 2, witnesses_kept 1", *dd ? dd : "(none)");
	ct_ok(up && daemon_stop(&d) == 0, "corrupt: cuzkd stops");
}

/* ---- item 7: one cuzkd a state directory ---- */

static void test_twice(const char *iso)
{
	struct daemon a, b;
	char st[64];
	snprintf(st, sizeof(st), "tw-%s", iso);
	int up = start_on(&a, fmt("%s-a", st), st, "1", iso) == 0;
	json_object *r = up ? submit_j(&a, NULL, 0, 1) : NULL;
	int s1 = (int)int_of(r, "seq");
	json_object_put(r);
	int rc = up ? start_on(&b, fmt("%s-b", st), st, "1", iso) : -1;
	/* process isolation: the device process's lock may refuse it first
	 * (engine/device/devproc.c), with the same facts */
	int refusal = log_has(b.log, fmt("state directory %s/%s-state is in use", dir, st)) &&
		      log_has(b.log, fmt("cuzkd (pid %d", (int)a.pid));
	if (b.pid > 0)
		daemon_stop(&b);
	r = up ? submit_j(&a, NULL, 1, 1) : NULL;
	int s2 = (int)int_of(r, "seq");
	json_object *w = ok_of(r) ? daemon_await(&a, str_of(r, "job"), 60) : NULL;
	ct_ok(up && rc > 0 && refusal && s1 == 1 && s2 == 2 && ok_of(w),
	      "twice (%s isolation): a second cuzkd on the first one's --state-dir exits %d, naming the "
	      "directory and the holder's pid %d; the first goes on numbering (1, then %d) and proving",
	      iso, rc, (int)a.pid, s2);
	json_object_put(r);
	json_object_put(w);
	ct_ok(up && daemon_stop(&a) == 0, "twice (%s isolation): the first cuzkd stops", iso);
}

/* ---- item 6: what an id may hold ---- */

static json_object *submit_raw(struct daemon *d, const char *fields)
{
	return daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",%s,\"witnesses\":%s}", fields,
				 wlist_at(0, 1)), NULL, 0);
}

/* No byte of s is a control character or non-ASCII (what a terminal or
 * a log line would take raw). */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

static void test_idchars(void)
{
	struct daemon d;
	int up = start_on(&d, "idc", "idc", "1", "thread") == 0;
	json_object *nl = up ? submit_raw(&d, "\"id\":\"x\\ncuzkd: job=FORGED state=done\"") : NULL;
	json_object *nul = up ? submit_raw(&d, "\"id\":\"x\\u0000y\"") : NULL;
	json_object *pnul = up ? submit_raw(&d, "\"id\":\"p1\",\"priority\":\"critical\\u0000x\"") : NULL;
	json_object *bidi = up ? submit_raw(&d, "\"id\":\"ab\\u202ecd\"") : NULL;
	json_object *esc = up ? submit_raw(&d, "\"id\":\"a\\u001b[31mred\"") : NULL;
	json_object *sp = up ? submit_raw(&d, "\"id\":\"a b\"") : NULL;
	json_object *wnul = up ? daemon_req(&d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s/w0.wtns\\u0000x\"]}",
						    dir), NULL, 0) : NULL;
	json_object *good = up ? submit_raw(&d, "\"id\":\"ok-1.a_b:c+d=e,f~g@h\"") : NULL;
	json_object *w = ok_of(good) ? daemon_await(&d, "ok-1.a_b:c+d=e,f~g@h", 60) : NULL;
	ct_ok(refused(nl, "job id 'x\\x0acuzkd: job=FORGED state=done': a control character") && printable(err_of(nl)) &&
	      refused(nul, "\"id\" contains a NUL character") && refused(pnul, "\"priority\" contains a NUL character") &&
	      refused(wnul, "\"witnesses[0]\" contains a NUL character"),
	      "ids: a newline in an id is refused with it escaped (%s); NUL inside the id, the priority or a "
	      "witness path is refused, not cut short (%s; %s; %s)", err_of(nl), err_of(nul), err_of(pnul), err_of(wnul));
	ct_ok(refused(bidi, "job id 'ab\\xe2\\x80\\xaecd': only ASCII letters") && printable(err_of(bidi)) &&
	      refused(esc, "a control character") && printable(err_of(esc)) && refused(sp, "only ASCII letters") &&
	      ok_of(good) && ok_of(w),
	      "ids: a bidi override (U+202E), an escape sequence and a space are refused, each shown escaped "
	      "(%s; %s); an id of every allowed punctuation is accepted and proved", err_of(bidi), err_of(esc));
	int st = up ? daemon_stop(&d) : -1;
	ct_ok(st == 0 && !log_has(d.log, "FORGED") && files_named(fmt("%s/idc-state/proofs", dir), "x") == 0,
	      "ids: no log line holds the forged text, no directory was made for a refused id");
	json_object_put(nl);
	json_object_put(nul);
	json_object_put(pnul);
	json_object_put(bidi);
	json_object_put(esc);
	json_object_put(sp);
	json_object_put(wnul);
	json_object_put(good);
	json_object_put(w);
}

/* ---- item 5: two uids, one fresh id, at once ---- */

/* A submit of id (witness w0 by descriptor) as uid, from a child that
 * connects, then waits on gate (the parent closes it: both children send
 * together), and writes the answer into out (its own pipe). */
static pid_t racer(const char *sock, uid_t uid, const char *id, const int *gate, int out)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	close(gate[1]);         /* else the gate never opens: EOF needs every writer gone */
	gid_t g = (gid_t)uid;
	if (setgroups(1, &g) || setresgid(g, g, g) || setresuid(uid, uid, uid))
		_exit(3);
	int fd = open(fmt("%s/w0.wtns", dir), O_RDONLY | O_CLOEXEC);
	char err[256], c;
	int s = fd >= 0 ? cz_ctl_connect(sock, err, sizeof(err)) : -1;
	if (s < 0)
		_exit(4);
	if (read(gate[0], &c, 1) < 0)
		_exit(5);
	json_object *q = json_tokener_parse(fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\"}", id));
	json_object *r = cz_ctl_call(s, q, &fd, 1, err, sizeof(err));
	child_answer(out, r);
}

static json_object *answer_of(int fd)
{
	static char buf[1 << 14];
	return pipe_slurp(fd, buf, sizeof(buf)) ? json_tokener_parse(buf) : NULL;
}

#define RACES 20

static void test_race(void)
{
	struct daemon d;
	int up = start_on(&d, "race", "race", "1", "thread") == 0;
	int one_each = 0, wrong = 0, both = 0;
	for (int k = 0; up && k < RACES; k++) {
		int gate[2], pa[2], pb[2];
		if (pipe(gate) || pipe(pa) || pipe(pb))
			break;
		const char *id = fmt("race%d", k);
		pid_t a = racer(d.sock, NOBODY, id, gate, pa[1]);
		close(pa[1]);
		pid_t b = racer(d.sock, OTHER, id, gate, pb[1]);
		close(gate[0]);
		close(pb[1]);
		usleep(20000);          /* both connected */
		close(gate[1]);         /* go */
		json_object *ra = answer_of(pa[0]), *rb = answer_of(pb[0]);
		int st;
		waitpid(a, &st, 0);
		waitpid(b, &st, 0);
		/* Exactly one accepted (not "existing"), the other refused as
		 * another user's; never an "existing" answer to the loser. */
		int aw = ok_of(ra) && strcmp(str_of(ra, "existing"), "true");
		int bw = ok_of(rb) && strcmp(str_of(rb, "existing"), "true");
		int ae = ok_of(ra) && !aw, be = ok_of(rb) && !bw;
		int al = refused(ra, "is in use by another user's job: permission denied");
		int bl = refused(rb, "is in use by another user's job: permission denied");
		one_each += (aw && bl) || (bw && al);
		wrong += ae || be;
		both += aw && bw;
		if (!((aw && bl) || (bw && al)))
			ct_diag("race %d: uid %d: %s; uid %d: %s", k, NOBODY,
				ra ? json_object_to_json_string(ra) : "(none)", OTHER,
				rb ? json_object_to_json_string(rb) : "(none)");
		json_object_put(ra);
		json_object_put(rb);
	}
	ct_ok(up && one_each == RACES && !wrong && !both,
	      "race: %d times two uids (%d, %d) submit one fresh id at once: each time exactly one is accepted "
	      "and the other refused as another user's (%d of %d); 'existing' answered to the other uid %d "
	      "times, both accepted %d times", RACES, NOBODY, OTHER, one_each, RACES, wrong, both);
	ct_ok(up && daemon_stop(&d) == 0, "race: cuzkd stops");
}

/* ---- item 2: no uid locks the others out of the control socket ---- */

enum attack { AWAITS, HALF_FRAMES, NO_READ };

/* A child as uid that holds 64 connections of one kind, then waits to be
 * killed; it writes a byte to ready once they are all made. */
static pid_t attacker(const char *sock, uid_t uid, enum attack how, int ready)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	gid_t g = (gid_t)uid;
	if (setgroups(1, &g) || setresgid(g, g, g) || setresuid(uid, uid, uid))
		_exit(3);
	const char *job = fmt("hold%u", (unsigned)uid);
	if (how == AWAITS) {    /* its own job, running (or queued) for a minute or more */
		int fd = open(fmt("%s/w0.wtns", dir), O_RDONLY | O_CLOEXEC);
		char err[256];
		int s = cz_ctl_connect(sock, err, sizeof(err));
		json_object *q = json_tokener_parse(fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\"}", job));
		alarm(20);
		json_object *r = s >= 0 && fd >= 0 ? cz_ctl_call(s, q, &fd, 1, err, sizeof(err)) : NULL;
		alarm(0);
		if (!ok_of(r))
			_exit(4);
		close(s);
	}
	const char *await = fmt("{\"op\":\"await\",\"job\":\"%s\"}", job);
	for (int i = 0; i < CZ_CTL_MAX_CONN; i++) {
		if (how == AWAITS)
			raw_conn(sock, await, -1);
		else if (how == HALF_FRAMES)
			raw_conn(sock, "{\"op\":\"status\",\"padding\":\"................................\"}", 20);
		else    /* sends a status and never reads the answer */
			raw_conn(sock, "{\"op\":\"status\"}", -1);
	}
	(void)!write(ready, "r", 1);
	for (;;)
		pause();
}

/* A request on a new connection that waits at most 10 s to connect and
 * for each read (a daemon that locks clients out must fail the test, not
 * hang it); the answer, or NULL. */
static json_object *timed_req(const char *sock, const char *json)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	char err[256];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		if (s >= 0)
			close(s);
		return NULL;
	}
	json_object *q = json_tokener_parse(json);
	json_object *r = cz_ctl_call(s, q, NULL, 0, err, sizeof(err));
	json_object_put(q);
	close(s);
	return r;
}

static void test_lockout(void)
{
	struct daemon d;
	static const struct {
		uid_t uid;
		enum attack how;
		const char *what;
	} att[] = {
		{ 65534, AWAITS, "64 awaits" },
		{ 65533, HALF_FRAMES, "64 half frames" },
		{ 65532, NO_READ, "64 never-reading clients" },
		{ 65531, AWAITS, "64 awaits" },
	};
	int up = start_on(&d, "lock", "lock", "60000", "thread") == 0;
	pid_t kids[4];
	int nk = 0, ready = 0;
	int rp[2];
	if (up && !pipe(rp)) {
		for (int k = 0; k < 4; k++)
			kids[nk++] = attacker(d.sock, att[k].uid, att[k].how, rp[1]);
		close(rp[1]);
		char c;
		struct pollfd pf = { .fd = rp[0], .events = POLLIN };
		for (int k = 0; k < 4 && poll(&pf, 1, 60000) == 1 && read(rp[0], &c, 1) == 1; k++)
			ready++;
		close(rp[0]);
	}
	usleep(300000);         /* the server has read what they sent */
	json_object *st = up ? timed_req(d.sock, "{\"op\":\"status\"}") : NULL;
	json_object *cn = up ? timed_req(d.sock, "{\"op\":\"cancel\",\"job\":\"hold65534\"}") : NULL;
	ct_ok(up && ready == 4 && ok_of(st) && ok_of(cn),
	      "lockout: uids 65534..65531 hold 64 awaits, 64 half frames, 64 never-reading clients and 64 "
	      "awaits; root's status is answered (%s) and so is its cancel of 65534's job (%s)",
	      ok_of(st) ? "ok" : err_of(st), ok_of(cn) ? "ok" : err_of(cn));
	json_object_put(st);
	json_object_put(cn);
	/* One attacker is stopped: another uid is served again at once. */
	kill(kids[0], SIGKILL);
	waitpid(kids[0], NULL, 0);
	usleep(300000);         /* its connections' hang-ups seen */
	json_object *os = up ? as_uid(d.sock, OTHER - 10, "{\"op\":\"status\"}", 0, 0) : NULL;
	ct_ok(ok_of(os), "lockout: with one attacker gone, uid %d's status is answered too (%s)", OTHER - 10,
	      ok_of(os) ? "ok" : err_of(os));
	json_object_put(os);
	for (int k = 1; k < nk; k++) {
		kill(kids[k], SIGKILL);
		waitpid(kids[k], NULL, 0);
	}
	usleep(300000);
	st = up ? timed_req(d.sock, "{\"op\":\"status\"}") : NULL;
	ct_ok(ok_of(st), "lockout: with every attacker gone cuzkd still answers (%s)", ok_of(st) ? "ok" : err_of(st));
	json_object_put(st);
	kill9(&d);      /* its null partition sleeps a minute: no clean stop to wait for */
}

/* ---- item 4 (its last part): a retry of a job that ended badly ---- */

static void test_retry_ended(void)
{
	struct daemon d;
	int up = start_on(&d, "rty", "rty", "5000", "thread") == 0;
	json_object *r = up ? submit_j(&d, "cx", 0, 1) : NULL, *c = NULL, *again = NULL;
	int sub = ok_of(r);
	json_object_put(r);
	c = sub ? daemon_req(&d, "{\"op\":\"cancel\",\"job\":\"cx\"}", NULL, 0) : NULL;
	again = ok_of(c) ? submit_j(&d, "cx", 0, 1) : NULL;
	/* and through cuzkctl: the exit status */
	int rc = ok_of(c) ? system(fmt("%s/cuzkctl --socket %s submit k %s/w0.wtns --id cx >/dev/null 2>&1", bindir,
				       d.sock, dir)) : -1;
	ct_ok(sub && ok_of(c) && refused(again, "id 'cx' names a job that already ended cancelled") &&
	      !strcmp(str_of(again, "existing"), "true") && !strcmp(str_of(again, "state"), "cancelled") &&
	      WIFEXITED(rc) && WEXITSTATUS(rc) != 0,
	      "retry: a same-id retry of a cancelled job is answered ok false, saying so (%s), and cuzkctl "
	      "exits %d, not 0", err_of(again), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
	json_object_put(c);
	json_object_put(again);
	ct_ok(up && daemon_stop(&d) == 0, "retry: cuzkd stops");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-faults"))
		return 1;
	ct_plan(1 + 5 + 4 + 3 + 2 + 3 + 2);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0, "fixtures: a 2^8 dev key and %d witnesses", NWTNS))
		return ct_exit();
	chmod(dir, 0755);       /* mkdtemp's 0700: other uids reach the socket and the witnesses */
	test_corrupt();
	test_twice("thread");
	test_twice("process");
	test_idchars();
	test_race();
	test_lockout();
	test_retry_ended();
	cz_groth16_key_free(&key);
	return e2e_end();
}
