/* SPDX-License-Identifier: MIT */
/* Description: the real cuzkd under issue 9's scenarios: from its own trace, every device accounted and >= 99% of idle named (tools/cuzk-trace-report --check), the order bound, live status agreeing with the report. */
#include <math.h>

/*
 * "No device idle > 1 ms while work was ready" is asserted on the daemon's
 * own share: on the loaded 2-core machine a consumer or the order thread
 * waits 2-12 ms on a run queue now and then (the whole daemon off-CPU, its
 * finalizer and synthesis included), and the trace's "sched" events
 * (kernel schedstat run_delay, engine/evidence/trace.h) name that time "scheduler
 * delay"; the report's ready_idle_daemon_max_ms is a stretch less it, and
 * --check --ready-idle-ms 1 checks that.  Building with
 * -DCZ_READY_IDLE_LANDED=0 only measures it.
 */
#ifndef CZ_ORDER_LANDED
#define CZ_ORDER_LANDED 1
#endif
#ifndef CZ_READY_IDLE_LANDED
#define CZ_READY_IDLE_LANDED 1
#endif
/* Under a sanitizer every path of the daemon runs 5-15x slower (TSan
 * measured a 5.9 ms ready-idle stretch on the loaded machine), so there
 * the bound is 20 ms: the sanitizer runs check memory and races, the plain
 * build checks the 1 ms. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define READY_IDLE_MS 20.0
#else
#define READY_IDLE_MS 1.0
#endif
#define NEEDS_ORDER "needs the order branch"

#define NPART 6
#define NWTNS NPART             /* a job: one partition of each witness */

#define CZ_DAEMON_ENV_ISOLATION
#define CZ_DAEMON_START_TRIES 500
#define CZ_DAEMON_STOP_TRIES 1000
#include "selftests/cz_daemon.h"

static struct cz_groth16_key key;
static int64_t key_bytes, part_bytes;

/* ---- the daemon ---- */

/* A request with one passed descriptor, or none when fd < 0. */
static json_object *req(struct daemon *d, const char *json, int fd)
{
	return daemon_req(d, json, &fd, fd >= 0);
}

static double num(json_object *o, const char *k)
{
	json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : NAN;
}

static double cause(json_object *o, const char *c)
{
	json_object *by = json_object_object_get(o, "idle_by_cause_ms"), *v;
	return by && json_object_object_get_ex(by, c, &v) ? json_object_get_double(v) : 0;
}

/* ---- an independent count from the raw trace ---- */

struct tpart {
	int64_t job, part, prio, enq, start;
	int dev;
};

struct trace {
	struct tpart p[512];
	int n;
	int64_t final_end_max[256], output_ns[256];  /* per job */
	int finalizers_used;                          /* bit per finalizer unit that verified */
	int cons_dev[64];       /* consumer index -> device, from the header */
	int ncons;
};

static struct tpart *tpart_of(struct trace *t, int64_t job, int64_t part)
{
	for (int i = 0; i < t->n; i++)
		if (t->p[i].job == job && t->p[i].part == part)
			return &t->p[i];
	if (t->n == 512)
		return NULL;
	t->p[t->n] = (struct tpart){ job, part, 2, -1, -1, -1 };
	return &t->p[t->n++];
}

static void trace_read(const char *path, struct trace *t)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int64_t prio[256];

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 256; i++)
		prio[i] = 2;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = json_object_get_string(json_object_object_get(e, "ev"));
		const char *th = json_object_get_string(json_object_object_get(e, "thread"));
		int64_t job = (int64_t)num(e, "job"), part = (int64_t)num(e, "part"), ns = (int64_t)num(e, "ns");
		unsigned dv, k;
		if (!strcmp(ev, "thread") && sscanf(th, "consumer %u.%u", &dv, &k) == 2 && num(e, "unit") < 64) {
			t->cons_dev[(int)num(e, "unit")] = (int)dv;
			if ((int)num(e, "unit") + 1 > t->ncons)
				t->ncons = (int)num(e, "unit") + 1;
		} else if (!strcmp(ev, "submit") && job >= 0 && job < 256) {
			prio[job] = (int64_t)num(e, "arg");
		} else if (!strcmp(ev, "final_end") && job >= 0 && job < 256) {
			if (ns > t->final_end_max[job])
				t->final_end_max[job] = ns;
			t->finalizers_used |= 1 << ((int)num(e, "unit") & 15);
		} else if (!strcmp(ev, "output") && job >= 0 && job < 256) {
			t->output_ns[job] = ns;
		} else if (!strcmp(ev, "enqueue") || !strcmp(ev, "compute_start")) {
			struct tpart *p = tpart_of(t, job, part);
			if (!p)
				continue;
			if (ev[0] == 'e')
				p->enq = ns;
			else {
				p->start = ns;
				p->dev = t->cons_dev[(int)num(e, "unit") & 63];
			}
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	for (int i = 0; i < t->n; i++)
		t->p[i].prio = t->p[i].job >= 0 && t->p[i].job < 256 ? prio[t->p[i].job] : 2;
}

static int key_gt(const struct tpart *a, const struct tpart *b)
{
	if (a->prio != b->prio)
		return a->prio > b->prio;
	if (a->job != b->job)
		return a->job > b->job;
	return a->part > b->part;
}

/* The issue's definition, counted by brute force. */
static int worst_inversions(const struct trace *t)
{
	int worst = 0;
	for (int i = 0; i < t->n; i++) {
		const struct tpart *b = &t->p[i];
		if (b->enq < 0 || b->start < 0)
			continue;
		int n = 0;
		for (int j = 0; j < t->n; j++) {
			const struct tpart *a = &t->p[j];
			if (a->start > b->enq + 1000000 && a->start < b->start && key_gt(a, b))
				n++;
		}
		if (n > worst)
			worst = n;
	}
	return worst;
}

/* ---- one scenario ---- */

struct scen {
	const char *name;
	const char *const *args;
	int ndev, ncons;
	void (*run)(struct daemon *d);
	void (*extra)(json_object *rep, json_object *status, const struct trace *t);
	int order_ok_now;       /* 1: the order bound holds already (synthesis or budget
				 * limits how much is ready at once), so assert it now */
};

static json_object *mid_status;  /* status taken while the jobs run */

static void run_issue(struct daemon *d)
{
	for (int j = 0; j < 3; j++)
		submit(d, fmt("n%d", j), "normal", NPART);
	submit(d, "crit", "critical", NPART);
	submit(d, "low", "low", NPART);
	json_object_put(mid_status);
	mid_status = req(d, "{\"op\":\"status\"}", -1);
	const char *ids[] = { "n0", "n1", "n2", "crit", "low" };
	for (int j = 0; j < 5; j++)
		await_done(d, ids[j], NULL, 0);
}

static void run_pause(struct daemon *d)
{
	submit(d, "a", "normal", NPART);
	await_done(d, "a", NULL, 0);
	usleep(300000);
	submit(d, "b", "normal", NPART);
	await_done(d, "b", NULL, 0);
}

static void run_backlog(struct daemon *d)
{
	for (int j = 0; j < 5; j++)
		submit(d, fmt("n%d", j), "normal", NPART);
	submit(d, "crit", "critical", NPART);
	for (int j = 0; j < 5; j++)
		await_done(d, fmt("n%d", j), NULL, 0);
	await_done(d, "crit", NULL, 0);
}

/* As a client should (/readyz): every device's warm-up proof verified
 * before the jobs, so the scenario measures serving, not starting. */
static int wait_warm(struct daemon *d, int ndev)
{
	for (int i = 0; i < 1000; i++) {
		json_object *st = req(d, "{\"op\":\"status\"}", -1);
		json_object *devs = json_object_object_get(st, "devices");
		int n = 0;
		for (int k = 0; devs && k < (int)json_object_array_length(devs); k++) {
			json_object *wu = json_object_object_get(json_object_array_get_idx(devs, k), "warm_up");
			const char *s = json_object_get_string(json_object_object_get(wu, "state"));
			n += s && !strcmp(s, "verified");
		}
		json_object_put(st);
		if (n == ndev)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int fetch_trace(struct daemon *d, const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	json_object *r = req(d, "{\"op\":\"trace\"}", fd);
	close(fd);
	json_object_put(r);
	return r ? 0 : -1;
}

static json_object *report(const char *trace, int *status)
{
	char cmd[4 * PATH_MAX];
	*status = -1;
	static char buf[1 << 20];
	snprintf(cmd, sizeof(cmd), "python3 %s/tools/cuzk-trace-report --json --check --ready-idle-ms %g %s",
		 root, READY_IDLE_MS, trace);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = 0;
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return json_tokener_parse(buf);
}

/* A point that needs the order branch: measured and printed, asserted
 * once CZ_ORDER_LANDED (or when the scenario already meets it). */
static void order_point(int ok, int assert_now, const char *what)
{
	if (CZ_ORDER_LANDED || assert_now)
		ct_ok(ok, "%s", what);
	else if (ok)
		ct_skip(NEEDS_ORDER, "%s (holds in this run)", what);
	else
		ct_skip(NEEDS_ORDER, "%s (FAILS in this run)", what);
}

/* The ready-idle point: measured and printed, asserted once
 * CZ_READY_IDLE_LANDED (see the top). */
#define READY_IDLE_WHY "built with CZ_READY_IDLE_LANDED=0"
static void ready_point(int ok, const char *what)
{
	if (CZ_READY_IDLE_LANDED)
		ct_ok(ok, "%s", what);
	else if (ok)
		ct_skip(READY_IDLE_WHY, "%s (holds in this run)", what);
	else
		ct_skip(READY_IDLE_WHY, "%s (FAILS in this run)", what);
}

#define POINTS_PER_SCEN 7

static void scenario(const struct scen *s)
{
	struct daemon d;
	char tpath[PATH_MAX + 64];

	if (!ct_ok(daemon_start(&d, s->name, s->args) == 0, "%s: cuzkd starts", s->name)) {
		for (int i = 1; i < POINTS_PER_SCEN; i++)
			ct_ok(0, "%s: (not run)", s->name);
		return;
	}
	json_object *r = req(&d, fmt("{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir), -1);
	key_bytes = (int64_t)num(r, "key_bytes");
	json_object_put(r);
	r = req(&d, "{\"op\":\"circuits\"}", -1);
	part_bytes = (int64_t)num(json_object_array_get_idx(json_object_object_get(r, "circuits"), 0),
				  "partition_bytes");
	json_object_put(r);
	if (wait_warm(&d, s->ndev))
		ct_diag("%s: the devices' warm-up did not finish", s->name);
	s->run(&d);
	usleep(150000);         /* past the live accounting's 5 ms horizon and 100 ms look ahead */
	json_object *st = req(&d, "{\"op\":\"status\"}", -1);
	snprintf(tpath, sizeof(tpath), "%s/%s.trace.jsonl", dir, s->name);
	fetch_trace(&d, tpath);
	int stop = daemon_stop(&d);
	int rc;
	json_object *rep = report(tpath, &rc);
	json_object *devs = json_object_object_get(rep, "devices");
	int ndev = devs ? (int)json_object_array_length(devs) : -1;
	json_object *o = json_object_object_get(rep, "order");
	struct trace *t = calloc(1, sizeof(*t));
	trace_read(tpath, t);
	int inv = worst_inversions(t);

	ct_diag("%s: window %.1f ms, duty %.1f%%, %.2f%% of idle named, worst inversions %d (bound %d), "
		"longest idle while work ready %.2f ms, %.3f ms of it the daemon's (not scheduler delay); %d sched samples",
		s->name, num(rep, "window_ms"), 100 * num(rep, "duty"),
		100 * num(rep, "named_share"), (int)num(o, "max_inversions"), (int)num(o, "bound"),
		num(rep, "ready_idle_max_ms"), num(rep, "ready_idle_daemon_max_ms"), (int)num(rep, "sched_samples"));
	for (int i = 0; i < ndev; i++) {
		json_object *dv = json_object_array_get_idx(devs, i);
		ct_diag("  device %d: busy %.1f ms, %d partitions; idle: %s", i, num(dv, "busy_ms"),
			(int)num(dv, "partitions"), json_object_to_json_string(json_object_object_get(dv, "idle_by_cause_ms")));
	}
	int order_ok = inv <= s->ncons, ready_ok = num(rep, "ready_idle_daemon_max_ms") <= READY_IDLE_MS &&
					      num(rep, "sched_samples") > 0;
	ct_ok(ndev == s->ndev && num(rep, "named_share") >= 0.99 && stop == 0 &&
	      (rc == 0) == (order_ok && ready_ok),
	      "%s: all %d devices in the report (%d), %.2f%% of idle named (>= 99%%), clean stop; "
	      "--check exits %d, as the order and ready-idle points say", s->name, s->ndev, ndev,
	      100 * num(rep, "named_share"), rc);
	ct_ok(t->ncons == s->ncons && (int)num(o, "bound") == s->ncons && (int)num(o, "max_inversions") == inv,
	      "%s: the report's worst inversion count %d equals a brute-force count from the raw trace (%d); bound %d consumers",
	      s->name, (int)num(o, "max_inversions"), inv, (int)num(o, "bound"));
	order_point(order_ok, s->order_ok_now,
		    fmt("%s: order bound: worst partition saw %d higher-key starts while ready (bound %d)", s->name,
			inv, s->ncons));
	ready_point(ready_ok,
		    fmt("%s: no device idle > %g ms while work was ready, by the daemon (longest %.3f ms; "
			"%.2f ms with scheduler delay; the trace has %d sched samples)", s->name, READY_IDLE_MS,
			num(rep, "ready_idle_daemon_max_ms"), num(rep, "ready_idle_max_ms"),
			(int)num(rep, "sched_samples")));

	/* Live status against the report: the same events, two implementations. */
	json_object *sd = json_object_object_get(st, "devices");
	int agree = sd && (int)json_object_array_length(sd) == s->ndev;
	for (int i = 0; agree && i < s->ndev; i++) {
		json_object *live = json_object_object_get(json_object_array_get_idx(sd, i), "since_start");
		json_object *off = json_object_array_get_idx(devs, i);
		double lb = num(live, "busy_ms"), ob = num(off, "busy_ms");
		if (!(fabs(lb - ob) <= 1 + 0.02 * ob))
			agree = 0;
		json_object *by = json_object_object_get(off, "idle_by_cause_ms");
		json_object_object_foreach(by, c, v) {
			if (!strcmp(c, "nothing submitted"))
				continue;       /* live counts from daemon start, the report from the first submit */
			double x = cause(live, c), y = json_object_get_double(v);
			if (!(fabs(x - y) <= 1 + 0.02 * y)) {
				ct_diag("  device %d %s: live %.3f ms, report %.3f ms", i, c, x, y);
				agree = 0;
			}
		}
		if (!agree)
			ct_diag("  device %d busy: live %.3f ms, report %.3f ms", i, lb, ob);
		if (num(live, "unattributed_ms") > 0.01 * num(live, "idle_ms"))
			agree = 0;
	}
	ct_ok(agree, "%s: status's live per-device busy and idle by cause agree with the report (1 ms + 2%%)", s->name);
	s->extra(rep, st, t);
	json_object_put(st);
	json_object_put(rep);
	free(t);
}

static void extra_issue(json_object *rep, json_object *st, const struct trace *t)
{
	(void)st;
	(void)t;
	int n = 0, crit = 0;
	json_object *jobs = json_object_object_get(rep, "jobs");
	for (size_t i = 0; jobs && i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		n += (int)num(j, "partitions");
		if (!strcmp(json_object_get_string(json_object_object_get(j, "priority")), "critical")) {
			crit++;
			ct_diag("  critical job: waited behind up to %d partitions, ready->start max %.1f ms",
				(int)num(j, "inversions_max"), num(j, "ready_to_start_max_ms"));
		}
	}
	ct_ok(n == 5 * NPART && crit == 1, "all %d partitions of the 5 jobs ran, one critical job", n);
}

static void extra_cpu(json_object *rep, json_object *st, const struct trace *t)
{
	/* While the jobs ran: each job's counts cover its partitions, and each
	 * partition placed on a consumer names that consumer's device as the
	 * trace header does. */
	json_object *jobs = json_object_object_get(mid_status, "jobs");
	int placed = 0, bad = 0, njobs = jobs ? (int)json_object_array_length(jobs) : 0;
	for (int i = 0; i < njobs; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		int sum = 0;
		json_object_object_foreach(json_object_object_get(j, "counts"), k, v) {
			(void)k;
			sum += json_object_get_int(v);
		}
		bad += sum != NPART;
		json_object *pl = json_object_object_get(j, "placed");
		for (size_t k = 0; pl && k < json_object_array_length(pl); k++) {
			json_object *w = json_object_array_get_idx(pl, k);
			placed++;
			bad += (int)num(w, "device") != t->cons_dev[(int)num(w, "consumer") & 63];
		}
	}
	ct_ok(njobs == 5 && !bad && num(rep, "busy_ms") > 0,
	      "status while running: %d jobs, each job's counts sum to %d; %d partitions placed, each on its consumer's device per the trace header",
	      njobs, NPART, placed);
	/* Two finalizers (the default): both verified, and each job was
	 * written once, after the last of its partitions was verified. */
	int late = 0, written = 0;
	for (int j = 0; j < 256; j++) {
		if (!t->output_ns[j])
			continue;
		written++;
		late += t->output_ns[j] < t->final_end_max[j];
	}
	/* Per-job accounting (status's jobs[].accounting, as await's): CPU
	 * seconds per stage from each stage thread's clock, no more than the
	 * stage's wall time and above 0 on the cpu backend; peak buffer bytes
	 * between one and all of the job's partitions; one attempt each. */
	json_object *sj = json_object_object_get(st, "jobs");
	int acct_ok = sj && json_object_array_length(sj) == 5;
	for (size_t i = 0; acct_ok && i < json_object_array_length(sj); i++) {
		json_object *a = json_object_object_get(json_object_array_get_idx(sj, i), "accounting");
		json_object *cpu = json_object_object_get(a, "cpu_seconds");
		double cs = num(cpu, "synthesis"), cd = num(cpu, "device"), cf = num(cpu, "finalize");
		double pk = num(a, "peak_buffer_bytes");
		json_object *pa = json_object_object_get(a, "partition_attempts");
		int ones = 0;
		for (size_t k = 0; pa && k < json_object_array_length(pa); k++)
			ones += json_object_get_int(json_object_array_get_idx(pa, k)) == 1;
		if (!(cs > 0 && cd > 0 && cf > 0 && cs * 1e3 <= num(a, "synthesis_ms") + 0.5 &&
		      cd * 1e3 <= num(a, "device_ms") + 0.5 && cf * 1e3 <= num(a, "finalize_ms") + 0.5 &&
		      pk >= (double)part_bytes && pk <= (double)part_bytes * NPART && (int)num(a, "attempts") == NPART &&
		      ones == NPART)) {
			ct_diag("job %zu accounting: %s", i, json_object_to_json_string(a));
			acct_ok = 0;
		}
	}
	ct_ok(acct_ok, "per-job accounting on the cpu backend: CPU seconds per stage in (0, the stage's wall time], "
	      "peak buffer bytes in [1, %d] partitions, %d attempts, one per partition", NPART, NPART);
	json_object *wu = json_object_object_get(json_object_array_get_idx(json_object_object_get(st, "devices"), 0),
						 "warm_up");
	const char *wst = json_object_get_string(json_object_object_get(wu, "state"));
	ct_ok(wst && !strcmp(wst, "verified"),
	      "cpu: status says device 0's warm-up proof was verified before it served: %s (%s)", wst ? wst : "?",
	      json_object_get_string(json_object_object_get(wu, "detail")));
	ct_ok(t->finalizers_used == 3 && written == 5 && !late,
	      "parallel finalizers: finalizers used (bits) %#x (want 0x3); %d jobs written, %d before their last verification",
	      t->finalizers_used, written, late);
}

static void extra_budget(json_object *rep, json_object *st, const struct trace *t)
{
	(void)t;
	json_object *b = json_object_object_get(st, "budget");
	double w = cause(rep, "waiting for budget") + cause(rep, "finalizer backpressure");
	ct_ok(num(b, "high_water") <= (double)(key_bytes + part_bytes * 5 / 2) && num(b, "waits") > 0 && w > 0,
	      "budget: high water %.0f <= key + 2.5 partitions, %.0f waits, %.2f ms of idle named budget or finalizer",
	      num(b, "high_water"), num(b, "waits"), w);
}

static void extra_slow(json_object *rep, json_object *st, const struct trace *t)
{
	(void)st;
	(void)t;
	double syn = cause(rep, "waiting for a synthesis worker") + cause(rep, "waiting for synthesis");
	ct_ok(syn >= 0.5 * num(rep, "idle_ms"),
	      "slow synthesis: synthesis is the cause of %.1f of %.1f idle ms (at least half)", syn, num(rep, "idle_ms"));
}

static void extra_pause(json_object *rep, json_object *st, const struct trace *t)
{
	(void)st;
	(void)t;
	json_object *devs = json_object_object_get(rep, "devices");
	int ok = devs != NULL;
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		double n = cause(json_object_array_get_idx(devs, i), "nothing submitted");
		ct_diag("  device %zu: nothing submitted %.1f ms", i, n);
		ok &= n >= 300;
	}
	ct_ok(ok, "pause: each device has >= 300 ms 'nothing submitted' (the test slept 300 ms with no job)");
}

static void extra_backlog(json_object *rep, json_object *st, const struct trace *t)
{
	(void)rep;
	(void)st;
	/* Per device: partitions of other jobs that started on it after the
	 * critical job's first partition was ready (+1 ms) and before the
	 * critical job's first start there. */
	int64_t crit = -1, ready = INT64_MAX;
	for (int i = 0; i < t->n; i++)
		if (t->p[i].prio == 0) {
			crit = t->p[i].job;
			if (t->p[i].enq >= 0 && t->p[i].enq < ready)
				ready = t->p[i].enq;
		}
	int worst = 0, per_dev = 2;
	for (int d = 0; d < 2; d++) {
		int64_t first = INT64_MAX;
		for (int i = 0; i < t->n; i++)
			if (t->p[i].job == crit && t->p[i].dev == d && t->p[i].start >= 0 && t->p[i].start < first)
				first = t->p[i].start;
		int n = 0;
		for (int i = 0; i < t->n; i++)
			if (t->p[i].job != crit && t->p[i].dev == d && t->p[i].start > ready + 1000000 &&
			    t->p[i].start < first)
				n++;
		ct_diag("  device %d: %d other partitions started before the critical job's first", d, n);
		if (n > worst)
			worst = n;
	}
	order_point(crit >= 0 && worst <= per_dev, 0,
		    fmt("backlog: a critical job behind 30 partitions starts on each device after at most %d (one per consumer); worst %d",
			per_dev, worst));
}

static json_object *dev_window(json_object *st, int d, const char *w)
{
	return json_object_object_get(json_object_array_get_idx(json_object_object_get(st, "devices"), d), w);
}

/* The live last-10-s window forgets: after 10.6 s with nothing to do, a
 * device's last_10s has no busy time and is all "nothing submitted", while
 * since_start keeps the job's busy time unchanged. */
static void test_window(const char *const *args)
{
	struct daemon d;
	if (!ct_ok(daemon_start(&d, "window", args) == 0, "window: cuzkd starts")) {
		ct_ok(0, "window: (not run)");
		return;
	}
	load_key(&d);
	wait_warm(&d, 2);
	submit(&d, "one", "normal", NPART);
	await_done(&d, "one", NULL, 0);
	usleep(150000);
	json_object *a = req(&d, "{\"op\":\"status\"}", -1);
	usleep(10600000);
	json_object *b = req(&d, "{\"op\":\"status\"}", -1);
	daemon_stop(&d);
	int ok = 1;
	for (int i = 0; i < 2; i++) {
		double busy_a = num(dev_window(a, i, "since_start"), "busy_ms");
		double last_a = num(dev_window(a, i, "last_10s"), "busy_ms");
		double busy_b = num(dev_window(b, i, "since_start"), "busy_ms");
		json_object *lb = dev_window(b, i, "last_10s");
		ct_diag("device %d: busy %.1f ms (last 10 s: %.1f); 10.6 s later since start %.1f ms, last 10 s busy %.1f of %.1f ms, "
			"nothing submitted %.1f ms", i, busy_a, last_a, busy_b, num(lb, "busy_ms"), num(lb, "window_ms"),
			cause(lb, "nothing submitted"));
		ok &= busy_a > 0 && fabs(last_a - busy_a) < 0.01 && fabs(busy_b - busy_a) < 0.01 &&
		      num(lb, "busy_ms") == 0 && num(lb, "window_ms") >= 9000 && num(lb, "window_ms") <= 10000 &&
		      fabs(cause(lb, "nothing submitted") - num(lb, "window_ms")) < 0.01;
	}
	ct_ok(ok, "window: last_10s held the job's busy time, then forgot it; since_start kept it");
	json_object_put(a);
	json_object_put(b);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-ev"))
		return 1;
	ct_plan(6 * POINTS_PER_SCEN + 5);
	if (!mkdtemp(dir) || fixtures_make(&key)) {
		ct_ok(0, "fixtures");
		return ct_exit();
	}
	/* key + 2.5 partitions, as the daemon charges them (cuzkd(8) Memory). */
	uint64_t n = 1ull << key.log2n;
	uint64_t part = (uint64_t)key.nvars * 32 + 4 * n * 32;
	uint64_t kb = (key.npub + 1 + 3ull * key.nvars + n) * sizeof(cz_g1_affine) +
		      key.nvars * sizeof(cz_g2_affine) + key.ncoefs * sizeof(struct cz_groth16_coef) +
		      n * 2 * sizeof(cz_fr);
	static char budget[32];
	snprintf(budget, sizeof(budget), "%llu", (unsigned long long)(kb + part * 5 / 2));

	const char *null2[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
				"--null-synth-ms", "5", "--synth-workers", "3", NULL };
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--consumers-per-device", "2",
			      "--synth-workers", "1", "--mem-budget", "1G", NULL };
	const char *bud[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
			      "--null-synth-ms", "5", "--synth-workers", "3", "--mem-budget", budget, NULL };
	const char *slow[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "5",
			       "--null-synth-ms", "20", "--synth-workers", "2", NULL };
	const struct scen sc[] = {
		{ "null2", null2, 2, 4, run_issue, extra_issue, 0 },
		{ "cpu", cpu, 1, 2, run_issue, extra_cpu, 0 },
		{ "budget", bud, 2, 4, run_issue, extra_budget, 1 },
		{ "slowsynth", slow, 2, 4, run_issue, extra_slow, 1 },
		{ "pause", null2, 2, 4, run_pause, extra_pause, 1 },
		{ "backlog", null2, 2, 4, run_backlog, extra_backlog, 0 },
	};
	for (size_t i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		scenario(&sc[i]);
	test_window(null2);
	cz_groth16_key_free(&key);
	json_object_put(mid_status);
	return e2e_end();
}
