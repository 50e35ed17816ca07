/* SPDX-License-Identifier: MIT */
/*
 * zk/io/zkey.c — snarkjs Groth16 .zkey reader and writer for BLS12-381
 * (format in zkey.h): zk/io/zkey_tmpl_pvt.h over its types, and the curve
 * probe cz_zkey_curve for callers that take the curve from the file.
 */
#include "zk/io/zkey.h"

#include "zk/io/r1cs.h"
#include "zk/io/snarkjs_json.h"
#include "zk/io/wtns.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZK(n) cz_zkey_##n
#define ZK_T cz_zkey
#define ZK_COEF cz_zkey_coef
#define ZK_PARTS cz_zkey_parts
#define ZK_VK cz_groth16_vk
#define ZK_VK_FREE cz_groth16_vk_free
#define ZK_FP cz_fp
#define ZK_FP2 cz_fp2
#define ZK_FR cz_fr
#define ZK_G1 cz_g1
#define ZK_G2 cz_g2
#define ZK_FP_BYTES CZ_FP_BYTES
#define ZK_FR_BYTES CZ_FR_BYTES
#define ZK_PRIME_P CZ_PRIME_BLS12_381_P
#define ZK_PRIME_R CZ_PRIME_BLS12_381_R
#define ZK_WTNS cz_wtns
#define ZK_WITH_R1CS 1
#include "zk/io/zkey_tmpl_pvt.h"

/* The curve from a few preads: the container's header, the section headers
 * up to the groth16 header's, its n8q and q, each bounded by the file's
 * size; -1 for anything else (the full open below then says what is
 * wrong).  Reading the whole key for its prime cost a one-shot prove a
 * second copy of the file (16 MB, 4,000 page faults on SHA-256's key). */
static int curve_fast(const char *path, enum cz_curve *curve)
{
	uint8_t h[12], q[64];
	struct stat st;
	enum cz_iden3_prime which;
	int rc = -1, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    pread(fd, h, 12, 0) != 12 || memcmp(h, "zkey", 4) || cz_le32(h + 4) != 1)
		goto out;
	uint64_t size = (uint64_t)st.st_size, pos = 12, n = cz_le32(h + 8);
	for (uint64_t i = 0; i < n && size - pos >= 12; i++) {
		if (pread(fd, h, 12, (off_t)pos) != 12)
			break;
		uint64_t ssize = cz_le64(h + 4);
		pos += 12;
		if (ssize > size - pos)
			break;
		if (cz_le32(h) == 2) {
			uint32_t n8;
			if (ssize < 4 || pread(fd, h, 4, (off_t)pos) != 4 ||
			    (n8 = cz_le32(h)) > sizeof(q) || n8 > ssize - 4 ||
			    pread(fd, q, n8, (off_t)pos + 4) != (ssize_t)n8 ||
			    cz_iden3_prime_find(q, n8, &which))
				break;
			*curve = cz_iden3_prime_curve(which);
			rc = 0;
			break;
		}
		pos += ssize;
	}
out:
	close(fd);
	return rc;
}

int cz_zkey_curve(const char *path, enum cz_curve *curve, char err[CZ_ERRLEN])
{
	struct cz_iden3 f;
	struct cz_iden3_rd r;
	enum cz_iden3_prime which;
	const uint8_t *q = NULL;
	uint32_t n8 = 0;
	int rc;

	if (!curve_fast(path, curve))
		return 0;
	if ((rc = cz_iden3_open(&f, path, "zkey", 1, 1, err)))
		return rc;
	if (!(rc = cz_iden3_rd_open(&r, &f, 2, sec_names[2], err)) &&
	    !(rc = cz_iden3_rd_u32(&r, "n8q", &n8)) && !(rc = cz_iden3_rd_bytes(&r, "q", n8, &q))) {
		if (cz_iden3_prime_find(q, n8, &which))
			rc = cz_iden3_rd_fail(&r, -EINVAL, "q",
					      "unknown prime (%u bytes), expected BLS12-381's or BN254's p", n8);
		else
			*curve = cz_iden3_prime_curve(which);
	}
	cz_iden3_close(&f);
	return rc;
}
