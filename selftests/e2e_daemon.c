/* SPDX-License-Identifier: MIT */
/* Description: the real cuzkd on a temporary socket: proofs verify (cuzk's verifier and snarkjs), order, budget, cancel, bad requests, SIGTERM. */
#define NWTNS 4
#define CZ_DAEMON_ENV_ISOLATION
#define CZ_DAEMON_START_TRIES 500
#define CZ_DAEMON_STOP_TRIES 1000
#include "selftests/cz_daemon.h"
#include "synth/part.h"
#include "zk/ntt/ntt.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>

static struct cz_groth16_key key;

/* ---- fixtures: a 2^8 dev key, witnesses good, unsatisfying and short ---- */

static int make_fixtures(void)
{
	struct cz_cs cs;
	cz_fr *w;
	char err[256], p[2 * PATH_MAX];

	/* bad and short are w3 (seed 103) spoiled */
	if (fixtures_make(&key) || cz_builtin_build("merkle", 8, 103, &cs, &w, err))
		return -1;
	cz_fr_add(&w[1], &w[1], &cz_fr_one);   /* root changed: unsatisfiable */
	snprintf(p, sizeof(p), "%s/bad.wtns", dir);
	if (cz_wtns_save(p, w, cs.nvars, err, sizeof(err)))
		return -1;
	snprintf(p, sizeof(p), "%s/short.wtns", dir);
	if (cz_wtns_save(p, w, cs.nvars - 1, err, sizeof(err)))
		return -1;
	struct cz_groth16_vk vk;
	cz_groth16_vk_from_key(&vk, &key);
	snprintf(p, sizeof(p), "%s/vk.json", dir);
	free(w);
	cz_cs_free(&cs);
	return cz_groth16_vk_json_write(p, &vk, err);
}

/* ---- the daemon ---- */

/* One request (a JSON text) with optional passed files; returns the response. */
static json_object *req(struct daemon *d, const char *json, const char *const *files)
{
	int fds[16] = { 0 }, nfds = 0;
	for (; files && *files; files++)
		fds[nfds++] = open(*files, O_RDONLY);
	json_object *r = daemon_req(d, json, fds, nfds);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return r;
}

static char *wpath(const char *name)
{
	return fmt("%s/%s.wtns", dir, name);
}

/* ---- tests ---- */

static int verify_dir(const char *out, int nparts)
{
	struct stat st;
	return proofs_verify(&key, out, nparts) && stat(fmt("%s/proof.bin", out), &st) == 0 &&
	       st.st_size == 192 * nparts;
}

static void test_cpu(struct daemon *d)
{
	const char *w4[] = { strdup(wpath("w0")), strdup(wpath("w1")), strdup(wpath("w2")),
			     strdup(wpath("w3")), NULL };
	json_object *r = req(d, fmt("{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir), NULL);
	ct_ok(ok_of(r), "load a 2^8 key: %s", str_of(r, "error"));
	json_object_put(r);

	r = req(d, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"first\"}", w4);
	ct_ok(ok_of(r) && !strcmp(str_of(r, "job"), "first"), "submit 4 partitions as passed descriptors");
	json_object_put(r);
	r = req(d, "{\"op\":\"await\",\"job\":\"first\"}", NULL);
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s", str_of(r, "dir"));
	ct_ok(ok_of(r) && !strcmp(str_of(r, "state"), "done"), "await: done, output in %s", out);
	json_object_put(r);
	ct_ok(verify_dir(out, 4), "all 4 proofs verify with cuzk's verifier; proof.bin is 4 × 192 bytes");
	int sj = snarkjs_verify(out, 0);
	if (sj < 0)
		ct_skip("snarkjs not installed (tools/install-deps.sh installs it)", "snarkjs accepts the daemon's proof");
	else
		ct_ok(sj == 1 && snarkjs_verify(out, 3) == 1, "snarkjs groth16 verify accepts partitions 0 and 3");

	r = req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"witnesses\":[\"%s\",\"%s\"]}", wpath("w0"), wpath("bad")), NULL);
	const char *job = str_of(r, "job");
	char jid[64];
	snprintf(jid, sizeof(jid), "%s", job);
	json_object_put(r);
	r = daemon_await(d, jid, -1);
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "partition 1: witness does not satisfy the circuit"),
	      "unsatisfying witness (by path): job fails naming the partition: %s", str_of(r, "error"));
	json_object_put(r);

	r = req(d, "{\"op\":\"submit\",\"circuit\":\"k\"}", (const char *[]){ wpath("short"), NULL });
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "bytes, but circuit k needs"),
	      "short witness rejected at submit: %s", str_of(r, "error"));
	json_object_put(r);
	r = req(d, "{\"op\":\"submit\",\"circuit\":\"nope\",\"witnesses\":[]}", NULL);
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "unknown circuit 'nope'"), "unknown circuit: %s", str_of(r, "error"));
	json_object_put(r);
	/* The same id: with the same witnesses it is a retry (the existing job
	 * back), with others a different job (refused). */
	r = req(d, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"first\"}", w4);
	int same = ok_of(r) && !strcmp(str_of(r, "job"), "first") && !strcmp(str_of(r, "existing"), "true");
	json_object_put(r);
	const char *w4r[] = { w4[3], w4[2], w4[1], w4[0], NULL };
	r = req(d, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"first\"}", w4r);
	ct_ok(same && !ok_of(r) && strstr(str_of(r, "error"), "id 'first' is in use by a different job"),
	      "duplicate job id: the same witnesses return the existing job, others are refused: %s",
	      str_of(r, "error"));
	json_object_put(r);
	r = req(d, fmt("{\"op\":\"load\",\"name\":\"k2\",\"zkey\":\"%s/w0.wtns\",\"partitions\":2}", dir), NULL);
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "w0.wtns"), "loading a non-zkey names the file: %s", str_of(r, "error"));
	json_object_put(r);
	r = req(d, fmt("{\"op\":\"load\",\"name\":\"k2\",\"zkey\":\"%s/k.zkey\",\"partitions\":2}", dir), NULL);
	json_object_put(r);
	r = req(d, "{\"op\":\"submit\",\"circuit\":\"k2\"}", w4);
	ct_ok(!ok_of(r) && strstr(str_of(r, "error"), "takes 2 partitions per job, got 4"),
	      "wrong witness count: %s", str_of(r, "error"));
	json_object_put(r);
	for (int i = 0; i < 4; i++)
		free((char *)w4[i]);
}

static void test_protocol(struct daemon *d)
{
	char err[256];
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	char *msg;
	size_t len;
	int fds[4], nfds;

	cz_ctl_send(s, "{\"op\": ", 7, NULL, 0);
	int rc = cz_ctl_recv(s, &msg, &len, fds, &nfds, 4, err, sizeof(err));
	ct_ok(!rc && strstr(msg, "malformed request"), "malformed JSON gets an error: %s", rc ? err : msg);
	free(msg);
	cz_ctl_send(s, "[1,2]", 5, NULL, 0);
	rc = cz_ctl_recv(s, &msg, &len, fds, &nfds, 4, err, sizeof(err));
	ct_ok(!rc && strstr(msg, "not a JSON object"), "a non-object request gets an error: %s", rc ? err : msg);
	free(msg);
	cz_ctl_send(s, "{\"op\":\"frobnicate\"}", 19, NULL, 0);
	rc = cz_ctl_recv(s, &msg, &len, fds, &nfds, 4, err, sizeof(err));
	ct_ok(!rc && strstr(msg, "unknown op"), "unknown op gets an error: %s", rc ? err : msg);
	free(msg);
	/* A frame claiming 2 MiB: answered, then the connection ends. */
	uint8_t hdr[4] = { 0, 0, 0x20, 0 };
	send(s, hdr, 4, MSG_NOSIGNAL);
	rc = cz_ctl_recv(s, &msg, &len, fds, &nfds, 4, err, sizeof(err));
	ct_ok(!rc && strstr(msg, "exceeds the 1048576-byte limit"), "oversize message refused: %s", rc ? err : msg);
	free(msg);
	close(s);
	/* A client that leaves mid-message. */
	s = cz_ctl_connect(d->sock, err, sizeof(err));
	uint8_t half[8] = { 100, 0, 0, 0, '{', '"', 'o', 'p' };
	send(s, half, sizeof(half), MSG_NOSIGNAL);
	close(s);
	json_object *r = req(d, "{\"op\":\"status\"}", NULL);
	ct_ok(ok_of(r), "the daemon still serves after all of the above");
	json_object_put(r);
}

/* Null backend: ordering, fairness, budget, cancel, SIGTERM. */
static json_object *trace_of(struct daemon *d)
{
	json_object *a = json_object_new_array();
	FILE *f = daemon_trace_file(d, "trace.jsonl");
	char line[512];
	while (f && fgets(line, sizeof(line), f))
		json_object_array_add(a, json_tokener_parse(line));
	if (f)
		fclose(f);
	return a;
}

static double await_ms(struct daemon *d, const char *job, int64_t *finish)
{
	json_object *r = daemon_await(d, job, -1);
	double ms = ok_of(r) ? json_object_get_double(json_object_object_get(r, "ms")) : -1;
	if (finish)
		*finish = int_of(r, "finish_ns");
	json_object_put(r);
	return ms;
}

static void submit_n(struct daemon *d, const char *id, const char *prio, int n)
{
	char paths[4096] = "";
	for (int i = 0; i < n; i++)
		snprintf(paths + strlen(paths), sizeof(paths) - strlen(paths), "%s\"%s\"", i ? "," : "",
			 wpath(fmt("w%d", i % 4)));
	json_object_put(req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"priority\":\"%s\",\"witnesses\":[%s]}",
				    id, prio, paths), NULL));
}

static void test_null(struct daemon *d, uint64_t budget)
{
	json_object_put(req(d, fmt("{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir), NULL));
	/* Wall times are printed, not asserted (the machine is shared and
	 * loaded); what is asserted is order, counted from the daemon's trace. */
	double alone, ta, tb;
	submit_n(d, "alone", "normal", 8);
	alone = await_ms(d, "alone", NULL);
	submit_n(d, "a", "normal", 8);
	submit_n(d, "b", "normal", 8);
	int64_t fa, fb;
	ta = await_ms(d, "a", &fa);
	tb = await_ms(d, "b", &fb);
	ct_diag("job a took %.1f ms with b queued behind it, %.1f ms alone (%.3fx); b %.1f ms", ta, alone,
		alone > 0 ? ta / alone : 0, tb);
	ct_ok(ta > 0 && tb > 0 && fa < fb, "two jobs submitted together finish in submission order (%.1f, %.1f ms)", ta, tb);
	json_object *ab = trace_of(d);
	/* This daemon's submits so far: alone, a, b (sequence numbers from the trace). */
	int64_t seq[3] = { -1, -1, -1 }, last_a = -1;
	int nsub = 0;
	for (size_t i = 0; i < json_object_array_length(ab); i++) {
		json_object *e = json_object_array_get_idx(ab, i);
		if (!strcmp(str_of(e, "ev"), "submit") && nsub < 3)
			seq[nsub++] = int_of(e, "job");
	}
	int64_t seq_a = seq[1], seq_b = seq[2];
	for (size_t i = 0; i < json_object_array_length(ab); i++) {
		json_object *e = json_object_array_get_idx(ab, i);
		if (!strcmp(str_of(e, "ev"), "compute_start") && int_of(e, "job") == seq_a)
			last_a = int_of(e, "ns");
	}
	int b_ahead = 0;
	for (size_t i = 0; i < json_object_array_length(ab); i++) {
		json_object *e = json_object_array_get_idx(ab, i);
		if (!strcmp(str_of(e, "ev"), "compute_start") && int_of(e, "job") == seq_b && int_of(e, "ns") < last_a)
			b_ahead++;
	}
	json_object_put(ab);
	/* One device, 2 consumers: each may hold one partition of b ahead of a's last. */
	ct_ok(seq_b > seq_a && seq_a > 0 && b_ahead <= 2,
	      "b's partitions that started before a's last: %d (bound: one per consumer, 2)", b_ahead);

	/* A critical job behind a backlog of normal ones. */
	submit_n(d, "n1", "normal", 8);
	submit_n(d, "n2", "normal", 8);
	submit_n(d, "crit", "critical", 3);
	await_ms(d, "crit", NULL);
	await_ms(d, "n2", NULL);
	json_object *t = trace_of(d);
	int64_t crit_seq = -1, crit_submit = -1;
	int after = 0, crit_first = 1;
	for (size_t i = 0; i < json_object_array_length(t); i++) {
		json_object *e = json_object_array_get_idx(t, i);
		/* a submit event's "part" is its partition count: the critical job has 3 */
		if (!strcmp(str_of(e, "ev"), "submit") && int_of(e, "part") == 3) {
			crit_seq = int_of(e, "job");
			crit_submit = int_of(e, "ns");
		}
	}
	for (size_t i = 0; i < json_object_array_length(t); i++) {
		json_object *e = json_object_array_get_idx(t, i);
		if (strcmp(str_of(e, "ev"), "dispatch") || int_of(e, "ns") < crit_submit)
			continue;
		if (after++ < 3)
			crit_first &= int_of(e, "job") == crit_seq;
		if (after <= 4)
			ct_diag("dispatch after the critical submit: job %lld part %lld", (long long)int_of(e, "job"), (long long)int_of(e, "part"));
	}
	json_object_put(t);
	ct_ok(crit_seq > 0 && after >= 3 && crit_first,
	      "a critical job submitted behind 16 queued normal partitions is dispatched before any of them");

	json_object *s = req(d, "{\"op\":\"status\"}", NULL);
	json_object *b = json_object_object_get(s, "budget");
	ct_ok(int_of(b, "high_water") > 0 && (uint64_t)int_of(b, "high_water") <= budget && int_of(b, "waits") > 0,
	      "budget high water %lld <= --mem-budget %llu, and the dispatcher waited %lld times",
	      (long long)int_of(b, "high_water"), (unsigned long long)budget, (long long)int_of(b, "waits"));
	json_object_put(s);

	/* Cancel: queued and running partitions end; memory comes back. */
	submit_n(d, "long", "normal", 40);
	usleep(100000);
	json_object *r = req(d, "{\"op\":\"cancel\",\"job\":\"long\"}", NULL);
	ct_ok(ok_of(r) && int_of(r, "dropped") > 0, "cancel drops %lld queued partitions", (long long)int_of(r, "dropped"));
	json_object_put(r);
	r = req(d, "{\"op\":\"await\",\"job\":\"long\"}", NULL);
	ct_ok(!ok_of(r) && !strcmp(str_of(r, "state"), "cancelled"), "await on a cancelled job says so");
	json_object_put(r);
	s = req(d, "{\"op\":\"status\"}", NULL);
	json_object *circ = json_object_array_get_idx(json_object_object_get(s, "circuits"), 0);
	b = json_object_object_get(s, "budget");
	ct_ok(int_of(b, "reserved") == int_of(circ, "key_bytes"),
	      "after cancel only the key is reserved (%lld == %lld bytes)", (long long)int_of(b, "reserved"),
	      (long long)int_of(circ, "key_bytes"));
	json_object_put(s);

	/* SIGTERM with jobs in flight. */
	submit_n(d, "inflight", "normal", 30);
	usleep(60000);
	double secs = -1;
	int st = daemon_stop_timed(d, &secs);
	ct_ok(st == 0, "SIGTERM with a job in flight: exit status %d (after %.2f s, not asserted)", st, secs);
	ct_ok(access(d->sock, F_OK) != 0, "the socket is removed on exit");
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

/* cuzkd's options: the defaults --help prints (docs/cuzkd.8.md's table is
 * the oracle), a cap the engine enforces, and a config file with more
 * strings than the old fixed table of copies held. */
static void test_options(void)
{
	char cmd[8 * PATH_MAX], out[3 * PATH_MAX], cfg[3 * PATH_MAX];

	snprintf(out, sizeof(out), "%s/help.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s/cuzkd --help >%s 2>&1", bindir, out);
	int st = system(cmd);
	const char *h = slurp(out);
	ct_ok(st == 0 && strstr(h, "--consumers-per-device 2, 1 to 64") && strstr(h, "--synth-workers 1, 1 to 1024") &&
	      strstr(h, "--null-delay-ms 20, --null-synth-ms 0") && strstr(h, "--backend cpu"),
	      "cuzkd --help prints the documented defaults and limits");

	snprintf(out, sizeof(out), "%s/caps.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s/cuzkd --state-dir %s/caps --synth-workers 1025 >%s 2>&1", bindir, dir, out);
	st = system(cmd);
	char *nl = slurp(out);
	h = nl;
	if ((nl = strchr(nl, '\n')))
		*nl = 0;        /* the message; the usage follows */
	ct_ok(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(h, "--synth-workers 1025: must be 1 to 1024"),
	      "--synth-workers 1025: exit 2 naming the limit (status %d): %s", WEXITSTATUS(st), h);

	/* 80 copies of "backend", the last one "null": every copy is kept. */
	snprintf(cfg, sizeof(cfg), "%s/many.json", dir);
	FILE *f = fopen(cfg, "w");
	fprintf(f, "{\"backend\": [");
	for (int i = 0; i < 80; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", i < 79 ? "cpu" : "null");
	fprintf(f, "]}\n");
	fclose(f);
	struct daemon d;
	const char *extra[] = { "--config", cfg, "--mem-budget", "64M", NULL };
	int up = daemon_start(&d, "many", extra) == 0;
	json_object *r = up ? req(&d, "{\"op\":\"status\"}", NULL) : NULL;
	ct_ok(up && r && !strcmp(str_of(r, "backend"), "null") && daemon_stop(&d) == 0,
	      "a config file with 80 strings: the last backend (null) is the one used");
	json_object_put(r);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e"))
		return 1;
	ct_plan(28 + 3);
	if (!mkdtemp(dir) || make_fixtures()) {
		ct_ok(0, "fixtures");
		return ct_exit();
	}
	test_options();
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--mem-budget", "1G", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0, "cuzkd (cpu backend) starts and listens"))
		return ct_exit();
	test_cpu(&d);
	test_protocol(&d);
	ct_ok(daemon_stop(&d) == 0, "cuzkd (cpu) stops on SIGTERM with status 0");

	/* Budget: the key plus 2.5 partitions. */
	struct cz_ntt_domain *dom = cz_ntt_domain_create(key.log2n);
	uint64_t part = cz_synth_part_bytes(&key);
	uint64_t kb = cz_groth16_key_bytes(&key) + cz_ntt_domain_bytes(dom);
	uint64_t budget = kb + part * 5 / 2;
	cz_ntt_domain_destroy(dom);
	const char *nul[] = { "--backend", "null", "--null-delay-ms", "15", "--synth-workers", "2",
			      "--mem-budget", fmt("%llu", (unsigned long long)budget), NULL };
	if (!ct_ok(daemon_start(&d, "null", nul) == 0, "cuzkd (null backend) starts and listens"))
		return ct_exit();
	test_null(&d, budget);
	cz_groth16_key_free(&key);
	return e2e_end();
}
