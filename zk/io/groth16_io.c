/* SPDX-License-Identifier: MIT */
/* zk/io/groth16_io.c — .zkey and .wtns to and from the prover's forms, both
 * curves. */
#include "zk/io/groth16_io.h"
#include "zk/field/bls12_381.h"
#include "zk/field/bn254.h"
#include "zk/io/bn254_wtns.h"
#include "zk/io/bn254_zkey.h"
#include "zk/io/snarkjs_json.h"
#include "zk/io/wtns.h"
#include "zk/io/zkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#define GI(n) cz_groth16_##n
#define GIZ(n) cz_zkey_##n
#define GI_FR cz_fr
#define GI_KEY cz_groth16_key
#define GI_ZKEY cz_zkey
#define GI_G1B (2 * CZ_FP_BYTES)
#include "zk/io/groth16_io_tmpl_pvt.h"
#undef GI
#undef GIZ
#undef GI_FR
#undef GI_KEY
#undef GI_ZKEY
#undef GI_G1B

#define GI(n) cz_bn254_groth16_##n
#define GIZ(n) cz_bn254_zkey_##n
#define GI_FR cz_bn254_fr
#define GI_KEY cz_bn254_groth16_key
#define GI_ZKEY cz_bn254_zkey
#define GI_G1B (2 * CZ_BN254_FP_BYTES)
#include "zk/io/groth16_io_tmpl_pvt.h"

uint64_t cz_wtns_file_size(uint32_t nvars)
{
	/* magic, version, nSections; section 1: id, size, n8, prime, nWitness;
	 * section 2: id, size, values */
	return 12 + (12 + 4 + CZ_FR_BYTES + 4) + 12 + (uint64_t)nvars * CZ_FR_BYTES;
}

/* Both curves' wtns structs begin with the same fields (zk/io/wtns.h's
 * CZ_WTNS_DECLARE): name, count, values. */
static int wtns_copy(const char *name, uint32_t n, const uint8_t *values, const uint64_t *r,
		     uint32_t nvars, cz_scalar *w, char *e)
{
	if (n != nvars)
		return cz_errf(e, -EINVAL, "%s: %u witness values, the circuit has nVars = %u",
			       name, n, nvars);
	for (uint32_t i = 0; i < nvars; i++) {
		memcpy(w[i].l, values + (size_t)i * CZ_FR_BYTES, CZ_FR_BYTES);   /* LE host */
		int lt = 0;
		for (int l = CZ_FR_LIMBS - 1; l >= 0; l--)
			if (w[i].l[l] != r[l]) {
				lt = w[i].l[l] < r[l];
				break;
			}
		if (!lt)
			return cz_errf(e, -EINVAL, "%s: witness value %u is not below r", name, i);
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
static const uint64_t bls_r[CZ_FR_LIMBS] = CZ_BLS12_381_R;
static const uint64_t bn_r[CZ_FR_LIMBS] = CZ_BN254_R;

/* The 76 bytes before the values: each field against a key of nvars
 * signals over curve, the first wrong one named. */
static int wtns_head_check(const uint8_t h[76], uint32_t nvars, enum cz_curve curve, char *err, size_t cap)
{
	const uint64_t *r = curve == CZ_CURVE_BN254 ? bn_r : bls_r;
	const uint64_t *other = curve == CZ_CURVE_BN254 ? bls_r : bn_r;
	enum cz_curve oc = curve == CZ_CURVE_BN254 ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254;
	uint64_t vbytes = (uint64_t)nvars * CZ_FR_BYTES;
	uint64_t s1 = rd32(h + 16) | (uint64_t)rd32(h + 20) << 32;
	uint64_t s2 = rd32(h + 68) | (uint64_t)rd32(h + 72) << 32;
	if (memcmp(h, "wtns", 4)) {
		snprintf(err, cap, "field magic: %02x %02x %02x %02x, not \"wtns\" (not a .wtns file)", h[0], h[1],
			 h[2], h[3]);
		return -EINVAL;
	}
	if (rd32(h + 4) != 1 && rd32(h + 4) != 2) {
		snprintf(err, cap, "field version: %u, expected 1 or 2", rd32(h + 4));
		return -EINVAL;
	}
	if (rd32(h + 8) != 2) {
		snprintf(err, cap, "field nSections: %u, expected 2 (header, values)", rd32(h + 8));
		return -EINVAL;
	}
	if (rd32(h + 12) != 1 || s1 != 40) {
		snprintf(err, cap, "section 1 (header): id %u of %llu bytes, expected id 1 of 40 bytes first",
			 rd32(h + 12), (unsigned long long)s1);
		return -EINVAL;
	}
	if (rd32(h + 24) != CZ_FR_BYTES) {
		snprintf(err, cap, "section 1 (header): field n8: %u, expected %d (bytes a field element)",
			 rd32(h + 24), CZ_FR_BYTES);
		return -EINVAL;
	}
	if (!memcmp(h + 28, other, CZ_FR_BYTES)) {
		snprintf(err, cap, "section 1 (header): field q: curve %s, expected %s",
			 cz_curve_name(oc), cz_curve_name(curve));
		return -EINVAL;
	}
	if (memcmp(h + 28, r, CZ_FR_BYTES)) {
		snprintf(err, cap, "section 1 (header): field q: not the %s scalar field's prime",
			 cz_curve_name(curve));
		return -EINVAL;
	}
	if (rd32(h + 60) != nvars) {
		snprintf(err, cap, "section 1 (header): field nWitness: %u, the circuit has nVars = %u",
			 rd32(h + 60), nvars);
		return -EINVAL;
	}
	if (rd32(h + 64) != 2 || s2 != vbytes) {
		snprintf(err, cap, "section 2 (values): id %u of %llu bytes, expected id 2 of %llu bytes after "
			 "the header", rd32(h + 64), (unsigned long long)s2, (unsigned long long)vbytes);
		return -EINVAL;
	}
	return 0;
}

int cz_wtns_check_head_fd(int fd, uint32_t nvars, enum cz_curve curve, char *err, size_t cap)
{
	uint8_t h[76];
	ssize_t k = pread_full(fd, h, sizeof(h), 0);
	if (k < 0) {
		snprintf(err, cap, "read: %s", strerror((int)-k));
		return (int)k;
	}
	if ((size_t)k < sizeof(h)) {
		snprintf(err, cap, "%zd bytes: shorter than a .wtns header (76)", k);
		return -EINVAL;
	}
	return wtns_head_check(h, nvars, curve, err, cap);
}

static int wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, enum cz_curve curve, char *err,
			size_t cap)
{
	const uint64_t *r = curve == CZ_CURVE_BN254 ? bn_r : bls_r;
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
	int rc = wtns_head_check(h, nvars, curve, err, cap);
	if (rc)
		return rc;
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

int cz_wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap)
{
	return wtns_read_fd(fd, nvars, w, CZ_CURVE_BLS12_381, err, cap);
}

int cz_bn254_wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap)
{
	return wtns_read_fd(fd, nvars, w, CZ_CURVE_BN254, err, cap);
}

int cz_wtns_read_path(const char *path, uint32_t nvars, cz_scalar *w, char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	struct cz_wtns *wt = cz_wtns_open(path, e);
	int rc = -EINVAL;
	if (wt) {
		rc = wtns_copy(wt->f.name, wt->n, wt->values, bls_r, nvars, w, e);
		cz_wtns_close(wt);
	}
	snprintf(err, cap, "%s", e);
	return rc;
}

int cz_bn254_wtns_read_path(const char *path, uint32_t nvars, cz_scalar *w, char *err,
			    size_t cap)
{
	char e[CZ_ERRLEN] = "";
	struct cz_bn254_wtns *wt = cz_bn254_wtns_open(path, e);
	int rc = -EINVAL;
	if (wt) {
		rc = wtns_copy(wt->f.name, wt->n, wt->values, bn_r, nvars, w, e);
		cz_bn254_wtns_close(wt);
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
