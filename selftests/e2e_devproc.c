/* SPDX-License-Identifier: MIT */
/* Description: --isolation process: kill -9 of cz-dev0 mid-run on the cpu backend loses no job (every proof verifies, same cuzkd, restarts >= 1, order bound from the trace); on 2 null devices repeated kills of cz-dev1 lose nothing, the device is marked failed after 3 deaths in 60 s and the others take its work, cuzkd's fd count comes back; no child outlives cuzkd, by SIGTERM or SIGKILL; a device that segfaults on purpose has its partition proved on the other device; a partition that segfaults every device fails its job after 2 attempts while the others complete; a child killed (CZ_TEST_DEVKILL) right after a ring hands it a descriptor, or after it records it but before the ring lets go, loses nothing; 24 kills at random moments leave no job unended. */
#include "ctl/ctl.h"
#include "zk/builtin.h"
#include "zk/groth16_io.h"
#include "zk/snarkjs_json.h"
#include "selftests/cz_test.h"

/* Under ASan or TSan cuzkd's RSS grows with the sanitizer's own bookkeeping
 * (quarantine, shadow), so the restart test prints RSS but asserts only the
 * descriptors there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Oracles: cuzk's verifier on each proof file against the key this test
 * made, /proc for processes and descriptors, the trace (read as JSON, as
 * e2e_order.c does) for the order bound.  Kills are timed by what status
 * says (a consumer busy, a new pid ready), never by wall time.
 */

static struct cz_groth16_key key;

#define NWTNS 4
/* a test's own environment for the next daemon_start (claim_kills) */
static void (*child_setup)(void);
static void run_child_setup(void)
{
	if (child_setup)
		child_setup();
}
#define CZ_DAEMON_CHILD run_child_setup
#define CZ_DAEMON_WATCH_EXIT            /* stale(): a cuzkd that refuses to start */
#include "selftests/cz_daemon.h"
#include "selftests/cz_trace.h"

static json_object *req(struct daemon *d, const char *json)
{
	return daemon_req(d, json, NULL, 0);
}

/* ---- the daemon ---- */

/* ---- status and /proc ---- */

static json_object *status(struct daemon *d)
{
	json_object *r = req(d, "{\"op\":\"status\"}");
	return ok_of(r) ? r : (json_object_put(r), NULL);
}

/* devices[dev].field as an integer, or -1; state into st when asked. */
static int64_t dev_field(struct daemon *d, unsigned dev, const char *field, char *st, size_t cap)
{
	json_object *r = status(d), *devs, *o;
	int64_t v = -1;
	if (st)
		*st = 0;
	if (r && json_object_object_get_ex(r, "devices", &devs) && (size_t)dev < json_object_array_length(devs)) {
		o = json_object_array_get_idx(devs, dev);
		v = int_of(o, field);
		if (st)
			snprintf(st, cap, "%s", str_of(o, "state"));
	}
	json_object_put(r);
	return v;
}

/* Waits until device dev is ready with a pid other than old: the pid, or -1. */
static int wait_ready(struct daemon *d, unsigned dev, int old)
{
	char st[32];
	for (int i = 0; i < 3000; i++) {
		int pid = (int)dev_field(d, dev, "pid", st, sizeof(st));
		if (pid > 0 && pid != old && !strcmp(st, "ready"))
			return pid;
		if (!strcmp(st, "failed"))
			return -1;
		usleep(5000);
	}
	return -1;
}

/* Waits until device dev's warm-up proof is verified (status's
 * devices[].warm_up.state), as an operator waits for /readyz: 1, or 0. */
static int wait_warm(struct daemon *d, unsigned dev)
{
	for (int i = 0; i < 3000; i++) {
		json_object *r = status(d), *devs, *wu, *st;
		int ok = 0;
		if (r && json_object_object_get_ex(r, "devices", &devs) &&
		    dev < json_object_array_length(devs) &&
		    json_object_object_get_ex(json_object_array_get_idx(devs, dev), "warm_up", &wu) &&
		    json_object_object_get_ex(wu, "state", &st))
			ok = !strcmp(json_object_get_string(st), "verified");
		json_object_put(r);
		if (ok)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Waits until a consumer of device dev proves something: 1, or 0. */
static int wait_busy(struct daemon *d, unsigned dev)
{
	for (int i = 0; i < 4000; i++) {
		json_object *r = status(d), *cons;
		int busy = 0;
		if (r && json_object_object_get_ex(r, "consumers", &cons))
			for (size_t k = 0; k < json_object_array_length(cons); k++) {
				json_object *c = json_object_array_get_idx(cons, k);
				busy |= int_of(c, "device") == dev && !strcmp(str_of(c, "state"), "busy");
			}
		json_object_put(r);
		if (busy)
			return 1;
		usleep(1000);
	}
	return 0;
}

static int comm_is(int pid, const char *want)
{
	char p[64], c[64] = "";
	snprintf(p, sizeof(p), "/proc/%d/comm", pid);
	FILE *f = fopen(p, "r");
	if (!f)
		return 0;
	if (!fgets(c, sizeof(c), f))
		c[0] = 0;
	fclose(f);
	c[strcspn(c, "\n")] = 0;
	return !strcmp(c, want);
}

/* cuzkd's descriptors other than sockets (control connections come and
 * go with this test's own requests); *pidfds: how many are pidfds. */
static int nfds(int pid, int *pidfds)
{
	char p[64], l[PATH_MAX + 80], t[256];
	snprintf(p, sizeof(p), "/proc/%d/fd", pid);
	DIR *dd = opendir(p);
	int n = 0;
	*pidfds = 0;
	for (struct dirent *e; dd && (e = readdir(dd));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(l, sizeof(l), "%s/%s", p, e->d_name);
		ssize_t k = readlink(l, t, sizeof(t) - 1);
		t[k > 0 ? k : 0] = 0;
		if (!strncmp(t, "socket:", 7))
			continue;
		n++;
		*pidfds += !!strstr(t, "pidfd");
	}
	if (dd)
		closedir(dd);
	return dd ? n : -1;
}

/* The fewest of 20 counts 10 ms apart: a descriptor cuzkd holds for a
 * moment (the output writer's directory of a job that just ended) is not
 * a leak, one that stays is. */
static int nfds_settled(int pid, int *pidfds)
{
	int best = -1, bp = -1;
	for (int i = 0; i < 20; i++) {
		int pf, n = nfds(pid, &pf);
		if (n >= 0 && (best < 0 || n < best))
			best = n, bp = pf;
		usleep(10000);
	}
	*pidfds = bp;
	return best;
}

static long rss_kb(int pid)
{
	char p[64], line[256];
	long kb = -1;
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* The process is gone (reaped by someone): within 3 s. */
static int gone(int pid)
{
	for (int i = 0; i < 300; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return 1;
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/stat", pid);
		FILE *f = fopen(p, "r");
		char st = 0;
		if (f) {
			if (fscanf(f, "%*d %*s %c", &st) != 1)
				st = 0;
			fclose(f);
		}
		if (st == 'Z')
			return 1;       /* dead, waiting for init to reap */
		usleep(10000);
	}
	return 0;
}

/* ---- the cpu backend: kill -9 of cz-dev0 mid-run ---- */

static void cpu_kill(void)
{
	static struct trace t;
	static const int prios[6] = { 2, 2, 2, 2, 2, 2 };
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "1", "--synth-workers", "2",
			      "--isolation", "process", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0 && load_key(&d), "cuzkd --isolation process, cpu backend: started, key loaded")) {
		for (int i = 0; i < 4; i++)
			ct_skip("no daemon", "cpu kill");
		return;
	}
	int pid0 = wait_ready(&d, 0, 0);
	ct_ok(pid0 > 0 && comm_is(pid0, "cz-dev0"), "device 0 runs in its own process %d, comm cz-dev0", pid0);
	int ok = 1;
	char id[6][16], out[6][PATH_MAX];
	for (int i = 0; i < 6; i++) {
		snprintf(id[i], sizeof(id[i]), "c%d", i);
		ok &= submit(&d, id[i], "normal", 3);
	}
	int busy = wait_busy(&d, 0);
	int killed = busy && pid0 > 0 && kill(pid0, SIGKILL) == 0;
	for (int i = 0; i < 6; i++)
		ok &= await_done(&d, id[i], out[i], sizeof(out[i]));
	int verified = ok;
	for (int i = 0; verified && i < 6; i++)
		verified = proofs_verify(&key, out[i], 3);
	int64_t restarts = dev_field(&d, 0, "restarts", NULL, 0);
	int same = kill(d.pid, 0) == 0 && waitpid(d.pid, NULL, WNOHANG) == 0;
	ct_ok(killed && ok && verified && same && restarts >= 1,
	      "kill -9 of cz-dev0 while it proved: all 6 jobs x 3 partitions done, every proof verifies, "
	      "cuzkd is the same process, restarts %lld >= 1", (long long)restarts);
	const struct tpart *wb;
	int worst = trace_read(&d, &t, prios, 6) == 0 && all_started(&t, 18) ? inversions(&t, &wb) : -1;
	ct_ok(worst >= 0 && worst <= 2, "the order bound holds across the kill: worst inversion count %d <= 2 consumers", worst);
	int now = (int)dev_field(&d, 0, "pid", NULL, 0);
	ct_ok(daemon_stop(&d) == 0 && now > 0 && gone(now),
	      "cuzkd (cpu, process isolation) stops with status 0, and its restarted cz-dev0 %d with it", now);
}

/* ---- 2 null devices: repeated kills of cz-dev1 ---- */

static void null_kills(void)
{
	struct daemon d;
	/* 60 ms a partition: a restarted cz-dev1 re-makes its warm-up key
	 * (~270 ms on the loaded VM, engine/warmup.c) before it takes work, so
	 * device 0 must not finish everything meanwhile. */
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "60",
			      "--synth-workers", "2", "--isolation", "process", NULL };
	if (!ct_ok(daemon_start(&d, "null", nul) == 0 && load_key(&d), "cuzkd --isolation process, 2 null devices: started")) {
		for (int i = 0; i < 5; i++)
			ct_skip("no daemon", "null kills");
		return;
	}
	int p0 = wait_ready(&d, 0, 0), p1 = wait_ready(&d, 1, 0);
	int pf0, pf1;
	int fds0 = nfds_settled(d.pid, &pf0);
	ct_ok(p0 > 0 && p1 > 0 && p0 != p1 && comm_is(p1, "cz-dev1"), "two children, cz-dev0 %d and cz-dev1 %d", p0, p1);
	int ok = 1;
	char id[10][16];
	for (int i = 0; i < 10; i++) {
		snprintf(id[i], sizeof(id[i]), "n%d", i);
		ok &= submit(&d, id[i], "normal", 4);
	}
	/* Kill cz-dev1 whenever it proves, until the supervisor gives up on
	 * it (3 deaths in 60 s), at most 5 times. */
	int kills = 0, pid = p1;
	while (kills < 5 && pid > 0) {
		if (!wait_busy(&d, 1))
			break;
		kill(pid, SIGKILL);
		kills++;
		pid = wait_ready(&d, 1, pid);
	}
	for (int i = 0; i < 10; i++)
		ok &= await_done(&d, id[i], NULL, 0);
	char st[32];
	int64_t restarts = dev_field(&d, 1, "restarts", st, sizeof(st));
	ct_ok(ok && kills == 3, "%d kills of cz-dev1 while it proved: all 10 jobs x 4 partitions done", kills);
	ct_ok(!strcmp(st, "failed") && restarts == 2,
	      "after 3 deaths in 60 s device 1 is failed (%s), restarted %lld times; device 0 took its work",
	      st, (long long)restarts);
	int fds1 = nfds_settled(d.pid, &pf1);
	/* device 1's pidfd is closed for good, nothing else differs */
	ct_ok(fds0 > 0 && pf0 == 2 && pf1 == 1 && fds1 == fds0 - 1,
	      "cuzkd's descriptors (not sockets) after 3 restarts: %d, before %d, pidfds %d then %d "
	      "(the failed device's is closed, nothing else leaked)", fds1, fds0, pf0, pf1);
	/* Operators: enable the failed device, drain and disable the other. */
	json_object *r = req(&d, "{\"op\":\"device\",\"device\":1,\"action\":\"enable\"}");
	int en = ok_of(r);
	json_object_put(r);
	int np1 = en ? wait_ready(&d, 1, 0) : -1;
	ct_ok(en && np1 > 0 && comm_is(np1, "cz-dev1"), "device 1 enable (after failed): ready again, process %d", np1);
	r = req(&d, "{\"op\":\"device\",\"device\":0,\"action\":\"disable\"}");
	int dis = ok_of(r);
	json_object_put(r);
	for (int i = 0; i < 500 && dev_field(&d, 0, "pid", NULL, 0) != 0; i++)
		usleep(10000);
	int64_t pid_after = dev_field(&d, 0, "pid", st, sizeof(st));
	int done = submit(&d, "after", "normal", 4) && await_done(&d, "after", NULL, 0);
	ct_ok(dis && pid_after == 0 && !strcmp(st, "disabled") && gone(p0) && done,
	      "device 0 disable: its process %d ends (%s, pid %lld), a 4-partition job completes on device 1",
	      p0, st, (long long)pid_after);
	/* Many restarts (an operator's: no death counted): nothing grows. */
	int rounds = 0, pf2 = 0, pf3 = 0, fds2 = -1, fds3 = -1;
	long rss2 = -1, rss3 = -1;
	for (int i = 0; i < 101; i++) {
		r = req(&d, "{\"op\":\"device\",\"device\":1,\"action\":\"restart\"}");
		int rok = ok_of(r);
		json_object_put(r);
		int np = rok ? wait_ready(&d, 1, np1) : -1;
		if (np <= 0)
			break;
		np1 = np;
		rounds++;
		if (i == 0) {
			fds2 = nfds_settled(d.pid, &pf2);
			rss2 = rss_kb(d.pid);
		}
	}
	fds3 = nfds_settled(d.pid, &pf3);
	rss3 = rss_kb(d.pid);
	ct_ok(rounds == 101 && fds3 == fds2 && pf3 == pf2 && rss3 >= 0 && (SANITIZED || rss3 - rss2 <= 1024),
	      "101 restarts of device 1 (device 1 restart): each a new ready process; cuzkd's descriptors "
	      "%d -> %d, RSS %ld -> %ld KiB after the first and the last 100", fds2, fds3, rss2, rss3);
	ct_ok(daemon_stop(&d) == 0 && gone(np1), "SIGTERM: cuzkd stops with status 0 and cz-dev1 with it");

	/* SIGKILL of cuzkd: the children die with it (PR_SET_PDEATHSIG). */
	if (daemon_start(&d, "null2", nul) == 0) {
		p0 = wait_ready(&d, 0, 0);
		p1 = wait_ready(&d, 1, 0);
		kill(d.pid, SIGKILL);
		waitpid(d.pid, NULL, 0);
		ct_ok(p0 > 0 && p1 > 0 && gone(p0) && gone(p1), "kill -9 of cuzkd: cz-dev0 %d and cz-dev1 %d die with it", p0, p1);
	} else {
		ct_ok(0, "second daemon");
	}
}

/* ---- faults on purpose (the null backend's test option) ---- */

/* From the trace: a partition whose first compute_start was on device
 * `from` and a later one on device `to`.  1 if there is one. */
static int restarted_elsewhere(struct daemon *d, int from, int to)
{
	char p[3 * PATH_MAX], err[256], line[1024];
	static struct { int64_t seq, part; int dev; } first[MAXP];
	int nf = 0, found = 0;
	snprintf(p, sizeof(p), "%s/trace2.jsonl", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	if (fd < 0 || s < 0)
		return 0;
	json_object *q = json_tokener_parse("{\"op\":\"trace\"}");
	json_object_put(cz_ctl_call(s, q, &fd, 1, err, sizeof(err)));
	json_object_put(q);
	close(s);
	close(fd);
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		if (!strcmp(str_of(e, "ev"), "compute_start")) {
			int64_t seq = int_of(e, "job"), part = int_of(e, "part");
			const char *th = str_of(e, "thread");
			int dev = !strncmp(th, "consumer ", 9) ? atoi(th + 9) : -1, k;
			for (k = 0; k < nf && (first[k].seq != seq || first[k].part != part); k++)
				;
			if (k == nf && nf < MAXP)
				first[nf++] = (typeof(first[0])){ seq, part, dev };
			else if (k < nf && first[k].dev == from && dev == to)
				found = 1;
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	return found;
}

static void faults(void)
{
	struct daemon d;
	const char *nth[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
			      "--isolation", "process", "--null-fault", "1:3", NULL };
	int ok = daemon_start(&d, "fault", nth) == 0 && load_key(&d);
	char id[4][16];
	for (int i = 0; ok && i < 4; i++) {
		snprintf(id[i], sizeof(id[i]), "f%d", i);
		ok &= submit(&d, id[i], "normal", 3);
	}
	for (int i = 0; ok && i < 4; i++)
		ok &= await_done(&d, id[i], NULL, 0);
	/* The restart comes 100 ms after the death, which can be after the
	 * jobs are done (device 0 took the work; a sanitizer's report makes the
	 * death itself slow): wait for it, up to 10 s. */
	int64_t r1 = dev_field(&d, 1, "restarts", NULL, 0);
	for (int i = 0; ok && r1 < 1 && i < 100; i++) {
		usleep(100 * 1000);
		r1 = dev_field(&d, 1, "restarts", NULL, 0);
	}
	int moved = ok && restarted_elsewhere(&d, 1, 0);
	ct_ok(ok && r1 >= 1 && moved, "cz-dev1 segfaults on its 3rd prove, the 2nd after its warm-up (--null-fault 1:3): the partition "
	      "it held is proved again on device 0, all 4 jobs x 3 partitions done, restarts %lld", (long long)r1);
	daemon_stop(&d);

	const char *part[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
			       "--isolation", "process", "--null-fault-part", "2", NULL };
	ok = daemon_start(&d, "poison", part) == 0 && load_key(&d);
	ok &= submit(&d, "p3", "normal", 3) & submit(&d, "p2a", "normal", 2) & submit(&d, "p2b", "normal", 2);
	char q[256];
	snprintf(q, sizeof(q), "{\"op\":\"await\",\"job\":\"p3\"}");
	json_object *r = ok ? req(&d, q) : NULL;
	char why[512];
	snprintf(why, sizeof(why), "%s", str_of(r, "error"));
	int failed = r && !strcmp(str_of(r, "state"), "failed") && strstr(why, "partition 2") &&
		     strstr(why, "died 2 times");
	json_object_put(r);
	int others = ok && await_done(&d, "p2a", NULL, 0) && await_done(&d, "p2b", NULL, 0);
	ct_ok(failed && others, "a partition that segfaults every device it reaches fails its job after "
	      "2 attempts (\"%s\"); the other jobs are done", why);
	daemon_stop(&d);
}

/* ---- no window between a consumer's take and its record of it ---- */

/* The job's end within 60 s (a lost partition would hold it for ever):
 * 1 done, 2 failed with why, 0 neither. */
static int await_end(struct daemon *d, const char *id, char *why, size_t cap)
{
	char q[256];
	snprintf(q, sizeof(q), "{\"op\":\"await\",\"job\":\"%s\",\"timeout\":60}", id);
	json_object *r = req(d, q);
	const char *st = str_of(r, "state");
	int end = !strcmp(st, "done") ? 1 : !strcmp(st, "failed") ? 2 : 0;
	if (why)
		snprintf(why, cap, "%s", str_of(r, "error"));
	if (!end)
		ct_diag("await %s: %s %s", id, st, str_of(r, "error"));
	json_object_put(r);
	return end;
}

/* How many lines of d's log contain what. */
static int log_count(struct daemon *d, const char *what)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(d->log, "r");
	while (f && fgets(line, sizeof(line), f))
		n += !!strstr(line, what);
	if (f)
		fclose(f);
	return n;
}

/* CZ_TEST_DEVKILL: cz-dev1 raises SIGKILL right after the ring hands it a
 * descriptor on its 2nd claim (before holds[] names it: the old window),
 * and after holds[0] names it but before the ring slot is freed on its
 * 4th; cz-dev0 in the first window on its 3rd.  Batches of jobs run until
 * all three kills happened; every job ends done. */
static void CZ_DAEMON_CHILD_KILLS(void)
{
	setenv("CZ_TEST_DEVKILL", "1:claim:2,1:held:4,0:claim:3,1:lower:1", 1);
}

static void claim_kills(void)
{
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "5",
			      "--synth-workers", "2", "--isolation", "process", NULL };
	child_setup = CZ_DAEMON_CHILD_KILLS;
	int up = daemon_start(&d, "claimkill", nul) == 0 && load_key(&d);
	child_setup = NULL;
	if (!ct_ok(up, "cuzkd --isolation process, 2 null devices, CZ_TEST_DEVKILL set: started")) {
		ct_skip("no daemon", "claim kills");
		ct_skip("no daemon", "claim kills");
		return;
	}
	int ok = 1, batches = 0, jobs = 0;
	char id[16];
	while (ok && batches < 20 && (log_count(&d, "test kill at claim #2") < 1 ||
				      log_count(&d, "test kill at held #4") < 1 ||
				      log_count(&d, "test kill at claim #3") < 1)) {
		for (int i = 0; i < 4; i++) {
			snprintf(id, sizeof(id), "k%d", jobs + i);
			ok &= submit(&d, id, "normal", 3);
		}
		for (int i = 0; i < 4; i++) {
			snprintf(id, sizeof(id), "k%d", jobs + i);
			ok &= await_end(&d, id, NULL, 0) == 1;
		}
		jobs += 4;
		batches++;
	}
	int c2 = log_count(&d, "test kill at claim #2"), h4 = log_count(&d, "test kill at held #4"),
	    c3 = log_count(&d, "test kill at claim #3"), l1 = log_count(&d, "test kill at lower #1");
	ct_ok(ok && c2 == 1 && h4 == 1 && c3 == 1,
	      "kills between a consumer's dequeue and its record (cz-dev1 claim #2, cz-dev0 claim #3) "
	      "and between the record and the ring's release (cz-dev1 #4): all %d jobs x 3 partitions "
	      "done in %d batches (kills seen: %d %d %d)", jobs, batches, c2, h4, c3);
	ct_diag("take_lower's window (cz-dev1 lower #1) was %s", l1 ? "hit too" : "not reached in this run");
	/* each death was seen and recovered: the supervisor's own lines */
	int deaths = log_count(&d, "died (signal 9");
	int64_t r0 = dev_field(&d, 0, "restarts", NULL, 0), r1 = dev_field(&d, 1, "restarts", NULL, 0);
	for (int i = 0; i < 100 && r0 + r1 < deaths; i++) {
		usleep(100 * 1000);
		r0 = dev_field(&d, 0, "restarts", NULL, 0);
		r1 = dev_field(&d, 1, "restarts", NULL, 0);
	}
	ct_ok(deaths >= 3 && r0 >= 1 && r1 >= 2 && daemon_stop(&d) == 0,
	      "cuzkd logged %d deaths and restarted device 0 %lld, device 1 %lld times; stops with status 0",
	      deaths, (long long)r0, (long long)r1);
}

/* Random kills: a child of either device killed at a random moment while
 * it proves (1 ms partitions: it claims about every ms), 24 times (of at
 * most 60 tries: a try whose device is not seen busy kills nothing), each
 * device enabled again when it fails.  Every job ends: done, or failed by
 * the poison rule (its partition was on two devices that died). */
/* each restart's warm-up proof takes seconds under a sanitizer */
#define KILLS (SANITIZED ? 8 : 24)
static void random_kills(void)
{
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "1",
			      "--synth-workers", "2", "--isolation", "process", NULL };
	if (!ct_ok(daemon_start(&d, "randkill", nul) == 0 && load_key(&d),
		   "cuzkd --isolation process, 2 null devices, 1 ms partitions: started")) {
		ct_skip("no daemon", "random kills");
		return;
	}
	uint64_t rng = 0x6b696c6cull;
	int pid[2] = { wait_ready(&d, 0, 0), wait_ready(&d, 1, 0) };
	int ok = pid[0] > 0 && pid[1] > 0, kills = 0, njobs = 0;
	char id[16];
	for (int k = 0; ok && kills < KILLS && k < 60; k++) {   /* a slow run misses some */
		for (int i = 0; i < 3; i++) {
			snprintf(id, sizeof(id), "r%d", njobs++);
			ok &= submit(&d, id, "normal", 4);
		}
		unsigned dev = (unsigned)(ct_splitmix64(&rng) & 1);
		if (!wait_busy(&d, dev))
			continue;
		usleep((useconds_t)(ct_splitmix64(&rng) % 3000));
		if (kill(pid[dev], SIGKILL) == 0)
			kills++;
		int np = wait_ready(&d, dev, pid[dev]);
		if (np < 0) {           /* failed (3 deaths in 60 s): an operator enables it */
			char q[96];
			snprintf(q, sizeof(q), "{\"op\":\"device\",\"device\":%u,\"action\":\"enable\"}", dev);
			json_object_put(req(&d, q));
			np = wait_ready(&d, dev, pid[dev]);
		}
		ok &= np > 0;
		pid[dev] = np;
	}
	int done = 0, poisoned = 0, other = 0;
	char why[512];
	for (int i = 0; i < njobs; i++) {
		snprintf(id, sizeof(id), "r%d", i);
		int e = await_end(&d, id, why, sizeof(why));
		done += e == 1;
		poisoned += e == 2 && strstr(why, "died 2 times");
		other += e == 0 || (e == 2 && !strstr(why, "died 2 times"));
		if (e == 2 && !strstr(why, "died 2 times"))
			ct_diag("job %s: %s", id, why);
	}
	ct_ok(ok && kills >= KILLS - KILLS / 6 && other == 0 && done + poisoned == njobs && done > njobs / 2,
	      "%d random kills of cz-dev0/cz-dev1 while they prove: all %d jobs ended (%d done, %d failed "
	      "by the poison rule, %d lost or other)", kills, njobs, done, poisoned, other);
	daemon_stop(&d);
}

/* ---- stale device processes of an earlier cuzkd ---- */

/* A stand-in for a device child that outlived its cuzkd: B, named
 * cz-dev0, holds STATE/cz-dev0.lock with its pid in it; its parent A is
 * named cuzkd (a live daemon's child) until the test kills A.  *b: B. */
static pid_t fake_child(const char *state, pid_t *b)
{
	int p[2];
	char lp[4 * PATH_MAX];
	snprintf(lp, sizeof(lp), "%s/cz-dev0.lock", state);
	if (pipe(p))
		return -1;
	fflush(stdout);
	pid_t a = fork();
	if (a == 0) {
		prctl(PR_SET_NAME, "cuzkd");
		pid_t bb = fork();
		if (bb == 0) {
			prctl(PR_SET_NAME, "cz-dev0");
			int fd = open(lp, O_RDWR | O_CREAT, 0600);
			char t[24];
			int n = snprintf(t, sizeof(t), "%d\n", (int)getpid());
			if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || ftruncate(fd, 0) || write(fd, t, (size_t)n) != n)
				_exit(1);
			if (write(p[1], &(int){ getpid() }, sizeof(int)) != sizeof(int))
				_exit(1);
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	close(p[1]);
	int got = 0;
	if (read(p[0], &got, sizeof(got)) != sizeof(got))
		got = -1;
	close(p[0]);
	*b = got;
	return got > 0 ? a : -1;
}

static void stale(void)
{
	char state[3 * PATH_MAX], want[64];
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "1", "--isolation", "process", NULL };
	snprintf(state, sizeof(state), "%s/stale-state", dir);
	mkdir(state, 0755);
	pid_t b = -1, a = fake_child(state, &b);
	int rc = a > 0 ? daemon_start(&d, "stale", nul) : -1;
	snprintf(want, sizeof(want), "held by cz-dev0 (pid %d) of cuzkd", (int)b);
	int refused = rc > 0 && log_count(&d, want) == 1 && log_count(&d, "is in use") == 1 &&
		      kill(b, 0) == 0;
	if (rc == 0)
		daemon_stop(&d);
	ct_ok(refused, "a cz-dev0 whose parent is a live cuzkd holds the state directory's cz-dev0.lock: "
	      "cuzkd refuses to start (status %d) naming it, and leaves it alone", rc);
	if (a > 0) {
		kill(a, SIGKILL);       /* B is an orphan now, as after kill -9 of its cuzkd */
		waitpid(a, NULL, 0);
	}
	snprintf(want, sizeof(want), "cz-dev0 (pid %d), a device process of an earlier cuzkd", (int)b);
	rc = b > 0 ? daemon_start(&d, "stale", nul) : -1;
	int cleaned = rc == 0 && log_count(&d, want) == 1 && gone(b) && load_key(&d) &&
		      submit(&d, "st", "normal", 2) && await_done(&d, "st", NULL, 0);
	int pid0 = rc == 0 ? wait_ready(&d, 0, 0) : -1;
	ct_ok(cleaned && pid0 > 0 && daemon_stop(&d) == 0,
	      "the same cz-dev0 %d orphaned: cuzkd kills it, starts, proves a job on its own cz-dev0 %d", (int)b, pid0);
	if (b > 0 && !gone(b))
		kill(b, SIGKILL);
}

/* ---- a two-node plan: each child maps every node's arena ---- */

static void multinode(void)
{
	char topo[4 * PATH_MAX], root[3 * PATH_MAX];
	struct daemon d;
	snprintf(root, sizeof(root), "%s/../..", bindir);
	snprintf(topo, sizeof(topo), "%s/selftests/data/topo_2socket.xml", root);
	const char *cpu[] = { "--backend", "cpu", "--devices", "2", "--device-threads", "1",
			      "--synth-workers", "2", "--topology", topo, "--isolation", "process", NULL };
	int ok = daemon_start(&d, "nodes", cpu) == 0 && load_key(&d);
	/* both devices warm first: one still making its warm-up proof is not
	 * free, and the other node's device would take every partition */
	ok = ok && wait_ready(&d, 0, 0) > 0 && wait_ready(&d, 1, 0) > 0 && wait_warm(&d, 0) && wait_warm(&d, 1);
	char out[4][PATH_MAX], id[4][16];
	for (int i = 0; ok && i < 4; i++) {
		snprintf(id[i], sizeof(id[i]), "m%d", i);
		ok &= submit(&d, id[i], "normal", 3);
	}
	for (int i = 0; ok && i < 4; i++)
		ok &= await_done(&d, id[i], out[i], sizeof(out[i]));
	int verified = ok;
	for (int i = 0; verified && i < 4; i++)
		verified = proofs_verify(&key, out[i], 3);
	/* partitions per node's arena, from status */
	int64_t per[2] = { -1, -1 }, cross = -1;
	json_object *r = ok ? status(&d) : NULL, *pl, *np;
	if (r && json_object_object_get_ex(r, "placement", &pl) &&
	    json_object_object_get_ex(pl, "node_partitions", &np))
		for (size_t i = 0; i < json_object_array_length(np); i++) {
			json_object *o = json_object_array_get_idx(np, i);
			int64_t node = int_of(o, "node");
			if (node == 0 || node == 1)
				per[node] = int_of(o, "partitions");
		}
	if (r && json_object_object_get_ex(r, "placement", &pl))
		cross = int_of(pl, "cross_node");
	json_object_put(r);
	ct_ok(ok && verified && per[0] > 0 && per[1] > 0 && per[0] + per[1] == 12,
	      "cpu, 2 devices on a 2-node plan (--topology, 2 arenas) in process isolation: 4 jobs x 3 "
	      "partitions done, every proof verifies, both nodes' devices proved (%lld + %lld; %lld from "
	      "the other node's arena)", (long long)per[0], (long long)per[1], (long long)cross);
	ct_ok(daemon_stop(&d) == 0, "cuzkd (2-node plan, process isolation) stops with status 0");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-devproc"))
		return 1;
	ct_plan(26);
	if (!mkdtemp(dir) || fixtures_make(&key)) {
		ct_ok(0, "fixtures");
		return ct_exit();
	}
	cpu_kill();
	null_kills();
	faults();
	claim_kills();
	random_kills();
	stale();
	multinode();
	cz_groth16_key_free(&key);
	return e2e_end();
}
