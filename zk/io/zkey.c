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

int cz_zkey_curve(const char *path, enum cz_curve *curve, char err[CZ_ERRLEN])
{
	struct cz_iden3 f;
	struct cz_iden3_rd r;
	enum cz_iden3_prime which;
	const uint8_t *q = NULL;
	uint32_t n8 = 0;
	int rc;

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
