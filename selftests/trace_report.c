/* SPDX-License-Identifier: MIT */
/* Description: tools/cuzk-trace-report on hand-made traces: busy, idle by cause, inversions and --check against figures worked out by hand. */
#include "selftests/cz_test.h"

#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[2 * PATH_MAX], dir[PATH_MAX];

struct ev {
	double ms;
	const char *ev;
	int job, part;
	const char *thread;
	int unit, arg;
};

#define C0 "consumer 0.0"
#define C1 "consumer 1.0"
#define D "dispatcher"
#define S "synth"
#define F "finalizer"

/* The pairs the engine always writes together, so that a table reads as the
 * hand count does: a partition synthesized and enqueued (at ms), one a
 * consumer pops (at pop) and starts computing (at start), one computed (at
 * end) that the finalizer starts on (at final).  END closes a table. */
#define SYNTHED(ms, job, part) { ms, "synth_end", job, part, S, 0, 0 }, { ms, "enqueue", job, part, S, 0, 0 }
#define TAKEN(pop, start, job, part, thread, unit, arg)                     \
	{ pop, "pop", job, part, thread, unit, arg }, { start, "compute_start", job, part, thread, unit, arg }
#define PROVED(end, final, job, part, thread, unit)                         \
	{ end, "compute_end", job, part, thread, unit, 0 }, { final, "final_start", job, part, F, 0, 0 }
#define END { -1, NULL, 0, 0, NULL, 0, 0 }

/*
 * Trace A: 3 devices of one consumer each; device 2 runs nothing (only the
 * header names it).  Window 0..30 ms.  The causes of every idle millisecond,
 * worked out by hand from the events (see the comments):
 *   0-1   queued 2, dispatcher running          dispatch latency      (all 3)
 *   1-4   dispatcher waits for a worker         synthesis worker      (all 3)
 *   4-5   j1p0 enqueued, not popped             order latency         (all 3)
 *   5-6   c0 holds j1p0: dev0 hand-off, dev1/2 ready on another device
 *   6-8   dev0 busy; j1p1 in synthesis          waiting for synthesis (dev1, dev2)
 *   8-9   j1p1 enqueued                         order latency         (dev1, dev2)
 *   9-10  c1 holds j1p1: dev1 hand-off, dev2 ready on another device
 *   10-12 nothing queued or synthesizing        nothing submitted     (dev2)
 *   12-16 j2 waits for budget, finalizer idle   waiting for budget    (dev2)
 *   16-17 ... finalizer has j1p0 to do          finalizer backpressure (dev0, dev2)
 *   17-18 ... finalizer idle again             waiting for budget    (dev0, dev2)
 *   18-21 j2p0 in synthesis                     waiting for synthesis (dev0, dev2; dev1 20-21)
 *   21-22 j2p0 enqueued                         order latency         (all 3)
 *   22-23 c0 holds j2p0: dev0 hand-off, dev1/2 ready on another device
 *   23-30 nothing left                          nothing submitted     (dev1, dev2)
 * Busy: dev0 6-16 and 23-30 (17 ms), dev1 10-20 (10 ms), dev2 none.
 */
static const struct ev trace_a[] = {
	{ 0, "submit", 1, 2, "control", 0, 2 },
	{ 1, "dispatch", 1, 0, D, 0, 0 },
	{ 1, "disp_wait", 1, 1, D, 0, 1 },
	{ 2, "synth_start", 1, 0, S, 0, 0 },
	SYNTHED(4, 1, 0),
	{ 4, "dispatch", 1, 1, D, 0, 0 },
	TAKEN(5, 6, 1, 0, C0, 0, 0),
	SYNTHED(8, 1, 1),
	{ 8, "disp_wait", 0, 0, D, 0, 0 },
	TAKEN(9, 10, 1, 1, C1, 1, 1),
	{ 12, "submit", 2, 1, "control", 0, 0 },
	{ 12, "budget_wait", 2, 0, D, 0, 0 },
	PROVED(16, 17, 1, 0, C0, 0),
	{ 18, "budget_got", 2, 0, D, 0, 0 },
	{ 18, "dispatch", 2, 0, D, 0, 0 },
	{ 18, "disp_wait", 0, 0, D, 0, 0 },
	PROVED(20, 20, 1, 1, C1, 1),
	SYNTHED(21, 2, 0),
	TAKEN(22, 23, 2, 0, C0, 0, 0),
	PROVED(30, 30, 2, 0, C0, 0),
	END,
};
static const char *const heads_a[] = { "consumer 0.0", "consumer 1.0", "consumer 2.0", NULL };

/* Trace B: one device, one consumer (bound 1).  Critical j2p0 is ready at
 * 1 ms but j1p0 (starts at 3) and j1p1 (at 5) go first: 2 inversions. */
static const struct ev trace_b[] = {
	{ 0, "submit", 1, 2, "control", 0, 2 },
	{ 0, "submit", 2, 1, "control", 0, 0 },
	{ 1, "enqueue", 1, 0, S, 0, 0 },
	{ 1, "enqueue", 1, 1, S, 0, 0 },
	{ 1, "enqueue", 2, 0, S, 0, 0 },
	TAKEN(2, 3, 1, 0, C0, 0, 0),
	{ 5, "compute_end", 1, 0, C0, 0, 0 },
	TAKEN(5, 5, 1, 1, C0, 0, 0),
	{ 7, "compute_end", 1, 1, C0, 0, 0 },
	TAKEN(7, 8, 2, 0, C0, 0, 0),
	{ 10, "compute_end", 2, 0, C0, 0, 0 },
	END,
};
static const char *const heads_1[] = { "consumer 0.0", NULL };

/* Trace C: a dispatch of a partition never submitted drives the queued
 * count below 0 from 2 ms until the device starts at 6 ms: 4 ms that no rule
 * may claim.  0-1 dispatch latency, 1-2 waiting for synthesis, 2-6
 * unattributed; 6-10 busy. */
static const struct ev trace_c[] = {
	{ 0, "submit", 1, 1, "control", 0, 2 },
	{ 1, "dispatch", 1, 0, D, 0, 0 },
	{ 2, "dispatch", 1, 1, D, 0, 0 },
	SYNTHED(4, 1, 0),
	TAKEN(5, 6, 1, 0, C0, 0, 0),
	{ 10, "compute_end", 1, 0, C0, 0, 0 },
	END,
};

/* Trace D: the order thread's assign and reclaim.  j1p1 is given to c0
 * while device 0 computes (3-6: device 1 idles with work ready on another
 * device), taken back, given to c1 (7-8 hand-off).  Device 1: 0-2 waiting
 * for synthesis, 2-3 and 6-7 order latency, 3-6 ready on another device,
 * 7-8 hand-off latency, busy 8-12: 6 ms at a stretch idle while work was
 * ready (2-8), over --ready-idle-ms 5.  Device 0: 0-1 synthesis, busy 1-11,
 * 11-12 nothing submitted. */
#define O "order"
static const struct ev trace_d[] = {
	{ 0, "submit", 1, 2, "control", 0, 2 },
	{ 0, "dispatch", 1, 0, D, 0, 0 },
	{ 0, "dispatch", 1, 1, D, 0, 0 },
	{ 0, "disp_wait", 0, 0, D, 0, 0 },
	SYNTHED(1, 1, 0),
	{ 1, "assign", 1, 0, O, 0, 0 },
	TAKEN(1, 1, 1, 0, C0, 0, 0),
	SYNTHED(2, 1, 1),
	{ 3, "assign", 1, 1, O, 0, 0 },
	{ 6, "reclaim", 1, 1, O, 0, 0 },
	{ 7, "assign", 1, 1, O, 1, 0 },
	TAKEN(8, 8, 1, 1, C1, 1, 1),
	{ 11, "compute_end", 1, 0, C0, 0, 0 },
	{ 12, "compute_end", 1, 1, C1, 1, 0 },
	END,
};
static const char *const heads_2[] = { "consumer 0.0", "consumer 1.0", NULL };

/* Trace E: scheduler delay.  One device, consumers c0 ("consumer 0.0")
 * and c1 ("consumer 0.1"); c0 computes j1p0 0-2 while c1 holds j1p1 and
 * waits for the device (lock_wait at 1).  c0's sched event at 5 says
 * 2 ms on a run queue: [3, 5]; c1's at 6 says 3 ms: [max(3, its last
 * event 1), 6] = [3, 6].  By hand: 2-3 hand-off latency (c0 on a CPU),
 * 3-5 scheduler delay (the holder c1 queued, c0 queued), 5-6 scheduler
 * delay (c0 went idle at 5: asleep; c1 queued), 6-8 hand-off latency
 * (c1 on a CPU until it starts at 8); busy 8-11.  A 6-ms stretch idle
 * while work was ready, 3 ms of it the daemon's: --ready-idle-ms 5 passes. */
#define C01 "consumer 0.1"
/* Traces E and F begin alike: j1p0 computes on c0 0-2 while c1 holds j1p1
 * and waits for the device from 1. */
#define C0_COMPUTES_C1_HOLDS                                                \
	{ 0, "submit", 1, 2, "control", 0, 2 },                             \
	{ 0, "dispatch", 1, 0, D, 0, 0 },                                   \
	{ 0, "dispatch", 1, 1, D, 0, 0 },                                   \
	{ 0, "disp_wait", 0, 0, D, 0, 0 },                                  \
	SYNTHED(0, 1, 0),                                                   \
	SYNTHED(0, 1, 1),                                                   \
	{ 0, "assign", 1, 0, O, 0, 0 },                                     \
	{ 0, "assign", 1, 1, O, 1, 0 },                                     \
	TAKEN(0, 0, 1, 0, C0, 0, 0),                                        \
	{ 1, "lock_wait", 1, 1, C01, 1, 0 },                                \
	{ 2, "compute_end", 1, 0, C0, 0, 0 }
static const struct ev trace_e[] = {
	C0_COMPUTES_C1_HOLDS,
	{ 5, "sched", 0, 0, C0, 0, 2000 },
	{ 5, "idle", 0, 0, C0, 0, 0 },
	{ 6, "sched", 0, 0, C01, 1, 3000 },
	TAKEN(7, 8, 1, 1, C01, 1, 0),
	{ 11, "compute_end", 1, 1, C01, 1, 0 },
	END,
};
static const char *const heads_e[] = { "consumer 0.0", "consumer 0.1", NULL };

/* Trace F: the keeper's wait.  One device, c0 and c1; c0 computes j1p0 0-2
 * while c1 holds j1p1 and sleeps on the device (lock_wait at 1).  c0 keeps
 * the device (engine/pipeline/consume.c) and takes j1p1 from c1 at 5, starting it at
 * 6; its sched event at 5 says 3 ms on a run queue: [max(2, its last event
 * 2), 5].  By hand: 2-5 scheduler delay (c0, awake and the one to start
 * it, queued; c1 asleep), 5-6 hand-off latency (c0 on a CPU); busy 0-2 and
 * 6-9.  A 4-ms ready-idle stretch, 1 ms of it the daemon's (the rule
 * before the keeper counted only holders on a run queue: all 4 ms). */
static const struct ev trace_f[] = {
	C0_COMPUTES_C1_HOLDS,
	{ 5, "sched", 0, 0, C0, 0, 3000 },
	{ 5, "reclaim", 1, 1, C0, 1, 0 },
	{ 5, "assign", 1, 1, C0, 0, 0 },
	TAKEN(5, 6, 1, 1, C0, 0, 0),
	{ 9, "compute_end", 1, 1, C0, 0, 0 },
	END,
};

static int write_trace(const char *path, const char *const *heads, const struct ev *e)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	const uint64_t base = 5000000000ull;
	for (int i = 0; heads[i]; i++)
		fprintf(f, "{\"ns\": %llu, \"ev\": \"thread\", \"job\": 0, \"part\": 0, \"thread\": \"%s\", \"unit\": %d, \"arg\": 0}\n",
			(unsigned long long)base - 1000000, heads[i], i);
	for (; e->ev; e++)
		fprintf(f, "{\"ns\": %llu, \"ev\": \"%s\", \"job\": %d, \"part\": %d, \"thread\": \"%s\", \"unit\": %d, \"arg\": %d}\n",
			(unsigned long long)(base + (uint64_t)(e->ms * 1e6)), e->ev, e->job, e->part, e->thread,
			e->unit, e->arg);
	return fclose(f);
}

/* Runs the report with --json --check; returns its JSON (NULL if none) and exit status. */

static json_object *report(const char *trace, int *status)
{
	char cmd[4 * PATH_MAX], buf[65536];
	snprintf(cmd, sizeof(cmd), "python3 %s/tools/cuzk-trace-report --json --check --ready-idle-ms 5 %s 2>/dev/null",
		 root, trace);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = 0;
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return json_tokener_parse(buf);
}

/* Writes trace e (consumers heads) to DIR/NAME.jsonl and runs the report on it. */
static json_object *report_of(const char *name, const char *const *heads, const struct ev *e, int *status)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/%s.jsonl", dir, name);
	write_trace(path, heads, e);
	return report(path, status);
}

static double num(json_object *o, const char *k)
{
	json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : NAN;
}

static double cause(json_object *o, const char *c)
{
	json_object *by = json_object_object_get(o, "idle_by_cause_ms");
	json_object *v;
	return by && json_object_object_get_ex(by, c, &v) ? json_object_get_double(v) : 0;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

struct want {
	const char *cause;
	double ms[3];           /* devices 0, 1, 2 */
};

static void test_a(void)
{
	int st;
	json_object *r = report_of("a", heads_a, trace_a, &st);
	json_object *devs = json_object_object_get(r, "devices");
	if (!ct_ok(r && devs && json_object_array_length(devs) == 3,
		   "trace A: the report has all 3 devices, the idle one included"))
		return;
	ct_ok(st == 0, "trace A: --check passes (exit %d)", st);
	ct_ok(near(num(r, "window_ms"), 30) && near(num(r, "busy_ms"), 27) && near(num(r, "idle_ms"), 63),
	      "trace A: window 30 ms, busy 27, idle 63 (got %g, %g, %g)", num(r, "window_ms"),
	      num(r, "busy_ms"), num(r, "idle_ms"));
	static const struct want w[] = {
		{ "dispatch latency", { 1, 1, 1 } },
		{ "waiting for a synthesis worker", { 3, 3, 3 } },
		{ "order latency", { 2, 3, 3 } },
		{ "hand-off latency", { 2, 1, 0 } },
		{ "ready on another device", { 0, 2, 3 } },
		{ "waiting for synthesis", { 3, 3, 5 } },
		{ "finalizer backpressure", { 1, 0, 1 } },
		{ "waiting for budget", { 1, 0, 5 } },
		{ "nothing submitted", { 0, 7, 9 } },
	};
	static const double busy[3] = { 17, 10, 0 };
	int all = 1;
	for (int d = 0; d < 3; d++) {
		json_object *o = json_object_array_get_idx(devs, d);
		all &= (int)num(o, "device") == d && near(num(o, "busy_ms"), busy[d]) &&
		       near(num(o, "idle_ms"), 30 - busy[d]) && near(num(o, "unattributed_ms"), 0);
		for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
			if (!near(cause(o, w[k].cause), w[k].ms[d])) {
				ct_diag("device %d %s: %g ms, by hand %g", d, w[k].cause, cause(o, w[k].cause), w[k].ms[d]);
				all = 0;
			}
	}
	ct_ok(all, "trace A: each device's busy time and idle by cause match the hand count (9 causes x 3 devices)");
	ct_ok(near(num(r, "unattributed_ms"), 0) && near(num(r, "named_share"), 1) &&
	      near(cause(r, "nothing submitted"), 16) && near(cause(r, "waiting for synthesis"), 11),
	      "trace A: totals: nothing unattributed, nothing submitted 16 ms, waiting for synthesis 11 ms");
	ct_ok(near(num(r, "ready_idle_max_ms"), 2) && near(num(r, "throughput_vs_ideal"), 27.0 / 90),
	      "trace A: longest idle while work was ready 2 ms; throughput 27/90 of ideal (all 3 devices count)");
	json_object *o = json_object_object_get(r, "order");
	ct_ok(near(num(o, "max_inversions"), 0) && near(num(o, "bound"), 3) && near(num(o, "partitions"), 3),
	      "trace A: no inversions, bound 3 consumers, 3 partitions");
	json_object_put(r);
}

static void test_b(void)
{
	int st;
	json_object *r = report_of("b", heads_1, trace_b, &st);
	json_object *o = json_object_object_get(r, "order");
	json_object *w = json_object_array_get_idx(json_object_object_get(o, "worst"), 0);
	ct_ok(near(num(o, "max_inversions"), 2) && near(num(o, "bound"), 1) && near(num(w, "job"), 2) &&
	      near(num(w, "part"), 0) && near(num(o, "over_bound"), 1),
	      "trace B: the critical partition saw 2 higher-key starts while ready (bound 1), the only one over");
	ct_ok(st == 1 && strstr(json_object_to_json_string(json_object_object_get(r, "check")), "order"),
	      "trace B: --check exits 1 naming the order bound (exit %d)", st);
	json_object_put(r);
}

static void test_c(void)
{
	int st;
	json_object *r = report_of("c", heads_1, trace_c, &st);
	ct_ok(near(num(r, "unattributed_ms"), 4) && near(num(r, "idle_ms"), 6) &&
	      near(cause(r, "dispatch latency"), 1) && near(cause(r, "waiting for synthesis"), 1),
	      "trace C: contradictory counts leave 4 of 6 idle ms unattributed (got %g of %g)",
	      num(r, "unattributed_ms"), num(r, "idle_ms"));
	ct_ok(st == 1 && strstr(json_object_to_json_string(json_object_object_get(r, "check")), "attribution"),
	      "trace C: --check exits 1 naming attribution (exit %d)", st);
	json_object_put(r);
}

static void test_d(void)
{
	int st;
	json_object *r = report_of("d", heads_2, trace_d, &st);
	json_object *devs = json_object_object_get(r, "devices");
	json_object *d0 = json_object_array_get_idx(devs, 0), *d1 = json_object_array_get_idx(devs, 1);
	ct_ok(d0 && d1 && near(num(d0, "busy_ms"), 10) && near(cause(d0, "waiting for synthesis"), 1) &&
	      near(cause(d0, "nothing submitted"), 1) && near(num(d1, "busy_ms"), 4) &&
	      near(cause(d1, "waiting for synthesis"), 2) && near(cause(d1, "order latency"), 2) &&
	      near(cause(d1, "ready on another device"), 3) && near(cause(d1, "hand-off latency"), 1) &&
	      near(num(r, "unattributed_ms"), 0),
	      "trace D: assign and reclaim move a partition between free and a consumer's hands as counted by hand");
	ct_ok(near(num(d1, "ready_idle_max_ms"), 6) && st == 1 &&
	      strstr(json_object_to_json_string(json_object_object_get(r, "check")), "idle while work ready"),
	      "trace D: device 1 idled 6 ms at a stretch with work ready; --check --ready-idle-ms 5 exits 1 (%d)", st);
	json_object_put(r);
}

static void test_e(void)
{
	int st;
	json_object *r = report_of("e", heads_e, trace_e, &st);
	json_object *d0 = json_object_array_get_idx(json_object_object_get(r, "devices"), 0);
	ct_ok(d0 && near(num(d0, "busy_ms"), 5) && near(cause(d0, "hand-off latency"), 3) &&
	      near(cause(d0, "scheduler delay"), 3) && near(num(d0, "idle_ms"), 6) &&
	      near(num(r, "unattributed_ms"), 0),
	      "trace E: run-queue intervals from sched events: hand-off latency 3 ms, scheduler delay 3 ms, as counted by hand "
	      "(got %g, %g)", cause(d0, "hand-off latency"), cause(d0, "scheduler delay"));
	ct_ok(near(num(r, "ready_idle_max_ms"), 6) && near(num(r, "ready_idle_daemon_max_ms"), 3) && st == 0,
	      "trace E: a 6-ms ready-idle stretch, 3 ms of it the daemon's; --check --ready-idle-ms 5 passes (exit %d)", st);
	json_object_put(r);
}

static void test_f(void)
{
	int st;
	json_object *r = report_of("f", heads_e, trace_f, &st);
	json_object *d0 = json_object_array_get_idx(json_object_object_get(r, "devices"), 0);
	ct_ok(d0 && near(num(d0, "busy_ms"), 5) && near(cause(d0, "hand-off latency"), 1) &&
	      near(cause(d0, "scheduler delay"), 3) && near(num(d0, "idle_ms"), 4) &&
	      near(num(r, "unattributed_ms"), 0) && near(num(r, "ready_idle_daemon_max_ms"), 1),
	      "trace F: the device's keeper queued while its peer sleeps holding the next: scheduler delay 3 ms, "
	      "hand-off latency 1 ms, as counted by hand (got %g, %g)", cause(d0, "scheduler delay"),
	      cause(d0, "hand-off latency"));
	json_object_put(r);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	(void)argc;
	if (!realpath(argv[0], self))
		return 1;
	snprintf(root, sizeof(root), "%s/../..", dirname(self));
	snprintf(dir, sizeof(dir), "/tmp/cuzk-trace-XXXXXX");
	ct_plan(16);
	if (!mkdtemp(dir)) {
		ct_ok(0, "temporary directory");
		return ct_exit();
	}
	test_a();
	test_b();
	test_c();
	test_d();
	test_e();
	test_f();
	if (!ct_fail) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ct_diag("could not remove %s", dir);
	}
	return ct_exit();
}
