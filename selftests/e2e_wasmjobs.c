/* SPDX-License-Identifier: MIT */
/* Description: cuzkd with circom inputs (issue 25): load --wasm builds once (and --witness-lib takes a witness-build library) into the state dir (a second load and a restart reuse it), submits mixing .wtns and inputs (passed and inline) prove and snarkjs verifies every proof, bad inputs fail their partition with the reason while the daemon serves on, input jobs are dispatched in key order with witness generation traced inside synthesis, and input jobs survive kill -9; the same for a circom 0.5 wasm: its input jobs mixed with .wtns jobs at every priority survive kill -9, each done exactly once, verified, resumed in key order; a circom 0.5 input is charged the memory a run touches (not 2 GiB), an input job that can never fit is refused at submit, and load's build stages are pushed on its connection before the answer. */
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

#define NPOINTS 40

static const char *snarkjs = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
static const char *circom = "tools/fixtures/node_modules/circom2/cli.js";
static const char *circom05 = "tools/fixtures/node_modules/circom/cli.js";

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

/* NAME (selftests/data/witness/NAME.circom, circom 0.5 syntax) compiled by
 * the pinned circom 0.5.46 into the same places. */
static int circuit05(const char *name)
{
	if (sh(fmt("mkdir -p %s/%s_js && cd %s && node %s selftests/data/witness/%s.circom -r %s/%s.r1cs "
		   "-w %s/%s_js/%s.wasm -p bn128 >%s/%s.circom.log 2>&1", dir, name, root, circom05, name, dir,
		   name, dir, name, name, dir, name)))
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
		if (CT_TSAN_NO_TIMER && !strcmp(bad[i].want, "time limit")) {
			ct_skip(CT_TSAN_NO_TIMER_WHY, "%s", bad[i].what);
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
			wb = int_of(c, "witness_memory_limit_bytes");   /* a fresh daemon's charge */
		}
	json_object_put(r);
	ct_ok(kb > 0 && pb > 0 && wb > 0 && wb % 65536 == 0, "circuits names an input circuit's "
	      "witness_memory_limit_bytes: its wasm memory as instantiated, whole pages (%lld)", (long long)wb);
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
	const char *e = err_of(s2);
	ct_ok(!ok_of(s2) && strstr(e, "circuit arith") && strstr(e, fmt("needs %lld bytes", (long long)(pb + wb))) &&
	      strstr(e, fmt("%s-byte --mem-budget", budget)), "... an input job, its partition charged buffer + "
	      "wasm memory, is refused at submit: it can never fit; the error names the circuit, the need and "
	      "the budget (%s)", e);
	json_object_put(r);
	json_object_put(s1);
	json_object_put(s2);
	if (up)
		daemon_stop(&b);
}

static void test_push(struct daemon *p);

/* cuzkctl load --wasm shows the build's progress on the client: with a
 * compiler that takes 3 s (a wrapper around cc), each stage the daemon
 * pushes on the load's connection is printed as it comes; the answer says
 * where the time went; a second load takes the daemon's cached library
 * and says so. */
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
	ct_ok(!rc && cz_log_count(log, "witness program: hash (at") == 1 &&
	      cz_log_count(log, "witness program: translate (at") == 1 &&
	      cz_log_count(log, "witness program: compile (at") == 1 && cz_log_count(log, "witness program: link (at") == 1 &&
	      cz_log_count(log, "witness program built in") == 1 && cz_log_count(log, ", compile ") == 1 &&
	      cz_log_count(log, ", link ") == 1, "cuzkctl load --wasm prints each of the build's stages as the "
	      "daemon pushes it (hash, translate, compile, link: a 1 s poll would miss the short ones) and "
	      "where the time went (translate, compile, link)");
	rc = up ? sh(fmt("%s/cuzkctl --socket %s load arith2 %s/arith.zkey --wasm %s >%s 2>&1", bindir, p.sock,
			 dir, wasm("arith"), log2)) : -1;
	ct_ok(!rc && cz_log_count(log2, "from the daemon's cache") == 1 && cz_log_count(log2, "compile") == 0,
	      "a second load of the same wasm says it took the daemon's cached library");
	test_push(up ? &p : NULL);
	if (up)
		daemon_stop(&p);
}

/* One frame on a raw connection: its JSON, or NULL. */
static json_object *frame_in(int sock)
{
	char *msg, err[256];
	size_t len;
	int fds[4], nfd = 0;
	if (cz_ctl_recv_ex(sock, CZ_CTL_MAX_REPLY, 60000, &msg, &len, fds, &nfd, 4, err, sizeof(err)))
		return NULL;
	json_object *r = json_tokener_parse(msg);
	free(msg);
	return r;
}

static int frame_out(int sock, const char *json)
{
	return cz_ctl_send(sock, json, strlen(json), NULL, 0);
}

/* Over the protocol itself (docs/protocol.md, load's "progress"): the
 * stages come as frames on the load's connection before its answer, in
 * order, each with the daemon's elapsed time, the link stage's after the
 * 3 s compile; a load without "progress" on a connection gets its answer
 * as the first frame and the next request's as the second (no frame an
 * older client would misread). */
static void test_push(struct daemon *p)
{
	char err[256];
	int sock = p ? cz_ctl_connect(p->sock, err, sizeof(err)) : -1;
	int rc = sock < 0 ? -1 : frame_out(sock, fmt("{\"op\":\"load\",\"name\":\"s05\",\"zkey\":\"%s/slow05.zkey\","
						   "\"wasm\":\"%s\",\"progress\":true}", dir, wasm("slow05")));
	static const char *const want[] = { "hash", "translate", "compile", "link" };
	int nf = 0, order = 1;
	double el[4] = { 0 }, compile_s = -1;
	json_object *r = NULL;
	while (!rc && (r = frame_in(sock))) {
		json_object *pr;
		if (!json_object_object_get_ex(r, "progress", &pr))
			break;
		if (nf < 4) {
			order &= !strcmp(str_of(r, "circuit"), "s05") && !strcmp(str_of(r, "stage"), want[nf]);
			el[nf] = json_object_get_double(json_object_object_get(r, "elapsed_s"));
		}
		nf++;
		json_object_put(r);
	}
	json_object *wb;
	if (r && json_object_object_get_ex(r, "witness_build", &wb))
		compile_s = json_object_get_double(json_object_object_get(wb, "compile_s"));
	ct_ok(ok_of(r) && nf == 4 && order && compile_s >= 3 && el[3] >= compile_s && el[3] >= el[2] &&
	      el[2] >= el[1] && el[1] >= el[0], "load with \"progress\": 4 stage frames (hash, translate, "
	      "compile, link) arrive before the answer, the link's at %.2f s after the %.2f s compile (the "
	      "daemon's clock)", el[3], compile_s);
	json_object_put(r);
	if (sock >= 0)
		close(sock);
	sock = p ? cz_ctl_connect(p->sock, err, sizeof(err)) : -1;
	rc = sock < 0 ? -1 : frame_out(sock, fmt("{\"op\":\"load\",\"name\":\"sl\",\"zkey\":\"%s/slow.zkey\","
					       "\"wasm\":\"%s\"}", dir, wasm("slow")));
	json_object *a = rc ? NULL : frame_in(sock);
	rc = rc ? rc : frame_out(sock, "{\"op\":\"circuits\"}");
	json_object *b = rc ? NULL : frame_in(sock);
	ct_ok(ok_of(a) && json_object_object_get_ex(a, "witness_build", NULL) &&
	      !json_object_object_get_ex(a, "progress", NULL) && ok_of(b) &&
	      json_object_object_get_ex(b, "circuits", NULL), "a load without \"progress\" (an older client): "
	      "its first frame is the answer, the next request's the second (%s)", err_of(a));
	json_object_put(a);
	json_object_put(b);
	if (sock >= 0)
		close(sock);
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
	ct_ok(!rc && cz_log_count(rep, "stage  witness") == 1 && ws > 100,
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
	ct_ok(count_so(state, 2) && cz_log_count(d->log, "witness: building") == 0,
	      "the restart's load reuses the library built before (state dir, by the wasm's hash)");
}

/* "job=ID state=done" lines in a daemon log. */
static int done_lines(const char *log, const char *id)
{
	return cz_log_count(log, fmt("job=%s state=done", id));
}

/* circom 0.5 through the daemon: input jobs of slow05 (a circom 0.5 wasm)
 * at every priority, mixed with .wtns jobs of the same circuit, kill -9
 * while the first input's witness is computed, a restart and a load: every
 * accepted job done exactly once (its "state=done" line in one life's log
 * only), every proof verified by snarkjs, and the restarted daemon
 * dispatches them in (priority, job) order (its trace; the first dispatch
 * may precede jobs still being queued). */
static void test_kill05(struct daemon *d, const char *const *args)
{
	static const char *const pr[] = { "normal", "low", "high", "critical", "low", "normal", "high" };
	static const int prio[] = { 2, 3, 1, 0, 3, 2, 1 };
	static const int is_wtns[] = { 0, 0, 1, 0, 1, 0, 0 };
	enum { NJ = 7 };
	char ids[NJ][64];
	int64_t seq[NJ];
	int n = 0;
	const char *in = fmt("%s/slow05_in.json", dir), *w = fmt("%s/slow05.wtns", dir);
	write_text(in, "{\"x\": \"5\", \"loops\": \"1000\"}");
	int rc = sh(fmt("cd %s && node %s wtns calculate %s %s %s >/dev/null 2>&1", root, snarkjs,
			wasm("slow05"), in, w));
	json_object *r = load(d, "slow05", "slow05");
	int ok = !rc && ok_of(r);
	ct_ok(ok, "load --wasm of a circom 0.5 wasm (slow05) into "
	      "the daemon (%s)", err_of(r));
	json_object_put(r);
	for (int i = 0; ok && i < NJ; i++) {
		if (is_wtns[i]) {
			int fd = open(w, O_RDONLY);
			r = daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"slow05\",\"priority\":\"%s\"}", pr[i]),
				       &fd, 1);
			close(fd);
		} else
			r = submit_input(d, "slow05", fmt("{\"x\": \"%d\", \"loops\": \"10000000\"}", i + 2), pr[i]);
		if (ok_of(r)) {
			snprintf(ids[n], sizeof(ids[0]), "%s", str_of(r, "job"));
			seq[n++] = int_of(r, "seq");
		}
		json_object_put(r);
	}
	usleep(300000);
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	const char *life1 = fmt("%s/d-life1-05.log", dir);
	rename(d->log, life1);
	int up = daemon_start(d, "d", args) == 0;
	r = up ? load(d, "slow05", "slow05") : NULL;
	ok = up && ok_of(r);
	json_object_put(r);
	int done = 0, once = 0;
	for (int i = 0; ok && i < n; i++) {
		char out[PATH_MAX];
		done += await_done(d, ids[i], out, sizeof(out)) && verify_all(out, "slow05", 1);
		once += done_lines(life1, ids[i]) + done_lines(d->log, ids[i]) <= 1;   /* a job may end
										   just before the kill, its line not yet written */
	}
	ct_ok(n == NJ && done == NJ && once == NJ, "circom 0.5: kill -9 with %d jobs accepted (5 inputs, 2 "
	      ".wtns, 4 priorities): after a restart and a load all are done (%d), each exactly once across "
	      "both lives' logs (no job logged done twice: %d), snarkjs verifies every proof", NJ, done, once);
	FILE *f = daemon_trace_file(d, "kill05.jsonl");
	char line[1024];
	int64_t last = -1;
	int disp = 0, wrong = 0, wg = 0;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t s = int_of(e, "job");
		int k = -1;
		for (int i = 0; i < n; i++)
			k = seq[i] == s ? i : k;
		if (k >= 0 && !strcmp(ev, "dispatch")) {
			int64_t key = prio[k] * 1000000 + s;
			wrong += disp > 0 && key < last;
			last = key;
			disp++;
		}
		wg += k >= 0 && !strcmp(ev, "witgen_end") && !is_wtns[k];
		json_object_put(e);
	}
	if (f)
		fclose(f);
	int resumed = 0;
	for (int i = 0; i < n; i++)
		resumed += done_lines(d->log, ids[i]);
	ct_ok(resumed > 0 && disp == resumed && !wrong && wg > 0 && wg <= 5,
	      "... the restarted daemon dispatched the %d resumed jobs in (priority, job) order after the "
	      "first (%d dispatched, %d out of order), their inputs' witness computed there (%d)", resumed,
	      disp, wrong, wg);
}

/* The circuits entry of name: its key, buffer and wasm memory figures. */
struct wmem { int64_t kb, pb, charge, limit, peak; };

static struct wmem wmem_of(struct daemon *d, const char *name)
{
	struct wmem m = { -1, -1, -1, -1, -1 };
	json_object *r = daemon_req(d, "{\"op\":\"circuits\"}", NULL, 0), *a;
	if (ok_of(r) && json_object_object_get_ex(r, "circuits", &a))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *c = json_object_array_get_idx(a, i);
			if (strcmp(str_of(c, "name"), name))
				continue;
			m = (struct wmem){ int_of(c, "key_bytes"), int_of(c, "partition_bytes"),
					   int_of(c, "witness_memory_bytes"), int_of(c, "witness_memory_limit_bytes"),
					   int_of(c, "witness_memory_peak_bytes") };
		}
	json_object_put(r);
	return m;
}

/* The kernel's resident bytes of pid's mappings of exactly size bytes
 * (/proc/PID/smaps): circom 0.5's instance memory, 32767 wasm pages
 * read-write in its reservation. */
static int64_t smaps_rss(pid_t pid, int64_t size)
{
	FILE *f = fopen(fmt("/proc/%d/smaps", (int)pid), "r");
	char line[512];
	int64_t rss = 0, kb;
	int in = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Size: %lld kB", (long long *)&kb) == 1)
			in = kb * 1024 == size;
		else if (in && sscanf(line, "Rss: %lld kB", (long long *)&kb) == 1)
			rss += kb * 1024;
	}
	if (f)
		fclose(f);
	return f ? rss : -1;
}

/* circom 0.5's wasm memory is charged what a run touches, not the 2 GiB it
 * is given: before any run it is charged no more than the budget's room
 * (so a budget far below 2 GiB runs it); after one the charge covers the
 * instance memory's resident bytes as /proc/PID/smaps counts them (the
 * oracle) and is far below 2 GiB; the peak is kept beside the build, so a
 * restart charges it from the start, and with a budget below it an input
 * job is refused at submit naming the circuit, the need and the budget
 * while a .wtns job of the circuit is still accepted. */
static void test_mem05(struct daemon *main_d)
{
	struct wmem m0 = wmem_of(main_d, "slow05");
	struct daemon m;
	const char *budget = fmt("%lld", (long long)(m0.kb + m0.pb + (256ll << 20)));
	const char *const args[] = { "--backend", "cpu", "--isolation", "thread", "--synth-workers", "1",
				     "--mem-budget", budget, NULL };
	int up = m0.kb > 0 && daemon_start(&m, "m", args) == 0;
	json_object *r = up ? load(&m, "slow05", "slow05") : NULL;
	struct wmem a = wmem_of(&m, "slow05");
	ct_ok(ok_of(r) && a.limit == 32767ll * 65536 && a.peak == 0 && a.charge == 256ll << 20,
	      "circom 0.5 before any run: its bound is the 2 GiB given (%lld), no peak measured, charged the "
	      "budget's room beside key and buffer, 256 MiB (%lld)", (long long)a.limit, (long long)a.charge);
	json_object_put(r);
	r = up ? submit_input(&m, "slow05", "{\"x\": \"4\", \"loops\": \"1000\"}", NULL) : NULL;
	char out[PATH_MAX];
	int done = ok_of(r) && await_done(&m, str_of(r, "job"), out, sizeof(out)) && verify_all(out, "slow05", 1);
	json_object_put(r);
	struct wmem b = wmem_of(&m, "slow05");
	int64_t rss = up ? smaps_rss(m.pid, 32767ll * 65536) : -1;
	ct_ok(done && b.peak > 0 && rss > 0 && b.charge >= rss && b.charge >= b.peak && b.charge < (64ll << 20),
	      "after a run under a budget 1/8 of 2 GiB: proved; charged %lld bytes, at least the instance "
	      "memory's resident %lld bytes (/proc smaps) and the measured peak %lld, and far below 2 GiB",
	      (long long)b.charge, (long long)rss, (long long)b.peak);
	if (up)
		daemon_stop(&m);
	const char *small = fmt("%lld", (long long)(m0.kb + m0.pb + b.charge / 2));
	const char *const args2[] = { "--backend", "cpu", "--isolation", "thread", "--synth-workers", "1",
				      "--mem-budget", small, NULL };
	up = b.charge > 0 && daemon_start(&m, "m", args2) == 0;
	r = up ? load(&m, "slow05", "slow05") : NULL;
	struct wmem c = wmem_of(&m, "slow05");
	json_object_put(r);
	r = up ? submit_input(&m, "slow05", "{\"x\": \"4\", \"loops\": \"1000\"}", NULL) : NULL;
	const char *e = err_of(r);
	ct_ok(c.peak == b.peak && c.charge == b.charge && !ok_of(r) && strstr(e, "circuit slow05") &&
	      strstr(e, fmt("needs %lld bytes", (long long)(c.pb + c.charge))) &&
	      strstr(e, fmt("%s-byte --mem-budget", small)), "restarted with a budget below key + buffer + "
	      "that charge: the peak came back from beside the build (%lld), and an input job is refused at "
	      "submit naming circuit, need and budget (%s)", (long long)c.peak, e);
	json_object_put(r);
	int fd = open(fmt("%s/slow05.wtns", dir), O_RDONLY);
	r = up ? daemon_req(&m, "{\"op\":\"submit\",\"circuit\":\"slow05\"}", &fd, 1) : NULL;
	close(fd);
	ct_ok(ok_of(r) && await_done(&m, str_of(r, "job"), out, sizeof(out)) && verify_all(out, "slow05", 1),
	      "... while a .wtns job of the same circuit is accepted and proves (%s)", err_of(r));
	json_object_put(r);
	if (up)
		daemon_stop(&m);
}

/* The null backend with input jobs: the witness is computed there too (a
 * bad input fails its job), and with one synthesis worker and 1 ms
 * devices the device's idle while witnesses are computed is named by
 * cuzk-trace-report from the daemon's own trace: "waiting for synthesis"
 * for jobs submitted one at a time (at least 90% of their witgen spans),
 * "waiting for a synthesis worker" for a backlog (the two together at
 * least 90% of all spans), and status says so too. */
static void test_null(void)
{
	struct daemon n;
	const char *const args[] = { "--backend", "null", "--devices", "1", "--null-delay-ms", "1",
				     "--synth-workers", "1", NULL };
	static const char in[] = "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"3000000\"}";
	int up = daemon_start(&n, "n", args) == 0;
	json_object *r = up ? load(&n, "slow", "slow") : NULL;
	/* The device's idle while its warm-up proof runs is "device warm-up"
	 * (cuzk-trace-report's first rule), whatever else waits: under ASan
	 * at a load of 15 the warm-up took 2.1 s and covered 174 ms of the
	 * first job's witgen span, so the jobs start after it. */
	int ok = ok_of(r) && daemon_wait_warm(&n), done = 0;
	json_object_put(r);
	int64_t seq1[2] = { -1, -1 };
	char out[PATH_MAX];
	for (int i = 0; ok && i < 2; i++) {     /* one at a time */
		r = submit_input(&n, "slow", in, NULL);
		seq1[i] = int_of(r, "seq");
		done += ok_of(r) && await_done(&n, str_of(r, "job"), out, sizeof(out));
		json_object_put(r);
	}
	char ids[3][64];
	int nj = 0;
	for (int i = 0; ok && i < 3; i++) {     /* a backlog */
		r = submit_input(&n, "slow", in, NULL);
		if (ok_of(r))
			snprintf(ids[nj++], sizeof(ids[0]), "%s", str_of(r, "job"));
		json_object_put(r);
	}
	r = ok ? submit_input(&n, "slow", "{\"x\": \"12\", \"depth\": \"5\", \"loops\": \"7\"}", NULL) : NULL;
	const char *e = ok_of(r) ? job_error(&n, r) : "";
	ct_ok(strstr(e, "assert failed") != NULL, "null backend: an input job's witness is computed (a failing "
	      "assert fails the job: %.120s)", e);
	json_object_put(r);
	for (int i = 0; i < nj; i++)
		done += await_done(&n, ids[i], out, sizeof(out));
	FILE *f = up ? daemon_trace_file(&n, "null.jsonl") : NULL;
	char line[1024];
	int64_t t0 = -1, wsum = 0, wseq = 0;
	int wg = 0;
	while (f && fgets(line, sizeof(line), f)) {
		json_object *ev = json_tokener_parse(line);
		const char *k = str_of(ev, "ev");
		if (!strcmp(k, "witgen_start"))
			t0 = int_of(ev, "ns");
		if (!strcmp(k, "witgen_end") && t0 >= 0) {
			int64_t d = int_of(ev, "ns") - t0, s = int_of(ev, "job");
			wsum += d;
			wseq += s == seq1[0] || s == seq1[1] ? d : 0;
			wg++;
			t0 = -1;
		}
		json_object_put(ev);
	}
	if (f)
		fclose(f);
	const char *rep = fmt("%s/null.report.json", dir);
	int rc = up ? sh(fmt("cd %s && tools/cuzk-trace-report --json %s/null.jsonl > %s 2>/dev/null", root, dir,
			     rep)) : -1;
	json_object *j = json_object_from_file(rep), *c = NULL, *v;
	double ws = 0, wsw = 0;
	if (j && json_object_object_get_ex(j, "idle_by_cause_ms", &c)) {
		ct_diag("null backend: cuzk-trace-report idle_by_cause_ms %s",
			json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
		if (json_object_object_get_ex(c, "waiting for synthesis", &v))
			ws = json_object_get_double(v);
		if (json_object_object_get_ex(c, "waiting for a synthesis worker", &v))
			wsw = json_object_get_double(v);
	}
	json_object_put(j);
	json_object *st = up ? daemon_req(&n, "{\"op\":\"status\"}", NULL, 0) : NULL;
	json_object *dv = json_object_array_get_idx(json_object_object_get(st, "devices"), 0);
	double sws = json_object_object_get_ex(json_object_object_get(json_object_object_get(dv, "since_start"),
						 "idle_by_cause_ms"), "waiting for synthesis", &v)
		     ? json_object_get_double(v) : 0;
	json_object_put(st);
	ct_ok(done == 5 && wg == 6 && !rc && ws >= 0.9 * (double)wseq / 1e6 && ws + wsw >= 0.9 * (double)wsum / 1e6 &&
	      wsw > 0 && sws > 0, "... 5 jobs done, 6 witgen spans in the trace (%.1f ms, %.1f ms of them the two "
	      "jobs submitted one at a time); cuzk-trace-report: device idle \"waiting for synthesis\" %.1f ms, "
	      "\"waiting for a synthesis worker\" %.1f ms (the backlog); status %.1f ms waiting for synthesis",
	      (double)wsum / 1e6, (double)wseq / 1e6, ws, wsw, sws);
	if (up)
		daemon_stop(&n);
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
	else if (access(snarkjs, R_OK) || access(circom, R_OK) || access(circom05, R_OK))
		why = "tools/fixtures/node_modules incomplete (tools/install-deps.sh runs npm ci)";
	else if (!have("wasm2c"))
		why = "wabt (wasm2c) not installed (tools/install-deps.sh)";
	if (why) {
		skip_n(NPOINTS, why);
		return ct_exit();
	}
	if (!mkdtemp(dir))
		return 1;
	ct_ok(!circuit("arith") && !circuit("slow") && !circuit05("slow05"), "circom2 compiled arith and slow, "
	      "circom 0.5.46 slow05, devsetup made their keys");

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
	      cz_log_count(d.log, "witness: building") == 1, "load --wasm builds the witness program into "
	      "the state dir (%s)", err_of(r));
	json_object_put(r);
	r = up ? load(&d, "arith2", "arith") : NULL;
	ct_ok(ok_of(r) && count_so(state, 1) && cz_log_count(d.log, "witness: building") == 1,
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
		const char *wlog = fmt("%s/witness-build.log", dir);
		int rc = sh(fmt("%s/cuzk witness-build %s -o %s/arith.so --witness-cache %s/cache >%s 2>&1",
				bindir, wasm("arith"), dir, dir, wlog));
		if (rc) {
			ct_diag("cuzk witness-build exited %d; the end of its output:", rc);
			fflush(stdout);
			sh(fmt("tail -n 20 %s | sed 's/^/#   /'", wlog));
		}
		r = daemon_req(&d, fmt("{\"op\":\"load\",\"name\":\"lib\",\"zkey\":\"%s/arith.zkey\","
				       "\"witness_lib\":\"%s/arith.so\"}", dir, dir), NULL, 0);
		int ok = !rc && ok_of(r);
		char lerr[1024];
		snprintf(lerr, sizeof(lerr), "witness-build exit %d, load: %s", rc, ok_of(r) ? "ok" : err_of(r));
		json_object_put(r);
		char out[PATH_MAX];
		r = ok ? submit_input(&d, "lib", arith_in, NULL) : NULL;
		int vok = ok && ok_of(r) && await_done(&d, str_of(r, "job"), out, sizeof(out));
		int ver = vok && verify_all(out, "arith", 1);
		ct_ok(ver, "load --witness-lib (a cuzk witness-build library): its input job's proof verifies (%s; "
		      "submit: %s; %s)", lerr, ok ? (ok_of(r) ? "ok" : err_of(r)) : "not tried",
		      !vok ? "not done" : ver ? "snarkjs: OK" : "snarkjs did not say OK");
		json_object_put(r);
	}
	test_errors(&d);
	test_budget(&d);
	test_progress();
	test_order(&d);
	test_kill(&d, state, args);
	test_kill05(&d, args);
	test_mem05(&d);
	test_null();
	ct_ok(daemon_stop(&d) == 0, "cuzkd stops on SIGTERM with status 0");
	return e2e_end();
}
