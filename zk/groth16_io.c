/* SPDX-License-Identifier: MIT */
/* zk/groth16_io.c — .zkey and .wtns to and from the prover's forms. */
#include "zk/groth16_io.h"
#include "zk/snarkjs_json.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#include "zk/bls12_381.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

/* The element whose Montgomery form is R²: multiplying Mont(v) by it gives
 * v·R² mod r, the form in which synthesis wants coefficients. */
static void fr_rr(cz_fr *rr)
{
	cz_fr_to_mont(rr, cz_fr_one.l);         /* one's limbs are R mod r */
}

/* Drops a converted section's pages from this process's RSS: without it
 * the key is resident twice at the end of the load (the file's bytes and
 * the copy), and peak RSS is 2× the .zkey instead of 1×.  Only for the
 * anonymous memory cz_iden3_open() read the file into (a caller's buffer
 * is left alone): its pages read as zero afterwards, so a section is
 * released only once nothing reads it again.  point_bytes: the file's size
 * of one point (G1: x, y). */
#define G1B (2 * CZ_FP_BYTES)
static void release(const struct cz_zkey *z, enum cz_zkey_section sec, size_t point_bytes)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)z->sec[sec], b = a + z->count[sec] * point_bytes;

	if (!z->f.mapped || !z->sec[sec])
		return;
	a = (a + pg - 1) & ~(pg - 1);   /* whole pages inside the section only */
	b &= ~(pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static int load_points(struct cz_groth16_key *k, const struct cz_zkey *z, struct cz_pool *pool,
		       char *e)
{
	uint64_t nv = k->nvars, n = 1ull << k->log2n, npc = (uint64_t)k->npub + 1;
	size_t g1 = sizeof(cz_g1_affine);

	k->ic = malloc(npc * g1);
	k->a = malloc(nv * g1);
	k->b1 = malloc(nv * g1);
	k->b2 = malloc(nv * sizeof(cz_g2_affine));
	k->c = malloc((nv - npc) * g1);
	k->h = malloc(n * g1);
	k->coefs = malloc((size_t)z->n_coefs * sizeof(*k->coefs));
	if (!k->ic || !k->a || !k->b1 || !k->b2 || !k->c || !k->h || !k->coefs)
		return cz_errf(e, -ENOMEM, "%s: out of memory for the key", z->f.name);
	int rc;
	if ((rc = cz_zkey_g1(z, CZ_ZKEY_IC, 0, npc, k->ic, e)) ||
	    (rc = cz_zkey_g1_pool(z, CZ_ZKEY_A, 0, nv, k->a, pool, e)) ||
	    (release(z, CZ_ZKEY_A, G1B), rc = cz_zkey_g1_pool(z, CZ_ZKEY_B1, 0, nv, k->b1, pool, e)) ||
	    (release(z, CZ_ZKEY_B1, G1B), rc = cz_zkey_g2_pool(z, CZ_ZKEY_B2, 0, nv, k->b2, pool, e)) ||
	    (release(z, CZ_ZKEY_B2, 2 * G1B),
	     rc = cz_zkey_g1_pool(z, CZ_ZKEY_C, 0, nv - npc, k->c, pool, e)) ||
	    (release(z, CZ_ZKEY_C, G1B), rc = cz_zkey_g1_pool(z, CZ_ZKEY_H, 0, n, k->h, pool, e)))
		return rc;
	release(z, CZ_ZKEY_H, G1B);
	return 0;
}

static int load_coefs(struct cz_groth16_key *k, const struct cz_zkey *z, char *e)
{
	enum { CHUNK = 4096 };
	struct cz_zkey_coef buf[CHUNK];
	cz_fr rr;
	int rc;

	fr_rr(&rr);
	k->ncoefs = z->n_coefs;
	for (size_t first = 0; first < k->ncoefs; first += CHUNK) {
		size_t m = k->ncoefs - first < CHUNK ? k->ncoefs - first : CHUNK;
		if ((rc = cz_zkey_coefs(z, first, m, buf, e)))
			return rc;
		for (size_t i = 0; i < m; i++) {
			struct cz_groth16_coef *c = &k->coefs[first + i];
			c->matrix = buf[i].matrix;
			c->row = buf[i].constraint;
			c->var = buf[i].signal;
			cz_fr_mul(&c->value, &buf[i].value, &rr);
		}
	}
	return 0;
}

int cz_groth16_key_load(struct cz_groth16_key *k, const char *path, struct cz_pool *pool,
			char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	struct cz_zkey *z = cz_zkey_open_flags(path, CZ_ZKEY_CHECK_COEFS, e);
	int rc = -EINVAL;

	memset(k, 0, sizeof(*k));
	if (z) {
		k->nvars = z->n_vars;
		k->npub = z->n_public;
		k->log2n = z->log2_domain;
		k->alpha1 = z->alpha1, k->beta1 = z->beta1, k->delta1 = z->delta1;
		k->beta2 = z->beta2, k->gamma2 = z->gamma2, k->delta2 = z->delta2;
		rc = load_points(k, z, pool, e);
		if (!rc)
			rc = load_coefs(k, z, e);
		if (!rc)
			cz_groth16_key_index(k);   /* failure only costs parallel synthesis */
		cz_zkey_close(z);
	}
	if (rc)
		cz_groth16_key_free(k);
	snprintf(err, cap, "%s", e);
	return rc;
}

int cz_groth16_key_save(const struct cz_groth16_key *k, const char *path, char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	cz_fr one_raw = { { 1 } };   /* Montgomery-multiplying by it divides by R */
	struct cz_zkey_coef *cf = malloc((k->ncoefs ? k->ncoefs : 1) * sizeof(*cf));
	if (!cf) {
		snprintf(err, cap, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k->ncoefs; i++) {
		cf[i].matrix = k->coefs[i].matrix;
		cf[i].constraint = k->coefs[i].row;
		cf[i].signal = k->coefs[i].var;
		cz_fr_mul(&cf[i].value, &k->coefs[i].value, &one_raw);
	}
	struct cz_zkey_parts p = {
		.n_vars = k->nvars, .n_public = k->npub, .domain_size = 1u << k->log2n,
		.alpha1 = k->alpha1, .beta1 = k->beta1, .delta1 = k->delta1,
		.beta2 = k->beta2, .gamma2 = k->gamma2, .delta2 = k->delta2,
		.ic = k->ic, .coefs = cf, .n_coefs = (uint32_t)k->ncoefs,
		.a = k->a, .b1 = k->b1, .b2 = k->b2, .c = k->c, .h = k->h,
	};
	int rc = cz_zkey_write(path, &p, e);
	free(cf);
	snprintf(err, cap, "%s", e);
	return rc;
}

uint64_t cz_wtns_file_size(uint32_t nvars)
{
	/* magic, version, nSections; section 1: id, size, n8, prime, nWitness;
	 * section 2: id, size, values */
	return 12 + (12 + 4 + CZ_FR_BYTES + 4) + 12 + (uint64_t)nvars * CZ_FR_BYTES;
}

static int wtns_copy(struct cz_wtns *wt, uint32_t nvars, cz_scalar *w, char *e)
{
	static const uint64_t r[CZ_FR_LIMBS] = CZ_BLS12_381_R;

	if (wt->n != nvars)
		return cz_errf(e, -EINVAL, "%s: %u witness values, the circuit has nVars = %u",
			       wt->f.name, wt->n, nvars);
	for (uint32_t i = 0; i < nvars; i++) {
		memcpy(w[i].l, wt->values + (size_t)i * CZ_FR_BYTES, CZ_FR_BYTES);   /* LE host */
		int lt = 0;
		for (int l = CZ_FR_LIMBS - 1; l >= 0; l--)
			if (w[i].l[l] != r[l]) {
				lt = w[i].l[l] < r[l];
				break;
			}
		if (!lt)
			return cz_errf(e, -EINVAL, "%s: witness value %u is not below r", wt->f.name, i);
	}
	return 0;
}

static uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* pread until n bytes or end of file; bytes read, or -errno. */
static ssize_t pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		size_t chunk = n - got < (1u << 30) ? n - got : (1u << 30);
		ssize_t k = pread(fd, (char *)buf + got, chunk, off + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/*
 * Read, never mapped: the caller's file may be truncated or rewritten by
 * its owner while we read it (a mapping would then SIGBUS the daemon), and
 * the values go straight into the caller's buffer (the daemon's slab) with
 * no mmap/munmap and no heap call.  The exact size the daemon checked at
 * submit fixes the layout: header (76 bytes: magic, version, nSections,
 * section 1 = n8, q, nWitness; section 2's id and size), then the values.
 */
int cz_wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap)
{
	static const uint64_t r[CZ_FR_LIMBS] = CZ_BLS12_381_R;
	uint8_t h[76];
	uint64_t want = cz_wtns_file_size(nvars), vbytes = (uint64_t)nvars * CZ_FR_BYTES;
	struct stat st;

	if (fstat(fd, &st) || (uint64_t)st.st_size != want) {
		snprintf(err, cap, "%lld bytes, expected %llu for nVars = %u", (long long)st.st_size,
			 (unsigned long long)want, nvars);
		return -EINVAL;
	}
	ssize_t k = pread_full(fd, h, sizeof(h), 0);
	if (k < 0) {
		snprintf(err, cap, "read: %s", strerror((int)-k));
		return (int)k;
	}
	if ((size_t)k < sizeof(h)) {
		snprintf(err, cap, "truncated while reading: %zd of %llu bytes", k, (unsigned long long)want);
		return -EIO;
	}
	uint64_t s1 = rd32(h + 16) | (uint64_t)rd32(h + 20) << 32;
	uint64_t s2 = rd32(h + 68) | (uint64_t)rd32(h + 72) << 32;
	if (memcmp(h, "wtns", 4) || (rd32(h + 4) != 1 && rd32(h + 4) != 2) || rd32(h + 8) != 2) {
		snprintf(err, cap, "not a .wtns file of 2 sections (magic, version or nSections)");
		return -EINVAL;
	}
	if (rd32(h + 12) != 1 || s1 != 40 || rd32(h + 24) != CZ_FR_BYTES ||
	    memcmp(h + 28, r, CZ_FR_BYTES)) {
		snprintf(err, cap, "section 1 (header): not n8 = 32 and q = the BLS12-381 scalar field");
		return -EINVAL;
	}
	if (rd32(h + 60) != nvars) {
		snprintf(err, cap, "%u witness values, the circuit has nVars = %u", rd32(h + 60), nvars);
		return -EINVAL;
	}
	if (rd32(h + 64) != 2 || s2 != vbytes) {
		snprintf(err, cap, "section 2 (values): expected id 2 of %llu bytes after the header",
			 (unsigned long long)vbytes);
		return -EINVAL;
	}
	k = pread_full(fd, w, (size_t)vbytes, (off_t)sizeof(h));   /* LE host */
	if (k < 0) {
		snprintf(err, cap, "read: %s", strerror((int)-k));
		return (int)k;
	}
	if ((uint64_t)k < vbytes) {
		snprintf(err, cap, "truncated while reading: %llu of %llu bytes (the file changed after submit)",
			 (unsigned long long)(sizeof(h) + (size_t)k), (unsigned long long)want);
		return -EIO;
	}
	for (uint32_t i = 0; i < nvars; i++) {
		int lt = 0;
		for (int l = CZ_FR_LIMBS - 1; l >= 0; l--)
			if (w[i].l[l] != r[l]) {
				lt = w[i].l[l] < r[l];
				break;
			}
		if (!lt) {
			snprintf(err, cap, "witness value %u is not below r", i);
			return -EINVAL;
		}
	}
	if (nvars && (w[0].l[0] != 1 || w[0].l[1] | w[0].l[2] | w[0].l[3])) {
		snprintf(err, cap, "witness 0: not 1 (the constant signal)");
		return -EINVAL;
	}
	return 0;
}

int cz_wtns_read_path(const char *path, uint32_t nvars, cz_scalar *w, char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	struct cz_wtns *wt = cz_wtns_open(path, e);
	int rc = -EINVAL;
	if (wt) {
		rc = wtns_copy(wt, nvars, w, e);
		cz_wtns_close(wt);
	}
	snprintf(err, cap, "%s", e);
	return rc;
}

int cz_wtns_save(const char *path, const cz_fr *w, uint32_t n, char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	int rc = cz_wtns_write(path, w, n, e);
	snprintf(err, cap, "%s", e);
	return rc;
}

void cz_proof_bin(uint8_t out[CZ_PROOF_BIN_BYTES], const struct cz_groth16_proof *p)
{
	cz_g1_to_compressed(out, &p->a);
	cz_g2_to_compressed(out + CZ_G1_COMPRESSED_BYTES, &p->b);
	cz_g1_to_compressed(out + CZ_G1_COMPRESSED_BYTES + CZ_G2_COMPRESSED_BYTES, &p->c);
}
