/* SPDX-License-Identifier: MIT */
/* Description: cuzk witness / prove --wasm against snarkjs: circom fixtures compiled in the run, every .wtns byte for byte, proofs verified, every bad input its error, two threads trapping at once. */
/*
 * The oracle is snarkjs 0.7.6 (tools/fixtures/node_modules): `snarkjs wtns
 * calculate` on the same wasm and input gives the .wtns ours must equal byte
 * for byte, and `snarkjs groth16 verify` checks the proofs of `cuzk prove
 * --wasm --input`.  The circuits (selftests/data/witness/, NAME.circom) are
 * compiled here by the pinned circom2 (circom 2.2.3), circomlib's Poseidon
 * and SHA-256 from the pinned circomlib; modules that are not circom's (a
 * missing export, a foreign prime, a trap) are written in wat and assembled
 * with wabt's wat2wasm.  Skips with the reason when node, the fixtures'
 * node_modules, wasm2c or wat2wasm is missing.
 */
#define _GNU_SOURCE
#include "selftests/cz_test.h"
#include "selftests/cz_run.h"
#include "synth/witness/witness.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPOINTS 49

static const char *snarkjs = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
static const char *circom = "tools/fixtures/node_modules/circom2/cli.js";
static char cuzk[PATH_MAX], tmp[256], cache[PATH_MAX];

#define CZ_TMP tmp
#include "selftests/cz_files.h"

static uint8_t *read_bin(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(sz > 0 ? (size_t)sz : 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* circuit NAME (selftests/data/witness/NAME.circom) compiled for PRIME into
 * tmp/PRIME/NAME_js/NAME.wasm (+ NAME.r1cs). */
static int compile(const char *name, const char *prime)
{
	const char *dir = P("%s", prime);
	mkdir(dir, 0755);
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "selftests/data/witness/%s.circom", name);
	int rc = RUN("node", circom, src, "--r1cs", "--wasm", "--prime", prime, "-l",
		     "tools/fixtures/node_modules", "-o", dir);
	if (rc)
		ct_diag("circom %s --prime %s: exit %d: %.400s", name, prime, rc, out);
	return rc;
}

static const char *wasm(const char *name, const char *prime)
{
	return P("%s/%s_js/%s.wasm", prime, name, name);
}

/* cuzk witness and snarkjs wtns calculate on one input: byte-identical? */
static void same_as_snarkjs(const char *name, const char *prime, const char *input, const char *what)
{
	const char *in = P("%s_%s.json", name, prime), *ours = P("%s_%s_cuzk.wtns", name, prime),
		   *theirs = P("%s_%s_snarkjs.wtns", name, prime);
	write_text(in, input);
	int rc = RUN(cuzk, "witness", wasm(name, prime), in, ours, "--witness-cache", cache);
	if (rc)
		ct_diag("cuzk witness: exit %d: %.400s", rc, out);
	int rs = RUN("node", snarkjs, "wtns", "calculate", wasm(name, prime), in, theirs);
	if (rs)
		ct_diag("snarkjs wtns calculate: exit %d: %.400s", rs, out);
	ct_ok(!rc && !rs && same_file(ours, theirs), "%s (%s): cuzk witness = snarkjs wtns calculate, "
	      "byte for byte", what, prime);
}

/* cuzk witness on a bad input: exit 2 and the message has want. */
static void bad(const char *wasm_path, const char *input, const char *timeout, const char *want,
		const char *what)
{
	const char *in = P("bad.json"), *o = P("bad.wtns");
	write_text(in, input);
	unlink(o);
	int rc = timeout ? RUN(cuzk, "witness", wasm_path, in, o, "--witness-cache", cache,
			       "--witness-timeout", timeout)
			 : RUN(cuzk, "witness", wasm_path, in, o, "--witness-cache", cache);
	int ok = rc == 2 && strstr(out, want) && access(o, F_OK) != 0;
	if (!ok)
		ct_diag("exit %d (want 2), output: %.500s", rc, out);
	ct_ok(ok, "%s: exit 2, \"%s\", no .wtns", what, want);
}

/* A module that is not circom's: wat, assembled. */
static const char *wat_module(const char *name, const char *body)
{
	const char *w = P("%s.wat", name), *m = P("%s.wasm", name);
	write_text(w, body);
	if (RUN("wat2wasm", w, "-o", m))
		ct_diag("wat2wasm %s: %.300s", name, out);
	return m;
}

/* The exports a circom 2 module has; GETWITNESS's body and the prime's low
 * word vary. */
static char watbuf[8192];
static const char *fake(const char *getwitness, unsigned prime_lo, int with_size)
{
	snprintf(watbuf, sizeof(watbuf),
		 "(module\n"
		 " (import \"runtime\" \"exceptionHandler\" (func $exc (param i32)))\n"
		 " (memory (export \"memory\") 1)\n"
		 " (func $down (param i32) (result i32)\n"
		 "  (i32.add (call $down (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))\n"
		 " (func (export \"getVersion\") (result i32) i32.const 2)\n"
		 " (func (export \"getFieldNumLen32\") (result i32) i32.const 8)\n"
		 " (func (export \"getRawPrime\")\n"
		 "  (i32.store (i32.const 0) (i32.const %u)) (i32.store (i32.const 4) (i32.const 0x43e1f593))\n"
		 "  (i32.store (i32.const 8) (i32.const 0x79b97091)) (i32.store (i32.const 12) (i32.const 0x2833e848))\n"
		 "  (i32.store (i32.const 16) (i32.const 0x8181585d)) (i32.store (i32.const 20) (i32.const 0xb85045b6))\n"
		 "  (i32.store (i32.const 24) (i32.const 0xe131a029)) (i32.store (i32.const 28) (i32.const 0x30644e72)))\n"
		 " (func (export \"readSharedRWMemory\") (param i32) (result i32)\n"
		 "  (i32.load (i32.mul (local.get 0) (i32.const 4))))\n"
		 " (func (export \"writeSharedRWMemory\") (param i32 i32)\n"
		 "  (i32.store (i32.mul (local.get 0) (i32.const 4)) (local.get 1)))\n"
		 " (func (export \"init\") (param i32))\n"
		 " (func (export \"getInputSignalSize\") (param i32 i32) (result i32) i32.const -1)\n"
		 " (func (export \"setInputSignal\") (param i32 i32 i32))\n"
		 "%s"
		 " (func (export \"getInputSize\") (result i32) i32.const 0)\n"
		 " (func (export \"getWitness\") (param i32) %s))\n",
		 prime_lo,
		 with_size ? " (func (export \"getWitnessSize\") (result i32) i32.const 1)\n" : "",
		 getwitness);
	return watbuf;
}

/* ---- two threads, one program: per-thread traps, instance reuse ---- */

struct worker {
	struct cz_witness_prog *p;
	const uint8_t *want;            /* the good input's witness (snarkjs's .wtns body) */
	size_t n;
	int good, traps, wrong;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	char err[512];
	uint8_t *o = malloc(w->n);
	struct cz_witness_inst *in = cz_witness_inst_create(w->p, err, sizeof(err));
	static const char ok_in[] = "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"7\"}";
	static const char deep_in[] = "{\"x\": \"3\", \"depth\": \"100000\", \"loops\": \"7\"}";
	static const char assert_in[] = "{\"x\": \"12\", \"depth\": \"5\", \"loops\": \"7\"}";
	if (!in || !o) {
		free(o);
		return NULL;
	}
	for (int i = 0; i < 30; i++) {
		const char *s = i % 3 == 0 ? ok_in : i % 3 == 1 ? deep_in : assert_in;
		int rc = cz_witness_calc(in, s, strlen(s), o, w->n, 0, err, sizeof(err));
		if (i % 3 == 0) {
			if (!rc && !memcmp(o, w->want, w->n))
				w->good++;
			else
				w->wrong++;
		} else if (rc && (strstr(err, "out-of-bounds") || strstr(err, "assert failed")))
			w->traps++;
		else
			w->wrong++;
	}
	cz_witness_inst_free(in);
	free(o);
	return NULL;
}

/* keep_probe: the first instance is the load's probed one, run once without
 * a reset and then refusing; the second a new one (taken twice, the two would
 * be the same), which resets between runs. */
static void keep_probe(const char *fl)
{
	static const char ok_in[] = "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"7\"}";
	static const char assert_in[] = "{\"x\": \"12\", \"depth\": \"5\", \"loops\": \"7\"}";
	char err[512] = "";
	struct cz_witness_opts o = { .cache_dir = cache, .keep_probe = 1 };
	struct cz_witness_prog *p = cz_witness_prog_load(fl, &o, err, sizeof(err));
	size_t n = 0;
	uint8_t *want = read_bin(P("fail_bn128_snarkjs.wtns"), &n), *buf = malloc(n);
	struct cz_witness_inst *a = p ? cz_witness_inst_create(p, err, sizeof(err)) : NULL;
	struct cz_witness_inst *b = p ? cz_witness_inst_create(p, err, sizeof(err)) : NULL;
	int ok = p && want && buf && a && b && a != b && n > 76;
	if (!ok) {
		ct_diag("%s", err);
		for (int i = 0; i < 3; i++)
			ct_ok(0, "keep_probe: the fail circuit loads, two instances");
	} else {
		n -= 76;
		int r1 = cz_witness_calc(a, ok_in, strlen(ok_in), buf, n, 0, err, sizeof(err));
		ct_ok(!r1 && !memcmp(buf, want + 76, n),
		      "keep_probe: the probed instance's one witness = snarkjs's (%s)", err);
		int r2 = cz_witness_calc(a, ok_in, strlen(ok_in), buf, n, 0, err, sizeof(err));
		ct_ok(r2 && strstr(err, "ran its one witness"),
		      "keep_probe: that instance refuses a second run (%s)", err);
		int good = 0;
		for (int i = 0; i < 6; i++) {
			const char *s = i % 2 ? assert_in : ok_in;
			int rc = cz_witness_calc(b, s, strlen(s), buf, n, 0, err, sizeof(err));
			good += i % 2 ? rc && strstr(err, "assert failed") != NULL
				      : !rc && !memcmp(buf, want + 76, n);
		}
		ct_ok(good == 6, "keep_probe: the next instance is a new one, reset between runs: "
		      "6 runs, good and failing in turn, as snarkjs says (%d of 6)", good);
	}
	cz_witness_inst_free(a);
	cz_witness_inst_free(b);
	cz_witness_prog_free(p);
	free(want);
	free(buf);
}

int main(void)
{
	const char *b = getenv("B");
	snprintf(cuzk, sizeof(cuzk), "%s/bin/cuzk", b && *b ? b : "build");
	ct_plan(NPOINTS);
	const char *why = NULL;
	if (!have("node"))
		why = "node not installed";
	else if (access(snarkjs, R_OK) || access(circom, R_OK) ||
		 access("tools/fixtures/node_modules/circomlib/circuits/poseidon.circom", R_OK))
		why = "tools/fixtures/node_modules incomplete (tools/install-deps.sh runs npm ci)";
	else if (!have("wasm2c") || !have("wat2wasm"))
		why = "wabt (wasm2c, wat2wasm) not installed (tools/install-deps.sh)";
	if (why) {
		for (int i = 0; i < NPOINTS; i++)
			ct_skip(why, "witness test %d", i + 1);
		return ct_exit();
	}
	snprintf(tmp, sizeof(tmp), "/tmp/cz-witness-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cache, sizeof(cache), "%s/cache", tmp);

	int c_ok = !compile("arith", "bn128") & !compile("arith", "bls12381") &
		   !compile("fail", "bn128") & !compile("sha256", "bn128") & !compile("merkle", "bn128");
	ct_ok(c_ok, "circom2 compiled arith (bn128, bls12381), fail, sha256, merkle");

	/* ---- byte for byte ---- */
	static const char arith_in[] =
		"{\"a\": \"3\", \"b\": 11, \"m\": [[\"1\", \"2\", \"0x1f\"], [\"-1\", "
		"\"21888242871839275222246405745257275088548364400416034343698204186575808495616\", \"6\"]]}";
	static const char arith_in_bls[] =
		"{\"a\": 3, \"b\": \"11\", \"m\": [[1, 2, 31], [-1, -2, 6]]}";
	same_as_snarkjs("arith", "bn128", arith_in, "arith: hex, negative, p-1, numbers, a 2x3 array");
	same_as_snarkjs("arith", "bls12381", arith_in_bls, "arith");
	same_as_snarkjs("fail", "bn128", "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"7\"}",
			"fail with a passing input");
	{
		char s[4096];
		int n = snprintf(s, sizeof(s), "{\"in\": [");
		for (int i = 0; i < 64; i++)
			n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%d", i ? ", " : "",
				      (int)((0x6162636465666768ull >> (63 - i)) & 1));
		snprintf(s + n, sizeof(s) - (size_t)n, "]}");
		same_as_snarkjs("sha256", "bn128", s, "circomlib SHA-256 of 64 bits");
	}
	static const char merkle_in[] =
		"{\"leaf\": \"12345\", \"siblings\": [\"1\", \"2\", \"3\", "
		"\"0x2a\"], \"bits\": [0, 1, 1, 0]}";
	same_as_snarkjs("merkle", "bn128", merkle_in, "a depth-4 Poseidon Merkle proof");

	/* ---- the cache ---- */
	{
		const char *in = P("arith_bn128.json"), *o = P("again.wtns");
		int rc = RUN(cuzk, "witness", wasm("arith", "bn128"), in, o, "--witness-cache", cache);
		ct_ok(!rc && !strstr(out, "building") && same_file(o, P("arith_bn128_snarkjs.wtns")),
		      "a second run builds nothing (the cache by SHA-256) and gives the same .wtns");
		/* the same module with a custom section appended: another hash, a build */
		const char *w2 = P("arith2.wasm");
		size_t n;
		uint8_t *m = read_bin(wasm("arith", "bn128"), &n);
		FILE *f = fopen(w2, "wb");
		if (m && f) {
			fwrite(m, 1, n, f);
			fwrite("\x00\x04\x03" "cuz", 1, 6, f);
		}
		if (f)
			fclose(f);
		free(m);
		rc = RUN(cuzk, "witness", w2, in, o, "--witness-cache", cache);
		ct_ok(!rc && strstr(out, "building") && strstr(out, "compile") &&
		      same_file(o, P("arith_bn128_snarkjs.wtns")),
		      "a changed wasm builds anew (progress names translate and compile)");
		ct_ok(!rc && strstr(out, "Fr_F1m_mul) and Fr_F1m_fromMontgomery native"),
		      "circom's Fr_F1m_mul and Fr_F1m_fromMontgomery are replaced by native code "
		      "(synth/witness/build.c), and the .wtns stays snarkjs's byte for byte");
		/* the library's optimization level: -O3 unless CUZK_WITNESS_OPT names another
		 * (each build in a cache of its own, so each one compiles) */
		const char *lv[3][2] = { { NULL, " -O3)" }, { "1", " -O1)" }, { "x", " -O3)" } };
		int lv_ok = 0;
		char lv_out[3][160] = { "", "", "" };
		for (int i = 0; i < 3; i++) {
			char cd[PATH_MAX];
			snprintf(cd, sizeof(cd), "%s/cache-opt%d", tmp, i);
			if (lv[i][0])
				setenv("CUZK_WITNESS_OPT", lv[i][0], 1);
			else
				unsetenv("CUZK_WITNESS_OPT");
			rc = RUN(cuzk, "witness", wasm("arith", "bn128"), in, o, "--witness-cache", cd);
			const char *at = strstr(out, "compile (");
			const char *end = at ? strchr(at, ')') : NULL;
			snprintf(lv_out[i], sizeof(lv_out[i]), "%.*s", end ? (int)(end - at + 1) : 15,
				 at ? at : "no compile line");
			lv_ok += !rc && at && strstr(at, lv[i][1]) && same_file(o, P("arith_bn128_snarkjs.wtns")) &&
				 (i < 2 || strstr(out, "CUZK_WITNESS_OPT=x is not 0, 1, 2, 3 or s"));
		}
		unsetenv("CUZK_WITNESS_OPT");
		ct_ok(lv_ok == 3, "the library is compiled at -O3 (%s), CUZK_WITNESS_OPT=1 at -O1 (%s), "
		      "CUZK_WITNESS_OPT=x refused with a line and -O3 (%s); each .wtns snarkjs's", lv_out[0],
		      lv_out[1], lv_out[2]);
		const char *lib = P("arith.so");
		rc = RUN(cuzk, "witness-build", wasm("arith", "bn128"), "-o", lib, "--witness-cache",
			 cache);
		int rc2 = RUN(cuzk, "witness", lib, in, o);
		ct_ok(!rc && !rc2 && same_file(o, P("arith_bn128_snarkjs.wtns")),
		      "witness-build -o LIB, then cuzk witness LIB: the same .wtns");

		/* A library of another glue version (what a cuzk before the last
		 * CZ_WGLUE_ABI change left in its cache: every cache, after 4 -> 5)
		 * is built again where it lies, and refused naming why when given as
		 * a prebuilt LIB.  The stand-in: a shared object whose cz_wglue
		 * holds version 4, written over the cached library. */
		char cd[PATH_MAX], cached[PATH_MAX + 256] = "";
		snprintf(cd, sizeof(cd), "%s/cache-abi", tmp);
		rc = RUN(cuzk, "witness", wasm("arith", "bn128"), in, o, "--witness-cache", cd);
		DIR *dd = rc ? NULL : opendir(cd);
		for (struct dirent *de; dd && (de = readdir(dd));) {
			size_t nl = strlen(de->d_name);
			if (nl == 64 + 3 && !strcmp(de->d_name + 64, ".so"))
				snprintf(cached, sizeof(cached), "%s/%s", cd, de->d_name);
		}
		if (dd)
			closedir(dd);
		const char *osrc = P("oldglue.c"), *olib = P("oldglue.so");
		write_text(osrc, "struct { unsigned abi; } cz_wglue = { 4 };\n");
		int rb = cached[0] ? RUN("cc", "-shared", "-fPIC", "-o", cached, osrc) : -1;
		int rb2 = RUN("cc", "-shared", "-fPIC", "-o", olib, osrc);
		int r1 = rb ? -1 : RUN(cuzk, "witness", wasm("arith", "bn128"), in, o, "--witness-cache", cd);
		ct_ok(!rb && !r1 && strstr(out, "building") && strstr(out, "compile") &&
		      same_file(o, P("arith_bn128_snarkjs.wtns")),
		      "a cached library of another glue version is built again (%s), and the .wtns "
		      "is snarkjs's", cached[0] ? "found" : "not found");
		int r2 = rb2 ? -1 : RUN(cuzk, "witness", olib, in, o);
		ct_ok(r2 == 2 && strstr(out, "oldglue.so") && strstr(out, "built by another version of cuzk"),
		      "a prebuilt LIB of another glue version is refused naming it and why (%.160s)", out);
	}

	/* ---- prove --wasm --input ---- */
	struct { const char *name, *prime, *input; } pv[] = {
		{ "arith", "bn128", arith_in },
		{ "arith", "bls12381", arith_in_bls },
		{ "merkle", "bn128", merkle_in },
	};
	for (size_t i = 0; i < sizeof(pv) / sizeof(pv[0]); i++) {
		const char *r1cs = P("%s/%s.r1cs", pv[i].prime, pv[i].name);
		const char *zk = P("%s_%s.zkey", pv[i].name, pv[i].prime);
		const char *vk = P("%s_%s_vk.json", pv[i].name, pv[i].prime);
		const char *in = P("%s_%s.json", pv[i].name, pv[i].prime);
		const char *pr = P("%s_%s_proof.json", pv[i].name, pv[i].prime);
		const char *pu = P("%s_%s_public.json", pv[i].name, pv[i].prime);
		int rc = RUN(cuzk, "devsetup", "--r1cs", r1cs, "--out-zkey", zk, "--out-vk", vk);
		if (rc)
			ct_diag("devsetup: %.300s", out);
		int rp = rc ? -1 : RUN(cuzk, "prove", zk, "--wasm", wasm(pv[i].name, pv[i].prime),
				       "--input", in, pr, pu, "--witness-cache", cache);
		if (rp)
			ct_diag("prove: exit %d: %.300s", rp, out);
		int rv = rp ? -1 : RUN("node", snarkjs, "groth16", "verify", vk, pu, pr);
		if (rv)
			ct_diag("snarkjs groth16 verify: %.300s", out);
		ct_ok(!rc && !rp && !rv && strstr(out, "OK"),
		      "prove --wasm --input (%s, %s): snarkjs groth16 verify says OK", pv[i].name,
		      pv[i].prime);
	}
	{
		const char *zk = P("arith_bn128.zkey");
		int rc = RUN(cuzk, "prove", zk, "--wasm", wasm("arith", "bls12381"), "--input",
			     P("arith_bls12381.json"), P("x.json"), P("y.json"), "--witness-cache", cache);
		ct_ok(rc == 1 && strstr(out, "bls12381/BLS12-381") && strstr(out, "bn128/BN254"),
		      "prove: a bls12381 circuit with a bn128 key is refused naming both (%.120s)", out);
		rc = RUN(cuzk, "prove", zk, "--wasm", wasm("merkle", "bn128"), "--input",
			 P("merkle_bn128.json"), P("x.json"), P("y.json"), "--witness-cache", cache);
		ct_ok(rc == 1 && strstr(out, "nVars = 11"),
		      "prove: another circuit's witness is refused by its size (%.160s)", out);
		const char *bi = P("bad_arith.json");
		write_text(bi, "{\"a\": 1, \"b\": 2, \"m\": [[1,2,3],[4,5]]}");
		rc = RUN(cuzk, "prove", zk, "--wasm", wasm("arith", "bn128"), "--input", bi, P("x.json"),
			 P("y.json"), "--witness-cache", cache);
		ct_ok(rc == 1 && strstr(out, "5 values given") && access(P("x.json"), F_OK) != 0,
		      "prove: a bad input exits 1 with the witness's error, no proof (%.160s)", out);
		/* the key fails to load while the witness is computed beside it */
		size_t zn = 0;
		uint8_t *zb = read_bin(zk, &zn);
		FILE *hf = zb ? fopen(P("half.zkey"), "wb") : NULL;
		if (hf) {
			fwrite(zb, 1, zn / 2, hf);
			fclose(hf);
		}
		free(zb);
		rc = RUN(cuzk, "prove", P("half.zkey"), "--wasm", wasm("arith", "bn128"), "--input",
			 P("arith_bn128.json"), P("x.json"), P("y.json"), "--witness-cache", cache);
		ct_ok(rc == 1 && strstr(out, "truncated") && access(P("x.json"), F_OK) != 0,
		      "prove: a key cut in half fails its load while the witness runs: exit 1, "
		      "the key's error, no proof (%.160s)", out);
	}

	/* ---- bad input ---- */
	const char *ar = wasm("arith", "bn128"), *fl = wasm("fail", "bn128");
	bad(ar, "{\"a\": \"3\", \"b\": ", NULL, "input JSON", "malformed JSON");
	bad(ar, "[1, 2]", NULL, "not an object", "JSON that is not an object");
	bad(ar, "{\"a\": \"3\", \"m\": [[1,2,3],[4,5,6]]}", NULL, "an input signal is missing",
	    "a missing signal");
	bad(ar, "{\"a\": 1, \"b\": 2, \"zz\": 3, \"m\": [[1,2,3],[4,5,6]]}", NULL,
	    "input signal 'zz': the circuit has no such input signal", "an extra signal");
	bad(ar, "{\"a\": 1, \"b\": 2, \"m\": [[1,2,3],[4,5]]}", NULL,
	    "input signal 'm': 5 values given, the circuit's signal has 6", "a mis-sized signal");
	bad(ar, "{\"a\": 1, \"b\": \"21888242871839275222246405745257275088548364400416034343698204186575808495617\", "
		"\"m\": [[1,2,3],[4,5,6]]}", NULL, "input signal 'b' value 0", "a value = r");
	ct_ok(strstr(out, ">= the field's prime") != NULL, "... and the message says >= the prime");
	bad(ar, "{\"a\": 1.5, \"b\": 2, \"m\": [[1,2,3],[4,5,6]]}", NULL, "is not an integer",
	    "a fraction");
	bad(ar, "{\"a\": 123456789012345678901234567890, \"b\": 2, \"m\": [[1,2,3],[4,5,6]]}", NULL,
	    "write it as a string", "a JSON number past 2^64 (not exact in JSON)");
	bad(ar, "{\"a\": \"12x\", \"b\": 2, \"m\": [[1,2,3],[4,5,6]]}", NULL,
	    "is not a decimal or 0x-hex integer", "a value that is not a number");
	bad(ar, "{\"a\": true, \"b\": 2, \"m\": [[1,2,3],[4,5,6]]}", NULL, "boolean is not a number",
	    "a boolean");
	bad(fl, "{\"x\": \"12\", \"depth\": \"5\", \"loops\": \"7\"}", NULL, "assert failed",
	    "a failing assert");
	ct_ok(strstr(out, "template Fail") != NULL && strstr(out, "line") != NULL,
	      "... with the circuit's message and template (%.200s)", out);
	bad(fl, "{\"x\": \"3\", \"depth\": \"100000\", \"loops\": \"7\"}", NULL,
	    "the circuit trapped: out-of-bounds memory access",
	    "deep recursion in a circom function (past circom's stack in the wasm memory, as "
	    "snarkjs says too): a trap, not a crash");
	bad(wat_module("recurse", fake("(drop (call $down (i32.const 0)))", 0xf0000001, 1)), "{}", NULL,
	    "call stack exhausted", "unbounded native recursion: the stack's guard page, a trap");
	if (CT_TSAN_NO_TIMER)
		ct_skip(CT_TSAN_NO_TIMER_WHY, "a run past --witness-timeout 0.5");
	else
		bad(fl, "{\"x\": \"3\", \"depth\": \"5\", \"loops\": \"1000000000000000\"}", "0.5",
		    "time limit of 500 ms", "a run past --witness-timeout 0.5");
	bad(wat_module("oob", fake("(drop (i32.load (i32.const 0x7ffffff0)))", 0xf0000001, 1)), "{}",
	    NULL, "out-of-bounds memory access", "an out-of-bounds load");
	bad(wat_module("unreach", fake("unreachable", 0xf0000001, 1)), "{}", NULL,
	    "unreachable executed", "unreachable");
	bad(wat_module("exc", fake("(call $exc (i32.const 4))", 0xf0000001, 1)), "{}", NULL,
	    "the circuit failed: assert failed", "exceptionHandler(4)");
	bad(wat_module("nosize", fake("", 0xf0000001, 0)), "{}", NULL,
	    "no export 'getWitnessSize': not a circom 2.x witness program", "a missing export");
	bad(wat_module("prime", fake("", 7, 1)), "{}", NULL, "is neither BN254's nor BLS12-381's r",
	    "a foreign prime");
	{
		const char *nw = P("notwasm.wasm");
		write_text(nw, "this is not wasm");
		bad(nw, "{}", NULL, "not a WebAssembly module", "a file that is not wasm");
	}
	{
		/* the fake's witness after a good run: the exports read back */
		const char *m = wat_module("good", fake("", 0xf0000001, 1));
		const char *in = P("e.json"), *o = P("good.wtns");
		write_text(in, "{}");
		int rc = RUN(cuzk, "witness", m, in, o, "--witness-cache", cache);
		ct_ok(rc == 0, "a minimal circom-shaped module runs (exit %d: %.200s)", rc, out);
	}

	/* ---- two threads ---- */
	{
		char err[512];
		struct cz_witness_opts o = { .cache_dir = cache };
		struct cz_witness_prog *p = cz_witness_prog_load(fl, &o, err, sizeof(err));
		size_t n = 0;
		uint8_t *want = read_bin(P("fail_bn128_snarkjs.wtns"), &n);
		ct_ok(p && want && cz_witness_prog_nvars(p) * 32 + 76 == n,
		      "the library loads the fail circuit (%u values)", p ? cz_witness_prog_nvars(p) : 0);
		if (p && want) {
			struct worker w[2] = { { p, want + 76, n - 76, 0, 0, 0 },
					       { p, want + 76, n - 76, 0, 0, 0 } };
			pthread_t t[2];
			for (int i = 0; i < 2; i++)
				pthread_create(&t[i], NULL, worker, &w[i]);
			for (int i = 0; i < 2; i++)
				pthread_join(t[i], NULL);
			ct_ok(w[0].good == 10 && w[1].good == 10 && w[0].traps == 20 && w[1].traps == 20 &&
			      !w[0].wrong && !w[1].wrong,
			      "two threads, one instance each, 30 runs each: traps and failed "
			      "asserts in both at once, and every good witness = snarkjs's (%d+%d good, "
			      "%d+%d errors, %d+%d wrong)", w[0].good, w[1].good, w[0].traps, w[1].traps,
			      w[0].wrong, w[1].wrong);
			struct cz_witness_inst *in = cz_witness_inst_create(p, err, sizeof(err));
			uint8_t *buf = malloc(n);
			int rc = in ? cz_witness_calc(in, "{}", 2, buf, 10, 0, err, sizeof(err)) : 0;
			ct_ok(rc && strstr(err, "holds 10 bytes"), "an output too small is refused (%s)",
			      err);
			free(buf);
			cz_witness_inst_free(in);
		} else {
			ct_skip("the library did not load", "two threads");
			ct_skip("the library did not load", "output size");
		}
		free(want);
		cz_witness_prog_free(p);
	}
	keep_probe(fl);
	if (!getenv("CZ_KEEP"))
		RUN("rm", "-rf", tmp);
	return ct_exit();
}
