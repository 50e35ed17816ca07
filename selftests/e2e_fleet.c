/* SPDX-License-Identifier: MIT */
/*
 * Description: a fleet of three real cuzkd (`--fleet`) on one PostgreSQL
 * job table (selftests/cz_pg.h starts the server): jobs of mixed
 * priorities from several clients, submitted to and awaited through
 * different members, every partition done exactly once (a plain SELECT on
 * the test's own connection) and every proof verifying (`cuzk verify`
 * against the fixtures' key); the fleet-wide claim order from the nodes'
 * merged traces within the bound (the fleet's consumers); one node
 * kill -9'ed and one SIGSTOPped past its lease mid-run: nothing lost, done
 * once; the database restarted mid-run; status's "fleet" section;
 * --fleet-notify off, and auto against a database whose pg_notify raises
 * (phase 7); a circom input submitted with cuzkctl --fleet proved by a
 * member and verified by snarkjs (phase 8); a real network split: five
 * members, one in its own network namespace reaching the server over a
 * veth pair whose link is set down and up again (phase 9; skipped with
 * the reason where namespaces cannot be made).  Skips when the server
 * binaries or libpq are missing.
 */
#define NWTNS 8
#define _GNU_SOURCE             /* setns */
#include <sched.h>
static const char *child_preload;       /* LD_PRELOAD for the next daemon_start(), NULL: none */
static const char *child_netns;         /* /run/netns/NAME for the next daemon_start(), NULL: none */
static void child_setup(void);
#define CZ_DAEMON_CHILD child_setup
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1     /* a sanitizer's runtime must be the first library: no shim */
#else
#define SANITIZED 0
#endif

#ifndef CZ_HAVE_LIBPQ
int main(void)
{
	ct_plan(1);
	ct_skip("built without libpq (libpq-dev)", "fleet");
	return ct_exit();
}
#else

#include "selftests/cz_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define NODES 3
#define NODES_MAX 6             /* phase 9 and the benchmark's 1..6 nodes */
#define SLOWSYNC_MS 400         /* phase 4: every fsync and fdatasync of the node this much slower */
#define CONS_PER_NODE 2         /* --consumers-per-device, one device a node */
#define LEASE_MS 1500

static struct cz_pg pg;
static char conn[PATH_MAX + 64];
static PGconn *oracle;
static struct daemon nd[NODES_MAX];
static int64_t node_id[NODES_MAX];

static void child_setup(void)
{
	if (child_netns) {      /* phase 9: this member's network is its own namespace's */
		int fd = open(child_netns, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
			_exit(125);
		close(fd);
	}
	if (child_preload) {
		setenv("LD_PRELOAD", child_preload, 1);
		setenv("CZ_SLOWSYNC_MS", fmt("%d", SLOWSYNC_MS), 1);
	}
}

static long long ask(const char *sql)
{
	PGresult *r = PQexec(oracle, sql);
	long long v = -1;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		v = atoll(PQgetvalue(r, 0, 0));
	else if (PQresultStatus(r) != PGRES_TUPLES_OK)
		ct_diag("%s: %s", sql, PQerrorMessage(oracle));
	PQclear(r);
	return v;
}

static int64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const char *node_metrics;       /* --metrics-listen for the next node_start(), NULL: none */

static const char *node_conn;          /* --fleet for the next node_start(), NULL: conn */
static const char *node_notify;        /* --fleet-notify for the next node_start(), NULL: the default */

static int node_start(int i, const char *name, const char *backend, const char *delay)
{
	const char *extra[32] = { "--backend", backend, "--isolation", "thread", "--device-threads", "1",
				  "--consumers-per-device", "2", "--null-delay-ms", delay, "--load",
				  fmt("k=%s/k.zkey", dir), "--fleet", node_conn ? node_conn : conn, "--fleet-lease-ms", "1500",
				  "--fleet-timeout-ms", "2000" };
	int n = 18;
	if (node_metrics) {
		extra[n++] = "--metrics-listen";
		extra[n++] = node_metrics;
	}
	if (node_notify) {
		extra[n++] = "--fleet-notify";
		extra[n++] = node_notify;
	}
	extra[n] = NULL;
	if (daemon_start(&nd[i], name, extra))
		return -1;
	json_object *r = daemon_req(&nd[i], "{\"op\":\"status\"}", NULL, 0), *f, *me;
	node_id[i] = json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me) ?
		     int_of(me, "node") : -1;
	json_object_put(r);
	return node_id[i] > 0 ? 0 : -1;
}

static void nodes_stop(void)
{
	for (int i = 0; i < NODES_MAX; i++)
		if (nd[i].pid > 0) {
			kill(nd[i].pid, SIGCONT);
			daemon_stop(&nd[i]);
			nd[i].pid = 0;
		}
}

/* The first line a command prints (a buffer of fmt's). */
static const char *cmd_out(const char *cmd)
{
	static char buf[1 << 16];
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
	buf[n] = 0;
	if (p)
		pclose(p);
	return buf;
}

/* A node's device 0 idle time since start for cause (status). */
static double idle_ms(struct daemon *d, const char *cause)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *devs, *v;
	double ms = 0;
	if (json_object_object_get_ex(r, "devices", &devs) && json_object_array_length(devs) > 0) {
		json_object *ss = json_object_object_get(json_object_array_get_idx(devs, 0), "since_start");
		json_object *by = json_object_object_get(ss, "idle_by_cause_ms");
		if (json_object_object_get_ex(by, cause, &v))
			ms = json_object_get_double(v);
	}
	json_object_put(r);
	return ms;
}

/* ---- phase 1: clients, mixed priorities, order, proofs ---- */

#define CLIENTS 3
#define JOBS_PER_CLIENT 6
#define NJOBS (CLIENTS * JOBS_PER_CLIENT)

struct job {
	char id[32];
	int nparts, prio;
	uint64_t seq;
	int64_t acked;          /* CLOCK_MONOTONIC when submit answered */
	int ok;
};
static struct job jobs[NJOBS];
static const char *const prios[] = { "critical", "high", "normal", "low" };

static void *client(void *arg)
{
	int c = (int)(intptr_t)arg;
	for (int k = 0; k < JOBS_PER_CLIENT; k++) {
		struct job *j = &jobs[c * JOBS_PER_CLIENT + k];
		snprintf(j->id, sizeof j->id, "%s-c%d-j%d", (const char *)"p1", c, k);
		j->nparts = 1 + (c + k) % 4;
		j->prio = (c * 7 + k * 3) % 4;
		char q[8192];
		snprintf(q, sizeof q, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"priority\":\"%s\",\"witnesses\":%.7900s}",
			 j->id, prios[j->prio], wlist_at(k, j->nparts));
		json_object *r = daemon_req(&nd[(c + k) % NODES], q, NULL, 0);
		j->acked = mono();
		j->ok = ok_of(r);
		j->seq = (uint64_t)int_of(r, "seq");
		if (!j->ok)
			ct_diag("submit %s: %s", j->id, err_of(r));
		json_object_put(r);
	}
	return NULL;
}

struct claim {
	int64_t ns, sent;
	uint64_t seq;
	uint32_t part;
};

static int claims_read(struct daemon *d, const char *name, struct claim *out, int max, int *n)
{
	FILE *f = daemon_trace_file(d, name);
	char line[1024];
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (!strstr(line, "\"fleet_claim\""))
			continue;
		json_object *o = json_tokener_parse(line);
		if (o && *n < max) {
			out[*n].ns = int_of(o, "ns");
			out[*n].sent = out[*n].ns - int_of(o, "arg") * 1000;
			out[*n].seq = (uint64_t)int_of(o, "job");
			out[*n].part = (uint32_t)int_of(o, "part");
			(*n)++;
		}
		json_object_put(o);
	}
	fclose(f);
	return 0;
}

static struct job *job_of(uint64_t seq)
{
	for (int i = 0; i < NJOBS; i++)
		if (jobs[i].seq == seq)
			return &jobs[i];
	return NULL;
}

static int key_less(const struct claim *a, const struct claim *b)
{
	const struct job *ja = job_of(a->seq), *jb = job_of(b->seq);
	if (ja->prio != jb->prio)
		return ja->prio < jb->prio;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->part < b->part;
}

/* For each claim, the lower keys already submitted when it was sent and
 * claimed only after it: at most the fleet's consumers. */
static int order_check(void)
{
	static struct claim cl[1024];
	int n = 0, worst = 0, total = 0;
	for (int i = 0; i < NODES; i++)
		if (claims_read(&nd[i], fmt("fleet-trace-%d.jsonl", i), cl, 1024, &n))
			return -1;
	for (int b = 0; b < n; b++) {
		if (!job_of(cl[b].seq))
			continue;
		int inv = 0;
		for (int a = 0; a < n; a++) {
			struct job *ja = job_of(cl[a].seq);
			if (ja && cl[a].ns > cl[b].ns && ja->acked < cl[b].sent && key_less(&cl[a], &cl[b]))
				inv++;
		}
		worst = inv > worst ? inv : worst;
		total += inv;
	}
	ct_diag("order: %d claims in the merged traces, worst inversion %d, total %d (bound %d)", n, worst, total,
		NODES * CONS_PER_NODE);
	int want = 0;
	for (int i = 0; i < NJOBS; i++)
		want += jobs[i].nparts;
	if (n < want)
		ct_diag("only %d claims for %d partitions", n, want);
	return n >= want && worst <= NODES * CONS_PER_NODE ? 0 : -1;
}

static int proofs_check(void)
{
	int bad = 0;
	for (int i = 0; i < NJOBS; i++) {
		/* awaited through another member than the one it was submitted to */
		json_object *r = daemon_await(&nd[(i + 1) % NODES], jobs[i].id, 60);
		if (!ok_of(r) || strcmp(str_of(r, "state"), "done")) {
			ct_diag("await %s: %s", jobs[i].id, err_of(r));
			bad++;
		}
		for (int k = 0; ok_of(r) && k < jobs[i].nparts; k++) {
			const char *out = str_of(r, "dir");
			if (system(fmt("%s/cuzk verify %s/vk.json %s/%d.public.json %s/%d.proof.json | grep -qx OK", bindir,
				       dir, out, k, out, k))) {
				ct_diag("%s partition %d: cuzk verify refused it", jobs[i].id, k);
				bad++;
			}
		}
		json_object_put(r);
	}
	return bad ? -1 : 0;
}

static void phase1(void)
{
	pthread_t t[CLIENTS];
	for (int c = 0; c < CLIENTS; c++)
		pthread_create(&t[c], NULL, client, (void *)(intptr_t)c);
	for (int c = 0; c < CLIENTS; c++)
		pthread_join(t[c], NULL);
	/* The nodes' 10 s duty, read while the jobs are being proved: awaiting
	 * and verifying every proof below takes longer than 10 s under ASan,
	 * and a read after it found every window idle (0); a read at once can
	 * come before any heartbeat since the work began (all 'device
	 * warm-up').  So status is read until a heartbeat says busy, 30 s at
	 * most (the check below still fails when none ever does). */
	json_object *early = NULL, *ef, *enodes;
	for (int i = 0; i < 150; i++) {
		json_object_put(early);
		early = daemon_req(&nd[0], "{\"op\":\"status\"}", NULL, 0);
		int any = 0;
		if (json_object_object_get_ex(early, "fleet", &ef) && json_object_object_get_ex(ef, "nodes", &enodes))
			for (size_t k = 0; k < json_object_array_length(enodes); k++) {
				json_object *dd;
				any |= json_object_object_get_ex(json_object_array_get_idx(enodes, k), "duty_10s", &dd) &&
				       json_object_get_double(dd) > 0;
			}
		if (any)
			break;
		usleep(200000);
	}
	int sub = 0, parts = 0;
	for (int i = 0; i < NJOBS; i++) {
		sub += jobs[i].ok;
		parts += jobs[i].nparts;
	}
	ct_ok(sub == NJOBS, "%d jobs from %d clients submitted through the three members (got %d)", NJOBS, CLIENTS, sub);
	ct_ok(proofs_check() == 0, "every job awaited through another member, every proof verifies with cuzk verify");
	ct_ok(ask("SELECT count(*) FROM cz_fleet_part WHERE state = 2 AND proof IS NOT NULL") == parts &&
	      ask("SELECT count(*) FROM cz_fleet_part") == parts && ask("SELECT count(*) FROM cz_fleet_job") == NJOBS,
	      "the table: %d partitions of %d jobs, each done once with its proof", parts, NJOBS);
	long long by = ask("SELECT count(DISTINCT proved_by) FROM cz_fleet_part");
	ct_ok(by >= 2, "proved by %lld nodes", by);
	ct_ok(order_check() == 0, "fleet-wide claim order within the fleet's %d consumers (merged traces)",
	      NODES * CONS_PER_NODE);
	json_object *r = daemon_req(&nd[0], "{\"op\":\"status\"}", NULL, 0), *f, *nodes;
	ct_ok(json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "nodes", &nodes) &&
	      json_object_array_length(nodes) == NODES, "status's fleet section lists the %d live nodes", NODES);
	int reported = 0, busy = 0;
	if (!json_object_object_get_ex(early, "fleet", &ef) || !json_object_object_get_ex(ef, "nodes", &enodes))
		ef = enodes = NULL;
	for (size_t i = 0; ef && enodes && i < json_object_array_length(enodes); i++) {
		json_object *x = json_object_array_get_idx(enodes, i), *d;
		if (json_object_object_get_ex(x, "duty_10s", &d) && json_object_is_type(d, json_type_double)) {
			double v = json_object_get_double(d);
			reported += v >= 0 && v <= 1;
			busy += v > 0;
			ct_diag("node %lld: duty %.3f over the last 10 s, idle mostly '%s' (its heartbeat)",
				(long long)int_of(x, "node"), v, str_of(x, "idle_cause"));
		}
	}
	ct_ok(reported == NODES && busy >= 1, "each node's duty from its heartbeat, per node in status, read while the "
	      "jobs ran (%d reported, %d busy)", reported, busy);
	json_object_put(r);
	json_object_put(early);
	int rows = system(fmt("%s/cuzkctl --socket %s status --fleet > %s/fleet-status.txt", bindir, nd[1].sock, dir)) ? -1 :
		   atoi(cmd_out(fmt("grep -c 'ms ago$' %s/fleet-status.txt", dir)));
	int duty_rows = atoi(cmd_out(fmt("grep -cE ' [0-9]+\\.[0-9]%% .* ms ago$' %s/fleet-status.txt", dir)));
	ct_ok(rows == NODES && duty_rows == NODES, "cuzkctl status --fleet prints the %d nodes (%d), each with its duty (%d)",
	      NODES, rows, duty_rows);
	double empty = 0, claim = 0;
	long long wk = 0, wl = 0, wf = 0, nclaims = 0;
	for (int i = 0; i < NODES; i++) {
		json_object *sr = daemon_req(&nd[i], "{\"op\":\"status\"}", NULL, 0), *sf, *sme = NULL, *cl, *fd;
		if (json_object_object_get_ex(sr, "fleet", &sf) && json_object_object_get_ex(sf, "this", &sme) &&
		    json_object_object_get_ex(sme, "claim_latency_ms", &cl) && json_object_object_get_ex(sme, "fed_latency_ms", &fd))
			ct_diag("node %d: claim (the database's answer) ms %s; claim sent to queued here ms %s", i,
				json_object_to_json_string(cl), json_object_to_json_string(fd));
		if (sme) {
			wk += int_of(sme, "wakes_work");
			wl += int_of(sme, "wakes_local");
			wf += int_of(sme, "wakes_fallback");
			nclaims += int_of(sme, "claims");
		}
		json_object_put(sr);
		empty += idle_ms(&nd[i], "no claimable work");
		claim += idle_ms(&nd[i], "claim latency");
	}
	ct_ok(wk > 0 && wl > 0, "the claim threads woke on NOTIFY cz_fleet_work %lld times and on a local job's end %lld "
	      "times (fallback looks %lld; claims %lld)", wk, wl, wf, nclaims);
	ct_ok(empty > 0 && claim > 0, "status names the fleet's idle causes: no claimable work %.1f ms, claim latency %.1f ms",
	      empty, claim);
	/* cuzkctl --fleet: no daemon on its side, the database only. */
	char ctl[5 * PATH_MAX];
	snprintf(ctl, sizeof ctl, "%s/cuzkctl --fleet '%s'", bindir, conn);
	const char *id = cmd_out(fmt("%s submit k %s/w0.wtns %s/w1.wtns --id ctl-1 --priority high", ctl, dir, dir));
	int sub_ok = !strcmp(id, "ctl-1\n");
	const char *out = cmd_out(fmt("%s await ctl-1 --timeout 60 --out %s/ctl-1-out", ctl, dir));
	int verified = sub_ok && !strcmp(out, fmt("%s/ctl-1-out\n", dir));
	for (int k = 0; verified && k < 2; k++)
		verified = !system(fmt("%s/cuzk verify %s/vk.json %s/ctl-1-out/%d.public.json %s/ctl-1-out/%d.proof.json | grep -qx OK",
				       bindir, dir, dir, k, dir, k));
	ct_ok(verified, "cuzkctl --fleet URL submit and await with no daemon of its own: both proofs verify (%.60s)", out);
	const char *fst = cmd_out(fmt("%s status", ctl));
	ct_ok(strstr(fst, "queue: critical") && atoi(cmd_out(fmt("%s status | grep -c 'ms ago$'", ctl))) == NODES,
	      "cuzkctl --fleet URL status lists the %d nodes and the queue", NODES);
	const char *rep = cmd_out(fmt("%s/tools/cuzk-trace-report --json %s/fleet-trace-0.jsonl", root, dir));
	json_object *j = json_tokener_parse(rep), *jby;
	ct_ok(j && json_object_object_get_ex(j, "idle_by_cause_ms", &jby) &&
	      (json_object_object_get_ex(jby, "claim latency", NULL) ||
	       json_object_object_get_ex(jby, "no claimable work", NULL)) &&
	      !json_object_object_get_ex(jby, "nothing submitted", NULL),
	      "cuzk-trace-report names a fleet node's empty pipeline by the fleet's causes, never 'nothing submitted'");
	json_object_put(j);
}

/* ---- phase 2: kill -9 and SIGSTOP past the lease ---- */

static int submit_batch(const char *tag, int n, int nparts)
{
	int ok = 0;
	for (int i = 0; i < n; i++) {
		char q[8192];
		snprintf(q, sizeof q, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s-%d\",\"priority\":\"%s\",\"witnesses\":%.7900s}",
			 tag, i, prios[i % 4], wlist_at(i, nparts));
		for (int k = 0; k < NODES_MAX; k++) {   /* any member that is up */
			struct daemon *d = &nd[(i + k) % NODES_MAX];
			json_object *r = d->pid > 0 ? daemon_req(d, q, NULL, 0) : NULL;
			int good = ok_of(r);
			json_object_put(r);
			if (good) {
				ok++;
				break;
			}
		}
	}
	return ok;
}

static int await_batch(struct daemon *d, const char *tag, int n)
{
	int done = 0;
	for (int i = 0; i < n; i++) {
		json_object *r = daemon_await(d, fmt("%s-%d", tag, i), 60);
		done += ok_of(r) && !strcmp(str_of(r, "state"), "done");
		if (!ok_of(r))
			ct_diag("await %s-%d: %s", tag, i, err_of(r));
		json_object_put(r);
	}
	return done;
}

/* Waits until node i holds a claimed partition (the table says so). */
static int wait_held(int i)
{
	for (int k = 0; k < 500; k++) {
		if (ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE state = 1 AND node = %" PRId64, node_id[i])) > 0)
			return 0;
		usleep(10000);
	}
	return -1;
}

/* The kill -9'ed node 0 restarted on its state directory at once: the
 * fleet partitions its journal had (fleet-SEQ.PART.ATTEMPT) are dropped
 * there, never proved as local work, and released in the database. */
static void restart_check(void)
{
	if (node_start(0, "m0", "null", "250")) {
		ct_diag("node 0 did not start again");
		return;
	}
	json_object *r = daemon_req(&nd[0], "{\"op\":\"status\"}", NULL, 0), *f, *me, *jobs;
	int dropped = -1, released = -1, listed = 0, proved = 0, old = 0;
	if (json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me)) {
		dropped = (int)int_of(me, "stale_dropped");
		released = (int)int_of(me, "stale_released");
	}
	for (size_t i = 0; json_object_object_get_ex(r, "jobs", &jobs) && i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		unsigned long long seq;
		unsigned part, att;
		if (sscanf(str_of(j, "job"), "fleet-%llu.%u.%u", &seq, &part, &att) != 3)
			continue;
		bool was = ask(fmt("SELECT count(*) FROM killed WHERE seq = %llu AND part = %u AND attempts = %u",
				   seq, part, att)) == 1;
		old += was;
		listed += was && !strcmp(str_of(j, "state"), "cancelled");
		proved += was && strcmp(str_of(j, "state"), "cancelled");
	}
	json_object_put(r);
	long long held = ask("SELECT count(*) FROM killed");
	ct_ok(dropped >= 1 && dropped <= held && old == dropped && listed == dropped && proved == 0,
	      "restarted after kill -9, the node dropped the %d fleet partitions its journal had (of %lld it held): "
	      "%d listed, all cancelled, %d proved here", dropped, held, listed, proved);
	ct_ok(released >= 0 && released <= dropped,
	      "and released %d of them in the database at registration (the others a lease had returned)", released);
}

static void phase2(void)
{
	for (int i = 0; i < NODES; i++)
		if (node_start(i, fmt("m%d", i), "null", "250")) {
			ct_diag("node %d (null) did not start", i);
			return;
		}
	int n = 8, np = 4;
	ct_ok(submit_batch("p2", n, np) == n, "%d jobs of %d partitions submitted to the null fleet", n, np);
	ct_ok(wait_held(0) == 0, "node %" PRId64 " holds partitions", node_id[0]);
	usleep(100000);         /* its fed claims reach its journal (the next group commit) */
	kill(nd[0].pid, SIGKILL);
	/* what it held when it died: the oracle's own record */
	ask(fmt("CREATE TEMP TABLE killed AS SELECT seq, part, attempts FROM cz_fleet_part WHERE state = 1 AND node = %" PRId64
		"; SELECT 1", node_id[0]));
	long long nkilled = ask("SELECT count(*) FROM killed");
	waitpid(nd[0].pid, NULL, 0);
	nd[0].pid = 0;
	int64_t killed_id = node_id[0];
	restart_check();
	ct_ok(wait_held(1) == 0, "node %" PRId64 " holds partitions", node_id[1]);
	kill(nd[1].pid, SIGSTOP);
	usleep((LEASE_MS + 1200) * 1000);       /* past its lease, and a renew of node 2 to reap it */
	kill(nd[1].pid, SIGCONT);
	int done = await_batch(&nd[2], "p2", n);
	ct_ok(done == n, "every job done after a kill -9 and a SIGSTOP past the lease (%d of %d)", done, n);
	ct_ok(ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p2-%' AND p.state = 2") == n * np &&
	      ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p2-%' AND p.state <> 2") == 0,
	      "the table: all %d partitions done, each recorded once", n * np);
	long long again = ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p2-%' AND p.attempts > 1");
	long long dups = ask("SELECT coalesce(sum(duplicates), 0) FROM cz_fleet_part");
	ct_ok(again >= 1, "%lld partitions claimed again after their node's lease ran out (duplicates ignored: %lld)",
	      again, dups);
	ct_ok(nkilled > 0 && ask(fmt("SELECT count(*) FROM cz_fleet_part p JOIN killed USING (seq, part) WHERE p.state = 2 "
				     "AND p.proved_by <> %" PRId64, killed_id)) == nkilled,
	      "the %lld partitions the killed node held were proved elsewhere", nkilled);
}

/* ---- phase 3: the database restarted mid-run ---- */

static void phase3(void)
{
	int n = 8, np = 4;
	ct_ok(submit_batch("p3", n, np) == n, "%d more jobs", n);
	for (int k = 0; k < 300 && ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p3-%' AND p.state = 2") < 4; k++)
		usleep(10000);
	PQfinish(oracle);
	ct_ok(pg_restart(&pg) == 0, "the database restarted mid-run");
	oracle = PQconnectdb(conn);
	int done = await_batch(&nd[2], "p3", n);
	ct_ok(done == n, "every job done across the restart (%d of %d)", done, n);
	ct_ok(ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p3-%' AND p.state = 2") == n * np,
	      "the table: all %d partitions done", n * np);
}

/* ---- phase 4: the claim path waits on no local fsync ---- */

/* The node's "fleet_fed" events (a claimed partition queued here): how
 * many, and the slowest's µs since its claim was sent. */
static int fed_read(struct daemon *d, const char *name, int *n, int64_t *max_us)
{
	FILE *f = daemon_trace_file(d, name);
	char line[1024];
	*n = 0;
	*max_us = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (!strstr(line, "\"fleet_fed\""))
			continue;
		json_object *o = json_tokener_parse(line);
		int64_t us = int_of(o, "arg");
		*max_us = us > *max_us ? us : *max_us;
		++*n;
		json_object_put(o);
	}
	fclose(f);
	return 0;
}

static void phase4(void)
{
	static char shim[PATH_MAX + 32];
	snprintf(shim, sizeof shim, "%.*s/../selftests/slowsync.so", PATH_MAX - 32, bindir);
	if (SANITIZED || access(shim, R_OK)) {
		skip_n(2, SANITIZED ? "a sanitizer's runtime must come first: no LD_PRELOAD shim" : "no slowsync.so");
		return;
	}
	nodes_stop();
	child_preload = shim;
	int up = node_start(0, "s0", "null", "20");
	child_preload = NULL;
	if (up) {
		skip_n(2, "the node under slowsync.so did not start");
		return;
	}
	int n = 3, np = 8;
	int sub = submit_batch("p4", n, np);
	int done = await_batch(&nd[0], "p4", n);
	ct_ok(sub == n && done == n, "%d jobs of %d partitions done on a node whose every fsync takes %d ms longer",
	      done, np, SLOWSYNC_MS);
	int fed = 0;
	int64_t slowest = 0;
	fed_read(&nd[0], "fleet-trace-s0.jsonl", &fed, &slowest);
	ct_ok(fed == n * np && slowest < SLOWSYNC_MS * 1000LL,
	      "every claimed partition queued here within one slow fsync of its claim (%d fed, the slowest %.1f ms < %d ms): "
	      "the claim path waits on no local fsync", fed, (double)slowest / 1e3, SLOWSYNC_MS);
}

static int http_port;    /* phase 5's node's --metrics-listen */

/* How many times needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- phase 5: a partition whose lease is lost is dropped before it starts ---- */

/* Whether the node's trace has a compute_start of local job seq (lseq). */
static int trace_has(const char *file, const char *ev, int64_t job)
{
	FILE *f = fopen(fmt("%s/%s", dir, file), "r");
	char line[1024];
	int n = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (!strstr(line, ev))
			continue;
		json_object *o = json_tokener_parse(line);
		n += int_of(o, "job") == job;
		json_object_put(o);
	}
	if (f)
		fclose(f);
	return n;
}

static void phase5(void)
{
	nodes_stop();
	static char mspec[64];
	http_port = free_port();
	snprintf(mspec, sizeof mspec, "127.0.0.1:%d", http_port);
	node_metrics = mspec;
	int up = node_start(0, "l0", "null", "1500");
	node_metrics = NULL;
	if (up) {
		skip_n(3, "the node did not start");
		return;
	}
	if (submit_batch("p5", 1, 2) != 1) {
		skip_n(3, "the job was not accepted");
		return;
	}
	long long seq = ask("SELECT seq FROM cz_fleet_job WHERE id = 'p5-0'");
	for (int k = 0; k < 500 && ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE seq = %lld AND state = 1", seq)) < 2; k++)
		usleep(10000);
	usleep(200 * 1000);     /* one partition on the device (1.5 s), the other waiting for it */
	/* Both taken by another node (as a node that re-claimed them after their lease would). */
	ask(fmt("UPDATE cz_fleet_part SET node = 999999, lease_until = now() + interval '1 second', attempts = attempts + 1"
		" WHERE seq = %lld AND state = 1; SELECT 1", seq));
	json_object *r = daemon_await(&nd[0], "p5-0", 60);
	int done = ok_of(r) && !strcmp(str_of(r, "state"), "done");
	json_object_put(r);
	json_object *st = daemon_req(&nd[0], "{\"op\":\"status\"}", NULL, 0), *f, *me, *jobs;
	long long dropped = json_object_object_get_ex(st, "fleet", &f) && json_object_object_get_ex(f, "this", &me) ?
			    int_of(me, "lost_dropped") : -1;
	FILE *tf = daemon_trace_file(&nd[0], "fleet-trace-l0.jsonl");
	if (tf)
		fclose(tf);
	int cancelled = 0, started = 0;
	if (json_object_object_get_ex(st, "jobs", &jobs))
		for (size_t i = 0; i < json_object_array_length(jobs); i++) {
			json_object *j = json_object_array_get_idx(jobs, i);
			if (strncmp(str_of(j, "job"), fmt("fleet-%lld.", seq), strlen(fmt("fleet-%lld.", seq))) ||
			    strcmp(str_of(j, "state"), "cancelled"))
				continue;
			cancelled++;
			started += trace_has("fleet-trace-l0.jsonl", "\"compute_start\"", int_of(j, "seq")) > 0;
		}
	json_object_put(st);
	ct_ok(dropped == 2 && cancelled == 2, "both partitions whose lease the node lost are dropped there "
	      "(lost_dropped %lld, local jobs cancelled %d)", dropped, cancelled);
	ct_ok(cancelled == 2 && started <= 1, "the one waiting for the device never started (%d of the 2 lost started: "
	      "only the one on the device already)", started);
	ct_ok(done && ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE seq = %lld AND state = 2 AND attempts = 3", seq)) == 2,
	      "after the other node's lease ran out the job was proved (attempt 3 of each partition)");
}

/* ---- phase 6: a circom input travels through the database as an input ---- */

static void phase6(void)
{
	json_object *r = nd[0].pid > 0 ? daemon_req(&nd[0], "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"p6-in\","
						    "\"inputs\":[{\"a\": 3, \"b\": 11}]}", NULL, 0) : NULL;
	int ok = ok_of(r);
	json_object_put(r);
	ct_ok(ok && ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id = 'p6-in'"
			" AND p.is_input AND convert_from(p.input, 'UTF8')::jsonb = '{\"a\": 3, \"b\": 11}'::jsonb") == 1,
	      "an inline input is recorded as one partition whose payload is the input (is_input)");
	r = ok ? daemon_await(&nd[0], "p6-in", 60) : NULL;
	const char *st = str_of(r, "state");
	long long named = ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id = 'p6-in'"
			      " AND p.state = 3 AND p.error LIKE '%witness program%'");
	ct_ok(r && !strcmp(st, "failed") && named == 1,
	      "the claimer fed it as an input: circuit k has no witness program, so the job failed with that reason (%s)",
	      st);
	json_object_put(r);
	/* /metrics: the fleet's figures, promtool-clean, agreeing with the table. */
	const char *mf = fmt("%s/fleet-metrics.txt", dir);
	int got = system(fmt("curl -s http://127.0.0.1:%d/metrics > %s", http_port, mf));
	int prom = system("command -v promtool >/dev/null 2>&1") ? -2 : system(fmt("promtool check metrics < %s >/dev/null 2>&1", mf));
	long long claimed = atoll(cmd_out(fmt("grep '^cuzk_fleet_claimed_partitions_total ' %s | cut -d' ' -f2", mf)));
	long long nodes = atoll(cmd_out(fmt("grep '^cuzk_fleet_nodes ' %s | cut -d' ' -f2", mf)));
	long long up = atoll(cmd_out(fmt("grep '^cuzk_fleet_database_up ' %s | cut -d' ' -f2", mf)));
	int duty_series = atoi(cmd_out(fmt("grep -c '^cuzk_fleet_node_duty_ratio{node=\"%" PRId64 "\",host=' %s", node_id[0], mf)));
	long long want = ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE proved_by = %" PRId64 "", node_id[0])) +
			 ask(fmt("SELECT coalesce(sum(attempts), 0) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id = 'p6-in'"));
	ct_ok(got == 0 && (prom == 0 || prom == -2) && up == 1 && nodes == 1 && claimed >= want && claimed > 0 &&
	      duty_series == 1,
	      "/metrics of a fleet member: the fleet's figures pass promtool%s; 1 live node, %lld partitions claimed "
	      "(the table: at least %lld), its duty series %d", prom == -2 ? " (not installed: unchecked)" : "", claimed,
	      want, duty_series);
	/* The dashboard's fleet section in headless chromium, as e2e_metrics drives it. */
	if (system("command -v chromium >/dev/null 2>&1")) {
		ct_skip("chromium absent (tools/install-deps.sh installs it)", "the dashboard's fleet section");
		return;
	}
	int drc = system(fmt("timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
			     "--user-data-dir=%s/chromium --virtual-time-budget=600 --window-size=1000,620 --dump-dom "
			     "http://127.0.0.1:%d/ > %s/fleet-dom.html 2>%s/chromium.log", dir, http_port, dir, dir));
	FILE *df = fopen(fmt("%s/fleet-dom.html", dir), "r");
	static char dom[1 << 20];
	size_t dn = df ? fread(dom, 1, sizeof dom - 1, df) : 0;
	dom[dn] = 0;
	if (df)
		fclose(df);
	int rows = count_of(dom, "data-node=\""), prios = count_of(dom, "data-prio=\"");
	int dutied = rows - count_of(dom, "data-duty=\"\"");  /* node rows only carry an empty one */
	ct_ok(drc == 0 && strstr(dom, "<div id=\"fleet\">") && rows == 1 && prios == 4 && dutied == 1 &&
	      strstr(dom, "<th>duty (10 s)</th>") &&
	      strstr(dom, fmt("this node %" PRId64 ":", node_id[0])),
	      "the dashboard shows the fleet: this node %" PRId64 ", %d live node row(s), the queue's %d priorities",
	      node_id[0], rows, prios);
}

/* ---- phase 7: --fleet-notify off, and auto against a database that refuses pg_notify ---- */

/* The nodes' claim threads' wakes on NOTIFY cz_fleet_work, summed (status). */
static long long wakes_work(int n)
{
	long long w = 0;
	for (int i = 0; i < n; i++) {
		json_object *r = daemon_req(&nd[i], "{\"op\":\"status\"}", NULL, 0), *f, *me;
		w += json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me) ?
		     int_of(me, "wakes_work") : 1000000;
		json_object_put(r);
	}
	return w;
}

static void phase7(void)
{
	nodes_stop();
	node_notify = "off";
	int up = node_start(0, "q0", "null", "50") == 0;
	up += node_start(1, "q1", "null", "50") == 0;
	node_notify = NULL;
	int n = 6, np = 3;
	int sub = up == 2 ? submit_batch("p7", n, np) : 0;
	int done = sub == n ? await_batch(&nd[1], "p7", n) : 0;
	long long ww = up == 2 ? wakes_work(2) : -1;
	ct_ok(up == 2 && done == n && ww == 0 &&
	      ask("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE 'p7-%' AND p.state = 2") == n * np,
	      "two cuzkd --fleet-notify off prove every job (%d of %d, %d partitions done), their claim threads woke on no "
	      "NOTIFY (%lld): bounded polling alone", done, n, n * np, ww);
	nodes_stop();
	/* a database whose pg_notify raises, as a server without NOTIFY refuses it */
	static char c2[PATH_MAX + 64];
	PGconn *o2 = NULL;
	if (pg_createdb(&pg, "nonotify", c2, sizeof c2) || PQstatus(o2 = PQconnectdb(c2)) != CONNECTION_OK) {
		PQfinish(o2);
		ct_skip("createdb nonotify failed", "auto against a database that refuses pg_notify");
		return;
	}
	PGresult *r = PQexec(o2, CZ_PG_NO_NOTIFY_SQL("nonotify"));
	int made = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	node_conn = c2;
	up = made && node_start(0, "y0", "null", "50") == 0;
	up += made && node_start(1, "y1", "null", "50") == 0;
	node_conn = NULL;
	sub = up == 2 ? submit_batch("p7y", n, np) : 0;
	done = sub == n ? await_batch(&nd[0], "p7y", n) : 0;
	PGresult *c = PQexec(o2, "SELECT count(*) FROM cz_fleet_part WHERE state = 2");
	long long parts = PQresultStatus(c) == PGRES_TUPLES_OK ? atoll(PQgetvalue(c, 0, 0)) : -1;
	PQclear(c);
	PQfinish(o2);
	int logged = atoi(cmd_out(fmt("cat %s %s | grep -c 'no NOTIFY/LISTEN: refused at connect.*not supported'",
				      nd[0].log, nd[1].log)));
	ct_ok(up == 2 && done == n && parts == n * np && logged == 2,
	      "two cuzkd (--fleet-notify auto) on a database whose pg_notify raises: each logs the fallback (%d), "
	      "every job done (%d of %d, %lld partitions)", logged, done, n, parts);
	nodes_stop();
}

/* ---- phase 8: a circom input submitted with cuzkctl --fleet, proved by a member, verified by snarkjs ---- */

static void phase8(void)
{
	const char *snarkjs = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
	const char *circom = "tools/fixtures/node_modules/circom2/cli.js";
	const char *why = system("command -v node >/dev/null 2>&1") ? "node not installed"
			  : system(fmt("test -r %s/%s -a -r %s/%s", root, snarkjs, root, circom)) ?
			  "tools/fixtures/node_modules incomplete (tools/install-deps.sh)"
			  : system("command -v wasm2c >/dev/null 2>&1") ? "wabt (wasm2c) not installed" : NULL;
	if (why) {
		ct_skip(why, "an input proved through the fleet");
		return;
	}
	int built = !system(fmt("cd %s && node %s selftests/data/witness/arith.circom --r1cs --wasm --prime bn128 "
				"-l tools/fixtures/node_modules -o %s >%s/arith.log 2>&1 && %s/cuzk devsetup --r1cs %s/arith.r1cs "
				"--out-zkey %s/arith.zkey --out-vk %s/arith_vk.json >>%s/arith.log 2>&1",
				root, circom, dir, dir, bindir, dir, dir, dir, dir));
	int up = built && node_start(1, "w1", "cpu", "0") == 0;
	json_object *r = up ? daemon_req(&nd[1], fmt("{\"op\":\"load\",\"name\":\"arith\",\"zkey\":\"%s/arith.zkey\","
						  "\"wasm\":\"%s/arith_js/arith.wasm\"}", dir, dir), NULL, 0) : NULL;
	int loaded = ok_of(r);
	if (up && !loaded)
		ct_diag("load arith: %s", err_of(r));
	json_object_put(r);
	FILE *in = fopen(fmt("%s/arith-in.json", dir), "w");
	if (in) {
		fputs("{\"a\": 5, \"b\": 7, \"m\": [[1, 2, 3], [4, 5, 6]]}\n", in);
		fclose(in);
	}
	char ctl[5 * PATH_MAX];
	snprintf(ctl, sizeof ctl, "%s/cuzkctl --fleet '%s'", bindir, conn);
	const char *id = loaded ? cmd_out(fmt("%s submit arith --input %s/arith-in.json --id in-1", ctl, dir)) : "";
	int sub = !strcmp(id, "in-1\n");
	const char *out = sub ? cmd_out(fmt("%s await in-1 --timeout 120 --out %s/in-1-out", ctl, dir)) : "";
	int got = sub && !strcmp(out, fmt("%s/in-1-out\n", dir));
	int verified = got && !system(fmt("cd %s && node %s groth16 verify %s/arith_vk.json %s/in-1-out/0.public.json "
					  "%s/in-1-out/0.proof.json 2>&1 | grep -q OK", root, snarkjs, dir, dir, dir));
	long long by = ask("SELECT p.proved_by FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id = 'in-1'"
			   " AND p.state = 2 AND p.is_input");
	ct_ok(verified && by == node_id[1],
	      "a circom input submitted with cuzkctl --fleet (no daemon of its own) is proved by member %" PRId64
	      " (proved_by %lld) from the input, and snarkjs verifies the proof (%.60s)", node_id[1], by, out);
	nodes_stop();
}

/* ---- phase 9: a real network split: one member in its own network namespace ---- */

#define SPLIT_NODES 5           /* 4 on the database's side, 1 behind the veth */

static char ns_name[32], ns_host[32], ns_peer[32], ns_net[32];

static int sh_ok(const char *cmd)
{
	return system(fmt("%s >>%s/netns.log 2>&1", cmd, dir)) == 0;
}

/* The namespace, the veth pair and the server listening on its host side;
 * NULL or why not. */
static const char *split_setup(char *tcp, size_t cap)
{
	if (geteuid() != 0)
		return "network namespaces need root";
	if (system("command -v ip >/dev/null 2>&1"))
		return "no ip(8) (iproute2)";
	int b = getpid() % 250;
	snprintf(ns_name, sizeof ns_name, "czf%d", getpid());
	snprintf(ns_host, sizeof ns_host, "czh%d", getpid() % 100000);
	snprintf(ns_peer, sizeof ns_peer, "czn%d", getpid() % 100000);
	snprintf(ns_net, sizeof ns_net, "10.213.%d", b);
	if (!sh_ok(fmt("ip netns add %s", ns_name)))
		return "ip netns add refused (no CAP_SYS_ADMIN here)";
	if (!sh_ok(fmt("ip link add %s type veth peer name %s", ns_host, ns_peer)) ||
	    !sh_ok(fmt("ip link set %s netns %s", ns_peer, ns_name)) ||
	    !sh_ok(fmt("ip addr add %s.1/30 dev %s", ns_net, ns_host)) || !sh_ok(fmt("ip link set %s up", ns_host)) ||
	    !sh_ok(fmt("ip -n %s addr add %s.2/30 dev %s", ns_name, ns_net, ns_peer)) ||
	    !sh_ok(fmt("ip -n %s link set %s up", ns_name, ns_peer)) || !sh_ok(fmt("ip -n %s link set lo up", ns_name)))
		return "a veth pair into the namespace could not be made";
	/* the server on the veth's host side too (trust from the namespace's address only) */
	FILE *h = fopen(fmt("%s/data/pg_hba.conf", pg.dir), "a");
	if (!h)
		return "pg_hba.conf not writable";
	fprintf(h, "host all all %s.2/32 trust\n", ns_net);
	fclose(h);
	snprintf(pg.listen, sizeof pg.listen, "%s.1", ns_net);
	PQfinish(oracle);
	oracle = NULL;
	if (pg_restart(&pg) != 0)
		return "the server could not listen on the veth";
	oracle = PQconnectdb(conn);
	snprintf(tcp, cap, "host=%s.1 port=5432 user=cz dbname=fleet", ns_net);
	return NULL;
}

static void split_teardown(void)
{
	if (ns_name[0])
		sh_ok(fmt("ip netns del %s", ns_name));  /* takes its end of the veth, and so the pair */
	if (ns_host[0])
		sh_ok(fmt("ip link del %s", ns_host));
}

/* Node i's claims (status fleet.this.claims), -1 when it does not answer. */
static long long claims_of(int i)
{
	json_object *r = daemon_req(&nd[i], "{\"op\":\"status\"}", NULL, 0), *f, *me;
	long long c = json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me) ?
		      int_of(me, "claims") : -1;
	json_object_put(r);
	return c;
}

/* Every job of tag done, awaited through node a, each proof verified by cuzk verify. */
static int verify_batch(int a, const char *tag, int n, int np)
{
	int good = 0;
	for (int i = 0; i < n; i++) {
		json_object *r = daemon_await(&nd[a], fmt("%s-%d", tag, i), 60);
		int ok = ok_of(r) && !strcmp(str_of(r, "state"), "done");
		for (int k = 0; ok && k < np; k++)
			ok = !system(fmt("%s/cuzk verify %s/vk.json %s/%d.public.json %s/%d.proof.json | grep -qx OK", bindir,
					 dir, str_of(r, "dir"), k, str_of(r, "dir"), k));
		if (!ok)
			ct_diag("%s-%d: not done or a proof refused (%s)", tag, i, err_of(r));
		good += ok;
		json_object_put(r);
	}
	return good;
}

static long long tag_count(const char *tag, const char *where)
{
	return ask(fmt("SELECT count(*) FROM cz_fleet_part p JOIN cz_fleet_job j USING (seq) WHERE j.id LIKE '%s-%%' AND %s",
		       tag, where));
}

static void phase9_run(int cut)
{
	const int n = 12, np = 4;
	int sub = submit_batch("p9", n, np);
	int held = 0;
	long long nsplit = 0;
	/* Cut while it holds partitions; should it finish them all in the instant before the link
	 * went down (nothing held by it in the table then), the link back and again, at most 3 times. */
	for (int tries = 0; tries < 3 && nsplit == 0; tries++) {
		if (tries)
			sh_ok(fmt("ip link set %s up", ns_host));
		held = 0;
		for (int k = 0; k < 1000 && !(held = ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE state = 1 AND "
							       "node = %" PRId64, node_id[cut])) > 0); k++)
			usleep(5000);
		sh_ok(fmt("ip link set %s down", ns_host));     /* the split */
		ask(fmt("%sCREATE TEMP TABLE split AS SELECT seq, part FROM cz_fleet_part WHERE state = 1 AND node = %" PRId64
			"; SELECT 1", tries ? "DROP TABLE split; " : "", node_id[cut]));
		nsplit = ask("SELECT count(*) FROM split");
	}
	usleep(300 * 1000);
	long long c0 = claims_of(cut);
	/* the others take over its partitions once its leases lapse and a renew reaps them */
	int over = 0;
	for (int k = 0; k < 3000 && !over; k++) {
		over = ask("SELECT count(*) FROM cz_fleet_part p JOIN split USING (seq, part) WHERE p.state = 2") == nsplit &&
		       tag_count("p9", "p.state = 2") == n * np;
		usleep(10000);
	}
	long long c1 = claims_of(cut), away = -1;
	{
		json_object *r = daemon_req(&nd[cut], "{\"op\":\"status\"}", NULL, 0), *f, *me;
		if (json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me))
			away = int_of(me, "away_rounds");
		json_object_put(r);
	}
	long long mine = ask(fmt("SELECT count(*) FROM cz_fleet_part WHERE state = 1 AND node = %" PRId64, node_id[cut]));
	long long others = ask(fmt("SELECT count(*) FROM cz_fleet_part p JOIN split USING (seq, part) WHERE p.state = 2 AND "
				   "p.proved_by <> %" PRId64, node_id[cut]));
	ct_ok(sub == n && held && nsplit > 0 && over && others == nsplit && mine == 0 && c0 >= 0 && c1 == c0 && away >= 1,
	      "link cut under member %" PRId64 " holding %lld partitions: it claims nothing more (%lld, %lld), its leases "
	      "lapse (%lld still claimed by it) and the %lld are proved by the other %d; its claim rounds stop at the "
	      "first finish that finds the database away (%lld)", node_id[cut], nsplit, c0, c1, mine,
	      others, SPLIT_NODES - 1, away);
	sh_ok(fmt("ip link set %s up", ns_host));       /* the link back */
	int back = 0;
	for (int k = 0; k < 1000 && !back; k++) {
		back = ask(fmt("SELECT count(*) FROM cz_fleet_node WHERE id = %" PRId64 " AND heartbeat > now() - interval "
			       "'1 second'", node_id[cut])) == 1;
		usleep(10000);
	}
	int sub2 = submit_batch("p9b", n, np);
	int good = verify_batch(0, "p9", n, np) + verify_batch(1, "p9b", n, np);
	long long by_cut = tag_count("p9b", fmt("p.proved_by = %" PRId64, node_id[cut])), remade = -1;
	{
		json_object *r = daemon_req(&nd[cut], "{\"op\":\"status\"}", NULL, 0), *f, *me;
		if (json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me))
			remade = int_of(me, "listen_remade");
		json_object_put(r);
	}
	if (by_cut <= 0) {      /* what the cut member says of itself, for a look */
		json_object *r = daemon_req(&nd[cut], "{\"op\":\"status\"}", NULL, 0), *f, *me;
		if (json_object_object_get_ex(r, "fleet", &f) && json_object_object_get_ex(f, "this", &me))
			ct_diag("member %" PRId64 " after the link back: %s", node_id[cut],
				json_object_to_json_string_ext(me, JSON_C_TO_STRING_PLAIN));
		json_object_put(r);
	}
	ct_ok(back && sub2 == n && by_cut > 0 && remade >= 1, "the link back: it heartbeats again (%s), makes its LISTEN "
	      "connection again (%lld) and rejoins, proving %lld of the next %d partitions",
	      back ? "yes" : "no heartbeat within 10 s", remade, by_cut, n * np);
	ct_ok(good == 2 * n && tag_count("p9", "p.state = 2") == n * np && tag_count("p9b", "p.state = 2") == n * np &&
	      tag_count("p9", "p.state <> 2") == 0 && tag_count("p9b", "p.state <> 2") == 0,
	      "every job on both sides of the split done once (%d of %d), every proof verified by cuzk verify "
	      "(duplicates ignored: %lld)", good, 2 * n, ask("SELECT coalesce(sum(p.duplicates), 0) FROM cz_fleet_part p JOIN split USING (seq, part)"));
}

static void phase9(void)
{
	nodes_stop();
	static char tcp[128];
	const char *why = split_setup(tcp, sizeof tcp);
	if (why) {
		ct_diag("network split: %s", why);
		skip_n(3, fmt("a real network split: %s", why));
		split_teardown();
		if (!oracle)
			oracle = PQconnectdb(conn);
		return;
	}
	int up = 0, cut = SPLIT_NODES - 1;
	for (int i = 0; i < cut; i++)
		up += node_start(i, fmt("x%d", i), "cpu", "0") == 0;
	static char nspath[64];
	snprintf(nspath, sizeof nspath, "/run/netns/%s", ns_name);
	child_netns = nspath;
	node_conn = tcp;
	up += node_start(cut, "xcut", "cpu", "0") == 0;
	child_netns = NULL;
	node_conn = NULL;
	ct_diag("network split: %d members up, member %" PRId64 " in namespace %s reaching %s", up, node_id[cut], ns_name,
		tcp);
	if (up == SPLIT_NODES)
		phase9_run(cut);
	else
		skip_n(3, "the members did not start");
	nodes_stop();
	split_teardown();
}

/* cuzkctl --fleet cancel, with no node up to claim the job. */
static void ctl_cancel(void)
{
	char ctl[5 * PATH_MAX];
	snprintf(ctl, sizeof ctl, "%s/cuzkctl --fleet '%s'", bindir, conn);
	int sub = system(fmt("%s submit k %s/w2.wtns --id ctl-2 >/dev/null", ctl, dir));
	int can = system(fmt("%s cancel ctl-2", ctl));
	int aw = system(fmt("%s await ctl-2 --timeout 10 2>%s/ctl-2.err", ctl, dir));
	int again = system(fmt("%s cancel ctl-2 2>/dev/null", ctl));
	ct_ok(sub == 0 && can == 0 && WEXITSTATUS(aw) == 1 && strstr(cmd_out(fmt("cat %s/ctl-2.err", dir)), "cancelled") &&
	      WEXITSTATUS(again) == 1 && ask("SELECT state FROM cz_fleet_job WHERE id = 'ctl-2'") == 3,
	      "cuzkctl --fleet URL cancel: the job cancelled in the table, await says so (exit 1), a second cancel is refused");
}

/* One row: k null nodes (with --fleet-notify notify, NULL the default);
 * -1 when they did not all start. */
static int bench_row(int k, int nj, const char *notify)
{
	int up = 0;
	node_notify = notify;
	for (int i = 0; i < k; i++)
		up += node_start(i, fmt("b%d%d%s", k, i, notify ? notify : ""), "null", "100") == 0;
	node_notify = NULL;
	if (up != k) {
		ct_diag("bench: %d of %d nodes started", up, k);
		nodes_stop();
		return -1;
	}
	char tag[16];
	snprintf(tag, sizeof tag, "b%d%s", k, notify ? notify : "");
	int64_t t0 = mono();
	int sub = submit_batch(tag, nj, 4);
	int done = await_batch(&nd[0], tag, nj);
	double s = (double)(mono() - t0) / 1e9;
	double empty = 0, claim = 0, nothing = 0;
	for (int i = 0; i < k; i++) {
		empty += idle_ms(&nd[i], "no claimable work");
		claim += idle_ms(&nd[i], "claim latency");
		nothing += idle_ms(&nd[i], "nothing submitted");
	}
	double load[3] = { -1, -1, -1 };
	getloadavg(load, 3);
	ct_diag("bench: %d node(s)%s: %d/%d jobs done, %d partitions in %.2f s = %.1f partitions/s (ideal %d); "
		"idle summed over nodes since start: no claimable work %.0f ms, claim latency %.0f ms, nothing submitted %.0f ms; "
		"load average %.2f %.2f %.2f",
		k, notify ? " --fleet-notify off" : "", done, sub, 4 * nj, s, 4 * nj / s, 10 * k, empty, claim, nothing,
		load[0], load[1], load[2]);
	json_object *r = daemon_req(&nd[0], "{\"op\":\"status\"}", NULL, 0), *devs;
	if (json_object_object_get_ex(r, "devices", &devs) && json_object_array_length(devs) > 0)
		ct_diag("bench: node 0's device since start: %s", json_object_to_json_string(json_object_object_get(
			json_object_array_get_idx(devs, 0), "since_start")));
	json_object_put(r);
	nodes_stop();
	return 0;
}

/* CZ_FLEET_BENCH=1: throughput with 1, 2, ... CZ_FLEET_BENCH_NODES (default 3,
 * at most NODES_MAX) null nodes (2 consumers, 100 ms a partition on one
 * device: 10 partitions/s a node at best), CZ_FLEET_BENCH_JOBS (default 20,
 * at most 200) jobs x 4 partitions submitted through node 0, makespan from
 * the first submit to the last await, and the load average at the end of
 * each row (docs/BENCHMARKS.md "Fleet: the daemon"); CZ_FLEET_BENCH_NOTIFY=ab
 * follows each row with the same nodes under --fleet-notify off (A/B, one
 * after the other under the same load).  Diagnostics only, no test points. */
static void bench(void)
{
	int most = getenv("CZ_FLEET_BENCH_NODES") ? atoi(getenv("CZ_FLEET_BENCH_NODES")) : NODES;
	most = most < 1 ? 1 : most > NODES_MAX ? NODES_MAX : most;
	int nj = getenv("CZ_FLEET_BENCH_JOBS") ? atoi(getenv("CZ_FLEET_BENCH_JOBS")) : 20;
	nj = nj < 1 ? 1 : nj > 200 ? 200 : nj;
	bool ab = getenv("CZ_FLEET_BENCH_NOTIFY") && !strcmp(getenv("CZ_FLEET_BENCH_NOTIFY"), "ab");
	for (int k = 1; k <= most; k++)
		if (bench_row(k, nj, NULL) || (ab && bench_row(k, nj, "off")))
			return;
}

int main(int argc, char **argv)
{
	(void)argc;
	struct cz_groth16_key key;
	char err[256];

	ct_plan(43);
	if (e2e_begin(argv[0], "e2e_fleet"))
		return ct_exit();
	if (!mkdtemp(dir)) {
		ct_diag("mkdtemp: %s", strerror(errno));
		return ct_exit();
	}
	if (pg_start(&pg) || pg_createdb(&pg, "fleet", conn, sizeof conn)) {
		skip_n(40, pg.why[0] ? pg.why : "no PostgreSQL");
		return ct_exit();
	}
	oracle = PQconnectdb(conn);
	struct cz_groth16_vk vk;
	if (fixtures_make(&key) || (cz_groth16_vk_from_key(&vk, &key), cz_groth16_vk_json_write(fmt("%s/vk.json", dir), &vk, err))) {
		ct_diag("fixtures: %s", err);
		pg_stop(&pg, 0);
		return ct_exit();
	}
	int up = 0;
	for (int i = 0; i < NODES; i++)
		up += node_start(i, fmt("n%d", i), "cpu", "0") == 0;
	ct_ok(up == NODES, "three cuzkd --fleet (cpu) registered: nodes %" PRId64 ", %" PRId64 ", %" PRId64, node_id[0],
	      node_id[1], node_id[2]);
	if (up == NODES)
		phase1();
	else
		skip_n(12, "the nodes did not start");
	nodes_stop();
	if (getenv("CZ_FLEET_BENCH"))
		bench();
	phase2();
	phase3();
	phase4();
	phase5();
	phase6();
	phase7();
	phase8();
	phase9();
	nodes_stop();
	ctl_cancel();
	PQfinish(oracle);
	cz_groth16_key_free(&key);
	pg_stop(&pg, ct_fail);
	return e2e_end();
}
#endif
