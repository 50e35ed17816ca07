/* SPDX-License-Identifier: MIT */
/* Description: cuzk prove/verify/vk/devsetup end to end, cross-checked with snarkjs. */
/*
 * Runs build/bin/cuzk (found next to this program: argv[0] is
 * B/selftests/e2e_cli, the binary B/bin/cuzk) on the committed snarkjs
 * fixtures in selftests/data/ and on keys it makes with `cuzk devsetup`.
 * The oracles are independent of cuzk's code: snarkjs 0.7.6 (node
 * tools/fixtures/node_modules/snarkjs) verifies our proofs, exports our
 * keys' verification keys and proves with our keys; the fixtures' proofs,
 * public inputs and verification keys were written by snarkjs; the 192-byte
 * --bin encoding is recomputed here with GMP from the JSON's decimals.
 * Without snarkjs installed (tools/install-deps.sh installs it) the snarkjs
 * points are skipped with that reason.
 */
#include "selftests/cz_test.h"
#include "selftests/cz_run.h"

#include <errno.h>
#include <fcntl.h>
#include <gmp.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


static const char *data_dir = "selftests/data";
static const char *snarkjs_cli = "tools/fixtures/node_modules/snarkjs/build/cli.cjs";
static const char *no_snarkjs = "snarkjs not installed (tools/install-deps.sh runs npm ci in tools/fixtures)";
static char cuzk[PATH_MAX], tmp[PATH_MAX];
static int have_snarkjs;

static const char *P_HEX =
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
static const char *R_HEX = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";


static const char *path(const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *paths[4096];
static int npaths;

/* dir/name, kept until paths_free() at exit (so any number can be live). */
static const char *path(const char *dir, const char *fmt, ...)
{
	char name[PATH_MAX / 2];
	va_list ap;
	char *p = malloc(PATH_MAX);

	if (!p || npaths == (int)(sizeof(paths) / sizeof(paths[0])))
		abort();
	paths[npaths++] = p;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static void paths_free(void)
{
	while (npaths)
		free(paths[--npaths]);
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static long file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : (long)st.st_size;
}

static int copy_prefix(const char *from, const char *to, long n)
{
	FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
	int ok = f && g;
	for (long i = 0; ok && (n < 0 || i < n); i++) {
		int c = fgetc(f);
		if (c == EOF)
			break;
		fputc(c, g);
	}
	if (f)
		fclose(f);
	if (g && fclose(g))
		ok = 0;
	return ok ? 0 : -1;
}

static int snarkjs_verify(const char *vk, const char *pub, const char *proof)
{
	int rc = RUN("node", snarkjs_cli, "groth16", "verify", vk, pub, proof);
	return rc == 0 && strstr(out, "OK");
}

static int cuzk_verify(const char *vk, const char *pub, const char *proof)
{
	return RUN(cuzk, "verify", vk, pub, proof) == 0 && !strcmp(out, "OK");
}

/* Both files parse as JSON and hold the same values. */
static int json_same(const char *a, const char *b)
{
	json_object *x = json_object_from_file(a), *y = json_object_from_file(b);
	int eq = x && y && json_object_equal(x, y);
	json_object_put(x);
	json_object_put(y);
	return eq;
}

/* ---- the zcash compressed encoding, from the JSON's decimals (GMP) ---- */

static void be48(uint8_t o[48], const mpz_t v)
{
	size_t cnt;
	uint8_t tmpb[48];
	memset(o, 0, 48);
	mpz_export(tmpb, &cnt, 1, 1, 1, 0, v);
	memcpy(o + 48 - cnt, tmpb, cnt);
}

static int is_largest(const mpz_t y, const mpz_t p)
{
	mpz_t h;
	mpz_init(h);
	mpz_sub_ui(h, p, 1);
	mpz_fdiv_q_2exp(h, h, 1);
	int r = mpz_cmp(y, h) > 0;
	mpz_clear(h);
	return r;
}

static const char *jstr(json_object *o, int i, int j)
{
	json_object *e = json_object_array_get_idx(o, (size_t)i);
	if (j >= 0)
		e = json_object_array_get_idx(e, (size_t)j);
	return json_object_get_string(e);
}

/* G1 [x, y, z] or G2 [[x0, x1], [y0, y1], [z0, z1]] in zcash's form:
 * x big-endian (G2: c1 then c0), top bits compressed | infinity | y largest. */
static void compress(uint8_t *o, json_object *pt, int g2, const mpz_t p)
{
	mpz_t v0, v1, y0, y1;
	size_t bytes = g2 ? 96 : 48;

	if (!strcmp(g2 ? jstr(pt, 2, 0) : jstr(pt, 2, -1), "0")) {
		memset(o, 0, bytes);
		o[0] = 0xc0;
		return;
	}
	mpz_inits(v0, v1, y0, y1, NULL);
	if (!g2) {
		mpz_set_str(v0, jstr(pt, 0, -1), 10);
		mpz_set_str(y0, jstr(pt, 1, -1), 10);
		be48(o, v0);
		o[0] |= 0x80 | (is_largest(y0, p) ? 0x20 : 0);
	} else {
		mpz_set_str(v0, jstr(pt, 0, 0), 10);
		mpz_set_str(v1, jstr(pt, 0, 1), 10);
		mpz_set_str(y0, jstr(pt, 1, 0), 10);
		mpz_set_str(y1, jstr(pt, 1, 1), 10);
		be48(o, v1);
		be48(o + 48, v0);
		int big = mpz_sgn(y1) ? is_largest(y1, p) : is_largest(y0, p);
		o[0] |= 0x80 | (big ? 0x20 : 0);
	}
	mpz_clears(v0, v1, y0, y1, NULL);
}

static int bin_matches(const char *bin, const char *proof_json)
{
	uint8_t want[192], got[193];
	json_object *o = json_object_from_file(proof_json);
	json_object *a, *b, *c;
	FILE *f = fopen(bin, "rb");
	size_t n = f ? fread(got, 1, sizeof(got), f) : 0;
	mpz_t p;
	int ok;

	if (f)
		fclose(f);
	if (!o || n != 192 || !json_object_object_get_ex(o, "pi_a", &a) ||
	    !json_object_object_get_ex(o, "pi_b", &b) || !json_object_object_get_ex(o, "pi_c", &c)) {
		json_object_put(o);
		return 0;
	}
	mpz_init_set_str(p, P_HEX, 16);
	compress(want, a, 0, p);
	compress(want + 48, b, 1, p);
	compress(want + 144, c, 0, p);
	ok = !memcmp(want, got, 192);
	mpz_clear(p);
	json_object_put(o);
	return ok;
}

/* ---- the fixtures: snarkjs's proofs through cuzk verify ---- */

static const char *const circuits[] = { "mulchain", "rangehash" };

static void verify_fixtures(void)
{
	for (int c = 0; c < 2; c++)
		for (int i = 1; i <= 2; i++)
			ct_ok(cuzk_verify(path(data_dir, "%s_vk.json", circuits[c]),
					  path(data_dir, "%s_public_%d.json", circuits[c], i),
					  path(data_dir, "%s_proof_%d.json", circuits[c], i)),
			      "verify accepts snarkjs's %s proof %d", circuits[c], i);
}

/* snarkjs's bn128 proofs (selftests/data/bn128/): the key's "curve" picks
 * BN254; a changed public input is INVALID (exit 1); a file of the other
 * curve is malformed input (exit 2) whose message names both curves. */
static void verify_bn128(void)
{
	static const char *bn = "selftests/data/bn128";
	int rc;

	for (int c = 0; c < 2; c++)
		for (int i = 1; i <= 2; i++)
			ct_ok(cuzk_verify(path(bn, "%s_vk.json", circuits[c]),
					  path(bn, "%s_public_%d.json", circuits[c], i),
					  path(bn, "%s_proof_%d.json", circuits[c], i)),
			      "verify accepts snarkjs's bn128 %s proof %d", circuits[c], i);
	rc = RUN(cuzk, "verify", path(bn, "mulchain_vk.json"), path(bn, "mulchain_public_2.json"),
		 path(bn, "mulchain_proof_1.json"));
	ct_ok(rc == 1 && !strncmp(out, "INVALID", 7),
	      "bn128: proof 1 with public inputs 2 is INVALID, exit 1 (%d: %s)", rc, out);
	rc = RUN(cuzk, "verify", path(bn, "mulchain_vk.json"), path(bn, "mulchain_public_1.json"),
		 path(data_dir, "mulchain_proof_1.json"));
	ct_ok(rc == 2 && strstr(out, "bls12381/BLS12-381") && strstr(out, "bn128/BN254"),
	      "a BLS12-381 proof against a bn128 key: exit 2 naming both curves (%d: %s)", rc, out);
}

/* cuzk calldata = snarkjs zkey export soliditycalldata, both curves' fixtures */
static void calldata_fixtures(void)
{
	static const char *dirs[2] = { "selftests/data", "selftests/data/bn128" };
	static char mine[OUTCAP];
	int ok = 1, n = 0, rc;

	if (!have_snarkjs) {
		ct_skip(no_snarkjs, "calldata = snarkjs's soliditycalldata");
	} else {
		for (int d = 0; d < 2; d++)
			for (int c = 0; c < 2; c++)
				for (int i = 1; i <= 2; i++) {
					const char *pr = path(dirs[d], "%s_proof_%d.json", circuits[c], i);
					const char *pu = path(dirs[d], "%s_public_%d.json", circuits[c], i);
					rc = RUN(cuzk, "calldata", pr, pu);
					ok &= rc == 0;
					snprintf(mine, sizeof(mine), "%s", out);
					rc = RUN("node", snarkjs_cli, "zkey", "export", "soliditycalldata", pu, pr);
					ok &= rc == 0 && !strcmp(mine, out) && mine[0] == '[';
					if (!ok) {
						ct_diag("%s: cuzk: %.200s", pr, mine);
						ct_diag("%s: snarkjs: %.200s", pr, out);
					}
					n++;
				}
		ct_ok(ok, "calldata prints snarkjs's soliditycalldata for %d proofs, BLS12-381 and bn128", n);
	}
	rc = RUN(cuzk, "calldata", path(dirs[1], "mulchain_proof_1.json"), path(dirs[0], "mulchain_vk.json"));
	ct_ok(rc == 2 && strstr(out, "mulchain_vk.json"), "calldata with a bad PUBLIC.json: exit 2 naming it (%d: %.120s)",
	      rc, out);
}

/* Writes proof_1 with member key (and its sub-index) replaced. */
static json_object *load_fixture(const char *c, const char *kind, int i)
{
	return json_object_from_file(path(data_dir, "%s_%s_%d.json", c, kind, i));
}

static int save(json_object *o, const char *p)
{
	int rc = json_object_to_file_ext(p, o, JSON_C_TO_STRING_PRETTY);
	json_object_put(o);
	return rc;
}

static void verify_rejects(const char *c)
{
	const char *vk = path(data_dir, "%s_vk.json", c);
	const char *pub1 = path(data_dir, "%s_public_1.json", c);
	const char *proof1 = path(data_dir, "%s_proof_1.json", c);
	const char *pr = path(tmp, "%s_bad_proof.json", c);
	const char *pu = path(tmp, "%s_bad_public.json", c);
	const char *pts[3] = { "pi_a", "pi_b", "pi_c" };
	json_object *o, *p2, *e;
	int rc;

	/* a public input + 1 (mod r) */
	o = load_fixture(c, "public", 1);
	{
		mpz_t v, r;
		mpz_init_set_str(v, json_object_get_string(json_object_array_get_idx(o, 0)), 10);
		mpz_init_set_str(r, R_HEX, 16);
		mpz_add_ui(v, v, 1);
		mpz_mod(v, v, r);
		char *s = mpz_get_str(NULL, 10, v);
		json_object_array_put_idx(o, 0, json_object_new_string(s));
		free(s);
		mpz_clears(v, r, NULL);
	}
	save(o, pu);
	rc = RUN(cuzk, "verify", vk, pu, proof1);
	ct_ok(rc == 1 && !strncmp(out, "INVALID: ", 9), "%s: changed public input: exit %d, %.60s", c, rc, out);

	/* each point replaced by the (valid) point of the other proof */
	for (int k = 0; k < 3; k++) {
		o = load_fixture(c, "proof", 1);
		p2 = load_fixture(c, "proof", 2);
		json_object_object_get_ex(p2, pts[k], &e);
		json_object_object_add(o, pts[k], json_object_get(e));
		json_object_put(p2);
		save(o, pr);
		rc = RUN(cuzk, "verify", vk, pub1, pr);
		ct_ok(rc == 1 && !strncmp(out, "INVALID: ", 9), "%s: %s from the other proof: exit %d",
		      c, pts[k], rc);
	}

	/* pi_a off the curve: y = 1 */
	o = load_fixture(c, "proof", 1);
	json_object_object_get_ex(o, "pi_a", &e);
	json_object_array_put_idx(e, 1, json_object_new_string("1"));
	save(o, pr);
	rc = RUN(cuzk, "verify", vk, pub1, pr);
	ct_ok(rc == 2 && strstr(out, pr) && strstr(out, "pi_a"),
	      "%s: pi_a off the curve: exit %d, names file and field: %.100s", c, rc, out);

	/* pi_b with c0 and c1 swapped in both coordinates */
	o = load_fixture(c, "proof", 1);
	json_object_object_get_ex(o, "pi_b", &e);
	for (int j = 0; j < 2; j++) {
		json_object *xy = json_object_array_get_idx(e, (size_t)j);
		json_object *c0 = json_object_get(json_object_array_get_idx(xy, 0));
		json_object *c1 = json_object_get(json_object_array_get_idx(xy, 1));
		json_object_array_put_idx(xy, 0, c1);
		json_object_array_put_idx(xy, 1, c0);
	}
	save(o, pr);
	rc = RUN(cuzk, "verify", vk, pub1, pr);
	ct_ok((rc == 1 || rc == 2) && strcmp(out, "OK"),
	      "%s: pi_b with c0/c1 swapped rejected: exit %d: %.100s", c, rc, out);

	/* public inputs: one too many; one >= r */
	o = load_fixture(c, "public", 1);
	json_object_array_add(o, json_object_new_string("1"));
	save(o, pu);
	rc = RUN(cuzk, "verify", vk, pu, proof1);
	ct_ok(rc == 1 && !strncmp(out, "INVALID: ", 9), "%s: an extra public input: exit %d, %.80s", c, rc, out);
	o = load_fixture(c, "public", 1);
	{
		mpz_t r;
		mpz_init_set_str(r, R_HEX, 16);
		char *s = mpz_get_str(NULL, 10, r);
		json_object_array_put_idx(o, 0, json_object_new_string(s));
		free(s);
		mpz_clear(r);
	}
	save(o, pu);
	rc = RUN(cuzk, "verify", vk, pu, proof1);
	ct_ok(rc == 2 && strstr(out, pu), "%s: public input = r: exit %d, %.100s", c, rc, out);

	/* malformed JSON: the first 40 bytes of the proof */
	copy_prefix(proof1, pr, 40);
	rc = RUN(cuzk, "verify", vk, pub1, pr);
	ct_ok(rc == 2 && strstr(out, pr), "%s: truncated proof.json: exit %d, %.100s", c, rc, out);
	copy_prefix(vk, pu, 100);
	rc = RUN(cuzk, "verify", pu, pub1, proof1);
	ct_ok(rc == 2 && strstr(out, pu), "%s: truncated vk.json: exit %d, names the file", c, rc);
}

/* ---- cuzk prove on the fixture keys ---- */

static int no_tmp_left(void)
{
	return RUN("sh", "-c", "ls \"$0\" | grep -c '\\.tmp$'", tmp) == 1 && !strcmp(out, "0");
}

static void prove_fixtures(void)
{
	for (int c = 0; c < 2; c++)
		for (int i = 1; i <= 2; i++) {
			const char *nm = circuits[c];
			const char *proof = path(tmp, "%s_%d_proof.json", nm, i);
			const char *pub = path(tmp, "%s_%d_public.json", nm, i);
			const char *bin = path(tmp, "%s_%d_proof.bin", nm, i);
			const char *vk = path(data_dir, "%s_vk.json", nm);
			int rc = RUN(cuzk, "prove", path(data_dir, "%s.zkey", nm),
				     path(data_dir, "%s_%d.wtns", nm, i), proof, pub, "--bin", bin,
				     "--threads", "2");
			if (!ct_ok(rc == 0, "prove %s witness %d: exit %d %.100s", nm, i, rc, out)) {
				for (int k = 0; k < 4 + (i == 1); k++)
					ct_ok(0, "prove %s witness %d: (no proof)", nm, i);
				continue;
			}
			ct_ok(json_same(pub, path(data_dir, "%s_public_%d.json", nm, i)),
			      "prove %s %d: public.json = snarkjs's", nm, i);
			ct_ok(cuzk_verify(vk, pub, proof), "prove %s %d: cuzk verify accepts", nm, i);
			if (i == 2)
				;       /* one witness a circuit is enough for snarkjs (node starts slowly) */
			else if (have_snarkjs)
				ct_ok(snarkjs_verify(vk, pub, proof), "prove %s %d: snarkjs groth16 verify accepts", nm, i);
			else
				ct_skip(no_snarkjs, "prove %s %d: snarkjs groth16 verify accepts", nm, i);
			ct_ok(file_size(bin) == 192 && bin_matches(bin, proof),
			      "prove %s %d: --bin is 192 bytes, the zcash encodings of pi_a, pi_b, pi_c", nm, i);
			ct_ok(no_tmp_left(), "prove %s %d: no .tmp files left", nm, i);
		}
}

/* ---- cuzk prove failures ---- */

/* Copies a .wtns with bit 0 of its last value (a private signal) flipped. */
static int wtns_flip_last(const char *from, const char *to)
{
	FILE *f = fopen(from, "rb");
	static uint8_t b[1 << 20];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0, off = 12;
	uint32_t nsec, n8 = 0;
	uint64_t s2 = 0, s2len = 0;

	if (f)
		fclose(f);
	if (n < 12 || memcmp(b, "wtns", 4))
		return -1;
	memcpy(&nsec, b + 8, 4);
	for (uint32_t s = 0; s < nsec && off + 12 <= n; s++) {
		uint32_t id;
		uint64_t len;
		memcpy(&id, b + off, 4);
		memcpy(&len, b + off + 4, 8);
		if (id == 1)
			memcpy(&n8, b + off + 12, 4);
		if (id == 2)
			s2 = off + 12, s2len = len;
		off += 12 + len;
	}
	if (!s2 || !n8 || s2 + s2len > n || s2len < n8)
		return -1;
	b[s2 + s2len - n8] ^= 1;
	f = fopen(to, "wb");
	if (!f || fwrite(b, 1, n, f) != n)
		return -1;
	return fclose(f);
}

static void prove_failures(void)
{
	const char *zk = path(data_dir, "mulchain.zkey");
	const char *bad = path(tmp, "unsat.wtns");
	const char *proof = path(tmp, "fail_proof.json"), *pub = path(tmp, "fail_public.json");
	int rc;

	ct_ok(wtns_flip_last(path(data_dir, "mulchain_1.wtns"), bad) == 0, "made a witness with a private value changed");
	rc = RUN(cuzk, "prove", zk, bad, proof, pub);
	ct_ok(rc == 1 && strstr(out, "witness does not satisfy the circuit") && !exists(proof) && !exists(pub),
	      "unsatisfying witness: exit %d, message, no files: %.100s", rc, out);

	const char *half = path(tmp, "half.zkey");
	copy_prefix(zk, half, file_size(zk) / 2);
	rc = RUN(cuzk, "prove", half, path(data_dir, "mulchain_1.wtns"), proof, pub);
	ct_ok(rc == 1 && strstr(out, half), "truncated .zkey: exit %d (rapidsnark's), names the file: %.100s", rc, out);

	rc = RUN(cuzk, "prove", zk, path(data_dir, "rangehash_1.wtns"), proof, pub);
	ct_ok(rc == 1 && strstr(out, "rangehash_1.wtns"), "witness of another circuit: exit %d: %.100s", rc, out);

	rc = RUN(cuzk, "prove", zk, path(data_dir, "mulchain_1.wtns"), proof);
	ct_ok(rc == 1 && strstr(out, "usage"), "prove with 3 arguments: exit %d, usage", rc);
	rc = RUN(cuzk, "prove", zk, path(data_dir, "mulchain_1.wtns"), proof, pub, "--threads", "x");
	ct_ok(rc == 1, "prove --threads x: exit %d", rc);
}

/* ---- cuzk prove over bn128 (BN254), rapidsnark's drop-in ---- */

/* The committed bn128 fixtures were compiled by circom (--prime bn128) and
 * set up by snarkjs; every proof cuzk makes from them is checked by snarkjs
 * and cuzk, and its public.json against snarkjs's. */
static void prove_bn128(void)
{
	static const char *bn = "selftests/data/bn128";
	int rc;

	for (int c = 0; c < 2; c++)
		for (int i = 1; i <= 2; i++) {
			const char *nm = circuits[c];
			const char *proof = path(tmp, "bn_%s_%d_proof.json", nm, i);
			const char *pub = path(tmp, "bn_%s_%d_public.json", nm, i);
			const char *vk = path(bn, "%s_vk.json", nm);
			rc = RUN(cuzk, "prove", path(bn, "%s.zkey", nm), path(bn, "%s_%d.wtns", nm, i), proof,
				 pub, "--threads", "2");
			ct_ok(rc == 0 && json_same(pub, path(bn, "%s_public_%d.json", nm, i)) &&
			      cuzk_verify(vk, pub, proof) && no_tmp_left(),
			      "bn128 prove %s %d: exit %d, public.json = snarkjs's, cuzk verify accepts %.100s", nm, i, rc,
			      out);
			if (have_snarkjs)
				ct_ok(rc == 0 && snarkjs_verify(vk, pub, proof),
				      "bn128 prove %s %d: snarkjs groth16 verify accepts", nm, i);
			else
				ct_skip(no_snarkjs, "bn128 prove %s %d: snarkjs groth16 verify accepts", nm, i);
		}

	/* snarkjs proves with the same key now; cuzk accepts it, and rejects it
	 * with a public input changed */
	const char *sp = path(tmp, "bn_snarkjs_proof.json"), *spub = path(tmp, "bn_snarkjs_public.json");
	const char *bad = path(tmp, "bn_snarkjs_public_bad.json");
	if (have_snarkjs) {
		rc = RUN("node", snarkjs_cli, "groth16", "prove", path(bn, "rangehash.zkey"),
			 path(bn, "rangehash_1.wtns"), sp, spub);
		ct_ok(rc == 0 && cuzk_verify(path(bn, "rangehash_vk.json"), spub, sp),
		      "bn128: snarkjs groth16 prove, cuzk verify accepts (exit %d)", rc);
		/* the first public value (a decimal < r) with its last digit changed */
		json_object *v = json_object_from_file(spub);
		int ok = v && json_object_array_length(v) > 0;
		if (ok) {
			char d[100];
			snprintf(d, sizeof(d), "%s", json_object_get_string(json_object_array_get_idx(v, 0)));
			size_t l = strlen(d);
			d[l - 1] = d[l - 1] == '9' ? '8' : (char)(d[l - 1] + 1);
			json_object_array_put_idx(v, 0, json_object_new_string(d));
			ok = json_object_to_file(bad, v) == 0;
		}
		json_object_put(v);
		rc = RUN(cuzk, "verify", path(bn, "rangehash_vk.json"), bad, sp);
		ct_ok(ok && rc == 1 && strstr(out, "INVALID"),
		      "bn128: snarkjs's proof with a public input changed: INVALID, exit %d", rc);
	} else {
		ct_skip(no_snarkjs, "bn128: snarkjs groth16 prove, cuzk verify accepts");
		ct_skip(no_snarkjs, "bn128: snarkjs's proof with a public input changed: INVALID");
	}

	const char *proof = path(tmp, "bn_fail_proof.json"), *pub = path(tmp, "bn_fail_public.json");
	const char *unsat = path(tmp, "bn_unsat.wtns");
	ct_ok(wtns_flip_last(path(bn, "mulchain_1.wtns"), unsat) == 0, "bn128: made a witness with a private value changed");
	rc = RUN(cuzk, "prove", path(bn, "mulchain.zkey"), unsat, proof, pub);
	ct_ok(rc == 1 && strstr(out, "witness does not satisfy the circuit") && !exists(proof) && !exists(pub),
	      "bn128 unsatisfying witness: exit %d, message, no files: %.100s", rc, out);
	/* a key of one curve with a witness of the other, both ways */
	rc = RUN(cuzk, "prove", path(bn, "mulchain.zkey"), path(data_dir, "mulchain_1.wtns"), proof, pub);
	ct_ok(rc == 1 && strstr(out, "bls12381/BLS12-381") && strstr(out, "bn128/BN254") && !exists(proof),
	      "bn128 key, BLS12-381 witness: exit %d naming both curves: %.160s", rc, out);
	rc = RUN(cuzk, "prove", path(data_dir, "mulchain.zkey"), path(bn, "mulchain_1.wtns"), proof, pub);
	ct_ok(rc == 1 && strstr(out, "BLS12-381") && strstr(out, "bn128/BN254") && !exists(proof),
	      "BLS12-381 key, bn128 witness: exit %d naming both curves: %.160s", rc, out);
	const char *half = path(tmp, "bn_half.zkey");
	copy_prefix(path(bn, "rangehash.zkey"), half, file_size(path(bn, "rangehash.zkey")) / 2);
	rc = RUN(cuzk, "prove", half, path(bn, "rangehash_1.wtns"), proof, pub);
	ct_ok(rc == 1 && strstr(out, half), "bn128 truncated .zkey: exit %d, names the file: %.100s", rc, out);
	rc = RUN(cuzk, "prove", path(bn, "mulchain.zkey"), path(bn, "mulchain_1.wtns"), proof, pub, "--bin",
		 path(tmp, "bn.bin"));
	ct_ok(rc == 1 && strstr(out, "--bin") && !exists(proof), "bn128 --bin: no compressed encoding, exit %d", rc);

	/* cuzk devsetup on circom's bn128 .r1cs: the file's prime picks BN254 */
	const char *dzk = path(tmp, "bn_dev.zkey"), *dvk = path(tmp, "bn_dev_vk.json");
	rc = RUN(cuzk, "devsetup", "--r1cs", path(bn, "rangehash.r1cs"), "--out-zkey", dzk, "--out-vk", dvk);
	int dok = rc == 0 && strstr(out, "bn128/BN254");
	rc = dok ? RUN(cuzk, "prove", dzk, path(bn, "rangehash_1.wtns"), proof, pub) : -1;
	ct_ok(dok && rc == 0 && cuzk_verify(dvk, pub, proof) && json_same(pub, path(bn, "rangehash_public_1.json")),
	      "bn128 devsetup --r1cs rangehash.r1cs, cuzk prove, cuzk verify (exit %d)", rc);
	if (have_snarkjs) {
		const char *svk = path(tmp, "bn_dev_snarkjs_vk.json");
		ct_ok(dok && snarkjs_verify(dvk, pub, proof) &&
		      RUN("node", snarkjs_cli, "zkey", "export", "verificationkey", dzk, svk) == 0 && json_same(svk, dvk),
		      "bn128 dev key: snarkjs verify accepts cuzk's proof; snarkjs's vk export = devsetup's vk.json");
		rc = RUN("node", snarkjs_cli, "groth16", "prove", dzk, path(bn, "rangehash_2.wtns"), sp, spub);
		ct_ok(dok && rc == 0 && cuzk_verify(dvk, spub, sp), "bn128 dev key: snarkjs groth16 prove, cuzk verify accepts");
	} else {
		ct_skip(no_snarkjs, "bn128 dev key: snarkjs verify accepts cuzk's proof");
		ct_skip(no_snarkjs, "bn128 dev key: snarkjs groth16 prove, cuzk verify accepts");
	}

	/* snarkjs groth16 setup from the circom-compiled .r1cs on a fresh
	 * bn128 powers of tau; cuzk proves with that key, snarkjs verifies */
	if (!have_snarkjs) {
		ct_skip(no_snarkjs, "bn128: snarkjs groth16 setup, cuzk prove, snarkjs verify");
		return;
	}
	const char *p0 = path(tmp, "bn_pot0.ptau"), *p1 = path(tmp, "bn_pot1.ptau");
	const char *pf = path(tmp, "bn_pot.ptau"), *zk = path(tmp, "bn_setup.zkey");
	const char *vk = path(tmp, "bn_setup_vk.json");
	int ok = RUN("node", snarkjs_cli, "powersoftau", "new", "bn128", "7", p0) == 0 &&
		 RUN("node", snarkjs_cli, "powersoftau", "contribute", p0, p1, "--name=t", "-e=cuzk e2e") == 0 &&
		 RUN("node", snarkjs_cli, "powersoftau", "prepare", "phase2", p1, pf) == 0 &&
		 RUN("node", snarkjs_cli, "groth16", "setup", path(bn, "rangehash.r1cs"), pf, zk) == 0 &&
		 RUN("node", snarkjs_cli, "zkey", "export", "verificationkey", zk, vk) == 0;
	rc = ok ? RUN(cuzk, "prove", zk, path(bn, "rangehash_2.wtns"), proof, pub) : -1;
	ct_ok(ok && rc == 0 && snarkjs_verify(vk, pub, proof),
	      "bn128: snarkjs groth16 setup of rangehash.r1cs, cuzk prove (exit %d), snarkjs verify accepts", rc);
}

/* ---- cuzk vk ---- */

static void vk_fixtures(void)
{
	for (int c = 0; c < 2; c++) {
		const char *vk = path(tmp, "%s_vk.json", circuits[c]);
		int rc = RUN(cuzk, "vk", path(data_dir, "%s.zkey", circuits[c]), vk);
		ct_ok(rc == 0 && json_same(vk, path(data_dir, "%s_vk.json", circuits[c])),
		      "vk %s = snarkjs's vk.json, vk_alphabeta_12 included (exit %d)", circuits[c], rc);
	}
	int rc = RUN(cuzk, "vk", path(tmp, "missing.zkey"), path(tmp, "x.json"));
	ct_ok(rc == 2 && strstr(out, "missing.zkey"), "vk of a missing file: exit %d, names it", rc);
	/* bn128 keys: the primes pick BN254 */
	for (int c = 0; c < 2; c++) {
		const char *vk = path(tmp, "%s_bn128_vk.json", circuits[c]);
		rc = RUN(cuzk, "vk", path("selftests/data/bn128", "%s.zkey", circuits[c]), vk);
		ct_ok(rc == 0 && json_same(vk, path("selftests/data/bn128", "%s_vk.json", circuits[c])),
		      "vk of the bn128 %s.zkey = snarkjs's vk.json (exit %d)", circuits[c], rc);
	}
}

/* ---- cuzk devsetup, then prove and verify with both ---- */

static void devsetup_builtin(void)
{
	const char *dir = path(tmp, "merkle");
	const char *zk = path(dir, "merkle_10.zkey"), *vk = path(dir, "merkle_10_vk.json");
	int rc = RUN(cuzk, "devsetup", "--builtin", "merkle", "--log2", "10", "--out-dir", dir,
		     "--witnesses", "2", "--input", "7", "--seed", "3");

	ct_ok(rc == 0 && strstr(out, "INSECURE"), "devsetup --builtin merkle --log2 10: exit %d, says INSECURE", rc);
	ct_ok(exists(zk) && exists(vk) && exists(path(dir, "merkle_10_0.wtns")) &&
	      exists(path(dir, "merkle_10_1.wtns")) && !exists(path(dir, "merkle_10_2.wtns")),
	      "devsetup wrote the key, the vk and exactly 2 witnesses");
	for (int i = 0; i < 2; i++) {
		const char *proof = path(dir, "proof_%d.json", i), *pub = path(dir, "public_%d.json", i);
		rc = RUN(cuzk, "prove", zk, path(dir, "merkle_10_%d.wtns", i), proof, pub);
		ct_ok(rc == 0 && cuzk_verify(vk, pub, proof), "merkle 2^10 witness %d: prove, cuzk verify", i);
		if (have_snarkjs)
			ct_ok(snarkjs_verify(vk, pub, proof), "merkle 2^10 witness %d: snarkjs verify accepts", i);
		else
			ct_skip(no_snarkjs, "merkle 2^10 witness %d: snarkjs verify accepts", i);
	}
	rc = RUN(cuzk, "verify", vk, path(dir, "public_1.json"), path(dir, "proof_0.json"));
	ct_ok(rc == 1, "merkle: proof 0 with witness 1's public inputs: INVALID (exit %d)", rc);

	const char *svk = path(dir, "snarkjs_vk.json");
	const char *sp = path(dir, "snarkjs_proof.json"), *spub = path(dir, "snarkjs_public.json");
	if (have_snarkjs) {
		rc = RUN("node", snarkjs_cli, "zkey", "export", "verificationkey", zk, svk);
		ct_ok(rc == 0 && json_same(svk, vk), "merkle: snarkjs zkey export verificationkey = devsetup's vk.json");
		rc = RUN("node", snarkjs_cli, "groth16", "prove", zk, path(dir, "merkle_10_1.wtns"), sp, spub);
		ct_ok(rc == 0 && cuzk_verify(vk, spub, sp), "merkle: snarkjs groth16 prove with our key, cuzk verify accepts");
	} else {
		ct_skip(no_snarkjs, "merkle: snarkjs zkey export verificationkey = devsetup's vk.json");
		ct_skip(no_snarkjs, "merkle: snarkjs groth16 prove with our key, cuzk verify accepts");
	}

	rc = RUN(cuzk, "bench", "prove", zk, path(dir, "merkle_10_0.wtns"), "--json", "--iters", "2");
	ct_ok(rc == 0 && strstr(out, "\"op\": \"prove.total\"") && strstr(out, "peak_rss_mb") &&
	      strstr(out, "\"op\": \"prove.msm_h\""), "bench prove --json: stages, total and peak RSS (exit %d)", rc);

	rc = RUN(cuzk, "devsetup", "--builtin", "merkle", "--out-dir", dir);
	ct_ok(rc == 2 && strstr(out, "--log2"), "devsetup --builtin without --log2: exit %d", rc);
	rc = RUN(cuzk, "devsetup", "--builtin", "nosuch", "--log2", "10", "--out-dir", dir);
	ct_ok(rc == 2 && strstr(out, "nosuch"), "devsetup --builtin nosuch: exit %d, names it", rc);
}

static void devsetup_r1cs(void)
{
	const char *zk = path(tmp, "rh_dev.zkey"), *vk = path(tmp, "rh_dev_vk.json");
	const char *proof = path(tmp, "rh_dev_proof.json"), *pub = path(tmp, "rh_dev_public.json");
	const char *vk2 = path(tmp, "rh_dev_vk2.json");
	int rc = RUN(cuzk, "devsetup", "--r1cs", path(data_dir, "rangehash.r1cs"), "--out-zkey", zk,
		     "--out-vk", vk, "--seed", "11");

	ct_ok(rc == 0 && strstr(out, "INSECURE"), "devsetup --r1cs rangehash.r1cs: exit %d", rc);
	rc = RUN(cuzk, "prove", zk, path(data_dir, "rangehash_2.wtns"), proof, pub);
	ct_ok(rc == 0 && cuzk_verify(vk, pub, proof), "rangehash dev key: prove witness 2, cuzk verify (exit %d)", rc);
	ct_ok(json_same(pub, path(data_dir, "rangehash_public_2.json")), "rangehash dev key: public.json = snarkjs's");
	if (have_snarkjs)
		ct_ok(snarkjs_verify(vk, pub, proof), "rangehash dev key: snarkjs verify accepts");
	else
		ct_skip(no_snarkjs, "rangehash dev key: snarkjs verify accepts");
	rc = RUN(cuzk, "vk", zk, vk2);
	ct_ok(rc == 0 && json_same(vk, vk2), "cuzk vk on the dev key = devsetup's vk.json");
	/* the fixture's proof does not verify under an unrelated key */
	rc = RUN(cuzk, "verify", vk, path(data_dir, "rangehash_public_2.json"),
		 path(data_dir, "rangehash_proof_2.json"));
	ct_ok(rc == 1, "snarkjs's rangehash proof under the dev key: INVALID (exit %d)", rc);

	rc = RUN(cuzk, "devsetup", "--r1cs", path(data_dir, "mulchain.zkey"), "--out-zkey", zk, "--out-vk", vk);
	ct_ok(rc == 2 && strstr(out, "mulchain.zkey"), "devsetup --r1cs on a .zkey: exit %d, names it", rc);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	(void)argc;

	if (getenv("CZ_DATA_DIR"))
		data_dir = getenv("CZ_DATA_DIR");
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(cuzk, sizeof(cuzk), "%s/../bin/cuzk", dirname(self));
	if (access(cuzk, X_OK)) {
		ct_plan(1);
		ct_skip("build/bin/cuzk not built", "cuzk at %s", cuzk);
		return ct_exit();
	}
	if (!exists(path(data_dir, "mulchain.zkey"))) {
		ct_plan(1);
		ct_skip("no fixtures (tools/fixtures/make-fixtures.sh)", "fixtures in %s", data_dir);
		return ct_exit();
	}
	snprintf(tmp, sizeof(tmp), "%s/cz_e2e_cli.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		ct_plan(1);
		ct_ok(0, "mkdtemp: %s", strerror(errno));
		return ct_exit();
	}
	ct_plan(74 + 6 + 2 + 2 + 17 + 3);
	have_snarkjs = !access(snarkjs_cli, R_OK) && RUN("node", "--version") == 0;
	if (!have_snarkjs)
		ct_diag("%s", no_snarkjs);

	verify_fixtures();
	verify_bn128();
	calldata_fixtures();
	verify_rejects("mulchain");
	verify_rejects("rangehash");
	prove_fixtures();
	prove_failures();
	prove_bn128();
	vk_fixtures();
	devsetup_builtin();
	devsetup_r1cs();

	if (RUN("rm", "-rf", tmp) != 0)
		ct_diag("could not remove %s", tmp);
	paths_free();
	return ct_exit();
}
