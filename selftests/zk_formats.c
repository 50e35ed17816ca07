/* Description: .zkey/.wtns/.r1cs and snarkjs JSON parsers against snarkjs/circom fixtures, and every malformed case */
/*
 * The fixtures in selftests/data/ come from circom2 and snarkjs
 * (tools/fixtures/make-fixtures.sh).  The oracles are the files themselves:
 * the .zkey's points must equal snarkjs's decimal export (vk.json), its
 * coefficients must equal circom's .r1cs matrices, public.json must equal
 * the witness, the witness must satisfy the .r1cs, and our writers must
 * reproduce snarkjs's bytes.  Then every malformed case is generated as a
 * mutated copy in a temporary directory and its message checked for the
 * file and the field.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/io/r1cs.h"
#include "zk/io/snarkjs_json.h"
#include "zk/io/wtns.h"
#include "zk/io/zkey.h"
#include "zk/io/groth16_io.h"
#include "lib/clock.h"

static const char *data_dir = "selftests/data";
static char tmp_dir[256];

static const char *const circuits[] = { "mulchain", "rangehash" };

/* ---- small helpers ---- */

static char *path_of(char *buf, size_t cap, const char *dir, const char *circ, const char *suffix)
{
	snprintf(buf, cap, "%s/%s%s", dir, circ, suffix);
	return buf;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		b = malloc((size_t)n + 1);
		if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) {
			free(b);
			b = NULL;
		}
		if (b) {
			b[n] = 0;
			*len = (size_t)n;
		}
	}
	fclose(fp);
	return b;
}

static int spit(const char *path, const void *b, size_t n)
{
	FILE *fp = fopen(path, "wb");
	int ok;

	if (!fp)
		return -1;
	ok = fwrite(b, 1, n, fp) == n;
	return (fclose(fp) == 0 && ok) ? 0 : -1;
}

static bool same_file(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
	bool eq = x && y && na == nb && memcmp(x, y, na) == 0;

	free(x);
	free(y);
	return eq;
}

static bool text_equals_file(const char *text, const char *path)
{
	size_t n = 0;
	uint8_t *b = slurp(path, &n);
	bool eq = b && text && strlen(text) == n && memcmp(b, text, n) == 0;

	free(b);
	return eq;
}

/* An error is good when the call failed and the message names the file and
 * contains each expected fragment. */
static void expect_err(int failed, const char *err, const char *file, const char *what,
		       const char *frag1, const char *frag2)
{
	bool ok = failed && strstr(err, file) && (!frag1 || strstr(err, frag1)) &&
		  (!frag2 || strstr(err, frag2));

	ct_ok(ok, "%s rejected: %s", what, failed ? err : "(accepted)");
}

/* Independent little reader of the iden3 section table (not the code under
 * test): offset of the data of the first section of type t, and its size. */
static size_t sec_off(const uint8_t *b, size_t n, uint32_t t, uint64_t *size)
{
	uint32_t ns, i;
	size_t pos = 12;

	memcpy(&ns, b + 8, 4);
	for (i = 0; i < ns && pos + 12 <= n; i++) {
		uint32_t ty;
		uint64_t sz;

		memcpy(&ty, b + pos, 4);
		memcpy(&sz, b + pos + 4, 8);
		if (ty == t) {
			if (size)
				*size = sz;
			return pos + 12;
		}
		pos += 12 + sz;
	}
	return 0;
}

static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }
static void put64(uint8_t *b, uint64_t v) { memcpy(b, &v, 8); }

/* Writes a mutated copy of src into tmp_dir/name and returns its path. */
static const char *mutant(char *out, size_t cap, const char *name, const void *src, size_t n)
{
	snprintf(out, cap, "%s/%s", tmp_dir, name);
	if (spit(out, src, n) != 0)
		fprintf(stderr, "cannot write %s\n", out);
	return out;
}

/* The first of a section's first 8 G1 points (96 bytes each) that is not
 * the all-zero encoding of infinity, or 8. */
static uint64_t first_finite_g1(const uint8_t *sec)
{
	static const uint8_t zero[96];
	uint64_t i = 0;

	while (i < 8 && !memcmp(sec + i * 96, zero, 96))
		i++;
	return i;
}

static bool g1_eq(const cz_g1_affine *a, const cz_g1_affine *b)
{
	return cz_fp_eq(&a->x, &b->x) && cz_fp_eq(&a->y, &b->y);
}

static bool g2_eq(const cz_g2_affine *a, const cz_g2_affine *b)
{
	return cz_fp2_eq(&a->x, &b->x) && cz_fp2_eq(&a->y, &b->y);
}

/* A point on E'(Fp2) outside G2 (the cofactor is huge, so the first
 * solution of y^2 = x^3 + 4(1 + u) found is outside G2). */
static bool g2_off_subgroup(cz_g2_affine *p)
{
	cz_fp2 b, x, rhs, t;

	cz_fp_from_u64(&b.c0, 4);
	cz_fp_from_u64(&b.c1, 4);
	for (uint64_t k = 1; k < 100; k++) {
		cz_fp_from_u64(&x.c0, k);
		cz_fp_from_u64(&x.c1, 1);
		cz_fp2_sqr(&t, &x);
		cz_fp2_mul(&rhs, &t, &x);
		cz_fp2_add(&rhs, &rhs, &b);
		if (cz_fp2_sqrt(&p->y, &rhs)) {
			p->x = x;
			if (cz_g2_affine_on_curve(p) && !cz_g2_affine_in_subgroup(p))
				return true;
		}
	}
	return false;
}

static bool g1_off_subgroup(cz_g1_affine *p)
{
	cz_fp b, rhs, t;

	cz_fp_from_u64(&b, 4);
	for (uint64_t k = 1; k < 100; k++) {
		cz_fp_from_u64(&p->x, k);
		cz_fp_sqr(&t, &p->x);
		cz_fp_mul(&rhs, &t, &p->x);
		cz_fp_add(&rhs, &rhs, &b);
		if (cz_fp_sqrt(&p->y, &rhs) && cz_g1_affine_on_curve(p) &&
		    !cz_g1_affine_in_subgroup(p))
			return true;
	}
	return false;
}

static void enc_g1(uint8_t *b, const cz_g1_affine *p)
{
	cz_fp_to_bytes_le_mont(b, &p->x);
	cz_fp_to_bytes_le_mont(b + 48, &p->y);
}

static void enc_g2(uint8_t *b, const cz_g2_affine *p)
{
	cz_fp_to_bytes_le_mont(b, &p->x.c0);
	cz_fp_to_bytes_le_mont(b + 48, &p->x.c1);
	cz_fp_to_bytes_le_mont(b + 96, &p->y.c0);
	cz_fp_to_bytes_le_mont(b + 144, &p->y.c1);
}

/* ---- the fixtures ---- */

static void check_circuit(const char *circ)
{
	char zp[512], rp[512], wp[2][512], vp[512], tp[512], err[CZ_ERRLEN];
	struct cz_zkey *z;
	struct cz_r1cs *r;
	struct cz_wtns *w[2] = { NULL, NULL };
	struct cz_groth16_vk vk, vkj;
	double t0;
	int i;

	path_of(zp, sizeof(zp), data_dir, circ, ".zkey");
	path_of(rp, sizeof(rp), data_dir, circ, ".r1cs");
	path_of(wp[0], sizeof(wp[0]), data_dir, circ, "_1.wtns");
	path_of(wp[1], sizeof(wp[1]), data_dir, circ, "_2.wtns");
	path_of(vp, sizeof(vp), data_dir, circ, "_vk.json");

	t0 = cz_now_ns() / 1e9;
	z = cz_zkey_open(zp, err);
	if (!ct_ok(z != NULL, "%s.zkey opens with every check (%s)", circ, z ? "ok" : err))
		return;
	{
		uint64_t npts = 0;
		double dt = cz_now_ns() / 1e9 - t0;

		for (int s = 3; s <= 9; s++)
			npts += cz_zkey_count(z, (enum cz_zkey_section)s);
		ct_diag("%s.zkey: nVars %u nPublic %u domain 2^%u, %u coefficients; open with "
			"subgroup checks of %llu points: %.1f ms (%.0f points/s)",
			circ, z->n_vars, z->n_public, z->log2_domain, z->n_coefs,
			(unsigned long long)npts, dt * 1e3, npts / dt);
	}
	r = cz_r1cs_open(rp, err);
	ct_ok(r != NULL, "%s.r1cs opens (%s)", circ, r ? "ok" : err);
	for (i = 0; i < 2; i++) {
		w[i] = cz_wtns_open(wp[i], err);
		ct_ok(w[i] != NULL, "%s_%d.wtns opens (%s)", circ, i + 1, w[i] ? "ok" : err);
	}
	if (!r || !w[0] || !w[1])
		goto out;
	ct_ok(cz_zkey_check_r1cs(z, r, err) == 0, "%s: zkey and r1cs agree (nVars %u = nWires %u)",
	      circ, z->n_vars, r->n_wires);
	ct_ok(cz_zkey_check_wtns(z, w[0], err) == 0 && cz_zkey_check_wtns(z, w[1], err) == 0,
	      "%s: zkey and both witnesses agree", circ);

	/* The .zkey's header and IC equal snarkjs's decimal export. */
	if (ct_ok(cz_groth16_vk_json_read(vp, &vkj, err) == 0, "%s_vk.json parses (%s)", circ, err)) {
		bool eq;
		char *text;

		ct_ok(cz_zkey_vk(z, &vk, err) == 0, "%s: verifying key from the zkey", circ);
		eq = vk.n_public == vkj.n_public && g1_eq(&vk.alpha1, &vkj.alpha1) &&
		     g2_eq(&vk.beta2, &vkj.beta2) && g2_eq(&vk.gamma2, &vkj.gamma2) &&
		     g2_eq(&vk.delta2, &vkj.delta2);
		for (uint32_t k = 0; eq && k <= vk.n_public; k++)
			eq = g1_eq(&vk.ic[k], &vkj.ic[k]);
		ct_ok(eq, "%s: zkey alpha1/beta2/gamma2/delta2/IC[%u] equal vk.json's decimals", circ,
		      vk.n_public + 1);
		ct_ok(vkj.have_alphabeta, "%s: vk_alphabeta_12 read", circ);
		text = cz_groth16_vk_json_format(&vkj, err);
		ct_ok(text_equals_file(text, vp), "%s: vk.json rewritten byte-identical", circ);
		free(text);
		/* From the zkey, with snarkjs's e(alpha, beta)^3 computed: equals its export. */
		cz_groth16_vk_set_alphabeta(&vk);
		eq = true;
		for (int k = 0; k < 12; k++)
			eq = eq && cz_fp_eq(&vk.alphabeta[k], &vkj.alphabeta[k]);
		ct_ok(eq, "%s: e(alpha1, beta2)^3 equals vk.json's vk_alphabeta_12", circ);
		text = cz_groth16_vk_json_format(&vk, err);
		ct_ok(text_equals_file(text, vp), "%s: vk.json from the zkey alone byte-identical", circ);
		free(text);
		cz_groth16_vk_free(&vk);
		cz_groth16_vk_free(&vkj);
	}

	/* Witnesses: public.json = w[1..nPublic]; A·w ∘ B·w = C·w. */
	for (i = 0; i < 2; i++) {
		char pp[512], prp[512], suffix[32];
		cz_fr *pub = NULL, *wv;
		size_t npub = 0;
		struct cz_groth16_proof pf, pf2;
		char *text;

		snprintf(suffix, sizeof(suffix), "_public_%d.json", i + 1);
		path_of(pp, sizeof(pp), data_dir, circ, suffix);
		snprintf(suffix, sizeof(suffix), "_proof_%d.json", i + 1);
		path_of(prp, sizeof(prp), data_dir, circ, suffix);

		wv = malloc(w[i]->n * sizeof(*wv));
		ct_ok(wv && cz_wtns_get(w[i], 0, w[i]->n, wv, err) == 0, "%s_%d.wtns: %u values",
		      circ, i + 1, w[i]->n);
		if (ct_ok(cz_public_json_read(pp, &pub, &npub, err) == 0, "%s_public_%d.json parses (%s)",
			  circ, i + 1, err)) {
			bool eq = npub == z->n_public;

			for (size_t k = 0; eq && k < npub; k++)
				eq = cz_fr_eq(&pub[k], &wv[k + 1]);
			ct_ok(eq, "%s: public_%d.json equals witness 1..%u", circ, i + 1, z->n_public);
			text = cz_public_json_format(pub, npub, err);
			ct_ok(text_equals_file(text, pp), "%s: public_%d.json rewritten byte-identical",
			      circ, i + 1);
			free(text);
			{
				char rb[4096], cut[16];
				size_t len = cz_public_json_render(rb, sizeof(rb), pub, npub);
				size_t len2 = cz_public_json_render(cut, sizeof(cut), pub, npub);
				ct_ok(len < sizeof(rb) && len < cz_public_json_max(npub) && len2 == len &&
					      strlen(cut) == (len < sizeof(cut) ? len : sizeof(cut) - 1) &&
					      !strncmp(cut, rb, sizeof(cut) - 1) && text_equals_file(rb, pp),
				      "%s: public_%d.json rendered into a buffer byte-identical (%zu bytes; cut at 16 "
				      "still counts them)", circ, i + 1, len);
			}
		}
		free(pub);

		{
			struct cz_r1cs_matrix m[3];
			bool sat = cz_r1cs_load(r, m, err) == 0;
			uint32_t bad = 0;

			for (uint32_t c = 0; sat && c < r->n_constraints; c++) {
				cz_fr acc[3], t;

				for (int k = 0; k < 3; k++) {
					acc[k] = cz_fr_zero;
					for (uint64_t j = m[k].start[c]; j < m[k].start[c + 1]; j++) {
						cz_fr_mul(&t, &m[k].value[j], &wv[m[k].wire[j]]);
						cz_fr_add(&acc[k], &acc[k], &t);
					}
				}
				cz_fr_mul(&t, &acc[0], &acc[1]);
				if (!cz_fr_eq(&t, &acc[2])) {
					sat = false;
					bad = c;
				}
			}
			ct_ok(sat, "%s_%d.wtns satisfies all %u constraints of %s.r1cs%s", circ, i + 1,
			      r->n_constraints, circ, sat ? "" : " (first failure below)");
			if (!sat)
				ct_diag("constraint %u fails (%s)", bad, err);
			cz_r1cs_matrices_free(m);
		}
		free(wv);

		if (ct_ok(cz_proof_json_read(prp, &pf, err) == 0, "%s_proof_%d.json parses (%s)", circ,
			  i + 1, err)) {
			text = cz_proof_json_format(&pf, err);
			ct_ok(text_equals_file(text, prp), "%s: proof_%d.json rewritten byte-identical",
			      circ, i + 1);
			free(text);
			{
				char rb[CZ_PROOF_JSON_MAX];
				size_t len = cz_proof_json_render(rb, sizeof(rb), &pf);
				ct_ok(len < sizeof(rb) && text_equals_file(rb, prp),
				      "%s: proof_%d.json rendered into a buffer byte-identical (%zu bytes)",
				      circ, i + 1, len);
			}
			snprintf(tp, sizeof(tp), "%s/proof.json", tmp_dir);
			ct_ok(cz_proof_json_write(tp, &pf, err) == 0 &&
				      cz_proof_json_read(tp, &pf2, err) == 0 && g1_eq(&pf.a, &pf2.a) &&
				      g2_eq(&pf.b, &pf2.b) && g1_eq(&pf.c, &pf2.c),
			      "%s: proof_%d.json write/read round trip", circ, i + 1);
		}
	}

	/* Coefficients: the A and B matrices of the .r1cs, in order, then one
	 * A row per public signal.  Checks the c·R^2 decoding against circom. */
	{
		struct cz_r1cs_matrix m[3];
		struct cz_zkey_coef *co = malloc((z->n_coefs ? z->n_coefs : 1) * sizeof(*co));
		uint64_t expect = r->n_terms[0] + r->n_terms[1] + z->n_public + 1, k = 0;
		bool eq = co && cz_r1cs_load(r, m, err) == 0;

		eq = eq && cz_zkey_coefs(z, 0, z->n_coefs, co, err) == 0 && z->n_coefs == expect;
		for (uint32_t c = 0; eq && c < r->n_constraints; c++)
			for (uint32_t mx = 0; eq && mx < 2; mx++)
				for (uint64_t j = m[mx].start[c]; eq && j < m[mx].start[c + 1]; j++, k++)
					eq = co[k].matrix == mx && co[k].constraint == c &&
					     co[k].signal == m[mx].wire[j] &&
					     cz_fr_eq(&co[k].value, &m[mx].value[j]);
		for (uint32_t s = 0; eq && s <= z->n_public; s++, k++)
			eq = co[k].matrix == 0 && co[k].constraint == r->n_constraints + s &&
			     co[k].signal == s && cz_fr_eq(&co[k].value, &cz_fr_one);
		ct_ok(eq, "%s: %u zkey coefficients equal the r1cs A/B terms + %u public rows", circ,
		      z->n_coefs, z->n_public + 1);
		if (eq)
			cz_r1cs_matrices_free(m);
		free(co);
	}

	/* Writers reproduce snarkjs's bytes. */
	{
		struct cz_zkey_parts kp = { 0 };
		uint64_t n[11];
		cz_g1_affine *g1s[10] = { 0 };
		cz_g2_affine *b2 = NULL;
		struct cz_zkey_coef *co = malloc(z->n_coefs * sizeof(*co));
		bool ok = co != NULL;
		uint64_t ninf = 0;

		for (int s = 3; s <= 9; s++) {
			n[s] = cz_zkey_count(z, (enum cz_zkey_section)s);
			if (s == CZ_ZKEY_B2)
				ok = ok && (b2 = malloc(n[s] * sizeof(*b2))) &&
				     cz_zkey_g2(z, CZ_ZKEY_B2, 0, n[s], b2, err) == 0;
			else if (s != 4)
				ok = ok && (g1s[s] = malloc((n[s] ? n[s] : 1) * sizeof(cz_g1_affine))) &&
				     cz_zkey_g1(z, (enum cz_zkey_section)s, 0, n[s], g1s[s], err) == 0;
		}
		ok = ok && cz_zkey_coefs(z, 0, z->n_coefs, co, err) == 0;
		for (uint64_t j = 0; ok && j < n[CZ_ZKEY_B2]; j++)
			ninf += cz_g2_affine_is_inf(&b2[j]) + cz_g1_affine_is_inf(&g1s[CZ_ZKEY_B1][j]);
		if (ok) {
			kp.n_vars = z->n_vars;
			kp.n_public = z->n_public;
			kp.domain_size = z->domain_size;
			kp.alpha1 = z->alpha1;
			kp.beta1 = z->beta1;
			kp.delta1 = z->delta1;
			kp.beta2 = z->beta2;
			kp.gamma2 = z->gamma2;
			kp.delta2 = z->delta2;
			kp.ic = g1s[CZ_ZKEY_IC];
			kp.coefs = co;
			kp.n_coefs = z->n_coefs;
			kp.a = g1s[CZ_ZKEY_A];
			kp.b1 = g1s[CZ_ZKEY_B1];
			kp.b2 = b2;
			kp.c = g1s[CZ_ZKEY_C];
			kp.h = g1s[CZ_ZKEY_H];
			kp.contrib = z->contrib;
			kp.contrib_size = z->contrib_size;
			snprintf(tp, sizeof(tp), "%s/%s.zkey", tmp_dir, circ);
			ok = cz_zkey_write(tp, &kp, err) == 0;
		}
		ct_ok(ok && same_file(tp, zp), "%s: zkey written back byte-identical (%s)", circ,
		      ok ? "ok" : err);
		ct_diag("%s: %llu B1/B2 points at infinity", circ, (unsigned long long)ninf);
		for (int s = 0; s < 10; s++)
			free(g1s[s]);
		free(b2);
		free(co);
	}
	for (i = 0; i < 2; i++) {
		cz_fr *wv = malloc(w[i]->n * sizeof(*wv));
		bool ok = wv && cz_wtns_get(w[i], 0, w[i]->n, wv, err) == 0;

		snprintf(tp, sizeof(tp), "%s/%s_%d.wtns", tmp_dir, circ, i + 1);
		ok = ok && cz_wtns_write(tp, wv, w[i]->n, err) == 0;
		ct_ok(ok && same_file(tp, wp[i]), "%s_%d.wtns written back byte-identical", circ, i + 1);
		free(wv);
	}
out:
	cz_wtns_close(w[0]);
	cz_wtns_close(w[1]);
	cz_r1cs_close(r);
	cz_zkey_close(z);
}

/* ---- malformed inputs ---- */

static void zkey_mutants(void)
{
	char zp[512], mp[600], err[CZ_ERRLEN];
	size_t n = 0;
	uint8_t *orig, *b;
	uint64_t s2size = 0;
	size_t s2, s5, s7, s4, s1;
	struct cz_zkey *z;
	static const uint8_t bn254_r[32] = {
		0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
		0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30,
	};

	path_of(zp, sizeof(zp), data_dir, "mulchain", ".zkey");
	orig = slurp(zp, &n);
	if (!ct_ok(orig != NULL, "read mulchain.zkey for mutation"))
		return;
	b = malloc(n);
	s1 = sec_off(orig, n, 1, NULL);
	s2 = sec_off(orig, n, 2, &s2size);
	s4 = sec_off(orig, n, 4, NULL);
	s5 = sec_off(orig, n, 5, NULL);
	s7 = sec_off(orig, n, 7, NULL);

#define RESET() memcpy(b, orig, n)
#define TRY(name, flags) (z = cz_zkey_open_flags(mutant(mp, sizeof(mp), name, b, n), flags, err), \
			  cz_zkey_close(z), z == NULL)

	RESET();
	memcpy(b, "zkex", 4);
	expect_err(TRY("magic.zkey", 0), err, mp, "zkey bad magic", "magic", "not \"zkey\"");
	ct_ok(!strstr(err, "zkex"), "the bad magic's bytes are not echoed: %s", err);
	RESET();
	put32(b + 4, 3);
	expect_err(TRY("version.zkey", 0), err, mp, "zkey bad version", "version", "3");
	RESET();
	put32(b + s1, 2);
	expect_err(TRY("plonk.zkey", 0), err, mp, "zkey wrong protocol", "field protocol", "plonk");
	RESET();
	memcpy(b + s2 + 4 + 48 + 4, bn254_r, 32);
	expect_err(TRY("bn254.zkey", 0), err, mp, "zkey with BN254's r", "field r",
		   "curve bn128/BN254, expected BLS12-381");
	RESET();
	b[s2 + 4] ^= 1;
	expect_err(TRY("q.zkey", 0), err, mp, "zkey with a wrong q", "field q", "unknown prime");

	/* Truncations: the header, a section header, inside sections. */
	{
		size_t cuts[] = { 0, 3, 11, 12, 20, s2 + 10, s4 + 3, s5 + 50, n / 2, n - 1 };

		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			char name[64];

			snprintf(name, sizeof(name), "trunc%zu.zkey", cuts[k]);
			z = cz_zkey_open_flags(mutant(mp, sizeof(mp), name, orig, cuts[k]), 0, err);
			cz_zkey_close(z);
			ct_ok(z == NULL && strstr(err, mp) &&
				      (strstr(err, "truncated") || strstr(err, "too short")),
			      "zkey truncated at %zu of %zu rejected: %s", cuts[k], n, err);
		}
	}
	RESET();
	put64(b + s2 - 8, UINT64_MAX - 7);
	expect_err(TRY("oversize.zkey", 0), err, mp, "zkey section size overflowing", "section 2",
		   "exceeds");
	RESET();
	put64(b + s2 - 8, s2size - 4);
	expect_err(TRY("short2.zkey", 0), err, mp, "zkey section 2 size 4 short", NULL, NULL);
	RESET();
	put32(b + s2 + 88, 0xffffffffu);
	expect_err(TRY("nvars.zkey", 0), err, mp, "zkey nVars disagreeing with section sizes",
		   "section 5 (A)", "expected");
	RESET();
	put32(b + s2 + 96, 100);
	expect_err(TRY("domain.zkey", 0), err, mp, "zkey domainSize not a power of two",
		   "field domainSize", "power of two");
	RESET();
	put32(b + sec_off(orig, n, 10, NULL) - 12, 3); /* contributions -> a second IC */
	expect_err(TRY("dup.zkey", 0), err, mp, "zkey duplicated section", "section 3 (IC): duplicated",
		   NULL);
	RESET();
	put32(b + s4 + 4, 2);
	expect_err(TRY("coefmatrix.zkey", CZ_ZKEY_CHECK_COEFS), err, mp, "zkey coefficient matrix 2",
		   "record 0", "matrix");
	RESET();
	memset(b + s4 + 4 + 12, 0xff, 32);
	expect_err(TRY("coefvalue.zkey", CZ_ZKEY_CHECK_COEFS), err, mp, "zkey coefficient >= r",
		   "record 0", "value (>= r)");

	/* Points. */
	{
		cz_g1_affine p1, g1bad;
		cz_g2_affine g2bad;
		size_t alpha = s2 + 100, beta2 = s2 + 292;
		uint64_t idx = 0;
		char want[64];

		cz_fp_from_bytes_le_mont(&p1.x, orig + alpha);
		cz_fp_from_bytes_le_mont(&p1.y, orig + alpha + 48);
		RESET();
		cz_fp_add(&p1.y, &p1.y, &cz_fp_one);
		enc_g1(b + alpha, &p1);
		expect_err(TRY("alpha.zkey", 0), err, mp, "zkey alpha1 off the curve", "field alpha1",
			   "not on the curve");
		RESET();
		memset(b + alpha, 0xff, 48);
		expect_err(TRY("alphax.zkey", 0), err, mp, "zkey alpha1.x >= p", "field alpha1",
			   "x >= p");
		RESET();
		memset(b + alpha, 0, 96);
		expect_err(TRY("alphainf.zkey", 0), err, mp, "zkey alpha1 at infinity", "field alpha1",
			   "infinity");
		/* A point of section A (the first one not at infinity) moved off the curve. */
		idx = first_finite_g1(orig + s5);
		cz_fp_from_bytes_le_mont(&p1.x, orig + s5 + idx * 96);
		cz_fp_from_bytes_le_mont(&p1.y, orig + s5 + idx * 96 + 48);
		cz_fp_add(&p1.x, &p1.x, &cz_fp_one);
		RESET();
		enc_g1(b + s5 + idx * 96, &p1);
		snprintf(want, sizeof(want), "point %llu: not on the curve", (unsigned long long)idx);
		expect_err(TRY("Aoff.zkey", CZ_ZKEY_CHECK_POINTS), err, mp, "zkey A point off the curve",
			   "section 5 (A)", want);
		z = cz_zkey_open_flags(mp, 0, err);
		ct_ok(z != NULL, "... but opens without point checks (header only)");
		if (z) {
			ct_ok(cz_zkey_g1(z, CZ_ZKEY_A, idx, 1, &p1, err) != 0 && strstr(err, "not on the curve"),
			      "... and the accessor still rejects that point: %s", err);
			cz_zkey_close(z);
		}
		if (ct_ok(g1_off_subgroup(&g1bad), "found a G1 point outside the subgroup")) {
			RESET();
			enc_g1(b + s5 + 96, &g1bad);
			expect_err(TRY("Asub.zkey", CZ_ZKEY_CHECK_SUBGROUP), err, mp,
				   "zkey A point outside G1", "section 5 (A): point 1",
				   "not in the prime-order subgroup");
			ct_ok(!TRY("Asub2.zkey", CZ_ZKEY_CHECK_POINTS),
			      "... which only the subgroup check catches");
		}
		if (ct_ok(g2_off_subgroup(&g2bad), "found a G2 point on the curve outside G2")) {
			RESET();
			enc_g2(b + beta2, &g2bad);
			expect_err(TRY("beta2sub.zkey", 0), err, mp, "zkey beta2 outside G2",
				   "field beta2", "not in the prime-order subgroup");
			RESET();
			enc_g2(b + s7 + 2 * 192, &g2bad);
			expect_err(TRY("B2sub.zkey", CZ_ZKEY_CHECK_ALL), err, mp, "zkey B2 point outside G2",
				   "section 7 (B2): point 2", "not in the prime-order subgroup");
		}
	}

	/* nVars of the key against another circuit's witness. */
	{
		char wp[512];
		struct cz_wtns *w;

		z = cz_zkey_open(zp, err);
		w = cz_wtns_open(path_of(wp, sizeof(wp), data_dir, "rangehash", "_1.wtns"), err);
		ct_ok(z && w && cz_zkey_check_wtns(z, w, err) != 0 && strstr(err, "nVars") &&
			      strstr(err, "rangehash_1.wtns") && strstr(err, "mulchain.zkey"),
		      "zkey/wtns nVars mismatch rejected: %s", err);
		cz_wtns_close(w);
		cz_zkey_close(z);
	}
	free(b);
	free(orig);
#undef TRY
#undef RESET
}

static void wtns_r1cs_mutants(void)
{
	char wp[512], rp[512], mp[600], err[CZ_ERRLEN];
	size_t n = 0, s1, s2;
	uint8_t *orig, *b;
	struct cz_wtns *w;
	struct cz_r1cs *r;
	static const uint8_t bn254_r[32] = {
		0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
		0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30,
	};

	orig = slurp(path_of(wp, sizeof(wp), data_dir, "mulchain", "_1.wtns"), &n);
	if (!ct_ok(orig != NULL, "read mulchain_1.wtns for mutation"))
		return;
	b = malloc(n);
	s1 = sec_off(orig, n, 1, NULL);
	s2 = sec_off(orig, n, 2, NULL);
#define RESET() memcpy(b, orig, n)
#define TRY(name) (w = cz_wtns_open(mutant(mp, sizeof(mp), name, b, n), err), cz_wtns_close(w), w == NULL)
	RESET();
	memcpy(b, "wtnz", 4);
	expect_err(TRY("magic.wtns"), err, mp, "wtns bad magic", "magic", NULL);
	RESET();
	put32(b + 4, 9);
	expect_err(TRY("version.wtns"), err, mp, "wtns bad version", "version", "9");
	RESET();
	memcpy(b + s1 + 4, bn254_r, 32);
	expect_err(TRY("bn254.wtns"), err, mp, "wtns over BN254", "field q", "bn128/BN254");
	RESET();
	put32(b + s1 + 36, 44);
	expect_err(TRY("count.wtns"), err, mp, "wtns nWitness disagreeing with section 2", "section 2",
		   "nWitness = 44");
	RESET();
	memset(b + s2 + 3 * 32, 0xff, 32);
	expect_err(TRY("range.wtns"), err, mp, "wtns value >= r", "witness 3", ">= r");
	RESET();
	b[s2] = 2;
	expect_err(TRY("one.wtns"), err, mp, "wtns witness 0 not 1", "witness 0", NULL);
	w = cz_wtns_open(mutant(mp, sizeof(mp), "trunc.wtns", orig, n - 5), err);
	cz_wtns_close(w);
	expect_err(w == NULL, err, mp, "wtns truncated", "truncated", NULL);
#undef TRY
	free(b);
	free(orig);

	orig = slurp(path_of(rp, sizeof(rp), data_dir, "mulchain", ".r1cs"), &n);
	if (!ct_ok(orig != NULL, "read mulchain.r1cs for mutation"))
		return;
	b = malloc(n);
	s1 = sec_off(orig, n, 1, NULL);
	s2 = sec_off(orig, n, 2, NULL);
#define TRY(name) (r = cz_r1cs_open(mutant(mp, sizeof(mp), name, b, n), err), cz_r1cs_close(r), r == NULL)
	RESET();
	memcpy(b, "r1cx", 4);
	expect_err(TRY("magic.r1cs"), err, mp, "r1cs bad magic", "magic", NULL);
	RESET();
	memcpy(b + s1 + 4, bn254_r, 32);
	expect_err(TRY("bn254.r1cs"), err, mp, "r1cs over BN254", "field prime", "bn128/BN254");
	RESET();
	put32(b + s2 + 4, 1000); /* constraint 0, A, term 0: wire 1000 */
	expect_err(TRY("wire.r1cs"), err, mp, "r1cs wire >= nWires", "constraint 0 A term 0",
		   "nWires");
	RESET();
	put32(b + s2, 0x10000000);
	expect_err(TRY("nterms.r1cs"), err, mp, "r1cs nTerms overflowing the section",
		   "constraint 0 A nTerms", "exceed");
	RESET();
	put32(b + s1 + 36 + 16 + 8, 39); /* nConstraints 40 -> 39: bytes left over */
	expect_err(TRY("ncons.r1cs"), err, mp, "r1cs nConstraints disagreeing with section 2",
		   "section 2", "unexpected bytes");
	r = cz_r1cs_open(mutant(mp, sizeof(mp), "trunc.r1cs", orig, n - 100), err);
	cz_r1cs_close(r);
	expect_err(r == NULL, err, mp, "r1cs truncated", "truncated", NULL);
#undef TRY
#undef RESET
	free(b);
	free(orig);
}

static void json_mutants(void)
{
	char pp[512], vp[512], mp[600], err[CZ_ERRLEN];
	size_t n = 0;
	char *proof, *vk;
	struct cz_groth16_proof pf;
	struct cz_groth16_vk v;
	cz_fr *vals = NULL;
	size_t nv = 0;
	int rc;

	proof = (char *)slurp(path_of(pp, sizeof(pp), data_dir, "mulchain", "_proof_1.json"), &n);
	vk = (char *)slurp(path_of(vp, sizeof(vp), data_dir, "mulchain", "_vk.json"), &n);
	if (!ct_ok(proof && vk, "read mulchain JSON for mutation"))
		goto out;

#define PUB(name, text) (rc = cz_public_json_read(mutant(mp, sizeof(mp), name, text, strlen(text)), &vals, &nv, err), \
			 free(vals), vals = NULL, rc != 0)
	expect_err(PUB("p1.json", "[\"1\", \"2\""), err, mp, "public.json cut short", "malformed JSON",
		   "end of input");
	expect_err(PUB("p2.json", "[\"1\",, \"2\"]"), err, mp, "public.json with a syntax error",
		   "malformed JSON", NULL);
	expect_err(PUB("p3.json",
		       "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]"),
		   err, mp, "public.json value = r", "public[0]", ">= r");
	expect_err(PUB("p4.json", "[\"5\", \"99999999999999999999999999999999999999999999999999999999999999999999999999999\"]"),
		   err, mp, "public.json value > r", "public[1]", ">= r");
	expect_err(PUB("p5.json", "[\"-1\"]"), err, mp, "public.json negative", "public[0]",
		   "not a decimal");
	expect_err(PUB("p6.json", "{\"a\": 1}"), err, mp, "public.json not an array", "public",
		   "expected an array");
	expect_err(PUB("p7.json", "[\"1\"] x"), err, mp, "public.json trailing garbage",
		   "malformed JSON", NULL);
	ct_ok(!PUB("p8.json", "[]") && nv == 0, "public.json [] is zero inputs");
	expect_err(PUB("p9.json", "[123456789012345678901234567890]"), err, mp,
		   "public.json integer beyond 2^53", "public[0]", "decimal string");
	expect_err(PUB("p10.json", "[1.5]"), err, mp, "public.json float", "public[0]",
		   "expected a decimal string");
	{
		cz_fr five;

		rc = cz_public_json_read(mutant(mp, sizeof(mp), "p11.json", "[5, \"007\"]", 10), &vals,
					 &nv, err);
		cz_fr_from_u64(&five, 5);
		ct_ok(rc == 0 && nv == 2 && cz_fr_eq(&vals[0], &five),
		      "public.json small JSON integer and leading zeros accepted (%s)", rc ? err : "ok");
		free(vals);
		vals = NULL;
	}
#undef PUB

#define PROOF(name, text) (rc = cz_proof_json_read(mutant(mp, sizeof(mp), name, text, strlen(text)), &pf, err), rc != 0)
	{
		char *m = strdup(proof), *q;

		/* pi_a's x: the first digit string after "pi_a"; bump its last digit. */
		q = strstr(m, "\"pi_a\"");
		q = strchr(q + 7, '"') + 1;
		q = strchr(q, '"') - 1;
		*q = *q == '9' ? '0' : *q + 1;
		expect_err(PROOF("a.json", m), err, mp, "proof.json pi_a off the curve", "pi_a",
			   "not on the curve");
		free(m);
		m = strdup(proof);
		q = strstr(m, "\"curve\": \"bls12381\"");
		memcpy(q, "\"curve\": \"bn128\"   ", 19);
		expect_err(PROOF("c.json", m), err, mp, "proof.json curve bn128", "curve",
			   "bn128/BN254, expected BLS12-381");
		free(m);
		m = strdup(proof);
		q = strstr(m, "\"protocol\": \"groth16\"");
		memcpy(q, "\"protocol\": \"plonk\"  ", 21);
		expect_err(PROOF("pr.json", m), err, mp, "proof.json protocol plonk", "protocol", "plonk");
		free(m);
		m = strdup(proof);
		q = strstr(m, "\"pi_c\"");
		q[2] = 'x'; /* "pixc": pi_c missing */
		expect_err(PROOF("m.json", m), err, mp, "proof.json without pi_c", "pi_c", "missing");
		free(m);
		m = strdup(proof);
		m[strlen(m) / 2] = 0;
		expect_err(PROOF("t.json", m), err, mp, "proof.json truncated", "malformed JSON", NULL);
		free(m);
	}
	expect_err(PROOF("x.json",
			 "{\"pi_a\": [\"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559788\", \"2\", \"1\"]}"),
		   err, mp, "proof.json coordinate >= p", "pi_a[0]", ">= p");
	{
		/* A G2 point outside G2 in pi_b (on the curve). */
		cz_g2_affine bad;
		struct cz_groth16_proof good;
		char *text;

		if (cz_proof_json_read(pp, &good, err) == 0 && g2_off_subgroup(&bad)) {
			good.b = bad;
			text = cz_proof_json_format(&good, err);
			expect_err(PROOF("b.json", text), err, mp, "proof.json pi_b outside G2", "pi_b",
				   "not in the G2 subgroup");
			free(text);
		} else {
			ct_ok(0, "setting up the pi_b subgroup case: %s", err);
		}
	}
#undef PROOF

#define VK(name, text) (rc = cz_groth16_vk_json_read(mutant(mp, sizeof(mp), name, text, strlen(text)), &v, err), \
			cz_groth16_vk_free(&v), rc != 0)
	{
		char *m = strdup(vk), *q;

		q = strstr(m, "\"nPublic\": 2");
		q[11] = '3';
		expect_err(VK("n.json", m), err, mp, "vk.json nPublic disagreeing with IC", "IC",
			   "nPublic = 3");
		free(m);
		m = strdup(vk);
		q = strstr(m, "\"curve\": \"bls12381\"");
		memcpy(q, "\"curve\": \"bn128\"   ", 19);
		expect_err(VK("c.json", m), err, mp, "vk.json curve bn128", "curve", "bn128/BN254");
		free(m);
	}
	expect_err(VK("e.json", ""), err, mp, "vk.json empty", "malformed JSON", NULL);
	expect_err(VK("a.json", "[1, 2]"), err, mp, "vk.json an array", "object", NULL);
#undef VK
out:
	free(proof);
	free(vk);
}


/* ---- a synthetic, larger key: writer -> reader, the pooled checks ---- */

static void g1_multiples(cz_g1_affine *out, size_t n, uint64_t start)
{
	cz_g1_jac *j = malloc(n * sizeof(*j)), g, acc;
	uint64_t k = start;

	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	cz_g1_mul_vartime(&acc, &g, &k, 1);
	for (size_t i = 0; i < n; i++) {
		j[i] = acc;
		cz_g1_jac_add(&acc, &acc, &g);
	}
	cz_g1_jac_batch_to_affine(out, j, n);
	free(j);
}

static void g2_multiples(cz_g2_affine *out, size_t n, uint64_t start)
{
	cz_g2_jac *j = malloc(n * sizeof(*j)), g, acc;
	uint64_t k = start;

	cz_g2_jac_from_affine(&g, &cz_g2_generator);
	cz_g2_mul_vartime(&acc, &g, &k, 1);
	for (size_t i = 0; i < n; i++) {
		j[i] = acc;
		cz_g2_jac_add(&acc, &acc, &g);
	}
	cz_g2_jac_batch_to_affine(out, j, n);
	free(j);
}

static void synthetic_key(void)
{
	enum { NV = 300, NP = 2, DOM = 2048, NC = 5 };
	char zp[512], err[CZ_ERRLEN];
	struct cz_zkey_parts kp = { 0 };
	cz_g1_affine *ic = malloc((NP + 1) * sizeof(*ic)), *a = malloc(NV * sizeof(*a)),
		     *b1 = malloc(NV * sizeof(*b1)), *c = malloc(NV * sizeof(*c)),
		     *h = malloc(DOM * sizeof(*h)), *rd = malloc(DOM * sizeof(*rd)), g1bad;
	cz_g2_affine *b2 = malloc(NV * sizeof(*b2)), *rd2 = malloc(NV * sizeof(*rd2)), g2bad;
	struct cz_zkey_coef co[NC], cr[NC];
	struct cz_zkey *z;
	bool eq;
	double t0, dt1, dt2;
	int i;

	g1_multiples(ic, NP + 1, 1000);
	g1_multiples(a, NV, 2000);
	g1_multiples(b1, NV, 3000);
	g1_multiples(c, NV - NP - 1, 4000);
	g1_multiples(h, DOM, 5000);
	g2_multiples(b2, NV, 6000);
	b1[7].x = cz_fp_zero; /* points at infinity survive the round trip */
	b1[7].y = cz_fp_zero;
	b2[7].x = cz_fp2_zero;
	b2[7].y = cz_fp2_zero;
	for (i = 0; i < NC; i++) {
		co[i].matrix = (uint32_t)i & 1;
		co[i].constraint = (uint32_t)i * 3;
		co[i].signal = (uint32_t)(NV - 1 - i);
		cz_fr_from_u64(&co[i].value, (uint64_t)i * 0x1234567u + 1);
		if (i == 4)
			cz_fr_neg(&co[i].value, &co[i].value);
	}
	kp.n_vars = NV;
	kp.n_public = NP;
	kp.domain_size = DOM;
	kp.alpha1 = a[1];
	kp.beta1 = a[2];
	kp.delta1 = a[3];
	kp.beta2 = b2[1];
	kp.gamma2 = b2[2];
	kp.delta2 = b2[3];
	kp.ic = ic;
	kp.coefs = co;
	kp.n_coefs = NC;
	kp.a = a;
	kp.b1 = b1;
	kp.b2 = b2;
	kp.c = c;
	kp.h = h;
	snprintf(zp, sizeof(zp), "%s/synthetic.zkey", tmp_dir);
	err[0] = 0;
	ct_ok(cz_zkey_write(zp, &kp, err) == 0, "synthetic key (nVars %d, domain %d) written %s", NV,
	      DOM, err);

	t0 = cz_now_ns() / 1e9;
	z = cz_zkey_open(zp, err);
	dt1 = cz_now_ns() / 1e9 - t0;
	if (ct_ok(z != NULL, "synthetic key opens with every check, on the pool (%s)", z ? "ok" : err)) {
		eq = z->n_vars == NV && z->n_public == NP && z->domain_size == DOM &&
		     g2_eq(&z->gamma2, &b2[2]) && g1_eq(&z->delta1, &a[3]) &&
		     cz_zkey_g1(z, CZ_ZKEY_H, 0, DOM, rd, err) == 0;
		for (i = 0; eq && i < DOM; i++)
			eq = g1_eq(&rd[i], &h[i]);
		eq = eq && cz_zkey_g1(z, CZ_ZKEY_B1, 0, NV, rd, err) == 0;
		for (i = 0; eq && i < NV; i++)
			eq = g1_eq(&rd[i], &b1[i]);
		eq = eq && cz_zkey_g2(z, CZ_ZKEY_B2, 0, NV, rd2, err) == 0;
		for (i = 0; eq && i < NV; i++)
			eq = g2_eq(&rd2[i], &b2[i]);
		eq = eq && cz_zkey_coefs(z, 0, NC, cr, err) == 0;
		for (i = 0; eq && i < NC; i++)
			eq = cr[i].matrix == co[i].matrix && cr[i].constraint == co[i].constraint &&
			     cr[i].signal == co[i].signal && cz_fr_eq(&cr[i].value, &co[i].value);
		ct_ok(eq, "synthetic key reads back what was written (H, B1, B2 with infinity, coefficients)");
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 10; i++)
			cz_zkey_g1(z, CZ_ZKEY_H, 0, DOM, rd, err);
		dt1 = (cz_cpu_ms() / 1e3 - t0) / (10.0 * DOM);
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 10; i++)
			cz_zkey_g2(z, CZ_ZKEY_B2, 0, NV, rd2, err);
		dt2 = (cz_cpu_ms() / 1e3 - t0) / (10.0 * NV);
		ct_diag("conversion with range and curve checks (CPU time): G1 %.2f us/point, G2 %.2f us/point",
			dt1 * 1e6, dt2 * 1e6);
		{
			struct cz_pool *pool = cz_pool_create(4);
			cz_g1_affine *rp = malloc(DOM * sizeof(*rp));
			cz_g2_affine *rp2 = malloc(NV * sizeof(*rp2));

			eq = pool && rp && rp2 && cz_zkey_g1_pool(z, CZ_ZKEY_H, 0, DOM, rp, pool, err) == 0 &&
			     cz_zkey_g2_pool(z, CZ_ZKEY_B2, 0, NV, rp2, pool, err) == 0 &&
			     cz_zkey_g1(z, CZ_ZKEY_H, 0, DOM, rd, err) == 0;
			for (i = 0; eq && i < DOM; i++)
				eq = g1_eq(&rp[i], &rd[i]);
			for (i = 0; eq && i < NV; i++)
				eq = g2_eq(&rp2[i], &b2[i]);
			ct_ok(eq, "pooled conversion equals the serial one (H, B2)");
			ct_ok(cz_zkey_g1_pool(z, CZ_ZKEY_H, 10, DOM, rp, pool, err) != 0 && strstr(err, "out of"),
			      "pooled conversion past the section rejected: %s", err);
			free(rp);
			free(rp2);
			cz_pool_destroy(pool);
		}
		ct_ok(cz_zkey_g1(z, CZ_ZKEY_H, DOM - 1, 2, rd, err) != 0 && strstr(err, "out of"),
		      "accessor range past the section rejected: %s", err);
		ct_ok(cz_zkey_g1(z, CZ_ZKEY_B2, 0, 1, rd, err) != 0 && strstr(err, "not a G1"),
		      "G1 accessor on the G2 section rejected: %s", err);
		cz_zkey_close(z);
	}

	/* Two bad points in H: the lowest index is reported, whatever the threads did. */
	if (g1_off_subgroup(&g1bad) && g2_off_subgroup(&g2bad)) {
		h[1500] = g1bad;
		h[700] = g1bad;
		ct_ok(cz_zkey_write(zp, &kp, err) == 0, "synthetic key with H[700], H[1500] outside G1");
		z = cz_zkey_open(zp, err);
		cz_zkey_close(z);
		expect_err(z == NULL, err, zp, "first bad H point", "section 9 (H): point 700",
			   "not in the prime-order subgroup");
		/* Off the curve at 1900 and 300, converted on a pool: 300 is named. */
		cz_fp_add(&h[1900].x, &h[1900].x, &cz_fp_one);
		cz_fp_add(&h[300].x, &h[300].x, &cz_fp_one);
		z = cz_zkey_write(zp, &kp, err) == 0 ? cz_zkey_open_flags(zp, 0, err) : NULL;
		if (ct_ok(z != NULL, "synthetic key with H[300], H[1900] off the curve opens header-only")) {
			struct cz_pool *pool = cz_pool_create(4);

			expect_err(cz_zkey_g1_pool(z, CZ_ZKEY_H, 0, DOM, rd, pool, err) != 0, err, zp,
				   "pooled conversion of a bad H", "section 9 (H): point 300",
				   "not on the curve");
			cz_pool_destroy(pool);
			cz_zkey_close(z);
		}
	}

	/* Cost of the subgroup checks, per point, in CPU time (the machine is
	 * shared), next to a full 255-bit scalar multiplication (r·P = O, the
	 * naive check) in the same run. */
	{
		cz_g1_jac pj, q;
		cz_g2_jac pj2, q2;
		cz_fr k;
		double m1, m2;

		cz_fr_neg(&k, &cz_fr_one);
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 200; i++)
			eq = cz_g1_affine_in_subgroup(&h[i + 1]);
		dt1 = (cz_cpu_ms() / 1e3 - t0) / 200;
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 50; i++)
			eq = cz_g2_affine_in_subgroup(&b2[i + 10]);
		dt2 = (cz_cpu_ms() / 1e3 - t0) / 50;
		cz_g1_jac_from_affine(&pj, &h[1]);
		cz_g2_jac_from_affine(&pj2, &b2[10]);
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 50; i++)
			cz_g1_mul(&q, &pj, &k);
		m1 = (cz_cpu_ms() / 1e3 - t0) / 50;
		t0 = cz_cpu_ms() / 1e3;
		for (i = 0; i < 20; i++)
			cz_g2_mul(&q2, &pj2, &k);
		m2 = (cz_cpu_ms() / 1e3 - t0) / 20;
		ct_diag("subgroup check (CPU time, one thread): G1 %.0f us/point (full scalar mul %.0f us), "
			"G2 %.0f us/point (full scalar mul %.0f us); a 2^27-constraint key "
			"(~5.4e8 G1 + 1.3e8 G2 points) would need ~%.0f core-hours",
			dt1 * 1e6, m1 * 1e6, dt2 * 1e6, m2 * 1e6, (5.4e8 * dt1 + 1.3e8 * dt2) / 3600);
	}
	free(ic);
	free(a);
	free(b1);
	free(c);
	free(h);
	free(rd);
	free(b2);
	free(rd2);
}

/* Points of the key loaded through CZ_ZKEY_LAZY_POINTS (read from the file
 * straight into the arrays) against the fully checked reader's, one section. */
static bool lazy_same_g1(const struct cz_zkey *z, enum cz_zkey_section sec, const cz_g1_affine *got,
			 uint64_t n)
{
	char err[CZ_ERRLEN];
	cz_g1_affine *want = malloc((n ? n : 1) * sizeof(*want));
	bool ok = want && cz_zkey_g1(z, sec, 0, n, want, err) == 0;
	for (uint64_t i = 0; ok && i < n; i++)
		ok = g1_eq(&want[i], &got[i]);
	free(want);
	return ok;
}

struct rawcoef { uint32_t m, row, var, idx; const uint8_t *v; };

static int rawcoef_cmp(const void *a, const void *b)
{
	const struct rawcoef *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;     /* stable: file order in a row */
}

/* cz_groth16_key_load: the lazy point read and the one-pass coefficient
 * sort against independent readings of the same file, its errors, and the
 * lazy reader's own: a file truncated or rewritten after the open. */
static void key_load_lazy(void)
{
	char zp[512], mp[600], err[CZ_ERRLEN];
	size_t n = 0;
	uint8_t *orig, *b;
	struct cz_groth16_key k;
	struct cz_zkey *z;
	struct cz_pool *pool = cz_pool_create(2);

	path_of(zp, sizeof(zp), data_dir, "mulchain", ".zkey");
	orig = slurp(zp, &n);
	if (!ct_ok(orig != NULL && pool, "read mulchain.zkey for the lazy load")) {
		free(orig);
		if (pool)
			cz_pool_destroy(pool);
		return;
	}
	b = malloc(n);
	size_t s4 = sec_off(orig, n, 4, NULL), s5 = sec_off(orig, n, 5, NULL);
	size_t s7 = sec_off(orig, n, 7, NULL), s9 = sec_off(orig, n, 9, NULL);

	/* 1. The arrays equal the checked reader's. */
	z = cz_zkey_open(zp, err);
	int rc = cz_groth16_key_load(&k, zp, pool, err, sizeof(err));
	bool same = z && rc == 0 && lazy_same_g1(z, CZ_ZKEY_A, k.a, k.nvars) &&
		    lazy_same_g1(z, CZ_ZKEY_B1, k.b1, k.nvars) &&
		    lazy_same_g1(z, CZ_ZKEY_C, k.c, k.nvars - k.npub - 1) &&
		    lazy_same_g1(z, CZ_ZKEY_H, k.h, 1ull << k.log2n) &&
		    lazy_same_g1(z, CZ_ZKEY_IC, k.ic, k.npub + 1ull);
	if (same) {
		cz_g2_affine *w2 = malloc(k.nvars * sizeof(*w2));
		same = w2 && cz_zkey_g2(z, CZ_ZKEY_B2, 0, k.nvars, w2, err) == 0;
		for (uint32_t i = 0; same && i < k.nvars; i++)
			same = g2_eq(&w2[i], &k.b2[i]);
		free(w2);
	}
	ct_ok(same, "key_load: A, B1, B2, C, H and IC read lazily equal cz_zkey_open's checked points (%u signals, rc %d %s)",
	      rc == 0 ? k.nvars : 0, rc, rc ? err : "");

	/* 2. The coefficients: the file's records, stably sorted by row here
	 * (qsort on row and record number), each value the file's 32 bytes. */
	bool cok = rc == 0 && z && k.ncoefs == z->n_coefs && k.row_off;
	struct rawcoef *rc_ = cok ? malloc((k.ncoefs ? k.ncoefs : 1) * sizeof(*rc_)) : NULL;
	cok = cok && rc_;
	for (size_t i = 0; cok && i < k.ncoefs; i++) {
		const uint8_t *r = orig + s4 + 4 + i * CZ_ZKEY_COEF_BYTES;
		memcpy(&rc_[i].m, r, 4);
		memcpy(&rc_[i].row, r + 4, 4);
		memcpy(&rc_[i].var, r + 8, 4);
		rc_[i].idx = (uint32_t)i;
		rc_[i].v = r + 12;
	}
	if (cok)
		qsort(rc_, k.ncoefs, sizeof(*rc_), rawcoef_cmp);
	for (size_t i = 0; cok && i < k.ncoefs; i++) {
		uint8_t v[32];
		for (int l = 0; l < 4; l++)
			for (int q = 0; q < 8; q++)
				v[8 * l + q] = (uint8_t)(k.coefs[i].value.l[l] >> (8 * q));
		cok = k.coefs[i].matrix == rc_[i].m && k.coefs[i].row == rc_[i].row &&
		      k.coefs[i].var == rc_[i].var && !memcmp(v, rc_[i].v, 32);
	}
	for (size_t r = 0, i = 0; cok && r <= (1ull << k.log2n); r++) {
		while (i < k.ncoefs && rc_[i].row < r)
			i++;
		cok = k.row_off[r] == i;
	}
	ct_ok(cok, "key_load: %zu coefficients in row order (stable), each value the file's bytes, row_off the rows' starts",
	      rc == 0 ? k.ncoefs : 0);
	free(rc_);
	if (rc == 0)
		cz_groth16_key_free(&k);
	cz_zkey_close(z);

#define LOAD(name) (cz_groth16_key_load(&k, mutant(mp, sizeof(mp), name, b, n), pool, err, sizeof(err)) != 0 \
		    || (cz_groth16_key_free(&k), 0))
	/* 3-4. A bad point in a lazy section is named as before. */
	{
		uint64_t idx;
		cz_g1_affine p1;
		idx = first_finite_g1(orig + s5);
		cz_fp_from_bytes_le_mont(&p1.x, orig + s5 + idx * 96);
		cz_fp_from_bytes_le_mont(&p1.y, orig + s5 + idx * 96 + 48);
		cz_fp_add(&p1.x, &p1.x, &cz_fp_one);
		memcpy(b, orig, n);
		enc_g1(b + s5 + idx * 96, &p1);
		char want[64];
		snprintf(want, sizeof(want), "point %llu: not on the curve", (unsigned long long)idx);
		expect_err(LOAD("lzAoff.zkey"), err, mp, "key_load: an A point off the curve",
			   "section 5 (A)", want);
		memcpy(b, orig, n);
		memset(b + s7 + 2 * 192, 0xff, 48);
		expect_err(LOAD("lzB2x.zkey"), err, mp, "key_load: a B2 point with x >= p",
			   "section 7 (B2): point 2", "x >= p");
	}
	/* 5-7. Bad coefficient records, found by the one-pass load. */
	memcpy(b, orig, n);
	put32(b + s4 + 4 + CZ_ZKEY_COEF_BYTES, 2);
	expect_err(LOAD("lzcm.zkey"), err, mp, "key_load: coefficient matrix 2", "record 1", "matrix");
	memcpy(b, orig, n);
	memset(b + s4 + 4 + 12, 0xff, 32);
	expect_err(LOAD("lzcv.zkey"), err, mp, "key_load: coefficient >= r", "record 0", "value (>= r)");
	memcpy(b, orig, n);
	put32(b + s4 + 4 + 2 * CZ_ZKEY_COEF_BYTES + 4, 1u << 30);
	expect_err(LOAD("lzcr.zkey"), err, mp, "key_load: coefficient constraint >= domainSize",
		   "record 2", "constraint");
#undef LOAD

	/* 8. Truncated files through the lazy open: the table's checks, as before. */
	{
		size_t cuts[] = { 11, s4 + 3, s5 + 50, s7 + 1000, n - 1 };
		int good = 0;
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			char name[64];
			snprintf(name, sizeof(name), "lztrunc%zu.zkey", cuts[c]);
			bool r = cz_groth16_key_load(&k, mutant(mp, sizeof(mp), name, orig, cuts[c]), pool, err,
						     sizeof(err)) != 0;
			if (!r)
				cz_groth16_key_free(&k);
			good += r && strstr(err, mp) && (strstr(err, "truncated") || strstr(err, "too short"));
			if (c == 3)
				ct_diag("cut at %zu: %s", cuts[c], err);
		}
		ct_ok(good == 5, "key_load: %d of 5 truncated files refused as truncated", good);
	}

	/* 9-11. The lazy reader: sections left in the file, read later. */
	cz_g1_affine *h = malloc(4096 * sizeof(*h));
	memcpy(b, orig, n);
	mutant(mp, sizeof(mp), "lazy.zkey", b, n);
	z = cz_zkey_open_flags(mp, CZ_ZKEY_LAZY_POINTS, err);
	bool refused = z && h && cz_zkey_g1(z, CZ_ZKEY_H, 0, 1, h, err) != 0 && strstr(err, "was not read");
	ct_ok(refused, "lazy open: the plain accessor refuses an unread section: %s", err);
	uint64_t nh = z ? cz_zkey_count(z, CZ_ZKEY_H) : 0;
	if (z && truncate(mp, (off_t)(s9 + 10 * 96)) == 0)
		expect_err(cz_zkey_g1_pool(z, CZ_ZKEY_H, 0, nh < 4096 ? nh : 4096, h, pool, err) != 0, err, mp,
			   "lazy open: section H after the file was cut inside it", "changed while being read", NULL);
	else
		ct_ok(0, "lazy open and truncate %s: %s", mp, err);
	cz_zkey_close(z);
	mutant(mp, sizeof(mp), "lazy.zkey", b, n);
	z = cz_zkey_open_flags(mp, CZ_ZKEY_LAZY_POINTS, err);
	int before = z ? cz_iden3_recheck(&z->f, err) : -1;
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	mutant(mp, sizeof(mp), "lazy.zkey", b, n);      /* the same bytes, written again */
	int read_ok = z ? cz_zkey_g1_pool(z, CZ_ZKEY_H, 0, nh < 4096 ? nh : 4096, h, pool, err) : -1;
	int after = z ? cz_iden3_recheck(&z->f, err) : 0;
	ct_ok(before == 0 && read_ok == 0 && after == -ESTALE && strstr(err, "changed while being read"),
	      "lazy open: unchanged file rechecks 0; rewritten in place (same bytes) the reads succeed and the recheck says: %s",
	      err);
	cz_zkey_close(z);
	free(h);
	free(b);
	free(orig);
	cz_pool_destroy(pool);
}

int main(void)
{
	const char *d = getenv("CZ_DATA_DIR");
	char probe[512], err[CZ_ERRLEN];
	struct stat st;

	if (d)
		data_dir = d;
	snprintf(probe, sizeof(probe), "%s/mulchain.zkey", data_dir);
	if (stat(probe, &st) != 0) {
		ct_plan(1);
		ct_skip("no fixtures (run tools/fixtures/make-fixtures.sh)", "fixtures in %s", data_dir);
		return ct_exit();
	}
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/cz_formats.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp_dir)) {
		ct_plan(1);
		ct_ok(0, "mkdtemp: %s", strerror(errno));
		return ct_exit();
	}
	ct_plan(172);
	for (size_t i = 0; i < sizeof(circuits) / sizeof(circuits[0]); i++)
		check_circuit(circuits[i]);
	synthetic_key();
	zkey_mutants();
	key_load_lazy();
	wtns_r1cs_mutants();
	json_mutants();
	(void)err;
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
		if (system(cmd) != 0)
			ct_diag("could not remove %s", tmp_dir);
	}
	return ct_exit();
}
