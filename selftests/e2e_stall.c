/* SPDX-License-Identifier: MIT */
/* Description: stalled requests lose their slot (issue 24 item 2): one unprivileged uid holds every connection slot open to non-admins with half-sent frames, renewed before the read timeout could end them; another unprivileged uid connecting is served, because the frame stalled the longest is evicted for it (its client told why), and a fresh half frame (under 1 s old) is not; with every slot running awaits instead, a newcomer is still refused, saying so. */
#define _GNU_SOURCE     /* setresuid */
#define NWTNS 1
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define ATTACKER 65534
#define NEWCOMER 65533
#define SLOTS (CZ_CTL_MAX_CONN - CZ_CTL_ADMIN_SLOTS)     /* the ones open to non-admin uids */

static void become(uid_t uid)
{
	gid_t g = (gid_t)uid;
	if (setgroups(1, &g) || setresgid(g, g, g) || setresuid(uid, uid, uid))
		_exit(3);
}

/* The answer waiting on s, if any: 1 when it contains want. */
static int told(int s, const char *want)
{
	static char b[1 << 16];
	struct pollfd p = { .fd = s, .events = POLLIN };
	if (poll(&p, 1, 0) != 1)
		return 0;
	ssize_t k = recv(s, b, sizeof(b) - 1, MSG_DONTWAIT);
	if (k <= 4)
		return 0;
	b[k] = 0;
	return strstr(b + 4, want) != NULL;
}

/*
 * The attacker, as ATTACKER: n connections of half frames (or of awaits:
 * full requests that wait), then one byte on out; on each byte from cmd,
 * a count on out: for 'c', how many of its connections had been refused
 * and were made again; else how many of its connections were told want.
 */
static pid_t attacker(const char *sock, int n, int awaits, int cmd, int out)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	become(ATTACKER);
	static int c[CZ_CTL_MAX_CONN];
	int made = 0;
	if (awaits) {   /* its own job, on a null device that takes a minute */
		int fd = open(fmt("%s/w0.wtns", dir), O_RDONLY | O_CLOEXEC);
		char err[256];
		int s = cz_ctl_connect(sock, err, sizeof(err));
		json_object *q = json_tokener_parse("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"hold\"}");
		alarm(20);
		json_object *r = s >= 0 && fd >= 0 ? cz_ctl_call(s, q, &fd, 1, err, sizeof(err)) : NULL;
		alarm(0);
		if (!ok_of(r))
			_exit(4);
		close(s);
	}
	/* A slot whose request has just been answered (this child's submit, the
	 * last round's probes) is busy until its thread marks it idle: a
	 * connection refused meanwhile is made again. */
	for (int pass = 0; pass < 20; pass++) {
		int again = 0;
		for (int i = 0; i < n; i++) {
			if (pass && c[i] >= 0 && !told(c[i], "too many connections"))
				continue;
			if (pass && c[i] >= 0)
				close(c[i]);
			c[i] = awaits ? raw_conn(sock, "{\"op\":\"await\",\"job\":\"hold\"}", -1)
				      : raw_conn(sock, "{\"op\":\"status\",\"padding\":\"..............................\"}", 20);
			again++;
		}
		if (!again)
			break;
		usleep(100000);
	}
	for (int i = 0; i < n; i++)
		made += c[i] >= 0;
	char ch = (char)made;
	(void)!write(out, &ch, 1);
	while (read(cmd, &ch, 1) == 1) {
		int k = 0;
		for (int i = 0; i < n; i++) {
			if (ch != 'c') {
				k += c[i] >= 0 && told(c[i], awaits ? "" : "has not arrived whole");
			} else if (c[i] < 0 || told(c[i], "too many connections")) {
				if (c[i] >= 0)
					close(c[i]);
				c[i] = awaits ? raw_conn(sock, "{\"op\":\"await\",\"job\":\"hold\"}", -1)
					      : raw_conn(sock, "{\"op\":\"status\",\"padding\":\"..............................\"}", 20);
				k++;
			}
		}
		ch = (char)k;
		(void)!write(out, &ch, 1);
	}
	_exit(0);
}

/* The request as uid, from a forked child: its answer's "ok" (1), the
 * error text in why, or -1 when no answer came. */
static int as_uid(const char *sock, uid_t uid, const char *json, char *why, size_t cap)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		become(uid);
		alarm(20);
		char err[256];
		int s = cz_ctl_connect(sock, err, sizeof(err));
		json_object *q = json_tokener_parse(json);
		json_object *r = s >= 0 ? cz_ctl_call(s, q, NULL, 0, err, sizeof(err)) : NULL;
		child_answer(p[1], r);
	}
	close(p[1]);
	static char buf[1 << 16];
	size_t at = pipe_slurp(p[0], buf, sizeof(buf));
	waitpid(pid, NULL, 0);
	json_object *r = at ? json_tokener_parse(buf) : NULL;
	int ok = r ? ok_of(r) : -1;
	snprintf(why, cap, "%s", r ? err_of(r) : "(no answer)");
	json_object_put(r);
	return ok;
}

/* 1 once SLOTS connections of NEWCOMER's each get their status answered
 * (every slot open to non-admins is free or idle: the last round's
 * connections are gone), 0 after 10 s. */
static int slots_free(const char *sock)
{
	for (int t = 0; t < 50; t++) {
		pid_t pid = fork();
		if (pid == 0) {
			become(NEWCOMER);
			static int c[SLOTS];
			int ok = 0;
			for (int i = 0; i < SLOTS; i++)
				c[i] = raw_conn(sock, "{\"op\":\"status\"}", -1);
			for (int i = 0; i < SLOTS; i++) {
				struct timeval tv = { .tv_sec = 5 };
				char b[16];
				if (c[i] >= 0 && !setsockopt(c[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) &&
				    recv(c[i], b, sizeof(b) - 1, MSG_WAITALL) == (ssize_t)sizeof(b) - 1)
					ok += !memcmp(b + 4, "{\"ok\":true", 10);
			}
			_exit(ok == SLOTS ? 0 : 100 + ok);
		}
		int st;
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 1;
		usleep(200000);
	}
	return 0;
}

static int byte_of(int fd)
{
	char ch;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 30000) == 1 && read(fd, &ch, 1) == 1 ? (unsigned char)ch : -1;
}

/*
 * 1 once the attacker holds all its slots, 0 after 20 tries.  The accept
 * thread takes connections in order and sends a refusal before it takes
 * the next: once root's status (a later connection) is answered, every
 * refusal of the attacker's connections is waiting on them, and the
 * attacker makes those again.  (Checking after a fixed 100 ms missed one
 * under TSan, and the newcomer got its free slot.)
 */
static int attacker_holds(struct daemon *d, int cmd, int out)
{
	for (int t = 0; t < 20; t++) {
		json_object_put(daemon_req(d, "{\"op\":\"status\"}", NULL, 0));
		int k = write(cmd, "c", 1) == 1 ? byte_of(out) : -1;
		if (k == 0)
			return 1;
		if (k < 0)
			return 0;
		ct_diag("%d of the attacker's connections had been refused (slots not yet let go): made again", k);
		usleep(100000);
	}
	return 0;
}

/* One round: the attacker fills every non-admin slot (half frames, or
 * awaits), then NEWCOMER asks for status, once at once and once after
 * 1.5 s. */
static void round_of(struct daemon *d, int awaits)
{
	int cmd[2], out[2];
	if (pipe(cmd) || pipe(out))
		return;
	pid_t a = attacker(d->sock, SLOTS, awaits, cmd[0], out[1]);
	close(cmd[0]);
	close(out[1]);
	int made = byte_of(out[0]);
	if (made == SLOTS && !attacker_holds(d, cmd[1], out[0]))
		made = -1;
	char why[400] = "";
	if (!awaits) {
		/* Fresh half frames (under 1 s old): not evicted, the newcomer refused. */
		int fresh = as_uid(d->sock, NEWCOMER, "{\"op\":\"status\"}", why, sizeof(why));
		ct_ok(made == SLOTS && fresh == 0 && strstr(why, "too many connections"),
		      "uid %d holds all %d non-admin slots with half frames just sent: uid %d is refused (%s)",
		      ATTACKER, SLOTS, NEWCOMER, why);
		usleep(1500000);        /* past the 1 s stall bound, well within the 30 s read timeout */
		int ok = as_uid(d->sock, NEWCOMER, "{\"op\":\"status\"}", why, sizeof(why));
		(void)!write(cmd[1], "?", 1);
		int evicted = byte_of(out[0]);
		ct_ok(ok == 1 && evicted == 1,
		      "1.5 s later (read timeout 30 s) uid %d's status is answered (%s): the stalled frame was "
		      "evicted for it, its client told why (%d of %d told)", NEWCOMER, ok == 1 ? "ok" : why, evicted,
		      SLOTS);
	} else {
		usleep(1500000);
		int ok = as_uid(d->sock, NEWCOMER, "{\"op\":\"status\"}", why, sizeof(why));
		(void)!write(cmd[1], "?", 1);
		int answered = byte_of(out[0]);
		ct_diag("awaits answered meanwhile: %d", answered);
		ct_ok(made == SLOTS && answered == 0 && ok == 0 && strstr(why, "too many connections"),
		      "with all %d non-admin slots running awaits (%d made), uid %d is still refused, saying so (%s)",
		      SLOTS, made, NEWCOMER, why);
	}
	close(cmd[1]);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	close(out[0]);
	if (!slots_free(d->sock))       /* the server has seen them go */
		ct_diag("the slots are still taken 10 s after the attacker was killed");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-stall"))
		return 1;
	ct_plan(1 + 2 + 1 + 1 + 1);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(NULL) == 0, "fixtures: a 2^8 dev key and a witness"))
		return ct_exit();
	chmod(dir, 0755);       /* other uids reach the socket */
	struct daemon d;
	const char *args[] = { "--backend", "null", "--devices", "1", "--isolation", "thread", "--socket-mode", "0666",
			       "--max-conns-per-uid", fmt("%d", CZ_CTL_MAX_CONN), "--read-timeout", "30",
			       "--null-delay-ms", "60000", "--load", fmt("k=%s/k.zkey", dir), NULL };
	int up = daemon_start(&d, "st", args) == 0;
	if (up) {
		round_of(&d, 0);
		round_of(&d, 1);
	} else {
		skip_n(3, "no daemon");
	}
	json_object *r = up ? daemon_req(&d, "{\"op\":\"status\"}", NULL, 0) : NULL;
	ct_ok(ok_of(r), "cuzkd still answers root afterwards");
	json_object_put(r);
	if (d.pid > 0)  /* its null partition sleeps a minute: no clean stop to wait for */
		kill(d.pid, SIGKILL);
	ct_ok(up && d.pid > 0 && waitpid(d.pid, NULL, 0) == d.pid, "cuzkd ended");
	return e2e_end();
}
