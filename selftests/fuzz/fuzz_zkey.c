/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the .zkey reader (header, sections, points, coefficients). */
#include <stdint.h>
#include <stdlib.h>

#include "zk/io/snarkjs_json.h"
#include "zk/io/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CZ_ERRLEN];
	/* No full-key subgroup pass: one scalar multiplication per point would
	 * make each run slow; the header's points are still subgroup-checked. */
	struct cz_zkey *z = cz_zkey_open_mem("fuzz.zkey", data, size,
					     CZ_ZKEY_CHECK_POINTS | CZ_ZKEY_CHECK_COEFS, err);
	struct cz_groth16_vk vk;
	cz_g1_affine p1[4];
	cz_g2_affine p2[4];
	struct cz_zkey_coef c[4];

	if (!z)
		return 0;
	if (cz_zkey_vk(z, &vk, err) == 0)
		cz_groth16_vk_free(&vk);
	for (int s = CZ_ZKEY_IC; s <= CZ_ZKEY_H; s++) {
		uint64_t n = cz_zkey_count(z, (enum cz_zkey_section)s);
		size_t k = n < 4 ? (size_t)n : 4;

		if (s == CZ_ZKEY_B2)
			cz_zkey_g2(z, CZ_ZKEY_B2, n - k, k, p2, err);
		else if (s != CZ_ZKEY_COEFS)
			cz_zkey_g1(z, (enum cz_zkey_section)s, n - k, k, p1, err);
	}
	cz_zkey_coefs(z, 0, z->n_coefs < 4 ? z->n_coefs : 4, c, err);
	cz_zkey_close(z);
	return 0;
}
