/* SPDX-License-Identifier: MIT */
/*
 * zk/io/wtns_tmpl_pvt.h — the .wtns reader and writer (format in zk/io/wtns.h),
 * written once over the scalar field; private to zk/io/wtns.c (BLS12-381:
 * cz_wtns_*) and zk/io/bn254_wtns.c (BN254: cz_bn254_wtns_*).  The includer
 * defines WT(n) (public names: cz_wtns_##n), WT_T (the struct tag), WT_FR
 * (the field prefix and type), WT_FR_BYTES and WT_PRIME (the expected
 * prime, enum cz_iden3_prime).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/io/outfile.h"

#define WT_CAT2(a, b) a##_##b
#define WT_CAT(a, b) WT_CAT2(a, b)
#define FR(n) WT_CAT(WT_FR, n)
typedef WT_FR wt_fr;

static int parse(struct WT_T *w, char *err)
{
	struct cz_iden3_rd r;
	uint64_t i;
	int rc;

	if ((rc = cz_iden3_rd_open(&r, &w->f, 1, "header", err)) ||
	    (rc = cz_iden3_rd_prime(&r, "q", WT_PRIME)) ||
	    (rc = cz_iden3_rd_u32(&r, "nWitness", &w->n)) || (rc = cz_iden3_rd_end(&r)))
		return rc;
	if ((rc = cz_iden3_rd_open(&r, &w->f, 2, "values", err)))
		return rc;
	if (r.left != (uint64_t)w->n * WT_FR_BYTES)
		return cz_iden3_rd_fail(&r, -EINVAL, "size",
					"%" PRIu64 " bytes, but nWitness = %u needs %" PRIu64,
					r.left, w->n, (uint64_t)w->n * WT_FR_BYTES);
	w->values = r.p;
	for (i = 0; i < w->n; i++) {
		wt_fr v;

		if (!FR(from_bytes_le)(&v, w->values + i * WT_FR_BYTES))
			return cz_errf(err, -EINVAL, "%s: section 2 (values): witness %" PRIu64 ": value >= r",
				       w->f.name, i);
	}
	if (w->n == 0)
		return cz_errf(err, -EINVAL, "%s: section 1 (header): field nWitness: 0 (needs the constant 1)",
			       w->f.name);
	{
		wt_fr v0;

		FR(from_bytes_le)(&v0, w->values);
		if (!FR(eq)(&v0, &FR(one)))
			return cz_errf(err, -EINVAL,
				       "%s: section 2 (values): witness 0: not 1 (the constant signal)",
				       w->f.name);
	}
	return 0;
}

static struct WT_T *finish(struct WT_T *w, char *err)
{
	if (parse(w, err)) {
		WT(close)(w);
		return NULL;
	}
	return w;
}

struct WT_T *WT(open)(const char *path, char err[CZ_ERRLEN])
{
	struct WT_T *w = calloc(1, sizeof(*w));

	if (!w) {
		cz_errf(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (cz_iden3_open(&w->f, path, "wtns", 1, 2, err)) {
		free(w);
		return NULL;
	}
	return finish(w, err);
}

struct WT_T *WT(open_mem)(const char *name, const void *data, size_t size,
				 char err[CZ_ERRLEN])
{
	struct WT_T *w = calloc(1, sizeof(*w));

	if (!w) {
		cz_errf(err, -ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (cz_iden3_open_mem(&w->f, name, data, size, "wtns", 1, 2, err)) {
		free(w);
		return NULL;
	}
	return finish(w, err);
}

void WT(close)(struct WT_T *w)
{
	if (!w)
		return;
	cz_iden3_close(&w->f);
	free(w);
}

int WT(get)(const struct WT_T *w, uint64_t first, size_t n, wt_fr *out,
		char err[CZ_ERRLEN])
{
	size_t i;

	if (first > w->n || n > w->n - first)
		return cz_errf(err, -ERANGE, "%s: witness [%" PRIu64 ", +%zu) out of %u", w->f.name,
			       first, n, w->n);
	for (i = 0; i < n; i++)
		if (!FR(from_bytes_le)(&out[i], w->values + (first + i) * WT_FR_BYTES))
			return cz_errf(err, -EINVAL, "%s: section 2 (values): witness %" PRIu64 ": value >= r",
				       w->f.name, first + i);
	return 0;
}

static void le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static void sec_hdr(uint8_t *b, uint32_t type, uint64_t size)
{
	le32(b, type);
	le32(b + 4, (uint32_t)size);
	le32(b + 8, (uint32_t)(size >> 32));
}

int WT(write)(const char *path, const wt_fr *vals, uint32_t n, char err[CZ_ERRLEN])
{
	uint8_t hdr[12 + 12 + 4 + WT_FR_BYTES + 4 + 12], b[WT_FR_BYTES];
	struct cz_outfile o;
	wt_fr m1;
	bool bad = false;
	uint32_t i;
	int rc;

	memcpy(hdr, "wtns", 4);
	le32(hdr + 4, 2);
	le32(hdr + 8, 2);
	sec_hdr(hdr + 12, 1, 4 + WT_FR_BYTES + 4);
	le32(hdr + 24, WT_FR_BYTES);
	/* r = (r - 1) + 1, from the field code. */
	FR(neg)(&m1, &FR(one));
	FR(to_bytes_le)(hdr + 28, &m1);
	for (i = 0; i < WT_FR_BYTES && ++hdr[28 + i] == 0; i++)
		;
	le32(hdr + 28 + WT_FR_BYTES, n);
	sec_hdr(hdr + 32 + WT_FR_BYTES, 2, (uint64_t)n * WT_FR_BYTES);

	rc = cz_outfile_open(&o, path, err);
	if (rc)
		return rc;
	bad = fwrite(hdr, 1, sizeof(hdr), o.fp) != sizeof(hdr);
	for (i = 0; i < n && !bad; i++) {
		FR(to_bytes_le)(b, &vals[i]);
		bad = fwrite(b, 1, sizeof(b), o.fp) != sizeof(b);
	}
	return cz_outfile_commit(&o, bad, err);
}

#undef FR
