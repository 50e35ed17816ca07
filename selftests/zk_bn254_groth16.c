/* SPDX-License-Identifier: MIT */
/* Description: BN254 Groth16 interop with snarkjs: bn128 proofs verify, changed inputs are rejected, JSON files re-serialise byte for byte, binary files' primes name the curve, errors name both curves; the BN254 prover's proofs verify under snarkjs's keys, its secrets are wiped, a bad witness is UNSAT. */
/*
 * The fixtures in selftests/data/bn128/ come from the pinned circom2 and
 * snarkjs (CURVE=bn128 tools/fixtures/make-fixtures.sh): circuits compiled
 * for bn128, a powers-of-tau, `groth16 setup`, and `groth16 prove` /
 * `verify` for two inputs each.  snarkjs verified each proof; here the
 * library must agree, must reject what snarkjs would reject (a changed
 * public input, a proof for the other input), must write the same bytes
 * snarkjs wrote, and must compute snarkjs's vk_alphabeta_12.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "synth/synth.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/io/groth16_io.h"
#include "zk/io/bn254_wtns.h"
#include "zk/io/bn254_zkey.h"
#include "zk/io/iden3bin.h"
#include "zk/io/r1cs.h"
#include "zk/io/snarkjs_json.h"
#include "zk/io/wtns.h"
#include "zk/io/zkey.h"

static const char *data_dir = "selftests/data/bn128";
static const char *bls_dir = "selftests/data";

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b) {
		b[n] = 0;
		*len = (size_t)n;
	}
	return b;
}

/* text equals the file's bytes */
static int same_as_file(const char *text, const char *path)
{
	size_t n;
	char *f = slurp(path, &n);
	int ok = f && text && strlen(text) == n && memcmp(text, f, n) == 0;
	free(f);
	return ok;
}

static void circuit(const char *c)
{
	char p[512], q[512], err[CZ_ERRLEN];
	struct cz_bn254_groth16_vk vk = { 0 };
	struct cz_bn254_groth16_proof pf[2];
	cz_bn254_fr *pub[2] = { NULL, NULL };
	size_t npub[2] = { 0, 0 };
	int ok, okf;

	snprintf(p, sizeof(p), "%s/%s_vk.json", data_dir, c);
	ok = cz_bn254_groth16_vk_json_read(p, &vk, err) == 0;
	okf = ok;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s_proof_%d.json", data_dir, c, i + 1);
		snprintf(q, sizeof(q), "%s/%s_public_%d.json", data_dir, c, i + 1);
		ok = ok && cz_bn254_proof_json_read(p, &pf[i], err) == 0 &&
		     cz_bn254_public_json_read(q, &pub[i], &npub[i], err) == 0 && npub[i] == vk.n_public;
	}
	if (!ok) {
		ct_diag("%s", err);
		for (int i = 0; i < 5; i++)
			ct_ok(0, "%s: the snarkjs files parse", c);
		if (okf)
			cz_bn254_groth16_vk_free(&vk);
		free(pub[0]);
		free(pub[1]);
		return;
	}
	ct_ok(cz_bn254_groth16_verify(&vk, pub[0], &pf[0]) && cz_bn254_groth16_verify(&vk, pub[1], &pf[1]),
	      "%s: both snarkjs bn128 proofs verify (vk.json, public.json, proof.json)", c);

	/* a changed public input, each in turn; the proofs swapped */
	int bad = 0;
	for (size_t j = 0; j < npub[0]; j++) {
		cz_bn254_fr saved = pub[0][j];
		cz_bn254_fr_add(&pub[0][j], &pub[0][j], &cz_bn254_fr_one);
		bad += cz_bn254_groth16_verify(&vk, pub[0], &pf[0]);
		pub[0][j] = saved;
	}
	bad += cz_bn254_groth16_verify(&vk, pub[0], &pf[1]);
	bad += cz_bn254_groth16_verify(&vk, pub[1], &pf[0]);
	ct_ok(!bad && npub[0] > 0, "%s: rejected: each of %zu public inputs + 1, proof 1 with input 2 and back (%d accepted)",
	      c, npub[0], bad);

	/* our writers give snarkjs's bytes */
	char *t;
	ok = 1;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s_proof_%d.json", data_dir, c, i + 1);
		t = cz_bn254_proof_json_format(&pf[i], err);
		ok &= same_as_file(t, p);
		free(t);
		snprintf(p, sizeof(p), "%s/%s_public_%d.json", data_dir, c, i + 1);
		t = cz_bn254_public_json_format(pub[i], npub[i], err);
		ok &= same_as_file(t, p);
		free(t);
	}
	/* and rendered into a buffer, without allocating */
	for (int i = 0; i < 2; i++) {
		char buf[CZ_PROOF_JSON_MAX], pb[1024];
		size_t n = cz_bn254_proof_json_render(buf, sizeof(buf), &pf[i]);
		snprintf(p, sizeof(p), "%s/%s_proof_%d.json", data_dir, c, i + 1);
		ok &= n < sizeof(buf) && same_as_file(buf, p);
		n = cz_bn254_public_json_render(pb, sizeof(pb), pub[i], npub[i]);
		snprintf(p, sizeof(p), "%s/%s_public_%d.json", data_dir, c, i + 1);
		ok &= n < cz_public_json_max(npub[i]) && same_as_file(pb, p);
	}
	ct_ok(ok, "%s: proof.json and public.json re-serialise (format and render) to snarkjs's bytes", c);

	/* vk_alphabeta_12 = e(alpha, beta)^lambda, and the whole vk.json */
	struct cz_bn254_groth16_vk mine = vk;
	mine.have_alphabeta = false;
	cz_bn254_groth16_vk_set_alphabeta(&mine);
	ok = vk.have_alphabeta && memcmp(mine.alphabeta, vk.alphabeta, sizeof(vk.alphabeta)) == 0;
	ct_ok(ok, "%s: snarkjs's vk_alphabeta_12 = e(alpha1, beta2)^lambda (ffjavascript's final exponent)", c);
	snprintf(p, sizeof(p), "%s/%s_vk.json", data_dir, c);
	t = cz_bn254_groth16_vk_json_format(&mine, err);
	ct_ok(same_as_file(t, p), "%s: vk.json re-serialises to snarkjs's bytes", c);
	free(t);
	cz_bn254_groth16_vk_free(&vk);
	free(pub[0]);
	free(pub[1]);
}

/* A file of the other curve is refused, naming both curves. */
static void cross_curve(void)
{
	char p[512], err[CZ_ERRLEN];
	struct cz_bn254_groth16_proof bp;
	struct cz_groth16_proof lp;
	struct cz_bn254_groth16_vk bvk;
	struct cz_groth16_vk lvk;
	int ok = 1;

	snprintf(p, sizeof(p), "%s/mulchain_proof_1.json", bls_dir);
	ok &= cz_bn254_proof_json_read(p, &bp, err) == -EINVAL &&
	      strstr(err, "curve bls12381/BLS12-381, expected bn128/BN254") != NULL;
	if (!ok)
		ct_diag("%s", err);
	snprintf(p, sizeof(p), "%s/mulchain_vk.json", bls_dir);
	ok &= cz_bn254_groth16_vk_json_read(p, &bvk, err) == -EINVAL && strstr(err, "expected bn128/BN254");
	snprintf(p, sizeof(p), "%s/mulchain_proof_1.json", data_dir);
	ok &= cz_proof_json_read(p, &lp, err) == -EINVAL &&
	      strstr(err, "curve bn128/BN254, expected BLS12-381") != NULL;
	snprintf(p, sizeof(p), "%s/mulchain_vk.json", data_dir);
	ok &= cz_groth16_vk_json_read(p, &lvk, err) == -EINVAL && strstr(err, "expected BLS12-381");
	ct_ok(ok, "a proof.json / vk.json of the other curve is refused naming both curves, either way");

	/* an unknown curve tag names the expected one */
	const char *m = "{\"pi_a\": [\"1\", \"2\", \"1\"], \"curve\": \"secp256k1\"}";
	ok = cz_bn254_proof_json_parse("m.json", m, strlen(m), &bp, err) == -EINVAL &&
	     strstr(err, "\"secp256k1\"") && strstr(err, "expected \"bn128\"");
	ct_ok(ok, "an unknown curve tag is refused naming it and bn128 (%s)", err);
}

/* The primes in circom's and snarkjs's binary files name the curve: the
 * bn128 .zkey, .wtns and .r1cs hold BN254's p and r (found by
 * cz_iden3_prime_find, which knows the four primes from the field code),
 * and the BLS12-381 readers refuse them naming both curves. */
static int prime_is(const char *path, const char *magic, uint32_t maxv, uint32_t sec,
		    int nprimes, enum cz_iden3_prime want0, enum cz_iden3_prime want1)
{
	struct cz_iden3 f;
	struct cz_iden3_rd r;
	char err[CZ_ERRLEN];
	int ok = 0;

	if (cz_iden3_open(&f, path, magic, 1, maxv, err)) {
		ct_diag("%s", err);
		return 0;
	}
	if (!cz_iden3_rd_open(&r, &f, sec, "header", err)) {
		ok = 1;
		for (int i = 0; i < nprimes; i++) {
			uint32_t n8 = 0;
			const uint8_t *b = NULL;
			enum cz_iden3_prime w;
			ok &= !cz_iden3_rd_u32(&r, "n8", &n8) && !cz_iden3_rd_bytes(&r, "prime", n8, &b) &&
			      !cz_iden3_prime_find(b, n8, &w) && w == (i ? want1 : want0) &&
			      cz_iden3_prime_curve(w) == CZ_CURVE_BN254;
		}
	}
	cz_iden3_close(&f);
	return ok;
}

static void binary_files(void)
{
	char p[512], err[CZ_ERRLEN];
	int ok;

	snprintf(p, sizeof(p), "%s/mulchain.zkey", data_dir);
	ok = prime_is(p, "zkey", 1, 2, 2, CZ_PRIME_BN254_P, CZ_PRIME_BN254_R);
	snprintf(p, sizeof(p), "%s/mulchain_1.wtns", data_dir);
	ok &= prime_is(p, "wtns", 2, 1, 1, CZ_PRIME_BN254_R, CZ_PRIME_BN254_R);
	snprintf(p, sizeof(p), "%s/mulchain.r1cs", data_dir);
	ok &= prime_is(p, "r1cs", 1, 1, 1, CZ_PRIME_BN254_R, CZ_PRIME_BN254_R);
	ct_ok(ok, "bn128 .zkey (q, r), .wtns and .r1cs hold BN254's primes (cz_iden3_prime_find)");

	struct cz_zkey *z;
	struct cz_wtns *w;
	struct cz_r1cs *c;
	snprintf(p, sizeof(p), "%s/mulchain.zkey", data_dir);
	z = cz_zkey_open(p, err);
	ok = !z && strstr(err, "curve bn128/BN254, expected BLS12-381");
	if (z)
		cz_zkey_close(z);
	snprintf(p, sizeof(p), "%s/mulchain_1.wtns", data_dir);
	w = cz_wtns_open(p, err);
	ok &= !w && strstr(err, "curve bn128/BN254, expected BLS12-381") != NULL;
	if (w)
		cz_wtns_close(w);
	snprintf(p, sizeof(p), "%s/mulchain.r1cs", data_dir);
	c = cz_r1cs_open(p, err);
	ok &= !c && strstr(err, "curve bn128/BN254, expected BLS12-381") != NULL;
	if (c)
		cz_r1cs_close(c);
	ct_ok(ok, "the BLS12-381 readers refuse bn128 .zkey/.wtns/.r1cs naming both curves (%s)", err);
}

/* The BN254 .zkey reader: every check of open, the vk snarkjs exported,
 * and a rewrite byte for byte equal to snarkjs's file. */
static void zkey_bn254(const char *c)
{
	char p[512], t[512], err[CZ_ERRLEN];
	struct cz_bn254_zkey *z;
	struct cz_bn254_groth16_vk vk = { 0 };
	enum cz_curve curve = 0;
	int ok;

	snprintf(p, sizeof(p), "%s/%s.zkey", data_dir, c);
	z = cz_bn254_zkey_open(p, err);
	ok = z != NULL;
	if (!ok)
		ct_diag("%s", err);
	ok = ok && cz_zkey_curve(p, &curve, err) == 0 && curve == CZ_CURVE_BN254;
	ct_ok(ok, "%s.zkey (bn128): cz_bn254_zkey_open with every check (points, subgroups, coefficients); cz_zkey_curve says BN254", c);
	if (!z) {
		ct_ok(0, "%s: vk from the zkey", c);
		ct_ok(0, "%s: rewrite", c);
		return;
	}
	ok = cz_bn254_zkey_vk(z, &vk, err) == 0;
	if (ok) {
		cz_bn254_groth16_vk_set_alphabeta(&vk);
		char *text = cz_bn254_groth16_vk_json_format(&vk, err);
		snprintf(t, sizeof(t), "%s/%s_vk.json", data_dir, c);
		ok = same_as_file(text, t);
		free(text);
		cz_bn254_groth16_vk_free(&vk);
	}
	ct_ok(ok, "%s: the zkey's verification key is snarkjs's exported vk.json, byte for byte", c);

	/* every section through the accessors, then cz_bn254_zkey_write */
	size_t nv = z->n_vars, ni = cz_bn254_zkey_count(z, CZ_ZKEY_IC), nc = cz_bn254_zkey_count(z, CZ_ZKEY_C),
	       nh = z->domain_size;
	cz_bn254_g1_affine *ic = malloc(ni * sizeof(*ic)), *a = malloc(nv * sizeof(*a)),
			   *b1 = malloc(nv * sizeof(*b1)), *cc = malloc((nc ? nc : 1) * sizeof(*cc)),
			   *h = malloc(nh * sizeof(*h));
	cz_bn254_g2_affine *b2 = malloc(nv * sizeof(*b2));
	struct cz_bn254_zkey_coef *co = malloc((z->n_coefs ? z->n_coefs : 1) * sizeof(*co));
	ok = ic && a && b1 && cc && h && b2 && co &&
	     !cz_bn254_zkey_g1(z, CZ_ZKEY_IC, 0, ni, ic, err) && !cz_bn254_zkey_g1(z, CZ_ZKEY_A, 0, nv, a, err) &&
	     !cz_bn254_zkey_g1_pool(z, CZ_ZKEY_B1, 0, nv, b1, NULL, err) &&
	     !cz_bn254_zkey_g2_pool(z, CZ_ZKEY_B2, 0, nv, b2, NULL, err) &&
	     !cz_bn254_zkey_g1(z, CZ_ZKEY_C, 0, nc, cc, err) && !cz_bn254_zkey_g1(z, CZ_ZKEY_H, 0, nh, h, err) &&
	     !cz_bn254_zkey_coefs(z, 0, z->n_coefs, co, err);
	if (ok) {
		struct cz_bn254_zkey_parts parts = {
			.n_vars = z->n_vars, .n_public = z->n_public, .domain_size = z->domain_size,
			.alpha1 = z->alpha1, .beta1 = z->beta1, .delta1 = z->delta1,
			.beta2 = z->beta2, .gamma2 = z->gamma2, .delta2 = z->delta2,
			.ic = ic, .coefs = co, .n_coefs = z->n_coefs, .a = a, .b1 = b1, .b2 = b2,
			.c = cc, .h = h, .contrib = z->contrib, .contrib_size = z->contrib_size,
		};
		const char *td = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(t, sizeof(t), "%s/cz_bn254_%s_%d.zkey", td, c, (int)getpid());
		size_t n1 = 0, n2 = 0;
		char *f1, *f2;
		ok = cz_bn254_zkey_write(t, &parts, err) == 0 && (f1 = slurp(p, &n1)) != NULL;
		if (ok) {
			f2 = slurp(t, &n2);
			ok = f2 && n1 == n2 && memcmp(f1, f2, n1) == 0;
			free(f1);
			free(f2);
		}
		unlink(t);
	}
	if (!ok)
		ct_diag("%s", err);
	ct_ok(ok, "%s: all sections read back and cz_bn254_zkey_write gives snarkjs's .zkey byte for byte", c);
	free(ic), free(a), free(b1), free(cc), free(h), free(b2), free(co);
	cz_bn254_zkey_close(z);
}

/* The BN254 .wtns reader: snarkjs's witnesses open, belong to the key,
 * hold the public signals snarkjs wrote to public.json, and write back
 * byte for byte. */
static void wtns_bn254(const char *c)
{
	char p[512], t[512], err[CZ_ERRLEN];
	struct cz_bn254_zkey *z;
	int ok = 1;

	snprintf(p, sizeof(p), "%s/%s.zkey", data_dir, c);
	z = cz_bn254_zkey_open_flags(p, 0, err);
	ok = z != NULL;
	for (int i = 1; ok && i <= 2; i++) {
		struct cz_bn254_wtns *w;
		cz_bn254_fr *vals, *pub = NULL;
		size_t npub = 0;

		snprintf(p, sizeof(p), "%s/%s_%d.wtns", data_dir, c, i);
		w = cz_bn254_wtns_open(p, err);
		if (!w) {
			ok = 0;
			break;
		}
		ok = cz_bn254_zkey_check_wtns(z, w, err) == 0;
		vals = malloc(w->n * sizeof(*vals));
		ok = ok && vals && cz_bn254_wtns_get(w, 0, w->n, vals, err) == 0;
		snprintf(t, sizeof(t), "%s/%s_public_%d.json", data_dir, c, i);
		ok = ok && cz_bn254_public_json_read(t, &pub, &npub, err) == 0 && npub == z->n_public;
		for (size_t j = 0; ok && j < npub; j++)
			ok = cz_bn254_fr_eq(&vals[1 + j], &pub[j]);
		if (ok) {
			const char *td = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
			size_t n1 = 0, n2 = 0;
			char *f1, *f2;
			snprintf(t, sizeof(t), "%s/cz_bn254_%s_%d_%d.wtns", td, c, i, (int)getpid());
			ok = cz_bn254_wtns_write(t, vals, w->n, err) == 0;
			f1 = slurp(p, &n1);
			f2 = slurp(t, &n2);
			ok = ok && f1 && f2 && n1 == n2 && memcmp(f1, f2, n1) == 0;
			free(f1);
			free(f2);
			unlink(t);
		}
		free(vals);
		free(pub);
		cz_bn254_wtns_close(w);
	}
	if (!ok)
		ct_diag("%s", err);
	ct_ok(ok, "%s: both bn128 witnesses open, fit the key, hold public.json's signals, write back byte for byte", c);
	if (z)
		cz_bn254_zkey_close(z);
}

static void zkey_cross(void)
{
	char p[512], err[CZ_ERRLEN];
	enum cz_curve curve = 0;
	snprintf(p, sizeof(p), "%s/mulchain.zkey", bls_dir);
	struct cz_bn254_zkey *z = cz_bn254_zkey_open(p, err);
	int ok = !z && strstr(err, "curve bls12381/BLS12-381, expected bn128/BN254") != NULL;
	if (z)
		cz_bn254_zkey_close(z);
	ok &= cz_zkey_curve(p, &curve, err) == 0 && curve == CZ_CURVE_BLS12_381;
	snprintf(p, sizeof(p), "%s/mulchain_1.wtns", bls_dir);
	struct cz_bn254_wtns *w = cz_bn254_wtns_open(p, err);
	ok &= !w && strstr(err, "curve bls12381/BLS12-381, expected bn128/BN254") != NULL;
	if (w)
		cz_bn254_wtns_close(w);
	ct_ok(ok, "a BLS12-381 .zkey / .wtns: cz_zkey_curve says so, the BN254 readers refuse them naming both (%s)", err);
}

/* The prover over BN254 (zk/groth16/groth16_tmpl_pvt.h's instance): a proof of
 * the fixture's witness 1 from the snarkjs key verifies under snarkjs's
 * vk.json and public.json (files the library did not write); a, b, c are
 * wiped; the finish stage wipes r, s; a witness with a private value
 * changed is CZ_GROTH16_UNSAT. */
static void prove_bn254(const char *c)
{
	char zk[256], wt[256], vkp[256], pubp[256], err[CZ_ERRLEN] = "";
	struct cz_bn254_groth16_key k;
	struct cz_bn254_groth16_proof pr;
	struct cz_bn254_groth16_vk vk = { 0 };
	struct cz_pool *pool = cz_pool_create(2);
	cz_bn254_fr *pub = NULL;
	size_t npub = 0;

	snprintf(zk, sizeof(zk), "%s/%s.zkey", data_dir, c);
	snprintf(wt, sizeof(wt), "%s/%s_1.wtns", data_dir, c);
	snprintf(vkp, sizeof(vkp), "%s/%s_vk.json", data_dir, c);
	snprintf(pubp, sizeof(pubp), "%s/%s_public_1.json", data_dir, c);
	int rc = cz_bn254_groth16_key_load(&k, zk, pool, err, sizeof(err));
	if (rc) {
		ct_ok(0, "%s: bn254 key load: %s", c, err);
		ct_ok(0, "%s: (no key)", c);
		ct_ok(0, "%s: (no key)", c);
		cz_pool_destroy(pool);
		return;
	}
	size_t n = (size_t)1 << k.log2n;
	cz_scalar *w = calloc(k.nvars, sizeof(*w));
	cz_bn254_fr *abc = calloc(3 * n, sizeof(*abc));
	int ok = w && abc && !cz_bn254_wtns_read_path(wt, k.nvars, w, err, sizeof(err));
	if (ok) {
		cz_bn254_synth_abc(&k, w, abc, abc + n, abc + 2 * n, pool);
		rc = cz_bn254_groth16_prove(&k, w, abc, abc + n, abc + 2 * n, &pr, pool, NULL);
	}
	int wiped = 1;
	for (size_t i = 0; ok && i < 3 * n; i++)
		wiped &= cz_bn254_fr_is_zero(&abc[i]);
	ok &= rc == CZ_GROTH16_OK && !cz_bn254_groth16_vk_json_read(vkp, &vk, err) &&
	      !cz_bn254_public_json_read(pubp, &pub, &npub, err) && npub == vk.n_public &&
	      cz_bn254_groth16_verify(&vk, pub, &pr);
	ct_ok(ok && wiped, "%s: cz_bn254_groth16_prove's proof verifies under snarkjs's vk.json and "
	      "public.json; a, b, c wiped (rc %d %s)", c, rc, err);

	/* finish on the device stage's results: r, s wiped after */
	struct cz_bn254_groth16_msms m;
	struct cz_bn254_groth16_secrets sec;
	cz_scalar *h = calloc(n, sizeof(*h));
	struct cz_bn254_ntt_domain *d = cz_bn254_ntt_domain_create(k.log2n);
	cz_bn254_synth_abc(&k, w, abc, abc + n, abc + 2 * n, NULL);     /* serial, this time */
	rc = h && d ? cz_bn254_groth16_device(&k, d, w, abc, abc + n, abc + 2 * n, h, &m, pool, NULL) : -1;
	if (!rc)
		rc = cz_bn254_groth16_finish(&k, &m, w, &pr, &sec, NULL);
	static const struct cz_bn254_groth16_secrets zero;
	ct_ok(rc == CZ_GROTH16_OK && !memcmp(&sec, &zero, sizeof(sec)) && cz_bn254_groth16_verify(&vk, pub, &pr),
	      "%s: device + finish (serial synthesis) verifies; r, s and their bytes wiped (rc %d)", c, rc);

	/* the last signal (private) changed: no proof */
	cz_bn254_fr one = cz_bn254_fr_one, v;
	cz_bn254_fr_to_mont(&v, w[k.nvars - 1].l);
	cz_bn254_fr_add(&v, &v, &one);
	cz_bn254_fr_from_mont(w[k.nvars - 1].l, &v);
	cz_bn254_synth_abc(&k, w, abc, abc + n, abc + 2 * n, pool);
	rc = cz_bn254_groth16_prove(&k, w, abc, abc + n, abc + 2 * n, &pr, pool, NULL);
	ct_ok(rc == CZ_GROTH16_UNSAT, "%s: a witness with a private value changed: CZ_GROTH16_UNSAT (rc %d)", c, rc);

	cz_bn254_ntt_domain_destroy(d);
	free(h);
	free(pub);
	free(w);
	free(abc);
	cz_bn254_groth16_vk_free(&vk);
	cz_bn254_groth16_key_free(&k);
	cz_pool_destroy(pool);
}

int main(void)
{
	char probe[512];
	struct stat st;
	const char *d = getenv("CZ_DATA_DIR");

	if (d)
		bls_dir = d;
	snprintf(probe, sizeof(probe), "%s/mulchain_vk.json", data_dir);
	if (stat(probe, &st) != 0) {
		ct_plan(1);
		ct_skip("no bn128 fixtures (CURVE=bn128 tools/fixtures/make-fixtures.sh)", "fixtures in %s",
			data_dir);
		return ct_exit();
	}
	ct_plan(2 * 5 + 2 + 2 + 2 * 4 + 1 + 2 * 3);
	circuit("mulchain");
	circuit("rangehash");
	cross_curve();
	binary_files();
	zkey_bn254("mulchain");
	zkey_bn254("rangehash");
	wtns_bn254("mulchain");
	wtns_bn254("rangehash");
	zkey_cross();
	prove_bn254("mulchain");
	prove_bn254("rangehash");
	return ct_exit();
}
