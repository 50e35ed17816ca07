/* SPDX-License-Identifier: MIT */
/* Description: cuzkd with circom inputs (issue 25): load --wasm builds once (and --witness-lib takes a witness-build library) into the state dir (a second load and a restart reuse it), submits mixing .wtns and inputs (passed and inline) prove and snarkjs verifies every proof, bad inputs fail their partition with the reason while the daemon serves on, input jobs are dispatched in key order with witness generation traced inside synthesis, and input jobs survive kill -9. */
/*
 * The oracle is snarkjs 0.7.6 (tools/fixtures/node_modules): `snarkjs wtns
 * calculate` makes the .wtns partitions, `snarkjs groth16 verify` checks
 * every proof.  The circuits are e2e_witness's (selftests/data/witness/),
 * compiled here by the pinned circom2; keys by `cuzk devsetup --r1cs`.
 * Order and nesting are read from the daemon's own trace.  Skips with the
 * reason when node, the fixtures' node_modules or wasm2c is missing.
 */
#define _GNU_SOURCE
#include "selftests/cz_daemon.h"
#include "selftests/cz_files.h"

#include <errno.h>
#include <sys/stat.h>

#define NPOINTS 29
/* ThreadSanitizer holds an asynchronous signal until the thread next calls
 * into its runtime (an intercepted libc call); the translated circuit's
 * loop makes none, so the time limit's timer signal never lands and the
 * run goes on for ever.  Built with TSan, the time-limit point skips. */
#if defined(__SANITIZE_THREAD__)
#define TSAN_NO_TIMER 1
#else
#define TSAN_NO_TIMER 0
#endif
#define TSAN_NO_TIMER_WHY "ThreadSanitizer delivers the time limit's signal only at its next interceptor, which a circuit's loop never reaches"

static const char *snarkjs = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
static const char *circom = "tools/fixtures/node_modules/circom2/cli.js";

static int sh(const char *cmd)
{
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* NAME compiled (bn128) into dir/NAME_js/NAME.wasm, its key dir/NAME.zkey
 * and dir/NAME_vk.json. */
static int circuit(const char *name)
{
	if (sh(fmt("cd %s && node %s selftests/data/witness/%s.circom --r1cs --wasm --prime bn128 "
		   "-l tools/fixtures/node_modules -o %s >%s/%s.circom.log 2>&1", root, circom, name, dir,
		   dir, name)))
		return -1;
	return sh(fmt("%s/cuzk devsetup --r1cs %s/%s.r1cs --out-zkey %s/%s.zkey --out-vk %s/%s_vk.json "
		      ">>%s/%s.circom.log 2>&1", bindir, dir, name, dir, name, dir, name, dir, name));
}

static const char *wasm(const char *name)
{
	return fmt("%s/%s_js/%s.wasm", dir, name, name);
}

/* Partitions 0..n-1 of the job directory out verify with snarkjs against NAME's key. */
static int verify_all(const char *out, const char *name, int n)
{
	for (int k = 0; k < n; k++)
		if (sh(fmt("cd %s && node %s groth16 verify %s/%s_vk.json %s/%d.public.json %s/%d.proof.json "
			   "2>&1 | grep -q OK", root, snarkjs, dir, name, out, k, out, k)))
			return 0;
	return 1;
}

static json_object *load(struct daemon *d, const char *name, const char *circ)
{
	return daemon_req(d, fmt("{\"op\":\"load\",\"name\":\"%s\",\"zkey\":\"%s/%s.zkey\",\"wasm\":\"%s\"}",
				 name, dir, circ, wasm(circ)), NULL, 0);
}

static int count_so(const char *state, int n)
{
	return sh(fmt("test $(ls %s/witness/*.so 2>/dev/null | wc -l) -eq %d", state, n)) == 0;
}

static int log_count(const char *log, const char *what)
{
	FILE *f = fopen(log, "r");
	char line[2048];
	int n = 0;
	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* A job of one input passed as a descriptor: its response. */
static json_object *submit_input(struct daemon *d, const char *circ, const char *text, const char *prio)
{
	const char *p = fmt("%s/in-%d.json", dir, rand());
	write_text(p, text);
	int fd = open(p, O_RDONLY);
	json_object *r = daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"%s\",\"inputs\":[0]%s%s%s}", circ,
					   prio ? ",\"priority\":\"" : "", prio ? prio : "", prio ? "\"" : ""),
				    &fd, 1);
	close(fd);
	return r;
}

/* The job's await error, or "" when done. */
static const char *job_error(struct daemon *d, json_object *sub)
{
	static char e[1024];
	json_object *r = daemon_await(d, str_of(sub, "job"), 120);
	snprintf(e, sizeof(e), "%s", ok_of(r) ? "" : err_of(r));
	json_object_put(r);
	return e;
}

static const char arith_in[] = "{\"a\": \"3\", \"b\": 11, \"m\": [[1, 2, 3], [4, 5, 6]]}";

static void test_mixed(struct daemon *d)
{
	/* a .wtns of arith from snarkjs, a passed input, an inline input */
	const char *in = fmt("%s/arith_in.json", dir), *w = fmt("%s/arith.wtns", dir);
	write_text(in, arith_in);
	int rc = sh(fmt("cd %s && node %s wtns calculate %s %s %s >/dev/null 2>&1", root, snarkjs, wasm("arith"),
			in, w));
	int fds[2] = { open(w, O_RDONLY), open(in, O_RDONLY) };
	json_object *r = daemon_req(d, "{\"op\":\"submit\",\"circuit\":\"arith\",\"inputs\":[1, {\"a\": 5, \"b\": "
				    "\"7\", \"m\": [[0, 0, 0], [1, 1, 1]]}]}", fds, 2);
	close(fds[0]);
	close(fds[1]);
	char out[PATH_MAX];
	int ok = !rc && ok_of(r) && int_of(r, "partitions") == 3 && await_done(d, str_of(r, "job"), out, sizeof(out));
	ct_ok(ok && verify_all(out, "arith", 3), "a job of a .wtns, a passed input and an inline input: 3 "
	      "partitions, snarkjs verifies all 3 proofs (%s)", err_of(r));
	/* the public signal of the inline input is a = 5, the passed one's 3 */
	ct_ok(ok && sh(fmt("grep -q '\"5\"' %s/2.public.json && grep -q '\"3\"' %s/1.public.json", out, out)) == 0,
	      "... each partition proves its own input (public a = 3 and 5)");
	json_object_put(r);
}

static void test_errors(struct daemon *d)
{
	json_object *r = daemon_req(d, "{\"op\":\"submit\",\"circuit\":\"plain\",\"inputs\":[{\"a\": 1}]}", NULL, 0);
	ct_ok(refused(r, "has no witness program"), "an input to a circuit loaded without --wasm is refused "
	      "(%s)", err_of(r));
	json_object_put(r);
	r = daemon_req(d, "{\"op\":\"submit\",\"circuit\":\"arith\",\"inputs\":[3]}", NULL, 0);
	ct_ok(refused(r, "inputs[0]"), "an input index with no such descriptor is refused (%s)", err_of(r));
	json_object_put(r);
	static const struct { const char *circ, *in, *want, *what; } bad[] = {
		{ "arith", "{\"a\": \"3\", \"b\": ", "input JSON", "malformed JSON" },
		{ "arith", "{\"a\": 1, \"b\": 2, \"zz\": 3, \"m\": [[1,2,3],[4,5,6]]}", "no such input signal",
		  "an extra signal" },
		{ "arith", "{\"a\": \"3\", \"m\": [[1,2,3],[4,5,6]]}", "missing", "a missing signal" },
		{ "arith", "{\"a\": 1, \"b\": \"21888242871839275222246405745257275088548364400416034343698204186575808495617\", "
		  "\"m\": [[1,2,3],[4,5,6]]}", ">= the field's prime", "a value = r" },
		{ "slow", "{\"x\": \"12\", \"depth\": \"5\", \"loops\": \"7\"}", "assert failed", "a failing assert" },
		{ "slow", "{\"x\": \"3\", \"depth\": \"100000\", \"loops\": \"7\"}", "out-of-bounds", "a trap" },
		{ "slow", "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"1000000000000000\"}", "time limit",
		  "a run past --witness-timeout" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (TSAN_NO_TIMER && !strcmp(bad[i].want, "time limit")) {
			ct_skip(TSAN_NO_TIMER_WHY, "%s", bad[i].what);
			continue;
		}
		r = submit_input(d, bad[i].circ, bad[i].in, NULL);
		const char *e = ok_of(r) ? job_error(d, r) : err_of(r);
		ct_ok(ok_of(r) && strstr(e, "partition 0 input") && strstr(e, bad[i].want),
		      "%s: accepted, then the job fails naming the partition and \"%s\" (%.200s)", bad[i].what,
		      bad[i].want, e);
		json_object_put(r);
	}
	r = submit_input(d, "arith", arith_in, NULL);
	ct_ok(ok_of(r) && !*job_error(d, r), "after them the daemon proves a good input job");
	json_object_put(r);
}

/* One worker: a slow input job, then jobs of each priority queued behind
 * it; the trace's dispatch order is their key order, and each input's
 * witness generation lies inside its synthesis. */
/* The budget charges an input partition its instance's wasm memory: with
 * room for arith's buffer and half its wasm memory, a .wtns job proves and
 * an input job's partition fails naming the bytes it needs. */
static void test_budget(struct daemon *main_d)
{
	json_object *r = daemon_req(main_d, "{\"op\":\"circuits\"}", NULL, 0), *a, *c;
	int64_t kb = 0, pb = 0, wb = 0;
	if (ok_of(r) && json_object_object_get_ex(r, "circuits", &a))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			c = json_object_array_get_idx(a, i);
			if (strcmp(str_of(c, "name"), "arith"))
				continue;
			kb = int_of(c, "key_bytes");
			pb = int_of(c, "partition_bytes");
			wb = int_of(c, "witness_memory_bytes");
		}
	json_object_put(r);
	ct_ok(kb > 0 && pb > 0 && wb > 0 && wb % 65536 == 0, "circuits names an input circuit's "
	      "witness_memory_bytes: its wasm memory, whole pages (%lld)", (long long)wb);
	struct daemon b;
	const char *budget = fmt("%lld", (long long)(kb + pb + wb / 2));
	const char *const args[] = { "--backend", "cpu", "--isolation", "thread", "--synth-workers", "1",
				     "--mem-budget", budget, NULL };
	int up = kb > 0 && daemon_start(&b, "b", args) == 0;
	r = up ? load(&b, "arith", "arith") : NULL;
	int fd = open(fmt("%s/arith.wtns", dir), O_RDONLY);
	json_object *s1 = ok_of(r) ? daemon_req(&b, "{\"op\":\"submit\",\"circuit\":\"arith\"}",
					       &fd, 1) : NULL;
	close(fd);
	char out[PATH_MAX];
	ct_ok(ok_of(s1) && await_done(&b, str_of(s1, "job"), out, sizeof(out)) && verify_all(out, "arith", 1),
	      "--mem-budget key + buffer + half the wasm memory: a .wtns job proves (%s)", err_of(r));
	json_object *s2 = ok_of(r) ? submit_input(&b, "arith", arith_in, NULL) : NULL;
	const char *e = ok_of(s2) ? job_error(&b, s2) : "";
	ct_ok(strstr(e, fmt("partition needs %lld bytes", (long long)(pb + wb))) != NULL,
	      "... an input job's partition, charged buffer + wasm memory, fails: it can never fit (%s)", e);
	json_object_put(r);
	json_object_put(s1);
	json_object_put(s2);
	if (up)
		daemon_stop(&b);
}

/* cuzkctl load --wasm shows the build's progress on the client: with a
 * compiler that takes 3 s (a wrapper around cc), the poller sees the
 * compile stage; the answer says where the time went; a second load takes
 * the daemon's cached library and says so. */
static void test_progress(void)
{
	const char *cc = fmt("%s/slowcc.sh", dir);
	write_text(cc, "#!/bin/sh\nsleep 3\nexec cc \"$@\"\n");
	chmod(cc, 0755);
	const char *old = getenv("CC");
	setenv("CC", cc, 1);
	struct daemon p;
	const char *const args[] = { "--backend", "cpu", "--isolation", "thread", NULL };
	int up = daemon_start(&p, "p", args) == 0;
	if (old)
		setenv("CC", old, 1);
	else
		unsetenv("CC");
	const char *log = fmt("%s/ctl-load.log", dir), *log2 = fmt("%s/ctl-load2.log", dir);
	int rc = up ? sh(fmt("%s/cuzkctl --socket %s load arith %s/arith.zkey --wasm %s >%s 2>&1", bindir,
			     p.sock, dir, wasm("arith"), log)) : -1;
	ct_ok(!rc && log_count(log, "witness program: compile (") >= 1 &&
	      log_count(log, "witness program built in") == 1 && log_count(log, ", compile ") == 1 &&
	      log_count(log, ", link ") == 1, "cuzkctl load --wasm prints the build's stage as it goes "
	      "(compile) and where the time went (translate, compile, link)");
	rc = up ? sh(fmt("%s/cuzkctl --socket %s load arith2 %s/arith.zkey --wasm %s >%s 2>&1", bindir, p.sock,
			 dir, wasm("arith"), log2)) : -1;
	ct_ok(!rc && log_count(log2, "from the daemon's cache") == 1 && log_count(log2, "compile") == 0,
	      "a second load of the same wasm says it took the daemon's cached library");
	if (up)
		daemon_stop(&p);
}

/* /metrics (over the daemon's Unix-socket listener): the witness_generation
 * stage's histogram counts every input partition's run (at least test_order's
 * 5 and test_mixed's 2), its time within synthesis's (it is nested in it),
 * the device's idle while the slow witness ran is "waiting for synthesis"
 * there too (the series the dashboard draws), and promtool accepts the page. */
static char metrics_sock[PATH_MAX + 16];

static double metric(const char *page, const char *name)
{
	const char *s = strstr(page, name);
	return s ? atof(s + strlen(name)) : -1;
}

static void test_metrics(void)
{
#ifdef CZ_HAVE_MICROHTTPD
	const char *page = fmt("%s/metrics.txt", dir);
	int rc = sh(fmt("curl -s --unix-socket %s http://cuzk/metrics > %s", metrics_sock, page));
	static char txt[1 << 20];
	FILE *f = fopen(page, "r");
	size_t n = f ? fread(txt, 1, sizeof(txt) - 1, f) : 0;
	if (f)
		fclose(f);
	txt[n] = 0;
	double wc = metric(txt, "cuzk_stage_duration_seconds_count{stage=\"witness_generation\"} ");
	double ws = metric(txt, "cuzk_stage_duration_seconds_sum{stage=\"witness_generation\"} ");
	double ss = metric(txt, "cuzk_stage_duration_seconds_sum{stage=\"synthesis\"} ");
	double idle = metric(txt, "cuzk_device_idle_seconds_total{device=\"0\",cause=\"waiting for synthesis\"} ");
	int prom = have("promtool") ? sh(fmt("promtool check metrics < %s >/dev/null 2>&1", page)) : 0;
	ct_ok(!rc && wc >= 7 && ws > 0 && ws <= ss && idle > 0.1 && !prom, "/metrics: cuzk_stage_duration_seconds"
	      "{stage=\"witness_generation\"} counts %.0f runs, %.3f s within synthesis's %.3f s; device 0 "
	      "idle %.3f s \"waiting for synthesis\"; promtool %s", wc, ws, ss, idle,
	      have("promtool") ? (prom ? "complains" : "accepts it") : "absent");
#else
	ct_skip("built without libmicrohttpd", "/metrics witness_generation");
#endif
}

static void test_order(struct daemon *d)
{
	static const char *const pr[] = { "low", "normal", "high", "critical" };
	int64_t seq[5], prio[5] = { 2, 3, 2, 1, 0 };
	/* First a slow input alone, so that the device idles "waiting for
	 * synthesis" past the 100 ms asked below (with jobs queued behind a
	 * witness the cause is "waiting for a synthesis worker"; the 10 s
	 * time-limit run gave that idle before, and under TSan it is skipped). */
	json_object *r = submit_input(d, "slow", "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"5000000\"}", NULL);
	json_object_put(daemon_await(d, fmt("@%lld", (long long)int_of(r, "seq")), 120));
	json_object_put(r);
	r = submit_input(d, "slow", "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"10000000\"}", NULL);
	seq[0] = int_of(r, "seq");
	json_object_put(r);
	for (int i = 0; i < 4; i++) {
		r = submit_input(d, "arith", arith_in, pr[i]);
		seq[i + 1] = int_of(r, "seq");
		json_object_put(r);
	}
	for (int i = 0; i < 5; i++) {
		json_object *a = daemon_await(d, fmt("@%lld", (long long)seq[i]), 120);
		json_object_put(a);
	}
	FILE *f = daemon_trace_file(d, "order.jsonl");
	char line[1024];
	int64_t last = -1, open_synth = -1;
	int disp = 0, wrong = 0, wg = 0, nested = 1;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t s = int_of(e, "job");
		int k = -1;
		for (int i = 0; i < 5; i++)
			k = seq[i] == s ? i : k;
		if (k >= 0 && !strcmp(ev, "dispatch")) {
			int64_t key = prio[k] * 1000000 + s;
			if (k > 0 && key < last)
				wrong++;
			last = k > 0 ? key : last;
			disp++;
		}
		if (k >= 0 && !strcmp(ev, "synth_start"))
			open_synth = s;
		if (k >= 0 && !strcmp(ev, "synth_end"))
			open_synth = -1;
		if (k >= 0 && !strncmp(ev, "witgen_", 7)) {
			wg++;
			nested &= open_synth == s;
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	ct_ok(disp == 5 && !wrong, "one worker: input jobs queued behind a slow one are dispatched in "
	      "(priority, job) order (%d dispatched, %d out of order)", disp, wrong);
	ct_ok(wg == 10 && nested, "the trace has witgen_start/witgen_end for each input, inside its "
	      "synth span (%d events)", wg);
	/* The report names the stage, and the device's idle while the slow
	 * input's witness was computed is "waiting for synthesis". */
	const char *rep = fmt("%s/order.report", dir);
	int rc = sh(fmt("cd %s && tools/cuzk-trace-report %s/order.jsonl > %s 2>&1", root, dir, rep));
	json_object *st = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *v = NULL;
	json_object *dv = json_object_array_get_idx(json_object_object_get(st, "devices"), 0);
	double ws = json_object_object_get_ex(json_object_object_get(json_object_object_get(dv, "since_start"),
						 "idle_by_cause_ms"), "waiting for synthesis", &v)
		    ? json_object_get_double(v) : 0;
	ct_ok(!rc && log_count(rep, "stage  witness") == 1 && ws > 100,
	      "cuzk-trace-report passes and shows the witness stage; status names %.0f ms of the device's "
	      "idle \"waiting for synthesis\" (the slow input's witness generation)", ws);
	json_object_put(st);
	test_metrics();
}

static void test_kill(struct daemon *d, const char *state, const char *const *args)
{
	char ids[6][64];
	int n = 0;
	for (int i = 0; i < 6; i++) {
		json_object *r = submit_input(d, "slow", "{\"x\": \"2\", \"depth\": \"5\", \"loops\": \"3000000\"}", NULL);
		if (ok_of(r))
			snprintf(ids[n++], sizeof(ids[0]), "%s", str_of(r, "job"));
		json_object_put(r);
	}
	usleep(300000);
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	int up = daemon_start(d, "d", args) == 0;
	json_object *r = load(d, "slow", "slow");
	int ok = up && ok_of(r);
	json_object_put(r);
	int done = 0;
	for (int i = 0; ok && i < n; i++) {
		char out[PATH_MAX];
		done += await_done(d, ids[i], out, sizeof(out)) && verify_all(out, "slow", 1);
	}
	/* (a resumed BN254 job's files were once rendered as BLS12-381's: the
	 * curve was not set on recovery, and snarkjs refused the public values) */
	ct_ok(n == 6 && done == 6, "kill -9 with 6 input jobs accepted: after a restart and a load all 6 are "
	      "done and snarkjs verifies them, BN254 files (%d)", done);
	ct_ok(count_so(state, 2) && log_count(d->log, "witness: building") == 0,
	      "the restart's load reuses the library built before (state dir, by the wasm's hash)");
}

int main(int argc, char **argv)
{
	(void)argc;
	ct_plan(NPOINTS);
	if (e2e_begin(argv[0], "cz-wasmjobs"))
		return 1;
	const char *why = NULL;
	if (chdir(root))
		why = "cannot enter the repository";
	else if (!have("node"))
		why = "node not installed";
	else if (access(snarkjs, R_OK) || access(circom, R_OK))
		why = "tools/fixtures/node_modules incomplete (tools/install-deps.sh runs npm ci)";
	else if (!have("wasm2c"))
		why = "wabt (wasm2c) not installed (tools/install-deps.sh)";
	if (why) {
		skip_n(NPOINTS, why);
		return ct_exit();
	}
	if (!mkdtemp(dir))
		return 1;
	ct_ok(!circuit("arith") && !circuit("slow"), "circom2 compiled arith and slow, devsetup made their keys");

	struct daemon d;
	static char state[PATH_MAX + 16];
	snprintf(state, sizeof(state), "%s/d-state", dir);
	snprintf(metrics_sock, sizeof(metrics_sock), "%s/metrics.sock", dir);
	const char *const args[] = { "--backend", "cpu", "--isolation", "thread", "--synth-workers", "1",
				     "--witness-timeout", "10",
#ifdef CZ_HAVE_MICROHTTPD
				     "--metrics-listen", metrics_sock,
#endif
				     NULL };
	int up = daemon_start(&d, "d", args) == 0;
	json_object *r = up ? load(&d, "arith", "arith") : NULL;
	ct_ok(ok_of(r) && *str_of(r, "witness_lib") && count_so(state, 1) &&
	      log_count(d.log, "witness: building") == 1, "load --wasm builds the witness program into "
	      "the state dir (%s)", err_of(r));
	json_object_put(r);
	r = up ? load(&d, "arith2", "arith") : NULL;
	ct_ok(ok_of(r) && count_so(state, 1) && log_count(d.log, "witness: building") == 1,
	      "a second load of the same wasm builds nothing (%s)", err_of(r));
	json_object_put(r);
	r = up ? load(&d, "slow", "slow") : NULL;
	json_object_put(r);
	r = up ? daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"bad\",\"zkey\":\"%s/arith.zkey\",\"wasm\":\"%s\"}",
				    dir, wasm("slow")), NULL, 0) : NULL;
	ct_ok(refused(r, "nVars"), "a wasm of another circuit is refused naming nVars (%s)", err_of(r));
	json_object_put(r);
	r = up ? daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"plain\",\"zkey\":\"%s/arith.zkey\"}", dir), NULL, 0)
	       : NULL;
	json_object_put(r);
	if (!up) {
		skip_n(NPOINTS - 4, "cuzkd did not start");
		return e2e_end();
	}
	test_mixed(&d);
	{
		/* a library cuzk witness-build made, loaded with witness_lib */
		int rc = sh(fmt("%s/cuzk witness-build %s -o %s/arith.so --witness-cache %s/cache >/dev/null 2>&1",
				bindir, wasm("arith"), dir, dir));
		r = daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"lib\",\"zkey\":\"%s/arith.zkey\","
				       "\"witness_lib\":\"%s/arith.so\"}", dir, dir), NULL, 0);
		int ok = !rc && ok_of(r);
		json_object_put(r);
		char out[PATH_MAX];
		r = ok ? submit_input(&d, "lib", arith_in, NULL) : NULL;
		ct_ok(ok && ok_of(r) && await_done(&d, str_of(r, "job"), out, sizeof(out)) && verify_all(out, "arith", 1),
		      "load --witness-lib (a cuzk witness-build library): its input job's proof verifies (%s)",
		      err_of(r));
		json_object_put(r);
	}
	test_errors(&d);
	test_budget(&d);
	test_progress();
	test_order(&d);
	test_kill(&d, state, args);
	ct_ok(daemon_stop(&d) == 0, "cuzkd stops on SIGTERM with status 0");
	return e2e_end();
}
