/* SPDX-License-Identifier: MIT */
/* Description: one cuzkd holding keys of both curves: interleaved BN254 and BLS12-381 jobs, every proof verified by snarkjs; curve mismatches refused naming both. */
/*
 * The oracle is snarkjs 0.7.6 (tools/fixtures/node_modules): every proof
 * the daemon writes is checked with `snarkjs groth16 verify` against the
 * verification key snarkjs exported for the circuit (selftests/data and
 * selftests/data/bn128: circom-compiled circuits, snarkjs setup), and its
 * public.json against snarkjs's own.  Without snarkjs the checks against
 * it are skipped and cuzk's verifier (`cuzk verify`) still runs.
 * CZ_ISOLATION=process runs the same against device children.
 */
#define CZ_DAEMON_ENV_ISOLATION
#define CZ_DAEMON_START_TRIES 1000
#include "selftests/cz_daemon.h"

#include <sys/stat.h>

static int have_snarkjs;

static json_object *req(struct daemon *d, const char *json)
{
	return daemon_req(d, json, NULL, 0);
}

static int json_same(const char *a, const char *b)
{
	json_object *x = json_object_from_file(a), *y = json_object_from_file(b);
	int eq = x && y && json_object_equal(x, y);
	json_object_put(x);
	json_object_put(y);
	return eq;
}

/* A job of circuit circ (curve bn, fixture circuit name) whose partitions
 * are the fixture witnesses wi[0..n). */
static int submit(struct daemon *d, const char *id, const char *circ, int bn, const char *name,
		  const int *wi, int n)
{
	char q[8192];
	int k = snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"%s\",\"id\":\"%s\",\"witnesses\":[", circ, id);
	for (int i = 0; i < n; i++)
		k += snprintf(q + k, sizeof(q) - (size_t)k, "%s\"%s/%s_%d.wtns\"", i ? "," : "", e2e_data(bn), name,
			      wi[i]);
	snprintf(q + k, sizeof(q) - (size_t)k, "]}");
	json_object *r = req(d, q);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok;
}

struct jobspec {
	const char *id, *circ, *name;
	int bn, n, wi[4];
};

static void test_both(struct daemon *d)
{
	/* three keys, two curves, resident together */
	const char *loads[3][3] = { { "bn_mul", "1", "mulchain" }, { "bls_mul", "0", "mulchain" },
				    { "bn_range", "1", "rangehash" } };
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		json_object *r = req(d, fmt("{\"op\":\"load\",\"name\":\"%s\",\"zkey\":\"%s/%s.zkey\"}", loads[i][0],
					   e2e_data(loads[i][1][0] == '1'), loads[i][2]));
		const char *want = loads[i][1][0] == '1' ? "bn128" : "bls12381";
		if (!ok_of(r) || strcmp(str_of(r, "curve"), want)) {
			ct_diag("load %s: %s (curve %s)", loads[i][0], str_of(r, "error"), str_of(r, "curve"));
			ok = 0;
		}
		json_object_put(r);
	}
	ct_ok(ok, "one daemon loads bn128 and BLS12-381 keys; each load names its curve");
	json_object *s = req(d, "{\"op\":\"status\"}");
	const char *st = s ? json_object_to_json_string(s) : "";
	ct_ok(strstr(st, "\"curve\": \"bn128\"") || strstr(st, "\"curve\":\"bn128\""),
	      "status lists the circuits with their curves");
	json_object_put(s);

	/* interleaved: submitted alternately, all queued at once */
	static const struct jobspec jobs[] = {
		{ "j0", "bn_mul", "mulchain", 1, 2, { 1, 2 } },
		{ "j1", "bls_mul", "mulchain", 0, 2, { 2, 1 } },
		{ "j2", "bn_range", "rangehash", 1, 3, { 1, 2, 1 } },
		{ "j3", "bls_mul", "mulchain", 0, 1, { 1 } },
		{ "j4", "bn_mul", "mulchain", 1, 3, { 2, 1, 2 } },
	};
	enum { NJOBS = sizeof(jobs) / sizeof(jobs[0]) };
	ok = 1;
	for (int i = 0; i < NJOBS; i++)
		ok &= submit(d, jobs[i].id, jobs[i].circ, jobs[i].bn, jobs[i].name, jobs[i].wi, jobs[i].n);
	ct_ok(ok, "%d jobs submitted alternating between the curves", NJOBS);
	int nproofs = 0, nok = 0, npub = 0, bins = 1;
	for (int i = 0; i < NJOBS; i++) {
		const struct jobspec *j = &jobs[i];
		json_object *r = daemon_await(d, j->id, -1);
		char out[PATH_MAX];
		snprintf(out, sizeof(out), "%s", str_of(r, "dir"));
		if (!ok_of(r) || strcmp(str_of(r, "state"), "done"))
			ct_diag("job %s: %s", j->id, str_of(r, "error"));
		json_object_put(r);
		const char *vk = fmt("%s/%s_vk.json", e2e_data(j->bn), j->name);
		for (int k = 0; k < j->n; k++) {
			nproofs++;
			nok += vk_verify(vk, out, k, have_snarkjs);
			npub += json_same(fmt("%s/%d.public.json", out, k),
					  fmt("%s/%s_public_%d.json", e2e_data(j->bn), j->name, j->wi[k]));
		}
		struct stat sb;
		int has_bin = stat(fmt("%s/proof.bin", out), &sb) == 0;
		bins &= j->bn ? !has_bin : has_bin && sb.st_size == 192 * j->n;
	}
	ct_ok(nok == nproofs, "%s accepts %d of the daemon's %d proofs (both curves, interleaved)",
	      have_snarkjs ? "snarkjs groth16 verify" : "cuzk verify (snarkjs not installed)", nok, nproofs);
	ct_ok(npub == nproofs, "%d of %d public.json files = snarkjs's for the same witness", npub, nproofs);
	ct_ok(bins, "proof.bin (zcash compressed) for the BLS12-381 jobs only");

	/* a witness of the other curve: refused at submit naming both (its
	 * header is checked there: issue 24), no job made, the daemon goes on */
	char q[4096];
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"bn_mul\",\"id\":\"x1\",\"witnesses\":[\"%s/mulchain_1.wtns\"]}",
		 e2e_data(0));
	json_object *sr = req(d, q);
	json_object *r = daemon_await(d, "x1", -1);
	ct_ok(!ok_of(sr) && strstr(str_of(sr, "error"), "field q: curve bls12381/BLS12-381, expected bn128/BN254") &&
	      strstr(str_of(sr, "error"), "mulchain_1.wtns") && !strcmp(str_of(r, "error"), "unknown job 'x1'"),
	      "bn128 key, BLS12-381 witness: refused at submit naming the file and both curves: %s", str_of(sr, "error"));
	json_object_put(sr);
	json_object_put(r);
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"bls_mul\",\"id\":\"x2\",\"witnesses\":[\"%s/mulchain_1.wtns\"]}",
		 e2e_data(1));
	sr = req(d, q);
	r = daemon_await(d, "x2", -1);
	ct_ok(!ok_of(sr) && strstr(str_of(sr, "error"), "field q: curve bn128/BN254, expected bls12381/BLS12-381") &&
	      strstr(str_of(sr, "error"), "mulchain_1.wtns") && !strcmp(str_of(r, "error"), "unknown job 'x2'"),
	      "BLS12-381 key, bn128 witness: refused at submit naming the file and both curves: %s", str_of(sr, "error"));
	json_object_put(sr);
	json_object_put(r);

	/* an unsatisfying bn128 witness: its partition fails, verified */
	const char *bad = fmt("%s/bn_unsat.wtns", dir);
	FILE *f = fopen(fmt("%s/mulchain_2.wtns", e2e_data(1)), "rb");
	static uint8_t b[1 << 16];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	if (f)
		fclose(f);
	/* the last value is a private signal: bit 0 of its low byte flipped
	 * (values are 32 bytes, little-endian, and end the file) */
	if (n > 32)
		b[n - 32] ^= 1;
	f = fopen(bad, "wb");
	ok = f && n > 32 && fwrite(b, 1, n, f) == n;
	if (f)
		ok &= fclose(f) == 0;
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"bn_mul\",\"id\":\"x3\",\"witnesses\":[\"%s/mulchain_1.wtns\",\"%s\"]}",
		 e2e_data(1), bad);
	json_object_put(req(d, q));
	r = daemon_await(d, "x3", -1);
	ct_ok(ok && !ok_of(r) && strstr(str_of(r, "error"), "partition 1: witness does not satisfy the circuit"),
	      "unsatisfying bn128 witness: the job fails naming the partition: %s", str_of(r, "error"));
	json_object_put(r);

	/* and it still proves both curves */
	ok = submit(d, "after_bn", "bn_range", 1, "rangehash", (const int[]){ 2 }, 1) &&
	     submit(d, "after_bls", "bls_mul", 0, "mulchain", (const int[]){ 2 }, 1);
	for (int i = 0; i < 2; i++) {
		r = daemon_await(d, i ? "after_bls" : "after_bn", -1);
		char out[PATH_MAX];
		snprintf(out, sizeof(out), "%s", str_of(r, "dir"));
		ok &= ok_of(r) && vk_verify(fmt("%s/%s_vk.json", e2e_data(!i), i ? "mulchain" : "rangehash"), out, 0,
					     have_snarkjs);
		json_object_put(r);
	}
	ct_ok(ok, "after the refusals a job of each curve still proves and verifies");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-bn254"))
		return 1;
	ct_plan(12);
	if (!mkdtemp(dir)) {
		ct_ok(0, "mkdtemp");
		return ct_exit();
	}
	have_snarkjs = snarkjs_usable();
	if (!have_snarkjs)
		ct_diag("snarkjs not installed (tools/install-deps.sh): cuzk verify checks the proofs instead");
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--mem-budget", "1G", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0, "cuzkd (cpu backend) starts and listens"))
		return ct_exit();
	test_both(&d);
	ct_ok(daemon_stop(&d) == 0, "cuzkd stops on SIGTERM with status 0");
	return e2e_end();
}
