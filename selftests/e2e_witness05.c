/* SPDX-License-Identifier: MIT */
/* Description: circom 0.5-era wasm (getFrLen, getSignalOffset32, setSignal, getWitnessBuffer): circuits compiled in the run by the pinned circom 0.5.46, every .wtns = snarkjs wtns calculate's byte for byte on both curves, proofs verified by snarkjs, each bad input its error. */
/*
 * The oracle is snarkjs 0.7.6 (tools/fixtures/node_modules), whose witness
 * calculator drives circom 0.5's protocol itself: `snarkjs wtns calculate`
 * on the same wasm and input gives the .wtns ours must equal byte for byte,
 * and `snarkjs groth16 verify` checks the proofs of `cuzk prove --wasm
 * --input`.  The circuits are written here and compiled by the pinned
 * circom 0.5.46 (npm `circom`) against circomlib 0.5.5 (npm alias
 * `circomlib05`): a multiplier on BN254 and BLS12-381 (circom 0.5's
 * `-p bls12381`), circomlib's Poseidon in a depth-3 Merkle path, and a
 * circuit whose assert fails.  Skips with the reason when node, the
 * fixtures' node_modules or wasm2c is missing.
 */
#define _GNU_SOURCE
#include "selftests/cz_test.h"
#include "selftests/cz_run.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPOINTS 20

static const char *snarkjs = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
static const char *circom05 = "tools/fixtures/node_modules/circom/cli.js";
static const char *lib05 = "tools/fixtures/node_modules/circomlib05/circuits";
static char cuzk[PATH_MAX], tmp[256], cache[PATH_MAX], root[PATH_MAX];

#define CZ_TMP tmp
#include "selftests/cz_files.h"

static const char mul_src[] =
	"template Mul() {\n"
	"    signal input a;\n    signal input b[2][2];\n    signal output c;\n    signal t[4];\n"
	"    t[0] <== a * b[0][0];\n    t[1] <== t[0] * b[0][1];\n    t[2] <== t[1] * b[1][0];\n"
	"    t[3] <== t[2] * b[1][1];\n    c <== t[3] + 7;\n}\ncomponent main = Mul();\n";

static const char merkle_src[] =
	"include \"%s/%s/poseidon.circom\";\n"
	"include \"%s/%s/mux1.circom\";\n"
	"template Merkle(n) {\n"
	"    signal input leaf;\n    signal input siblings[n];\n    signal input bits[n];\n"
	"    signal output root;\n    component h[n];\n    component m[n][2];\n"
	"    signal cur[n + 1];\n    cur[0] <== leaf;\n"
	"    for (var i = 0; i < n; i++) {\n"
	"        bits[i] * (bits[i] - 1) === 0;\n"
	"        m[i][0] = Mux1(); m[i][1] = Mux1();\n"
	"        m[i][0].c[0] <== cur[i]; m[i][0].c[1] <== siblings[i]; m[i][0].s <== bits[i];\n"
	"        m[i][1].c[0] <== siblings[i]; m[i][1].c[1] <== cur[i]; m[i][1].s <== bits[i];\n"
	"        h[i] = Poseidon(2);\n"
	"        h[i].inputs[0] <== m[i][0].out; h[i].inputs[1] <== m[i][1].out;\n"
	"        cur[i + 1] <== h[i].out;\n"
	"    }\n    root <== cur[n];\n}\ncomponent main = Merkle(3);\n";

static const char fail_src[] =
	"template F() {\n    signal input x;\n    signal output y;\n    y <== x * x;\n"
	"    assert(x != 4);\n}\ncomponent main = F();\n";

/* NAME.circom (src) compiled by circom 0.5 for PRIME into tmp/NAME_PRIME.{wasm,r1cs}. */
static int compile(const char *name, const char *prime, const char *src)
{
	const char *c = P("%s_%s.circom", name, prime);
	char r1cs[PATH_MAX], wasm[PATH_MAX];
	write_text(c, src);
	snprintf(r1cs, sizeof(r1cs), "%s/%s_%s.r1cs", tmp, name, prime);
	snprintf(wasm, sizeof(wasm), "%s/%s_%s.wasm", tmp, name, prime);
	int rc = RUN("node", circom05, c, "-r", r1cs, "-w", wasm, "-p", prime);
	if (rc)
		ct_diag("circom 0.5 %s -p %s: exit %d: %.400s", name, prime, rc, out);
	return rc;
}

static const char *wasm(const char *name, const char *prime)
{
	return P("%s_%s.wasm", name, prime);
}

/* cuzk witness and snarkjs wtns calculate on one input: byte-identical? */
static void same_as_snarkjs(const char *name, const char *prime, const char *input, int k,
			    const char *what)
{
	const char *in = P("%s_%s_%d.json", name, prime, k), *ours = P("%s_%s_%d.cuzk.wtns", name, prime, k),
		   *theirs = P("%s_%s_%d.snarkjs.wtns", name, prime, k);
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

static void bad(const char *name, const char *input, const char *want, const char *what)
{
	const char *in = P("bad.json"), *o = P("bad.wtns");
	write_text(in, input);
	unlink(o);
	int rc = RUN(cuzk, "witness", wasm(name, "bn128"), in, o, "--witness-cache", cache);
	ct_ok(rc == 2 && strstr(out, want) && access(o, F_OK) != 0, "%s: exit 2, \"%s\", no .wtns (%.200s)",
	      what, want, out);
}

static void prove(const char *name, const char *prime, int k)
{
	const char *r1cs = P("%s_%s.r1cs", name, prime), *zk = P("%s_%s.zkey", name, prime),
		   *vk = P("%s_%s_vk.json", name, prime), *in = P("%s_%s_%d.json", name, prime, k),
		   *pr = P("%s_%s_proof.json", name, prime), *pu = P("%s_%s_public.json", name, prime);
	int rc = RUN(cuzk, "devsetup", "--r1cs", r1cs, "--out-zkey", zk, "--out-vk", vk);
	if (rc)
		ct_diag("devsetup: %.300s", out);
	int rp = rc ? -1 : RUN(cuzk, "prove", zk, "--wasm", wasm(name, prime), "--input", in, pr, pu,
			       "--witness-cache", cache);
	if (rp)
		ct_diag("prove: exit %d: %.300s", rp, out);
	int rv = rp ? -1 : RUN("node", snarkjs, "groth16", "verify", vk, pu, pr);
	if (rv)
		ct_diag("snarkjs groth16 verify: %.300s", out);
	ct_ok(!rc && !rp && !rv && strstr(out, "OK"),
	      "prove --wasm --input (circom 0.5 %s, %s): snarkjs groth16 verify says OK", name, prime);
}

int main(void)
{
	const char *b = getenv("B");
	snprintf(cuzk, sizeof(cuzk), "%s/bin/cuzk", b && *b ? b : "build");
	ct_plan(NPOINTS);
	const char *why = NULL;
	char lp[PATH_MAX];
	snprintf(lp, sizeof(lp), "%s/poseidon.circom", lib05);
	if (!have("node"))
		why = "node not installed";
	else if (access(snarkjs, R_OK) || access(circom05, R_OK) || access(lp, R_OK))
		why = "tools/fixtures/node_modules incomplete (tools/install-deps.sh runs npm ci)";
	else if (!have("wasm2c"))
		why = "wabt (wasm2c) not installed (tools/install-deps.sh)";
	if (why || !getcwd(root, sizeof(root))) {
		for (int i = 0; i < NPOINTS; i++)
			ct_skip(why ? why : "getcwd", "witness05 test %d", i + 1);
		return ct_exit();
	}
	snprintf(tmp, sizeof(tmp), "/tmp/cz-witness05-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	char msrc[sizeof(merkle_src) + 4 * PATH_MAX];
	snprintf(msrc, sizeof(msrc), merkle_src, root, lib05, root, lib05);

	int c_ok = !compile("mul", "bn128", mul_src) & !compile("mul", "bls12381", mul_src) &
		   !compile("merkle", "bn128", msrc) & !compile("fail", "bn128", fail_src);
	ct_ok(c_ok, "circom 0.5.46 compiled mul (bn128, bls12381), merkle (circomlib 0.5 Poseidon), fail");

	/* ---- byte for byte: short and long values at their boundaries ---- */
	same_as_snarkjs("mul", "bn128", "{\"a\": 3, \"b\": [[\"11\", \"-5\"], [\"0x1f\", \"2\"]]}", 1,
			"mul: numbers, negative, hex, a 2x2 array");
	same_as_snarkjs("mul", "bn128",
			"{\"a\": \"2147483647\", \"b\": [[\"2147483648\", \"-2147483648\"], "
			"[\"-2147483649\", "
			"\"21888242871839275222246405745257275088548364400416034343698204186575808495616\"]]}",
			2, "mul: 2^31 - 1, 2^31, -2^31, -2^31 - 1, p - 1 (short and long cells)");
	same_as_snarkjs("mul", "bls12381", "{\"a\": 3, \"b\": [[\"11\", \"-1\"], [\"0xabcdef0123456789abcdef\", "
			"\"52435875175126190479447740508185965837690552500527637822603658699938581184512\"]]}",
			1, "mul: BLS12-381 r - 1, a long hex");
	same_as_snarkjs("merkle", "bn128", "{\"leaf\": \"12345\", \"siblings\": [\"1\", \"2\", \"0x2a\"], "
			"\"bits\": [0, 1, 1]}", 1, "a depth-3 circomlib 0.5 Poseidon Merkle path");
	same_as_snarkjs("fail", "bn128", "{\"x\": 5}", 1, "fail with a passing input");
	{
		const char *o = P("again.wtns");
		int rc = RUN(cuzk, "witness", wasm("mul", "bn128"), P("mul_bn128_1.json"), o,
			     "--witness-cache", cache);
		ct_ok(!rc && !strstr(out, "building") && same_file(o, P("mul_bn128_1.snarkjs.wtns")),
		      "a second run takes the cached library and gives the same .wtns");
	}

	/* ---- proofs ---- */
	prove("mul", "bn128", 1);
	prove("mul", "bls12381", 1);
	prove("merkle", "bn128", 1);
	{
		int rc = RUN(cuzk, "prove", P("mul_bn128.zkey"), "--wasm", wasm("mul", "bls12381"),
			     "--input", P("mul_bls12381_1.json"), P("x.json"), P("y.json"),
			     "--witness-cache", cache);
		ct_ok(rc == 1 && strstr(out, "BLS12-381") && strstr(out, "BN254"),
		      "prove: a circom 0.5 bls12381 circuit with a bn128 key is refused naming both (%.160s)",
		      out);
	}

	/* ---- bad input ---- */
	bad("mul", "{\"b\": [[1, 2], [3, 4]]}", "1 of the circuit's 2 input signals given",
	    "a missing input signal");
	bad("mul", "{\"a\": 1, \"b\": [[1, 2], [3]]}", "'b': 3 values given, the circuit's signal has 4",
	    "too few values");
	bad("mul", "{\"a\": 1, \"b\": [[1, 2, 5], [3, 4]]}", "'b': 5 values given", "too many values");
	bad("mul", "{\"a\": 1, \"b\": [[1, 2], [3, 4]], \"c\": 9}", "'c': the circuit's signal is not an input",
	    "an output given as an input");
	bad("mul", "{\"a\": 1, \"b\": [[1, 2], [3, 4]], \"zz\": 9}", "'zz': the circuit has no such input signal",
	    "an unknown signal");
	bad("mul", "{\"a\": \"21888242871839275222246405745257275088548364400416034343698204186575808495617\", "
	    "\"b\": [[1, 2], [3, 4]]}", "is >= the field's prime", "a value = p");
	bad("mul", "{\"a\": 1, \"b\": [[1, 2], [3, 4]]", "input JSON", "malformed JSON");
	bad("fail", "{\"x\": 4}", "Assert not satisfied", "a failed assert");
	ct_ok(strstr(out, "fail_bn128.circom:5") != NULL, "the failed assert names the circuit's file and line (%.200s)",
	      out);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		ct_diag("cleanup of %s failed", tmp);
	return ct_exit();
}
