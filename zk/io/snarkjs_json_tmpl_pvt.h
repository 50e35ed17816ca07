/* SPDX-License-Identifier: MIT */
/*
 * zk/io/snarkjs_json_tmpl_pvt.h — snarkjs Groth16 JSON files, written once
 * over the curve; private to its instances zk/io/snarkjs_json.c (BLS12-381,
 * "bls12381") and zk/bn254_snarkjs_json.c (BN254, "bn128").  The API and
 * the rules are in zk/io/snarkjs_json.h.
 *
 * Parsing uses json-c in strict mode; writing uses a small printer of our
 * own that reproduces snarkjs's layout (JSON.stringify with one-space
 * indent, no final newline), so a file we write is byte-identical to the
 * one snarkjs would write for the same values.
 *
 * The includer defines SJ(n) (the public name of n: cz_##n), SJ_FP SJ_FP2
 * SJ_FP6 SJ_FP12 SJ_FR (field prefixes and types), SJ_G1 SJ_G2 (group
 * prefixes), SJ_PROOF SJ_VK (struct tags), SJ_PAIRING, SJ_ALPHABETA_POW(e)
 * (raises e(alpha, beta) to snarkjs's power in place), SJ_CURVE_TAG (what
 * snarkjs writes), SJ_CURVE_NAME, SJ_OUR_CURVE(s) / SJ_OTHER_CURVE(s)
 * (whether a "curve" tag names this curve / the other one) and
 * SJ_OTHER_NAME.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "zk/io/outfile.h"

#define SJ_CAT2(a, b) a##_##b
#define SJ_CAT(a, b) SJ_CAT2(a, b)
#define F1(n) SJ_CAT(SJ_FP, n)
#define F2(n) SJ_CAT(SJ_FP2, n)
#define FR(n) SJ_CAT(SJ_FR, n)
#define G1(n) SJ_CAT(SJ_G1, n)
#define G2(n) SJ_CAT(SJ_G2, n)
typedef SJ_FP sj_fp;
typedef SJ_FP2 sj_fp2;
typedef SJ_FP6 sj_fp6;
typedef SJ_FP12 sj_fp12;
typedef SJ_FR sj_fr;
typedef G1(affine) sj_g1;
typedef G2(affine) sj_g2;

#define MAX_FILE (64u << 20) /* JSON files here are small; refuse silly sizes */

void SJ(groth16_vk_free)(struct SJ_VK *vk)
{
	free(vk->ic);
	vk->ic = NULL;
}

/* snarkjs prints Fp12 as [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]],
 * each an Fp2 [c0, c1]: the same tower as ours (Fp12 = Fp6[w], Fp6 =
 * Fp2[v]), flattened in that order.  Its pairing (wasmcurves) raises the
 * Miller loop to a multiple of (p^12 - 1)/r (a cheaper addition chain for
 * the hard part), so its vk_alphabeta_12 is a fixed power of e(alpha,
 * beta): SJ_ALPHABETA_POW (e^3 for BLS12-381, checked in zk_formats;
 * e^lambda for BN254, zk/curve/bn254_pairing.h).  We write the same, for byte
 * compatibility with snarkjs's export; no verifier reads this field back. */
void SJ(groth16_vk_set_alphabeta)(struct SJ_VK *vk)
{
	sj_fp12 e;
	const sj_fp6 *h[2];

	SJ_PAIRING(&e, &vk->alpha1, &vk->beta2);
	SJ_ALPHABETA_POW(&e);
	h[0] = &e.c0;
	h[1] = &e.c1;
	for (int i = 0; i < 2; i++) {
		const sj_fp2 *c[3] = { &h[i]->c0, &h[i]->c1, &h[i]->c2 };

		for (int j = 0; j < 3; j++) {
			vk->alphabeta[(i * 3 + j) * 2] = c[j]->c0;
			vk->alphabeta[(i * 3 + j) * 2 + 1] = c[j]->c1;
		}
	}
	vk->have_alphabeta = true;
}

/* ---- reading ---- */

struct jctx {
	const char *name;
	char *err;
};

static struct json_object *parse_text(struct jctx *c, const char *text, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error je;
	size_t end;

	if (len > MAX_FILE) {
		cz_errf(c->err, -EFBIG, "%s: %zu bytes, more than a JSON file here can be", c->name, len);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		cz_errf(c->err, -ENOMEM, "%s: out of memory", c->name);
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (je == json_tokener_success && !o) {
		cz_errf(c->err, -EINVAL, "%s: the JSON value is null", c->name);
		return NULL;
	}
	if (je == json_tokener_continue) {
		cz_errf(c->err, -EINVAL, "%s: malformed JSON: unexpected end of input", c->name);
		json_object_put(o);
		return NULL;
	}
	if (je != json_tokener_success) {
		cz_errf(c->err, -EINVAL, "%s: malformed JSON at byte %zu: %s", c->name, end,
			json_tokener_error_desc(je));
		json_object_put(o);
		return NULL;
	}
	for (; end < len; end++) {
		if (text[end] != ' ' && text[end] != '\n' && text[end] != '\r' && text[end] != '\t') {
			cz_errf(c->err, -EINVAL, "%s: malformed JSON: trailing data at byte %zu", c->name, end);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

static int read_file(const char *path, char **text, size_t *len, char *err)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *buf;

	if (!fp)
		return cz_errf(err, -errno, "%s: %s", path, strerror(errno));
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, fp);

		n += got;
		if (n < cap)
			break;
		if (cap >= MAX_FILE) {
			free(buf);
			fclose(fp);
			return cz_errf(err, -EFBIG, "%s: more than %u bytes", path, MAX_FILE);
		}
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb)
			free(buf);
		buf = nb;
	}
	if (!buf) {
		fclose(fp);
		return cz_errf(err, -ENOMEM, "%s: out of memory", path);
	}
	if (ferror(fp)) {
		free(buf);
		fclose(fp);
		return cz_errf(err, -EIO, "%s: read error", path);
	}
	fclose(fp);
	*text = buf;
	*len = n;
	return 0;
}

/* A decimal number (a JSON string of digits, or a non-negative integer). */
static int get_dec(struct jctx *c, struct json_object *o, const char *path, char *out, size_t cap)
{
	const char *s;
	size_t i, n;

	if (json_object_is_type(o, json_type_int)) {
		/* json-c clamps integers beyond 64 bits; accept only those that are
		 * exact in every JSON reader (snarkjs itself writes strings). */
		int64_t v = json_object_get_int64(o);
		if (v < 0)
			return cz_errf(c->err, -EINVAL, "%s: %s: negative number", c->name, path);
		if (v > (INT64_C(1) << 53))
			return cz_errf(c->err, -EINVAL,
				       "%s: %s: integer beyond 2^53, write it as a decimal string",
				       c->name, path);
		snprintf(out, cap, "%" PRId64, v);
		return 0;
	}
	if (!json_object_is_type(o, json_type_string))
		return cz_errf(c->err, -EINVAL, "%s: %s: expected a decimal string", c->name, path);
	s = json_object_get_string(o);
	n = (size_t)json_object_get_string_len(o);
	if (n == 0)
		return cz_errf(c->err, -EINVAL, "%s: %s: empty string, expected a decimal number",
			       c->name, path);
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return cz_errf(c->err, -EINVAL, "%s: %s: \"%.40s\" is not a decimal number",
				       c->name, path, s);
	if (n >= cap)
		return cz_errf(c->err, -EINVAL, "%s: %s: %zu digits, too large for the field", c->name,
			       path, n);
	memcpy(out, s, n + 1);
	return 0;
}

static int get_fp(struct jctx *c, struct json_object *o, const char *path, sj_fp *v)
{
	char d[160];
	int rc = get_dec(c, o, path, d, sizeof(d));

	if (rc)
		return rc;
	if (!F1(from_dec)(v, d))
		return cz_errf(c->err, -EINVAL, "%s: %s: value >= p (the base field modulus)", c->name,
			       path);
	return 0;
}

static int get_fr(struct jctx *c, struct json_object *o, const char *path, sj_fr *v)
{
	char d[160];
	int rc = get_dec(c, o, path, d, sizeof(d));

	if (rc)
		return rc;
	if (!FR(from_dec)(v, d))
		return cz_errf(c->err, -EINVAL, "%s: %s: value >= r (the scalar field modulus)",
			       c->name, path);
	return 0;
}

static struct json_object *get_array(struct jctx *c, struct json_object *o, const char *path,
				     size_t min, size_t max, size_t *n, int *rc)
{
	size_t len;

	if (!o || !json_object_is_type(o, json_type_array)) {
		*rc = cz_errf(c->err, -EINVAL, "%s: %s: %s", c->name, path,
			      o ? "expected an array" : "missing");
		return NULL;
	}
	len = json_object_array_length(o);
	if (len < min || len > max) {
		if (min == max)
			*rc = cz_errf(c->err, -EINVAL, "%s: %s: %zu elements, expected %zu", c->name,
				      path, len, min);
		else
			*rc = cz_errf(c->err, -EINVAL, "%s: %s: %zu elements, expected %zu to %zu",
				      c->name, path, len, min, max);
		return NULL;
	}
	*n = len;
	*rc = 0;
	return o;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* [x, y] or [x, y, z], z = 1 (affine) or 0 (infinity). */
static int get_g1(struct jctx *c, struct json_object *o, const char *path, sj_g1 *P)
{
	char sub[96];
	size_t n = 0;
	sj_fp z;
	int rc;

	if (!get_array(c, o, path, 2, 3, &n, &rc))
		return rc;
	snprintf(sub, sizeof(sub), "%s[0]", path);
	if ((rc = get_fp(c, json_object_array_get_idx(o, 0), sub, &P->x)))
		return rc;
	snprintf(sub, sizeof(sub), "%s[1]", path);
	if ((rc = get_fp(c, json_object_array_get_idx(o, 1), sub, &P->y)))
		return rc;
	z = F1(one);
	snprintf(sub, sizeof(sub), "%s[2]", path);
	if (n == 3 && (rc = get_fp(c, json_object_array_get_idx(o, 2), sub, &z)))
		return rc;
	if (F1(is_zero)(&z)) {
		P->x = F1(zero);
		P->y = F1(zero);
		return 0;
	}
	if (!F1(eq)(&z, &F1(one)))
		return cz_errf(c->err, -EINVAL, "%s: %s: z must be 1 (affine) or 0 (infinity)", c->name,
			       sub);
	if (!G1(affine_on_curve)(P) || G1(affine_is_inf)(P))
		return cz_errf(c->err, -EINVAL, "%s: %s: point not on the curve", c->name, path);
	if (!G1(affine_in_subgroup)(P))
		return cz_errf(c->err, -EINVAL, "%s: %s: point not in the G1 subgroup", c->name, path);
	return 0;
}

static int get_fp2(struct jctx *c, struct json_object *o, const char *path, sj_fp2 *v)
{
	char sub[96];
	size_t n = 0;
	int rc;

	if (!get_array(c, o, path, 2, 2, &n, &rc))
		return rc;
	snprintf(sub, sizeof(sub), "%s[0]", path);
	if ((rc = get_fp(c, json_object_array_get_idx(o, 0), sub, &v->c0)))
		return rc;
	snprintf(sub, sizeof(sub), "%s[1]", path);
	return get_fp(c, json_object_array_get_idx(o, 1), sub, &v->c1);
}

static int get_g2(struct jctx *c, struct json_object *o, const char *path, sj_g2 *P)
{
	char sub[96];
	size_t n = 0;
	sj_fp2 z;
	int rc;

	if (!get_array(c, o, path, 2, 3, &n, &rc))
		return rc;
	snprintf(sub, sizeof(sub), "%s[0]", path);
	if ((rc = get_fp2(c, json_object_array_get_idx(o, 0), sub, &P->x)))
		return rc;
	snprintf(sub, sizeof(sub), "%s[1]", path);
	if ((rc = get_fp2(c, json_object_array_get_idx(o, 1), sub, &P->y)))
		return rc;
	z = F2(one);
	snprintf(sub, sizeof(sub), "%s[2]", path);
	if (n == 3 && (rc = get_fp2(c, json_object_array_get_idx(o, 2), sub, &z)))
		return rc;
	if (F2(is_zero)(&z)) {
		P->x = F2(zero);
		P->y = F2(zero);
		return 0;
	}
	if (!F2(eq)(&z, &F2(one)))
		return cz_errf(c->err, -EINVAL, "%s: %s: z must be [1, 0] (affine) or [0, 0] (infinity)",
			       c->name, sub);
	if (!G2(affine_on_curve)(P) || G2(affine_is_inf)(P))
		return cz_errf(c->err, -EINVAL, "%s: %s: point not on the curve", c->name, path);
	if (!G2(affine_in_subgroup)(P))
		return cz_errf(c->err, -EINVAL, "%s: %s: point not in the G2 subgroup", c->name, path);
	return 0;
}

/* "protocol" and "curve" are optional; when present they must be ours;
 * the other curve's names are recognised to name both in the message. */
static int check_tags(struct jctx *c, struct json_object *o)
{
	struct json_object *v;
	const char *s;

	if ((v = member(o, "protocol"))) {
		s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		if (!s || strcmp(s, "groth16") != 0)
			return cz_errf(c->err, -EINVAL, "%s: protocol: \"%.32s\", expected \"groth16\"",
				       c->name, s ? s : "(not a string)");
	}
	if ((v = member(o, "curve"))) {
		s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		if (s && SJ_OTHER_CURVE(s))
			return cz_errf(c->err, -EINVAL, "%s: curve: \"%s\": curve %s, expected %s",
				       c->name, s, SJ_OTHER_NAME, SJ_CURVE_NAME);
		if (!s || !SJ_OUR_CURVE(s))
			return cz_errf(c->err, -EINVAL, "%s: curve: \"%.32s\", expected \"%s\" (%s)",
				       c->name, s ? s : "(not a string)", SJ_CURVE_TAG, SJ_CURVE_NAME);
	}
	return 0;
}

static int need_object(struct jctx *c, struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return cz_errf(c->err, -EINVAL, "%s: expected a JSON object at the top level", c->name);
	return 0;
}

int SJ(proof_json_parse)(const char *name, const char *text, size_t len,
			struct SJ_PROOF *p, char err[CZ_ERRLEN])
{
	struct jctx c = { name, err };
	struct json_object *o = parse_text(&c, text, len);
	int rc;

	if (!o)
		return -EINVAL;
	if (!(rc = need_object(&c, o)) && !(rc = check_tags(&c, o)) &&
	    !(rc = get_g1(&c, member(o, "pi_a"), "pi_a", &p->a)) &&
	    !(rc = get_g2(&c, member(o, "pi_b"), "pi_b", &p->b)))
		rc = get_g1(&c, member(o, "pi_c"), "pi_c", &p->c);
	json_object_put(o);
	return rc;
}

int SJ(public_json_parse)(const char *name, const char *text, size_t len, sj_fr **vals,
			 size_t *nvals, char err[CZ_ERRLEN])
{
	struct jctx c = { name, err };
	struct json_object *o = parse_text(&c, text, len);
	size_t n = 0, i;
	sj_fr *v;
	int rc;

	*vals = NULL;
	*nvals = 0;
	if (!o)
		return -EINVAL;
	if (!get_array(&c, o, "public", 0, SIZE_MAX, &n, &rc)) {
		json_object_put(o);
		return rc;
	}
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		json_object_put(o);
		return cz_errf(err, -ENOMEM, "%s: out of memory", name);
	}
	for (i = 0; i < n; i++) {
		char path[48];

		snprintf(path, sizeof(path), "public[%zu]", i);
		if ((rc = get_fr(&c, json_object_array_get_idx(o, i), path, &v[i]))) {
			free(v);
			json_object_put(o);
			return rc;
		}
	}
	json_object_put(o);
	*vals = v;
	*nvals = n;
	return 0;
}

/* vk_alphabeta_12: [[[a, b] x3] x2], 12 elements < p (not otherwise checked). */
static int get_alphabeta(struct jctx *c, struct json_object *o, sj_fp ab[12])
{
	size_t n = 0;
	int rc, i, j;

	if (!get_array(c, o, "vk_alphabeta_12", 2, 2, &n, &rc))
		return rc;
	for (i = 0; i < 2; i++) {
		char path[64];
		struct json_object *oi = json_object_array_get_idx(o, (size_t)i);

		snprintf(path, sizeof(path), "vk_alphabeta_12[%d]", i);
		if (!get_array(c, oi, path, 3, 3, &n, &rc))
			return rc;
		for (j = 0; j < 3; j++) {
			sj_fp2 v;

			snprintf(path, sizeof(path), "vk_alphabeta_12[%d][%d]", i, j);
			if ((rc = get_fp2(c, json_object_array_get_idx(oi, (size_t)j), path, &v)))
				return rc;
			ab[(i * 3 + j) * 2] = v.c0;
			ab[(i * 3 + j) * 2 + 1] = v.c1;
		}
	}
	return 0;
}

int SJ(groth16_vk_json_parse)(const char *name, const char *text, size_t len,
			     struct SJ_VK *vk, char err[CZ_ERRLEN])
{
	struct jctx c = { name, err };
	struct json_object *o = parse_text(&c, text, len), *np, *ic, *ab;
	size_t n = 0, i;
	int64_t npub;
	int rc;

	memset(vk, 0, sizeof(*vk));
	if (!o)
		return -EINVAL;
	if ((rc = need_object(&c, o)) || (rc = check_tags(&c, o)))
		goto out;
	np = member(o, "nPublic");
	if (!np || !json_object_is_type(np, json_type_int) ||
	    (npub = json_object_get_int64(np)) < 0 || npub > (1 << 24)) {
		rc = cz_errf(err, -EINVAL, "%s: nPublic: %s", name,
			     np ? "expected a non-negative integer (at most 2^24)" : "missing");
		goto out;
	}
	vk->n_public = (uint32_t)npub;
	if ((rc = get_g1(&c, member(o, "vk_alpha_1"), "vk_alpha_1", &vk->alpha1)) ||
	    (rc = get_g2(&c, member(o, "vk_beta_2"), "vk_beta_2", &vk->beta2)) ||
	    (rc = get_g2(&c, member(o, "vk_gamma_2"), "vk_gamma_2", &vk->gamma2)) ||
	    (rc = get_g2(&c, member(o, "vk_delta_2"), "vk_delta_2", &vk->delta2)))
		goto out;
	if ((ab = member(o, "vk_alphabeta_12"))) {
		if ((rc = get_alphabeta(&c, ab, vk->alphabeta)))
			goto out;
		vk->have_alphabeta = true;
	}
	ic = member(o, "IC");
	if (ic && json_object_is_type(ic, json_type_array) &&
	    json_object_array_length(ic) != (size_t)vk->n_public + 1) {
		rc = cz_errf(err, -EINVAL, "%s: IC: %zu points, but nPublic = %u needs %u", name,
			     json_object_array_length(ic), vk->n_public, vk->n_public + 1);
		goto out;
	}
	if (!get_array(&c, ic, "IC", (size_t)vk->n_public + 1, (size_t)vk->n_public + 1, &n, &rc))
		goto out;
	vk->ic = malloc(n * sizeof(*vk->ic));
	if (!vk->ic) {
		rc = cz_errf(err, -ENOMEM, "%s: out of memory", name);
		goto out;
	}
	for (i = 0; i < n; i++) {
		char path[48];

		snprintf(path, sizeof(path), "IC[%zu]", i);
		if ((rc = get_g1(&c, json_object_array_get_idx(ic, i), path, &vk->ic[i])))
			goto out;
	}
out:
	if (rc)
		SJ(groth16_vk_free)(vk);
	json_object_put(o);
	return rc;
}

int SJ(proof_json_read)(const char *path, struct SJ_PROOF *p, char err[CZ_ERRLEN])
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len, err);

	if (rc)
		return rc;
	rc = SJ(proof_json_parse)(path, text, len, p, err);
	free(text);
	return rc;
}

int SJ(public_json_read)(const char *path, sj_fr **vals, size_t *n, char err[CZ_ERRLEN])
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len, err);

	if (rc)
		return rc;
	rc = SJ(public_json_parse)(path, text, len, vals, n, err);
	free(text);
	return rc;
}

int SJ(groth16_vk_json_read)(const char *path, struct SJ_VK *vk, char err[CZ_ERRLEN])
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len, err);

	if (rc)
		return rc;
	rc = SJ(groth16_vk_json_parse)(path, text, len, vk, err);
	free(text);
	return rc;
}

/* ---- writing: JSON.stringify(value, null, 1) ---- */

struct out {
	char *s;
	size_t len, cap;
	bool oom;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 1024;
		char *ns;

		while (o->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(o->s, cap);
		if (!ns) {
			o->oom = true;
			return;
		}
		o->s = ns;
		o->cap = cap;
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = 0;
}

static void emits(struct out *o, const char *s)
{
	emit(o, s, strlen(s));
}

static void indent(struct out *o, int depth)
{
	emit(o, "\n", 1);
	for (int i = 0; i < depth; i++)
		emit(o, " ", 1);
}

/* Our writers build a json-c tree, then print it in snarkjs's layout. */
static void print(struct out *o, struct json_object *v, int depth)
{
	char buf[32];

	switch (json_object_get_type(v)) {
	case json_type_array: {
		size_t n = json_object_array_length(v);

		if (!n) {
			emits(o, "[]");
			break;
		}
		emits(o, "[");
		for (size_t i = 0; i < n; i++) {
			indent(o, depth + 1);
			print(o, json_object_array_get_idx(v, i), depth + 1);
			if (i + 1 < n)
				emits(o, ",");
		}
		indent(o, depth);
		emits(o, "]");
		break;
	}
	case json_type_object: {
		bool first = true;

		emits(o, "{");
		json_object_object_foreach(v, key, val) {
			if (!first)
				emits(o, ",");
			first = false;
			indent(o, depth + 1);
			emits(o, "\"");
			emits(o, key);
			emits(o, "\": ");
			print(o, val, depth + 1);
		}
		if (!first)
			indent(o, depth);
		emits(o, "}");
		break;
	}
	case json_type_int:
		snprintf(buf, sizeof(buf), "%" PRId64, json_object_get_int64(v));
		emits(o, buf);
		break;
	default: /* strings: ours are digits and plain names, no escapes needed */
		emits(o, "\"");
		emits(o, json_object_get_string(v));
		emits(o, "\"");
		break;
	}
}

static struct json_object *jfp(const sj_fp *a)
{
	char d[CZ_FP_LIMBS * 20 + 2];

	F1(to_dec)(d, sizeof(d), a);
	return json_object_new_string(d);
}

static struct json_object *jfr(const sj_fr *a)
{
	char d[CZ_FR_LIMBS * 20 + 2];

	FR(to_dec)(d, sizeof(d), a);
	return json_object_new_string(d);
}

static struct json_object *jfp2(const sj_fp2 *a)
{
	struct json_object *r = json_object_new_array();

	json_object_array_add(r, jfp(&a->c0));
	json_object_array_add(r, jfp(&a->c1));
	return r;
}

/* snarkjs writes infinity as [0, 1, 0]. */
static struct json_object *jg1(const sj_g1 *p)
{
	struct json_object *r = json_object_new_array();
	bool inf = G1(affine_is_inf)(p);

	json_object_array_add(r, jfp(inf ? &F1(zero) : &p->x));
	json_object_array_add(r, jfp(inf ? &F1(one) : &p->y));
	json_object_array_add(r, jfp(inf ? &F1(zero) : &F1(one)));
	return r;
}

static struct json_object *jg2(const sj_g2 *p)
{
	struct json_object *r = json_object_new_array();
	bool inf = G2(affine_is_inf)(p);

	json_object_array_add(r, jfp2(inf ? &F2(zero) : &p->x));
	json_object_array_add(r, jfp2(inf ? &F2(one) : &p->y));
	json_object_array_add(r, jfp2(inf ? &F2(zero) : &F2(one)));
	return r;
}

static char *finish_text(struct json_object *root, char *err)
{
	struct out o = { 0 };

	print(&o, root, 0);
	json_object_put(root);
	if (o.oom || !o.s) {
		free(o.s);
		cz_errf(err, -ENOMEM, "out of memory formatting JSON");
		return NULL;
	}
	return o.s;
}

/* ---- rendering into a caller's buffer: the same layout, no allocation ---- */

struct rbuf {
	char *p;
	size_t len, cap;
};

static void rput(struct rbuf *b, const char *s, size_t n)
{
	if (b->len < b->cap) {
		size_t k = b->cap - 1 - b->len < n ? b->cap - 1 - b->len : n;
		memcpy(b->p + b->len, s, k);
		b->p[b->len + k] = 0;
	}
	b->len += n;
}

static void rputs(struct rbuf *b, const char *s)
{
	rput(b, s, strlen(s));
}

static void rnl(struct rbuf *b, int depth)
{
	static const char sp[] = "\n        ";
	rput(b, sp, 1 + (size_t)depth);   /* depth <= 8 here */
}

static void rdec(struct rbuf *b, const char *d, int depth, bool last)
{
	rnl(b, depth);
	rputs(b, "\"");
	rputs(b, d);
	rputs(b, last ? "\"" : "\",");
}

static void rfp(struct rbuf *b, const sj_fp *a, int depth, bool last)
{
	char d[sizeof(sj_fp) / 8 * 20 + 2];
	F1(to_dec)(d, sizeof(d), a);
	rdec(b, d, depth, last);
}

static void rg1(struct rbuf *b, const sj_g1 *p, int depth)
{
	bool inf = G1(affine_is_inf)(p);
	rputs(b, "[");
	rfp(b, inf ? &F1(zero) : &p->x, depth + 1, false);
	rfp(b, inf ? &F1(one) : &p->y, depth + 1, false);
	rfp(b, inf ? &F1(zero) : &F1(one), depth + 1, true);
	rnl(b, depth);
	rputs(b, "]");
}

static void rfp2(struct rbuf *b, const sj_fp2 *a, int depth, bool last)
{
	rnl(b, depth);
	rputs(b, "[");
	rfp(b, &a->c0, depth + 1, false);
	rfp(b, &a->c1, depth + 1, true);
	rnl(b, depth);
	rputs(b, last ? "]" : "],");
}

static void rg2(struct rbuf *b, const sj_g2 *p, int depth)
{
	bool inf = G2(affine_is_inf)(p);
	rputs(b, "[");
	rfp2(b, inf ? &F2(zero) : &p->x, depth + 1, false);
	rfp2(b, inf ? &F2(one) : &p->y, depth + 1, false);
	rfp2(b, inf ? &F2(zero) : &F2(one), depth + 1, true);
	rnl(b, depth);
	rputs(b, "]");
}

size_t SJ(proof_json_render)(char *buf, size_t cap, const struct SJ_PROOF *p)
{
	struct rbuf b = { buf, 0, cap };

	if (cap)
		buf[0] = 0;
	rputs(&b, "{");
	rnl(&b, 1);
	rputs(&b, "\"pi_a\": ");
	rg1(&b, &p->a, 1);
	rputs(&b, ",");
	rnl(&b, 1);
	rputs(&b, "\"pi_b\": ");
	rg2(&b, &p->b, 1);
	rputs(&b, ",");
	rnl(&b, 1);
	rputs(&b, "\"pi_c\": ");
	rg1(&b, &p->c, 1);
	rputs(&b, ",");
	rnl(&b, 1);
	rputs(&b, "\"protocol\": \"groth16\",");
	rnl(&b, 1);
	rputs(&b, "\"curve\": \"" SJ_CURVE_TAG "\"");
	rnl(&b, 0);
	rputs(&b, "}");
	return b.len;
}

size_t SJ(public_json_render)(char *buf, size_t cap, const sj_fr *vals, size_t n)
{
	struct rbuf b = { buf, 0, cap };
	char d[sizeof(sj_fr) / 8 * 20 + 2];

	if (cap)
		buf[0] = 0;
	if (!n) {
		rputs(&b, "[]");
		return b.len;
	}
	rputs(&b, "[");
	for (size_t i = 0; i < n; i++) {
		FR(to_dec)(d, sizeof(d), &vals[i]);
		rdec(&b, d, 1, i + 1 == n);
	}
	rnl(&b, 0);
	rputs(&b, "]");
	return b.len;
}

char *SJ(proof_json_format)(const struct SJ_PROOF *p, char err[CZ_ERRLEN])
{
	struct json_object *r = json_object_new_object();

	json_object_object_add(r, "pi_a", jg1(&p->a));
	json_object_object_add(r, "pi_b", jg2(&p->b));
	json_object_object_add(r, "pi_c", jg1(&p->c));
	json_object_object_add(r, "protocol", json_object_new_string("groth16"));
	json_object_object_add(r, "curve", json_object_new_string(SJ_CURVE_TAG));
	return finish_text(r, err);
}

char *SJ(public_json_format)(const sj_fr *vals, size_t n, char err[CZ_ERRLEN])
{
	struct json_object *r = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(r, jfr(&vals[i]));
	return finish_text(r, err);
}

char *SJ(groth16_vk_json_format)(const struct SJ_VK *vk, char err[CZ_ERRLEN])
{
	struct json_object *r = json_object_new_object(), *ic;

	json_object_object_add(r, "protocol", json_object_new_string("groth16"));
	json_object_object_add(r, "curve", json_object_new_string(SJ_CURVE_TAG));
	json_object_object_add(r, "nPublic", json_object_new_int64(vk->n_public));
	json_object_object_add(r, "vk_alpha_1", jg1(&vk->alpha1));
	json_object_object_add(r, "vk_beta_2", jg2(&vk->beta2));
	json_object_object_add(r, "vk_gamma_2", jg2(&vk->gamma2));
	json_object_object_add(r, "vk_delta_2", jg2(&vk->delta2));
	if (vk->have_alphabeta) {
		struct json_object *ab = json_object_new_array();

		for (int i = 0; i < 2; i++) {
			struct json_object *row = json_object_new_array();

			for (int j = 0; j < 3; j++) {
				sj_fp2 v = { vk->alphabeta[(i * 3 + j) * 2], vk->alphabeta[(i * 3 + j) * 2 + 1] };
				json_object_array_add(row, jfp2(&v));
			}
			json_object_array_add(ab, row);
		}
		json_object_object_add(r, "vk_alphabeta_12", ab);
	}
	ic = json_object_new_array();
	for (uint32_t i = 0; i <= vk->n_public; i++)
		json_object_array_add(ic, jg1(&vk->ic[i]));
	json_object_object_add(r, "IC", ic);
	return finish_text(r, err);
}

static int write_text(const char *path, char *text, char *err)
{
	int rc;

	if (!text)
		return -ENOMEM;
	rc = cz_outfile_write(path, text, strlen(text), err);
	free(text);
	return rc;
}

int SJ(proof_json_write)(const char *path, const struct SJ_PROOF *p, char err[CZ_ERRLEN])
{
	return write_text(path, SJ(proof_json_format)(p, err), err);
}

int SJ(public_json_write)(const char *path, const sj_fr *vals, size_t n, char err[CZ_ERRLEN])
{
	return write_text(path, SJ(public_json_format)(vals, n, err), err);
}

int SJ(groth16_vk_json_write)(const char *path, const struct SJ_VK *vk, char err[CZ_ERRLEN])
{
	return write_text(path, SJ(groth16_vk_json_format)(vk, err), err);
}
