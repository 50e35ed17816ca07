/* SPDX-License-Identifier: MIT */
/*
 * zk/io/r1cs.c — .r1cs reader (format in r1cs.h), both curves: the header's
 * prime says which, each term's value is checked < that curve's r.
 */
#include "zk/io/r1cs.h"
#include "zk/field/bn254_fr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TERM_BYTES (4 + CZ_FR_BYTES)

static const char *const lc_names[3] = { "A", "B", "C" };

/* Where the loader stores one matrix: values are 32-byte Montgomery
 * elements of the file's curve (cz_fr or cz_bn254_fr). */
struct r1cs_out {
	uint64_t *start;
	uint32_t *wire;
	uint8_t *value;
};

/* A term's value < r of the file's curve, into v (Montgomery limbs). */
static bool value_in(const struct cz_r1cs *r, uint64_t v[4], const uint8_t *le)
{
	if (r->curve == CZ_CURVE_BN254)
		return cz_bn254_fr_from_bytes_le((cz_bn254_fr *)v, le);
	return cz_fr_from_bytes_le((cz_fr *)v, le);
}

/* Walks section 2; with m != NULL also stores the terms.  The open-time walk
 * has checked everything, but the loader re-checks: it costs nothing next to
 * the conversion and keeps the loader safe on its own. */
static int walk(const struct cz_r1cs *r, struct r1cs_out *m, uint64_t n_terms[3], char *err)
{
	struct cz_iden3_rd rd;
	uint64_t pos[3] = { 0, 0, 0 };
	uint32_t c;
	int rc, k;

	if ((rc = cz_iden3_rd_open(&rd, &r->f, 2, "constraints", err)))
		return rc;
	for (c = 0; c < r->n_constraints; c++) {
		for (k = 0; k < 3; k++) {
			const uint8_t *t = NULL;
			char field[64];
			uint32_t n, i;

			/* Field names are formatted only on the error paths: this loop
			 * runs once per term of the circuit. */
			if (rd.left < 4 || cz_le32(rd.p) > (rd.left - 4) / TERM_BYTES) {
				snprintf(field, sizeof(field), "constraint %u %s nTerms", c, lc_names[k]);
				if ((rc = cz_iden3_rd_u32(&rd, field, &n)))
					return rc;
				return cz_iden3_rd_array(&rd, field, n, TERM_BYTES, &t);
			}
			cz_iden3_rd_u32(&rd, "nTerms", &n);
			cz_iden3_rd_array(&rd, "terms", n, TERM_BYTES, &t);
			if (m)
				m[k].start[c] = pos[k];
			for (i = 0; i < n; i++, t += TERM_BYTES) {
				uint32_t wire = cz_le32(t);
				uint64_t v[4];
				const char *bad = NULL;

				if (wire >= r->n_wires)
					bad = "wire";
				else if (!value_in(r, v, t + 4))
					bad = "value";
				else if (m && pos[k] >= r->n_terms[k])
					bad = "count";
				if (bad) {
					snprintf(field, sizeof(field), "constraint %u %s term %u", c,
						 lc_names[k], i);
					if (bad[0] == 'w')
						return cz_iden3_rd_fail(&rd, -EINVAL, field,
									"wire %u >= nWires %u", wire,
									r->n_wires);
					if (bad[0] == 'v')
						return cz_iden3_rd_fail(&rd, -EINVAL, field, "value >= r");
					return cz_iden3_rd_fail(&rd, -EIO, field, "file changed while open");
				}
				if (m) {
					m[k].wire[pos[k]] = wire;
					memcpy(m[k].value + pos[k] * 32, v, 32);
				}
				pos[k]++;
			}
		}
	}
	if (m)
		for (k = 0; k < 3; k++)
			m[k].start[r->n_constraints] = pos[k];
	if (n_terms)
		memcpy(n_terms, pos, sizeof(pos));
	return cz_iden3_rd_end(&rd);
}

/* want: the curve the caller expects, or 0 for either (then the file's
 * prime says which). */
static int parse(struct cz_r1cs *r, enum cz_curve want, char *err)
{
	struct cz_iden3_rd rd;
	const struct cz_iden3_sec *s;
	int rc;

	if ((rc = cz_iden3_rd_open(&rd, &r->f, 1, "header", err)))
		return rc;
	if (want) {
		rc = cz_iden3_rd_prime(&rd, "prime", want == CZ_CURVE_BN254 ? CZ_PRIME_BN254_R
									  : CZ_PRIME_BLS12_381_R);
		r->curve = want;
	} else {
		const uint8_t *q = NULL;
		uint32_t n8 = 0;
		enum cz_iden3_prime which;
		if (!(rc = cz_iden3_rd_u32(&rd, "n8", &n8)) &&
		    !(rc = cz_iden3_rd_bytes(&rd, "prime", n8, &q))) {
			if (cz_iden3_prime_find(q, n8, &which) ||
			    (which != CZ_PRIME_BN254_R && which != CZ_PRIME_BLS12_381_R))
				rc = cz_iden3_rd_fail(&rd, -EINVAL, "prime",
						      "not the scalar field of BLS12-381 or bn128/BN254 (%u bytes)",
						      n8);
			else
				r->curve = cz_iden3_prime_curve(which);
		}
	}
	if (rc ||
	    (rc = cz_iden3_rd_u32(&rd, "nWires", &r->n_wires)) ||
	    (rc = cz_iden3_rd_u32(&rd, "nPubOut", &r->n_pub_out)) ||
	    (rc = cz_iden3_rd_u32(&rd, "nPubIn", &r->n_pub_in)) ||
	    (rc = cz_iden3_rd_u32(&rd, "nPrvIn", &r->n_prv_in)) ||
	    (rc = cz_iden3_rd_u64(&rd, "nLabels", &r->n_labels)) ||
	    (rc = cz_iden3_rd_u32(&rd, "nConstraints", &r->n_constraints)) ||
	    (rc = cz_iden3_rd_end(&rd)))
		return rc;
	if (r->n_wires == 0 ||
	    (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in + 1 > r->n_wires)
		return cz_errf(err, -EINVAL,
			       "%s: section 1 (header): field nWires: %u, fewer than 1 + nPubOut %u + nPubIn %u + nPrvIn %u",
			       r->f.name, r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
	if ((rc = cz_iden3_section(&r->f, 2, "constraints", &s, err)))
		return rc;
	r->constraints = r->f.data + s->off;
	r->constraints_size = s->size;
	if ((rc = walk(r, NULL, r->n_terms, err)))
		return rc;
	rc = cz_iden3_section(&r->f, 3, "wire to label map", &s, err);
	if (rc == -ENOENT) {
		err[0] = 0;
		return 0;
	}
	if (rc)
		return rc;
	if (s->size != (uint64_t)r->n_wires * 8)
		return cz_errf(err, -EINVAL,
			       "%s: section 3 (wire to label map): field size: %" PRIu64
			       " bytes, nWires = %u needs %" PRIu64,
			       r->f.name, s->size, r->n_wires, (uint64_t)r->n_wires * 8);
	r->labels = r->f.data + s->off;
	return 0;
}

static struct cz_r1cs *finish(struct cz_r1cs *r, enum cz_curve want, char *err)
{
	if (parse(r, want, err)) {
		cz_r1cs_close(r);
		return NULL;
	}
	return r;
}

struct cz_r1cs *cz_r1cs_open(const char *path, char err[CZ_ERRLEN])
{
	return cz_r1cs_open_curve(path, CZ_CURVE_BLS12_381, err);
}

struct cz_r1cs *cz_r1cs_open_curve(const char *path, enum cz_curve want, char err[CZ_ERRLEN])
{
	struct cz_r1cs *r = calloc(1, sizeof(*r));

	if (!r) {
		cz_errf(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (cz_iden3_open(&r->f, path, "r1cs", 1, 1, err)) {
		free(r);
		return NULL;
	}
	return finish(r, want, err);
}

struct cz_r1cs *cz_r1cs_open_mem(const char *name, const void *data, size_t size,
				 char err[CZ_ERRLEN])
{
	struct cz_r1cs *r = calloc(1, sizeof(*r));

	if (!r) {
		cz_errf(err, -ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (cz_iden3_open_mem(&r->f, name, data, size, "r1cs", 1, 1, err)) {
		free(r);
		return NULL;
	}
	return finish(r, CZ_CURVE_BLS12_381, err);
}

void cz_r1cs_close(struct cz_r1cs *r)
{
	if (!r)
		return;
	cz_iden3_close(&r->f);
	free(r);
}

/* Both curves' matrices: the same fields, values 32 bytes each. */
#define R1CS_LOADER(MAT, LOAD, FREE, CURVE)                                             \
	void FREE(struct MAT m[3])                                                      \
	{                                                                               \
		for (int k = 0; k < 3; k++) {                                           \
			free(m[k].start);                                               \
			free(m[k].wire);                                                \
			free(m[k].value);                                               \
			memset(&m[k], 0, sizeof(m[k]));                                 \
		}                                                                       \
	}                                                                               \
	int LOAD(const struct cz_r1cs *r, struct MAT m[3], char err[CZ_ERRLEN])         \
	{                                                                               \
		struct r1cs_out o[3];                                                   \
		int k, rc;                                                              \
                                                                                        \
		memset(m, 0, 3 * sizeof(*m));                                           \
		if (r->curve != CURVE)                                                  \
			return cz_errf(err, -EINVAL, "%s: curve %s, expected %s", r->f.name, \
				       cz_curve_name(r->curve), cz_curve_name(CURVE));  \
		for (k = 0; k < 3; k++) {                                               \
			size_t nt = (size_t)r->n_terms[k];                              \
                                                                                        \
			m[k].start = malloc(((size_t)r->n_constraints + 1) * sizeof(*m[k].start)); \
			m[k].wire = malloc((nt ? nt : 1) * sizeof(*m[k].wire));         \
			m[k].value = malloc((nt ? nt : 1) * sizeof(*m[k].value));       \
			if (!m[k].start || !m[k].wire || !m[k].value) {                 \
				FREE(m);                                                \
				return cz_errf(err, -ENOMEM, "%s: out of memory for %zu terms", \
					       r->f.name, nt);                          \
			}                                                               \
			o[k].start = m[k].start;                                        \
			o[k].wire = m[k].wire;                                          \
			o[k].value = (uint8_t *)m[k].value;                             \
		}                                                                       \
		rc = walk(r, o, NULL, err);                                             \
		if (rc)                                                                 \
			FREE(m);                                                        \
		return rc;                                                              \
	}

_Static_assert(sizeof(cz_fr) == 32 && sizeof(cz_bn254_fr) == 32, "32-byte values");
R1CS_LOADER(cz_r1cs_matrix, cz_r1cs_load, cz_r1cs_matrices_free, CZ_CURVE_BLS12_381)
R1CS_LOADER(cz_bn254_r1cs_matrix, cz_bn254_r1cs_load, cz_bn254_r1cs_matrices_free, CZ_CURVE_BN254)

int cz_r1cs_label(const struct cz_r1cs *r, uint32_t wire, uint64_t *label)
{
	if (!r->labels)
		return -ENOENT;
	if (wire >= r->n_wires)
		return -ERANGE;
	*label = cz_le64(r->labels + (uint64_t)wire * 8);
	return 0;
}
