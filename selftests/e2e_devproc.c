/* SPDX-License-Identifier: MIT */
/* Description: --isolation process: kill -9 of cz-dev0 mid-run on the cpu backend (merkle 2^12, 6 jobs x 3 partitions) loses no job (every proof verifies with cuzk's verifier, three with snarkjs, same cuzkd, restarts >= 1, order bound from the trace); on 2 null devices 5 kills of cz-dev1 within 2 s during 10 jobs lose nothing (the 3rd death in 60 s marks it failed, logged once; cuzkctl enables it again), status and trace count the kills, cuzkd's fd count comes back; no child outlives cuzkd, by SIGTERM or SIGKILL; a device that segfaults on purpose has its partition proved on the other device; a partition that segfaults every device fails its job after 2 attempts while the others complete; a child killed (CZ_TEST_DEVKILL) right after a ring hands it a descriptor, or after it records it but before the ring lets go, loses nothing; a child stopped and killed in take_lower holding a peer's partition: it comes back at its own key and is proved once; 24 kills at random moments leave no job unended; the watchdog (issue 24): the only child SIGSTOPped mid-stage is found hung within its bound (status, /readyz not 200, the log), killed and restarted, its partition proved again, every proof verified; device 0 restart answers at once while the child is stopped; a failed device accrues no busy time and an await on it says no device is in service; in thread isolation a hang is reported and clears. */
#include "ctl/ctl.h"
#include "zk/groth16/builtin.h"
#include "zk/io/groth16_io.h"
#include "zk/io/snarkjs_json.h"
#include "selftests/cz_test.h"

/* Under ASan or TSan cuzkd's RSS grows with the sanitizer's own bookkeeping
 * (quarantine, shadow), so the restart test prints RSS but asserts only the
 * descriptors there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif
#define RESTARTS (SANITIZED ? 21 : 101)

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
 * made, snarkjs (tools/fixtures/node_modules) on some, /proc for processes
 * and descriptors, the trace (read as JSON, as e2e_order.c does) for the
 * order bound and for what happened to a partition.  Kills are timed by
 * what status and the trace say (a consumer busy, a new pid ready, a new
 * child's warm-up started), never by wall time.
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
#include "selftests/cz_net.h"
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
		json_object *r = status(d), *cons, *cnt;
		int busy = 0, ended = 0;
		if (r && json_object_object_get_ex(r, "consumers", &cons))
			for (size_t k = 0; k < json_object_array_length(cons); k++) {
				json_object *c = json_object_array_get_idx(cons, k);
				busy |= int_of(c, "device") == dev && !strcmp(str_of(c, "state"), "busy");
			}
		/* every job submitted has ended: nothing left to see it busy with
		 * (on a loaded machine short jobs end between two polls, and the
		 * rest of the 4000 polls only waited) */
		if (r && json_object_object_get_ex(r, "counters", &cnt))
			ended = int_of(cnt, "jobs_done") + int_of(cnt, "jobs_failed") + int_of(cnt, "jobs_cancelled") ==
				int_of(cnt, "jobs_submitted");
		json_object_put(r);
		if (busy)
			return 1;
		if (ended)
			return 0;
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

/* ---- the 2^12 merkle key of the cpu kill (issue 10's size) ---- */

#define LOG2_CPU 12
static struct cz_groth16_key key12;

/* DIR/k12.zkey and DIR/vk12.json (what `cuzk devsetup --builtin merkle
 * --log2 12` makes, here in-process: ~0.5 s of one core, 2-3 s under
 * ASan), witnesses DIR/v0..v3.wtns.  0 or -1. */
static int fixtures12(void)
{
	struct cz_cs cs;
	struct cz_groth16_vk vk;
	cz_fr *w;
	char err[256], p[2 * PATH_MAX];
	if (cz_builtin_build("merkle", LOG2_CPU, 1, &cs, &w, err) || cz_groth16_devsetup(&cs, 12, &key12, NULL))
		return -1;
	snprintf(p, sizeof(p), "%s/k12.zkey", dir);
	int rc = cz_groth16_key_save(&key12, p, err, sizeof(err));
	cz_groth16_vk_from_key(&vk, &key12);
	snprintf(p, sizeof(p), "%s/vk12.json", dir);
	rc = rc ? rc : cz_groth16_vk_json_write(p, &vk, err);
	for (int i = 0; !rc && i < NWTNS; i++) {
		free(w);
		cz_cs_free(&cs);
		if (cz_builtin_build("merkle", LOG2_CPU, 200 + (uint64_t)i, &cs, &w, err))
			return -1;
		snprintf(p, sizeof(p), "%s/v%d.wtns", dir, i);
		rc = cz_wtns_save(p, w, cs.nvars, err, sizeof(err));
	}
	free(w);
	cz_cs_free(&cs);
	return rc;
}

/* A job of circuit k12, n partitions, witnesses DIR/v(i % NWTNS).wtns. */
static int submit12(struct daemon *d, const char *id, int n)
{
	char q[4096];
	int k = snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k12\",\"id\":\"%s\",\"witnesses\":[", id);
	for (int i = 0; i < n; i++)
		k += snprintf(q + k, sizeof(q) - (size_t)k, "%s\"%s/v%d.wtns\"", i ? "," : "", dir, i % NWTNS);
	snprintf(q + k, sizeof(q) - (size_t)k, "]}");
	json_object *r = req(d, q);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok;
}

/* snarkjs (pinned under tools/fixtures/node_modules) on partition k of out
 * against DIR/vk12.json: 1 accepts, 0 not, -1 not installed. */
static int snarkjs_verify12(const char *out, int k)
{
	char cli[3 * PATH_MAX], cmd[8 * PATH_MAX];
	snprintf(cli, sizeof(cli), "%s/tools/fixtures/node_modules/snarkjs/build/cli.cjs", root);
	if (access(cli, R_OK))
		return -1;
	snprintf(cmd, sizeof(cmd), "node %s groth16 verify %s/vk12.json %s/%d.public.json %s/%d.proof.json "
		 "2>&1 | grep -q 'OK'", cli, dir, out, k, out, k);
	return system(cmd) == 0;
}

/* From the trace trace_read() fetched: the (job, partition) that started
 * computing twice (the one cz-dev0 died proving), or -1s. */
static void restarted_part(int64_t *job, int64_t *part)
{
	static struct trace t;
	char p[3 * PATH_MAX], line[1024];
	static int n[MAXP];
	*job = *part = -1;
	memset(&t, 0, sizeof(t));
	memset(n, 0, sizeof(n));
	snprintf(p, sizeof(p), "%s/trace.jsonl", dir);  /* trace_read's dump */
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		if (!strcmp(str_of(e, "ev"), "compute_start") && int_of(e, "job") > 0) {
			struct tpart *tp = tpart_of(&t, int_of(e, "job"), int_of(e, "part"));
			if (tp && ++n[tp - t.p] == 2) {
				*job = tp->seq;
				*part = tp->part;
			}
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
}

/* ---- the cpu backend: kill -9 of cz-dev0 mid-run ---- */

/* Issue 10's size: merkle 2^12, 6 jobs x 3 partitions.  Every proof
 * verified by cuzk's verifier against the key this test made, and three
 * of them by snarkjs (the one cz-dev0 died proving, when the trace shows
 * it, and the first and last); the order bound from the trace. */
static void cpu_kill(void)
{
	static struct trace t;
	static const int prios[6] = { 2, 2, 2, 2, 2, 2 };
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "1", "--synth-workers", "2",
			      "--isolation", "process", NULL };
	char q[3 * PATH_MAX];
	snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k12\",\"zkey\":\"%s/k12.zkey\"}", dir);
	json_object *r = NULL;
	int up = fixtures12() == 0 && daemon_start(&d, "cpu", cpu) == 0 && (r = req(&d, q)) && ok_of(r);
	json_object_put(r);
	if (!ct_ok(up, "cuzkd --isolation process, cpu backend: started, 2^%d merkle key loaded", LOG2_CPU)) {
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
		ok &= submit12(&d, id[i], 3);
	}
	int busy = wait_busy(&d, 0);
	int killed = busy && pid0 > 0 && kill(pid0, SIGKILL) == 0;
	for (int i = 0; i < 6; i++)
		ok &= await_done(&d, id[i], out[i], sizeof(out[i]));
	int verified = ok;
	for (int i = 0; verified && i < 6; i++)
		verified = proofs_verify(&key12, out[i], 3);
	int64_t restarts = dev_field(&d, 0, "restarts", NULL, 0);
	int same = kill(d.pid, 0) == 0 && waitpid(d.pid, NULL, WNOHANG) == 0;
	const struct tpart *wb;
	int worst = trace_read(&d, &t, prios, 6) == 0 && all_started(&t, 18) ? inversions(&t, &wb) : -1;
	int64_t rj, rp;
	int sj = -1, nsj = 0, ri = -1;
	restarted_part(&rj, &rp);
	for (int i = 0; i < t.nj; i++)
		ri = t.seqs[i] == rj ? i : ri;
	/* (job, partition) pairs for snarkjs: the restarted one, the first, the last */
	int sjob[3] = { ri, 0, 5 }, spart[3] = { (int)rp, 0, 2 };
	for (int k = 0; ok && k < 3; k++) {
		if (sjob[k] < 0)
			continue;
		int v = snarkjs_verify12(out[sjob[k]], spart[k]);
		if (v < 0)
			break;
		sj = (sj < 0 ? 1 : sj) & v;
		nsj++;
	}
	ct_ok(killed && ok && verified && same && restarts >= 1 && sj != 0,
	      "kill -9 of cz-dev0 while it proved: all 6 jobs x 3 partitions of 2^%d done, every proof verifies "
	      "(cuzk's verifier: 18; snarkjs: %d%s%s), cuzkd is the same process, restarts %lld >= 1", LOG2_CPU, nsj,
	      sj < 0 ? ", not installed" : "", ri >= 0 ? ", the re-proved one among them" : "", (long long)restarts);
	ct_ok(worst >= 0 && worst <= 2, "the order bound holds across the kill: worst inversion count %d <= 2 consumers", worst);
	int now = (int)dev_field(&d, 0, "pid", NULL, 0);
	ct_ok(daemon_stop(&d) == 0 && now > 0 && gone(now),
	      "cuzkd (cpu, process isolation) stops with status 0, and its restarted cz-dev0 %d with it", now);
}

/* ---- 2 null devices: repeated kills of cz-dev1 ---- */

/* What the trace says of device dev's processes and of the jobs: how many
 * warm-up proofs its consumers started (each new cz-devN makes one before
 * it takes work, engine/pipeline/warmup.c), the first start and the last end of a
 * job's partition (ns, CLOCK_MONOTONIC like the test's own clock). */
struct devtrace {
	int warm_starts;
	int64_t first_start, last_end;
};

static int trace_dev(struct daemon *d, unsigned dev, struct devtrace *dt)
{
	char line[1024];
	*dt = (struct devtrace){ 0, -1, -1 };
	FILE *f = daemon_trace_file(d, "trace3.jsonl");
	if (!f)
		return -1;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev"), *th = str_of(e, "thread");
		int64_t ns = int_of(e, "ns");
		if (!strcmp(ev, "warmup") && int_of(e, "arg") == 1 && !strncmp(th, "consumer ", 9) &&
		    (unsigned)atoi(th + 9) == dev)
			dt->warm_starts++;
		if (!strcmp(ev, "compute_start") && int_of(e, "job") > 0 && (dt->first_start < 0 || ns < dt->first_start))
			dt->first_start = ns;
		if (!strcmp(ev, "compute_end") && int_of(e, "job") > 0 && ns > dt->last_end)
			dt->last_end = ns;
		json_object_put(e);
	}
	if (f)
		fclose(f);
	return f ? 0 : -1;
}

static int64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
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

/* The null backend writes no real proof (gpu/null.c: zero public inputs,
 * a zero proof), so "every proof present and verified" is, here: each of
 * the job's n partitions has its proof and public files, they parse, and
 * they are exactly what the null backend makes (all zero), and proof.bin
 * holds n proofs; a partition lost or written twice over another would
 * not pass. */
static int null_proofs_ok(const char *out, int n)
{
	char err[256], p[PATH_MAX + 64], q[PATH_MAX + 64];
	struct stat st;
	for (int k = 0; k < n; k++) {
		struct cz_groth16_proof pr, zero;
		cz_fr *pub;
		size_t np;
		snprintf(p, sizeof(p), "%.*s/%d.proof.json", PATH_MAX, out, k);
		snprintf(q, sizeof(q), "%.*s/%d.public.json", PATH_MAX, out, k);
		if (cz_proof_json_read(p, &pr, err) || cz_public_json_read(q, &pub, &np, err)) {
			ct_diag("%s partition %d: %s", out, k, err);
			return 0;
		}
		int z = np == key.npub;
		for (size_t i = 0; i < np; i++)
			z &= cz_fr_is_zero(&pub[i]);
		free(pub);
		memset(&zero, 0, sizeof(zero));
		if (!z || memcmp(&pr, &zero, sizeof(pr))) {
			ct_diag("%s partition %d: not the null backend's proof", out, k);
			return 0;
		}
	}
	snprintf(p, sizeof(p), "%.*s/proof.bin", PATH_MAX, out);
	if (stat(p, &st) || st.st_size != 192 * n) {
		ct_diag("%s: %lld bytes, not %d proofs of 192", p, stat(p, &st) ? -1LL : (long long)st.st_size, n);
		return 0;
	}
	return 1;
}

/* Issue 10: "null backend, 2 devices: 5 kills of cz-dev1 in 2 s during 10
 * jobs: all complete".  Its supervision rule marks a device failed at the
 * 3rd death within 60 s, so 5 kills of a restarting child within 2 s can
 * all hit a live cz-dev1 only if an operator enables it again: this test
 * kills it 5 times, the 3rd marks it failed (asserted, with the reason,
 * logged once), `cuzkctl device 1 enable` brings it back (and clears its
 * deaths), and the 4th and 5th kill restarted children.  Each kill comes
 * once the trace shows the child live (the 1st while it proves a job's
 * partition; the others once it started its warm-up proof, which every new
 * child makes before it takes work: ~0.3 s of key setup, so in 2 s a
 * restarted child cannot also be seen proving).  The span of the 5 kills is
 * the test's own stimulus, on its own clock; "during the jobs" is from the
 * trace (a job's partition started before the 1st kill, one ended after
 * the 5th). */
static void null_kills(void)
{
	struct daemon d;
	/* 100 ms a partition: 40 partitions (4 s on device 0 alone) outlast the
	 * kills, which the test makes within 2 s; under a sanitizer, within 4 s
	 * (below), so 200 ms there (8 s) */
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", SANITIZED ? "200" : "100",
			      "--synth-workers", "2", "--isolation", "process", NULL };
	if (!ct_ok(daemon_start(&d, "null", nul) == 0 && load_key(&d), "cuzkd --isolation process, 2 null devices: started")) {
		for (int i = 0; i < 9; i++)
			ct_skip("no daemon", "null kills");
		return;
	}
	int p0 = wait_ready(&d, 0, 0), p1 = wait_ready(&d, 1, 0);
	int warm = wait_warm(&d, 0) && wait_warm(&d, 1);
	int pf0, pf1;
	int fds0 = nfds_settled(d.pid, &pf0);
	ct_ok(p0 > 0 && p1 > 0 && p0 != p1 && warm && comm_is(p1, "cz-dev1"),
	      "two children, cz-dev0 %d and cz-dev1 %d, both warm", p0, p1);
	int ok = 1, njobs = 0;
	char id[14][16], out[14][PATH_MAX];
	for (; njobs < 10; njobs++) {
		snprintf(id[njobs], sizeof(id[njobs]), "n%d", njobs);
		ok &= submit(&d, id[njobs], "normal", 4);
	}
	int kills = 0, pid = p1, failed_at = -1, enabled = 0, failed_pid = -1, busy1 = 0;
	int64_t t_kill[5] = { 0 };
	char st[32], ctl[6 * PATH_MAX];
	struct devtrace dt;
	snprintf(ctl, sizeof(ctl), "%s/cuzkctl --socket %s device 1 enable >/dev/null", bindir, d.sock);
	while (kills < 5 && pid > 0) {
		if (kills == 0) {
			busy1 = wait_busy(&d, 1);
		} else {        /* this child's warm-up start is in the trace */
			for (int i = 0; i < 2000; i++) {
				if (trace_dev(&d, 1, &dt) == 0 && dt.warm_starts >= kills + 1)
					break;
				usleep(2000);
			}
			/* One more job before each later kill, so that work is
			 * left at every kill however slow each child's start is
			 * (ASan at load 14: 5 kills in 10.96 s outlasted the 10
			 * jobs' 8 s on device 0 alone, and "during" failed). */
			snprintf(id[njobs], sizeof(id[njobs]), "n%d", njobs);
			ok &= submit(&d, id[njobs++], "normal", 4);
		}
		if (kill(pid, SIGKILL))
			break;
		t_kill[kills++] = mono_ns();
		int np = wait_ready(&d, 1, pid);
		if (np < 0 && dev_field(&d, 1, "pid", st, sizeof(st)) == 0 && !strcmp(st, "failed")) {
			/* failed: an operator enables it (cuzkctl), once */
			failed_at = kills;
			failed_pid = pid;
			enabled = !enabled && system(ctl) == 0;
			np = enabled ? wait_ready(&d, 1, pid) : -1;
		}
		pid = np;
	}
	int64_t span = kills == 5 ? t_kill[4] - t_kill[0] : -1;
	for (int i = 0; i < njobs; i++)
		ok &= await_done(&d, id[i], out[i], sizeof(out[i]));
	int proofs = ok;
	for (int i = 0; proofs && i < njobs; i++)
		proofs = null_proofs_ok(out[i], 4);
	int during = trace_dev(&d, 1, &dt) == 0 && kills == 5 && dt.first_start >= 0 &&
		     dt.first_start < t_kill[0] && dt.last_end > t_kill[4];
	/* The 2 s.  Under a sanitizer each new child's exec and start
	 * is several times slower and grows with the machine's load (2.34 s
	 * for the five with ASan beside a TSan suite on 2 cores, 4.48 s at a
	 * load of 10, against 0.47 s plain): there the span is only reported,
	 * and the trace's "during the jobs" carries the claim (the kills came
	 * while partitions were still proving).  So too on a plain build when
	 * the machine is busier than its CPUs (1-minute load average above
	 * the CPU count: 2.32 s at a load of 5.8 while other builds ran on 2
	 * cores): the 2 s is the test's stimulus, each kill waiting for the
	 * new child's warm-up, so a slow machine slows the stimulus, not the
	 * daemon's answer to it. */
	double la[1] = { 0 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int loaded = getloadavg(la, 1) == 1 && la[0] > (double)(ncpu > 0 ? ncpu : 1);
	ct_ok(ok && proofs && kills == 5 && busy1 && span >= 0 && (SANITIZED || loaded || span <= 2000000000) &&
	      during,
	      "5 kills of cz-dev1 in %.2f s (the 1st while it proved; load %.1f on %ld CPUs%s) during %d jobs x 4 "
	      "partitions (10, then one before each later kill; the trace: a job's partition started before the "
	      "1st, one ended after the 5th): all done, every proof present and the null backend's",
	      (double)span / 1e9, la[0], ncpu,
	      loaded && span > 2000000000 ? ": over 2 s, allowed on a machine this busy" : "", njobs);
	char why[128];
	snprintf(why, sizeof(why), "device 1 failed: its process died 3 times within 60 s (last: pid %d, signal 9",
		 failed_pid);
	int nfailed = log_count(&d, "device 1 failed:"), nwhy = log_count(&d, why);
	ct_ok(failed_at == 3 && enabled && nfailed == 1 && nwhy == 1 && log_count(&d, "device 1: enable by request") == 1,
	      "the 3rd death within 60 s (kill %d) marked device 1 failed, logged once with the reason "
	      "(\"%s...)\"); cuzkctl device 1 enable brought it back", failed_at, why);
	int64_t restarts = dev_field(&d, 1, "restarts", st, sizeof(st));
	json_object *r = status(&d), *devs;
	char last[64] = "";
	if (r && json_object_object_get_ex(r, "devices", &devs) && json_object_array_length(devs) > 1)
		snprintf(last, sizeof(last), "%s", str_of(json_object_array_get_idx(devs, 1), "last_exit"));
	json_object_put(r);
	/* the log's deaths of device 1 that led to a restart */
	int deaths = 0;
	char line[1024];
	FILE *f = fopen(d.log, "r");
	while (f && fgets(line, sizeof(line), f))
		deaths += strstr(line, "cuzkd: device 1: process ") && strstr(line, " died (signal 9");
	if (f)
		fclose(f);
	/* the last child's warm-up start (it may come after the jobs end) */
	for (int i = 0; i < 1000 && dt.warm_starts < 6; i++) {
		usleep(5000);
		trace_dev(&d, 1, &dt);
	}
	ct_ok(restarts == 5 && !strcmp(st, "ready") && strstr(last, "signal 9") && dt.warm_starts == 6 &&
	      deaths + nfailed == 5,
	      "status and trace agree with the 5 kills: restarts %lld (4 after a death, 1 by enable), state %s, "
	      "last_exit \"%s\"; the trace has %d warm-up proofs of cz-dev1 (the first child and 5 new ones); "
	      "the log %d deaths with a restart and %d failure", (long long)restarts, st, last, dt.warm_starts,
	      deaths, nfailed);
	int np1 = pid;
	int fds1 = nfds_settled(d.pid, &pf1);
	ct_ok(fds0 > 0 && pf0 == 2 && pf1 == 2 && fds1 == fds0,
	      "cuzkd's descriptors (not sockets) after 5 kills and restarts: %d, before %d, pidfds %d then %d "
	      "(nothing leaked)", fds1, fds0, pf0, pf1);
	/* Operators: drain and disable device 0. */
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
	/* Many restarts (an operator's: no death counted): nothing grows.
	 * The 100 (and the first) in the plain build; 20 under a
	 * sanitizer, where each restart's warm-up proof takes seconds and
	 * the run's 600 s ran out. */
	int rounds = 0, pf2 = 0, pf3 = 0, fds2 = -1, fds3 = -1;
	long rss2 = -1, rss3 = -1;
	for (int i = 0; i < RESTARTS; i++) {
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
	ct_ok(rounds == RESTARTS && fds3 == fds2 && pf3 == pf2 && rss3 >= 0 && (SANITIZED || rss3 - rss2 <= 1024),
	      "%d restarts of device 1 (device 1 restart): each a new ready process; cuzkd's descriptors "
	      "%d -> %d, RSS %ld -> %ld KiB after the first and the last %d", RESTARTS, fds2, fds3, rss2, rss3,
	      RESTARTS - 1);
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
	char line[1024];
	static struct { int64_t seq, part; int dev; } first[MAXP];
	int nf = 0, found = 0;
	FILE *f = daemon_trace_file(d, "trace2.jsonl");
	if (!f)
		return 0;
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
	/* Both devices warm first: under a sanitizer cz-dev1's warm-up proof
	 * outlasted all 12 partitions, so it never made the 3rd prove. */
	int ok = daemon_start(&d, "fault", nth) == 0 && load_key(&d) && daemon_wait_warm(&d);
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

/* CZ_TEST_DEVKILL: cz-dev1 raises SIGKILL right after the ring hands it a
 * descriptor on its 2nd claim (before holds[] names it: the old window),
 * and after holds[0] names it but before the ring slot is freed on its
 * 4th; cz-dev0 in the first window on its 3rd.  Batches of jobs run until
 * all three kills happened; every job ends done. */
static void CZ_DAEMON_CHILD_KILLS(void)
{
	setenv("CZ_TEST_DEVKILL", "1:claim:2,1:held:4,0:claim:3", 1);
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
	    c3 = log_count(&d, "test kill at claim #3");
	ct_ok(ok && c2 == 1 && h4 == 1 && c3 == 1,
	      "kills between a consumer's dequeue and its record (cz-dev1 claim #2, cz-dev0 claim #3) "
	      "and between the record and the ring's release (cz-dev1 #4): all %d jobs x 3 partitions "
	      "done in %d batches (kills seen: %d %d %d)", jobs, batches, c2, h4, c3);
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

/* ---- take_lower's take: a child killed holding a peer's partition ---- */

/* /proc/PID/stat's state letter, or 0. */
static char proc_state(int pid)
{
	char p[64], line[512], st = 0;
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	FILE *f = fopen(p, "r");
	if (f && fgets(line, sizeof(line), f)) {
		char *r = strrchr(line, ')');
		if (!r || sscanf(r + 1, " %c", &st) != 1)
			st = 0;
	}
	if (f)
		fclose(f);
	return st;
}

static void CZ_DAEMON_CHILD_LOWER(void)
{
	setenv("CZ_TEST_DEVKILL", "0:lower:1:stop", 1);
}

/* What the trace says of partition (seq, part) after kill_ns: its job's
 * priority (the submit event's arg), when it came back from consumer
 * `from`'s ring (the first reclaim of it from there after the kill: the
 * supervisor's recovery), how many partitions with a higher key started
 * after it had been back GRACE_NS and before it started (cz_trace.h's
 * inversion, for this partition), and its compute starts and ends over
 * the whole run. */
struct lowtrace {
	int64_t prio, back_ns, start_ns;
	int overtaken, starts, ends;
};

static int trace_lower(struct daemon *d, uint64_t seq, unsigned part, unsigned from, int64_t kill_ns,
		       struct lowtrace *lt)
{
	char line[1024];
	static struct { int64_t seq, prio; } sub[MAXJ];
	static struct { int64_t ns, seq, part; } cs[MAXP];
	int nsub = 0, ncs = 0;
	*lt = (struct lowtrace){ .prio = -1, .back_ns = -1, .start_ns = -1 };
	FILE *f = daemon_trace_file(d, "trace4.jsonl");
	if (!f)
		return -1;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t ns = int_of(e, "ns"), j = int_of(e, "job"), pt = int_of(e, "part");
		int me = j == (int64_t)seq && pt == (int64_t)part;
		if (!strcmp(ev, "submit") && nsub < MAXJ) {
			sub[nsub++] = (typeof(sub[0])){ j, int_of(e, "arg") };
		} else if (!strcmp(ev, "reclaim") && me && ns > kill_ns && int_of(e, "unit") == from) {
			if (lt->back_ns < 0 || ns < lt->back_ns)
				lt->back_ns = ns;
		} else if (!strcmp(ev, "compute_start") && j > 0) {
			if (ncs < MAXP)
				cs[ncs++] = (typeof(cs[0])){ ns, j, pt };
			if (me) {
				lt->starts++;
				lt->start_ns = ns;
			}
		} else if (!strcmp(ev, "compute_end") && me) {
			lt->ends++;
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	for (int i = 0; i < nsub; i++)
		if (sub[i].seq == (int64_t)seq)
			lt->prio = sub[i].prio;
	for (int i = 0; lt->back_ns >= 0 && lt->start_ns >= 0 && i < ncs; i++) {
		int64_t pr = -1;
		for (int k = 0; k < nsub; k++)
			pr = sub[k].seq == cs[i].seq ? sub[k].prio : pr;
		/* cz_trace.h's order: priority, then job, then partition */
		struct tpart a = { .seq = cs[i].seq, .part = cs[i].part, .prio = (int)pr },
			     b = { .seq = (int64_t)seq, .part = part, .prio = (int)lt->prio };
		lt->overtaken += cs[i].ns >= lt->back_ns + GRACE_NS && cs[i].ns < lt->start_ns && key_cmp(&a, &b) > 0;
	}
	return f ? 0 : -1;
}

/* The take in take_lower (engine/pipeline/order.c): a consumer that holds the device
 * takes a lower key a peer holds but has not started (a peer not being
 * scheduled), and until holds[1] names it, the peer's ring slot is
 * claimed in the taker's name.  Made to happen, not hoped for: the test
 * stops cz-dev1 (SIGSTOP: its consumers hold what the order thread gives
 * them and never claim it, as threads not scheduled for a while), so
 * cz-dev0 soon claims a key above one cz-dev1 holds; CZ_TEST_DEVKILL=
 * 0:lower:1:stop makes cz-dev0 log that take and stop itself right there;
 * the test kills it (kill -9) and lets cz-dev1 go on.  The partition must
 * come back to the ready set at its own key (the supervisor's ring
 * recovery, engine/device/devproc.c), be given out before any higher key, be
 * proved once, and its job complete. */
static void lower_kill(void)
{
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
			      "--synth-workers", "2", "--isolation", "process", NULL };
	child_setup = CZ_DAEMON_CHILD_LOWER;
	int up = daemon_start(&d, "lower", nul) == 0 && load_key(&d);
	child_setup = NULL;
	int p0 = up ? wait_ready(&d, 0, 0) : -1, p1 = up ? wait_ready(&d, 1, 0) : -1;
	up = up && p0 > 0 && p1 > 0 && wait_warm(&d, 0) && wait_warm(&d, 1);
	if (!ct_ok(up, "cuzkd --isolation process, 2 null devices, CZ_TEST_DEVKILL=0:lower:1:stop: started, both warm")) {
		for (int i = 0; i < 3; i++)
			ct_skip("no daemon", "take_lower kill");
		return;
	}
	kill(p1, SIGSTOP);
	for (int i = 0; i < 300 && proc_state(p1) != 'T'; i++)
		usleep(10000);
	int stopped1 = proc_state(p1) == 'T';
	const char *mark = "cz-dev0: test stop at lower #1: ";
	int jobs = 0, hit = 0;
	char id[16];
	while (stopped1 && !hit && jobs < 8) {
		snprintf(id, sizeof(id), "L%d", jobs++);
		if (!submit(&d, id, "normal", 6))
			break;
		for (int i = 0; i < 300 && !(hit = log_count(&d, mark)); i++)
			usleep(10000);
	}
	/* the partition cz-dev0 stopped holding, from its log line */
	unsigned c = 0, o = 0, part = 0, prio = 0;
	unsigned long long seq = 0;
	char line[1024];
	FILE *f = fopen(d.log, "r");
	while (hit && f && fgets(line, sizeof(line), f)) {
		char *m = strstr(line, mark);
		if (m && sscanf(m + strlen(mark), "consumer %u holds job %llu partition %u (priority %u) from consumer %u's",
				&c, &seq, &part, &prio, &o) == 5)
			break;
	}
	if (f)
		fclose(f);
	for (int i = 0; i < 300 && hit && proc_state(p0) != 'T'; i++)
		usleep(10000);
	int stopped0 = hit && proc_state(p0) == 'T';
	/* read before the kill: the daemon may hand the partition back (its
	 * reclaim event) before this thread runs again after kill(), and a
	 * clock read after it then said "back before the kill" (check at a
	 * load of 10) */
	int64_t kill_ns = mono_ns();
	int killed = stopped0 && kill(p0, SIGKILL) == 0;
	kill(p1, SIGCONT);
	ct_ok(stopped1 && stopped0 && killed && c % 2 == 0 && o != c && log_count(&d, mark) == 1,
	      "cz-dev1 stopped (SIGSTOP): during job %d of at most 8, cz-dev0's consumer %u took job %llu partition %u from consumer "
	      "%u's ring (take_lower), stopped there (CZ_TEST_DEVKILL :stop, state T), kill -9 of it",
	      jobs, c, seq, part, o);
	int ok = 1, proofs = 1;
	for (int i = 0; i < jobs; i++) {
		char out[PATH_MAX];
		snprintf(id, sizeof(id), "L%d", i);
		ok &= await_done(&d, id, out, sizeof(out));
		proofs &= ok && null_proofs_ok(out, 6);
	}
	struct lowtrace lt = { .back_ns = -1 };
	int tr = killed && trace_lower(&d, seq, part, o, kill_ns, &lt) == 0;
	/* Once it is back, only a partition a live consumer already held may
	 * start before it (one per consumer, the order bound): cz-dev1's other
	 * consumer's; cz-dev0's new process takes nothing before its warm-up. */
	ct_diag("take_lower kill: trace read %d, back %.3f ms after the kill, awaits ok %d, proofs ok %d", tr,
		tr && lt.back_ns >= 0 ? (double)(lt.back_ns - kill_ns) / 1e6 : -1.0, ok, proofs);
	ct_ok(tr && lt.prio == (int64_t)prio && lt.back_ns > kill_ns && lt.overtaken <= 1 &&
	      lt.starts == 1 && lt.ends == 1 && ok && proofs,
	      "after the kill, job %llu partition %u came back to the ready set from consumer %u's ring at its "
	      "own key (priority %lld as submitted), %d higher key(s) started before it (<= 1: the one cz-dev1's "
	      "other consumer held), it started and ended once (%d, %d); all %d job(s) done, every proof present and the null backend's",
	      seq, part, o, tr ? (long long)lt.prio : -1LL, tr ? lt.overtaken : -1, tr ? lt.starts : -1,
	      tr ? lt.ends : -1, jobs);
	int np0 = wait_ready(&d, 0, p0);
	ct_ok(np0 > 0 && dev_field(&d, 0, "restarts", NULL, 0) == 1 && daemon_stop(&d) == 0,
	      "device 0 back as process %d (restarts 1); cuzkd stops with status 0", np0);
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
	/* Under a sanitizer a round's 12 partitions of 1 ms were done before
	 * a status (tens of ms there) could see a device busy, and each of up
	 * to 60 tries waited out wait_busy's 4000 polls: past the runner's
	 * 600 s.  There they take 20 ms: a device is seen busy at once. */
	const char *ms = SANITIZED ? "20" : "1";
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", ms,
			      "--synth-workers", "2", "--isolation", "process", NULL };
	if (!ct_ok(daemon_start(&d, "randkill", nul) == 0 && load_key(&d),
		   "cuzkd --isolation process, 2 null devices, %s ms partitions: started", ms)) {
		ct_skip("no daemon", "random kills");
		return;
	}
	uint64_t rng = 0x6b696c6cull;
	int pid[2] = { wait_ready(&d, 0, 0), wait_ready(&d, 1, 0) };
	int ok = pid[0] > 0 && pid[1] > 0, kills = 0, njobs = 0;
	char id[16];
	for (int k = 0; ok && kills < KILLS && k < 60; k++) {   /* a slow run misses some */
		unsigned dev = (unsigned)(ct_splitmix64(&rng) & 1);
		/* A device still proving its warm-up takes no partitions: under a
		 * sanitizer (seconds of warm-up) the round's jobs were all done
		 * by the other one, and wait_busy polled out its 4000 tries. */
		wait_warm(&d, dev);
		for (int i = 0; i < 3; i++) {
			snprintf(id, sizeof(id), "r%d", njobs++);
			ok &= submit(&d, id, "normal", 4);
		}
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

/* ---- issue 24: the device watchdog ---- */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* GET path from 127.0.0.1:port: the HTTP status, or -1. */
static int http_code(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0), code = -1;
	char b[512];
	if (fd < 0)
		return -1;
	int n = snprintf(b, sizeof(b), "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n", path);
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a)) && write(fd, b, (size_t)n) == n) {
		ssize_t k = read(fd, b, sizeof(b) - 1);
		b[k > 0 ? k : 0] = 0;
		if (sscanf(b, "HTTP/1.%*d %d", &code) != 1)
			code = -1;
	}
	close(fd);
	return code;
}

/* Stops device dev's process pid while one of its consumers is in the
 * device stage, as status (its lines, frozen with it) says: 1, or 0. */
static int stop_busy(struct daemon *d, unsigned dev, int pid)
{
	for (int i = 0; i < 50; i++) {
		if (!wait_busy(d, dev) || kill(pid, SIGSTOP))
			return 0;
		usleep(20000);          /* the stop has landed */
		if (wait_busy(d, dev) && proc_state(pid) == 'T')
			return 1;
		kill(pid, SIGCONT);     /* stopped between two stages: again */
	}
	return 0;
}

/* Sum of the "accounting"."attempts" of job id's await answer, or -1. */
static int64_t attempts_of(struct daemon *d, const char *id)
{
	json_object *r = daemon_await(d, id, 60), *a;
	int64_t v = ok_of(r) && json_object_object_get_ex(r, "accounting", &a) ? int_of(a, "attempts") : -1;
	json_object_put(r);
	return v;
}

/* The only device child SIGSTOPped mid-stage (a stuck kernel or driver
 * call): the watchdog finds it within its bound (status and /metrics say
 * hung, /readyz is not 200, one log line names the device and the stage),
 * kills it; the supervisor restarts it, the partitions it held are proved
 * again, every job completes and every proof verifies. */
static void hang_stop(void)
{
	struct daemon d;
	int port = free_port();
	char listen[32], q[3 * PATH_MAX];
	const char *floor = SANITIZED ? "6000" : "1500";
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	const char *args[] = { "--backend", "cpu", "--device-threads", "1", "--synth-workers", "2",
			       "--isolation", "process", "--watchdog-factor", "4", "--watchdog-floor-ms", floor,
			       "--metrics-listen", listen, NULL };
	snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k12\",\"zkey\":\"%s/k12.zkey\"}", dir);
	json_object *r = NULL;
	int up = port > 0 && daemon_start(&d, "hang", args) == 0 && (r = req(&d, q)) && ok_of(r);
	json_object_put(r);
	int pid0 = up ? wait_ready(&d, 0, 0) : -1;
	if (!ct_ok(up && pid0 > 0 && wait_warm(&d, 0), "cuzkd, cpu backend, 1 device, --watchdog-factor 4 "
		   "--watchdog-floor-ms %s: started, 2^%d key loaded, warm", floor, LOG2_CPU)) {
		skip_n(4, "no daemon");
		if (up)
			daemon_stop(&d);
		return;
	}
	/* 8 stages measured: the circuit's bound is max(4 x p99, floor) */
	char out[3][PATH_MAX];
	int ok = submit12(&d, "h0", 8) && await_done(&d, "h0", out[0], sizeof(out[0]));
	ok &= submit12(&d, "h1", 4) && submit12(&d, "h2", 4);
	int stopped = ok && stop_busy(&d, 0, pid0);
	int64_t hangs = -1, age = -1, bound = -1;
	int seen_hung = 0, rz = -1, rz_hung = 0;
	char st[32] = "";
	for (int i = 0; stopped && i < 6000; i++) {     /* 60 s: the bound is far less */
		json_object *s = status(&d), *devs;
		if (s && json_object_object_get_ex(s, "devices", &devs) && json_object_array_length(devs) > 0) {
			json_object *o = json_object_array_get_idx(devs, 0);
			hangs = int_of(o, "hangs");
			age = int_of(o, "hung_age_ms");
			bound = int_of(o, "hung_bound_ms");
			snprintf(st, sizeof(st), "%s", str_of(o, "state"));
		}
		json_object_put(s);
		if (hangs >= 1) {
			seen_hung = !strcmp(st, "hung");
			rz = http_code(port, "/readyz");
			rz_hung = seen_hung;
			break;
		}
		usleep(10000);
	}
	if (stopped && hangs < 1)
		kill(pid0, SIGCONT);    /* never found: let the jobs end */
	int logged = log_count(&d, "cuzkd: device 0 hung: consumer") >= 1 && log_count(&d, "in the device stage of job") >= 1;
	/* found within bound + the watchdog's 50 ms tick, with 1 s for a
	 * loaded machine's scheduling of its thread */
	ct_ok(stopped && hangs == 1 && bound >= atoi(floor) && age > bound && age <= bound + 1000 && logged,
	      "cz-dev0 stopped mid-stage: the watchdog found it (hangs %lld) after %lld ms, its bound %lld ms "
	      "(>= the floor %s; found within bound + 1 s), logged naming the device and the stage",
	      (long long)hangs, (long long)age, (long long)bound, floor);
	ct_ok(rz >= 0 && rz != 200, "while it is hung (status state %s%s) /readyz answers %d, not 200",
	      st, rz_hung ? "" : ", already restarting", rz);
	int pid1 = wait_ready(&d, 0, pid0);
	ok &= await_done(&d, "h1", out[1], sizeof(out[1])) && await_done(&d, "h2", out[2], sizeof(out[2]));
	int64_t tries = attempts_of(&d, "h1") + attempts_of(&d, "h2");
	int verified = ok && proofs_verify(&key12, out[0], 8) && proofs_verify(&key12, out[1], 4) &&
		       proofs_verify(&key12, out[2], 4);
	ct_ok(pid1 > 0 && pid1 != pid0 && gone(pid0) && ok && verified && tries > 8,
	      "it was killed (pid %d gone) and restarted (pid %d); the partition it held was proved again "
	      "(%lld hand-outs for 8 partitions); all 3 jobs done, all 16 proofs verify", pid0, pid1,
	      (long long)tries);
	int rz2 = -1;
	for (int i = 0; i < 3000 && (rz2 = http_code(port, "/readyz")) != 200; i++)
		usleep(10000);
	int64_t hung_after = dev_field(&d, 0, "hung", NULL, 0);
	ct_ok(rz2 == 200 && hung_after == 0 && daemon_stop(&d) == 0,
	      "once its new process is warm: /readyz 200 again, status hung false; cuzkd stops with 0");
}

/* `cuzkctl device 0 restart` while cz-dev0 is stopped mid-stage (no
 * watchdog): the request answers at once, "restarting", and status says
 * so until the new process is ready; nothing is lost. */
static void restart_stopped(void)
{
	struct daemon d;
	const char *args[] = { "--backend", "null", "--null-delay-ms", "200", "--isolation", "process",
			       "--watchdog-factor", "0", NULL };
	int up = daemon_start(&d, "rstop", args) == 0 && load_key(&d);
	int pid0 = up ? wait_ready(&d, 0, 0) : -1;
	if (!ct_ok(up && pid0 > 0, "cuzkd, null backend, 1 device, --watchdog-factor 0: started")) {
		skip_n(1, "no daemon");
		if (up)
			daemon_stop(&d);
		return;
	}
	int ok = submit(&d, "r0", "normal", 4) && submit(&d, "r1", "normal", 4);
	int stopped = ok && stop_busy(&d, 0, pid0);
	json_object *r = stopped ? req(&d, "{\"op\":\"device\",\"device\":0,\"action\":\"restart\"}") : NULL;
	char ans[32], st[32];
	snprintf(ans, sizeof(ans), "%s", str_of(r, "state"));
	int rok = ok_of(r);
	json_object_put(r);
	dev_field(&d, 0, "pid", st, sizeof(st));
	int still = proc_state(pid0) == 'T';
	kill(pid0, SIGCONT);
	int pid1 = wait_ready(&d, 0, pid0);
	char out[2][PATH_MAX];
	ok &= await_done(&d, "r0", out[0], sizeof(out[0])) && await_done(&d, "r1", out[1], sizeof(out[1]));
	ok &= null_proofs_ok(out[0], 4) && null_proofs_ok(out[1], 4);
	int stop = daemon_stop(&d);
	ct_ok(stopped && rok && !strcmp(ans, "restarting") && !strcmp(st, "restarting") && still && pid1 > 0 &&
	      pid1 != pid0 && ok && stop == 0,
	      "device 0 restart with cz-dev0 stopped: answered \"%s\" while it was still stopped, status \"%s\"; "
	      "once let go, drained and restarted (pid %d -> %d); both jobs complete", ans, st, pid0, pid1);
}

/* The only device fails (3 deaths in 60 s, each mid-stage): from then on
 * its since_start busy time stays as it was while its window grows. */
static void failed_busy(void)
{
	struct daemon d;
	const char *args[] = { "--backend", "null", "--null-delay-ms", "400", "--isolation", "process", NULL };
	int up = daemon_start(&d, "fbusy", args) == 0 && load_key(&d);
	int pid = up ? wait_ready(&d, 0, 0) : -1;
	if (!ct_ok(up && pid > 0, "cuzkd, null backend, 1 device: started")) {
		skip_n(2, "no daemon");
		if (up)
			daemon_stop(&d);
		return;
	}
	/* some busy time first; then jobs apart: a partition on a process
	 * that died twice fails its job */
	int ok = submit(&d, "fw", "normal", 2) && await_done(&d, "fw", NULL, 0);
	ok &= submit(&d, "f0", "normal", 10) && submit(&d, "f1", "normal", 10) && submit(&d, "f2", "normal", 10) &&
		 submit(&d, "f3", "normal", 10);
	for (int k = 0; ok && k < 3; k++) {
		ok = wait_busy(&d, 0) && kill(pid, SIGKILL) == 0;
		if (ok && k < 2)
			ok = (pid = wait_ready(&d, 0, pid)) > 0;
	}
	char st[32] = "";
	for (int i = 0; ok && i < 1000 && strcmp(st, "failed"); i++) {
		dev_field(&d, 0, "pid", st, sizeof(st));
		usleep(10000);
	}
	double b[2] = { -1, -1 }, w[2] = { -1, -1 };
	for (int k = 0; ok && k < 2; k++) {
		if (k)
			usleep(1500000);        /* the daemon's own window says how long */
		json_object *s = status(&d), *devs, *o, *ss, *v;
		if (s && json_object_object_get_ex(s, "devices", &devs) && json_object_array_length(devs) > 0 &&
		    (o = json_object_array_get_idx(devs, 0)) && json_object_object_get_ex(o, "since_start", &ss)) {
			if (json_object_object_get_ex(ss, "busy_ms", &v))
				b[k] = json_object_get_double(v);
			if (json_object_object_get_ex(ss, "window_ms", &v))
				w[k] = json_object_get_double(v);
		}
		json_object_put(s);
	}
	if (!ok)
		ct_diag("3 deaths mid-stage: not reached (state %s)", st);
	ct_ok(ok && !strcmp(st, "failed") && w[1] - w[0] >= 1000 && b[0] >= 700 && b[1] - b[0] < 1,
	      "a failed device (3 deaths mid-stage) accrues no busy time: busy %.1f -> %.1f ms while its window "
	      "grew %.0f ms", b[0], b[1], w[1] - w[0]);
	/* a client waiting on the only device, failed, is told so */
	json_object *r = ok ? daemon_await(&d, "f3", 1) : NULL;
	char ns[256];
	snprintf(ns, sizeof(ns), "%s", str_of(r, "not_serving"));
	int told = r && !ok_of(r) && !strcmp(str_of(r, "state"), "active") && strstr(ns, "no device in service") &&
		   strstr(str_of(r, "error"), ns);
	json_object_put(r);
	ct_ok(told, "await of a job with the only device failed: timed out saying \"%s\"", ns);
	daemon_stop(&d);
}

/* A failed only device is tried again after --device-retry-ms (here 2 s,
 * against the default minute) and comes back: an await meanwhile is told
 * no device is in service, and the job then completes. */
static void failed_retry(void)
{
	struct daemon d;
	const char *args[] = { "--backend", "null", "--null-delay-ms", "50", "--isolation", "process",
			       "--device-retry-ms", "2000", NULL };
	int up = daemon_start(&d, "fretry", args) == 0 && load_key(&d);
	int pid = up ? wait_ready(&d, 0, 0) : -1, deaths = 0;
	/* three deaths within 60 s, the device idle: failed */
	for (int k = 0; pid > 0 && k < 3; k++) {
		if (kill(pid, SIGKILL))
			break;
		deaths++;
		if (k < 2)
			pid = wait_ready(&d, 0, pid);
	}
	char st[32] = "";
	for (int i = 0; deaths == 3 && i < 1000 && strcmp(st, "failed"); i++) {
		dev_field(&d, 0, "pid", st, sizeof(st));
		usleep(5000);
	}
	int failed = !strcmp(st, "failed");
	int sub = failed && submit(&d, "fr", "normal", 2);
	json_object *r = sub ? daemon_await(&d, "fr", 1) : NULL;
	char ns[256];
	snprintf(ns, sizeof(ns), "%s", str_of(r, "not_serving"));
	int told = r && !ok_of(r) && strstr(ns, "no device in service") != NULL;
	json_object_put(r);
	int said = log_count(&d, "device 0 failed: its process died 3 times within 60 s") == 1 &&
		   log_count(&d, "tried again in 2.0 s") == 1;
	ct_ok(up && deaths == 3 && failed && sub && told && said,
	      "the only device killed 3 times is failed, logged with its retry in 2.0 s (--device-retry-ms 2000); "
	      "an await on a job meanwhile is told \"%s\"", ns);
	/* tried again: a new child, ready, and the job done */
	int back = -1;
	for (int i = 0; failed && back < 0 && i < 6000; i++) {   /* 60 s at most; the daemon says 2 */
		int p = (int)dev_field(&d, 0, "pid", st, sizeof(st));
		if (p > 0 && p != pid && !strcmp(st, "ready"))
			back = p;
		else
			usleep(10000);
	}
	int done = back > 0 && await_done(&d, "fr", NULL, 0);
	ct_ok(back > 0 && done && log_count(&d, "device 0: trying its failed process again") == 1,
	      "the failed device is tried again once, comes back (pid %d) and the waiting job completes", back);
	if (up)
		daemon_stop(&d);
}

/* Thread isolation: a stage over its bound is found and reported (status
 * hung, the log says it cannot be killed), and clears when it returns. */
static void thread_hang(void)
{
	struct daemon d;
	const char *args[] = { "--backend", "null", "--null-delay-ms", SANITIZED ? "8000" : "3000",
			       "--isolation", "thread", "--watchdog-factor", "4", "--watchdog-floor-ms",
			       SANITIZED ? "1000" : "400", NULL };
	int up = daemon_start(&d, "thang", args) == 0 && load_key(&d);
	int ok = up && submit(&d, "t0", "normal", 1);
	char st[32] = "";
	int hung = 0;
	for (int i = 0; ok && i < 3000 && !hung; i++) {
		dev_field(&d, 0, "pid", st, sizeof(st));
		hung = !strcmp(st, "hung");
		usleep(10000);
	}
	char out[PATH_MAX];
	int done = ok && await_done(&d, "t0", out, sizeof(out));
	int64_t after = dev_field(&d, 0, "hung", NULL, 0);
	for (int i = 0; done && after != 0 && i < 1000; i++) {    /* the watchdog's next look (50 ms) */
		usleep(10000);
		after = dev_field(&d, 0, "hung", NULL, 0);
	}
	int l1 = log_count(&d, "cannot be killed"), l2 = log_count(&d, "no longer hung");
	int stop = up ? daemon_stop(&d) : -1;
	ct_diag("thread hang: up %d ok %d hung %d (state %s) done %d hung after %lld, log lines %d %d, stop %d", up,
		ok, hung, st, done, (long long)after, l1, l2, stop);
	ct_ok(hung && done && after == 0 && l1 >= 1 && l2 >= 1 && stop == 0,
	      "--isolation thread: a stage over its bound (unmeasured: 4 x floor) shows \"hung\" and is logged "
	      "as not killable; when it returns the device is not hung and the job is done");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-devproc"))
		return 1;
	ct_plan(43);
	if (!mkdtemp(dir) || fixtures_make(&key)) {
		ct_ok(0, "fixtures");
		return ct_exit();
	}
	cpu_kill();
	hang_stop();
	restart_stopped();
	failed_busy();
	failed_retry();
	thread_hang();
	null_kills();
	faults();
	claim_kills();
	lower_kill();
	random_kills();
	stale();
	multinode();
	cz_groth16_key_free(&key);
	cz_groth16_key_free(&key12);
	return e2e_end();
}
